/* shloc public API: lowering passes and the C shims of lowered custom calls.
 *
 * Each pass takes a verified module.  See README, "Lowering custom calls"
 * and "Compiling through upstream MLIR". */
#ifndef SHLOC_LOWER_H
#define SHLOC_LOWER_H

#include "shloc/shloc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Replaces each stablehlo.custom_call @T(...) with `func.call @S(...)` and
 * declares `func.func private @S(...)` with llvm.emit_c_interface (S is T
 * with characters other than [A-Za-z0-9_] replaced by '_', plus '_N' when
 * taken); the op's attributes move to the declaration's shloc.custom_call
 * dictionary.  `targets` (n_targets names; none = all) limits the calls
 * lowered; found[i] (when `found` is not NULL) tells whether any call of
 * targets[i] was.  The module is changed in place: verify it again before
 * printing. */
SHLOC_API shloc_status shloc_lower_custom_calls(shloc_module *m, const char *const *targets, size_t n_targets,
                                                bool *found);

/* A static StableHLO program as upstream MLIR dialects (func, arith, math,
 * tensor, linalg, scf) that mlir-opt-22 parses.  Custom calls are first
 * rewritten in the module as by shloc_lower_custom_calls (so that
 * shloc_shim_generate can follow).  An op not covered is an error naming it.
 * *out is malloc'd and NUL-terminated (NULL on error). */
SHLOC_API shloc_status shloc_lower_linalg(shloc_module *m, char **out, size_t *out_len);

/* `--ffi TARGET=SYMBOL`: the C function implementing TARGET in a shim. */
typedef struct {
  const char *target;
  const char *symbol;
} shloc_shim_binding;
/* Whether `s` is a C identifier ([A-Za-z_][A-Za-z0-9_]*), as a binding's symbol must be. */
SHLOC_API bool shloc_is_c_identifier(const char *s);
/* C source defining `_mlir_ciface_S` for every custom call a lowering
 * (shloc_lower_custom_calls or shloc_lower_linalg) declared in the module:
 * each builds an XLA FFI call frame and calls the handler through
 * shloc/ffi_shim.h; a failing handler is reported on stderr and aborts, as
 * code compiled by upstream MLIR cannot receive an error.  A binding whose
 * target no declaration uses is SHLOC_ERR_NOT_FOUND.  Targets
 * without a binding call a function named like the target, sanitized.
 * `source_name` (NULL = none) is named in the banner.  *out is malloc'd. */
SHLOC_API shloc_status shloc_shim_generate(shloc_module *m, const shloc_shim_binding *bindings, size_t n_bindings,
                                           const char *source_name, char **out, size_t *out_len);

#ifdef __cplusplus
}
#endif
#endif
