/* Element semantics: the one definition of how every element type converts,
 * rounds and compares, shared by kernels, built-in targets and the C emitter's
 * output (so it is all static inline over dtype.h, except the two bulk loops
 * in fpconv.c).  Conversions between classes follow the StableHLO reference
 * interpreter (APInt/APFloat), see int_convert, fp_from_i64, fp_to_int.
 *
 * Floats follow LLVM APFloat, the arithmetic of the MLIR/StableHLO reference:
 * round-to-nearest-even with subnormals; NaN payloads are truncated/extended
 * and quieted; a finite value too large for the format becomes inf (IEEE
 * formats), NaN (the FN/FNUZ "NanOnly" formats) or the largest finite value
 * (the f4/f6 "FiniteOnly" formats); FNUZ formats have no -0 (it is their NaN).
 *
 * Storage: f8/f6/f4 take one byte (value in the low bits, upper bits zero);
 * tf32 is an f32 bit pattern whose low 13 mantissa bits are zero; bf16/f16 are
 * 16-bit patterns.  The "pattern" of a value is APFloat's bitcast (what MLIR
 * prints as hex): equal to the storage except for tf32 (storage >> 13, 19 bits).
 *
 * Choices where APFloat has no defined answer (it aborts or produces garbage):
 * NaN -> f4/f6 gives the ml_dtypes NaN stand-in (sign bit alone, i.e. -0);
 * inf -> f4/f6 saturates; negative -> f8E8M0FNU gives NaN; f8E8M0FNU NaN
 * widens to the default quiet NaN. */
#ifndef SHLOC_SUPPORT_SCALAR_H
#define SHLOC_SUPPORT_SCALAR_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dtype.h"

#if defined(__F16C__)
#include <immintrin.h>
#endif

/* ---- complex arithmetic -------------------------------------------------- */

/* complex<f32> / complex<f64> elements as stored: real part first. */
typedef struct {
  float re, im;
} cplx_f32;
typedef struct {
  double re, im;
} cplx_f64;

/* The complex product as XLA:CPU computes it: (ac - bd) + (bc + ad)i with one
 * product of each part fused into an FMA (LLVM contracts XLA's expansion so),
 * in the element type's precision.  Every path that multiplies complex
 * numbers (elementwise multiply, scatter/reduce combiners, fused code) calls
 * these, so they agree bit for bit. */
static inline cplx_f32 cmul_f32(cplx_f32 x, cplx_f32 y) {
  return (cplx_f32){fmaf(x.re, y.re, -(x.im * y.im)), fmaf(x.im, y.re, x.re * y.im)};
}
static inline cplx_f64 cmul_f64(cplx_f64 x, cplx_f64 y) {
  return (cplx_f64){fma(x.re, y.re, -(x.im * y.im)), fma(x.im, y.re, x.re * y.im)};
}

/* ---- float format descriptions ------------------------------------------ */

typedef enum {
  FPK_IEEE,        /* inf and NaN in the all-ones exponent (f16, bf16, f8E5M2, ...) */
  FPK_NAN_ALLONES, /* no inf; NaN = all ones (f8E4M3FN) */
  FPK_NAN_NEGZERO, /* no inf, no -0; NaN = sign bit alone (FNUZ formats) */
  FPK_FINITE,      /* no inf, no NaN (f4E2M1FN, f6E2M3FN, f6E3M2FN) */
  FPK_E8M0,        /* unsigned powers of two; no zero; NaN = 0xFF */
} fp_kind;

typedef struct {
  uint8_t mant;  /* explicit fraction bits */
  uint8_t ebits; /* exponent field bits */
  uint8_t kind;  /* fp_kind */
  uint8_t shift; /* storage = pattern << shift (13 for tf32) */
  int16_t bias;  /* exponent bias: the smallest normal exponent is 1 - bias */
} fp_layout;

/* Layout of float dtype t.  f32/f64 are listed for classification and
 * printing; their conversions use the host types. */
