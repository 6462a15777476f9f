/* check.* ops -> calls of the check runtime (src/aot/rt_check.c): the check
 * dialect ops and the check.expect_{eq,almost_eq,close} custom calls become
 *
 *   %a = tensor.cast %actual : tensor<2x3xf32> to tensor<*xf32>
 *   func.call @shloc_rt_check_f32(%a, %e, kind, tolerance, min_ulp, max_ulp, line, col)
 *
 * with the parameters the interpreter uses (src/exec/kernels/check.c and
 * custom_call.c): custom-call almost_eq 1e-3 and close [0, 3] ULP; dialect
 * ops' tolerance default 1e-4, ULP range [min_ulp_difference (0),
 * max_ulp_difference (1)].  The module gets one declaration per element
 * type used (ll_check_declarations). */
#include <stdio.h>

#include "passes/lower_linalg_emit.h"
#include "shloc/aot_runtime.h"
#include "support/scalar.h"

typedef struct {
  int kind; /* shloc_aot_check_kind */
  double tol;
  int64_t min_ulp, max_ulp;
  const shl_attr *expected; /* _const forms */
} check_params;

static bool custom_call_target(const shl_op *op, shl_str *out) {
  if (!op_is(op, OP_CUSTOM_CALL)) return false;
  const shl_attr *t = op_attr(op, "call_target_name");
  if (!t || t->kind != AT_STRING) return false;
  *out = t->u.str;
  return true;
}

bool ll_is_check_target(shl_str target) { return target.n > 6 && memcmp(target.p, "check.", 6) == 0; }

bool ll_is_check(const shl_op *op) {
  shl_str t;
  if (custom_call_target(op, &t)) return ll_is_check_target(t);
  switch (op_id(op)) {
  case OP_CHECK_EXPECT_EQ:
  case OP_CHECK_EXPECT_ALMOST_EQ:
  case OP_CHECK_EXPECT_CLOSE:
  case OP_CHECK_EXPECT_EQ_CONST:
  case OP_CHECK_EXPECT_ALMOST_EQ_CONST:
  case OP_CHECK_EXPECT_SERIALIZED_EQ: return true;
  default: return false;
  }
}

static shl_status params_of(const shl_op *op, check_params *p) {
  *p = (check_params){.tol = 1e-4, .max_ulp = 1};
  shl_str t;
  if (custom_call_target(op, &t)) {
    if (str_eq_c(t, "check.expect_eq")) p->kind = SHLOC_AOT_EXPECT_EQ;
    else if (str_eq_c(t, "check.expect_almost_eq")) *p = (check_params){.kind = SHLOC_AOT_EXPECT_ALMOST_EQ, .tol = 1e-3};
    else if (str_eq_c(t, "check.expect_close")) *p = (check_params){.kind = SHLOC_AOT_EXPECT_CLOSE, .max_ulp = 3};
    else return ll_refuse(op, "only the check.expect_eq, check.expect_almost_eq and check.expect_close targets are covered");
    if (op->n_operands != 2 || op->n_results != 0) return ll_refuse(op, "a check takes two operands and has no result");
    return NULL;
  }
  switch (op_id(op)) {
  case OP_CHECK_EXPECT_EQ: p->kind = SHLOC_AOT_EXPECT_EQ; break;
  case OP_CHECK_EXPECT_ALMOST_EQ: p->kind = SHLOC_AOT_EXPECT_ALMOST_EQ; break;
  case OP_CHECK_EXPECT_CLOSE: p->kind = SHLOC_AOT_EXPECT_CLOSE; break;
  case OP_CHECK_EXPECT_EQ_CONST: p->kind = SHLOC_AOT_EXPECT_EQ_CONST; break;
  case OP_CHECK_EXPECT_ALMOST_EQ_CONST: p->kind = SHLOC_AOT_EXPECT_ALMOST_EQ_CONST; break;
  default: return ll_refuse(op, "probes are not recorded in compiled code");
  }
  const shl_attr *tol = op_attr(op, "tolerance");
  if (tol && tol->kind == AT_FLOAT) p->tol = fp_to_f64(tol->type->dtype, tol->u.f_bits);
  attr_as_int(op_attr(op, "max_ulp_difference"), &p->max_ulp);
  attr_as_int(op_attr(op, "min_ulp_difference"), &p->min_ulp);
  if (p->kind == SHLOC_AOT_EXPECT_EQ_CONST || p->kind == SHLOC_AOT_EXPECT_ALMOST_EQ_CONST) {
    p->expected = op_attr(op, "value");
    if (!p->expected || p->expected->kind != AT_DENSE || op->n_operands != 1)
      return ll_refuse(op, "the expected value must be a dense attribute");
  } else if (op->n_operands != 2) {
    return ll_refuse(op, "a check takes two operands");
  }
  return NULL;
}

