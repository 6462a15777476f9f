/* stablehlo.custom_call -> func.call + private declaration (see the header
 * for the conventions). */
#include "lower_custom_calls.h"

#include <stdio.h>
#include <stdlib.h>

#include "targets/jax/annotations.h"
#include "text/print_value.h"

typedef struct {
  shl_str target;
  const shl_type *ftype;
  const shl_attr *config;
  shl_str sym;
} decl_entry;

typedef struct {
  shl_arena *a;
  const pass_lcc_options *opts;
  shl_block *top;
  shl_str *used; /* symbol names taken */
  uint32_t n_used, cap_used;
  decl_entry *decls;
  uint32_t n_decls, cap_decls;
  const shl_attr *read_access; /* {bufferization.access = "read"} */
} lcc_state;

static bool grow(void **v, uint32_t *cap, uint32_t n, size_t size) {
  if (n < *cap) return true;
  uint32_t ncap = *cap ? *cap * 2 : 16;
  void *nv = realloc(*v, ncap * size);
  if (!nv) return false;
  *v = nv;
  *cap = ncap;
  return true;
}

static bool sym_used(const lcc_state *s, shl_str name) {
  for (uint32_t i = 0; i < s->n_used; i++)
    if (str_eq(s->used[i], name)) return true;
  return false;
}

static shl_status use_sym(lcc_state *s, shl_str name) {
  if (!grow((void **)&s->used, &s->cap_used, s->n_used, sizeof *s->used)) return st_oom();
  s->used[s->n_used++] = name;
  return NULL;
}

static bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

shl_str pass_sanitize_symbol(shl_arena *a, shl_str name) {
  if (!name.n) return STR_LIT("custom_call");
  bool digit = name.p[0] >= '0' && name.p[0] <= '9';
  char *out = arena_alloc(a, name.n + 2);
  if (!out) return (shl_str){NULL, 0};
  size_t k = 0;
  if (digit) out[k++] = '_';
  for (size_t i = 0; i < name.n; i++) out[k++] = is_ident_char(name.p[i]) ? name.p[i] : '_';
  return (shl_str){out, k};
}

/* A fresh symbol: the sanitized target, or the first free `_N` variant. */
static shl_status fresh_symbol(lcc_state *s, shl_str target, shl_str *out) {
  shl_str base = pass_sanitize_symbol(s->a, target);
  if (!base.p) return st_oom();
  shl_str name = base;
  for (unsigned k = 1; sym_used(s, name); k++) {
    char *p = arena_alloc(s->a, base.n + 12);
    if (!p) return st_oom();
    int n = snprintf(p, base.n + 12, "%.*s_%u", (int)base.n, base.p, k);
    name = (shl_str){p, (size_t)n};
  }
  ST_TRY(use_sym(s, name));
  *out = name;
  return NULL;
}

/* ---- attributes ---- */

static shl_status builtin_attr(lcc_state *s, const shl_attr *in, const shl_attr **out);

/* #dialect.name<field = value, ...> -> {field = value, ...} (fields sorted);
 * integer lists become array<i64: ...>. */
static shl_status struct_to_dict(lcc_state *s, const shl_attr *st, const shl_attr **out) {
  shl_attr *d = attr_new(s->a, AT_DICT);
  shl_named_attr *items = ARENA_ARRAY(s->a, shl_named_attr, st->u.st.n + 1);
  if (!d || !items) return st_oom();
  for (uint32_t i = 0; i < st->u.st.n; i++) {
    items[i] = (shl_named_attr){st->u.st.fields[i].name, NULL, false};
    ST_TRY(builtin_attr(s, st->u.st.fields[i].attr, &items[i].attr));
  }
  uint32_t dup;
  if (!attrs_sort(items, st->u.st.n, &dup))
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "#%.*s has the field '%.*s' twice", (int)st->u.st.name.n,
                    st->u.st.name.p, (int)items[dup].name.n, items[dup].name.p);
  d->u.dict.n = st->u.st.n;
  d->u.dict.items = items;
  *out = d;
  return NULL;
}

