/* Chunk loads and stores of the elementwise kernels (see ew_common.h).  The
 * dtype switch sits outside each loop. */
#include "ew_common.h"

#include "support/scalar.h"

#define LOAD_LOOP(CT)                                    \
  do {                                                   \
    const CT *s_ = (const CT *)src + off;                \
    for (int i = 0; i < n; i++) dst[i] = (int64_t)s_[i]; \
  } while (0)

void ew_load_int(shl_dtype dt, const void *src, int64_t off, int n, int64_t *dst) {
  bool sgn = dtype_is_signed(dt);
  switch (dtype_bytes(dt)) {
    case 1:
      if (sgn)
        LOAD_LOOP(int8_t);
      else
        LOAD_LOOP(uint8_t);
      break;
    case 2:
      if (sgn)
        LOAD_LOOP(int16_t);
      else
        LOAD_LOOP(uint16_t);
      break;
    case 4:
      if (sgn)
        LOAD_LOOP(int32_t);
      else
        LOAD_LOOP(uint32_t);
      break;
    default:
      LOAD_LOOP(int64_t);
      break;
  }
  if (dtype_bits(dt) < 8 * dtype_bytes(dt)) /* i1, i2, i4, ui2, ui4: drop stray upper bits */
    for (int i = 0; i < n; i++) dst[i] = int_wrap(dt, dst[i]);
}

#define STORE_LOOP(CT)                                        \
  do {                                                        \
    CT *d_ = (CT *)dst + off;                                 \
    for (int i = 0; i < n; i++) d_[i] = (CT)(uint64_t)src[i]; \
  } while (0)

void ew_store_int(shl_dtype dt, const int64_t *src, void *dst, int64_t off, int n) {
  if (dtype_bits(dt) < 8 * dtype_bytes(dt)) {
    uint8_t *d = (uint8_t *)dst + off;
    for (int i = 0; i < n; i++) d[i] = (uint8_t)int_wrap(dt, src[i]);
    return;
  }
  switch (dtype_bytes(dt)) {
    case 1:
      STORE_LOOP(uint8_t);
      break;
    case 2:
      STORE_LOOP(uint16_t);
      break;
    case 4:
      STORE_LOOP(uint32_t);
      break;
    default:
      STORE_LOOP(uint64_t);
      break;
  }
}

void ew_load_real(shl_dtype dt, const void *src, int64_t off, int n, double *dst) {
  switch (dt) {
    case DT_F64:
      memcpy(dst, (const double *)src + off, (size_t)n * sizeof(double));
      return;
    case DT_F32:
    case DT_TF32: {
      const float *s = (const float *)src + off;
      for (int i = 0; i < n; i++) dst[i] = s[i];
      return;
    }
    default: {
      float tmp[EW_CHUNK];
      fp_to_f32_n(dt, (const uint8_t *)src + (size_t)off * dtype_bytes(dt), tmp, (size_t)n);
      for (int i = 0; i < n; i++) dst[i] = tmp[i];
      return;
    }
  }
}

void ew_store_real(shl_dtype dt, const double *src, void *dst, int64_t off, int n) {
  switch (dt) {
    case DT_F64:
      memcpy((double *)dst + off, src, (size_t)n * sizeof(double));
      return;
    case DT_F32: {
      float *d = (float *)dst + off;
      for (int i = 0; i < n; i++) d[i] = (float)src[i];
      return;
    }
    default: {
      float tmp[EW_CHUNK];
      for (int i = 0; i < n; i++) tmp[i] = (float)src[i];
      fp_from_f32_n(dt, tmp, (uint8_t *)dst + (size_t)off * dtype_bytes(dt), (size_t)n);
      return;
    }
  }
}

void ew_store_real_exact(shl_dtype dt, const double *src, void *dst, int64_t off, int n) {
  fp_from_f64_n(dt, src, (uint8_t *)dst + (size_t)off * dtype_bytes(dt), (size_t)n);
}

void ew_load_cplx(shl_dtype dt, const void *src, int64_t off, int n, double complex *dst) {
  if (dt == DT_C128) {
    const double *s = (const double *)src + 2 * off;
    for (int i = 0; i < n; i++) dst[i] = CMPLX(s[2 * i], s[2 * i + 1]);
  } else {
    const float *s = (const float *)src + 2 * off;
    for (int i = 0; i < n; i++) dst[i] = CMPLX((double)s[2 * i], (double)s[2 * i + 1]);
  }
}

void ew_store_cplx(shl_dtype dt, const double complex *src, void *dst, int64_t off, int n) {
  if (dt == DT_C128) {
    double *d = (double *)dst + 2 * off;
    for (int i = 0; i < n; i++) {
      d[2 * i] = creal(src[i]);
      d[2 * i + 1] = cimag(src[i]);
    }
  } else {
    float *d = (float *)dst + 2 * off;
    for (int i = 0; i < n; i++) {
      d[2 * i] = (float)creal(src[i]);
      d[2 * i + 1] = (float)cimag(src[i]);
    }
  }
}

shl_str ew_enum_value(const shl_op *op, const char *name) {
  const shl_attr *a = op_attr(op, name);
  if (a && a->kind == AT_ENUM) return a->u.en.value;
  return (shl_str){"", 0};
}
