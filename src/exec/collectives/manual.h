/* sdy.manual_computation whose manual axes span several devices. */
#ifndef SHLOC_EXEC_COLLECTIVES_MANUAL_H
#define SHLOC_EXEC_COLLECTIVES_MANUAL_H

#include "dialects/sdy/sdy.h"
#include "exec/plan.h"

/* What a manual computation's entry and exit need: the mesh, the manual
 * axes and the shardings of the operands (in) and results (out). */
typedef struct {
  const sdy_mesh *mesh;
  const sdy_manual_axes *axes;
  const sdy_sharding_per_value *in, *out;
} manual_spec;

/* Entering: this device's tile of each global value into local[k] (shaped
 * as the tile; tokens are skipped).  ec->proc set. */
shl_status coll_manual_cut(exec_ctx *ec, const shl_op *op, const manual_spec *ms, uint32_t n,
                           shl_buf *const *global, shl_buf *const *local);
/* Leaving: the mesh's devices exchange their local values and each
 * rebuilds the global ones (one collective). */
shl_status coll_manual_join(exec_ctx *ec, const shl_op *op, const manual_spec *ms, uint32_t n,
                            shl_buf *const *local, shl_buf *const *global);
/* Runs the op's body on this device's tiles (ec->proc set; see manual.c). */
shl_status coll_manual_run(exec_ctx *ec, const plan_op *po, const sdy_mesh *mesh, shl_buf *const *in,
                           shl_buf *const *out);

/* SPMDFullToShardShape (global operand, this device's tile as result: the
 * layout is the mhlo.sharding of the @Sharding call that made the operand)
 * and SPMDShardToFullShape (tiles in, the global value out: the layout is
 * the op's own mhlo.sharding), GSPMD's form of a shard_map.  Needs a
 * multi-device run. */
shl_status coll_spmd_shape(exec_ctx *ec, const plan_op *po, const shl_buf *in, shl_buf *out);

/* xla.sdy.GlobalToLocalShape (to_local) and xla.sdy.LocalToGlobalShape
 * whose shapes differ (manual_rt.c): the shardings come from their string
 * frontend attributes, or from those of the call of the body.  They run
 * (rather than alias) whenever they carry those attributes: on several
 * devices even equal shapes may hold different values per device. */
bool coll_sdy_rt_manual(const shl_op *op, bool to_local);
shl_status coll_sdy_rt_prepare(plan_ctx *pc, const shl_op *op, bool to_local, void **params);
shl_status coll_sdy_rt_run(exec_ctx *ec, const plan_op *po, const void *params, shl_buf *const *in,
                           shl_buf *const *out);

#endif