static inline fp_layout fp_layout_of(shl_dtype t) {
  switch (t) {
    case DT_F16: return (fp_layout){10, 5, FPK_IEEE, 0, 15};
    case DT_BF16: return (fp_layout){7, 8, FPK_IEEE, 0, 127};
    case DT_TF32: return (fp_layout){10, 8, FPK_IEEE, 13, 127};
    case DT_F8E3M4: return (fp_layout){4, 3, FPK_IEEE, 0, 3};
    case DT_F8E4M3: return (fp_layout){3, 4, FPK_IEEE, 0, 7};
    case DT_F8E5M2: return (fp_layout){2, 5, FPK_IEEE, 0, 15};
    case DT_F8E4M3FN: return (fp_layout){3, 4, FPK_NAN_ALLONES, 0, 7};
    case DT_F8E4M3FNUZ: return (fp_layout){3, 4, FPK_NAN_NEGZERO, 0, 8};
    case DT_F8E4M3B11FNUZ: return (fp_layout){3, 4, FPK_NAN_NEGZERO, 0, 11};
    case DT_F8E5M2FNUZ: return (fp_layout){2, 5, FPK_NAN_NEGZERO, 0, 16};
    case DT_F8E8M0FNU: return (fp_layout){0, 8, FPK_E8M0, 0, 127};
    case DT_F6E2M3FN: return (fp_layout){3, 2, FPK_FINITE, 0, 1};
    case DT_F6E3M2FN: return (fp_layout){2, 3, FPK_FINITE, 0, 3};
    case DT_F4E2M1FN: return (fp_layout){1, 2, FPK_FINITE, 0, 1};
    case DT_F32: return (fp_layout){23, 8, FPK_IEEE, 0, 127};
    case DT_F64: return (fp_layout){52, 11, FPK_IEEE, 0, 1023};
    default: return (fp_layout){0, 0, FPK_IEEE, 0, 0};
  }
}

/* Bits in a pattern (APFloat's size in bits: 19 for tf32, 6 for f6, ...). */
static inline unsigned fp_layout_bits(fp_layout L) {
  return (unsigned)L.ebits + L.mant + (L.kind == FPK_E8M0 ? 0u : 1u);
}

