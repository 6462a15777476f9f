/* XLA's ChloPreserveHighLevelOpsPass (xla/mlir_hlo/stablehlo_ext/transforms/
 * chlo_preserve_high_level_ops.cpp), which SerializeUsingVersionedStablehlo
 * runs before chlo-legalize-to-stablehlo: each acos, acosh, asin, asinh,
 * atanh, cosh, sinh, erf, erfc, mulhi and top_k becomes
 *
 *   stablehlo.composite "chlo.X" %args {composite_attributes = {op's attrs},
 *                                       decomposition = @chlo.X.impl, version = 1 : i32}
 *
 * and a new private function @chlo.X.impl holding the op follows the
 * function it came from (the decomposition then rewrites the op there), so a
 * consumer can still recognise the high-level op.  Order and names as XLA's:
 * top-level ops are visited last to first, the ops of each in post-order; a
 * taken name gets "_N" from one counter shared by all names.  ragged_dot's
 * CHLO attributes become builtin ones in composite_attributes, as XLA
 * serializes them: the dimension numbers as six dense<...> : tensor<Nxi64>
 * (lhs/rhs batching, lhs/rhs contracting, lhs ragged, rhs group) and the
 * precision config as strings.  scan, which XLA wraps too, is left to the
 * decomposition, which refuses it (its composite would hold a region). */
#include <stdio.h>

#include "chlo_impl.h"

typedef struct {
  shl_arena *a;
  shl_op *top_op;   /* the top-level op being walked: impl functions follow it */
  shl_block *top;   /* the module body */
  unsigned counter; /* MLIR SymbolTable's uniquing counter */
  size_t wrapped;
} cc_state;

static bool preserved(shl_opid id) {
  switch (id) {
    case OP_CHLO_ACOS:
    case OP_CHLO_ACOSH:
    case OP_CHLO_ASIN:
    case OP_CHLO_ASINH:
    case OP_CHLO_ATANH:
    case OP_CHLO_COSH:
    case OP_CHLO_SINH:
    case OP_CHLO_ERF:
    case OP_CHLO_ERFC:
    case OP_CHLO_MULHI:
    case OP_CHLO_RAGGED_DOT:
    case OP_CHLO_TOP_K: return true;
    default: return false;
  }
}

static bool symbol_taken(const cc_state *s, const char *name, size_t n) {
  for (const shl_op *o = s->top->first; o; o = o->next) {
    const shl_attr *sym = op_attr(o, "sym_name");
    if (sym && sym->kind == AT_STRING && sym->u.str.n == n && !memcmp(sym->u.str.p, name, n)) return true;
  }
  return false;
}

/* "<op name>.impl", or with the first free "_N" of the shared counter. */
static shl_str impl_name(cc_state *s, const shl_op *op) {
  const char *base = op->def->name;
  size_t cap = strlen(base) + 32;
  char *p = arena_alloc(s->a, cap);
  if (!p) return (shl_str){NULL, 0};
  int n = snprintf(p, cap, "%s.impl", base);
  while (symbol_taken(s, p, (size_t)n)) n = snprintf(p, cap, "%s.impl_%u", base, s->counter++);
  return (shl_str){p, (size_t)n};
}

/* dense<[...]> : tensor<Nxi64> of a ragged_dot dimension list. */
static const shl_attr *i64_tensor(shl_arena *a, const shl_attr *dn, const char *name) {
  const shl_attr *f = attr_struct_field(dn, name);
  size_t n = 0;
  if (f && !attr_as_ints(f, NULL, 0, &n)) return NULL;
  int64_t count = (int64_t)n;
  int64_t *v = ARENA_ARRAY(a, int64_t, n + 1);
  shl_attr *d = attr_new(a, AT_DENSE);
  if (!v || !d || (n && !attr_as_ints(f, v, n, &n))) return NULL;
  d->type = type_tensor(a, DT_I64, 1, &count);
  d->u.dense.storage = v;
  d->u.dense.nbytes = n * sizeof *v;
  return d->type ? d : NULL;
}

