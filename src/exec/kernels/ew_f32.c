/* Vectorised loops for the common f32 elementwise ops and for folding runs
 * of f32/f64 elements.  Each loop is compiled for AVX-512 and AVX2+FMA as
 * well as the baseline; target_clones picks one when the library loads.
 * Simple ops are plain loops the compiler vectorises; the transcendental
 * ones are written with GCC vector types (16 floats) and explicit fused
 * multiply-adds, which become vector FMAs on FMA targets (and fmaf calls
 * elsewhere, so results do not depend on the machine).
 *
 * Accuracy: + - * / max min neg abs are exact (as in double, then rounded).
 * exp uses exp(x) = 2^k e^r with a degree-7 polynomial for e^r (within
 * 1 ULP); logistic builds on it (within 2 ULP).  tanh is the rational
 * approximation XLA's CPU backend evaluates (same coefficients, clamps and
 * FMA order), so it reproduces XLA's results.  sine and cosine reduce and
 * evaluate in double and round once; arguments beyond 2^14 (and non-finite
 * ones) go through libm.  `r` must not overlap `a`. */
#include <math.h>
#ifdef __SSE2__
#include <immintrin.h>
#endif

#include "ew_common.h"
#include "kutil.h"

#if defined(__clang__)
/* clang rejects passing these 64-byte vectors between functions compiled for
 * different targets even when always inlined, so clang builds (the fuzzing
 * build) get the baseline loops only. */
#define EW_CLONES
#else
#define EW_CLONES KU_CLONES
#endif
/* Inlined into each clone, so that it is compiled for that clone's target. */
#define EW_INLINE static inline __attribute__((always_inline))

/* 64-byte vectors are passed in registers only with AVX-512; these helpers
 * are always inlined, so the ABI note does not apply. */
#pragma GCC diagnostic ignored "-Wpsabi"

typedef float vf32 __attribute__((vector_size(64)));
typedef int32_t vi32 __attribute__((vector_size(64)));
typedef float vf8 __attribute__((vector_size(32)));
typedef double vd8 __attribute__((vector_size(64)));

#define VSPLAT(c) ((vf32){c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c})

EW_INLINE vf32 vsel(vi32 m, vf32 a, vf32 b) { return (vf32)((m & (vi32)a) | (~m & (vi32)b)); }

/* a * b + c rounded once, lane by lane (compiled to one vector FMA). */
EW_INLINE vf32 vfma(vf32 a, vf32 b, vf32 c) {
  vf32 r;
  for (int i = 0; i < 16; i++) r[i] = fmaf(a[i], b[i], c[i]);
  return r;
}

EW_INLINE vd8 vfmad(vd8 a, vd8 b, vd8 c) {
  vd8 r;
  for (int i = 0; i < 8; i++) r[i] = fma(a[i], b[i], c[i]);
  return r;
}

/* exp(x) = 2^k e^r: k = rint(x / ln 2), and e^r for r = x - k ln 2. */
EW_INLINE vf32 vexp_k(vf32 x) { return vfma(x, VSPLAT(1.44269504f), VSPLAT(12582912.0f)) - 12582912.0f; }

EW_INLINE vf32 vexp_r(vf32 x, vf32 k) {
  vf32 r = vfma(k, VSPLAT(-0.693145751953125f), x);
  r = vfma(k, VSPLAT(-1.42860677e-06f), r);
  vf32 q = vfma(r, VSPLAT(1.98412698e-04f), VSPLAT(1.38888889e-03f));
  q = vfma(q, r, VSPLAT(8.33333333e-03f));
  q = vfma(q, r, VSPLAT(4.16666667e-02f));
  q = vfma(q, r, VSPLAT(1.66666667e-01f));
  q = vfma(q, r, VSPLAT(0.5f));
  return 1.0f + vfma(q, r * r, r);
}

