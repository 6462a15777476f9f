/* stablehlo.custom_call through the custom-call registry (src/ffi): what
 * the custom_call kernel delegates to for targets that are not built in. */
#ifndef SHLOC_EXEC_KERNELS_FFI_CALL_H
#define SHLOC_EXEC_KERNELS_FFI_CALL_H

#include "exec/exec.h"
#include "ffi/ffi.h"

/* Decodes the op's configuration (api_version, backend_config, layouts,
 * aliases), prepares the call site (attributes encoded and instantiate run
 * once, here) and registers its release with the executable.  A target
 * missing from the registry gives SHLOC_ERR_NOT_FOUND "no handler registered
 * for custom call target ...". */
shl_status ffi_call_prepare(plan_ctx *pc, const shl_op *op, void **params);
/* Moves operands into the layouts the handler asked for, calls it, and moves
 * results back to row-major. */
shl_status ffi_call_run(void *params, shl_buf *const *in, shl_buf *const *out);

/* Adds the entries of a backend_config dictionary to `a`, converted the way
 * XLA converts MLIR attributes to FFI attributes (mlir-attr-to-ffi.md);
 * anything XLA rejects is an error naming the attribute. */
shl_status ffi_attrs_from_dict(ffi_attrs *a, const shl_attr *dict);

#endif
