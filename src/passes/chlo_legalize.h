/* Pass: CHLO -> StableHLO, the decompositions of upstream's
 * chlo-legalize-to-stablehlo (openxla/stablehlo
 * stablehlo/transforms/ChloLegalizeToStablehlo.cpp and
 * ChloDecompositionPatterns*.td), which XLA's SerializeUsingVersionedStablehlo
 * runs before writing a portable artifact: VHLO has no CHLO ops.
 *
 * Every CHLO op of the module (at any depth) is replaced by StableHLO ops
 * computing the same function with upstream's formulas (polynomials,
 * Lanczos approximations, ...), inserted where the op was, with its
 * location.  An op or operand type without a decomposition here is an error
 * at the op naming it; the module is then partially rewritten and should be
 * discarded.  On dynamic shapes, constants are scalars broadcast to the
 * run-time shape (what XLA's pipeline makes of upstream's shape.shape_of);
 * top_k and the broadcast_* ops need static shapes. */
#ifndef SHLOC_PASSES_CHLO_LEGALIZE_H
#define SHLOC_PASSES_CHLO_LEGALIZE_H

#include "ir/ir.h"

/* XLA's chlo-preserve-high-level-ops (chlo_composite.c): acos, acosh, asin,
 * asinh, atanh, cosh, sinh, erf, erfc, mulhi and top_k each become a
 * stablehlo.composite "chlo.X" calling a new private @chlo.X.impl that holds
 * the op; run pass_legalize_chlo after it.  *wrapped (may be NULL) counts
 * them. */
shl_status pass_wrap_chlo_composites(shloc_module *m, size_t *wrapped);
/* Whether the module holds a CHLO op anywhere. */
bool pass_has_chlo(const shloc_module *m);
enum {
  /* tan as sine / cosine (complex: from tan and tanh of the parts), as
   * StableHLO's compatibility expander rewrites stablehlo.tan for targets
   * before v1.4.0, where it does not exist. */
  PASS_CHLO_EXPAND_TAN = 1u << 0,
  /* An elementwise op or top_k whose formula does not cover its types (f8
   * erf, ...) is left in place instead of failing the pass (the linalg
   * lowering calls such ops out); scan and ragged_dot still fail. */
  PASS_CHLO_KEEP_UNCOVERED = 1u << 1,
};
/* Rewrites m in place and verifies the result; *replaced (may be NULL)
 * counts the CHLO ops replaced. */
shl_status pass_legalize_chlo(shloc_module *m, unsigned flags, size_t *replaced);

#endif
