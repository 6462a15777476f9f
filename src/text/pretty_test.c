/* Pretty forms of the interpreter test harness: the check dialect
 * (expect_eq, expect_almost_eq, expect_close, expect_eq_const,
 * expect_almost_eq_const, expect_serialized_eq) and interpreter.probe /
 * interpreter.print.  Default-valued attributes (tolerance = 1e-4,
 * min_ulp_difference = 0, iteration = 0) are not written, as MLIR elides
 * an optional group whose anchor holds its default. */
#include "pretty_util.h"

static bool is_almost(const shl_op *op) {
  return op_is(op, OP_CHECK_EXPECT_ALMOST_EQ) || op_is(op, OP_CHECK_EXPECT_ALMOST_EQ_CONST);
}

/* Bits of the default tolerance 1e-4 as an f64. */
static uint64_t default_tolerance_bits(void) {
  double d = 1e-4;
  uint64_t b;
  memcpy(&b, &d, sizeof b);
  return b;
}

/* `, tolerance = X` when present and not the default. */
static void print_tolerance(shl_printer *pr, const shl_op *op) {
  const shl_attr *t = op_attr(op, "tolerance");
  if (!t || (t->kind == AT_FLOAT && t->u.f_bits == default_tolerance_bits())) return;
  pr_puts(pr, ", tolerance = ");
  pr_attr_bare(pr, t);
}

static shl_status parse_tolerance(shl_parser *p, op_state *os) {
  ST_TRY(pp_expect_kw_eq(p, "tolerance"));
  const shl_attr *t;
  ST_TRY(pp_f64_attr(p, &t));
  return os_attr(p, os, "tolerance", t);
}

/* A non-default integer attribute of the given name (absent counts as default). */
static bool int_not(const shl_op *op, const char *name, int64_t dflt) {
  int64_t v;
  return attr_as_int(op_attr(op, name), &v) && v != dflt;
}

static const char *const tolerance_elide[] = {"tolerance", NULL};

/* ------------------------------------------------------------------ expect_eq / expect_almost_eq */

/* check.expect_eq %a, %b : T
 * check.expect_almost_eq %a, %b, tolerance = 1.000000e-03 : T */
shl_status parse_check_pair(shl_parser *p, op_state *os) {
  ST_TRY(pp_operands_comma(p, os, 1));
  shl_value *v;
  ST_TRY(p_operand(p, &v));
  ST_TRY(os_operand(p, os, v));
  if (os->def->id == OP_CHECK_EXPECT_ALMOST_EQ && p_punct(p, ',')) ST_TRY(parse_tolerance(p, os));
  ST_TRY(p_attr_dict(p, os));
  ST_TRY(p_expect(p, ':'));
  shl_token at = *p_tok(p);
  const shl_type *t;
  ST_TRY(p_type(p, &t));
  ST_TRY(p_check_operand_type(p, os, 0, t, &at));
  return p_check_operand_type(p, os, 1, t, &at);
}

void print_check_pair(shl_printer *pr, const shl_op *op) {
  const shl_attr *t = op_attr(op, "tolerance");
  if (op->n_operands != 2 || op->n_results || (t && t->kind != AT_FLOAT) ||
      !type_eq(op->operands[0]->type, op->operands[1]->type)) {
    pr_generic_op(pr, op);
    return;
  }
  pp_name_operands(pr, op);
  if (is_almost(op)) print_tolerance(pr, op);
  pr_attr_dict(pr, op, is_almost(op) ? tolerance_elide : NULL);
  pr_puts(pr, " : ");
  pr_type(pr, op->operands[0]->type);
}

/* ------------------------------------------------------------------ expect_close */

/* check.expect_close %a, %e, max_ulp_difference = 3, min_ulp_difference = 1 : {attrs} A, E
 * (the attribute dictionary comes after the colon in this op's format) */