static shl_status builtin_attr(lcc_state *s, const shl_attr *in, const shl_attr **out) {
  *out = in;
  switch (in->kind) {
    case AT_STRUCT: return struct_to_dict(s, in, out);
    case AT_INTLIST: {
      shl_attr *arr = attr_dense_array_i64(s->a, in->u.ints.v, in->u.ints.n);
      if (!arr) return st_oom();
      *out = arr;
      return NULL;
    }
    case AT_ARRAY: {
      const shl_attr **items = ARENA_ARRAY(s->a, const shl_attr *, in->u.arr.n + 1);
      shl_attr *arr = attr_new(s->a, AT_ARRAY);
      if (!items || !arr) return st_oom();
      for (uint32_t i = 0; i < in->u.arr.n; i++) ST_TRY(builtin_attr(s, in->u.arr.items[i], &items[i]));
      arr->u.arr.n = in->u.arr.n;
      arr->u.arr.items = items;
      *out = arr;
      return NULL;
    }
    case AT_DICT: {
      shl_named_attr *items = ARENA_ARRAY(s->a, shl_named_attr, in->u.dict.n + 1);
      shl_attr *d = attr_new(s->a, AT_DICT);
      if (!items || !d) return st_oom();
      for (uint32_t i = 0; i < in->u.dict.n; i++) {
        items[i] = in->u.dict.items[i];
        ST_TRY(builtin_attr(s, in->u.dict.items[i].attr, &items[i].attr));
      }
      d->u.dict.n = in->u.dict.n;
      d->u.dict.items = items;
      *out = d;
      return NULL;
    }
    default: return NULL;
  }
}

/* Every attribute of the op, as one dictionary. */
static shl_status config_of(lcc_state *s, const shl_op *op, const shl_attr **out) {
  shl_named_attr *items = ARENA_ARRAY(s->a, shl_named_attr, op->n_attrs + 1);
  shl_attr *d = attr_new(s->a, AT_DICT);
  if (!items || !d) return st_oom();
  for (uint32_t i = 0; i < op->n_attrs; i++) {
    items[i] = (shl_named_attr){op->attrs[i].name, NULL, false};
    shl_status st = builtin_attr(s, op->attrs[i].attr, &items[i].attr);
    if (st) return st_at(st, &op->pos, op_name_cstr(op));
  }
  d->u.dict.n = op->n_attrs;
  d->u.dict.items = items;
  *out = d;
  return NULL;
}

/* ---- declarations ---- */

static shl_status check_type(const shl_op *op, const shl_type *t, const char *role, uint32_t i) {
  if (t->kind == TY_TENSOR && t->rank >= 0) return NULL;
  char *txt = NULL;
  shl_status pst = print_type_text(t, &txt);
  if (pst) shloc_status_free(pst);
  shl_status st = op_error(op, SHLOC_ERR_UNSUPPORTED,
                           "%s #%u has type %s; only ranked tensors can be passed to an external function "
                           "(--targets selects the targets to lower)",
                           role, i, txt ? txt : "?");
  free(txt);
  return st;
}

static shl_status signature_of(lcc_state *s, const shl_op *op, const shl_type **out) {
  shl_type *ft = ARENA_NEW(s->a, shl_type);
  const shl_type **in = ARENA_ARRAY(s->a, const shl_type *, op->n_operands + 1);
  const shl_type **res = ARENA_ARRAY(s->a, const shl_type *, op->n_results + 1);
  if (!ft || !in || !res) return st_oom();
  for (uint32_t i = 0; i < op->n_operands; i++) {
    ST_TRY(check_type(op, op->operands[i]->type, "operand", i));
    in[i] = op->operands[i]->type;
  }
  for (uint32_t i = 0; i < op->n_results; i++) {
    ST_TRY(check_type(op, op->results[i].type, "result", i));
    res[i] = op->results[i].type;
  }
  ft->kind = TY_FUNCTION;
  ft->n_in = op->n_operands;
  ft->in = in;
  ft->n_out = op->n_results;
  ft->out = res;
  *out = ft;
  return NULL;
}

