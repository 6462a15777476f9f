/* Pretty forms shared by many ops: same-type and functional signatures,
 * CHLO unary/binary, select, compare, constants, custom_call, tuples, tokens. */
#include "pretty_util.h"

static void name_and_operands(shl_printer *pr, const shl_op *op) {
  pr_puts(pr, op->def->name);
  if (op->n_operands) {
    pr_puts(pr, " ");
    pr_values(pr, op->operands, op->n_operands);
  }
}

/* op %a, %b {attrs} : T  |  : (A, B) -> R */
shl_status parse_same_type(shl_parser *p, op_state *os) {
  ST_TRY(p_operands(p, os, true));
  ST_TRY(p_attr_dict(p, os));
  return p_same_or_functional_type(p, os);
}

void print_same_type(shl_printer *pr, const shl_op *op) {
  name_and_operands(pr, op);
  pr_attr_dict(pr, op, NULL);
  pr_same_or_functional_type(pr, op);
}

/* op %a, %b {attrs} : (A, B) -> R */
shl_status parse_functional(shl_parser *p, op_state *os) {
  ST_TRY(p_operands(p, os, true));
  ST_TRY(p_attr_dict(p, os));
  ST_TRY(p_expect(p, ':'));
  return p_functional_type(p, os);
}

void print_functional(shl_printer *pr, const shl_op *op) {
  name_and_operands(pr, op);
  pr_attr_dict(pr, op, NULL);
  pr_puts(pr, " : ");
  pr_functional_type(pr, op);
}

/* chlo.op %a {attrs} : A -> R   and   chlo.op %a, %b : A, B -> R */
static shl_status chlo_sig(shl_parser *p, op_state *os) {
  ST_TRY(p_operands(p, os, false));
  ST_TRY(p_attr_dict(p, os));
  ST_TRY(p_expect(p, ':'));
  shl_token at = *p_tok(p);
  const shl_type **ts;
  uint32_t n;
  ST_TRY(p_type_list(p, &ts, &n));
  if (n != os->n_operands) return parse_error_at(p, &at, "expected %u operand types, found %u", os->n_operands, n);
  for (uint32_t i = 0; i < n; i++) ST_TRY(p_check_operand_type(p, os, i, ts[i], &at));
  ST_TRY(p_expect_arrow(p));
  const shl_type *r;
  ST_TRY(p_type(p, &r));
  return os_result(p, os, r);
}

static void print_chlo_sig(shl_printer *pr, const shl_op *op) {
  name_and_operands(pr, op);
  pr_attr_dict(pr, op, NULL);
  pr_puts(pr, " : ");
  for (uint32_t i = 0; i < op->n_operands; i++) {
    if (i) pr_puts(pr, ", ");
    pr_type(pr, op->operands[i]->type);
  }
  pr_puts(pr, " -> ");
  pr_type(pr, op->results[0].type);
}

shl_status parse_chlo_unary(shl_parser *p, op_state *os) { return chlo_sig(p, os); }
void print_chlo_unary(shl_printer *pr, const shl_op *op) { print_chlo_sig(pr, op); }
shl_status parse_chlo_binary(shl_parser *p, op_state *os) { return chlo_sig(p, os); }
void print_chlo_binary(shl_printer *pr, const shl_op *op) { print_chlo_sig(pr, op); }

/* stablehlo.select %p, %t, %f : P, T  |  : (P, T, F) -> R */
shl_status parse_select(shl_parser *p, op_state *os) {
  ST_TRY(p_operands(p, os, false));
  ST_TRY(p_attr_dict(p, os));
  ST_TRY(p_expect(p, ':'));
  if (tok_punct(p_tok(p), '(')) return p_functional_type(p, os);
  shl_token at = *p_tok(p);
  const shl_type **ts;
  uint32_t n;
  ST_TRY(p_type_list(p, &ts, &n));
  if (n != 2 || os->n_operands != 3) return parse_error_at(p, &at, "expected 'pred_type, result_type'");
  ST_TRY(p_check_operand_type(p, os, 0, ts[0], &at));
  ST_TRY(p_check_operand_type(p, os, 1, ts[1], &at));
  ST_TRY(p_check_operand_type(p, os, 2, ts[1], &at));
  return os_result(p, os, ts[1]);
}

