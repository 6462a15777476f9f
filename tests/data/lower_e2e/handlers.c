/* Handlers for conventions.mlir (tests/cli/lower_e2e.sh). */
#include <string.h>

#include "shloc/xla_ffi.h"

XLA_FFI_Handler record, split, inc;
void legacy_neg(void *out, const void **in);

/* record: appends (tag, first element) to a log the driver reads. */
int record_log_n;
long long record_log_tag[8];
float record_log_x0[8];

XLA_FFI_Error *record(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  int64_t tag;
  if (!shloc_ffi_attr_get_i64(&cf->attrs, "tag", &tag) || record_log_n == 8)
    return shloc_ffi_errorf(cf->api, XLA_FFI_Error_Code_INVALID_ARGUMENT, "record: no tag");
  record_log_tag[record_log_n] = tag;
  record_log_x0[record_log_n++] = *(const float *)shloc_ffi_arg(cf, 0)->data;
  return NULL;
}

/* split: copies the operand's bytes (column-major on both sides, so the
 * values come back unchanged) and returns the element count. */
XLA_FFI_Error *split(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  const XLA_FFI_Buffer *x = shloc_ffi_arg(cf, 0);
  XLA_FFI_Buffer *y = shloc_ffi_ret(cf, 0), *n = shloc_ffi_ret(cf, 1);
  if (!x || !y || !n || n->dtype != XLA_FFI_DataType_S64 || n->rank != 0)
    return shloc_ffi_errorf(cf->api, XLA_FFI_Error_Code_INVALID_ARGUMENT, "split: bad buffers");
  /* Column-major 2x3: element (i, j) at j * 2 + i; (0, 1) is 2.0 in the driver's input. */
  if (((const float *)x->data)[2] != 2.0f)
    return shloc_ffi_errorf(cf->api, XLA_FFI_Error_Code_INVALID_ARGUMENT, "split: operand is not column-major");
  memcpy(y->data, x->data, (size_t)shloc_ffi_buffer_elements(x) * sizeof(float));
  *(int64_t *)n->data = shloc_ffi_buffer_elements(x);
  return NULL;
}

/* inc: adds 1 in place (operand and result are one buffer). */
XLA_FFI_Error *inc(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  XLA_FFI_Buffer *x = shloc_ffi_arg(cf, 0), *y = shloc_ffi_ret(cf, 0);
  if (x->data != y->data) return shloc_ffi_errorf(cf->api, XLA_FFI_Error_Code_INTERNAL, "inc: not aliased");
  for (int64_t i = 0; i < shloc_ffi_buffer_elements(y); i++) ((float *)y->data)[i] += 1;
  return NULL;
}

/* Legacy api_version 1: out = -in[0] over 6 floats. */
void legacy_neg(void *out, const void **in) {
  for (int i = 0; i < 6; i++) ((float *)out)[i] = -((const float *)in[0])[i];
}