static shl_status add_declaration(lcc_state *s, const decl_entry *e, const shl_op *from) {
  shl_attr *vis = attr_string(s->a, STR_LIT("private")), *name = attr_string(s->a, e->sym);
  shl_attr *fta = attr_new(s->a, AT_TYPE), *unit = attr_new(s->a, AT_UNIT);
  if (!vis || !name || !fta || !unit) return st_oom();
  fta->type = e->ftype;
  shl_named_attr attrs[6];
  uint32_t n = 0;
  attrs[n++] = (shl_named_attr){STR_LIT("function_type"), fta, true};
  attrs[n++] = (shl_named_attr){STR_LIT("llvm.emit_c_interface"), unit, false};
  attrs[n++] = (shl_named_attr){STR_LIT(PASS_CUSTOM_CALL_ATTR), e->config, false};
  attrs[n++] = (shl_named_attr){STR_LIT("sym_name"), name, true};
  attrs[n++] = (shl_named_attr){STR_LIT("sym_visibility"), vis, true};
  if (e->ftype->n_in) {
    shl_attr *arr = attr_new(s->a, AT_ARRAY);
    const shl_attr **items = ARENA_ARRAY(s->a, const shl_attr *, e->ftype->n_in);
    if (!arr || !items) return st_oom();
    for (uint32_t i = 0; i < e->ftype->n_in; i++) items[i] = s->read_access;
    arr->u.arr.n = e->ftype->n_in;
    arr->u.arr.items = items;
    attrs[n++] = (shl_named_attr){STR_LIT("arg_attrs"), arr, true};
  }
  attrs_sort(attrs, n, NULL);
  shl_op *f = op_create(s->a, &shl_op_table[OP_FUNC], STR_LIT("func.func"), 0, NULL, 0, NULL, n, attrs, 1);
  if (!f) return st_oom();
  f->pos = from->pos;
  block_append(s->top, f);
  return NULL;
}

/* The symbol for this call: an existing declaration with the same target,
 * signature and attributes, or a new one. */
static shl_status declaration_for(lcc_state *s, const shl_op *op, shl_str target, shl_str *sym) {
  decl_entry e = {.target = target};
  ST_TRY(signature_of(s, op, &e.ftype));
  ST_TRY(config_of(s, op, &e.config));
  for (uint32_t i = 0; i < s->n_decls; i++) {
    const decl_entry *d = &s->decls[i];
    if (str_eq(d->target, target) && type_eq(d->ftype, e.ftype) && attr_eq(d->config, e.config)) {
      *sym = d->sym;
      return NULL;
    }
  }
  ST_TRY(fresh_symbol(s, target, &e.sym));
  if (!grow((void **)&s->decls, &s->cap_decls, s->n_decls, sizeof *s->decls)) return st_oom();
  s->decls[s->n_decls++] = e;
  ST_TRY(add_declaration(s, &e, op));
  *sym = e.sym;
  return NULL;
}

/* ---- calls ---- */

static bool selected(const lcc_state *s, shl_str target) {
  if (!s->opts || !s->opts->targets) return true;
  for (size_t i = 0; i < s->opts->n_targets; i++)
    if (str_eq_c(target, s->opts->targets[i])) return true;
  return false;
}

