/* Elementwise unary ops (stablehlo and chlo): integers compute in int64
 * (wrapping on store), real floats in double, complex in double complex;
 * the op is switched once per chunk.  The common f32 ops run as vector
 * loops (ew_f32.c). */
#include <math.h>

#include "chlo_special.h"
#include "ew_common.h"
#include "xla_mathf.h"
#include "exec/plan.h"
#include "support/scalar.h"

typedef struct {
  shl_opid id;
  shl_dtype in, out;
  ew_cat ic, oc;
} unary_params;

static bool int_op_ok(shl_opid id, shl_dtype dt) {
  switch (id) {
    case OP_NOT:
    case OP_POPCNT:
    case OP_COUNT_LEADING_ZEROS:
      return true;
    case OP_ABS:
    case OP_NEGATE:
    case OP_SIGN:
    case OP_CHLO_SQUARE:
      return dtype_class(dt) != DTC_BOOL;
    default:
      return false;
  }
}

static bool real_pred_op(shl_opid id) {
  return id == OP_IS_FINITE || id == OP_CHLO_IS_INF || id == OP_CHLO_IS_NEG_INF || id == OP_CHLO_IS_POS_INF;
}

static bool real_op_ok(shl_opid id) {
  switch (id) {
    case OP_CHLO_ASIN_ACOS_KERNEL:
    case OP_NOT:
    case OP_POPCNT:
    case OP_COUNT_LEADING_ZEROS:
      return false;
    default:
      return true;
  }
}

static bool cplx_op_ok(shl_opid id) {
  switch (id) {
    case OP_CEIL:
    case OP_FLOOR:
    case OP_ROUND_NEAREST_AFZ:
    case OP_ROUND_NEAREST_EVEN:
    case OP_NOT:
    case OP_POPCNT:
    case OP_COUNT_LEADING_ZEROS:
    case OP_IS_FINITE:
    case OP_CHLO_IS_INF:
    case OP_CHLO_IS_NEG_INF:
    case OP_CHLO_IS_POS_INF:
    case OP_CHLO_BESSEL_I1E:
    case OP_CHLO_DIGAMMA:
    case OP_CHLO_LGAMMA:
    case OP_CHLO_ERF:
    case OP_CHLO_ERFC:
    case OP_CHLO_ERF_INV:
      return false;
    default:
      return true;
  }
}

static shl_status unary_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  if (op->n_operands != 1 || op->n_results != 1)
    return op_error(op, SHLOC_ERR_VERIFY, "expects one operand and one result");
  unary_params *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  p->id = op_id(op);
  p->in = type_storage_dtype(op->operands[0]->type);
  p->out = type_storage_dtype(op->results[0].type);
  p->ic = ew_cat_of(p->in);
  p->oc = ew_cat_of(p->out);
  bool ok = false;
  if (op->operands[0]->type->dtype == DT_QUANT)
    ok = false;
  else if (p->ic == EWC_INT)
    ok = p->in == p->out && int_op_ok(p->id, p->in);
  else if (p->ic == EWC_REAL)
    ok = real_pred_op(p->id) ? p->out == DT_I1 : real_op_ok(p->id) && p->out == p->in;
  else if (p->ic == EWC_CPLX)
    ok = (p->id == OP_ABS || p->id == OP_REAL || p->id == OP_IMAG) ? p->out == ew_complex_part(p->in)
                                                                   : cplx_op_ok(p->id) && p->out == p->in;
  if (!ok)
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "is not supported for element type %s -> %s", dtype_name(p->in),
                    dtype_name(p->out));
  *params = p;
  return NULL;
}

#define MAP(expr)               \
  for (int i = 0; i < m; i++) { \
    X_T x = a[i];               \
    a[i] = (expr);              \
  }
#define LOOP(expr) \
  MAP(expr);       \
  break

