/* JAX's stablehlo.dynamic_* custom-call targets (shape-polymorphic exports):
 * stablehlo.dynamic_top_k, stablehlo.dynamic_approx_top_k,
 * stablehlo.dynamic_rng_bit_generator and stablehlo.dynamic_reduce_window,
 * in their static-shape case, run by the kernel of the op each stands for
 * (chlo.top_k, sort, rng_bit_generator, reduce_window).  Operand layouts
 * follow upstream's adaptors (stablehlo_ext ExperimentalOps.cpp). */
#ifndef SHLOC_TARGETS_JAX_DYNAMIC_TARGETS_H
#define SHLOC_TARGETS_JAX_DYNAMIC_TARGETS_H

#include "exec/exec.h"

typedef struct dyn_target dyn_target;

/* True when `name` is one of these targets. */
bool dyn_target_is(shl_str name);
/* Checks the call `op` and prepares the kernel it runs on (plan arena). */
shl_status dyn_target_prepare(plan_ctx *pc, const shl_op *op, dyn_target **out);
/* Runs it: `in`/`out` are the custom call's operands and results. */
shl_status dyn_target_run(exec_ctx *ec, const dyn_target *t, shl_buf *const *in, shl_buf *const *out);

#endif