static const shl_attr *serialized(shl_arena *a, const shl_named_attr *na) {
  static const char *const fields[6] = {"lhs_batching_dimensions",    "rhs_batching_dimensions",
                                        "lhs_contracting_dimensions", "rhs_contracting_dimensions",
                                        "lhs_ragged_dimensions",      "rhs_group_dimensions"};
  const shl_attr *v = na->attr;
  bool dims = v->kind == AT_STRUCT && str_eq_c(v->u.st.name, "chlo.ragged_dot");
  bool prec = str_eq_c(na->name, "precision_config") && v->kind == AT_ARRAY;
  if (!dims && !prec) return v;
  uint32_t n = dims ? 6 : v->u.arr.n;
  shl_attr *arr = attr_new(a, AT_ARRAY);
  const shl_attr **items = ARENA_ARRAY(a, const shl_attr *, n + 1);
  if (!arr || !items) return NULL;
  for (uint32_t i = 0; i < n; i++) {
    const shl_attr *p = dims ? NULL : v->u.arr.items[i];
    items[i] = dims ? i64_tensor(a, v, fields[i]) : p->kind == AT_ENUM ? attr_string(a, p->u.en.value) : p;
    if (!items[i]) return NULL;
  }
  arr->u.arr.n = n;
  arr->u.arr.items = items;
  return arr;
}

static shl_status wrap(cc_state *s, shl_op *op) {
  shl_str name = impl_name(s, op);
  if (!name.p) return st_oom();
  /* The function: (operand types) -> (result types), body = the op + return. */
  shl_type *ft = ARENA_NEW(s->a, shl_type);
  const shl_type **in = ARENA_ARRAY(s->a, const shl_type *, op->n_operands + 1);
  const shl_type **out = ARENA_ARRAY(s->a, const shl_type *, op->n_results + 1);
  if (!ft || !in || !out) return st_oom();
  for (uint32_t i = 0; i < op->n_operands; i++) in[i] = op->operands[i]->type;
  for (uint32_t i = 0; i < op->n_results; i++) out[i] = op->results[i].type;
  *ft = (shl_type){.kind = TY_FUNCTION, .n_in = op->n_operands, .in = in, .n_out = op->n_results, .out = out};
  shl_attr *fta = attr_new(s->a, AT_TYPE), *sym = attr_string(s->a, name), *vis = attr_string(s->a, STR_LIT("private"));
  if (!fta || !sym || !vis) return st_oom();
  fta->type = ft;
  shl_named_attr fattrs[3] = {{STR_LIT("function_type"), fta, true},
                              {STR_LIT("sym_name"), sym, true},
                              {STR_LIT("sym_visibility"), vis, true}};
  shl_op *f = op_create(s->a, &shl_op_table[OP_FUNC], STR_LIT("func.func"), 0, NULL, 0, NULL, 3, fattrs, 1);
  shl_block *body = f ? block_create(s->a, op->n_operands, in) : NULL;
  if (!body || !region_append_block(s->a, &f->regions[0], body)) return st_oom();
  f->pos = op->pos;
  f->loc = op->loc;
  shl_value **args = ARENA_ARRAY(s->a, shl_value *, op->n_operands + 1);
  if (!args) return st_oom();
  for (uint32_t i = 0; i < op->n_operands; i++) args[i] = &body->args[i];
  shl_op *inner = op_create(s->a, op->def, op->name, op->n_operands, args, op->n_results, out, op->n_attrs, op->attrs, 0);
  if (!inner) return st_oom();
  inner->pos = op->pos;
  inner->loc = op->loc;
  block_append(body, inner);
  shl_value **rets = ARENA_ARRAY(s->a, shl_value *, op->n_results + 1);
  if (!rets) return st_oom();
  for (uint32_t i = 0; i < op->n_results; i++) rets[i] = &inner->results[i];
  shl_op *ret = op_create(s->a, &shl_op_table[OP_FUNC_RETURN], STR_LIT("func.return"), op->n_results, rets, 0, NULL, 0,
                          NULL, 0);
  if (!ret) return st_oom();
  ret->pos = op->pos;
  ret->loc = op->loc;
  block_append(body, ret);
  block_insert_before(s->top, s->top_op->next, f);

  /* The composite, taking over the op's results (their uses stay as they are). */
  shl_attr *cname = attr_string(s->a, str_of(op->def->name)), *decomp = attr_new(s->a, AT_SYMREF);
  shl_attr *version = attr_int(s->a, type_scalar(s->a, DT_I32), 1);
  char *text = arena_alloc(s->a, name.n + 2);
  if (!cname || !decomp || !version || !text) return st_oom();
  text[0] = '@';
  memcpy(text + 1, name.p, name.n);
  decomp->u.sym.text = (shl_str){text, name.n + 1};
  decomp->u.sym.root = name;
  shl_named_attr cattrs[4];
  uint32_t n = 0;
  if (op->n_attrs) {
    shl_attr *d = attr_new(s->a, AT_DICT);
    shl_named_attr *items = ARENA_ARRAY(s->a, shl_named_attr, op->n_attrs);
    if (!d || !items) return st_oom();
    memcpy(items, op->attrs, op->n_attrs * sizeof *items);
    for (uint32_t i = 0; i < op->n_attrs; i++)
      if (!(items[i].attr = serialized(s->a, &op->attrs[i]))) return st_oom();
    d->u.dict.n = op->n_attrs;
    d->u.dict.items = items;
    cattrs[n++] = (shl_named_attr){STR_LIT("composite_attributes"), d, true};
  }
  cattrs[n++] = (shl_named_attr){STR_LIT("decomposition"), decomp, true};
  cattrs[n++] = (shl_named_attr){STR_LIT("name"), cname, true};
  cattrs[n++] = (shl_named_attr){STR_LIT("version"), version, true};
  shl_op *comp = op_create(s->a, &shl_op_table[OP_COMPOSITE], str_of(shl_op_table[OP_COMPOSITE].name), op->n_operands,
                           op->operands, 0, NULL, n, cattrs, 0);
  if (!comp) return st_oom();
  comp->n_results = op->n_results;
  comp->results = op->results;
  for (uint32_t i = 0; i < comp->n_results; i++) comp->results[i].def = comp;
  comp->pos = op->pos;
  comp->loc = op->loc;
  shl_block *b = op->block;
  block_insert_before(b, op, comp);
  block_remove(b, op);
  s->wrapped++;
  return NULL;
}