static void int_unary(shl_opid id, shl_dtype dt, int64_t *a, int m) {
  unsigned bits = dtype_bits(dt);
  uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  bool sgn = dtype_is_signed(dt);
  typedef int64_t X_T;
  switch (id) {
    case OP_ABS:
      if (sgn) MAP(x < 0 ? (int64_t)(0 - (uint64_t)x) : x);
      break;
    case OP_NEGATE:
      LOOP((int64_t)(0 - (uint64_t)x));
    case OP_SIGN:
      if (sgn) MAP((x > 0) - (x < 0)) else MAP(x != 0);
      break;
    case OP_NOT:
      LOOP(~x);
    case OP_POPCNT:
      LOOP(__builtin_popcountll((uint64_t)x & mask));
    case OP_COUNT_LEADING_ZEROS:
      LOOP(((uint64_t)x & mask) ? __builtin_clzll((uint64_t)x & mask) - (int)(64 - bits) : (int)bits);
    case OP_CHLO_SQUARE:
      LOOP((int64_t)((uint64_t)x * (uint64_t)x));
    default:
      break;
  }
}

static double sign_f(double x) { return isnan(x) ? x : x > 0 ? 1.0 : x < 0 ? -1.0 : x; }

/* x rounded to the precision XLA evaluates dtype dt in (f32 for the narrower
 * floats), for lowerings whose intermediate roundings its results carry. */
static double rnd(shl_dtype dt, double x) { return dt == DT_F64 ? x : (double)(float)x; }

/* exp as XLA:CPU computes it: libm for f64, its polynomial otherwise. */
static double exp_(shl_dtype dt, double x) { return dt == DT_F64 ? exp(x) : (double)xla_expf((float)x); }

/* XLA lowers cosh and sinh (|x| >= 1) through exp(+-x + log(1/2)), in the operand's type. */
static double cosh_(shl_dtype dt, double x) {
  double l = rnd(dt, log(0.5));
  return rnd(dt, exp_(dt, rnd(dt, x + l))) + rnd(dt, exp_(dt, rnd(dt, -x + l)));
}
static double sinh_(shl_dtype dt, double x) {
  if (fabs(x) < 1) return sinh(x);
  double l = rnd(dt, log(0.5));
  return rnd(dt, exp_(dt, rnd(dt, x + l))) - rnd(dt, exp_(dt, rnd(dt, -x + l)));
}

static void real_unary(shl_opid id, shl_dtype dt, double *a, int m) {
  typedef double X_T;
  switch (id) {
    case OP_ABS:
      LOOP(fabs(x));
    case OP_CBRT:
      LOOP(cbrt(x));
    case OP_CEIL:
      LOOP(ceil(x));
    case OP_COSINE:
      LOOP(cos(x));
    case OP_EXPONENTIAL:
      LOOP(exp_(dt, x));
    case OP_EXPONENTIAL_MINUS_ONE:
      LOOP(dt == DT_F64 ? expm1(x) : (double)xla_expm1f((float)x));
    case OP_FLOOR:
      LOOP(floor(x));
    case OP_IMAG:
      for (int i = 0; i < m; i++) a[i] = 0;
      break;
    case OP_LOG:
      LOOP(dt == DT_F64 ? log(x) : (double)xla_logf((float)x));
    case OP_LOG_PLUS_ONE:
      LOOP(log1p(x));
    case OP_LOGISTIC:
      LOOP(1.0 / (1.0 + exp(-x)));
    case OP_NEGATE:
      LOOP(-x);
    case OP_REAL:
    case OP_CHLO_CONJ:
      break;
    case OP_ROUND_NEAREST_AFZ:
      LOOP(round(x));
    case OP_ROUND_NEAREST_EVEN:
      LOOP(nearbyint(x));
    case OP_RSQRT:
      LOOP(1.0 / sqrt(x));
    case OP_SIGN:
      LOOP(sign_f(x));
    case OP_SINE:
      LOOP(sin(x));
    case OP_SQRT:
      LOOP(sqrt(x));
    case OP_TAN:
    case OP_CHLO_TAN:
      LOOP(tan(x));
    case OP_TANH:
      LOOP(dt == DT_F64 ? tanh(x) : (double)xla_tanhf((float)x));
    case OP_CHLO_ACOS:
      LOOP(acos(x));
    case OP_CHLO_ACOSH:
      LOOP(acosh(x));
    case OP_CHLO_ASIN:
      LOOP(asin(x));
    case OP_CHLO_ASINH:
      LOOP(asinh(x));
    case OP_CHLO_ATAN:
      LOOP(atan(x));
    case OP_CHLO_ATANH:
      LOOP(atanh(x));
    case OP_CHLO_BESSEL_I1E:
      LOOP(chlo_bessel_i1e(x));
    case OP_CHLO_COSH:
      LOOP(cosh_(dt, x));
    case OP_CHLO_SINH:
      LOOP(sinh_(dt, x));
    case OP_CHLO_DIGAMMA:
      LOOP(chlo_digamma(x));
    case OP_CHLO_LGAMMA:
      LOOP(chlo_lgamma(x));
    case OP_CHLO_ERF:
      LOOP(erf(x));
    case OP_CHLO_ERFC:
      LOOP(erfc(x));
    case OP_CHLO_ERF_INV:
      LOOP(chlo_erf_inv(x));
    case OP_CHLO_SQUARE:
      LOOP(x * x);
    default:
      break;
  }
}