EW_INLINE vf32 vexp(vf32 x) {
  /* Clamped (NaN to -104) so that k stays in [-150, 128]; 2^k is applied
   * as two factors, so results in the subnormal range are rounded once.
   * ln 2 is split so that k ln2_hi is exact. */
  vf32 xc = vsel(x > -104.0f, x, VSPLAT(-104.0f));
  xc = vsel(xc < 89.0f, xc, VSPLAT(89.0f));
  vf32 k = vexp_k(xc);
  vf32 p = vexp_r(xc, k);
  vi32 ki = __builtin_convertvector(k, vi32), k1 = ki >> 1, k2 = ki - k1;
  p = vsel(x == x, p, x);
  return p * (vf32)((k1 + 127) << 23) * (vf32)((k2 + 127) << 23);
}

/* vexp for |x| <= 87, where the result is normal and 2^k one factor (the
 * same values); callers redo other lanes with vexp. */
EW_INLINE vf32 vexp_normal(vf32 x) {
  vf32 k = vexp_k(x);
  return vexp_r(x, k) * (vf32)((__builtin_convertvector(k, vi32) + 127) << 23);
}

EW_INLINE vf32 vtanh(vf32 x) {
  /* XLA clamps x to +-lim first; the lanes that changes are the ones
   * replaced by +-1 below, so the clamp is left out. */
  const float lim = 7.90531110763549805f;
  vf32 xc = x, x2 = xc * xc;
  vf32 p = vfma(x2, VSPLAT(-2.76076847742355e-16f), VSPLAT(2.00018790482477e-13f));
  p = vfma(x2, p, VSPLAT(-8.60467152213735e-11f));
  p = vfma(x2, p, VSPLAT(5.12229709037114e-08f));
  p = vfma(x2, p, VSPLAT(1.48572235717979e-05f));
  p = vfma(x2, p, VSPLAT(6.37261928875436e-04f));
  p = vfma(x2, p, VSPLAT(4.89352455891786e-03f));
  p = xc * p;
  vf32 q = vfma(x2, VSPLAT(1.19825839466702e-06f), VSPLAT(1.18534705686654e-04f));
  q = vfma(x2, q, VSPLAT(2.26843463243900e-03f));
  q = vfma(x2, q, VSPLAT(4.89352518554385e-03f));
  /* |x| >= lim: +-1; |x| < 0.0004 (and NaN, selected last): x itself */
  vf32 ax = (vf32)((vi32)x & 0x7fffffff), one = (vf32)(((vi32)x & (int32_t)0x80000000) | 0x3f800000);
  vf32 t = vsel(ax < lim, p / q, one);
  return vsel(ax >= 0.0004f, t, x);
}

/* 1 / (1 + e^-x), as e^x / (1 + e^x) for x < 0 so that tiny results keep their precision. */
EW_INLINE vf32 vlogistic(vf32 x) {
  vf32 e = vexp(-(vf32)((vi32)x & 0x7fffffff));
  return vsel(x < 0.0f, e, VSPLAT(1.0f)) / (1.0f + e);
}

#define RINT_F64(v) (((v) + 6755399441055744.0) - 6755399441055744.0) /* |v| < 2^51 */

/* sin(x) for shift 0, cos(x) for shift 1: x = k pi/2 + r, |r| <= pi/4 (pi/2
 * in two parts, the first exact times k), and the quadrant k + shift
 * (mod 4) picks +-sin(r) or +-cos(r) (Taylor polynomials to r^11 and r^12:
 * relative error below 1e-11).  Exact enough for |x| <= 2^14; the caller
 * redoes other lanes with libm. */
#define DSPLAT(c) ((vd8){c, c, c, c, c, c, c, c})

