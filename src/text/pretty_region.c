/* Pretty forms of the ops whose syntax declares region arguments or folds a
 * region away: reduce (compact `applies` form and `reducer` form), while and
 * composite. */
#include "pretty_util.h"

/* Grows an arena array of `sz`-byte items by doubling. */
static void *grow(shl_parser *p, void *v, uint32_t n, uint32_t *cap, size_t sz) {
  if (n < *cap) return v;
  uint32_t ncap = *cap ? *cap * 2 : 8;
  void *nv = arena_array(p->a, ncap, sz);
  if (nv && n) memcpy(nv, v, n * sz);
  *cap = ncap;
  return nv;
}

/* ------------------------------------------------------------------ reduce */

/* The rank-0 tensor of t's element type (the type a reducer's arguments have). */
static shl_type scalar_tensor_of(const shl_type *t) {
  shl_type s = {.kind = TY_TENSOR, .dtype = t->dtype, .quant = t->quant, .rank = 0};
  return s;
}

/* Builds the body of the compact form: ^bb0(%a: T, %b: T): %r = inner %a, %b; stablehlo.return %r */
static shl_status compact_body(shl_parser *p, op_state *os, const shl_opdef *inner) {
  const shl_type *in0 = os->operands[0]->type;
  if (in0->kind != TY_TENSOR) return parse_error(p, "reduce inputs must be tensors");
  shl_type *et = ARENA_NEW(p->a, shl_type);
  if (!et) return st_oom();
  *et = scalar_tensor_of(in0);
  const shl_type *argt[2] = {et, et};
  shl_block *b = block_create(p->a, 2, argt);
  if (!b) return st_oom();
  shl_value *args[2] = {&b->args[0], &b->args[1]};
  shl_op *iop = op_create(p->a, inner, str_of(inner->name), 2, args, 1, argt, 0, NULL, 0);
  if (!iop) return st_oom();
  iop->pos = os->pos;
  block_append(b, iop);
  shl_value *rv = &iop->results[0];
  shl_op *ret = op_create(p->a, &shl_op_table[OP_RETURN], str_of("stablehlo.return"), 1, &rv, 0, NULL, 0, NULL, 0);
  if (!ret) return st_oom();
  ret->pos = os->pos;
  block_append(b, ret);
  shl_region *r = os_region(p, os);
  if (!r || !region_append_block(p->a, r, b)) return st_oom();
  return NULL;
}

/* `reducer(%a: T, %c: T) (%b: U, %d: U) {...}`: pair i declares block
 * arguments i (element) and i + N (accumulator). */
static shl_status reducer_region(shl_parser *p, op_state *os) {
  ST_TRY(p_expect_kw(p, "reducer"));
  pp_arg *pairs = NULL; /* 2 per pair, in source order */
  uint32_t n = 0, cap = 0;
  while (p_punct(p, '(')) {
    /* capacities are even, so room for item 2n is room for 2n + 1 */
    if (!(pairs = grow(p, pairs, 2 * n, &cap, sizeof *pairs))) return st_oom();
    for (int k = 0; k < 2; k++) {
      if (k) ST_TRY(p_expect(p, ','));
      pp_arg *a = &pairs[2 * n + k];
      a->name = *p_tok(p);
      if (a->name.kind != TK_PERCENT_ID) return parse_error(p, "expected reducer argument name");
      p_next(p);
      ST_TRY(p_expect(p, ':'));
      ST_TRY(p_type(p, &a->type));
      ST_TRY(p_loc(p, &a->loc));
    }
    ST_TRY(p_expect(p, ')'));
    n++;
  }
  pp_arg *args = ARENA_ARRAY(p->a, pp_arg, 2 * n + 1);
  if (!args) return st_oom();
  for (uint32_t i = 0; i < n; i++) {
    args[i] = pairs[2 * i];
    args[n + i] = pairs[2 * i + 1];
  }
  shl_block *entry;
  ST_TRY(pp_entry_block(p, 2 * n, args, &entry));
  shl_region *r = os_region(p, os);
  if (!r) return st_oom();
  ST_TRY(p_region(p, r, entry));
  p_scope_pop(p);
  return NULL;
}

/* stablehlo.reduce(%x init: %i), (%y init: %j) applies stablehlo.add across dimensions = [..] : (..) -> ..
 * stablehlo.reduce(%x init: %i) across dimensions = [..] : (..) -> ..  reducer(...) {...} */
