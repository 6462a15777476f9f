/* Shardy's round-trip form of a manual computation on several devices:
 * custom_call @xla.sdy.GlobalToLocalShape cuts this device's tiles (the
 * entry of manual.c), the body runs as an ordinary func.call, and
 * custom_call @xla.sdy.LocalToGlobalShape rebuilds the global values (the
 * exit of manual.c).  The manual axes and shardings are string frontend
 * attributes (dialects/sdy/sdy_roundtrip.h) on the custom call itself, or,
 * in the older form, on the call between the two.  Operands and results
 * may be tuples (XLA carries x64 values as tuples of two 32-bit halves):
 * the shardings then name their leaves in order, as the kernel's buffers. */
#include "dialects/sdy/sdy_roundtrip.h"
#include "device.h"
#include "manual.h"

typedef struct {
  manual_spec ms;
  bool to_local;
} rt_params;

/* Whether v is op's first result, or an element of it taken by
 * get_tuple_element (tuple values: x64 halves). */
static bool from_result(const shl_value *v, const shl_op *op) {
  while (v->def && op_id(v->def) == OP_GET_TUPLE_ELEMENT && v->def != op) v = v->def->operands[0];
  return v == &op->results[0];
}

/* The func.call of the body next to op: the one that uses op's first
 * result (entering) or makes its first operand (leaving), through tuples. */
static const shl_op *body_call(const shl_op *op, bool to_local) {
  if (!to_local) {
    const shl_op *d = op->n_operands ? op->operands[0]->def : NULL;
    while (d && op_id(d) == OP_TUPLE && d->n_operands) d = d->operands[0]->def;
    return d && op_id(d) == OP_FUNC_CALL ? d : NULL;
  }
  for (const shl_op *o = op->next; op->n_results && o; o = o->next)
    if (op_id(o) == OP_FUNC_CALL)
      for (uint32_t i = 0; i < o->n_operands; i++)
        if (from_result(o->operands[i], op)) return o;
  return NULL;
}

static bool has_manual_axes(const shl_op *op) {
  const shl_attr *fa = op ? op_attr(op, "mhlo.frontend_attributes") : NULL;
  return fa && fa->kind == AT_DICT && attr_dict_get(fa->u.dict.items, fa->u.dict.n, "xla.sdy.manual_axes");
}

bool coll_sdy_rt_manual(const shl_op *op, bool to_local) {
  return has_manual_axes(op) || has_manual_axes(body_call(op, to_local));
}

shl_status coll_sdy_rt_prepare(plan_ctx *pc, const shl_op *op, bool to_local, void **params) {
  /* Parsed once here into the module's arena, before any device runs. */
  shloc_module *m = (shloc_module *)plan_module(pc);
  const char *side = to_local ? "xla.sdy.in_shardings" : "xla.sdy.out_shardings";
  const shl_op *at = op;
  const shl_attr *ma, *pv;
  ST_TRY(sdy_rt_op_attr(m, op, "xla.sdy.manual_axes", SDY_MANUAL_AXES, &ma));
  if (!ma && (at = body_call(op, to_local)) != NULL)
    ST_TRY(sdy_rt_op_attr(m, at, "xla.sdy.manual_axes", SDY_MANUAL_AXES, &ma));
  if (!ma)
    return op_error(op, SHLOC_ERR_VERIFY,
                    "needs the frontend attributes xla.sdy.manual_axes and %s (on it, or on the call of the body)",
                    side);
  ST_TRY(sdy_rt_op_attr(m, at, side, SDY_SHARDING_PER_VALUE, &pv));
  if (!pv) return op_error(at, SHLOC_ERR_VERIFY, "has xla.sdy.manual_axes but no %s", side);
  rt_params *rp = plan_alloc(pc, sizeof *rp);
  if (!rp) return st_oom();
  const sdy_sharding_per_value *v = sdy_attr_per_value(pv);
  *rp = (rt_params){{NULL, sdy_attr_manual_axes(ma), to_local ? v : NULL, to_local ? NULL : v}, to_local};
  /* Tuple operands and results count by their leaves (the kernel's buffers). */
  uint32_t na = 0, nr = 0;
  for (uint32_t i = 0; i < op->n_operands; i++) na += plan_leaf_count(op->operands[i]->type);
  for (uint32_t i = 0; i < op->n_results; i++) nr += plan_leaf_count(op->results[i].type);
  if (v->n != na || nr != na)
    return op_error(op, SHLOC_ERR_VERIFY, "has %u operand values, %u result values and %u shardings in %s", na, nr,
                    v->n, side);
  if (v->n) ST_TRY(sdy_rt_sharding_mesh(m, at, side, v->v[0], &rp->ms.mesh));
  for (uint32_t i = 0; rp->ms.mesh && i < rp->ms.axes->n; i++)
    if (sdy_mesh_axis_size(rp->ms.mesh, rp->ms.axes->names[i]) < 0)
      return op_error(at, SHLOC_ERR_VERIFY, "xla.sdy.manual_axes: the mesh has no axis \"%.*s\"",
                      (int)rp->ms.axes->names[i].n, rp->ms.axes->names[i].p);
  *params = rp;
  return NULL;
}

shl_status coll_sdy_rt_run(exec_ctx *ec, const plan_op *po, const void *params, shl_buf *const *in,
                           shl_buf *const *out) {
  const rt_params *rp = params;
  const shl_op *op = po->op;
  if (!ec->proc) {
    /* One device: the values are whole when the shapes agree. */
    bool same = true;
    for (uint32_t k = 0; k < po->n_in; k++) same = same && type_eq(in[k]->type, out[k]->type);
    for (uint32_t k = 0; same && k < po->n_in; k++)
      if (in[k]->data != out[k]->data && in[k]->nbytes) memcpy(out[k]->data, in[k]->data, in[k]->nbytes);
    if (same) return NULL;
    return op_error(op, SHLOC_ERR_UNSUPPORTED,
                    "changes the values' shapes to per-device ones (a manual computation in Shardy's round-trip "
                    "form): run it on several devices (shloc run --partitions N)");
  }
  if (!rp->ms.mesh) return NULL; /* no operands */
  return rp->to_local ? coll_manual_cut(ec, op, &rp->ms, po->n_in, in, out)
                      : coll_manual_join(ec, op, &rp->ms, po->n_in, in, out);
}
