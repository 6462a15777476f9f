/* A plugin that registers a target and then reports failure: the host must
 * forget the target. */
#include "shloc/xla_ffi.h"

XLA_FFI_Error *shloc_plugin_register(const shloc_plugin_host *host);

static XLA_FFI_Error *unused(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  return NULL;
}

XLA_FFI_Error *shloc_plugin_register(const shloc_plugin_host *host) {
  XLA_FFI_Handler_Bundle bundle = {NULL, NULL, NULL, unused};
  XLA_FFI_Error *err = host->register_handler(host->self, "fail.target", NULL, &bundle, 0);
  if (err) return err;
  return shloc_ffi_errorf(host->api, XLA_FFI_Error_Code_FAILED_PRECONDITION, "plugin refuses to load");
}
