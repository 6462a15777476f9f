/* sdy.manual_computation whose manual axes span several devices. */
#ifndef SHLOC_EXEC_COLLECTIVES_MANUAL_H
#define SHLOC_EXEC_COLLECTIVES_MANUAL_H

#include "dialects/sdy/sdy.h"
#include "exec/plan.h"

/* Runs the op's body on this device's tiles (ec->proc set; see manual.c). */
shl_status coll_manual_run(exec_ctx *ec, const plan_op *po, const sdy_mesh *mesh, shl_buf *const *in,
                           shl_buf *const *out);

/* SPMDFullToShardShape (global operand, this device's tile as result: the
 * layout is the mhlo.sharding of the @Sharding call that made the operand)
 * and SPMDShardToFullShape (tiles in, the global value out: the layout is
 * the op's own mhlo.sharding), GSPMD's form of a shard_map.  Needs a
 * multi-device run. */
shl_status coll_spmd_shape(exec_ctx *ec, const plan_op *po, const shl_buf *in, shl_buf *out);

#endif
