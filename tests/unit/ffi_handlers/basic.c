/* Handlers exported as plain symbols, for "LIB:SYMBOL" loading tests. */
#include <stdint.h>

#include "shloc/xla_ffi.h"

void basic_triple_v2(void *out, const void **in, XlaCustomCallStatus *status);
XLA_FFI_Error *basic_scale(XLA_FFI_CallFrame *cf);

/* Legacy v2: out = 3 * in0 (i32); negative input fails through the status
 * functions the host exports. */
void basic_triple_v2(void *out, const void **in, XlaCustomCallStatus *status) {
  int32_t x = *(const int32_t *)in[0];
  if (x < 0) {
    XlaCustomCallStatusSetFailure(status, "basic_triple_v2: negative", 25);
    return;
  }
  *(int32_t *)out = 3 * x;
}

/* Typed: ret0 = arg0 * factor (f32 buffers, f32 attribute "factor"). */
XLA_FFI_Error *basic_scale(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  float factor;
  if (!shloc_ffi_attr_get_f32(&cf->attrs, "factor", &factor))
    return shloc_ffi_errorf(cf->api, XLA_FFI_Error_Code_INVALID_ARGUMENT, "basic_scale: no f32 attribute 'factor'");
  XLA_FFI_Buffer *x = shloc_ffi_arg(cf, 0), *y = shloc_ffi_ret(cf, 0);
  if (!x || !y || x->dtype != XLA_FFI_DataType_F32 || y->dtype != XLA_FFI_DataType_F32)
    return shloc_ffi_errorf(cf->api, XLA_FFI_Error_Code_INVALID_ARGUMENT, "basic_scale: expects f32 buffers");
  int64_t n = shloc_ffi_buffer_elements(x);
  for (int64_t i = 0; i < n; i++) ((float *)y->data)[i] = ((const float *)x->data)[i] * factor;
  return NULL;
}
