/* Elementwise binary ops: add ... shift_right_logical, atan2, complex and
 * chlo.next_after/polygamma/zeta.  Integer arithmetic wraps (computed in
 * uint64, wrapped on store); division follows XLA: x/0 = -1, x%0 = x,
 * INT_MIN/-1 = INT_MIN, INT_MIN%-1 = 0; shifts by >= the bit width give 0
 * (or the sign fill for arithmetic right shifts).  f32 + - * / max min run
 * as vector loops (ew_f32.c). */
#include <math.h>

#include "chlo_special.h"
#include "ew_common.h"
#include "exec/plan.h"
#include "support/scalar.h"
#include "xla_mathf.h"

static bool int_ok(shl_opid id, bool is_bool) {
  switch (id) {
    case OP_ADD:
    case OP_MULTIPLY:
    case OP_MAXIMUM:
    case OP_MINIMUM:
    case OP_AND:
    case OP_OR:
    case OP_XOR:
      return true;
    case OP_SUBTRACT:
    case OP_DIVIDE:
    case OP_REMAINDER:
    case OP_POWER:
    case OP_SHIFT_LEFT:
    case OP_SHIFT_RIGHT_ARITHMETIC:
    case OP_SHIFT_RIGHT_LOGICAL:
    case OP_CHLO_MULHI:
      return !is_bool;
    default:
      return false;
  }
}

static bool real_ok(shl_opid id) {
  switch (id) {
    case OP_ADD:
    case OP_SUBTRACT:
    case OP_MULTIPLY:
    case OP_DIVIDE:
    case OP_REMAINDER:
    case OP_POWER:
    case OP_MAXIMUM:
    case OP_MINIMUM:
    case OP_ATAN2:
    case OP_CHLO_POLYGAMMA:
    case OP_CHLO_ZETA:
      return true;
    default:
      return false;
  }
}

static bool cplx_ok(shl_opid id) {
  switch (id) {
    case OP_ADD:
    case OP_SUBTRACT:
    case OP_MULTIPLY:
    case OP_DIVIDE:
    case OP_POWER:
    case OP_MAXIMUM:
    case OP_MINIMUM:
    case OP_ATAN2:
      return true;
    default:
      return false;
  }
}

shl_status ew_binary_init(const shl_op *op, shl_opid id, shl_dtype in, shl_dtype out, ew_binary_op *p) {
  p->id = id;
  p->in = in;
  p->out = out;
  p->ic = ew_cat_of(in);
  bool ok = false;
  if (id == OP_COMPLEX)
    ok = (in == DT_F32 && out == DT_C64) || (in == DT_F64 && out == DT_C128);
  else if (id == OP_CHLO_NEXT_AFTER)
    ok = in == out && dtype_is_float(in) && fp_layout_of(in).kind == FPK_IEEE;
  else if (in != out)
    ok = false;
  else if (p->ic == EWC_INT)
    ok = int_ok(id, dtype_class(in) == DTC_BOOL);
  else if (p->ic == EWC_REAL)
    ok = real_ok(id);
  else if (p->ic == EWC_CPLX)
    ok = cplx_ok(id);
  if (!ok)
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "is not supported for element type %s -> %s", dtype_name(in),
                    dtype_name(out));
  return NULL;
}

#define MAP(expr)               \
  for (int i = 0; i < m; i++) { \
    X_T x = a[i], y = b[i];     \
    a[i] = (expr);              \
  }
#define LOOP(expr) \
  MAP(expr);       \
  break

static int64_t ipow(int64_t x, int64_t y, bool sgn) {
  if (sgn && y < 0) return x == 1 ? 1 : x == -1 ? ((y & 1) ? -1 : 1) : 0;
  uint64_t r = 1, base = (uint64_t)x, e = (uint64_t)y;
  while (e) {
    if (e & 1) r *= base;
    base *= base;
    e >>= 1;
  }
  return (int64_t)r;
}

/* chlo.mulhi: the high `bits` bits of the 2*bits-bit product.  Below 64 bits
 * the product fits in 128 bits; at 64 bits it is the high word of the
 * 128-bit product. */
__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

