/* A library that registers its handler the XLA way: from a static
 * initialiser, through XLA_FFI_GetApi() (imported from the host). */
#include <stdint.h>
#include <string.h>

#include "shloc/xla_ffi.h"

static XLA_FFI_Error *nine(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  *(int32_t *)shloc_ffi_ret(cf, 0)->data = 9;
  return NULL;
}

__attribute__((constructor)) static void register_at_load(void) {
  const XLA_FFI_Api *api = XLA_FFI_GetApi();
  XLA_FFI_Handler_Register_Args args;
  memset(&args, 0, sizeof args);
  args.struct_size = XLA_FFI_Handler_Register_Args_STRUCT_SIZE;
  args.name = (XLA_FFI_ByteSpan){"static.typed", 12};
  args.platform = (XLA_FFI_ByteSpan){"HOST", 4};
  args.bundle.execute = nine;
  XLA_FFI_Error *err = api->XLA_FFI_Handler_Register(&args);
  if (err) shloc_ffi_error_destroy(api, err); /* as XLA's macro does: nowhere to report */
}