static inline uint64_t fp__mask(unsigned bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

static inline uint32_t fp_f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static inline float fp_bits_f32(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline uint64_t fp_f64_bits(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}
static inline double fp_bits_f64(uint64_t u) {
  double d;
  memcpy(&d, &u, 8);
  return d;
}

/* APFloat bit pattern <-> storage.  fp_storage_from_pattern fails when the
 * pattern has bits beyond the format's width (MLIR rejects such hex literals). */
static inline uint64_t fp_pattern_of(shl_dtype t, uint64_t storage) {
  fp_layout L = fp_layout_of(t);
  return (storage >> L.shift) & fp__mask(fp_layout_bits(L));
}
static inline bool fp_storage_from_pattern(shl_dtype t, uint64_t pattern, uint64_t *out) {
  fp_layout L = fp_layout_of(t);
  if (pattern & ~fp__mask(fp_layout_bits(L))) return false;
  *out = pattern << L.shift;
  return true;
}

/* ---- classification (on storage bits) ----------------------------------- */

static inline bool fp_is_nan(shl_dtype t, uint64_t storage) {
  fp_layout L = fp_layout_of(t);
  uint64_t p = (storage >> L.shift) & fp__mask(fp_layout_bits(L));
  uint64_t mag = p & fp__mask((unsigned)L.ebits + L.mant);
  uint64_t inf = fp__mask(L.ebits) << L.mant;
  switch ((fp_kind)L.kind) {
    case FPK_IEEE: return mag > inf;
    case FPK_NAN_ALLONES: return mag == fp__mask((unsigned)L.ebits + L.mant);
    case FPK_NAN_NEGZERO: return p == 1ull << (L.ebits + L.mant);
    case FPK_E8M0: return p == 0xFF;
    case FPK_FINITE: return false;
  }
  return false;
}

static inline bool fp_is_inf(shl_dtype t, uint64_t storage) {
  fp_layout L = fp_layout_of(t);
  if (L.kind != FPK_IEEE) return false;
  uint64_t mag = (storage >> L.shift) & fp__mask((unsigned)L.ebits + L.mant);
  return mag == fp__mask(L.ebits) << L.mant;
}

static inline bool fp_is_finite(shl_dtype t, uint64_t storage) {
  return !fp_is_nan(t, storage) && !fp_is_inf(t, storage);
}

/* ---- decoding: any float dtype -> double (always exact) ------------------ */

/* Storage of a format with layout L (not f32/f64) -> double: bulk loops
 * look the layout up once and call this per element. */
static inline double fp_layout_to_f64(fp_layout L, uint64_t storage) {
  uint64_t p = (storage >> L.shift) & fp__mask(fp_layout_bits(L));
  if (L.kind == FPK_E8M0) {
    if (p == 0xFF) return fp_bits_f64(0x7FF8000000000000ull);
    return fp_bits_f64((p - 127 + 1023) << 52);
  }
  unsigned sbit = (unsigned)L.ebits + L.mant;
  uint64_t sign = (p >> sbit & 1) << 63;
  uint64_t e = (p >> L.mant) & fp__mask(L.ebits), f = p & fp__mask(L.mant);
  uint64_t emax = fp__mask(L.ebits);
  switch ((fp_kind)L.kind) {
    case FPK_IEEE:
      if (e == emax) {
        if (!f) return fp_bits_f64(sign | 0x7FF0000000000000ull);
        return fp_bits_f64(sign | 0x7FF8000000000000ull | f << (52 - L.mant)); /* quieted */
      }
      break;
    case FPK_NAN_ALLONES:
      if (e == emax && f == fp__mask(L.mant)) return fp_bits_f64(sign | 0x7FF0000000000000ull | f << (52 - L.mant));
      break;
    case FPK_NAN_NEGZERO:
      if (sign && !e && !f) return fp_bits_f64(0x7FF8000000000000ull);
      break;
    default: break;
  }
  if (e == 0) {
    if (!f) return fp_bits_f64(sign);
    int msb = 63 - __builtin_clzll(f);
    int64_t ex = 1 - L.bias - L.mant + msb; /* value = f * 2^(1-bias-mant) */
    return fp_bits_f64(sign | (uint64_t)(ex + 1023) << 52 | ((f << (52 - msb)) & fp__mask(52)));
  }
  return fp_bits_f64(sign | (e - (uint64_t)L.bias + 1023) << 52 | f << (52 - L.mant));
}

static inline double fp_to_f64(shl_dtype t, uint64_t storage) {
  if (t == DT_F64) return fp_bits_f64(storage);
  if (t == DT_F32) return (double)fp_bits_f32((uint32_t)storage);
  return fp_layout_to_f64(fp_layout_of(t), storage);
}

/* ---- encoding: double -> any float dtype (one rounding) ----------------- */

/* Rounds sign * m * 2^q (0 < m < 2^63) to the pattern of L (not E8M0). */
static inline uint64_t fp__round(fp_layout L, uint64_t sign, uint64_t m, int q) {
  int msb = 63 - __builtin_clzll(m);
  int e = msb + q, emin = 1 - L.bias;
  int eq = (e > emin ? e : emin) - L.mant; /* exponent of the last kept bit */
  int sh = eq - q;
  uint64_t r;
  if (sh <= 0) {
    r = m << -sh;
  } else if (sh > msb + 1) {
    r = 0; /* below half the smallest subnormal */
  } else {
    uint64_t half = 1ull << (sh - 1), rem = m & ((half << 1) - 1);
    r = m >> sh;
    if (rem > half || (rem == half && (r & 1))) r++;
  }
  uint64_t enc = ((uint64_t)((e > emin ? e : emin) - emin) << L.mant) + r;
  unsigned sbit = (unsigned)L.ebits + L.mant;
  uint64_t allones = fp__mask(sbit), s = sign << sbit;
  switch ((fp_kind)L.kind) {
    case FPK_IEEE:
      if (enc >= fp__mask(L.ebits) << L.mant) return s | fp__mask(L.ebits) << L.mant;
      return s | enc;
    case FPK_NAN_ALLONES:
      return s | (enc >= allones ? allones : enc);
    case FPK_NAN_NEGZERO:
      if (enc > allones) return 1ull << sbit;
      return enc ? s | enc : 0;
    case FPK_FINITE:
      return s | (enc > allones ? allones : enc);
    default: return 0;
  }
}

/* E8M0 keeps only a power of two: APFloat rounds 1.5*2^e (a tie) up. */
static inline uint64_t fp__round_e8m0(uint64_t m, int q) {
  int msb = 63 - __builtin_clzll(m);
  int e = msb + q;
  if (msb > 0 && (m >> (msb - 1) & 1)) e++;
  if (e < -127) return 0; /* no zero: the smallest value stands in */
  if (e > 127) return 0xFF;
  return (uint64_t)(e + 127);
}

/* Pattern of NaN (nan=true) or inf, with the given sign, in format L. */
static inline uint64_t fp__special(fp_layout L, uint64_t sign, bool nan, uint64_t payload52) {
  unsigned sbit = (unsigned)L.ebits + L.mant;
  uint64_t s = sign << sbit, inf = fp__mask(L.ebits) << L.mant;
  switch ((fp_kind)L.kind) {
    case FPK_IEEE:
      if (!nan) return s | inf;
      return s | inf | payload52 >> (52 - L.mant) | 1ull << (L.mant - 1);
    case FPK_NAN_ALLONES: return s | fp__mask(sbit);
    case FPK_NAN_NEGZERO: return 1ull << sbit;
    case FPK_FINITE: return nan ? 1ull << sbit : s | fp__mask(sbit);
    case FPK_E8M0: return 0xFF;
  }
  return 0;
}

/* double -> storage of a format with layout L (not f32/f64), one rounding. */
static inline uint64_t fp_layout_from_f64(fp_layout L, double v) {
  uint64_t x = fp_f64_bits(v), sign = x >> 63, f = x & fp__mask(52);
  int ex = (int)(x >> 52 & 0x7FF);
  uint64_t p;
  if (ex == 0x7FF) {
    p = fp__special(L, sign, f != 0, f);
  } else if (ex == 0 && f == 0) {
    p = (L.kind == FPK_NAN_NEGZERO || L.kind == FPK_E8M0) ? 0 : sign << (L.ebits + L.mant);
  } else {
    uint64_t m = ex ? f | 1ull << 52 : f;
    int q = (ex ? ex : 1) - 1075;
    if (L.kind == FPK_E8M0)
      p = sign ? 0xFF : fp__round_e8m0(m, q);
    else
      p = fp__round(L, sign, m, q);
  }
  return p << L.shift;
}

static inline uint64_t fp_from_f64(shl_dtype t, double v) {
  if (t == DT_F64) return fp_f64_bits(v);
  if (t == DT_F32) return fp_f32_bits((float)v);
  return fp_layout_from_f64(fp_layout_of(t), v);
}

/* ---- the hot f32 paths -------------------------------------------------- */

static inline float bf16_to_f32(uint16_t h) {
  uint32_t x = (uint32_t)h << 16;
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) x |= 0x400000u; /* converting quiets a NaN */
  return fp_bits_f32(x);
}

static inline uint16_t f32_to_bf16(float f) {
  uint32_t x = fp_f32_bits(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)((x >> 16) | 0x40);
  return (uint16_t)((x + 0x7FFFu + ((x >> 16) & 1)) >> 16);
}

/* f32 -> tf32 storage (an f32 pattern with 10 fraction bits). */
static inline uint32_t f32_to_tf32(float f) {
  uint32_t x = fp_f32_bits(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return (x & ~0x1FFFu) | 0x400000u;
  return (x + 0xFFFu + ((x >> 13) & 1)) & ~0x1FFFu;
}

static inline float f16_to_f32(uint16_t h) {
#if defined(__F16C__)
  return _cvtsh_ss(h);
#else
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1F, m = h & 0x3FF;
  if (e == 0x1F) return fp_bits_f32(sign | 0x7F800000u | m << 13 | (m ? 0x400000u : 0));
  if (e) return fp_bits_f32(sign | (e + 112) << 23 | m << 13);
  if (!m) return fp_bits_f32(sign);
  int msb = 31 - __builtin_clz(m); /* subnormal: value = m * 2^-24 */
  return fp_bits_f32(sign | (uint32_t)(msb - 24 + 127) << 23 | ((m << (23 - msb)) & 0x7FFFFFu));
#endif
}

static inline uint16_t f32_to_f16(float f) {
#if defined(__F16C__)
  return (uint16_t)_cvtss_sh(f, 0);
#else
  uint32_t x = fp_f32_bits(f), sign = (x >> 16) & 0x8000, a = x & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return (uint16_t)(sign | 0x7E00 | ((a >> 13) & 0x3FF));
  if (a >= 0x477FF000u) return (uint16_t)(sign | 0x7C00); /* >= 65520 rounds to inf */
  if (a >= 0x38800000u) return (uint16_t)(sign | ((a + 0xC8000FFFu + ((a >> 13) & 1)) >> 13));
  uint32_t e = a >> 23;
  if (e < 102) return (uint16_t)sign; /* below 2^-25: rounds to zero */
  uint32_t m = (a & 0x7FFFFFu) | 0x800000u, sh = 126 - e;
  uint32_t half = 1u << (sh - 1), rem = m & ((half << 1) - 1), r = m >> sh;
  if (rem > half || (rem == half && (r & 1))) r++;
  return (uint16_t)(sign | r);
#endif
}

/* Any float dtype <-> f32.  Widening is exact; narrowing rounds once (an f32
 * is exactly a double, so this is the same as going through fp_from_f64). */
static inline float fp_to_f32(shl_dtype t, uint64_t storage) {
  switch (t) {
    case DT_F32: return fp_bits_f32((uint32_t)storage);
    case DT_TF32: return fp_bits_f32((uint32_t)storage & ~0x1FFFu); /* only the tf32 bits count */
    case DT_BF16: return bf16_to_f32((uint16_t)storage);
    case DT_F16: return f16_to_f32((uint16_t)storage);
    default: return (float)fp_to_f64(t, storage);
  }
}

static inline uint64_t fp_from_f32(shl_dtype t, float f) {
  switch (t) {
    case DT_F32: return fp_f32_bits(f);
    case DT_TF32: return f32_to_tf32(f);
    case DT_BF16: return f32_to_bf16(f);
    case DT_F16: return f32_to_f16(f);
    default: return fp_from_f64(t, (double)f);
  }
}

/* Bulk versions for kernels that compute in f32 (fpconv.c): element i of
 * src (storage of float dtype t) to/from dst.  f16 uses the F16C
 * instructions when the CPU has them; the results are identical. */
void fp_to_f32_n(shl_dtype t, const void *src, float *dst, size_t n);
void fp_from_f32_n(shl_dtype t, const float *src, void *dst, size_t n);
/* The same between float storage and double (exact one way, one rounding
 * the other); the dtype is looked at once per call. */
void fp_to_f64_n(shl_dtype t, const void *src, double *dst, size_t n);
void fp_from_f64_n(shl_dtype t, const double *src, void *dst, size_t n);

/* ---- ULP distance (check.expect_close) ---------------------------------- */

/* Distance in units in the last place between two values of float dtype t:
 * 0 for identical bits or two NaNs; |a-b| on sign-cleared patterns for finite
 * values of one sign and a+b across signs; UINT64_MAX when only one side is
 * finite or for opposite infinities. */
static inline uint64_t fp_ulp_distance(shl_dtype t, uint64_t a_bits, uint64_t b_bits) {
  uint64_t pa = fp_pattern_of(t, a_bits), pb = fp_pattern_of(t, b_bits);
  if (pa == pb) return 0;
  bool an = fp_is_nan(t, a_bits), bn = fp_is_nan(t, b_bits);
  if (an && bn) return 0;
  if (an || bn || fp_is_inf(t, a_bits) || fp_is_inf(t, b_bits)) return UINT64_MAX;
  fp_layout L = fp_layout_of(t);
  unsigned sbit = L.kind == FPK_E8M0 ? 8 : (unsigned)L.ebits + L.mant;
  uint64_t sa = pa >> sbit & 1, sb = pb >> sbit & 1;
  pa &= fp__mask(sbit), pb &= fp__mask(sbit);
  if (sa != sb) return pa + pb;
  return pa > pb ? pa - pb : pb - pa;
}

/* ---- integers ----------------------------------------------------------- */

/* v reduced modulo 2^bits(t): sign-extended for signed types, zero-extended
 * for unsigned ones (ui64 comes back as its bit pattern), 0/1 for i1.
 * i2/i4 are stored as an int8 holding the value, ui2/ui4 as a uint8. */
static inline int64_t int_wrap(shl_dtype t, int64_t v) {
  unsigned bits = dtype_bits(t);
  if (bits >= 64) return v;
  uint64_t u = (uint64_t)v & ((1ull << bits) - 1);
  if (dtype_class(t) == DTC_SINT && (u >> (bits - 1) & 1)) u |= ~0ull << bits;
  return (int64_t)u;
}

/* Smallest and largest values of integer dtype t (ui64's max as a uint64). */
static inline int64_t int_min(shl_dtype t) {
  unsigned bits = dtype_bits(t);
  return dtype_class(t) == DTC_SINT ? (int64_t)(~0ull << (bits - 1)) : 0;
}
static inline uint64_t int_max(shl_dtype t) {
  unsigned bits = dtype_bits(t);
  return dtype_class(t) == DTC_SINT ? fp__mask(bits - 1) : fp__mask(bits);
}

/* ---- conversions across classes (stablehlo.convert, as the reference
 * interpreter does them with APInt/APFloat) ------------------------------- */

/* Integer to integer: anything to i1 is "!= 0"; otherwise wrap (the source
 * value sign- or zero-extended by its own type, then truncated). */
static inline int64_t int_convert(shl_dtype to, int64_t v) {
  return dtype_class(to) == DTC_BOOL ? v != 0 : int_wrap(to, v);
}

/* Unsigned integer (sign = 0) or the magnitude of a negative one (sign = 1)
 * to float dtype t, rounded once to nearest-even. */
static inline uint64_t fp_from_int_mag(shl_dtype t, bool neg, uint64_t mag) {
  if (t == DT_F64) {
    double d = (double)mag;
    return fp_f64_bits(neg ? -d : d);
  }
  if (t == DT_F32) {
    float f = (float)mag;
    return fp_f32_bits(neg ? -f : f);
  }
  if (!mag) return fp_from_f64(t, 0.0); /* integer zero is +0 */
  fp_layout L = fp_layout_of(t);
  int q = 0;
  if (mag >> 63) { /* keep 63 bits plus a sticky bit for the rounding */
    mag = (mag >> 1) | (mag & 1);
    q = 1;
  }
  if (L.kind == FPK_E8M0) return neg ? 0xFF : fp__round_e8m0(mag, q);
  return fp__round(L, neg, mag, q) << L.shift;
}
static inline uint64_t fp_from_u64(shl_dtype t, uint64_t v) { return fp_from_int_mag(t, false, v); }
static inline uint64_t fp_from_i64(shl_dtype t, int64_t v) {
  return fp_from_int_mag(t, v < 0, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
}

/* Float value (exact as a double) to integer dtype t: i1 is "!= 0" (NaN is
 * true); otherwise truncate toward zero and saturate to t's range, NaN -> 0
 * (APFloat::convertToInteger).  ui64 results come back as bit patterns. */
static inline int64_t fp_to_int(shl_dtype t, double v) {
  if (dtype_class(t) == DTC_BOOL) return v != 0;
  if (v != v) return 0;
  unsigned bits = dtype_bits(t);
  if (dtype_class(t) == DTC_UINT) {
    if (!(v >= 1.0)) return 0;
    if (v >= (bits >= 64 ? 18446744073709551616.0 : (double)(1ull << bits))) return (int64_t)int_max(t);
    return (int64_t)(uint64_t)v;
  }
  double lim = (double)(1ull << (bits - 1));
  if (v >= lim) return (int64_t)int_max(t);
  if (v <= -lim) return int_min(t);
  return (int64_t)v;
}

/* Little-endian loads/stores of n <= 8 bytes (byte loops: the width comes
 * from a table at run time, and fixed-width copies draw false bounds
 * warnings from gcc when a caller passes a single byte). */
static inline uint64_t scalar__load_le(const void *p, size_t n) {
  const unsigned char *b = p;
  uint64_t u = 0;
  for (size_t i = 0; i < n; i++) u |= (uint64_t)b[i] << (8 * i);
  return u;
}
static inline void scalar__store_le(void *p, size_t n, uint64_t u) {
  unsigned char *b = p;
  for (size_t i = 0; i < n; i++) b[i] = (unsigned char)(u >> (8 * i));
}

/* Loads one element of integer dtype t (sign- or zero-extended, wrapped so
 * stray upper bits in a sub-byte element do not leak).  For generic code;
 * kernels use typed loops. */
static inline int64_t int_load(shl_dtype t, const void *p) {
  return int_wrap(t, (int64_t)scalar__load_le(p, dtype_bytes(t)));
}

/* Stores v wrapped to dtype t (i2/i4 as a sign-extended byte). */
static inline void int_store(shl_dtype t, void *p, int64_t v) {
  scalar__store_le(p, dtype_bytes(t), (uint64_t)int_wrap(t, v));
}

/* Loads/stores one element of float dtype t as its storage bits. */
static inline uint64_t fp_load(shl_dtype t, const void *p) { return scalar__load_le(p, dtype_bytes(t)); }
static inline void fp_store(shl_dtype t, void *p, uint64_t storage) { scalar__store_le(p, dtype_bytes(t), storage); }

#endif
