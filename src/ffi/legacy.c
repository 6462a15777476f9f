/* Legacy (untyped) custom calls and the XlaCustomCallStatus symbols that
 * handler libraries import.  The executable must export these (link with
 * -rdynamic) for dlopen'ed handlers to resolve them. */
#include <stdlib.h>
#include <string.h>

#include "ffi/ffi_impl.h"

/* One per call, on the caller's stack; starts as success. */
struct XlaCustomCallStatus_ {
  bool failed;
  char *message; /* owned; NULL when the failure had no message or on OOM */
};

SHLOC_API void XlaCustomCallStatusSetSuccess(XlaCustomCallStatus *status) {
  free(status->message);
  status->message = NULL;
  status->failed = false;
}

SHLOC_API void XlaCustomCallStatusSetFailure(XlaCustomCallStatus *status, const char *message, size_t message_len) {
  free(status->message);
  size_t len = message ? strnlen(message, message_len) : 0;
  status->message = ffi_strndup(message ? message : "", len);
  status->failed = true;
}

shl_status ffi_legacy_call(int api_version, shloc_legacy_fn fn, void *out, const void **in, const char *opaque,
                           size_t opaque_len, const char *target) {
  XlaCustomCallStatus status = {false, NULL};
  switch (api_version) {
    case 1: ((shloc_custom_call_v1 *)fn)(out, in); break;
    case 2: ((shloc_custom_call_v2 *)fn)(out, in, &status); break;
    default: ((shloc_custom_call_v3 *)fn)(out, in, opaque, opaque_len, &status); break;
  }
  if (!status.failed) return NULL;
  shl_status st = st_error(SHLOC_ERR_RUNTIME, NULL, NULL, "custom call '%s': %s", target,
                           status.message ? status.message : "failed (no message)");
  free(status.message);
  return st;
}