static shl_status lower_call(lcc_state *s, shl_op *op) {
  const shl_attr *ta = op_attr(op, "call_target_name");
  shl_str target = ta && ta->kind == AT_STRING ? ta->u.str : (shl_str){"", 0};
  if (!selected(s, target)) return NULL;
  shl_str sym;
  ST_TRY(declaration_for(s, op, target, &sym));
  shl_attr *callee = attr_new(s->a, AT_SYMREF);
  char *text = arena_alloc(s->a, sym.n + 1);
  if (!callee || !text) return st_oom();
  text[0] = '@';
  memcpy(text + 1, sym.p, sym.n);
  callee->u.sym.text = (shl_str){text, sym.n + 1};
  callee->u.sym.root = sym;
  shl_named_attr attr = {STR_LIT("callee"), callee, true};
  shl_op *call = op_create(s->a, &shl_op_table[OP_FUNC_CALL], STR_LIT("func.call"), op->n_operands, op->operands, 0,
                           NULL, 1, &attr, 0);
  if (!call) return st_oom();
  /* The call takes over the op's result values, so every use now refers to
   * the call without rewriting operand lists. */
  call->n_results = op->n_results;
  call->results = op->results;
  for (uint32_t i = 0; i < call->n_results; i++) call->results[i].def = call;
  call->loc = op->loc;
  call->pos = op->pos;
  shl_block *b = op->block;
  block_insert_before(b, op, call);
  block_remove(b, op);
  return NULL;
}

/* JAX's annotation targets mean nothing outside XLA: an identity whose
 * results have its operands' types (Sharding, SPMD*ShapeWithAnnotations on one
 * device, ...) is dropped and its uses take its operands; dce_sink is dropped. */
static bool drop_annotation(shl_op *op, shl_str target) {
  jax_target_kind kind;
  if (!jax_target_lookup(target, &kind)) return false;
  if (kind == JAXT_SINK && op->n_results == 0) return true;
  return jax_target_forwards(op, kind);
}

/* A dropped annotation's result is its operand (the op stays allocated in the
 * arena, so its operand list can still be read); chains resolve in turn. */
static shl_value *forwarded(shl_value *v) {
  while (v->def && v->def->block == NULL && op_is(v->def, OP_CUSTOM_CALL)) v = v->def->operands[v->index];
  return v;
}

static shl_status walk_region(lcc_state *s, shl_region *r) {
  for (uint32_t bi = 0; bi < r->n_blocks; bi++) {
    shl_op *next;
    for (shl_op *op = r->blocks[bi]->first; op; op = next) {
      next = op->next;
      for (uint32_t i = 0; i < op->n_operands; i++) op->operands[i] = forwarded(op->operands[i]);
      if (op_is(op, OP_CUSTOM_CALL)) {
        const shl_attr *ta = op_attr(op, "call_target_name");
        shl_str target = ta && ta->kind == AT_STRING ? ta->u.str : (shl_str){"", 0};
        if (selected(s, target) && drop_annotation(op, target))
          block_remove(op->block, op);
        else
          ST_TRY(lower_call(s, op));
        continue;
      }
      if (op_is(op, OP_MODULE)) continue;
      for (uint32_t k = 0; k < op->n_regions; k++) ST_TRY(walk_region(s, &op->regions[k]));
    }
  }
  return NULL;
}

static shl_status run_pass(lcc_state *s) {
  for (shl_op *op = s->top->first; op; op = op->next) {
    const shl_attr *name = op_attr(op, "sym_name");
    if (name && name->kind == AT_STRING) ST_TRY(use_sym(s, name->u.str));
  }
  shl_attr *read = attr_string(s->a, STR_LIT("read"));
  shl_attr *access = attr_new(s->a, AT_DICT);
  shl_named_attr *item = ARENA_NEW(s->a, shl_named_attr);
  if (!read || !access || !item) return st_oom();
  *item = (shl_named_attr){STR_LIT("bufferization.access"), read, false};
  access->u.dict.n = 1;
  access->u.dict.items = item;
  s->read_access = access;
  /* Declarations are appended to the module body: stop at its current end. */
  shl_op *last = s->top->last;
  for (shl_op *op = s->top->first; op; op = op->next) {
    if (op_is(op, OP_FUNC))
      for (uint32_t k = 0; k < op->n_regions; k++) ST_TRY(walk_region(s, &op->regions[k]));
    if (op == last) break;
  }
  return NULL;
}

shl_status pass_lower_custom_calls(shloc_module *m, const pass_lcc_options *opts) {
  lcc_state s = {.a = &m->arena, .opts = opts, .top = m->top->regions[0].blocks[0]};
  shl_status st = run_pass(&s);
  free(s.used);
  free(s.decls);
  return st;
}