static void real_pred(shl_opid id, const double *a, int64_t *r, int m) {
  switch (id) {
    case OP_IS_FINITE:
      for (int i = 0; i < m; i++) r[i] = isfinite(a[i]);
      break;
    case OP_CHLO_IS_INF:
      for (int i = 0; i < m; i++) r[i] = isinf(a[i]) != 0;
      break;
    case OP_CHLO_IS_NEG_INF:
      for (int i = 0; i < m; i++) r[i] = a[i] == -INFINITY;
      break;
    default:
      for (int i = 0; i < m; i++) r[i] = a[i] == INFINITY;
      break;
  }
}

/* exp(z) - 1 without cancellation near zero: real part expm1(x)cos(y) - 2 sin^2(y/2). */
static double complex cexpm1_(double complex z) {
  double x = creal(z), y = cimag(z), s = sin(y / 2);
  return CMPLX(expm1(x) * cos(y) - 2 * s * s, exp(x) * sin(y));
}

/* log(1 + z): |1+z|^2 = 1 + (2x + x^2 + y^2). */
static double complex clog1p_(double complex z) {
  double x = creal(z), y = cimag(z);
  if (fabs(x) < 0.5 && fabs(y) < 0.5) return CMPLX(0.5 * log1p(x * (2 + x) + y * y), atan2(y, 1 + x));
  return clog(1 + z);
}

static double complex csign_(double complex z) {
  double r = cabs(z);
  if (isnan(creal(z)) || isnan(cimag(z))) return CMPLX(NAN, NAN);
  return r == 0 ? z : z / r;
}

static double complex csquare_(double complex z) {
  double x = creal(z), y = cimag(z);
  return CMPLX((x - y) * (x + y), 2 * x * y);
}

/* chlo._asin_acos_kernel: w with asin(z) = atan2(Re z, Re w) + i sign(Im z) Im w.
 * With a = (|z + 1| + |z - 1|) / 2 (Hull et al.), Re asin z = asin(|x| / a)
 * and |Im asin z| = acosh(a), so w = sqrt(a^2 - x^2) + i acosh(a). */
static double complex asin_acos_kernel(double complex z) {
  double x = fabs(creal(z)), y = cimag(z);
  double a = 0.5 * (hypot(x + 1, y) + hypot(x - 1, y));
  if (a < 1) a = 1; /* rounding can leave a just below its minimum 1 */
  double d = (a - x) * (a + x);
  return CMPLX(sqrt(d > 0 ? d : 0), acosh(a));
}

