/* The collective ops of the spec on any transport: each device publishes
 * its operands, then computes its own results from its process group's
 * buffers, read in group order (reductions fold left in that order, so
 * results are the same on every run).  Outside interpreter.run_parallel
 * there is one device (replica 0, partition 0). */
#include <stdlib.h>

#include "device.h"
#include "groups.h"
#include "exec/kernels/kutil.h"
#include "exec/kernels/reduce.h"
#include "exec/kernels/strided.h"

typedef struct {
  const coll_entry *const *all; /* by device id */
  const uint32_t *ids;          /* this device's group, in order */
  uint32_t n, pos;              /* group size (0: in no group) and place */
  coll_mode mode;
  uint32_t n_rep, n_part, replica, partition;
} coll_view;

typedef shl_status (*coll_fn)(exec_ctx *ec, const plan_op *po, const coll_view *v, shl_buf *const *out);

static shl_buf *const *member(const coll_view *v, uint32_t j) { return v->all[v->ids[j]]->bufs; }

static shl_status coll_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out, coll_fn fn) {
  const shl_op *op = po->op;
  const struct exec_process *pr = ec->proc;
  coll_view v = {0};
  v.n_rep = pr ? pr->world->n_rep : 1;
  v.n_part = pr ? pr->world->n_part : 1;
  v.replica = pr ? pr->replica : 0;
  v.partition = pr ? pr->partition : 0;
  ST_TRY(coll_mode_of(op, &v.mode));
  uint32_t *ids = malloc((size_t)v.n_rep * v.n_part * sizeof *ids);
  if (!ids) return st_oom();
  v.ids = ids;
  shl_status st = coll_group(op, v.mode, v.n_rep, v.n_part, v.replica, v.partition, ids, &v.n, &v.pos);
  uint32_t dev = v.replica * v.n_part + v.partition;
  /* A device in no group meets nobody (its result needs no peer). */
  coll_entry me = {.kind = op_id(op), .seq = pr ? (*pr->seq)++ : 0, .n = po->n_in, .bufs = in, .ids = v.n ? ids : &dev,
                   .n_ids = v.n ? v.n : 1};
  const coll_entry *self[1] = {&me};
  if (!st && pr) {
    coll_world *w = pr->world;
    st = w->t->exchange(w, dev, op, &me, &v.all);
    if (!st) st = coll_finish(w, dev, op, fn(ec, po, &v, out));
  } else if (!st) {
    v.all = self;
    st = fn(ec, po, &v, out);
  }
  free(ids);
  return st;
}

static shl_status need_group(const plan_op *po, const coll_view *v) {
  if (v->n) return NULL;
  return op_error(po->op, SHLOC_ERR_RUNTIME, "device (replica %u, partition %u) is in none of the replica_groups",
                  v->replica, v->partition);
}

/* ---- reductions ---- */

/* dst[i] = body(dst[i], src[i]) for i < n. */
static shl_status combine(exec_ctx *ec, const plan_op *po, shl_dtype t, void *dst, const void *src, int64_t n) {
  shl_opid b = ku_body_binop(&po->op->regions[0]);
  if (b != OP_UNKNOWN && fold_fast_ok(b, t)) {
    int64_t rel = 0;
    fold_rows(t, b, src, &rel, 1, n, dst);
    return NULL;
  }
  ku_scalar_fn f;
  ST_TRY(ku_scalar_fn_init(&f, po->regions[0], &po->op->regions[0]));
  size_t es = dtype_bytes(t);
  shl_status st = NULL;
  for (int64_t i = 0; !st && i < n; i++) {
    void *args[2] = {(uint8_t *)dst + i * es, (uint8_t *)src + i * es};
    st = ku_scalar_call(ec, &f, args, args);
  }
  ku_scalar_fn_free(&f);
  return st;
}

/* dst = fold of operand k's elements [off, off + n) over the group. */
static shl_status reduce_group(exec_ctx *ec, const plan_op *po, const coll_view *v, uint32_t k, int64_t off, int64_t n,
                               void *dst) {
  const shl_buf *b0 = member(v, 0)[k];
  size_t es = dtype_bytes(b0->dtype);
  if (n) memcpy(dst, (const uint8_t *)b0->data + off * es, (size_t)n * es);
  for (uint32_t j = 1; j < v->n; j++) {
    const shl_buf *b = member(v, j)[k];
    if (b->nbytes != b0->nbytes)
      return op_error(po->op, SHLOC_ERR_RUNTIME, "devices of a group pass operands of different sizes");
    ST_TRY(combine(ec, po, b0->dtype, dst, (const uint8_t *)b->data + off * es, n));
  }
  return NULL;
}

