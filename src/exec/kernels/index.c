/* Indexed data movement: dynamic_slice, dynamic_update_slice and gather.
 * Start indices are clamped so that the whole slice stays inside the
 * operand, as the spec says; the copies are strided boxes (strided.h). */
#include "index_util.h"

/* ---- dynamic_slice / dynamic_update_slice ---- */

typedef struct {
  strided_box box;      /* finished: byte strides */
  size_t esz;
  int32_t rank;
  int64_t stride[STRIDED_MAX_RANK]; /* operand (result for dus) strides, elements */
  int64_t max_start[STRIDED_MAX_RANK];
} dslice_params;

/* Reads the start index operands in[first..first+rank) and returns the
 * clamped element offset into the operand. */
static int64_t dslice_offset(const dslice_params *p, shl_buf *const *in, uint32_t first) {
  int64_t off = 0;
  for (int32_t d = 0; d < p->rank; d++) {
    int64_t v = index_load(in[first + (uint32_t)d]->dtype, in[first + (uint32_t)d]->data);
    v = v < 0 ? 0 : v > p->max_start[d] ? p->max_start[d] : v;
    off += v * p->stride[d];
  }
  return off;
}

static shl_status scalar_indices(const shl_op *op, uint32_t first, int32_t rank) {
  if (op->n_operands != first + (uint32_t)rank) return op_error(op, SHLOC_ERR_VERIFY, "needs one start index per dimension");
  for (uint32_t i = first; i < op->n_operands; i++) {
    const shl_type *t = op->operands[i]->type;
    if (t->kind != TY_TENSOR || t->rank != 0 || !dtype_is_int(t->dtype))
      return op_error(op, SHLOC_ERR_VERIFY, "start indices must be integer scalars");
  }
  return NULL;
}

static shl_status dynamic_slice_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  if (op->n_operands < 1 || op->n_results != 1) return op_error(op, SHLOC_ERR_VERIFY, "needs an operand and one result");
  const shl_type *it = op->operands[0]->type, *ot = op->results[0].type;
  ST_TRY(index_static_tensor(op, it, "the operand"));
  ST_TRY(index_static_tensor(op, ot, "the result"));
  int32_t r = it->rank;
  ST_TRY(scalar_indices(op, 1, r));
  int64_t sizes[STRIDED_MAX_RANK], os[STRIDED_MAX_RANK];
  size_t n;
  if (!ku_ints(op, "slice_sizes", sizes, STRIDED_MAX_RANK, &n) || n != (size_t)r || ot->rank != r)
    return op_error(op, SHLOC_ERR_VERIFY, "needs 'slice_sizes' with one entry per dimension");
  dslice_params *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  memset(p, 0, sizeof *p);
  p->rank = r;
  p->esz = dtype_bytes(type_storage_dtype(ot));
  strided_row_major(r, it->dims, p->stride);
  strided_row_major(r, ot->dims, os);
  p->box.rank = r;
  for (int32_t d = 0; d < r; d++) {
    if (sizes[d] < 0 || sizes[d] > it->dims[d] || sizes[d] != ot->dims[d])
      return op_error(op, SHLOC_ERR_VERIFY, "slice size of dimension %d does not fit", (int)d);
    p->max_start[d] = it->dims[d] - sizes[d];
    p->box.dims[d] = sizes[d];
    p->box.ss[d] = p->stride[d];
    p->box.ds[d] = os[d];
  }
  strided_finish(&p->box, p->esz);
  *params = p;
  return NULL;
}

static shl_status dynamic_slice_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  (void)ec;
  const dslice_params *p = po->params;
  int64_t off = dslice_offset(p, in, 1);
  strided_copy(&p->box, out[0]->data, (const uint8_t *)in[0]->data + off * (int64_t)p->esz, p->esz);
  return NULL;
}

const shl_kernel kernel_dynamic_slice = {dynamic_slice_prepare, dynamic_slice_run};

