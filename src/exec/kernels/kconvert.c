/* Bulk conversions for the linear-algebra kernels (see kconvert.h). */
#include "kconvert.h"

#include "support/cmplx.h"

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

static void to_f64(shl_dtype t, const void *src, double *d, int64_t n) {
  size_t sz = dtype_bytes(t);
  const uint8_t *s = src;
  if (dtype_is_float(t)) fp_to_f64_n(t, src, d, (size_t)n);
  else if (dtype_class(t) == DTC_UINT)
    for (int64_t i = 0; i < n; i++) d[i] = (double)(uint64_t)int_load(t, s + (size_t)i * sz);
  else
    for (int64_t i = 0; i < n; i++) d[i] = (double)int_load(t, s + (size_t)i * sz);
}

bool ku_to_ck(ku_ck ck, shl_dtype t, const void *src, void *dst, int64_t n) {
  size_t sz = dtype_bytes(t);
  const uint8_t *s = src;
  switch (ck) {
    case CK_F32: {
      float *d = dst;
      if (dtype_is_float(t)) fp_to_f32_n(t, src, d, (size_t)n);
      else if (dtype_is_int(t)) {
        bool u = dtype_class(t) != DTC_SINT;
        for (int64_t i = 0; i < n; i++) {
          int64_t v = int_load(t, s + (size_t)i * sz);
          d[i] = u ? (float)(uint64_t)v : (float)v;
        }
      } else return false;
      return true;
    }
    case CK_F64:
      if (dtype_is_complex(t) || t == DT_QUANT) return false;
      to_f64(t, src, dst, n);
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
      uint64_t *d = dst;
      if (!dtype_is_int(t)) return false;
      for (int64_t i = 0; i < n; i++) d[i] = (uint64_t)int_load(t, s + (size_t)i * sz);
      return true;
    }
    default: return false;
  }
}

void ku_from_ck(ku_ck ck, shl_dtype t, const void *src, void *dst, int64_t n) {
  size_t sz = dtype_bytes(t);
  uint8_t *d = dst;
  switch (ck) {
    case CK_F32: fp_from_f32_n(t, src, dst, (size_t)n); break;
    case CK_F64: fp_from_f64_n(t, src, dst, (size_t)n); break;
    case CK_C64: memcpy(dst, src, (size_t)n * 8); break;
    case CK_C128: memcpy(dst, src, (size_t)n * 16); break;
    case CK_INT: {
      const uint64_t *s = src;
      if (t == DT_I1)
        for (int64_t i = 0; i < n; i++) d[i] = s[i] != 0;
      else
        for (int64_t i = 0; i < n; i++) int_store(t, d + (size_t)i * sz, (int64_t)s[i]);
      break;
    }
    default: break;
  }
}