shl_status parse_reduce(shl_parser *p, op_state *os) {
  shl_value **inits = NULL;
  uint32_t n = 0, cap = 0;
  do {
    shl_value *v, *init;
    ST_TRY(p_expect(p, '('));
    ST_TRY(p_operand(p, &v));
    ST_TRY(p_expect_kw(p, "init"));
    ST_TRY(p_expect(p, ':'));
    ST_TRY(p_operand(p, &init));
    ST_TRY(p_expect(p, ')'));
    ST_TRY(os_operand(p, os, v));
    if (!(inits = grow(p, inits, n, &cap, sizeof *inits))) return st_oom();
    inits[n++] = init;
  } while (p_punct(p, ','));
  for (uint32_t i = 0; i < n; i++) ST_TRY(os_operand(p, os, inits[i]));
  const shl_opdef *inner = NULL;
  if (p_kw(p, "applies")) {
    shl_token t = *p_tok(p);
    shl_str name;
    ST_TRY(p_bare_id(p, &name));
    inner = opdef_lookup(name);
    if (!inner || !(inner->traits & T_COMM) || !str_starts(str_of(inner->name), "stablehlo."))
      return parse_error_at(p, &t,
                            "expected the inner-op to be a commutative binary-op from the stablehlo dialect, "
                            "with zero region, producing single result");
  }
  ST_TRY(p_expect_kw(p, "across"));
  ST_TRY(pp_expect_kw_eq(p, "dimensions"));
  ST_TRY(pp_dims_attr(p, os, "dimensions"));
  ST_TRY(p_attr_dict(p, os));
  ST_TRY(pp_functional_sig(p, os));
  return inner ? compact_body(p, os, inner) : reducer_region(p, os);
}

/* The single op of a body that the compact form can name, or NULL: one
 * commutative binary stablehlo op on the two block arguments (in order) of the
 * scalar element type of the first input, whose result is returned. */
static const shl_op *compact_inner(const shl_op *op) {
  const shl_region *r = &op->regions[0];
  if (r->n_blocks != 1) return NULL;
  const shl_block *b = r->blocks[0];
  const shl_op *inner = b->first, *ret = b->last;
  if (!inner || inner->next != ret || !ret) return NULL;
  if (!(inner->def->traits & T_COMM) || !str_starts(inner->name, "stablehlo.") || inner->n_operands != 2 ||
      inner->n_results != 1 || inner->n_regions)
    return NULL;
  const shl_type *t = inner->operands[0]->type;
  if (!type_eq(inner->operands[1]->type, t) || !type_eq(inner->results[0].type, t)) return NULL;
  const shl_type *in0 = op->operands[0]->type;
  if (in0->kind != TY_TENSOR) return NULL;
  shl_type want = scalar_tensor_of(in0);
  if (!type_eq(t, &want)) return NULL;
  if (b->n_args != 2 || inner->operands[0] != &b->args[0] || inner->operands[1] != &b->args[1]) return NULL;
  const char *dot = memchr(ret->name.p, '.', ret->name.n);
  shl_str short_name = dot ? (shl_str){dot + 1, ret->name.n - (size_t)(dot + 1 - ret->name.p)} : ret->name;
  if (!str_eq_c(short_name, "return") || ret->n_operands != 1 || ret->operands[0] != &inner->results[0]) return NULL;
  return inner;
}

static const char *const reduce_elide[] = {"dimensions", NULL};

void print_reduce(shl_printer *pr, const shl_op *op) {
  uint32_t n = op->n_operands / 2;
  if (!n || op->n_operands % 2 || op->n_regions != 1 || !op->regions[0].n_blocks ||
      op->regions[0].blocks[0]->n_args != 2 * n || !pp_has_ints(op, "dimensions")) {
    pr_generic_op(pr, op);
    return;
  }
  pr_puts(pr, "stablehlo.reduce");
  for (uint32_t i = 0; i < n; i++) {
    pr_puts(pr, i ? ", (" : "(");
    pr_value(pr, op->operands[i]);
    pr_puts(pr, " init: ");
    pr_value(pr, op->operands[i + n]);
    pr_puts(pr, ")");
  }
  const shl_op *inner = compact_inner(op);
  if (inner) {
    pr_puts(pr, " applies ");
    pr_str(pr, inner->name);
  }
  pr_puts(pr, " across dimensions = ");
  pr_int_list(pr, op_attr(op, "dimensions"));
  pr_attr_dict(pr, op, reduce_elide);
  pr_puts(pr, " : ");
  pr_functional_type(pr, op);
  if (inner) return;
  pr_newline(pr);
  pr_puts(pr, " reducer");
  const shl_block *b = op->regions[0].blocks[0];
  for (uint32_t i = 0; i < n; i++) {
    for (uint32_t k = 0; k < 2; k++) {
      const shl_value *a = &b->args[i + k * n];
      pr_puts(pr, k ? ", " : "(");
      pr_value(pr, a);
      pr_puts(pr, ": ");
      pr_type(pr, a->type);
      pr_arg_loc(pr, b, i + k * n);
    }
    pr_puts(pr, ") ");
  }
  pr_puts(pr, " ");
  pr_region(pr, &op->regions[0], false);
}

/* ------------------------------------------------------------------ while */