static void mulhi(shl_dtype dt, int64_t *a, const int64_t *b, int m) {
  unsigned bits = dtype_bits(dt);
  uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  unsigned sh = 64 - bits;
  if (dtype_is_signed(dt)) {
    for (int i = 0; i < m; i++) {
      int64_t x = (int64_t)((uint64_t)a[i] << sh) >> sh, y = (int64_t)((uint64_t)b[i] << sh) >> sh;
      a[i] = (int64_t)(((i128)x * y) >> bits);
    }
  } else {
    for (int i = 0; i < m; i++)
      a[i] = (int64_t)(uint64_t)(((u128)((uint64_t)a[i] & mask) * ((uint64_t)b[i] & mask)) >> bits);
  }
}

static void int_binary(shl_opid id, shl_dtype dt, int64_t *a, const int64_t *b, int m) {
  unsigned bits = dtype_bits(dt);
  uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  int64_t imin = int_min(dt);
  bool sgn = dtype_is_signed(dt), is_bool = dtype_class(dt) == DTC_BOOL;
  unsigned sh = 64 - bits;
  typedef int64_t X_T;
  switch (id) {
    case OP_ADD:
      if (is_bool) MAP(x | y) else MAP((int64_t)((uint64_t)x + (uint64_t)y));
      break;
    case OP_SUBTRACT:
      LOOP((int64_t)((uint64_t)x - (uint64_t)y));
    case OP_MULTIPLY:
      if (is_bool) MAP(x & y) else MAP((int64_t)((uint64_t)x * (uint64_t)y));
      break;
    case OP_DIVIDE:
      if (sgn)
        MAP(y == 0 ? -1 : (x == imin && y == -1) ? x : x / y)
      else
        MAP(y == 0 ? -1 : (int64_t)(((uint64_t)x & mask) / ((uint64_t)y & mask)));
      break;
    case OP_REMAINDER:
      if (sgn)
        MAP(y == 0 ? x : y == -1 ? 0 : x % y)
      else
        MAP(y == 0 ? x : (int64_t)(((uint64_t)x & mask) % ((uint64_t)y & mask)));
      break;
    case OP_POWER:
      LOOP(ipow(x, y, sgn));
    case OP_MAXIMUM:
      if (sgn) MAP(x > y ? x : y) else MAP(((uint64_t)x & mask) > ((uint64_t)y & mask) ? x : y);
      break;
    case OP_MINIMUM:
      if (sgn) MAP(x < y ? x : y) else MAP(((uint64_t)x & mask) < ((uint64_t)y & mask) ? x : y);
      break;
    case OP_AND:
      LOOP(x & y);
    case OP_OR:
      LOOP(x | y);
    case OP_XOR:
      LOOP(x ^ y);
    case OP_SHIFT_LEFT:
      LOOP(((uint64_t)y & mask) >= bits ? 0 : (int64_t)((uint64_t)x << ((uint64_t)y & mask)));
    case OP_SHIFT_RIGHT_LOGICAL:
      LOOP(((uint64_t)y & mask) >= bits ? 0 : (int64_t)(((uint64_t)x & mask) >> ((uint64_t)y & mask)));
    case OP_SHIFT_RIGHT_ARITHMETIC:
      /* sign-extend from the type's width first (unsigned types shift as signed) */
      MAP(((int64_t)((uint64_t)x << sh) >> sh) >> (((uint64_t)y & mask) >= bits ? bits - 1 : ((uint64_t)y & mask)));
      break;
    case OP_CHLO_MULHI:
      mulhi(dt, a, b, m);
      break;
    default:
      break;
  }
}

/* NaN-propagating max/min; +0 is larger than -0. */
static double fmax_(double x, double y) {
  if (isnan(x)) return x;
  if (isnan(y)) return y;
  if (x == y) return signbit(x) ? y : x;
  return x > y ? x : y;
}
static double fmin_(double x, double y) {
  if (isnan(x)) return x;
  if (isnan(y)) return y;
  if (x == y) return signbit(x) ? x : y;
  return x < y ? x : y;
}

