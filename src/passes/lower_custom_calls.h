/* Pass: stablehlo.custom_call -> func.call of an external function.
 *
 * Each selected `stablehlo.custom_call @T(ops) {attrs} : (A...) -> (R...)`
 * becomes `func.call @S(ops) : (A...) -> (R...)`, and the module gets one
 * declaration per distinct (target, signature, attributes):
 *
 *   func.func private @S(A {bufferization.access = "read"}, ...) -> (R...)
 *       attributes {llvm.emit_c_interface, shloc.custom_call = {attrs}}
 *
 * so that upstream MLIR's LLVM lowering calls `_mlir_ciface_S`, which the
 * shim of src/codegen/shim.h defines.
 *
 *  - S is T with every character outside [A-Za-z0-9_] replaced by '_' (and a
 *    leading '_' before a digit); when S is taken by another symbol of the
 *    module or by a declaration with a different signature or attributes,
 *    "_1", "_2", ... is appended.
 *  - `shloc.custom_call` holds every attribute of the op under its own name
 *    (call_target_name, api_version, backend_config, mhlo.backend_config,
 *    operand_layouts, result_layouts, output_operand_aliases,
 *    has_side_effect, ...).  StableHLO structured attributes become builtin
 *    dictionaries (`#stablehlo.output_operand_alias<...>` ->
 *    {operand_index = 0 : i64, operand_tuple_indices = array<i64>, ...}), so
 *    a module without other StableHLO ops is plain upstream MLIR.
 *  - Operands are declared read-only (bufferization.access = "read"): the
 *    shim never writes them, so one-shot bufferization adds no copies.
 *  - Results: N results are N function results (none for a call without
 *    results).  Upstream's C interface then passes a pointer to the result
 *    descriptor (one result) or to a struct of descriptors (several) first.
 *  - Order: calls replace the ops in place.  func.call has unknown side
 *    effects for MLIR, so no upstream pass reorders or removes the calls:
 *    has_side_effect calls keep their program order (and calls without it
 *    are kept too).
 *  - JAX's annotation targets (src/targets/jax/annotations.h) are not calls:
 *    a selected identity annotation whose results have its operands' types
 *    (Sharding, SPMDFullToShardShape on one device, ...) is removed and its
 *    uses take its operands; a selected dce_sink is removed.
 *  - Only ranked tensor operands and results can cross the boundary; a call
 *    with a token or tuple is an error (leave its target out of `targets`).
 *    Calls inside nested builtin.module ops are left alone. */
#ifndef SHLOC_PASSES_LOWER_CUSTOM_CALLS_H
#define SHLOC_PASSES_LOWER_CUSTOM_CALLS_H

#include "ir/ir.h"

/* Name of the declaration attribute holding the custom call's attributes. */
#define PASS_CUSTOM_CALL_ATTR "shloc.custom_call"

typedef struct {
  const char *const *targets; /* call_target_names to lower; NULL = all */
  size_t n_targets;
} pass_lcc_options;

/* Rewrites a verified module in place (opts NULL: every custom call).  On
 * error the module may be partially rewritten and should be discarded. */
shl_status pass_lower_custom_calls(shloc_module *m, const pass_lcc_options *opts);

/* Writes the sanitized form of `name` (see above; "custom_call" when empty)
 * into the module arena. */
shl_str pass_sanitize_symbol(shl_arena *a, shl_str name);

#endif