void print_select(shl_printer *pr, const shl_op *op) {
  name_and_operands(pr, op);
  pr_attr_dict(pr, op, NULL);
  pr_puts(pr, " : ");
  if (op->n_operands == 3 && op->n_results == 1 && type_eq(op->operands[1]->type, op->results[0].type) &&
      type_eq(op->operands[2]->type, op->results[0].type)) {
    pr_type(pr, op->operands[0]->type);
    pr_puts(pr, ", ");
    pr_type(pr, op->results[0].type);
  } else {
    pr_functional_type(pr, op);
  }
}

/* stablehlo.compare  LT, %a, %b,  FLOAT {attrs} : (A, B) -> R */
shl_status parse_compare(shl_parser *p, op_state *os) {
  shl_str dir;
  ST_TRY(p_bare_id(p, &dir));
  ST_TRY(os_attr(p, os, "comparison_direction", make_enum(p, "stablehlo", "comparison_direction", dir)));
  ST_TRY(p_expect(p, ','));
  for (int i = 0; i < 2; i++) {
    shl_value *v;
    if (i) ST_TRY(p_expect(p, ','));
    ST_TRY(p_operand(p, &v));
    ST_TRY(os_operand(p, os, v));
  }
  if (p_punct(p, ',')) {
    shl_str ty;
    ST_TRY(p_bare_id(p, &ty));
    ST_TRY(os_attr(p, os, "compare_type", make_enum(p, "stablehlo", "comparison_type", ty)));
  }
  ST_TRY(p_attr_dict(p, os));
  ST_TRY(p_expect(p, ':'));
  return p_functional_type(p, os);
}

static const char *const compare_elide[] = {"comparison_direction", "compare_type", NULL};

void print_compare(shl_printer *pr, const shl_op *op) {
  pr_puts(pr, op->def->name);
  const shl_attr *d = op_attr(op, "comparison_direction"), *t = op_attr(op, "compare_type");
  pr_puts(pr, "  ");
  if (d && d->kind == AT_ENUM) pr_str(pr, d->u.en.value);
  pr_puts(pr, ", ");
  pr_values(pr, op->operands, op->n_operands);
  if (t && t->kind == AT_ENUM) {
    pr_puts(pr, ",  ");
    pr_str(pr, t->u.en.value);
  }
  pr_attr_dict(pr, op, compare_elide);
  pr_puts(pr, " : ");
  pr_functional_type(pr, op);
}

/* stablehlo.constant {attrs} dense<...> : T */
shl_status parse_constant(shl_parser *p, op_state *os) {
  ST_TRY(p_attr_dict(p, os));
  shl_token at = *p_tok(p);
  const shl_attr *v;
  ST_TRY(p_attr(p, &v));
  if (v->kind != AT_DENSE && !(v->kind == AT_OPAQUE && v->type))
    return parse_error_at(p, &at, "expected a dense elements attribute");
  ST_TRY(os_attr(p, os, "value", v));
  return os_result(p, os, v->type);
}

static const char *const constant_elide[] = {"value", NULL};

void print_constant(shl_printer *pr, const shl_op *op) {
  pr_puts(pr, op->def->name);
  pr_attr_dict(pr, op, constant_elide);
  const shl_attr *v = op_attr(op, "value");
  pr_puts(pr, " ");
  if (v) pr_attr(pr, v);
}

/* stablehlo.custom_call @target(%a, %b) {attrs} : (A, B) -> R */
shl_status parse_custom_call(shl_parser *p, op_state *os) {
  shl_str target;
  ST_TRY(p_symbol_name(p, &target));
  ST_TRY(os_attr(p, os, "call_target_name", attr_string(p->a, target)));
  return pp_call_tail(p, os);
}

static const char *const custom_call_elide[] = {"call_target_name", NULL};

void print_custom_call(shl_printer *pr, const shl_op *op) {
  pr_puts(pr, "stablehlo.custom_call ");
  const shl_attr *t = op_attr(op, "call_target_name");
  pr_symbol_name(pr, t && t->kind == AT_STRING ? t->u.str : (shl_str){"", 0});
  pr_puts(pr, "(");
  pr_values(pr, op->operands, op->n_operands);
  pr_puts(pr, ")");
  pr_attr_dict(pr, op, custom_call_elide);
  pr_puts(pr, " : ");
  pr_functional_type(pr, op);
}

/* stablehlo.tuple %a, %b : tuple<A, B> */
shl_status parse_tuple(shl_parser *p, op_state *os) {
  ST_TRY(p_operands(p, os, true));
  ST_TRY(p_attr_dict(p, os));
  ST_TRY(p_expect(p, ':'));
  const shl_type *t;
  ST_TRY(p_type(p, &t));
  return os_result(p, os, t);
}

