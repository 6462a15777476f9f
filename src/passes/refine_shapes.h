/* Shape refinement: specialises a function whose types have '?' dimensions
 * (or are unranked) to concrete argument shapes, as StableHLO's
 * stablehlo-refine-arguments + stablehlo-refine-shapes passes do.  Dimension
 * computations on integers are folded, dynamic ops become their static forms
 * (dynamic_broadcast_in_dim -> broadcast_in_dim, dynamic_reshape -> reshape,
 * dynamic_iota -> iota, real_dynamic_slice -> slice, dynamic_pad -> pad,
 * dynamic_gather -> gather, dynamic_conv -> convolution), callees are copied
 * per distinct argument signature, and while/if/case regions are refined.
 * The result is a new module whose every tensor type is static, for the
 * static planner; the original module is not changed (the new one borrows
 * its types and attributes, so it must outlive the new one). */
#ifndef SHLOC_PASSES_REFINE_SHAPES_H
#define SHLOC_PASSES_REFINE_SHAPES_H

#include "ir/ir.h"

typedef struct {
  const shl_type *type; /* the argument's concrete (static) type */
  const void *data;     /* its bytes, or NULL; small integer arguments are read */
} refine_arg;

typedef struct {
  shloc_module *module; /* the refined copy (shloc_module_destroy releases it) */
  const shl_op *func;   /* the refined entry function in it */
  /* Arguments whose values (not only shapes) decided a shape: bit i for
   * argument i < 63, bit 63 for any later one.  A refinement is reusable for
   * arguments of the same shapes and, for these, the same bytes. */
  uint64_t value_args;
} refine_result;

/* Whether a function (or anything it calls) needs refinement before it can
 * be planned: a '?' or unranked type, or a dynamic op. */
bool refine_needed(const shloc_module *m, const shl_op *func);
/* Refines `func` for the given arguments (one per function argument, types
 * compatible with the declared ones). */
shl_status refine_shapes(shloc_module *m, const shl_op *func, const refine_arg *args, uint32_t n_args,
                         refine_result *out);

#endif
