/* Shardy computations: sdy.named_computation and sdy.manual_computation
 * run their body with the operands as its arguments.  A manual
 * computation's body sees per-device (local) shapes: on one device they are
 * the global shapes only when every manual axis has size 1; manual axes
 * spanning several devices run on the devices of a multi-device run
 * (exec/collectives/manual.c) and are an error on one. */
#include "dialects/sdy/sdy.h"
#include "exec/collectives/device.h"
#include "exec/collectives/manual.h"
#include "exec/plan.h"

static shl_status body_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  shl_buf **res;
  ST_TRY(exec_region(ec, po->regions[0], in, &res));
  for (uint32_t i = 0; i < po->op->n_results; i++)
    if (out[i]->data != res[i]->data && res[i]->nbytes) memcpy(out[i]->data, res[i]->data, res[i]->nbytes);
  return NULL;
}

typedef struct {
  const sdy_mesh *mesh; /* NULL: the manual axes span one device */
  int64_t devices;
} manual_params;

/* Devices the manual axes span, from the mesh of the first sharding. */
static shl_status manual_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  const sdy_manual_axes *ma = sdy_attr_manual_axes(op_attr(op, "manual_axes"));
  const sdy_sharding_per_value *in = sdy_attr_per_value(op_attr(op, "in_shardings"));
  const sdy_sharding_per_value *out = sdy_attr_per_value(op_attr(op, "out_shardings"));
  if (!ma || !in || !out) return op_error(op, SHLOC_ERR_VERIFY, "lacks its shardings or manual axes");
  manual_params *mp = plan_alloc(pc, sizeof *mp);
  if (!mp) return st_oom();
  *mp = (manual_params){NULL, 1};
  *params = mp;
  const sdy_sharding *s = in->n ? in->v[0] : out->n ? out->v[0] : NULL;
  if (!s || !ma->n) return NULL;
  const sdy_mesh *mesh;
  ST_TRY(sdy_sharding_mesh(plan_module(pc), op, "in_shardings", s, &mesh));
  for (uint32_t i = 0; i < ma->n; i++) {
    int64_t size = sdy_mesh_axis_size(mesh, ma->names[i]);
    if (size > 1) mp->devices *= size;
  }
  if (mp->devices > 1) mp->mesh = mesh;
  return NULL;
}

static shl_status manual_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const manual_params *mp = po->params;
  if (!mp->mesh) return body_run(ec, po, in, out);
  if (!ec->proc)
    return op_error(po->op, SHLOC_ERR_UNSUPPORTED,
                    "is manual over axes spanning %lld devices; run it on several devices (shloc run --partitions N, "
                    "or interpreter.run_parallel)",
                    (long long)mp->devices);
  return coll_manual_run(ec, po, mp->mesh, in, out);
}

const shl_kernel kernel_sdy_named_computation = {NULL, body_run};
const shl_kernel kernel_sdy_manual_computation = {manual_prepare, manual_run};