void print_tuple(shl_printer *pr, const shl_op *op) {
  name_and_operands(pr, op);
  pr_attr_dict(pr, op, NULL);
  pr_puts(pr, " : ");
  pr_type(pr, op->results[0].type);
}

/* stablehlo.get_tuple_element %t[0] : (tuple<...>) -> T */
shl_status parse_get_tuple_element(shl_parser *p, op_state *os) {
  ST_TRY(p_operands(p, os, false));
  ST_TRY(p_expect(p, '['));
  int64_t idx;
  ST_TRY(p_int(p, &idx));
  ST_TRY(p_expect(p, ']'));
  static const shl_type i32 = {.kind = TY_SCALAR, .dtype = DT_I32};
  ST_TRY(os_attr(p, os, "index", attr_int(p->a, &i32, idx)));
  ST_TRY(p_attr_dict(p, os));
  ST_TRY(p_expect(p, ':'));
  return p_functional_type(p, os);
}

static const char *const gte_elide[] = {"index", NULL};

void print_get_tuple_element(shl_printer *pr, const shl_op *op) {
  name_and_operands(pr, op);
  int64_t idx = 0;
  attr_as_int(op_attr(op, "index"), &idx);
  pr_printf(pr, "[%lld]", (long long)idx);
  pr_attr_dict(pr, op, gte_elide);
  pr_puts(pr, " : ");
  pr_functional_type(pr, op);
}

/* stablehlo.after_all %a, %b : !stablehlo.token   (and create_token, replica_id: `op : T`) */
shl_status parse_after_all(shl_parser *p, op_state *os) { return parse_tuple(p, os); }
void print_after_all(shl_printer *pr, const shl_op *op) { print_tuple(pr, op); }
shl_status parse_nullary(shl_parser *p, op_state *os) { return parse_tuple(p, os); }
void print_nullary(shl_printer *pr, const shl_op *op) { print_tuple(pr, op); }

/* stablehlo.optimization_barrier {attrs} %a, %b : A, B (attributes also read after the operands) */
shl_status parse_optimization_barrier(shl_parser *p, op_state *os) {
  bool leading = tok_punct(p_tok(p), '{');
  if (leading) ST_TRY(p_attr_dict(p, os));
  ST_TRY(p_operands(p, os, true));
  if (!leading) ST_TRY(p_attr_dict(p, os));
  return os->n_operands ? pp_operand_type_list(p, os, true) : NULL;
}

void print_optimization_barrier(shl_printer *pr, const shl_op *op) { print_return(pr, op); }

/* stablehlo.complex %re, %im : tensor<...xcomplex<T>>  (operands have element type T) */
static const shl_type *complex_part_type(shl_parser *p, const shl_type *t) {
  if (t->kind != TY_TENSOR || !dtype_is_complex(t->dtype)) return NULL;
  shl_type *r = ARENA_NEW(p->a, shl_type);
  if (!r) return NULL;
  *r = *t;
  r->dtype = t->dtype == DT_C64 ? DT_F32 : DT_F64;
  return r;
}

shl_status parse_complex(shl_parser *p, op_state *os) {
  ST_TRY(p_operands(p, os, false));
  ST_TRY(p_attr_dict(p, os));
  ST_TRY(p_expect(p, ':'));
  if (tok_punct(p_tok(p), '(')) return p_functional_type(p, os);
  shl_token at = *p_tok(p);
  const shl_type *t;
  ST_TRY(p_type(p, &t));
  const shl_type *part = complex_part_type(p, t);
  if (!part) return parse_error_at(p, &at, "expected a complex tensor type");
  for (uint32_t i = 0; i < os->n_operands; i++) ST_TRY(p_check_operand_type(p, os, i, part, &at));
  return os_result(p, os, t);
}

void print_complex(shl_printer *pr, const shl_op *op) {
  name_and_operands(pr, op);
  pr_attr_dict(pr, op, NULL);
  pr_puts(pr, " : ");
  const shl_type *r = op->results[0].type;
  bool short_form = op->n_operands == 2 && r->kind == TY_TENSOR;
  for (uint32_t i = 0; short_form && i < 2; i++) {
    const shl_type *t = op->operands[i]->type;
    short_form = t->kind == TY_TENSOR && t->rank == r->rank && t->dtype == (r->dtype == DT_C64 ? DT_F32 : DT_F64) &&
                 (r->rank <= 0 || memcmp(t->dims, r->dims, (size_t)r->rank * sizeof *r->dims) == 0) && !t->encoding &&
                 !r->encoding;
  }
  if (short_form) pr_type(pr, r);
  else pr_functional_type(pr, op);
}
