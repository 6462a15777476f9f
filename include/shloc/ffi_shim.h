/* Runtime support for the C shims that `shloc lower-custom-calls --shim`
 * generates (link libshloc).
 *
 * A lowered module calls each former stablehlo.custom_call as an external
 * function; upstream MLIR's C interface calls `_mlir_ciface_SYM` with
 * pointers to memref descriptors.  The generated shim defines those
 * functions: each converts its descriptors to shloc_shim_memref and calls
 * shloc_shim_call with a static description of the call site, which runs
 * the handler through libshloc's custom-call runtime: the same call frames,
 * attribute encoding (backend_config) and layout handling as `shloc run`.
 *
 * Conventions (what the shim and the compiled code agree on):
 *  - operands are only read; they may have any strides;
 *  - every result is a fresh row-major buffer from aligned_alloc (64-byte
 *    aligned; `allocated` == `aligned`, offset 0) owned by the caller, who
 *    releases it with free(allocated) -- what memref.dealloc lowers to;
 *  - a result that aliases an operand (output_operand_aliases) starts as a
 *    copy of that operand, and the handler sees one buffer for both.
 *
 * Sites are prepared on first use (the handler's metadata query and
 * instantiate stage run then) and live until the process exits.  Calls of one
 * site are serialized by a mutex; different sites may run concurrently. */
#ifndef SHLOC_FFI_SHIM_H
#define SHLOC_FFI_SHIM_H

#include "shloc/shloc.h"
#include "shloc/xla_ffi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One operand or result of a call site. */
typedef struct {
  XLA_FFI_DataType dtype;
  int32_t rank;
  const int64_t *dims;   /* results: the static shape; operands: NULL (read from the memref) */
  const int64_t *layout; /* minor-to-major order the handler expects (`rank` entries); NULL = row-major */
} shloc_shim_buffer;

/* Everything about a call site that the generated code knows statically. */
typedef struct {
  const char *symbol;   /* the external function, for messages */
  const char *target;   /* call_target_name */
  int api_version;      /* 4: typed XLA FFI handler; 1, 2, 3: legacy function */
  const char *config;   /* 4: the backend_config dictionary as MLIR text (empty: no attributes);
                           1..3: the opaque backend_config bytes */
  size_t config_len;
  XLA_FFI_Handler *handler; /* api_version 4 */
  shloc_legacy_fn legacy;   /* api_version 1..3 */
  int32_t n_args, n_rets;
  const shloc_shim_buffer *args, *rets;
  const int32_t *ret_alias; /* per result: the operand it aliases, or -1; NULL when none does */
} shloc_shim_call_desc;

/* A ranked memref descriptor, unpacked (sizes and strides point into the
 * caller's descriptor; both NULL for rank 0). */
typedef struct {
  void *allocated, *aligned;
  int64_t offset;
  int64_t *sizes, *strides;
} shloc_shim_memref;

typedef struct shloc_shim_site shloc_shim_site;

/* Runs the call described by |desc| on |args| (desc->n_args entries) and
 * fills every field of |rets| (desc->n_rets entries; sizes and strides are
 * written through the pointers the caller set).  |site| caches the prepared
 * site between calls: pass the address of a static pointer that starts NULL.
 * Errors (the handler's, or preparing the site) come back as a status naming
 * the symbol and the target; no result is allocated then. */
SHLOC_API shloc_status shloc_shim_call(const shloc_shim_call_desc *desc, shloc_shim_site **site,
                                       const shloc_shim_memref *args, shloc_shim_memref *rets);

#ifdef __cplusplus
}
#endif
#endif
