/* The test harness: `check.*` custom-call targets and check-dialect ops
 * (semantics: StableHLO's interpreter, see docs/check-targets in README). */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "exec/plan.h"
#include "support/floatfmt.h"
#include "support/scalar.h"

static uint64_t load_raw(const void *p, size_t sz) {
  uint64_t v = 0;
  memcpy(&v, p, sz);
  return v;
}

/* Formats element i of b for messages. */
static void fmt_elem(const shl_buf *b, const void *base, int64_t i, char *buf, size_t cap) {
  shl_dtype dt = b->dtype;
  size_t sz = dtype_bytes(dt);
  const uint8_t *p = (const uint8_t *)base + (size_t)i * sz;
  if (dtype_is_complex(dt)) {
    shl_dtype e = dt == DT_C64 ? DT_F32 : DT_F64;
    char re[64], im[64];
    fp_format(e, load_raw(p, sz / 2), re, sizeof re);
    fp_format(e, load_raw(p + sz / 2, sz / 2), im, sizeof im);
    snprintf(buf, cap, "(%s, %s)", re, im);
  } else if (dtype_is_float(dt)) {
    fp_format(dt, load_raw(p, sz), buf, cap);
  } else if (dtype_class(dt) == DTC_UINT || dt == DT_I1) {
    snprintf(buf, cap, "%llu", (unsigned long long)(uint64_t)int_load(dt, p));
  } else {
    snprintf(buf, cap, "%lld", (long long)int_load(dt, p));
  }
}

static void fmt_index(const shl_buf *b, int64_t i, char *buf, size_t cap) {
  int64_t idx[64];
  for (int k = b->rank - 1; k >= 0; k--) {
    idx[k] = b->dims[k] ? i % b->dims[k] : 0;
    i = b->dims[k] ? i / b->dims[k] : 0;
  }
  size_t n = (size_t)snprintf(buf, cap, "[");
  for (int k = 0; k < b->rank && n < cap; k++) n += (size_t)snprintf(buf + n, cap - n, k ? ", %lld" : "%lld", (long long)idx[k]);
  if (n < cap) snprintf(buf + n, cap - n, "]");
}

/* Per-element comparison of one scalar (float parts compared separately for complex). */
/* IEEE equality, except that two NaNs (any sign or payload) match: the
 * expected values come from XLA runs compared NumPy-style, and the reference
 * interpreter's NaN != NaN rule is its known bug (stablehlo#2497). */
static bool float_exact(shl_dtype dt, uint64_t a, uint64_t b) {
  double x = fp_to_f64(dt, a), y = fp_to_f64(dt, b);
  return x == y || (isnan(x) && isnan(y));
}

static bool float_almost(shl_dtype dt, uint64_t a, uint64_t b, double tol) {
  double x = fp_to_f64(dt, a), y = fp_to_f64(dt, b);
  if (x == y) return true;
  if (isnan(x) || isnan(y)) return isnan(x) && isnan(y);
  if (isinf(x) || isinf(y)) return false;
  return fabs(x - y) <= tol;
}

shl_status check_compare(const shl_op *op, check_mode mode, const shl_buf *actual, const void *expected, double tol,
                         uint64_t min_ulp, uint64_t max_ulp, bool *all_ok) {
  return check_compare_at(&op->pos, op_name_cstr(op), mode, actual, expected, tol, min_ulp, max_ulp, all_ok);
}