static shl_status all_reduce_fn(exec_ctx *ec, const plan_op *po, const coll_view *v, shl_buf *const *out) {
  ST_TRY(need_group(po, v));
  for (uint32_t k = 0; k < po->n_out; k++) ST_TRY(reduce_group(ec, po, v, k, 0, out[k]->n, out[k]->data));
  return NULL;
}

static shl_status all_reduce_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  return coll_run(ec, po, in, out, all_reduce_fn);
}

static shl_status region_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  (void)pc;
  (void)params;
  if (op->n_regions != 1 || op->regions[0].blocks[0]->n_args != 2)
    return op_error(op, SHLOC_ERR_VERIFY, "expects a reduction body of two scalars");
  for (uint32_t k = 0; k < op->n_results; k++)
    if (type_storage_dtype(op->operands[k]->type) != type_storage_dtype(op->regions[0].blocks[0]->args[0].type))
      return op_error(op, SHLOC_ERR_UNSUPPORTED, "with element types that differ from the body's is not supported");
  return NULL;
}

const shl_kernel kernel_all_reduce = {region_prepare, all_reduce_run};

/* Outer count, extent of dim d and inner count of a shape. */
static void split_at(const shl_buf *b, int64_t d, int64_t *outer, int64_t *inner) {
  *outer = 1;
  *inner = 1;
  for (int64_t i = 0; i < b->rank; i++) {
    if (i < d) *outer *= b->dims[i];
    if (i > d) *inner *= b->dims[i];
  }
}

static shl_status dim_attr(const shl_op *op, const char *name, int32_t rank, int64_t *d) {
  const shl_attr *a = op_attr(op, name);
  if (!a || !attr_as_int(a, d) || *d < 0 || *d >= (rank ? rank : 1))
    return op_error(op, SHLOC_ERR_VERIFY, "expects '%s' in [0, %d)", name, rank);
  return NULL;
}

static shl_status reduce_scatter_fn(exec_ctx *ec, const plan_op *po, const coll_view *v, shl_buf *const *out) {
  ST_TRY(need_group(po, v));
  const shl_buf *in = member(v, v->pos)[0];
  int64_t d, outer, inner;
  ST_TRY(dim_attr(po->op, "scatter_dimension", in->rank, &d));
  if (in->rank == 0 || in->dims[d] != out[0]->dims[d] * v->n)
    return op_error(po->op, SHLOC_ERR_RUNTIME, "scatter dimension is not the result's times the group size %u", v->n);
  split_at(in, d, &outer, &inner);
  int64_t blk = out[0]->dims[d] * inner;
  size_t es = dtype_bytes(in->dtype);
  for (int64_t o = 0; o < outer; o++)
    ST_TRY(reduce_group(ec, po, v, 0, o * in->dims[d] * inner + v->pos * blk, blk, (uint8_t *)out[0]->data + o * blk * es));
  return NULL;
}

static shl_status reduce_scatter_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  return coll_run(ec, po, in, out, reduce_scatter_fn);
}

const shl_kernel kernel_reduce_scatter = {region_prepare, reduce_scatter_run};

/* ---- data movement ---- */

/* Copies the box `dims` from src (row-major shape sdims, at element offset
 * soff) into dst (shape ddims, offset doff). */
static void copy_block(int32_t rank, const int64_t *dims, void *dst, const int64_t *ddims, int64_t doff, const void *src,
                       const int64_t *sdims, int64_t soff, size_t es) {
  strided_box b = {.rank = rank};
  for (int32_t i = 0; i < rank; i++) b.dims[i] = dims[i];
  strided_row_major(rank, ddims, b.ds);
  strided_row_major(rank, sdims, b.ss);
  if (!strided_count(&b)) return;
  strided_finish(&b, es);
  strided_copy(&b, (uint8_t *)dst + doff * es, (const uint8_t *)src + soff * es, es);
}