static void cplx_unary(shl_opid id, double complex *a, int m) {
  typedef double complex X_T;
  switch (id) {
    case OP_CBRT:
      LOOP(cpow(x, 1.0 / 3));
    case OP_COSINE:
      LOOP(ccos(x));
    case OP_EXPONENTIAL:
      LOOP(cexp(x));
    case OP_EXPONENTIAL_MINUS_ONE:
      LOOP(cexpm1_(x));
    case OP_LOG:
      LOOP(clog(x));
    case OP_LOG_PLUS_ONE:
      LOOP(clog1p_(x));
    case OP_LOGISTIC:
      LOOP(1.0 / (1.0 + cexp(-x)));
    case OP_NEGATE:
      LOOP(-x);
    case OP_RSQRT:
      LOOP(1.0 / csqrt(x));
    case OP_SIGN:
      LOOP(csign_(x));
    case OP_SINE:
      LOOP(csin(x));
    case OP_SQRT:
      LOOP(csqrt(x));
    case OP_TAN:
    case OP_CHLO_TAN:
      LOOP(ctan(x));
    case OP_TANH:
      LOOP(ctanh(x));
    case OP_CHLO_ACOS:
      LOOP(cacos(x));
    case OP_CHLO_ACOSH:
      LOOP(cacosh(x));
    case OP_CHLO_ASIN:
      LOOP(casin(x));
    case OP_CHLO_ASINH:
      LOOP(casinh(x));
    case OP_CHLO_ATAN:
      LOOP(catan(x));
    case OP_CHLO_ATANH:
      LOOP(catanh(x));
    case OP_CHLO_COSH:
      LOOP(ccosh(x));
    case OP_CHLO_SINH:
      LOOP(csinh(x));
    case OP_CHLO_CONJ:
      LOOP(conj(x));
    case OP_CHLO_ASIN_ACOS_KERNEL:
      LOOP(asin_acos_kernel(x));
    case OP_CHLO_SQUARE:
      LOOP(csquare_(x));
    default:
      break;
  }
}

static void cplx_to_real(shl_opid id, const double complex *a, double *r, int m) {
  switch (id) {
    case OP_ABS:
      for (int i = 0; i < m; i++) r[i] = cabs(a[i]);
      break;
    case OP_REAL:
      for (int i = 0; i < m; i++) r[i] = creal(a[i]);
      break;
    default:
      for (int i = 0; i < m; i++) r[i] = cimag(a[i]);
      break;
  }
}

void ew_unary_eval(const void *params, const void *const *in, void *dst, int64_t n) {
  const unary_params *p = params;
  const void *src = in[0];
  if (p->in == DT_F32 && p->out == DT_F32 && ew_f32_unary(p->id, src, dst, n)) return;
  for (int64_t off = 0; off < n; off += EW_CHUNK) {
    int m = (int)(n - off < EW_CHUNK ? n - off : EW_CHUNK);
    if (p->ic == EWC_INT) {
      int64_t a[EW_CHUNK];
      ew_load_int(p->in, src, off, m, a);
      int_unary(p->id, p->in, a, m);
      ew_store_int(p->out, a, dst, off, m);
    } else if (p->ic == EWC_REAL) {
      double a[EW_CHUNK];
      ew_load_real(p->in, src, off, m, a);
      if (p->oc == EWC_INT) {
        int64_t r[EW_CHUNK];
        real_pred(p->id, a, r, m);
        ew_store_int(p->out, r, dst, off, m);
      } else {
        real_unary(p->id, p->in, a, m);
        ew_store_real(p->out, a, dst, off, m);
      }
    } else {
      double complex a[EW_CHUNK];
      ew_load_cplx(p->in, src, off, m, a);
      if (p->oc == EWC_REAL) {
        double r[EW_CHUNK];
        cplx_to_real(p->id, a, r, m);
        ew_store_real(p->out, r, dst, off, m);
      } else {
        cplx_unary(p->id, a, m);
        ew_store_cplx(p->out, a, dst, off, m);
      }
    }
  }
}

static shl_status unary_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const void *src = in[0]->data;
  ew_unary_eval(po->params, &src, out[0]->data, out[0]->n);
  return NULL;
}

const shl_kernel kernel_ew_unary = {unary_prepare, unary_run};