EW_INLINE vd8 vsincos(vd8 d, double shift) {
  vd8 k = RINT_F64(d * 0.63661977236758134);
  vd8 r = vfmad(k, DSPLAT(-1.57079632673412561417e+00), d);
  r = vfmad(k, DSPLAT(-6.07710050650619224932e-11), r);
  vd8 q = k + shift;
  q = q - 4.0 * RINT_F64(q * 0.25 - 0.375); /* 0..3 */
  vd8 neg = RINT_F64(q * 0.5 - 0.25), odd = q - 2.0 * neg;
  vd8 z = r * r;
  vd8 s = vfmad(z, DSPLAT(-2.5052108385441719e-08), DSPLAT(2.7557319223985891e-06));
  s = vfmad(s, z, DSPLAT(-1.9841269841269841e-04));
  s = vfmad(s, z, DSPLAT(8.3333333333333333e-03));
  s = vfmad(s, z, DSPLAT(-1.6666666666666666e-01));
  s = vfmad(s * z, r, r);
  vd8 c = vfmad(z, DSPLAT(2.0876756987868099e-09), DSPLAT(-2.7557319223985893e-07));
  c = vfmad(c, z, DSPLAT(2.4801587301587302e-05));
  c = vfmad(c, z, DSPLAT(-1.3888888888888889e-03));
  c = vfmad(c, z, DSPLAT(4.1666666666666664e-02));
  c = vfmad(c, z, DSPLAT(-0.5));
  c = vfmad(c, z, DSPLAT(1.0));
  vd8 v = vfmad(c - s, odd, s);
  return v - (2.0 * neg) * v;
}

/* r[i] = F(a[i]) 16 at a time; the tail goes through a zero-padded vector. */
#define VLOOP16(F)                                    \
  do {                                                \
    int64_t i_ = 0;                                   \
    for (; i_ + 16 <= n; i_ += 16) {                  \
      vf32 x_;                                        \
      memcpy(&x_, a + i_, sizeof x_);                 \
      x_ = F(x_);                                     \
      memcpy(r + i_, &x_, sizeof x_);                 \
    }                                                 \
    if (i_ < n) {                                     \
      vf32 x_ = {0};                                  \
      memcpy(&x_, a + i_, (size_t)(n - i_) * 4);      \
      x_ = F(x_);                                     \
      memcpy(r + i_, &x_, (size_t)(n - i_) * 4);      \
    }                                                 \
  } while (0)

typedef enum { T_EXP, T_LOGISTIC, T_TANH } transc_fn;

EW_CLONES static void transc_loop(transc_fn fn, const float *a, float *r, int64_t n) {
  switch (fn) {
    case T_EXP: VLOOP16(vexp); break;
    case T_LOGISTIC: VLOOP16(vlogistic); break;
    default: VLOOP16(vtanh); break;
  }
}

/* r = vexp_normal(a); returns whether some |a[i]| > 87 (or is NaN: bits
 * above those of 87.0f, 0x42ae0000), noted on the way rather than in a
 * second pass over a. */
#define EXP_NOTING(x) (beyond |= ((vi32)(x) & 0x7fffffff) > 0x42ae0000, vexp_normal(x))

EW_CLONES static bool exp_normal_loop(const float *a, float *r, int64_t n) {
  vi32 beyond = {0};
  VLOOP16(EXP_NOTING);
  int any = 0;
  for (int i = 0; i < 16; i++) any |= beyond[i];
  return any != 0;
}

/* sine/cosine 8 at a time in double. */
EW_INLINE vf8 vsincos8(vf8 x, double shift) {
  return __builtin_convertvector(vsincos(__builtin_convertvector(x, vd8), shift), vf8);
}

EW_CLONES static void sincos_loop(double shift, const float *a, float *r, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    vf8 x;
    memcpy(&x, a + i, sizeof x);
    x = vsincos8(x, shift);
    memcpy(r + i, &x, sizeof x);
  }
  if (i < n) {
    vf8 x = {0};
    memcpy(&x, a + i, (size_t)(n - i) * 4);
    x = vsincos8(x, shift);
    memcpy(r + i, &x, (size_t)(n - i) * 4);
  }
}

#define MAP1(expr)                                  \
  do {                                              \
    _Pragma("omp simd") for (int64_t i = 0; i < n; i++) { \
      float x = a[i];                               \
      r[i] = (expr);                                \
    }                                               \
  } while (0)

EW_CLONES static void simple_loop(shl_opid id, const float *a, float *r, int64_t n) {
  switch (id) {
    case OP_NEGATE: MAP1(-x); break;
    case OP_ABS: MAP1(fabsf(x)); break;
    default: MAP1(x * x); break;
  }
}

