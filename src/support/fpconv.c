/* Array conversions between float storage and f32, for kernels that compute
 * small floats in f32.  The per-element semantics are scalar.h's; this file
 * only adds loops and, for f16, the F16C instructions when the CPU has them. */
#include "scalar.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#include <stdatomic.h>

__attribute__((target("avx,f16c"))) static void f16_to_f32_f16c(const uint16_t *src, float *dst, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(src + i))));
  for (; i < n; i++) dst[i] = _cvtsh_ss(src[i]);
}

__attribute__((target("avx,f16c"))) static void f32_to_f16_f16c(const float *src, uint16_t *dst, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128((__m128i *)(void *)(dst + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
  for (; i < n; i++) dst[i] = (uint16_t)_cvtss_sh(src[i], _MM_FROUND_TO_NEAREST_INT);
}

/* F16C needs the CPU feature and the AVX register state enabled by the OS
 * (OSXSAVE, XCR0 bits 1-2).  cpuid rather than __builtin_cpu_supports: clang 14
 * does not know the "f16c" feature name. */
static bool cpu_has_f16c(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  if (!(c & bit_F16C) || !(c & bit_AVX) || !(c & bit_OSXSAVE)) return false;
  unsigned xcr0_lo, xcr0_hi;
  __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  return (xcr0_lo & 6) == 6;
}

static bool have_f16c(void) {
  static _Atomic int cached = -1;
  int v = atomic_load_explicit(&cached, memory_order_relaxed);
  if (v < 0) {
    v = cpu_has_f16c();
    atomic_store_explicit(&cached, v, memory_order_relaxed);
  }
  return v;
}
#define HAVE_F16C_PATH 1
#endif

/* bf16_to_f32 / f32_to_bf16 without branches, so that the loops vectorise
 * (the same bits for every input; decoder-style bf16 weights are converted
 * on every run). */
static void bf16_to_f32_loop(const uint16_t *restrict s, float *restrict d, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; i++) {
    uint32_t x = (uint32_t)s[i] << 16;
    x |= (x & 0x7FFFFFFFu) > 0x7F800000u ? 0x400000u : 0; /* converting quiets a NaN */
    memcpy(d + i, &x, sizeof x);
  }
}

static void f32_to_bf16_loop(const float *restrict s, uint16_t *restrict d, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; i++) {
    uint32_t x;
    memcpy(&x, s + i, sizeof x);
    uint32_t r = (x + 0x7FFFu + ((x >> 16) & 1)) >> 16, q = (x >> 16) | 0x40;
    d[i] = (uint16_t)((x & 0x7FFFFFFFu) > 0x7F800000u ? q : r);
  }
}

/* Formats without a dedicated loop (f8, f6, f4 and the rest): one loop per
 * dtype, each instantiated with that dtype's constant layout so the
 * compiler folds the layout into the rounding code.  Exactly one of d64 /
 * d32 (s64 / s32) is used: the f32 results are the double rounded, as
 * fp_to_f32 / fp_from_f32 define them.  `flatten` inlines the rounding into
 * each loop: without it these loops measured slower than the per-element
 * code they replace. */
#define FP_LAYOUT_DTYPES(X) \
  X(F16) X(BF16) X(TF32) X(F8E3M4) X(F8E4M3) X(F8E5M2) X(F8E4M3FN) X(F8E4M3FNUZ) X(F8E4M3B11FNUZ) X(F8E5M2FNUZ) \
  X(F8E8M0FNU) X(F6E2M3FN) X(F6E3M2FN) X(F4E2M1FN)

#define LAYOUT_LOOPS(ST)                                                                                   \
  static inline __attribute__((always_inline)) void to_##ST(fp_layout L, const void *src, double *d64,      \
                                                             float *d32, size_t n) {                          \
    const ST *s_ = src;                                                                                     \
    if (d64)                                                                                                \
      for (size_t i = 0; i < n; i++) d64[i] = fp_layout_to_f64(L, s_[i]);                                   \
    else                                                                                                    \
      for (size_t i = 0; i < n; i++) d32[i] = (float)fp_layout_to_f64(L, s_[i]);                            \
  }                                                                                                         \
  static inline __attribute__((always_inline)) void from_##ST(fp_layout L, const double *s64,               \
                                                               const float *s32, void *dst, size_t n) {      \
    ST *d_ = dst;                                                                                           \
    if (s64)                                                                                                \
      for (size_t i = 0; i < n; i++) d_[i] = (ST)fp_layout_from_f64(L, s64[i]);                             \
    else                                                                                                    \
      for (size_t i = 0; i < n; i++) d_[i] = (ST)fp_layout_from_f64(L, (double)s32[i]);                     \
  }
