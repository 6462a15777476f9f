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
 * custom calls around a call of the body) works alike. */
#include <stdlib.h>

#include "device.h"
#include "manual.h"
#include "shard.h"

typedef struct {
  shard_layout *in, *out;
  shl_buf *locals;
  shl_buf **local_ptrs;
  void **data;
  uint32_t *ids;
  uint32_t n_in, n_out;
} manual_run;

static void manual_free(manual_run *r) {
  for (uint32_t k = 0; r->in && k < r->n_in; k++) shard_layout_free(&r->in[k]);
  for (uint32_t k = 0; r->out && k < r->n_out; k++) shard_layout_free(&r->out[k]);
  for (uint32_t k = 0; r->data && k < r->n_in; k++) free(r->data[k]);
  free(r->in);
  free(r->out);
  free(r->locals);
  free(r->local_ptrs);
  free(r->data);
  free(r->ids);
}

/* The layouts of one side (in or out shardings) for values of `types`. */
static shl_status layouts(const shl_op *op, const sdy_sharding_per_value *pv, const sdy_mesh *mesh,
                          const sdy_manual_axes *ma, const struct exec_process *pr, const shl_type *const *types,
                          uint32_t n, shard_layout *out) {
  if (pv->n != n) return op_error(op, SHLOC_ERR_VERIFY, "has %u shardings for %u values", pv->n, n);
  for (uint32_t k = 0; k < n; k++) {
    if (types[k]->kind != TY_TENSOR) continue; /* tokens pass as they are */
    shl_status st = shard_from_sdy(pv->v[k], mesh, ma, types[k]->rank, pr->world->n_rep, pr->world->n_part, &out[k]);
    if (st) return st_at(st_annotate(st, "sharding #%u", k), &op->pos, op->def->name);
  }
  return NULL;
}

shl_status coll_manual_run(exec_ctx *ec, const plan_op *po, const sdy_mesh *mesh, shl_buf *const *in,
                           shl_buf *const *out) {
  const shl_op *op = po->op;
  const struct exec_process *pr = ec->proc;
  const sdy_manual_axes *ma = sdy_attr_manual_axes(op_attr(op, "manual_axes"));
  const sdy_sharding_per_value *ins = sdy_attr_per_value(op_attr(op, "in_shardings"));
  const sdy_sharding_per_value *outs = sdy_attr_per_value(op_attr(op, "out_shardings"));
  const shl_block *body = op->regions[0].blocks[0];
  uint32_t n_dev = pr->world->n_rep * pr->world->n_part, dev = pr->replica * pr->world->n_part + pr->partition;
  manual_run r = {.n_in = po->n_in, .n_out = po->n_out};
  r.in = calloc(r.n_in + 1, sizeof *r.in);
  r.out = calloc(r.n_out + 1, sizeof *r.out);
  r.locals = calloc(r.n_in + 1, sizeof *r.locals);
  r.local_ptrs = calloc(r.n_in + 1, sizeof *r.local_ptrs);
  r.data = calloc(r.n_in + 1, sizeof *r.data);
  r.ids = calloc(n_dev, sizeof *r.ids);
  const shl_type **tin = calloc(r.n_in + 1, sizeof *tin), **tout = calloc(r.n_out + 1, sizeof *tout);
  shl_status st = r.in && r.out && r.locals && r.local_ptrs && r.data && r.ids && tin && tout ? NULL : st_oom();
  for (uint32_t k = 0; !st && k < r.n_in; k++) tin[k] = op->operands[k]->type;
  for (uint32_t k = 0; !st && k < r.n_out; k++) tout[k] = op->results[k].type;
  if (!st) st = layouts(op, ins, mesh, ma, pr, tin, r.n_in, r.in);
  if (!st) st = layouts(op, outs, mesh, ma, pr, tout, r.n_out, r.out);
  /* Entering: this device's tile of each operand, shaped as the body's argument. */
  for (uint32_t k = 0; !st && k < r.n_in; k++) {
    r.local_ptrs[k] = in[k];
    if (tin[k]->kind != TY_TENSOR) continue;
    const shl_type *lt = body->args[k].type;
    int64_t tile[SHARD_MAX_RANK];
    st = shard_tile_dims(&r.in[k], in[k]->dims, tile);
    for (int32_t i = 0; !st && i < lt->rank; i++)
      if (lt->dims[i] != tile[i])
        st = op_error(op, SHLOC_ERR_VERIFY, "body argument #%u has dimension %d of size %lld; the tile is %lld", k, i,
                      (long long)lt->dims[i], (long long)tile[i]);
    if (st) break;
    size_t es = dtype_bytes(in[k]->dtype);
    r.data[k] = exec_malloc(es * (size_t)type_num_elements(lt) + 1);
    if (!r.data[k]) {
      st = st_oom();
      break;
    }
    buf_init(&r.locals[k], lt, r.data[k]);
    shard_extract(&r.in[k], dev, in[k]->dims, in[k]->data, r.data[k], es);
    r.local_ptrs[k] = &r.locals[k];
  }
  shl_buf **res = NULL;
  if (!st) st = exec_region(ec, po->regions[0], r.local_ptrs, &res);
  /* Leaving: the mesh's devices exchange their local results. */
  uint32_t m = (uint32_t)sdy_mesh_devices(mesh), n_ids = 0;
  for (uint32_t d = 0; !st && d < n_dev; d++)
    if (m == n_dev || d / pr->world->n_part == pr->replica) r.ids[n_ids++] = d;
  coll_entry me = {.kind = op_id(op), .seq = (*pr->seq)++, .n = r.n_out, .bufs = res, .ids = r.ids, .n_ids = n_ids};
  const coll_entry *const *all = NULL;
  coll_world *w = pr->world;
  bool met = false;
  if (!st) met = !(st = w->t->exchange(w, dev, op, &me, &all));
  for (uint32_t k = 0; !st && k < r.n_out; k++) {
    if (tout[k]->kind != TY_TENSOR) continue;
    size_t es = dtype_bytes(out[k]->dtype);
    for (uint32_t j = 0; !st && j < n_ids; j++) {
      uint32_t d = r.ids[j];
      bool first = shard_holds(&r.out[k], d);
      for (uint32_t q = 0; first && q < j; q++) first = !shard_same_tile(&r.out[k], r.ids[q], d);
      if (!first) continue;
      const shl_buf *b = all[d]->bufs[k];
      int64_t tile[SHARD_MAX_RANK];
      st = shard_tile_dims(&r.out[k], out[k]->dims, tile);
      if (!st && (size_t)b->n * es != b->nbytes)
        st = op_error(op, SHLOC_ERR_RUNTIME, "result #%u has no tile layout", k);
      int64_t n = 1;
      for (int32_t i = 0; i < out[k]->rank; i++) n *= tile[i];
      if (!st && n != b->n)
        st = op_error(op, SHLOC_ERR_VERIFY, "result #%u: the body returns %lld elements; its tile has %lld", k,
                      (long long)b->n, (long long)n);
      if (!st) shard_insert(&r.out[k], d, out[k]->dims, b->data, out[k]->data, es);
    }
  }
  if (met) st = coll_finish(w, dev, op, st);
  free(tin);
  free(tout);
  manual_free(&r);
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
