/* Writing StableHLO portable artifacts: MLIR bytecode of the versioned VHLO
 * dialect, as `stablehlo-translate --serialize --target=X.Y.Z` writes them.
 * (Reading needs nothing extra: shloc_module_parse takes artifacts too.) */
#ifndef SHLOC_ARTIFACT_H
#define SHLOC_ARTIFACT_H

#include "shloc/shloc.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
  SHLOC_SERIALIZE_STRIP_DEBUGINFO = 1u << 0, /* every location unknown (stablehlo-translate --strip-debuginfo) */
  SHLOC_SERIALIZE_INLINE_CHLO = 1u << 1,     /* CHLO ops decomposed in place, without XLA's composites */
};

/* Serializes |m| as a portable artifact for |target_version|: "X.Y.Z"
 * between shloc_vhlo_minimum_version() and shloc_vhlo_current_version(),
 * "current" (also for NULL), or "oldest" (the oldest version that can
 * express the module, see shloc_module_min_version).  *out_bytes is
 * malloc'd.  A module using an op, attribute or type newer than the target
 * is refused with an error at that op naming the first version that has it;
 * CHLO ops are first decomposed into StableHLO on a copy of |m|, as XLA's
 * serializer does (shloc_module_legalize_chlo with
 * SHLOC_LEGALIZE_CHLO_COMPOSITES for targets from 0.19.0 on, where
 * stablehlo.composite exists, unless SHLOC_SERIALIZE_INLINE_CHLO; without
 * composites before); other ops outside StableHLO/func (Shardy, check.*,
 * ...) are refused. */
SHLOC_API shloc_status shloc_module_serialize(const shloc_module *m, const char *target_version, unsigned flags,
                                              void **out_bytes, size_t *out_len);
enum {
  /* First XLA's chlo-preserve-high-level-ops: acos, acosh, asin, asinh,
   * atanh, cosh, sinh, erf, erfc, mulhi and top_k become
   * stablehlo.composite "chlo.X" ops whose decomposition, a new private
   * function @chlo.X.impl, holds the decomposed op. */
  SHLOC_LEGALIZE_CHLO_COMPOSITES = 1u << 0,
};
/* Verifies |m|, then replaces every CHLO op (at any depth) by
 * StableHLO ops computing the same values with upstream's
 * chlo-legalize-to-stablehlo formulas, in place, then verifies |m|;
 * *out_replaced (may be NULL) receives the number of CHLO ops replaced.  An
 * op, element type or dynamic shape without a decomposition is an error at
 * the op naming it; |m| is then partly rewritten and should be discarded. */
SHLOC_API shloc_status shloc_module_legalize_chlo(shloc_module *m, unsigned flags, size_t *out_replaced);
/* The oldest StableHLO version ("X.Y.Z") whose VHLO expresses every op,
 * attribute and type of |m| (after the CHLO decomposition), written to |buf| (room for |cap| bytes). */
SHLOC_API shloc_status shloc_module_min_version(const shloc_module *m, char *buf, size_t cap);
/* The newest and the oldest versions shloc writes ("1.20.0", "0.9.0"). */
SHLOC_API const char *shloc_vhlo_current_version(void);
SHLOC_API const char *shloc_vhlo_minimum_version(void);

#ifdef __cplusplus
}
#endif
#endif