static shl_status dynamic_update_slice_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  if (op->n_operands < 2 || op->n_results != 1) return op_error(op, SHLOC_ERR_VERIFY, "needs an operand, an update and one result");
  const shl_type *ot = op->results[0].type, *ut = op->operands[1]->type;
  ST_TRY(index_static_tensor(op, op->operands[0]->type, "the operand"));
  ST_TRY(index_static_tensor(op, ut, "the update"));
  ST_TRY(index_static_tensor(op, ot, "the result"));
  int32_t r = ot->rank;
  ST_TRY(scalar_indices(op, 2, r));
  if (ut->rank != r) return op_error(op, SHLOC_ERR_VERIFY, "update rank differs from the operand rank");
  dslice_params *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  memset(p, 0, sizeof *p);
  p->rank = r;
  p->esz = dtype_bytes(type_storage_dtype(ot));
  int64_t us[STRIDED_MAX_RANK];
  strided_row_major(r, ot->dims, p->stride);
  strided_row_major(r, ut->dims, us);
  p->box.rank = r;
  for (int32_t d = 0; d < r; d++) {
    if (ut->dims[d] > ot->dims[d]) return op_error(op, SHLOC_ERR_VERIFY, "update is larger than the operand in dimension %d", (int)d);
    p->max_start[d] = ot->dims[d] - ut->dims[d];
    p->box.dims[d] = ut->dims[d];
    p->box.ss[d] = us[d];
    p->box.ds[d] = p->stride[d];
  }
  strided_finish(&p->box, p->esz);
  *params = p;
  return NULL;
}

static shl_status dynamic_update_slice_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  (void)ec;
  const dslice_params *p = po->params;
  if (out[0]->nbytes) memcpy(out[0]->data, in[0]->data, out[0]->nbytes);
  int64_t off = dslice_offset(p, in, 2);
  strided_copy(&p->box, (uint8_t *)out[0]->data + off * (int64_t)p->esz, in[1]->data, p->esz);
  return NULL;
}

const shl_kernel kernel_dynamic_update_slice = {dynamic_update_slice_prepare, dynamic_update_slice_run};

/* ---- gather ----
 * Output dimensions split into batch dimensions (one per start_indices
 * dimension other than index_vector_dim) and offset dimensions (the slice
 * window).  Per batch position: read the start vector, clamp it, and copy
 * the window box. */

enum { GATHER_AHEAD = 4 }; /* windows requested ahead of the one copied */

typedef struct {
  strided_box win; /* finished: byte strides */
  int64_t win_count;
  size_t esz;
  index_batch batch; /* batch dims: output stride, start_indices stride, operand stride */
  index_vec iv;
} gather_params;