/* Post-order: an op's regions before the op. */
static shl_status walk(cc_state *s, shl_block *b) {
  shl_op *next;
  for (shl_op *op = b->first; op; op = next) {
    next = op->next;
    for (uint32_t r = 0; r < op->n_regions; r++)
      for (uint32_t k = 0; k < op->regions[r].n_blocks; k++) ST_TRY(walk(s, op->regions[r].blocks[k]));
    if (preserved(op_id(op))) ST_TRY(wrap(s, op));
  }
  return NULL;
}

shl_status pass_wrap_chlo_composites(shloc_module *m, size_t *wrapped) {
  if (wrapped) *wrapped = 0;
  if (!m || !m->top || !m->top->n_regions || !m->top->regions[0].n_blocks)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "no module");
  cc_state s = {.a = &m->arena, .top = m->top->regions[0].blocks[0]};
  for (shl_op *op = s.top->last, *prev; op; op = prev) {
    prev = op->prev;
    /* Functions of this module only: a nested module's CHLO ops stay for
     * the decomposition (its symbols are its own). */
    if (!op_is(op, OP_FUNC)) continue;
    s.top_op = op;
    for (uint32_t r = 0; r < op->n_regions; r++)
      for (uint32_t k = 0; k < op->regions[r].n_blocks; k++) ST_TRY(walk(&s, op->regions[r].blocks[k]));
  }
  if (wrapped) *wrapped = s.wrapped;
  return NULL;
}