static shl_status all_gather_fn(exec_ctx *ec, const plan_op *po, const coll_view *v, shl_buf *const *out) {
  (void)ec;
  ST_TRY(need_group(po, v));
  for (uint32_t k = 0; k < po->n_out; k++) {
    const shl_buf *mine = member(v, v->pos)[k];
    int64_t d, outer, inner;
    ST_TRY(dim_attr(po->op, "all_gather_dim", mine->rank, &d));
    if (mine->rank == 0 || out[k]->dims[d] != mine->dims[d] * v->n)
      return op_error(po->op, SHLOC_ERR_RUNTIME, "result dimension is not the operand's times the group size %u", v->n);
    split_at(mine, d, &outer, &inner);
    for (uint32_t j = 0; j < v->n; j++) {
      const shl_buf *b = member(v, j)[k];
      if (b->nbytes != mine->nbytes) return op_error(po->op, SHLOC_ERR_RUNTIME, "devices of a group pass operands of different sizes");
      copy_block(mine->rank, mine->dims, out[k]->data, out[k]->dims, j * mine->dims[d] * inner, b->data, mine->dims, 0,
                 dtype_bytes(mine->dtype));
    }
  }
  return NULL;
}

static shl_status all_gather_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  return coll_run(ec, po, in, out, all_gather_fn);
}

const shl_kernel kernel_all_gather = {NULL, all_gather_run};

static shl_status all_to_all_fn(exec_ctx *ec, const plan_op *po, const coll_view *v, shl_buf *const *out) {
  (void)ec;
  ST_TRY(need_group(po, v));
  for (uint32_t k = 0; k < po->n_out; k++) {
    const shl_buf *mine = member(v, v->pos)[k];
    int64_t s, c, so, si, co, ci;
    ST_TRY(dim_attr(po->op, "split_dimension", mine->rank, &s));
    ST_TRY(dim_attr(po->op, "concat_dimension", mine->rank, &c));
    if (mine->rank == 0 || mine->dims[s] % v->n)
      return op_error(po->op, SHLOC_ERR_RUNTIME, "split dimension is not a multiple of the group size %u", v->n);
    int64_t blk[KU_MAX_RANK];
    for (int32_t i = 0; i < mine->rank; i++) blk[i] = mine->dims[i];
    blk[s] /= v->n;
    split_at(mine, s, &so, &si);
    split_at(out[k], c, &co, &ci);
    (void)so;
    (void)co;
    for (uint32_t j = 0; j < v->n; j++) {
      const shl_buf *b = member(v, j)[k];
      if (b->nbytes != mine->nbytes) return op_error(po->op, SHLOC_ERR_RUNTIME, "devices of a group pass operands of different sizes");
      copy_block(mine->rank, blk, out[k]->data, out[k]->dims, j * blk[c] * ci, b->data, mine->dims, v->pos * blk[s] * si,
                 dtype_bytes(mine->dtype));
    }
  }
  return NULL;
}

static shl_status all_to_all_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  return coll_run(ec, po, in, out, all_to_all_fn);
}

const shl_kernel kernel_all_to_all = {NULL, all_to_all_run};

/* Copies the operands of device `dev` into out, or zeros when dev < 0. */
static shl_status take(const plan_op *po, const coll_view *v, int64_t dev, shl_buf *const *out) {
  for (uint32_t k = 0; k < po->n_out; k++) {
    if (dev < 0) {
      memset(out[k]->data, 0, out[k]->nbytes);
      continue;
    }
    if (v->all[dev]->bufs[k]->nbytes != out[k]->nbytes)
      return op_error(po->op, SHLOC_ERR_RUNTIME, "devices pass operands of different sizes");
    if (out[k]->nbytes) memcpy(out[k]->data, v->all[dev]->bufs[k]->data, out[k]->nbytes);
  }
  return NULL;
}