static shl_status gather_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  if (op->n_operands != 2 || op->n_results != 1) return op_error(op, SHLOC_ERR_VERIFY, "needs an operand, start indices and one result");
  const shl_type *opt = op->operands[0]->type, *sit = op->operands[1]->type, *ot = op->results[0].type;
  ST_TRY(index_static_tensor(op, opt, "the operand"));
  ST_TRY(index_static_tensor(op, sit, "the start indices"));
  ST_TRY(index_static_tensor(op, ot, "the result"));
  if (!dtype_is_int(sit->dtype)) return op_error(op, SHLOC_ERR_VERIFY, "start indices must be integers");
  const shl_attr *dn = op_attr(op, "dimension_numbers");
  if (!dn || dn->kind != AT_STRUCT) return op_error(op, SHLOC_ERR_VERIFY, "needs 'dimension_numbers'");
  index_list offset_dims, collapsed, op_batch, si_batch, start_map;
  int64_t ivd = 0, sizes[STRIDED_MAX_RANK];
  ST_TRY(index_field(op, dn, "offset_dims", &offset_dims));
  ST_TRY(index_field(op, dn, "collapsed_slice_dims", &collapsed));
  ST_TRY(index_field(op, dn, "operand_batching_dims", &op_batch));
  ST_TRY(index_field(op, dn, "start_indices_batching_dims", &si_batch));
  ST_TRY(index_field(op, dn, "start_index_map", &start_map));
  attr_as_int(attr_struct_field(dn, "index_vector_dim"), &ivd);
  size_t ns;
  if (!ku_ints(op, "slice_sizes", sizes, STRIDED_MAX_RANK, &ns) || ns != (size_t)opt->rank)
    return op_error(op, SHLOC_ERR_VERIFY, "needs 'slice_sizes' with one entry per operand dimension");
  if (op_batch.n != si_batch.n) return op_error(op, SHLOC_ERR_VERIFY, "batching dimension lists differ in length");

  gather_params *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  memset(p, 0, sizeof *p);
  p->esz = dtype_bytes(type_storage_dtype(ot));
  int64_t os[STRIDED_MAX_RANK], ops[STRIDED_MAX_RANK];
  strided_row_major(ot->rank, ot->dims, os);
  strided_row_major(opt->rank, opt->dims, ops);

  /* Window: offset_dims[i] <- i-th operand dim not collapsed and not batching. */
  p->win.rank = (int32_t)offset_dims.n;
  int32_t d = 0;
  for (size_t i = 0; i < offset_dims.n; i++) {
    while (d < opt->rank && (index_has(&collapsed, d) || index_has(&op_batch, d))) d++;
    int64_t od = offset_dims.v[i];
    if (d >= opt->rank || od < 0 || od >= ot->rank || ot->dims[od] != sizes[d])
      return op_error(op, SHLOC_ERR_VERIFY, "offset_dims do not match slice_sizes and the result shape");
    p->win.dims[i] = sizes[d];
    p->win.ss[i] = ops[d];
    p->win.ds[i] = os[od];
    d++;
  }
  for (size_t i = 0; i < collapsed.n; i++)
    if (collapsed.v[i] < 0 || collapsed.v[i] >= opt->rank || sizes[collapsed.v[i]] > 1)
      return op_error(op, SHLOC_ERR_VERIFY, "collapsed_slice_dims must have slice size 1");
  p->win_count = strided_count(&p->win);
  strided_finish(&p->win, p->esz);

  /* Batch: output dims not in offset_dims, in order, <- start_indices dims other than ivd. */
  int32_t out_batch[STRIDED_MAX_RANK], nb = 0;
  for (int32_t od = 0; od < ot->rank; od++)
    if (!index_has(&offset_dims, od)) out_batch[nb++] = od;
  ST_TRY(index_batch_init(op, &p->batch, sit, ivd, nb, out_batch, ot->dims, os));
  for (size_t i = 0; i < op_batch.n; i++) {
    int64_t obd = op_batch.v[i];
    if (obd < 0 || obd >= opt->rank) return op_error(op, SHLOC_ERR_VERIFY, "operand_batching_dims out of range");
    ST_TRY(index_batch_bind(op, &p->batch, si_batch.v[i], ops[obd]));
  }
  ST_TRY(index_vec_init(op, &p->iv, sit, ivd, &start_map, opt->rank));
  for (size_t k = 0; k < start_map.n; k++) {
    int64_t sd = start_map.v[k];
    p->iv.op_stride[k] = ops[sd];
    p->iv.max[k] = opt->dims[sd] - sizes[sd];
    if (p->iv.max[k] < 0) return op_error(op, SHLOC_ERR_VERIFY, "slice size exceeds operand dimension %lld", (long long)sd);
  }
  *params = p;
  return NULL;
}

/* Operand offset (elements) of the window of batch position b. */
static int64_t gather_src(const gather_params *p, const shl_buf *si, int64_t b, int64_t *dofs) {
  int64_t sofs, oofs;
  index_batch_offsets(&p->batch, b, dofs, &sofs, &oofs);
  return oofs + index_vec_offset(&p->iv, si, sofs, true);
}

static shl_status gather_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  (void)ec;
  const gather_params *p = po->params;
  int64_t total = p->batch.count;
  if (!total || !p->win_count) return NULL;
  const uint8_t *src = in[0]->data;
  uint8_t *dst = out[0]->data;
  int64_t esz = (int64_t)p->esz;
  /* Windows that are one contiguous run of the operand (rows of a table)
   * are requested GATHER_AHEAD windows before they are copied: each starts
   * at an unpredictable address, and copied one after another each would
   * wait for memory in turn. */
  int64_t run = p->win.rank == 1 && p->win.ss[0] == esz ? p->win_count * esz : 0;
#pragma omp parallel for schedule(static) if (total * p->win_count >= (1 << 16))
  for (int64_t b = 0; b < total; b++) {
    int64_t dofs, oofs = gather_src(p, in[1], b, &dofs);
    if (run >= 256 && b + GATHER_AHEAD < total) {
      int64_t dn;
      const uint8_t *q = src + gather_src(p, in[1], b + GATHER_AHEAD, &dn) * esz;
      for (int64_t o = 0; o < run; o += 64) __builtin_prefetch(q + o, 0, 3);
    }
    if (p->win_count == 1)
      memcpy(dst + dofs * esz, src + oofs * esz, p->esz);
    else
      strided_copy(&p->win, dst + dofs * esz, src + oofs * esz, p->esz);
  }
  return NULL;
}

const shl_kernel kernel_gather = {gather_prepare, gather_run};