LAYOUT_LOOPS(uint8_t)
LAYOUT_LOOPS(uint16_t)
LAYOUT_LOOPS(uint32_t)

/* The storage type of each: f16/bf16 2 bytes, tf32 4, the rest 1. */
#define LAYOUT_ST(T) (dtype_bytes(DT_##T) == 2 ? 2 : dtype_bytes(DT_##T) == 4 ? 4 : 1)

#define TO_CASE(T)                                                              \
  case DT_##T:                                                                  \
    if (LAYOUT_ST(T) == 2) to_uint16_t(fp_layout_of(DT_##T), src, d64, d32, n); \
    else if (LAYOUT_ST(T) == 4) to_uint32_t(fp_layout_of(DT_##T), src, d64, d32, n); \
    else to_uint8_t(fp_layout_of(DT_##T), src, d64, d32, n);                    \
    return;
#define FROM_CASE(T)                                                                \
  case DT_##T:                                                                      \
    if (LAYOUT_ST(T) == 2) from_uint16_t(fp_layout_of(DT_##T), s64, s32, dst, n);   \
    else if (LAYOUT_ST(T) == 4) from_uint32_t(fp_layout_of(DT_##T), s64, s32, dst, n); \
    else from_uint8_t(fp_layout_of(DT_##T), s64, s32, dst, n);                      \
    return;

__attribute__((flatten)) static void layout_to(shl_dtype t, const void *src, double *d64, float *d32, size_t n) {
  switch (t) {
    FP_LAYOUT_DTYPES(TO_CASE)
    default: return;
  }
}

__attribute__((flatten)) static void layout_from(shl_dtype t, const double *s64, const float *s32, void *dst, size_t n) {
  switch (t) {
    FP_LAYOUT_DTYPES(FROM_CASE)
    default: return;
  }
}

void fp_to_f32_n(shl_dtype t, const void *src, float *dst, size_t n) {
  switch (t) {
    case DT_F16: {
      const uint16_t *s = src;
#ifdef HAVE_F16C_PATH
      if (have_f16c()) {
        f16_to_f32_f16c(s, dst, n);
        return;
      }
#endif
      for (size_t i = 0; i < n; i++) dst[i] = f16_to_f32(s[i]);
      return;
    }
    case DT_BF16: bf16_to_f32_loop(src, dst, n); return;
    case DT_F32: memcpy(dst, src, n * sizeof *dst); return;
    case DT_TF32: {
      const uint32_t *s = src;
      for (size_t i = 0; i < n; i++) dst[i] = fp_bits_f32(s[i] & ~0x1FFFu);
      return;
    }
    case DT_F64: {
      const double *s = src;
      for (size_t i = 0; i < n; i++) dst[i] = (float)s[i];
      return;
    }
    default: layout_to(t, src, NULL, dst, n); return;
  }
}

void fp_from_f32_n(shl_dtype t, const float *src, void *dst, size_t n) {
  switch (t) {
    case DT_F16: {
      uint16_t *d = dst;
#ifdef HAVE_F16C_PATH
      if (have_f16c()) {
        f32_to_f16_f16c(src, d, n);
        return;
      }
#endif
      for (size_t i = 0; i < n; i++) d[i] = f32_to_f16(src[i]);
      return;
    }
    case DT_BF16: f32_to_bf16_loop(src, dst, n); return;
    case DT_F32: memcpy(dst, src, n * sizeof *src); return;
    case DT_TF32: {
      uint32_t *d = dst;
      for (size_t i = 0; i < n; i++) d[i] = f32_to_tf32(src[i]);
      return;
    }
    case DT_F64: {
      double *d = dst;
      for (size_t i = 0; i < n; i++) d[i] = src[i];
      return;
    }
    default: layout_from(t, NULL, src, dst, n); return;
  }
}

void fp_to_f64_n(shl_dtype t, const void *src, double *dst, size_t n) {
  if (t == DT_F64) {
    memcpy(dst, src, n * sizeof *dst);
  } else if (t == DT_F32) {
    const float *s = src;
    for (size_t i = 0; i < n; i++) dst[i] = s[i];
  } else {
    layout_to(t, src, dst, NULL, n);
  }
}

void fp_from_f64_n(shl_dtype t, const double *src, void *dst, size_t n) {
  if (t == DT_F64) {
    memcpy(dst, src, n * sizeof *src);
  } else if (t == DT_F32) {
    float *d = dst;
    for (size_t i = 0; i < n; i++) d[i] = (float)src[i];
  } else {
    layout_from(t, src, NULL, dst, n);
  }
}
