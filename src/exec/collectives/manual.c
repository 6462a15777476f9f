/* sdy.manual_computation on several devices (a shard_map body).  Every
 * device holds the global values outside (it computes them whole, as the
 * program's single-device meaning says); entering, it cuts its own tile of
 * each operand along the manual axes (in_shardings), runs the body on
 * those local values (its collectives meet the other devices), and leaving,
 * the devices of the mesh exchange their local results through the
 * transport so that each rebuilds the global results (out_shardings).
 * Devices whose tiles coincide (axes the result is replicated over) hold
 * equal values; the first device of the mesh with a tile provides it.
 * GSPMD's form of the same (SPMDFullToShardShape / SPMDShardToFullShape
 * custom calls around a call of the body) works alike; Shardy's round-trip
 * form (manual_rt.c) calls the entry and the exit separately. */
#include <stdlib.h>

#include "device.h"
#include "manual.h"
#include "shard.h"

/* The layouts of one side (in or out shardings) of the values `v`. */
static shl_status layouts(const shl_op *op, const manual_spec *ms, const sdy_sharding_per_value *pv,
                          const struct exec_process *pr, shl_buf *const *v, uint32_t n, shard_layout *out) {
  if (!pv || pv->n != n) return op_error(op, SHLOC_ERR_VERIFY, "has %u shardings for %u values", pv ? pv->n : 0, n);
  for (uint32_t k = 0; k < n; k++) {
    if (v[k]->type->kind != TY_TENSOR) continue; /* tokens pass as they are */
    shl_status st = shard_from_sdy(pv->v[k], ms->mesh, ms->axes, v[k]->type->rank, pr->world->n_rep,
                                   pr->world->n_part, &out[k]);
    if (st) return st_at(st_annotate(st, "sharding #%u", k), &op->pos, op->def->name);
  }
  return NULL;
}

static void layouts_free(shard_layout *l, uint32_t n) {
  for (uint32_t k = 0; l && k < n; k++) shard_layout_free(&l[k]);
  free(l);
}

shl_status coll_manual_cut(exec_ctx *ec, const shl_op *op, const manual_spec *ms, uint32_t n,
                           shl_buf *const *global, shl_buf *const *local) {
  const struct exec_process *pr = ec->proc;
  uint32_t dev = pr->replica * pr->world->n_part + pr->partition;
  shard_layout *l = calloc(n + 1, sizeof *l);
  shl_status st = l ? layouts(op, ms, ms->in, pr, global, n, l) : st_oom();
  for (uint32_t k = 0; !st && k < n; k++) {
    if (global[k]->type->kind != TY_TENSOR) continue;
    int64_t tile[SHARD_MAX_RANK];
    st = shard_tile_dims(&l[k], global[k]->dims, tile);
    for (int32_t i = 0; !st && i < local[k]->rank; i++)
      if (local[k]->dims[i] != tile[i])
        st = op_error(op, SHLOC_ERR_VERIFY, "local value #%u has dimension %d of size %lld; the tile is %lld", k, i,
                      (long long)local[k]->dims[i], (long long)tile[i]);
    if (!st) shard_extract(&l[k], dev, global[k]->dims, global[k]->data, local[k]->data, dtype_bytes(global[k]->dtype));
  }
  layouts_free(l, n);
  return st;
}

