/* stablehlo.custom_call through the custom-call registry (src/ffi): what
 * the custom_call kernel delegates to for targets that are not built in. */
#ifndef SHLOC_EXEC_KERNELS_FFI_CALL_H
#define SHLOC_EXEC_KERNELS_FFI_CALL_H

#include "exec/exec.h"
#include "ffi/ffi.h"

/* What XLA reads from a custom call's attributes to pick the ABI: a
 * dictionary in `mhlo.backend_config` (JAX's spelling) or `backend_config`
 * means typed FFI; an api_version 4 string backend_config is a dictionary
 * written as MLIR text ("" and "{}": none); otherwise backend_config is the
 * legacy opaque string. */
typedef struct {
  int api_version;      /* 1..4 */
  const shl_attr *dict; /* typed FFI attributes, or NULL */
  shl_str opaque;       /* legacy backend_config bytes */
} ffi_call_config;

/* Decodes api_version, backend_config and mhlo.backend_config (each may be
 * NULL).  Errors carry no position; the executor and the C shim generator
 * add their own. */
shl_status ffi_call_config_decode(shloc_module *m, const shl_attr *api_version, const shl_attr *backend_config,
                                  const shl_attr *mhlo_backend_config, ffi_call_config *out);

/* Decodes the op's configuration (api_version, backend_config, layouts,
 * aliases), prepares the call site (attributes encoded and instantiate run
 * once, here) and registers its release with the executable.  A target
 * missing from the registry gives SHLOC_ERR_NOT_FOUND "no handler registered
 * for custom call target ...". */
shl_status ffi_call_prepare(plan_ctx *pc, const shl_op *op, void **params);
/* Moves operands into the layouts the handler asked for, calls it, and moves
 * results back to row-major. */
shl_status ffi_call_run(exec_ctx *ec, void *params, shl_buf *const *in, shl_buf *const *out);

/* Adds the entries of a backend_config dictionary to `a`, converted the way
 * XLA converts MLIR attributes to FFI attributes (mlir-attr-to-ffi.md);
 * anything XLA rejects is an error naming the attribute. */
shl_status ffi_attrs_from_dict(ffi_attrs *a, const shl_attr *dict);

#endif