/* Whether some |a[i]| > lim (or is NaN). */
EW_CLONES static bool beyond_f32(const float *a, float lim, int64_t n) {
  int any = 0;
  _Pragma("omp simd reduction(| : any)") for (int64_t i = 0; i < n; i++) any |= !(fabsf(a[i]) <= lim);
  return any;
}

bool ew_f32_unary(shl_opid id, const float *a, float *r, int64_t n) {
  switch (id) {
    case OP_NEGATE:
    case OP_ABS:
    case OP_CHLO_SQUARE:
      simple_loop(id, a, r, n);
      return true;
    case OP_EXPONENTIAL:
      if (exp_normal_loop(a, r, n))
        for (int64_t i = 0; i < n; i += 16) {
          int64_t m = n - i < 16 ? n - i : 16;
          if (beyond_f32(a + i, 87.0f, m)) transc_loop(T_EXP, a + i, r + i, m);
        }
      return true;
    case OP_LOGISTIC:
      transc_loop(T_LOGISTIC, a, r, n);
      return true;
    case OP_TANH:
      transc_loop(T_TANH, a, r, n);
      return true;
    case OP_SINE:
    case OP_COSINE:
      sincos_loop(id == OP_SINE ? 0.0 : 1.0, a, r, n);
      if (beyond_f32(a, 16384.0f, n))
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

/* NaN-propagating max/min (x's NaN first), without branches; +0 is larger
 * than -0 (as the double kernels): equal operands combine their bits. */
EW_INLINE vf32 vmax(vf32 x, vf32 y) {
  vf32 m = vsel(x > y, x, y);
  m = vsel(x == y, (vf32)((vi32)x & (vi32)y), m);
  return vsel(x != x, x, m);
}
EW_INLINE vf32 vmin(vf32 x, vf32 y) {
  vf32 m = vsel(x < y, x, y);
  m = vsel(x == y, (vf32)((vi32)x | (vi32)y), m);
  return vsel(x != x, x, m);
}

/* r[i] = F(x, y) 16 at a time for x from a, y from the expression Y (of i_). */
#define VLOOP2(F, Y)                                  \
  do {                                                \
    int64_t i_ = 0;                                   \
    for (; i_ + 16 <= n; i_ += 16) {                  \
      vf32 x_, y_;                                    \
      memcpy(&x_, a + i_, sizeof x_);                 \
      Y;                                              \
      x_ = F;                                         \
      memcpy(r + i_, &x_, sizeof x_);                 \
    }                                                 \
    if (i_ < n) {                                     \
      vf32 x_ = {0}, y_ = {0};                        \
      memcpy(&x_, a + i_, (size_t)(n - i_) * 4);      \
      Y;                                              \
      x_ = F;                                         \
      memcpy(r + i_, &x_, (size_t)(n - i_) * 4);      \
    }                                                 \
  } while (0)

#define LOAD_B memcpy(&y_, b + i_, (size_t)(n - i_ < 16 ? n - i_ : 16) * 4)

EW_CLONES static void binary_loop(shl_opid id, const float *a, const float *b, float *r, int64_t n) {
  switch (id) {
    case OP_ADD: MAP2(x + y); break;
    case OP_SUBTRACT: MAP2(x - y); break;
    case OP_MULTIPLY: MAP2(x * y); break;
    case OP_DIVIDE: MAP2(x / y); break;
    case OP_MAXIMUM: VLOOP2(vmax(x_, y_), LOAD_B); break;
    default: VLOOP2(vmin(x_, y_), LOAD_B); break;
  }
}

EW_CLONES static void scalar_loop(shl_opid id, const float *a, float y, bool swap, float *r, int64_t n) {
  if (swap) {
    switch (id) {
      case OP_SUBTRACT: MAP1(y - x); return;
      case OP_DIVIDE: MAP1(y / x); return;
      default: break; /* the others commute */
    }
  }
  switch (id) {
    case OP_ADD: MAP1(x + y); break;
    case OP_SUBTRACT: MAP1(x - y); break;
    case OP_MULTIPLY: MAP1(x * y); break;
    case OP_DIVIDE: MAP1(x / y); break;
    case OP_MAXIMUM:
      if (swap) VLOOP2(vmax(y_, x_), y_ = VSPLAT(y));
      else VLOOP2(vmax(x_, y_), y_ = VSPLAT(y));
      break;
    default:
      if (swap) VLOOP2(vmin(y_, x_), y_ = VSPLAT(y));
      else VLOOP2(vmin(x_, y_), y_ = VSPLAT(y));
      break;
  }
}

bool ew_f32_binary_scalar(shl_opid id, const float *a, float y, bool swap, float *r, int64_t n) {
  if (!ew_f32_binary_ok(id)) return false;
  scalar_loop(id, a, y, swap, r, n);
  return true;
}

bool ew_f32_binary_ok(shl_opid id) {
  switch (id) {
    case OP_ADD:
    case OP_SUBTRACT:
    case OP_MULTIPLY:
    case OP_DIVIDE:
    case OP_MAXIMUM:
    case OP_MINIMUM:
      return true;
    default:
      return false;
  }
}

bool ew_f32_binary(shl_opid id, const float *a, const float *b, float *r, int64_t n) {
  if (!ew_f32_binary_ok(id)) return false;
  binary_loop(id, a, b, r, n);
  return true;
}

/* ---- programs ---- */

ew_prog_code ew_prog_code_of(shl_opid id) {
  switch (id) {
    case OP_NEGATE: return EWP_NEG;
    case OP_ABS: return EWP_ABS;
    case OP_CHLO_SQUARE: return EWP_SQUARE;
    case OP_EXPONENTIAL: return EWP_EXP;
    case OP_LOGISTIC: return EWP_LOGISTIC;
    case OP_TANH: return EWP_TANH;
    case OP_ADD: return EWP_ADD;
    case OP_SUBTRACT: return EWP_SUB;
    case OP_MULTIPLY: return EWP_MUL;
    case OP_DIVIDE: return EWP_DIV;
    case OP_MAXIMUM: return EWP_MAX;
    case OP_MINIMUM: return EWP_MIN;
    default: return EWP_NONE;
  }
}

/* Elements per block: the accumulator is eight vectors, a0..a7 (named, so
 * that they stay in registers), which also gives the arithmetic of one op
 * eight independent chains and spreads the dispatch over them. */
enum { PROG_V = EWP_BLOCK / 16 };

/* S(j, X) for each vector j of a block. */
#define EACH(S, X) S(0, X) S(1, X) S(2, X) S(3, X) S(4, X) S(5, X) S(6, X) S(7, X)

#define P_NEG(x) (-(x))
#define P_ABS(x) ((vf32)((vi32)(x) & 0x7fffffff))
#define P_SQUARE(x) ((x) * (x))
#define P_ADD(x, y) ((x) + (y))
#define P_SUB(x, y) ((x) - (y))
#define P_MUL(x, y) ((x) * (y))
#define P_DIV(x, y) ((x) / (y))

/* m's lanes in the order given by constant indices (GCC and clang spell it differently). */
#if defined(__clang__)
#define VPERM(m, ...) __builtin_shufflevector(m, m, __VA_ARGS__)
#else
#define VPERM(m, ...) __builtin_shuffle(m, (vi32){__VA_ARGS__})
#endif

/* Whether every lane of m is negative. */
EW_INLINE bool vall_negative(vi32 m) {
  m &= VPERM(m, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
  m &= VPERM(m, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11);
  m &= VPERM(m, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
  m &= VPERM(m, 1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14);
  return m[0] < 0;
}

/* & (negative where |a_j| <= 87, NaN excluded): the bits of |x| minus
 * those of 87.0f plus one.  Arithmetic rather than comparisons, which GCC
 * 12 turns into lane-by-lane code here. */
#define BELOW87(j, X) &((vi32)P_ABS(a##j) - 0x42ae0001)

/* Where the operand of `in` for the block at i is; a source's partial last
 * block (m < EWP_BLOCK) is read through zero-padded tmp. */
EW_INLINE const float *prog_operand(const ew_prog_ins *in, const vf32 (*r)[PROG_V], const float *const *src, int64_t i,
                                    int64_t m, float *tmp) {
  if (!(in->flags & EWP_SRC)) return (const float *)r[in->a];
  if (m == EWP_BLOCK) return src[in->a] + i;
  memset(tmp, 0, EWP_BLOCK * sizeof(float));
  memcpy(tmp, src[in->a] + i, (size_t)m * sizeof(float));
  return tmp;
}

#define DECL(j, X) vf32 X##j;
#define DECL0(j, X) vf32 X##j = {0};
#define LD(j, X) memcpy(&o##j, p + 16 * j, sizeof(vf32));
#define ST(j, X) memcpy(q + 16 * j, &a##j, sizeof(vf32));
#define MOV(j, X) a##j = o##j;
#define PUT(j, X) r[in->dst][j] = a##j;
#define VMAP1(j, F) a##j = F(a##j);
#define VMAP2(j, F) a##j = F(a##j, o##j);
#define VMAP2S(j, F) a##j = F(o##j, a##j);
#define ALL1(F) EACH(VMAP1, F)
#define ALL2(F)                                             \
  do {                                                      \
    EACH(DECL, o)                                           \
    const float *p = prog_operand(in, r, src, i, m, tmp);   \
    EACH(LD, )                                              \
    if (in->flags & EWP_SWAP) {                             \
      EACH(VMAP2S, F)                                       \
    } else {                                                \
      EACH(VMAP2, F)                                        \
    }                                                       \
  } while (0)

/* Elements [i, i + m) of a block, m <= EWP_BLOCK (lanes past m compute on zeros). */
EW_INLINE void prog_block(const ew_prog_ins *ins, uint32_t n_ins, vf32 (*r)[PROG_V], const float *const *src,
                          float *const *dst, int64_t i, int64_t m) {
  EACH(DECL0, a)
  float tmp[EWP_BLOCK];
  for (uint32_t k = 0; k < n_ins; k++) {
    const ew_prog_ins *in = &ins[k];
    switch (in->code) {
      case EWP_GET: {
        EACH(DECL, o)
        const float *p = prog_operand(in, (const vf32(*)[PROG_V])r, src, i, m, tmp);
        EACH(LD, )
        EACH(MOV, )
        break;
      }
      case EWP_PUT:
        EACH(PUT, )
        break;
      case EWP_STORE: {
        float *q = dst[in->dst] + i;
        if (m == EWP_BLOCK) {
          EACH(ST, )
        } else {
          q = tmp;
          EACH(ST, )
          memcpy(dst[in->dst] + i, tmp, (size_t)m * sizeof(float));
        }
        break;
      }
      case EWP_NEG: ALL1(P_NEG); break;
      case EWP_ABS: ALL1(P_ABS); break;
      case EWP_SQUARE: ALL1(P_SQUARE); break;
      case EWP_EXP:
        /* as ew_f32_unary, vexp only where a lane is beyond +-87 (the
         * two agree elsewhere) */
        if (vall_negative(((vi32){0} - 1) EACH(BELOW87, ))) {
          ALL1(vexp_normal);
        } else {
          ALL1(vexp);
        }
        break;
      case EWP_LOGISTIC: ALL1(vlogistic); break;
      case EWP_TANH: ALL1(vtanh); break;
      case EWP_ADD: ALL2(P_ADD); break;
      case EWP_SUB: ALL2(P_SUB); break;
      case EWP_MUL: ALL2(P_MUL); break;
      case EWP_DIV: ALL2(P_DIV); break;
      case EWP_MAX: ALL2(vmax); break;
      default: ALL2(vmin); break;
    }
  }
}

EW_CLONES void ew_prog_run(const ew_prog *p, const float *const *src, float *const *dst, int64_t n) {
  vf32 r[EWP_MAX_REGS][PROG_V];
  uint32_t k = 0;
  for (; k < p->n_ins && p->ins[k].code == EWP_CONST; k++)
    for (int v = 0; v < PROG_V; v++) r[p->ins[k].dst][v] = VSPLAT(src[p->ins[k].a][0]);
  const ew_prog_ins *body = p->ins + k;
  uint32_t n_body = p->n_ins - k;
  int64_t i = 0;
  for (; i + EWP_BLOCK <= n; i += EWP_BLOCK) prog_block(body, n_body, r, src, dst, i, EWP_BLOCK);
  if (i < n) prog_block(body, n_body, r, src, dst, i, n - i);
}

/* ---- stores that bypass the cache ---- */

void ew_f32_stream(const float *a, float *r, int64_t n) {
#ifdef __SSE2__
  int64_t i = 0;
  for (; i < n && ((uintptr_t)(r + i) & 15); i++) r[i] = a[i];
  for (; i + 4 <= n; i += 4) _mm_stream_ps(r + i, _mm_loadu_ps(a + i));
  for (; i < n; i++) r[i] = a[i];
#else
  memcpy(r, a, (size_t)n * sizeof *r);
#endif
}

void ew_stream_fence(void) {
#ifdef __SSE2__
  _mm_sfence();
#endif
}

/* ---- folds ---- */

bool ew_fold_ok(shl_opid binop, shl_dtype dt) {
  return (dt == DT_F32 || dt == DT_F64) &&
         (binop == OP_ADD || binop == OP_MULTIPLY || binop == OP_MAXIMUM || binop == OP_MINIMUM);
}

/* f64: lane-parallel partial results of an `omp simd` reduction, combined
 * at the end; max/min track NaNs separately because the vector max does not
 * propagate them. */
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

DEF_FOLD(fold_f64, double, INFINITY)

/* f32 folds have one order on every machine, the one GCC gives the loops
 * above on AVX-512: of a run of n elements, element i < n - n % 16 goes to
 * lane i % 16 (lane = lane op element), the rest to lane 0 in order; then
 * r = identity, r = r op lane for lanes 0..15 (the scalar max keeping r on
 * ties), and acc op r.  Written out so that several runs (the pieces of a
 * row) fold at once: each lane is a chain of dependent operations, and
 * FOLD_K independent chains keep the vector unit busy. */
enum { FOLD_K = 4 };

#define V_ADD(s, x) ((s) + (x))
#define V_MUL(s, x) ((s) * (x))
#define V_MAX(s, x) vsel((x) > (s), (x), (s))
#define V_MIN(s, x) vsel((x) < (s), (x), (s))
#define S_ADD(s, x) ((s) + (x))
#define S_MUL(s, x) ((s) * (x))
#define S_MAX(s, x) ((x) > (s) ? (x) : (s))
#define S_MIN(s, x) ((x) < (s) ? (x) : (s))
#define L_MAX(r, l) ((r) > (l) ? (r) : (l))
#define L_MIN(r, l) ((r) < (l) ? (r) : (l))

/* k runs of len elements, run j at a + j * stride: r[j] (the lanes
 * combined), bad[j] (a NaN seen; only when NAN_SEEN). */
#define DEF_LANES(NAME, VOP, SOP, LOP, ID, NAN_SEEN)                                  \
  EW_INLINE void NAME(const float *a, int64_t len, int64_t stride, int k, float *r, bool *bad) { \
    vf32 v[FOLD_K];                                                                  \
    vi32 nan[FOLD_K];                                                                \
    _Pragma("GCC unroll 4") for (int j = 0; j < FOLD_K; j++) {                       \
      v[j] = VSPLAT(ID);                                                             \
      nan[j] = (vi32){0};                                                            \
    }                                                                                \
    int64_t vec = len - len % 16;                                                    \
    for (int64_t i = 0; i < vec; i += 16) {                                          \
      _Pragma("GCC unroll 4") for (int j = 0; j < FOLD_K; j++) {                     \
        if (j >= k) break;                                                           \
        vf32 x;                                                                      \
        memcpy(&x, a + j * stride + i, sizeof x);                                    \
        v[j] = VOP(v[j], x);                                                         \
        if (NAN_SEEN) nan[j] |= x != x;                                              \
      }                                                                              \
    }                                                                                \
    _Pragma("GCC unroll 4") for (int j = 0; j < FOLD_K; j++) {                       \
      if (j >= k) break;                                                             \
      for (int64_t i = vec; i < len; i++) {                                          \
        float x = a[j * stride + i];                                                 \
        v[j][0] = SOP(v[j][0], x);                                                   \
        if (NAN_SEEN) nan[j][0] |= x != x;                                           \
      }                                                                              \
      float q = ID;                                                                  \
      int32_t any = 0;                                                               \
      for (int l = 0; l < 16; l++) {                                                 \
        q = LOP(q, v[j][l]);                                                         \
        if (NAN_SEEN) any |= nan[j][l];                                              \
      }                                                                              \
      r[j] = q;                                                                      \
      bad[j] = any != 0;                                                             \
    }                                                                                \
  }

DEF_LANES(lanes_add, V_ADD, S_ADD, S_ADD, 0.0f, 0)
DEF_LANES(lanes_mul, V_MUL, S_MUL, S_MUL, 1.0f, 0)
DEF_LANES(lanes_max, V_MAX, S_MAX, L_MAX, -INFINITY, 1)
DEF_LANES(lanes_min, V_MIN, S_MIN, L_MIN, INFINITY, 1)

/* acc op r, r being a run's lanes combined */
#define C_ADD(acc, r, bad) ((acc) + (r))
#define C_MUL(acc, r, bad) ((acc) * (r))
#define C_MAX(acc, r, bad) (((bad) || (acc) != (acc)) ? NAN : (acc) > (r) ? (acc) : (r))
#define C_MIN(acc, r, bad) (((bad) || (acc) != (acc)) ? NAN : (acc) < (r) ? (acc) : (r))

/* k (a constant: FOLD_K or 1) runs folded into acc in order. */
#define DEF_RUNS(NAME, LANES, COMBINE)                                                    \
  EW_INLINE float NAME(const float *a, int64_t len, int64_t stride, int k, float acc) { \
    float r[FOLD_K];                                                                      \
    bool bad[FOLD_K];                                                                     \
    LANES(a, len, stride, k, r, bad);                                                     \
    _Pragma("GCC unroll 4") for (int j = 0; j < FOLD_K; j++) {                            \
      if (j >= k) break;                                                                  \
      acc = COMBINE(acc, r[j], bad[j]);                                                   \
    }                                                                                     \
    return acc;                                                                           \
  }

DEF_RUNS(runs_add, lanes_add, C_ADD)
DEF_RUNS(runs_mul, lanes_mul, C_MUL)
DEF_RUNS(runs_max, lanes_max, C_MAX)
DEF_RUNS(runs_min, lanes_min, C_MIN)

/* a[0 .. n) folded into acc piece by piece (pieces of `piece` > 0
 * elements; no elements: one empty piece, acc op identity). */
#define PIECES(RUNS)                                                                                  \
  do {                                                                                                \
    if (n <= 0) return RUNS(a, 0, 0, 1, acc);                                                         \
    int64_t j = 0;                                                                                    \
    for (; n - j >= FOLD_K * piece; j += FOLD_K * piece) acc = RUNS(a + j, piece, piece, FOLD_K, acc); \
    for (; j < n; j += piece) acc = RUNS(a + j, n - j < piece ? n - j : piece, piece, 1, acc);        \
    return acc;                                                                                       \
  } while (0)

EW_CLONES static float fold_f32_pieces(shl_opid binop, const float *a, int64_t n, int64_t piece, float acc) {
  switch (binop) {
    case OP_ADD: PIECES(runs_add);
    case OP_MULTIPLY: PIECES(runs_mul);
    case OP_MAXIMUM: PIECES(runs_max);
    default: PIECES(runs_min);
  }
}

void ew_fold(shl_opid binop, shl_dtype dt, const void *src, int64_t n, void *acc) {
  if (dt == DT_F32) {
    float a;
    memcpy(&a, acc, sizeof a);
    a = fold_f32_pieces(binop, src, n, n > 0 ? n : 1, a);
    memcpy(acc, &a, sizeof a);
  } else {
    double a;
    memcpy(&a, acc, sizeof a);
    a = fold_f64(binop, src, n, a);
    memcpy(acc, &a, sizeof a);
  }
}

void ew_fold_f32_pieces(shl_opid binop, const float *src, int64_t n, int64_t piece, float *acc) {
  *acc = fold_f32_pieces(binop, src, n, piece > 0 ? piece : 1, *acc);
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
