/* Vectorised loops for the common f32 elementwise ops and for folding runs
 * of f32/f64 elements.  Each loop is compiled for AVX-512 and AVX2+FMA as
 * well as the baseline; target_clones picks one when the library loads.
 * Every lane computes every operation (selects come last, and results that
 * could trap are always used), so the loops vectorise without
 * -fno-trapping-math.
 *
 * Accuracy: + - * / max min neg abs are exact (as in double, then rounded).
 * exp uses exp(x) = 2^k e^r with a degree-7 polynomial for e^r (within
 * 1 ULP); logistic builds on it (within 2 ULP).  tanh is the rational approximation XLA's CPU backend
 * evaluates (same coefficients, clamps and FMA order), so it reproduces
 * XLA's results.  sine and cosine reduce and evaluate in double and round
 * once; arguments beyond 2^14 (and non-finite ones) go through libm.
 * `r` must not overlap `a`. */
#include <math.h>

#include "ew_common.h"

#define EW_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))

static inline float f32_of_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static inline float exp_f32(float x) {
  /* Clamped so that k stays in [-150, 128]; 2^k is applied as two factors,
   * so results in the subnormal range are rounded once. */
  float xc = x < -104.0f ? -104.0f : x > 89.0f ? 89.0f : x;
  xc = xc == xc ? xc : 0.0f;
  float k = (xc * 1.44269504f + 12582912.0f) - 12582912.0f; /* rint(x / ln 2) */
  float r = fmaf(k, -0.693145751953125f, xc);
  r = fmaf(k, -1.42860677e-06f, r);
  float q = fmaf(r, 1.98412698e-04f, 1.38888889e-03f);
  q = fmaf(q, r, 8.33333333e-03f);
  q = fmaf(q, r, 4.16666667e-02f);
  q = fmaf(q, r, 1.66666667e-01f);
  q = fmaf(q, r, 0.5f);
  float p = 1.0f + fmaf(q, r * r, r);
  int32_t ki = (int32_t)k, k1 = ki >> 1, k2 = ki - k1;
  p = x == x ? p : x;
  return p * f32_of_bits((uint32_t)(k1 + 127) << 23) * f32_of_bits((uint32_t)(k2 + 127) << 23);
}

static inline float tanh_f32(float x) {
  const float lim = 7.90531110763549805f;
  float xc = x > lim ? lim : x < -lim ? -lim : x;
  float x2 = xc * xc;
  float p = fmaf(x2, -2.76076847742355e-16f, 2.00018790482477e-13f);
  p = fmaf(x2, p, -8.60467152213735e-11f);
  p = fmaf(x2, p, 5.12229709037114e-08f);
  p = fmaf(x2, p, 1.48572235717979e-05f);
  p = fmaf(x2, p, 6.37261928875436e-04f);
  p = fmaf(x2, p, 4.89352455891786e-03f);
  p = xc * p;
  float q = fmaf(x2, 1.19825839466702e-06f, 1.18534705686654e-04f);
  q = fmaf(x2, q, 2.26843463243900e-03f);
  q = fmaf(x2, q, 4.89352518554385e-03f);
  float ax = fabsf(x);
  bool tiny = ax < 0.0004f, big = ax >= lim;
  p = tiny ? x : big ? copysignf(1.0f, x) : p;
  q = tiny || big ? 1.0f : q;
  return p / q;
}

#define RINT_F64(v) (((v) + 6755399441055744.0) - 6755399441055744.0) /* |v| < 2^51 */

/* sin(x) for shift 0, cos(x) for shift 1: x = k pi/2 + r, |r| <= pi/4, and
 * the quadrant k + shift (mod 4) picks +-sin(r) or +-cos(r).  Exact enough
 * for |x| <= 2^14; the caller redoes other lanes with libm. */