/* The runtime function's suffix for an element type: its MLIR name with
 * complex<f32> spelled complex_f32. */
static void symbol_suffix(shl_dtype dt, char *buf, size_t cap) {
  snprintf(buf, cap, "%s", dtype_name(dt));
  for (char *c = buf; *c; c++)
    if (*c == '<') *c = '_';
    else if (*c == '>') *c = '\0';
}

static bool runtime_has(shl_dtype dt) {
  switch (dt) {
  case DT_I1: case DT_I8: case DT_I16: case DT_I32: case DT_I64: case DT_UI8: case DT_UI16: case DT_UI32:
  case DT_UI64: case DT_F16: case DT_BF16: case DT_F32: case DT_F64: case DT_C64: case DT_C128: return true;
  default: return false;
  }
}

static void unranked(ll_emit *e, shl_dtype dt) {
  pr_puts(&e->pr, "tensor<*x");
  ll_elem(e, dt);
  pr_puts(&e->pr, ">");
}

static uint32_t cast_unranked(ll_emit *e, const shl_type *t, void (*value)(ll_emit *, const void *), const void *v) {
  uint32_t r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_puts(&e->pr, " = tensor.cast ");
  value(e, v);
  pr_puts(&e->pr, " : ");
  ll_type(e, t);
  pr_puts(&e->pr, " to ");
  unranked(e, t->dtype);
  return r;
}

static void print_value(ll_emit *e, const void *v) { ll_val(e, v); }
static void print_tmp(ll_emit *e, const void *id) { ll_tmp(e, *(const uint32_t *)id); }

shl_status ll_check(ll_emit *e, const shl_op *op) {
  check_params p;
  ST_TRY(params_of(op, &p));
  /* Static shapes are checked by the caller; the element types are the runtime's. */
  const shl_type *t = op->operands[0]->type;
  if (!runtime_has(t->dtype)) return ll_refuse(op, "the check runtime does not cover this element type");
  if (op->n_operands == 2 && !type_eq(t, op->operands[1]->type))
    return ll_refuse(op, "the two sides of a check must have the same type");
  uint32_t expected_const = 0;
  if (p.expected) {
    expected_const = ll_fresh(e);
    pr_newline(&e->pr);
    ll_tmp(e, expected_const);
    pr_puts(&e->pr, " = arith.constant ");
    pr_attr(&e->pr, p.expected);
  }
  uint32_t a = cast_unranked(e, t, print_value, op->operands[0]);
  uint32_t x = p.expected ? cast_unranked(e, t, print_tmp, &expected_const)
                          : cast_unranked(e, t, print_value, op->operands[1]);
  char tol[64];
  snprintf(tol, sizeof tol, "%.17e", p.tol);
  uint32_t args[6] = {ll_cst_int(e, p.kind, DT_I32),      ll_cst_float(e, tol, DT_F64),
                      ll_cst_int(e, p.min_ulp, DT_I64),   ll_cst_int(e, p.max_ulp, DT_I64),
                      ll_cst_int(e, op->pos.line, DT_I32), ll_cst_int(e, op->pos.col, DT_I32)};
  char sfx[32];
  symbol_suffix(t->dtype, sfx, sizeof sfx);
  pr_newline(&e->pr);
  pr_printf(&e->pr, "func.call @shloc_rt_check_%s(", sfx);
  ll_tmp(e, a);
  pr_puts(&e->pr, ", ");
  ll_tmp(e, x);
  for (int i = 0; i < 6; i++) {
    pr_puts(&e->pr, ", ");
    ll_tmp(e, args[i]);
  }
  pr_puts(&e->pr, ") : (");
  unranked(e, t->dtype);
  pr_puts(&e->pr, ", ");
  unranked(e, t->dtype);
  pr_puts(&e->pr, ", i32, f64, i64, i64, i32, i32) -> ()");
  e->check_dtypes |= 1ull << t->dtype;
  return NULL;
}

void ll_check_declarations(ll_emit *e) {
  for (int dt = 0; dt < 64; dt++) {
    if (!(e->check_dtypes & (1ull << dt))) continue;
    char sfx[32];
    symbol_suffix((shl_dtype)dt, sfx, sizeof sfx);
    pr_newline(&e->pr);
    pr_printf(&e->pr, "func.func private @shloc_rt_check_%s(", sfx);
    for (int i = 0; i < 2; i++) {
      unranked(e, (shl_dtype)dt);
      pr_puts(&e->pr, " {bufferization.access = \"read\"}, ");
    }
    pr_puts(&e->pr, "i32, f64, i64, i64, i32, i32) attributes {llvm.emit_c_interface}");
  }
}
