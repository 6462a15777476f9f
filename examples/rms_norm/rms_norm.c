/* RMS normalization as an XLA FFI handler, in plain C against shloc's
 * include/shloc/xla_ffi.h (binary compatible with XLA's own FFI C API, so the
 * same library also loads in JAX through jax.ffi.register_ffi_target).
 *
 *     y[..., j] = x[..., j] / sqrt(mean_k(x[..., k]^2) + eps)
 *
 * over the last dimension, for f32 and f64.  `eps` comes from the call's
 * attributes: an f32 scalar (what JAX emits for np.float32(eps)) or an f64
 * scalar (a plain Python float).
 *
 * Build: cc -O2 -fPIC -shared -I../../include rms_norm.c -o librms_norm.so -lm */
#include <math.h>

#include "shloc/xla_ffi.h"

#define RMS_NORM_ROWS(T)                                                          \
  static void rms_norm_##T(const T *x, T *y, int64_t rows, int64_t cols, T eps) { \
    for (int64_t r = 0; r < rows; r++) {                                          \
      const T *xr = x + r * cols;                                                 \
      T *yr = y + r * cols;                                                       \
      T sum = 0;                                                                  \
      for (int64_t j = 0; j < cols; j++) sum += xr[j] * xr[j];                    \
      T scale = (T)1 / (T)sqrt((double)(sum / (T)cols + eps));                    \
      for (int64_t j = 0; j < cols; j++) yr[j] = xr[j] * scale;                   \
    }                                                                             \
  }
RMS_NORM_ROWS(float)
RMS_NORM_ROWS(double)

__attribute__((visibility("default"))) XLA_FFI_Error *rms_norm(XLA_FFI_CallFrame *cf);

XLA_FFI_Error *rms_norm(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  const XLA_FFI_Buffer *x = shloc_ffi_arg(cf, 0);
  XLA_FFI_Buffer *y = shloc_ffi_ret(cf, 0);
  if (cf->args.size != 1 || cf->rets.size != 1 || !x || !y)
    return shloc_ffi_errorf(cf->api, XLA_FFI_Error_Code_INVALID_ARGUMENT, "rms_norm takes one buffer and returns one");
  if (x->dtype != y->dtype || x->rank != y->rank || x->rank < 1)
    return shloc_ffi_errorf(cf->api, XLA_FFI_Error_Code_INVALID_ARGUMENT,
                            "rms_norm needs an input of rank >= 1 and an output of the same type");
  float eps32;
  double eps = 1e-6;
  if (shloc_ffi_attr_get_f32(&cf->attrs, "eps", &eps32))
    eps = eps32;
  else if (!shloc_ffi_attr_get_f64(&cf->attrs, "eps", &eps))
    return shloc_ffi_errorf(cf->api, XLA_FFI_Error_Code_INVALID_ARGUMENT, "rms_norm needs an f32 or f64 attribute 'eps'");
  int64_t cols = x->dims[x->rank - 1];
  int64_t n = shloc_ffi_buffer_elements(x);
  int64_t rows = cols ? n / cols : 0;
  switch (x->dtype) {
    case XLA_FFI_DataType_F32: rms_norm_float(x->data, y->data, rows, cols, (float)eps); return NULL;
    case XLA_FFI_DataType_F64: rms_norm_double(x->data, y->data, rows, cols, eps); return NULL;
    default:
      return shloc_ffi_errorf(cf->api, XLA_FFI_Error_Code_UNIMPLEMENTED, "rms_norm supports f32 and f64, not dtype %d",
                              (int)x->dtype);
  }
}