static inline float sincos_f32(float x, double shift) {
  double d = x;
  double k = RINT_F64(d * 0.63661977236758134);
  double r = fma(k, -1.5707963267948966, d);
  r = fma(k, -6.123233995736766e-17, r);
  double q = k + shift;
  q -= 4.0 * RINT_F64(q * 0.25 - 0.375); /* 0..3 */
  double neg = RINT_F64(q * 0.5 - 0.25), odd = q - 2.0 * neg;
  double z = r * r;
  double s = r + r * z *
                     (-1.6666666666666666e-01 +
                      z * (8.3333333333333333e-03 +
                           z * (-1.9841269841269841e-04 +
                                z * (2.7557319223985891e-06 + z * (-2.5052108385441719e-08 + z * 1.6059043836821613e-10)))));
  double c = 1.0 + z * (-0.5 + z * (4.1666666666666664e-02 +
                                    z * (-1.3888888888888889e-03 +
                                         z * (2.4801587301587302e-05 +
                                              z * (-2.7557319223985893e-07 + z * 2.0876756987868099e-09)))));
  double v = s + (c - s) * odd;
  return (float)(v - 2.0 * neg * v);
}

/* 1 / (1 + e^-x), as e^x / (1 + e^x) for x < 0 so that tiny results keep their precision. */
static inline float logistic_f32(float x) {
  float e = exp_f32(-fabsf(x));
  return (x < 0.0f ? e : 1.0f) / (1.0f + e);
}

/* NaN-propagating max/min; +0 is larger than -0 (as the double kernels). */
static inline float max_f32(float x, float y) {
  float m = x > y ? x : x < y ? y : signbit(x) ? y : x;
  m = y != y ? y : m;
  return x != x ? x : m;
}
static inline float min_f32(float x, float y) {
  float m = x < y ? x : x > y ? y : signbit(x) ? x : y;
  m = y != y ? y : m;
  return x != x ? x : m;
}

#define MAP1(expr)                                  \
  do {                                              \
    _Pragma("omp simd") for (int64_t i = 0; i < n; i++) { \
      float x = a[i];                               \
      r[i] = (expr);                                \
    }                                               \
  } while (0)

EW_CLONES static void unary_loop(shl_opid id, const float *a, float *r, int64_t n) {
  switch (id) {
    case OP_NEGATE: MAP1(-x); break;
    case OP_ABS: MAP1(fabsf(x)); break;
    case OP_CHLO_SQUARE: MAP1(x * x); break;
    case OP_EXPONENTIAL: MAP1(exp_f32(x)); break;
    case OP_LOGISTIC: MAP1(logistic_f32(x)); break;
    case OP_TANH: MAP1(tanh_f32(x)); break;
    case OP_SINE: MAP1(sincos_f32(x, 0.0)); break;
    default: MAP1(sincos_f32(x, 1.0)); break;
  }
}

bool ew_f32_unary(shl_opid id, const float *a, float *r, int64_t n) {
  switch (id) {
    case OP_NEGATE:
    case OP_ABS:
    case OP_CHLO_SQUARE:
    case OP_EXPONENTIAL:
    case OP_LOGISTIC:
    case OP_TANH:
      unary_loop(id, a, r, n);
      return true;
    case OP_SINE:
    case OP_COSINE:
      unary_loop(id, a, r, n);
      for (int64_t i = 0; i < n; i++)
        if (!(fabsf(a[i]) <= 16384.0f)) r[i] = (float)(id == OP_SINE ? sin((double)a[i]) : cos((double)a[i]));
      return true;
    default:
      return false;
  }
}

#define MAP2(expr)                                  \
  do {                                              \
    _Pragma("omp simd") for (int64_t i = 0; i < n; i++) { \
      float x = a[i], y = b[i];                     \
      r[i] = (expr);                                \
    }                                               \
  } while (0)