static shl_status permute_fn(exec_ctx *ec, const plan_op *po, const coll_view *v, shl_buf *const *out) {
  (void)ec;
  const shl_attr *a = op_attr(po->op, "source_target_pairs");
  bool cross_rep = v->mode == COLL_CROSS_REPLICA;
  uint32_t me = cross_rep ? v->replica : v->partition, limit = cross_rep ? v->n_rep : v->n_part;
  int64_t src = -1;
  if (a && a->kind == AT_DENSE && a->type && a->type->rank == 2 && a->type->dims[1] == 2) {
    int64_t n = a->type->dims[0] * 2;
    int64_t *pr = malloc((size_t)(n + 1) * sizeof *pr);
    size_t got;
    if (!pr) return st_oom();
    bool ok = attr_as_ints(a, pr, (size_t)n, &got) && got == (size_t)n;
    for (int64_t i = 0; ok && i < n; i += 2) {
      if (pr[i] < 0 || pr[i] >= limit || pr[i + 1] < 0 || pr[i + 1] >= limit) ok = false;
      else if (pr[i + 1] == me) src = pr[i];
    }
    free(pr);
    if (!ok) return op_error(po->op, SHLOC_ERR_VERIFY, "has source_target_pairs outside [0, %u)", limit);
  } else if (a && !(a->kind == AT_DENSE && a->type && type_num_elements(a->type) == 0)) {
    return op_error(po->op, SHLOC_ERR_VERIFY, "expects source_target_pairs as an Nx2 tensor");
  }
  if (src >= 0) src = cross_rep ? src * v->n_part + v->partition : v->replica * v->n_part + src;
  return take(po, v, src, out);
}

static shl_status permute_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  return coll_run(ec, po, in, out, permute_fn);
}

const shl_kernel kernel_collective_permute = {NULL, permute_run};

/* With has_dynamic_root the last operand holds, per data operand (or one
 * for all), the place in the group of the device that sends it; otherwise
 * the first device of the group does.  -1: the device is in no group. */
static shl_status root_of(const plan_op *po, const coll_view *v, uint32_t k, int64_t *dev) {
  *dev = -1;
  if (!v->n) return NULL;
  const shl_attr *a = op_attr(po->op, "has_dynamic_root");
  if (!a || (a->kind == AT_BOOL && !a->u.b)) {
    *dev = v->ids[0];
    return NULL;
  }
  const shl_buf *r = member(v, v->pos)[po->n_in - 1];
  if (r->n != 1 && r->n != po->n_out) return op_error(po->op, SHLOC_ERR_RUNTIME, "expects one root per operand");
  int64_t i = r->n == 1 ? 0 : k, root;
  switch (r->dtype) {
  case DT_I32: root = ((const int32_t *)r->data)[i]; break;
  case DT_I64: root = ((const int64_t *)r->data)[i]; break;
  default: return op_error(po->op, SHLOC_ERR_UNSUPPORTED, "expects an i32 or i64 root operand");
  }
  if (root < 0 || root >= v->n)
    return op_error(po->op, SHLOC_ERR_RUNTIME, "root %lld is outside the group of %u", (long long)root, v->n);
  *dev = v->ids[root];
  return NULL;
}

static shl_status broadcast_fn(exec_ctx *ec, const plan_op *po, const coll_view *v, shl_buf *const *out) {
  (void)ec;
  for (uint32_t k = 0; k < po->n_out; k++) {
    int64_t src;
    ST_TRY(root_of(po, v, k, &src));
    if (src < 0) {
      memset(out[k]->data, 0, out[k]->nbytes);
      continue;
    }
    if (v->all[src]->bufs[k]->nbytes != out[k]->nbytes)
      return op_error(po->op, SHLOC_ERR_RUNTIME, "devices pass operands of different sizes");
    if (out[k]->nbytes) memcpy(out[k]->data, v->all[src]->bufs[k]->data, out[k]->nbytes);
  }
  return NULL;
}

static shl_status broadcast_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  return coll_run(ec, po, in, out, broadcast_fn);
}

const shl_kernel kernel_collective_broadcast = {NULL, broadcast_run};

/* collective_reduce: the root (first of the group, or the dynamic root)
 * gets the all_reduce result, the others zeros. */
static shl_status collective_reduce_fn(exec_ctx *ec, const plan_op *po, const coll_view *v, shl_buf *const *out) {
  ST_TRY(need_group(po, v));
  for (uint32_t k = 0; k < po->n_out; k++) {
    int64_t root;
    ST_TRY(root_of(po, v, k, &root));
    if (root == (int64_t)v->ids[v->pos]) ST_TRY(reduce_group(ec, po, v, k, 0, out[k]->n, out[k]->data));
    else memset(out[k]->data, 0, out[k]->nbytes);
  }
  return NULL;
}

static shl_status collective_reduce_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  return coll_run(ec, po, in, out, collective_reduce_fn);
}

const shl_kernel kernel_collective_reduce = {region_prepare, collective_reduce_run};