shl_status parse_check_close(shl_parser *p, op_state *os) {
  ST_TRY(pp_operands_comma(p, os, 1));
  shl_value *v;
  ST_TRY(p_operand(p, &v));
  ST_TRY(os_operand(p, os, v));
  ST_TRY(p_expect(p, ','));
  static const char *const names[2] = {"max_ulp_difference", "min_ulp_difference"};
  for (int k = 0; k < 2; k++) {
    if (k && !p_punct(p, ',')) break;
    ST_TRY(pp_expect_kw_eq(p, names[k]));
    uint64_t u;
    ST_TRY(pp_uint(p, &u));
    shl_attr *a = attr_int(p->a, &pp_ui64, (int64_t)u);
    if (!a) return st_oom();
    ST_TRY(os_attr(p, os, names[k], a));
  }
  ST_TRY(p_expect(p, ':'));
  ST_TRY(p_attr_dict(p, os));
  shl_token at = *p_tok(p);
  const shl_type **ts;
  uint32_t n;
  ST_TRY(p_type_list(p, &ts, &n));
  if (n != 2) return parse_error_at(p, &at, "expected 2 types, found %u", n);
  for (uint32_t i = 0; i < n; i++) ST_TRY(p_check_operand_type(p, os, i, ts[i], &at));
  return NULL;
}

static const char *const close_elide[] = {"max_ulp_difference", "min_ulp_difference", NULL};

void print_check_close(shl_printer *pr, const shl_op *op) {
  const shl_attr *mx = op_attr(op, "max_ulp_difference"), *mn = op_attr(op, "min_ulp_difference");
  if (op->n_operands != 2 || op->n_results || (mx && mx->kind != AT_INT) || (mn && mn->kind != AT_INT)) {
    pr_generic_op(pr, op);
    return;
  }
  pp_name_operands(pr, op);
  /* max_ulp_difference is always written; its default is 1. */
  pr_puts(pr, ", max_ulp_difference = ");
  if (mx) pr_attr_bare(pr, mx);
  else pr_puts(pr, "1");
  if (int_not(op, "min_ulp_difference", 0)) {
    pr_puts(pr, ", min_ulp_difference = ");
    pr_attr_bare(pr, mn);
  }
  pr_puts(pr, " :");
  pr_attr_dict(pr, op, close_elide);
  pr_puts(pr, " ");
  pp_operand_types(pr, op, 0);
}

/* ------------------------------------------------------------------ expect_eq_const / expect_almost_eq_const */

/* check.expect_eq_const %a, dense<...> : T
 * check.expect_almost_eq_const %a, dense<...> : T, tolerance = 1.000000e-03 */
shl_status parse_check_const(shl_parser *p, op_state *os) {
  ST_TRY(pp_operands_comma(p, os, 1));
  shl_token at = *p_tok(p);
  const shl_attr *v;
  ST_TRY(p_attr(p, &v));
  if (v->kind != AT_DENSE && !(v->kind == AT_OPAQUE && v->type))
    return parse_error_at(p, &at, "expected a dense elements attribute");
  ST_TRY(p_check_operand_type(p, os, 0, v->type, &at));
  ST_TRY(os_attr(p, os, "value", v));
  if (os->def->id == OP_CHECK_EXPECT_ALMOST_EQ_CONST && p_punct(p, ',')) ST_TRY(parse_tolerance(p, os));
  return p_attr_dict(p, os);
}

static const char *const eq_const_elide[] = {"value", NULL};
static const char *const almost_const_elide[] = {"value", "tolerance", NULL};

void print_check_const(shl_printer *pr, const shl_op *op) {
  const shl_attr *v = op_attr(op, "value"), *t = op_attr(op, "tolerance");
  if (op->n_operands != 1 || op->n_results || !v || !v->type || !type_eq(v->type, op->operands[0]->type) ||
      (t && t->kind != AT_FLOAT)) {
    pr_generic_op(pr, op);
    return;
  }
  pp_name_operands(pr, op);
  pr_puts(pr, ", ");
  pr_attr(pr, v);
  if (is_almost(op)) print_tolerance(pr, op);
  pr_attr_dict(pr, op, is_almost(op) ? almost_const_elide : eq_const_elide);
}

/* ------------------------------------------------------------------ expect_serialized_eq */