shl_status coll_manual_join(exec_ctx *ec, const shl_op *op, const manual_spec *ms, uint32_t n,
                            shl_buf *const *local, shl_buf *const *global) {
  const struct exec_process *pr = ec->proc;
  coll_world *w = pr->world;
  uint32_t n_dev = w->n_rep * w->n_part, dev = pr->replica * w->n_part + pr->partition;
  shard_layout *l = calloc(n + 1, sizeof *l);
  uint32_t *ids = calloc(n_dev, sizeof *ids);
  shl_status st = l && ids ? layouts(op, ms, ms->out, pr, global, n, l) : st_oom();
  /* The mesh's devices exchange their local results. */
  uint32_t m = (uint32_t)sdy_mesh_devices(ms->mesh), n_ids = 0;
  for (uint32_t d = 0; !st && d < n_dev; d++)
    if (m == n_dev || d / w->n_part == pr->replica) ids[n_ids++] = d;
  coll_entry me = {.kind = op_id(op), .seq = (*pr->seq)++, .n = n, .bufs = (shl_buf **)local, .ids = ids, .n_ids = n_ids};
  const coll_entry *const *all = NULL;
  bool met = false;
  if (!st) met = !(st = w->t->exchange(w, dev, op, &me, &all));
  for (uint32_t k = 0; !st && k < n; k++) {
    if (global[k]->type->kind != TY_TENSOR) continue;
    size_t es = dtype_bytes(global[k]->dtype);
    for (uint32_t j = 0; !st && j < n_ids; j++) {
      uint32_t d = ids[j];
      bool first = shard_holds(&l[k], d);
      for (uint32_t q = 0; first && q < j; q++) first = !shard_same_tile(&l[k], ids[q], d);
      if (!first) continue;
      const shl_buf *b = all[d]->bufs[k];
      int64_t tile[SHARD_MAX_RANK];
      st = shard_tile_dims(&l[k], global[k]->dims, tile);
      if (!st && (size_t)b->n * es != b->nbytes)
        st = op_error(op, SHLOC_ERR_RUNTIME, "result #%u has no tile layout", k);
      int64_t cnt = 1;
      for (int32_t i = 0; i < global[k]->rank; i++) cnt *= tile[i];
      if (!st && cnt != b->n)
        st = op_error(op, SHLOC_ERR_VERIFY, "result #%u: the body returns %lld elements; its tile has %lld", k,
                      (long long)b->n, (long long)cnt);
      if (!st) shard_insert(&l[k], d, global[k]->dims, b->data, global[k]->data, es);
    }
  }
  if (met) st = coll_finish(w, dev, op, st);
  layouts_free(l, n);
  free(ids);
  return st;
}

shl_status coll_manual_run(exec_ctx *ec, const plan_op *po, const sdy_mesh *mesh, shl_buf *const *in,
                           shl_buf *const *out) {
  const shl_op *op = po->op;
  manual_spec ms = {mesh, sdy_attr_manual_axes(op_attr(op, "manual_axes")),
                    sdy_attr_per_value(op_attr(op, "in_shardings")), sdy_attr_per_value(op_attr(op, "out_shardings"))};
  const shl_block *body = op->regions[0].blocks[0];
  uint32_t n_in = po->n_in;
  shl_buf *locals = calloc(n_in + 1, sizeof *locals);
  shl_buf **ptrs = calloc(n_in + 1, sizeof *ptrs);
  void **data = calloc(n_in + 1, sizeof *data);
  shl_status st = locals && ptrs && data ? NULL : st_oom();
  /* Entering: a buffer per operand shaped as the body's argument, filled with this device's tile. */
  for (uint32_t k = 0; !st && k < n_in; k++) {
    ptrs[k] = in[k];
    if (in[k]->type->kind != TY_TENSOR) continue;
    const shl_type *lt = body->args[k].type;
    if (!(data[k] = exec_malloc(dtype_bytes(in[k]->dtype) * (size_t)type_num_elements(lt) + 1))) st = st_oom();
    buf_init(&locals[k], lt, data[k]);
    ptrs[k] = &locals[k];
  }
  if (!st) st = coll_manual_cut(ec, op, &ms, n_in, in, ptrs);
  shl_buf **res = NULL;
  if (!st) st = exec_region(ec, po->regions[0], ptrs, &res);
  if (!st) st = coll_manual_join(ec, op, &ms, po->n_out, res, out);
  for (uint32_t k = 0; data && k < n_in; k++) free(data[k]);
  free(locals);
  free(ptrs);
  free(data);
  return st;
}

