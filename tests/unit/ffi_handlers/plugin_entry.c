/* A shloc plugin: registers one typed and one legacy handler through the
 * host table passed to shloc_plugin_register. */
#include <stdint.h>

#include "shloc/xla_ffi.h"

XLA_FFI_Error *shloc_plugin_register(const shloc_plugin_host *host);

static XLA_FFI_Error *seven(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  *(int32_t *)shloc_ffi_ret(cf, 0)->data = 7;
  return NULL;
}

static void eight_v1(void *out, const void **in) {
  (void)in;
  *(int32_t *)out = 8;
}

XLA_FFI_Error *shloc_plugin_register(const shloc_plugin_host *host) {
  if (host->abi_version < 1 || host->struct_size < sizeof(shloc_plugin_host))
    return shloc_ffi_errorf(host->api, XLA_FFI_Error_Code_FAILED_PRECONDITION, "host too old");
  XLA_FFI_Handler_Bundle bundle = {NULL, NULL, NULL, seven};
  XLA_FFI_Error *err = host->register_handler(host->self, "plugin.typed", "cpu", &bundle, 0);
  if (err) return err;
  return host->register_legacy(host->self, "plugin.legacy", "Host", (shloc_legacy_fn)eight_v1);
}