EW_CLONES static void binary_loop(shl_opid id, const float *a, const float *b, float *r, int64_t n) {
  switch (id) {
    case OP_ADD: MAP2(x + y); break;
    case OP_SUBTRACT: MAP2(x - y); break;
    case OP_MULTIPLY: MAP2(x * y); break;
    case OP_DIVIDE: MAP2(x / y); break;
    case OP_MAXIMUM: MAP2(max_f32(x, y)); break;
    default: MAP2(min_f32(x, y)); break;
  }
}

bool ew_f32_binary(shl_opid id, const float *a, const float *b, float *r, int64_t n) {
  switch (id) {
    case OP_ADD:
    case OP_SUBTRACT:
    case OP_MULTIPLY:
    case OP_DIVIDE:
    case OP_MAXIMUM:
    case OP_MINIMUM:
      binary_loop(id, a, b, r, n);
      return true;
    default:
      return false;
  }
}

/* ---- folds ---- */

bool ew_fold_ok(shl_opid binop, shl_dtype dt) {
  return (dt == DT_F32 || dt == DT_F64) &&
         (binop == OP_ADD || binop == OP_MULTIPLY || binop == OP_MAXIMUM || binop == OP_MINIMUM);
}

/* Lane-parallel partial results, combined at the end; max/min track NaNs
 * separately because the vector max does not propagate them. */
#define DEF_FOLD(NAME, T, INF)                                                         \
  EW_CLONES static T NAME(shl_opid binop, const T *a, int64_t n, T acc) {             \
    T s;                                                                               \
    int nan = 0;                                                                       \
    switch (binop) {                                                                   \
      case OP_ADD:                                                                     \
        s = 0;                                                                         \
        _Pragma("omp simd reduction(+ : s)") for (int64_t i = 0; i < n; i++) s += a[i]; \
        return acc + s;                                                                \
      case OP_MULTIPLY:                                                                \
        s = 1;                                                                         \
        _Pragma("omp simd reduction(* : s)") for (int64_t i = 0; i < n; i++) s *= a[i]; \
        return acc * s;                                                                \
      case OP_MAXIMUM:                                                                 \
        s = -INF;                                                                      \
        _Pragma("omp simd reduction(max : s) reduction(| : nan)") for (int64_t i = 0; i < n; i++) { \
          s = a[i] > s ? a[i] : s;                                                     \
          nan |= a[i] != a[i];                                                         \
        }                                                                              \
        return (nan || acc != acc) ? (T)NAN : acc > s ? acc : s;                       \
      default:                                                                         \
        s = INF;                                                                       \
        _Pragma("omp simd reduction(min : s) reduction(| : nan)") for (int64_t i = 0; i < n; i++) { \
          s = a[i] < s ? a[i] : s;                                                     \
          nan |= a[i] != a[i];                                                         \
        }                                                                              \
        return (nan || acc != acc) ? (T)NAN : acc < s ? acc : s;                       \
    }                                                                                  \
  }

DEF_FOLD(fold_f32, float, INFINITY)
DEF_FOLD(fold_f64, double, INFINITY)

void ew_fold(shl_opid binop, shl_dtype dt, const void *src, int64_t n, void *acc) {
  if (dt == DT_F32) {
    float a;
    memcpy(&a, acc, sizeof a);
    a = fold_f32(binop, src, n, a);
    memcpy(acc, &a, sizeof a);
  } else {
    double a;
    memcpy(&a, acc, sizeof a);
    a = fold_f64(binop, src, n, a);
    memcpy(acc, &a, sizeof a);
  }
}

bool ew_fold_identity(shl_opid binop, shl_dtype dt, void *acc) {
  if (!ew_fold_ok(binop, dt)) return false;
  double v = binop == OP_ADD ? 0.0 : binop == OP_MULTIPLY ? 1.0 : binop == OP_MAXIMUM ? -INFINITY : INFINITY;
  if (dt == DT_F32) {
    float f = (float)v;
    memcpy(acc, &f, sizeof f);
  } else {
    memcpy(acc, &v, sizeof v);
  }
  return true;
}