static void real_binary(shl_opid id, double *a, const double *b, int m) {
  typedef double X_T;
  switch (id) {
    case OP_ADD:
      LOOP(x + y);
    case OP_SUBTRACT:
      LOOP(x - y);
    case OP_MULTIPLY:
      LOOP(x * y);
    case OP_DIVIDE:
      LOOP(x / y);
    case OP_REMAINDER:
      LOOP(fmod(x, y));
    case OP_POWER:
      LOOP(pow(x, y));
    case OP_MAXIMUM:
      LOOP(fmax_(x, y));
    case OP_MINIMUM:
      LOOP(fmin_(x, y));
    case OP_ATAN2:
      LOOP(atan2(x, y));
    case OP_CHLO_POLYGAMMA:
      LOOP(chlo_polygamma(x, y));
    case OP_CHLO_ZETA:
      LOOP(chlo_zeta(x, y));
    default:
      break;
  }
}

static double complex cpow_(double complex x, double complex y) {
  if (x == 0) {
    if (y == 0) return 1;
    if (cimag(y) == 0 && creal(y) > 0) return 0;
  }
  return cpow(x, y);
}

/* Complex atan2(y, x) = -i log((x + i y) / sqrt(x^2 + y^2)) (the spec's
 * complex atan2, as the reference interpreter evaluates it). */
static double complex catan2_(double complex y, double complex x) {
  double complex z = clog((x + CMPLX(0.0, 1.0) * y) / csqrt(x * x + y * y));
  return CMPLX(cimag(z), -creal(z));
}

/* Lexicographic order on (real, imag). */
static bool cgt(double complex x, double complex y) {
  return creal(x) > creal(y) || (creal(x) == creal(y) && cimag(x) > cimag(y));
}

/* complex<f32> power the way XLA:CPU evaluates it, in f32: with r = |x| and
 * t = arg x, r^c e^(-d t) (cos q + i sin q), q = c t + d ln r. */
static double complex cpowf_(double complex x, double complex y) {
  if (x == 0) return cpow_(x, y);
  float a = (float)creal(x), b = (float)cimag(x), c = (float)creal(y), d = (float)cimag(y);
  float r = xla_cabsf(a, b), t = atan2f(b, a);
  float coeff = powf(r, c) * xla_expf(-d * t);
  float q = fmaf(c, t, d * xla_logf(r));
  return CMPLX((double)(coeff * (float)cos(q)), (double)(coeff * (float)sin(q)));
}

/* Complex products: support/scalar.h's one definition. */
static double complex cmul_f32_(double complex x, double complex y) {
  cplx_f32 r = cmul_f32((cplx_f32){(float)creal(x), (float)cimag(x)}, (cplx_f32){(float)creal(y), (float)cimag(y)});
  return CMPLX((double)r.re, (double)r.im);
}
static double complex cmul_f64_(double complex x, double complex y) {
  cplx_f64 r = cmul_f64((cplx_f64){creal(x), cimag(x)}, (cplx_f64){creal(y), cimag(y)});
  return CMPLX(r.re, r.im);
}

static void cplx_binary(shl_opid id, shl_dtype dt, double complex *a, const double complex *b, int m) {
  typedef double complex X_T;
  switch (id) {
    case OP_ADD:
      LOOP(x + y);
    case OP_SUBTRACT:
      LOOP(x - y);
    case OP_MULTIPLY:
      if (dt == DT_C64) MAP(cmul_f32_(x, y)) else MAP(cmul_f64_(x, y));
      break;
    case OP_DIVIDE:
      LOOP(x / y);
    case OP_POWER:
      if (dt == DT_C64) MAP(cpowf_(x, y)) else MAP(cpow_(x, y));
      break;
    case OP_MAXIMUM:
      LOOP(cgt(x, y) ? x : y);
    case OP_MINIMUM:
      LOOP(cgt(x, y) ? y : x);
    case OP_ATAN2:
      MAP(catan2_(x, y));
      break;
    default:
      break;
  }
}