/* The HLO sharding string attribute of op, or an empty string. */
static shl_str hlo_sharding(const shl_op *op) {
  const shl_attr *a = op ? op_attr(op, "mhlo.sharding") : NULL;
  return a && a->kind == AT_STRING ? a->u.str : (shl_str){0};
}

/* Rebuilds the global value `out` from the group's tiles (one exchange). */
static shl_status gather_tiles(exec_ctx *ec, const shl_op *op, const shard_layout *l, shl_buf *local, shl_buf *out) {
  const struct exec_process *pr = ec->proc;
  coll_world *w = pr->world;
  uint32_t n_dev = w->n_rep * w->n_part, dev = pr->replica * w->n_part + pr->partition, n_ids = 0;
  uint32_t *ids = malloc(n_dev * sizeof *ids);
  if (!ids) return st_oom();
  for (uint32_t d = 0; d < n_dev; d++)
    if (l->span == n_dev || d / w->n_part == pr->replica) ids[n_ids++] = d;
  coll_entry me = {.kind = op_id(op), .seq = (*pr->seq)++, .n = 1, .bufs = &local, .ids = ids, .n_ids = n_ids};
  const coll_entry *const *all = NULL;
  shl_status st = w->t->exchange(w, dev, op, &me, &all);
  bool met = !st;
  size_t es = dtype_bytes(out->dtype);
  for (uint32_t j = 0; !st && j < n_ids; j++) {
    bool first = shard_holds(l, ids[j]);
    for (uint32_t q = 0; first && q < j; q++) first = !shard_same_tile(l, ids[q], ids[j]);
    if (!first) continue;
    if (all[ids[j]]->bufs[0]->nbytes != local->nbytes)
      st = op_error(op, SHLOC_ERR_RUNTIME, "devices pass tiles of different sizes");
    else
      shard_insert(l, ids[j], out->dims, all[ids[j]]->bufs[0]->data, out->data, es);
  }
  if (met) st = coll_finish(w, dev, op, st);
  free(ids);
  return st;
}

shl_status coll_spmd_shape(exec_ctx *ec, const plan_op *po, const shl_buf *in, shl_buf *out) {
  const shl_op *op = po->op;
  if (!ec->proc)
    return op_error(
        op, SHLOC_ERR_UNSUPPORTED,
        "changes the value's shape to a per-device one: run it on several devices (shloc run --partitions N)");
  bool to_shard = out->n < in->n || (out->n == in->n && in->rank && out->dims[0] < in->dims[0]);
  const shl_buf *global = to_shard ? in : out;
  shl_str text = to_shard ? hlo_sharding(op->operands[0]->def) : hlo_sharding(op);
  if (!text.n)
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "needs the global value's mhlo.sharding (%s)",
                    to_shard ? "on the @Sharding custom call that makes its operand" : "on the op");
  const struct exec_process *pr = ec->proc;
  shard_layout l;
  shl_status st = shard_from_hlo(text, global->rank, pr->world->n_rep, pr->world->n_part, &l);
  if (st) return st_at(st, &op->pos, op->def->name);
  int64_t tile[SHARD_MAX_RANK];
  const shl_buf *local = to_shard ? out : in;
  st = shard_tile_dims(&l, global->dims, tile);
  for (int32_t i = 0; !st && i < local->rank; i++)
    if (local->dims[i] != tile[i])
      st = op_error(op, SHLOC_ERR_VERIFY,
                    "the per-device shape has dimension %d of size %lld; the sharding's tile has %lld", i,
                    (long long)local->dims[i], (long long)tile[i]);
  uint32_t dev = pr->replica * pr->world->n_part + pr->partition;
  if (!st && to_shard) shard_extract(&l, dev, in->dims, in->data, out->data, dtype_bytes(in->dtype));
  if (!st && !to_shard) st = gather_tiles(ec, op, &l, (shl_buf *)in, out);
  shard_layout_free(&l);
  return st ? st_at(st, &op->pos, op->def->name) : NULL;
}