/* check.expect_serialized_eq %x, probe_id = "p", iter = 1 : T */
shl_status parse_check_serialized(shl_parser *p, op_state *os) {
  ST_TRY(pp_operands_comma(p, os, 1));
  ST_TRY(pp_expect_kw_eq(p, "probe_id"));
  shl_str id;
  ST_TRY(p_string(p, &id));
  shl_attr *a = attr_string(p->a, id);
  if (!a) return st_oom();
  ST_TRY(os_attr(p, os, "probe_id", a));
  if (p_punct(p, ',')) {
    ST_TRY(pp_expect_kw_eq(p, "iter"));
    uint64_t u;
    ST_TRY(pp_uint(p, &u));
    if (u > UINT32_MAX) return parse_error(p, "iteration out of range for ui32");
    shl_attr *it = attr_int(p->a, &pp_ui32, (int64_t)u);
    if (!it) return st_oom();
    ST_TRY(os_attr(p, os, "iteration", it));
  }
  ST_TRY(p_attr_dict(p, os));
  ST_TRY(p_expect(p, ':'));
  shl_token at = *p_tok(p);
  const shl_type *t;
  ST_TRY(p_type(p, &t));
  return p_check_operand_type(p, os, 0, t, &at);
}

static const char *const serialized_elide[] = {"probe_id", "iteration", NULL};

void print_check_serialized(shl_printer *pr, const shl_op *op) {
  const shl_attr *id = op_attr(op, "probe_id"), *it = op_attr(op, "iteration");
  if (op->n_operands != 1 || op->n_results || !id || id->kind != AT_STRING || id->type || (it && it->kind != AT_INT)) {
    pr_generic_op(pr, op);
    return;
  }
  pp_name_operands(pr, op);
  pr_puts(pr, ", probe_id = ");
  pr_string_lit(pr, id->u.str);
  if (int_not(op, "iteration", 0)) {
    pr_puts(pr, ", iter = ");
    pr_attr_bare(pr, it);
  }
  pr_attr_dict(pr, op, serialized_elide);
  pr_puts(pr, " : ");
  pr_type(pr, op->operands[0]->type);
}

/* ------------------------------------------------------------------ interpreter */

/* %y = interpreter.probe %x, probe_id = "p" : T */
shl_status parse_probe(shl_parser *p, op_state *os) {
  ST_TRY(pp_operands_comma(p, os, 1));
  ST_TRY(pp_expect_kw_eq(p, "probe_id"));
  shl_str id;
  ST_TRY(p_string(p, &id));
  shl_attr *a = attr_string(p->a, id);
  if (!a) return st_oom();
  ST_TRY(os_attr(p, os, "probe_id", a));
  ST_TRY(p_attr_dict(p, os));
  return p_same_or_functional_type(p, os);
}

static const char *const probe_elide[] = {"probe_id", NULL};

void print_probe(shl_printer *pr, const shl_op *op) {
  const shl_attr *id = op_attr(op, "probe_id");
  if (op->n_operands != 1 || op->n_results != 1 || !id || id->kind != AT_STRING || id->type ||
      !type_eq(op->operands[0]->type, op->results[0].type)) {
    pr_generic_op(pr, op);
    return;
  }
  pp_name_operands(pr, op);
  pr_puts(pr, ", probe_id = ");
  pr_string_lit(pr, id->u.str);
  pr_attr_dict(pr, op, probe_elide);
  pr_puts(pr, " : ");
  pr_type(pr, op->results[0].type);
}

/* interpreter.print %x : T   (older versions also return %x: `%y = interpreter.print %x : T`) */
shl_status parse_interp_print(shl_parser *p, op_state *os) {
  shl_value *v;
  ST_TRY(p_operand(p, &v));
  ST_TRY(os_operand(p, os, v));
  ST_TRY(p_attr_dict(p, os));
  ST_TRY(p_expect(p, ':'));
  shl_token at = *p_tok(p);
  const shl_type *t;
  ST_TRY(p_type(p, &t));
  ST_TRY(p_check_operand_type(p, os, 0, t, &at));
  return os->n_results_expected ? os_result(p, os, t) : NULL;
}

void print_interp_print(shl_printer *pr, const shl_op *op) {
  if (op->n_operands != 1 || op->n_results > 1 ||
      (op->n_results && !type_eq(op->operands[0]->type, op->results[0].type))) {
    pr_generic_op(pr, op);
    return;
  }
  pp_name_operands(pr, op);
  pr_attr_dict(pr, op, NULL);
  pr_puts(pr, " : ");
  pr_type(pr, op->operands[0]->type);
}
