/* Bulk conversions for the linear-algebra kernels (see kconvert.h). */
#include "kconvert.h"

#include "support/cmplx.h"

#include "ew_common.h"
#include "support/scalar.h"

ku_ck ku_ck_of(shl_dtype t) {
  switch (t) {
    case DT_F64: return CK_F64;
    case DT_C64: return CK_C64;
    case DT_C128: return CK_C128;
    default: break;
  }
  if (dtype_is_float(t)) return CK_F32;
  if (dtype_is_int(t)) return CK_INT;
  return CK_NONE;
}

size_t ku_ck_bytes(ku_ck ck) {
  switch (ck) {
    case CK_F32: return 4;
    case CK_C64: return 8;
    case CK_C128: return 16;
    default: return 8;
  }
}

/* Integers of dtype t to f32, f64 or i64 (CK_INT), a chunk at a time
 * through the elementwise kernels' typed loads. */
static void ints_to(ku_ck ck, shl_dtype t, const void *src, void *dst, int64_t n) {
  bool u = dtype_class(t) != DTC_SINT;
  int64_t v[EW_CHUNK];
  for (int64_t off = 0; off < n; off += EW_CHUNK) {
    int m = (int)(n - off < EW_CHUNK ? n - off : EW_CHUNK);
    ew_load_int(t, src, off, m, v);
    if (ck == CK_F32) {
      float *d = (float *)dst + off;
      for (int i = 0; i < m; i++) d[i] = u ? (float)(uint64_t)v[i] : (float)v[i];
    } else if (ck == CK_F64) {
      double *d = (double *)dst + off;
      for (int i = 0; i < m; i++) d[i] = u ? (double)(uint64_t)v[i] : (double)v[i];
    } else {
      memcpy((int64_t *)dst + off, v, (size_t)m * sizeof *v);
    }
  }
}

bool ku_to_ck(ku_ck ck, shl_dtype t, const void *src, void *dst, int64_t n) {
  switch (ck) {
    case CK_F32: {
      if (dtype_is_float(t)) fp_to_f32_n(t, src, dst, (size_t)n);
      else if (dtype_is_int(t)) ints_to(ck, t, src, dst, n);
      else return false;
      return true;
    }
    case CK_F64:
      if (dtype_is_complex(t) || t == DT_QUANT) return false;
      if (dtype_is_float(t)) fp_to_f64_n(t, src, dst, (size_t)n);
      else ints_to(ck, t, src, dst, n);
      return true;
    case CK_C64: {
      float complex *d = dst;
      if (t == DT_C64) memcpy(d, src, (size_t)n * 8);
      else if (t == DT_C128)
        for (int64_t i = 0; i < n; i++) d[i] = (float complex)((const double complex *)src)[i];
      else if (t == DT_F32)
        for (int64_t i = 0; i < n; i++) d[i] = ((const float *)src)[i];
      else return false;
      return true;
    }
    case CK_C128: {
      double complex *d = dst;
      if (t == DT_C128) memcpy(d, src, (size_t)n * 16);
      else if (t == DT_C64)
        for (int64_t i = 0; i < n; i++) d[i] = ((const float complex *)src)[i];
      else if (t == DT_F64)
        for (int64_t i = 0; i < n; i++) d[i] = ((const double *)src)[i];
      else return false;
      return true;
    }
    case CK_INT: {
      if (!dtype_is_int(t)) return false;
      ints_to(ck, t, src, dst, n);
      return true;
    }
    default: return false;
  }
}

void ku_from_ck(ku_ck ck, shl_dtype t, const void *src, void *dst, int64_t n) {
  switch (ck) {
    case CK_F32: fp_from_f32_n(t, src, dst, (size_t)n); break;
    case CK_F64: fp_from_f64_n(t, src, dst, (size_t)n); break;
    case CK_C64: memcpy(dst, src, (size_t)n * 8); break;
    case CK_C128: memcpy(dst, src, (size_t)n * 16); break;
    case CK_INT: {
      const int64_t *s = src;
      if (t == DT_I1) {
        uint8_t *d = dst;
        for (int64_t i = 0; i < n; i++) d[i] = s[i] != 0;
        break;
      }
      for (int64_t off = 0; off < n; off += EW_CHUNK)
        ew_store_int(t, s + off, dst, off, (int)(n - off < EW_CHUNK ? n - off : EW_CHUNK));
      break;
    }
    default: break;
  }
}

bool ku_convert(shl_dtype from, shl_dtype to, const void *src, void *dst, int64_t n) {
  ku_ck ck = ku_ck_of(to);
  if (ck == CK_NONE) return false;
  enum { CHUNK = 4096 };
  _Alignas(16) uint8_t tmp[CHUNK * 16]; /* CHUNK values of the widest compute type */
  size_t fb = dtype_bytes(from), tb = dtype_bytes(to);
  for (int64_t i = 0; i < n; i += CHUNK) {
    int64_t m = n - i < CHUNK ? n - i : CHUNK;
    if (!ku_to_ck(ck, from, (const uint8_t *)src + (size_t)i * fb, tmp, m)) return false;
    ku_from_ck(ck, to, tmp, (uint8_t *)dst + (size_t)i * tb, m);
  }
  return true;
}
