/* C shim generator: for a module lowered by pass_lower_custom_calls, writes
 * C source defining `_mlir_ciface_SYM` for every external declaration that
 * carries the custom call's attributes (PASS_CUSTOM_CALL_ATTR).
 *
 * Each function has the signature upstream MLIR's C interface gives a
 * declaration with memref arguments and results (after one-shot
 * bufferization): a pointer to the result descriptor first when there is one
 * result, a pointer to a struct of result descriptors when there are several,
 * then one descriptor pointer per operand.  A ranked descriptor is
 * {allocated, aligned, offset, sizes[rank], strides[rank]} (rank 0: the first
 * three).  The body calls shloc_shim_call (shloc/ffi_shim.h, in libshloc)
 * with a static description of the call site: the handler symbol, api_version,
 * the backend_config (typed: the dictionary as MLIR text, encoded at first
 * use by the executor's own conversion; legacy: the opaque bytes), element
 * types, result shapes, operand/result layouts and output_operand_aliases.
 *
 * Errors are reported on stderr, then the process aborts: code compiled by
 * upstream MLIR cannot receive an error from a call, and continuing would
 * hand uninitialized results to it. */
#ifndef SHLOC_CODEGEN_SHIM_H
#define SHLOC_CODEGEN_SHIM_H

#include "ir/ir.h"
#include "shloc/lower.h"

/* `--ffi TARGET=SYMBOL`: the C function implementing TARGET. */
typedef shloc_shim_binding shim_binding;

typedef struct {
  const shim_binding *ffi; /* targets without a binding use their sanitized name */
  size_t n_ffi;
  const char *source; /* input file named in the banner; NULL = none */
} shim_options;

/* Writes the shim for `m` into *out (malloc'd, NUL-terminated).  Errors:
 * a declaration the shim cannot implement (dynamic result shape, element
 * type without an XLA FFI equivalent, backend_config the FFI cannot carry,
 * malformed layouts or aliases), a binding whose target no declaration uses
 * (SHLOC_ERR_NOT_FOUND), a symbol that is not a C identifier. */
shl_status shim_emit(shloc_module *m, const shim_options *opts, char **out, size_t *out_len);

/* True when `s` is a C identifier ([A-Za-z_][A-Za-z0-9_]*). */
bool shim_is_c_identifier(shl_str s);

#endif
