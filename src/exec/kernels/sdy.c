/* Shardy computations on one device: sdy.named_computation and
 * sdy.manual_computation run their body with the operands as its
 * arguments.  A manual computation's body sees per-device (local) shapes;
 * on one device they are the global shapes only when every manual axis has
 * size 1, so a larger manual axis needs several devices and is reported. */
#include "dialects/sdy/sdy.h"
#include "exec/plan.h"

static shl_status body_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  shl_buf **res;
  ST_TRY(exec_region(ec, po->regions[0], in, &res));
  for (uint32_t i = 0; i < po->op->n_results; i++)
    if (out[i]->data != res[i]->data && res[i]->nbytes) memcpy(out[i]->data, res[i]->data, res[i]->nbytes);
  return NULL;
}

/* Devices the manual axes span, from the mesh of the first sharding. */
static shl_status manual_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  (void)params;
  const sdy_manual_axes *ma = sdy_attr_manual_axes(op_attr(op, "manual_axes"));
  const sdy_sharding_per_value *in = sdy_attr_per_value(op_attr(op, "in_shardings"));
  const sdy_sharding_per_value *out = sdy_attr_per_value(op_attr(op, "out_shardings"));
  if (!ma || !in || !out) return op_error(op, SHLOC_ERR_VERIFY, "lacks its shardings or manual axes");
  const sdy_sharding *s = in->n ? in->v[0] : out->n ? out->v[0] : NULL;
  if (!s || !ma->n) return NULL;
  const sdy_mesh *mesh;
  ST_TRY(sdy_sharding_mesh(plan_module(pc), op, "in_shardings", s, &mesh));
  int64_t devices = 1;
  for (uint32_t i = 0; i < ma->n; i++) {
    int64_t size = sdy_mesh_axis_size(mesh, ma->names[i]);
    if (size > 1) devices *= size;
  }
  if (devices > 1)
    return op_error(op, SHLOC_ERR_UNSUPPORTED,
                    "is manual over axes spanning %lld devices; shloc runs on one device (multi-device execution is "
                    "not supported yet)",
                    (long long)devices);
  return NULL;
}

const shl_kernel kernel_sdy_named_computation = {NULL, body_run};
const shl_kernel kernel_sdy_manual_computation = {manual_prepare, body_run};