/* stablehlo.while(%iterArg = %x, ...) : T, ... attributes {..}
 *   cond { ... } do { ... }
 * Both regions' arguments are the iteration arguments. */
shl_status parse_while(shl_parser *p, op_state *os) {
  ST_TRY(p_expect(p, '('));
  pp_arg *args = NULL;
  uint32_t cap = 0;
  if (!p_punct(p, ')')) {
    for (;;) {
      if (!(args = grow(p, args, os->n_operands, &cap, sizeof *args))) return st_oom();
      args[os->n_operands] = (pp_arg){.name = *p_tok(p)};
      if (p_tok(p)->kind != TK_PERCENT_ID) return parse_error(p, "expected iteration argument name");
      p_next(p);
      ST_TRY(p_expect(p, '='));
      shl_value *v;
      ST_TRY(p_operand(p, &v));
      ST_TRY(os_operand(p, os, v));
      if (p_punct(p, ')')) break;
      ST_TRY(p_expect(p, ','));
    }
  }
  if (os->n_operands) {
    ST_TRY(pp_operand_type_list(p, os, true));
    for (uint32_t i = 0; i < os->n_operands; i++) args[i].type = os->result_types[i];
  }
  if (p_kw(p, "attributes")) {
    if (!tok_punct(p_tok(p), '{')) return parse_error(p, "expected '{' after 'attributes'");
    ST_TRY(p_attr_dict(p, os));
  }
  for (int k = 0; k < 2; k++) {
    ST_TRY(p_expect_kw(p, k ? "do" : "cond"));
    shl_block *entry;
    ST_TRY(pp_entry_block(p, os->n_operands, args, &entry));
    shl_region *r = os_region(p, os);
    if (!r) return st_oom();
    ST_TRY(p_region(p, r, entry));
    p_scope_pop(p);
  }
  return NULL;
}

void print_while(shl_printer *pr, const shl_op *op) {
  if (op->n_regions != 2 || op->regions[0].n_blocks < 1 || op->regions[1].n_blocks < 1 ||
      op->regions[1].blocks[0]->n_args != op->n_operands || op->regions[0].blocks[0]->n_args != op->n_operands) {
    pr_generic_op(pr, op);
    return;
  }
  const shl_block *body = op->regions[1].blocks[0];
  pr_puts(pr, "stablehlo.while(");
  for (uint32_t i = 0; i < op->n_operands; i++) {
    if (i) pr_puts(pr, ", ");
    pr_value(pr, &body->args[i]);
    pr_puts(pr, " = ");
    pr_value(pr, op->operands[i]);
  }
  pr_puts(pr, ")");
  if (op->n_operands) {
    pr_puts(pr, " : ");
    pp_operand_types(pr, op, 0);
  }
  if (op->n_attrs) {
    pr_puts(pr, " attributes");
    pr_attr_dict(pr, op, NULL);
  }
  pr_newline(pr);
  pr_puts(pr, " cond ");
  pr_region(pr, &op->regions[0], false);
  pr_puts(pr, " do ");
  pr_region(pr, &op->regions[1], false);
}

/* ------------------------------------------------------------------ composite */

/* stablehlo.composite "name" %a, %b {composite_attributes = {..}, decomposition = @f, version = 1 : i32}
 *   : (A, B) -> R */
shl_status parse_composite(shl_parser *p, op_state *os) {
  shl_str name;
  ST_TRY(p_string(p, &name));
  shl_attr *a = attr_string(p->a, name);
  if (!a) return st_oom();
  ST_TRY(os_attr(p, os, "name", a));
  ST_TRY(p_operands(p, os, true));
  ST_TRY(p_attr_dict(p, os));
  return pp_functional_sig(p, os);
}

void print_composite(shl_printer *pr, const shl_op *op) {
  const shl_attr *name = op_attr(op, "name");
  if (!name || name->kind != AT_STRING || name->type) {
    pr_generic_op(pr, op);
    return;
  }
  /* Default-valued attributes are not printed (version = 0, composite_attributes = {}). */
  const shl_attr *ver = op_attr(op, "version"), *ca = op_attr(op, "composite_attributes");
  int64_t v;
  bool elide_ver = ver && ver->kind == AT_INT && ver->type && ver->type->dtype == DT_I32 && attr_as_int(ver, &v) && !v;
  bool elide_ca = ca && ca->kind == AT_DICT && !ca->u.dict.n;
  const char *elide[4] = {"name", NULL, NULL, NULL};
  int ne = 1;
  if (elide_ver) elide[ne++] = "version";
  if (elide_ca) elide[ne++] = "composite_attributes";
  pr_puts(pr, "stablehlo.composite ");
  pr_string_lit(pr, name->u.str);
  if (op->n_operands) {
    pr_puts(pr, " ");
    pr_values(pr, op->operands, op->n_operands);
  }
  pr_attr_dict(pr, op, elide);
  pr_puts(pr, " : ");
  pr_functional_type(pr, op);
}