shl_status check_compare_at(const shl_srcpos *pos, const char *name, check_mode mode, const shl_buf *actual,
                            const void *expected, double tol, uint64_t min_ulp, uint64_t max_ulp, bool *all_ok) {
  shl_dtype dt = actual->dtype;
  bool is_c = dtype_is_complex(dt), is_f = dtype_is_float(dt);
  if ((mode == CHECK_ALMOST || mode == CHECK_ULP) && !is_c && !is_f)
    return st_error(SHLOC_ERR_VERIFY, pos, name, "'%s' needs floating-point or complex operands", name);
  shl_dtype part = dt == DT_C64 ? DT_F32 : dt == DT_C128 ? DT_F64 : dt;
  size_t sz = dtype_bytes(dt), psz = dtype_bytes(part);
  int parts = is_c ? 2 : 1;
  *all_ok = true;
  for (int64_t i = 0; i < actual->n; i++) {
    const uint8_t *pa = (const uint8_t *)actual->data + (size_t)i * sz, *pe = (const uint8_t *)expected + (size_t)i * sz;
    bool ok = true;
    uint64_t ulp = 0;
    for (int k = 0; k < parts; k++) {
      uint64_t a = load_raw(pa + k * psz, psz), e = load_raw(pe + k * psz, psz);
      if (!is_f && !is_c) {
        ok = int_load(dt, pa) == int_load(dt, pe);
      } else if (mode == CHECK_EXACT) {
        ok = ok && float_exact(part, a, e);
      } else if (mode == CHECK_ALMOST) {
        ok = ok && float_almost(part, a, e, tol);
      } else {
        uint64_t u = fp_ulp_distance(part, a, e);
        if (u > ulp) ulp = u;
      }
    }
    if (mode == CHECK_ULP) ok = ulp >= min_ulp && ulp <= max_ulp;
    if (!ok) {
      *all_ok = false;
      char sa[160], se[160], si[256];
      fmt_elem(actual, actual->data, i, sa, sizeof sa);
      fmt_elem(actual, expected, i, se, sizeof se);
      fmt_index(actual, i, si, sizeof si);
      if (mode == CHECK_ULP)
        return st_error(SHLOC_ERR_CHECK, pos, name,
                        "'%s' check failed at index %s: actual %s, expected %s (%llu ULP, allowed %llu..%llu)", name, si,
                        sa, se, (unsigned long long)ulp, (unsigned long long)min_ulp, (unsigned long long)max_ulp);
      return st_error(SHLOC_ERR_CHECK, pos, name, "'%s' check failed at index %s: actual %s, expected %s", name, si, sa,
                      se);
    }
  }
  return NULL;
}

/* ---- check dialect ops ---- */

typedef struct {
  check_mode mode;
  double tol;
  uint64_t min_ulp, max_ulp;
  const void *expected; /* _const forms: materialized attribute */
} check_params;

static shl_status check_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  check_params *cp = plan_alloc(pc, sizeof *cp);
  if (!cp) return st_oom();
  cp->tol = 1e-4;
  cp->max_ulp = 1;
  switch (op_id(op)) {
    case OP_CHECK_EXPECT_EQ:
    case OP_CHECK_EXPECT_EQ_CONST:
      cp->mode = CHECK_EXACT;
      break;
    case OP_CHECK_EXPECT_ALMOST_EQ:
    case OP_CHECK_EXPECT_ALMOST_EQ_CONST:
      cp->mode = CHECK_ALMOST;
      break;
    case OP_CHECK_EXPECT_CLOSE:
      cp->mode = CHECK_ULP;
      break;
    default:
      return op_error(op, SHLOC_ERR_UNSUPPORTED, "is not a comparison check");
  }
  const shl_attr *t = op_attr(op, "tolerance");
  if (t && t->kind == AT_FLOAT) cp->tol = fp_to_f64(t->type->dtype, t->u.f_bits);
  int64_t v;
  if (attr_as_int(op_attr(op, "max_ulp_difference"), &v)) cp->max_ulp = (uint64_t)v;
  if (attr_as_int(op_attr(op, "min_ulp_difference"), &v)) cp->min_ulp = (uint64_t)v;
  if (op_is(op, OP_CHECK_EXPECT_EQ_CONST) || op_is(op, OP_CHECK_EXPECT_ALMOST_EQ_CONST)) {
    const shl_attr *val = op_attr(op, "value");
    if (!val || val->kind != AT_DENSE || !op->n_operands || !type_eq(val->type, op->operands[0]->type))
      return op_error(op, SHLOC_ERR_VERIFY, "expected value must be a dense attribute of the operand's type");
    int64_t nb = type_num_bytes(val->type);
    size_t sz = dtype_bytes(type_storage_dtype(val->type));
    uint8_t *d = plan_alloc(pc, nb > 0 ? (size_t)nb : 1);
    if (!d) return st_oom();
    for (int64_t i = 0; sz && i < nb / (int64_t)sz; i++)
      memcpy(d + i * (int64_t)sz, (const uint8_t *)attr_dense_data(val) + (val->u.dense.splat ? 0 : i * (int64_t)sz), sz);
    cp->expected = d;
  }
  *params = cp;
  return NULL;
}

static shl_status check_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const check_params *cp = po->params;
  const void *expected = cp->expected ? cp->expected : in[1]->data;
  bool ok;
  exec_count_check(ec);
  return check_compare(po->op, cp->mode, in[0], expected, cp->tol, cp->min_ulp, cp->max_ulp, &ok);
}

const shl_kernel kernel_check = {check_prepare, check_run};