/* next_after on storage patterns (IEEE layouts): one step toward y. */
static void next_after(shl_dtype dt, const void *pa, const void *pb, void *pd, int64_t n) {
  fp_layout L = fp_layout_of(dt);
  unsigned sbit = (unsigned)L.ebits + L.mant;
  size_t w = dtype_bytes(dt);
  for (int64_t i = 0; i < n; i++) {
    uint64_t sa = fp_load(dt, (const uint8_t *)pa + i * w), sb = fp_load(dt, (const uint8_t *)pb + i * w), r = 0;
    double x = fp_to_f64(dt, sa), y = fp_to_f64(dt, sb);
    if (isnan(x) || isnan(y)) {
      r = fp_from_f64(dt, NAN);
    } else if (x == y) {
      r = sb;
    } else {
      uint64_t p = fp_pattern_of(dt, sa);
      if (x == 0)
        p = 1 | (uint64_t)(signbit(y) ? 1 : 0) << sbit;
      else if ((y > x) == (x > 0))
        p++;
      else
        p--;
      fp_storage_from_pattern(dt, p, &r);
    }
    fp_store(dt, (uint8_t *)pd + i * w, r);
  }
}

void ew_binary_apply(const ew_binary_op *p, const void *pa, const void *pb, void *dst, int64_t n) {
  if (p->in == DT_F32 && p->out == DT_F32 && ew_f32_binary(p->id, pa, pb, dst, n)) return;
  if (p->id == OP_CHLO_NEXT_AFTER) {
    next_after(p->in, pa, pb, dst, n);
    return;
  }
  for (int64_t off = 0; off < n; off += EW_CHUNK) {
    int m = (int)(n - off < EW_CHUNK ? n - off : EW_CHUNK);
    if (p->ic == EWC_INT) {
      int64_t a[EW_CHUNK], b[EW_CHUNK];
      ew_load_int(p->in, pa, off, m, a);
      ew_load_int(p->in, pb, off, m, b);
      int_binary(p->id, p->in, a, b, m);
      ew_store_int(p->out, a, dst, off, m);
    } else if (p->ic == EWC_REAL) {
      double a[EW_CHUNK], b[EW_CHUNK];
      ew_load_real(p->in, pa, off, m, a);
      ew_load_real(p->in, pb, off, m, b);
      if (p->id == OP_COMPLEX) {
        double complex c[EW_CHUNK];
        for (int i = 0; i < m; i++) c[i] = CMPLX(a[i], b[i]);
        ew_store_cplx(p->out, c, dst, off, m);
      } else {
        real_binary(p->id, a, b, m);
        ew_store_real(p->out, a, dst, off, m);
      }
    } else {
      double complex a[EW_CHUNK], b[EW_CHUNK];
      ew_load_cplx(p->in, pa, off, m, a);
      ew_load_cplx(p->in, pb, off, m, b);
      cplx_binary(p->id, p->in, a, b, m);
      ew_store_cplx(p->out, a, dst, off, m);
    }
  }
}

static shl_status binary_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  if (op->n_operands != 2 || op->n_results != 1)
    return op_error(op, SHLOC_ERR_VERIFY, "expects two operands and one result");
  if (op->operands[0]->type->dtype == DT_QUANT)
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "quantized operands are not supported");
  ew_binary_op *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  ST_TRY(ew_binary_init(op, op_id(op), type_storage_dtype(op->operands[0]->type),
                        type_storage_dtype(op->results[0].type), p));
  *params = p;
  return NULL;
}

void ew_binary_eval(const void *params, const void *const *in, void *out, int64_t n) {
  ew_binary_apply(params, in[0], in[1], out, n);
}

bool ew_binary_scalar_ok(const void *params) {
  const ew_binary_op *p = params;
  return p->in == DT_F32 && p->out == DT_F32 && ew_f32_binary_ok(p->id);
}

void ew_binary_eval_sa(const void *params, const void *const *in, void *out, int64_t n) {
  const ew_binary_op *p = params;
  ew_f32_binary_scalar(p->id, in[1], *(const float *)in[0], true, out, n);
}

void ew_binary_eval_sb(const void *params, const void *const *in, void *out, int64_t n) {
  const ew_binary_op *p = params;
  ew_f32_binary_scalar(p->id, in[0], *(const float *)in[1], false, out, n);
}

static shl_status binary_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  ew_binary_apply(po->params, in[0]->data, in[1]->data, out[0]->data, out[0]->n);
  return NULL;
}

const shl_kernel kernel_ew_binary = {binary_prepare, binary_run};
