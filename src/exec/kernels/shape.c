/* Shape ops: broadcast_in_dim, broadcast, reshape, transpose, reverse,
 * slice, concatenate, pad, get_dimension_size, tuples and interpreter probes.
 * Each prepare turns the op into strided boxes (strided.h) once; runs only
 * copy.  Element types do not matter here beyond their storage size. */
#include <stdio.h>

#include "exec/plan.h"
#include "text/print_value.h"
#include "kutil.h"
#include "strided.h"

/* One strided copy from an offset of the operand to an offset of the result. */
typedef struct {
  strided_box box;
  int64_t src_off, dst_off; /* bytes */
  size_t esz;
} copy_params;

static shl_status static_tensor(const shl_op *op, const shl_type *t, const char *what) {
  if (!t || t->kind != TY_TENSOR || !type_is_static(t))
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "%s must be a statically shaped tensor", what);
  if (t->rank > STRIDED_MAX_RANK) return op_error(op, SHLOC_ERR_UNSUPPORTED, "rank %d is too large", (int)t->rank);
  if (t->dtype == DT_QUANT && !t->quant) return op_error(op, SHLOC_ERR_UNSUPPORTED, "has a quantized type without storage");
  return NULL;
}

static shl_status operand_and_result(const shl_op *op) {
  if (op->n_operands < 1 || op->n_results != 1) return op_error(op, SHLOC_ERR_VERIFY, "has the wrong number of operands or results");
  ST_TRY(static_tensor(op, op->operands[0]->type, "the operand"));
  return static_tensor(op, op->results[0].type, "the result");
}

static copy_params *new_copy(plan_ctx *pc, int32_t rank) {
  copy_params *p = plan_alloc(pc, sizeof *p);
  if (p) {
    memset(p, 0, sizeof *p);
    p->box.rank = rank;
  }
  return p;
}

static shl_status finish_copy(copy_params *p, const shl_type *t, void **params) {
  p->esz = dtype_bytes(type_storage_dtype(t));
  p->src_off *= (int64_t)p->esz;
  p->dst_off *= (int64_t)p->esz;
  strided_finish(&p->box, p->esz);
  *params = p;
  return NULL;
}

static shl_status copy_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  (void)ec;
  const copy_params *p = po->params;
  strided_copy(&p->box, (uint8_t *)out[0]->data + p->dst_off, (const uint8_t *)in[0]->data + p->src_off, p->esz);
  return NULL;
}

static shl_status get_ints(const shl_op *op, const char *name, int64_t *v, size_t want) {
  size_t n;
  if (!ku_ints(op, name, v, STRIDED_MAX_RANK, &n) || n != want)
    return op_error(op, SHLOC_ERR_VERIFY, "needs '%s' with %zu entries", name, want);
  return NULL;
}

/* ---- broadcast_in_dim / broadcast ---- */

/* Result dimension map[k] receives operand dimension k (size-1 operand
 * dimensions are broadcast: stride 0). */
static shl_status broadcast_common(plan_ctx *pc, const shl_op *op, const int64_t *map, void **params) {
  const shl_type *it = op->operands[0]->type, *ot = op->results[0].type;
  copy_params *p = new_copy(pc, ot->rank);
  if (!p) return st_oom();
  int64_t is[STRIDED_MAX_RANK], os[STRIDED_MAX_RANK];
  strided_row_major(it->rank, it->dims, is);
  strided_row_major(ot->rank, ot->dims, os);
  for (int32_t d = 0; d < ot->rank; d++) {
    p->box.dims[d] = ot->dims[d];
    p->box.ds[d] = os[d];
  }
  for (int32_t k = 0; k < it->rank; k++) {
    int64_t d = map[k];
    if (d < 0 || d >= ot->rank || (it->dims[k] != 1 && it->dims[k] != ot->dims[d]))
      return op_error(op, SHLOC_ERR_VERIFY, "operand dimension %d does not broadcast to result dimension %lld", (int)k, (long long)d);
    p->box.ss[d] = it->dims[k] == 1 ? 0 : is[k];
  }
  return finish_copy(p, ot, params);
}

static shl_status broadcast_in_dim_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  ST_TRY(operand_and_result(op));
  int64_t map[STRIDED_MAX_RANK];
  ST_TRY(get_ints(op, "broadcast_dimensions", map, (size_t)op->operands[0]->type->rank));
  return broadcast_common(pc, op, map, params);
}

static shl_status broadcast_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  ST_TRY(operand_and_result(op));
  const shl_type *it = op->operands[0]->type, *ot = op->results[0].type;
  int64_t map[STRIDED_MAX_RANK];
  int32_t lead = ot->rank - it->rank;
  if (lead < 0) return op_error(op, SHLOC_ERR_VERIFY, "result rank is below the operand rank");
  for (int32_t k = 0; k < it->rank; k++) map[k] = lead + k;
  return broadcast_common(pc, op, map, params);
}

const shl_kernel kernel_broadcast_in_dim = {broadcast_in_dim_prepare, copy_run};
const shl_kernel kernel_broadcast = {broadcast_prepare, copy_run};

/* ---- reshape (row-major order is unchanged) ---- */

static shl_status reshape_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  (void)pc, (void)params;
  ST_TRY(operand_and_result(op));
  if (type_num_bytes(op->operands[0]->type) != type_num_bytes(op->results[0].type))
    return op_error(op, SHLOC_ERR_VERIFY, "operand and result sizes differ");
  return NULL;
}

static shl_status reshape_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  (void)ec, (void)po;
  if (out[0]->nbytes) memcpy(out[0]->data, in[0]->data, out[0]->nbytes);
  return NULL;
}

const shl_kernel kernel_reshape = {reshape_prepare, reshape_run};

/* ---- transpose ---- */

static shl_status transpose_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  ST_TRY(operand_and_result(op));
  const shl_type *it = op->operands[0]->type, *ot = op->results[0].type;
  int64_t perm[STRIDED_MAX_RANK], is[STRIDED_MAX_RANK], os[STRIDED_MAX_RANK];
  ST_TRY(get_ints(op, "permutation", perm, (size_t)it->rank));
  if (ot->rank != it->rank) return op_error(op, SHLOC_ERR_VERIFY, "result rank differs from the operand rank");
  copy_params *p = new_copy(pc, ot->rank);
  if (!p) return st_oom();
  strided_row_major(it->rank, it->dims, is);
  strided_row_major(ot->rank, ot->dims, os);
  for (int32_t d = 0; d < ot->rank; d++) {
    if (perm[d] < 0 || perm[d] >= it->rank || it->dims[perm[d]] != ot->dims[d])
      return op_error(op, SHLOC_ERR_VERIFY, "permutation does not match the result shape");
    p->box.dims[d] = ot->dims[d];
    p->box.ds[d] = os[d];
    p->box.ss[d] = is[perm[d]];
  }
  return finish_copy(p, ot, params);
}

const shl_kernel kernel_transpose = {transpose_prepare, copy_run};

/* ---- reverse ---- */

static shl_status reverse_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  ST_TRY(operand_and_result(op));
  const shl_type *t = op->results[0].type;
  int64_t dims[STRIDED_MAX_RANK], st[STRIDED_MAX_RANK];
  size_t nd;
  if (!ku_ints(op, "dimensions", dims, STRIDED_MAX_RANK, &nd)) return op_error(op, SHLOC_ERR_VERIFY, "needs 'dimensions'");
  copy_params *p = new_copy(pc, t->rank);
  if (!p) return st_oom();
  strided_row_major(t->rank, t->dims, st);
  for (int32_t d = 0; d < t->rank; d++) {
    p->box.dims[d] = t->dims[d];
    p->box.ds[d] = p->box.ss[d] = st[d];
  }
  for (size_t k = 0; k < nd; k++) {
    int64_t d = dims[k];
    if (d < 0 || d >= t->rank) return op_error(op, SHLOC_ERR_VERIFY, "dimension %lld is out of range", (long long)d);
    if (p->box.ss[d] < 0) continue; /* listed twice: reversed once */
    if (t->dims[d] > 0) p->src_off += (t->dims[d] - 1) * st[d];
    p->box.ss[d] = -st[d];
  }
  return finish_copy(p, t, params);
}

const shl_kernel kernel_reverse = {reverse_prepare, copy_run};

/* ---- slice ---- */

static shl_status slice_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  ST_TRY(operand_and_result(op));
  const shl_type *it = op->operands[0]->type, *ot = op->results[0].type;
  int32_t r = it->rank;
  int64_t start[STRIDED_MAX_RANK], limit[STRIDED_MAX_RANK], step[STRIDED_MAX_RANK], is[STRIDED_MAX_RANK],
      os[STRIDED_MAX_RANK];
  ST_TRY(get_ints(op, "start_indices", start, (size_t)r));
  ST_TRY(get_ints(op, "limit_indices", limit, (size_t)r));
  ST_TRY(get_ints(op, "strides", step, (size_t)r));
  if (ot->rank != r) return op_error(op, SHLOC_ERR_VERIFY, "result rank differs from the operand rank");
  copy_params *p = new_copy(pc, r);
  if (!p) return st_oom();
  strided_row_major(r, it->dims, is);
  strided_row_major(r, ot->dims, os);
  for (int32_t d = 0; d < r; d++) {
    if (step[d] <= 0 || start[d] < 0 || limit[d] < start[d] || limit[d] > it->dims[d] ||
        ot->dims[d] != (limit[d] - start[d] + step[d] - 1) / step[d])
      return op_error(op, SHLOC_ERR_VERIFY, "slice bounds of dimension %d do not fit", (int)d);
    p->box.dims[d] = ot->dims[d];
    p->box.ds[d] = os[d];
    p->box.ss[d] = is[d] * step[d];
    p->src_off += start[d] * is[d];
  }
  return finish_copy(p, ot, params);
}

const shl_kernel kernel_slice = {slice_prepare, copy_run};

/* ---- concatenate ---- */

typedef struct {
  uint32_t n;
  copy_params *parts; /* one per operand */
} concat_params;

static shl_status concatenate_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  if (op->n_results != 1 || op->n_operands < 1) return op_error(op, SHLOC_ERR_VERIFY, "needs operands and one result");
  const shl_type *ot = op->results[0].type;
  ST_TRY(static_tensor(op, ot, "the result"));
  int64_t dim;
  if (!attr_as_int(op_attr(op, "dimension"), &dim) || dim < 0 || dim >= ot->rank)
    return op_error(op, SHLOC_ERR_VERIFY, "needs a valid 'dimension'");
  concat_params *cp = plan_alloc(pc, sizeof *cp);
  copy_params *parts = plan_alloc(pc, op->n_operands * sizeof *parts);
  if (!cp || !parts) return st_oom();
  cp->n = op->n_operands;
  cp->parts = parts;
  int64_t os[STRIDED_MAX_RANK], is[STRIDED_MAX_RANK], at = 0;
  strided_row_major(ot->rank, ot->dims, os);
  for (uint32_t i = 0; i < op->n_operands; i++) {
    const shl_type *it = op->operands[i]->type;
    ST_TRY(static_tensor(op, it, "an operand"));
    if (it->rank != ot->rank) return op_error(op, SHLOC_ERR_VERIFY, "operand ranks differ");
    strided_row_major(it->rank, it->dims, is);
    copy_params *p = &parts[i];
    memset(p, 0, sizeof *p);
    p->box.rank = it->rank;
    for (int32_t d = 0; d < it->rank; d++) {
      p->box.dims[d] = it->dims[d];
      p->box.ss[d] = is[d];
      p->box.ds[d] = os[d];
    }
    p->dst_off = at * os[dim];
    at += it->dims[dim];
    void *unused;
    ST_TRY(finish_copy(p, ot, &unused));
  }
  if (at != ot->dims[dim]) return op_error(op, SHLOC_ERR_VERIFY, "operand sizes do not add up to the result");
  *params = cp;
  return NULL;
}

static shl_status concatenate_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  (void)ec;
  const concat_params *cp = po->params;
  for (uint32_t i = 0; i < cp->n; i++) {
    const copy_params *p = &cp->parts[i];
    strided_copy(&p->box, (uint8_t *)out[0]->data + p->dst_off, (const uint8_t *)in[i]->data + p->src_off, p->esz);
  }
  return NULL;
}

const shl_kernel kernel_concatenate = {concatenate_prepare, concatenate_run};

/* ---- pad: fill with the padding value, then copy the operand's visible part ---- */

static shl_status pad_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  ST_TRY(operand_and_result(op));
  if (op->n_operands != 2) return op_error(op, SHLOC_ERR_VERIFY, "needs an operand and a padding value");
  const shl_type *it = op->operands[0]->type, *ot = op->results[0].type;
  int32_t r = it->rank;
  int64_t lo[STRIDED_MAX_RANK], hi[STRIDED_MAX_RANK], in[STRIDED_MAX_RANK], is[STRIDED_MAX_RANK], os[STRIDED_MAX_RANK];
  ST_TRY(get_ints(op, "edge_padding_low", lo, (size_t)r));
  ST_TRY(get_ints(op, "edge_padding_high", hi, (size_t)r));
  ST_TRY(get_ints(op, "interior_padding", in, (size_t)r));
  if (ot->rank != r) return op_error(op, SHLOC_ERR_VERIFY, "result rank differs from the operand rank");
  copy_params *p = new_copy(pc, r);
  if (!p) return st_oom();
  strided_row_major(r, it->dims, is);
  strided_row_major(r, ot->dims, os);
  for (int32_t d = 0; d < r; d++) {
    int64_t n = it->dims[d], step = in[d] + 1, out_n = ot->dims[d];
    if (in[d] < 0 || out_n != lo[d] + hi[d] + (n ? n + (n - 1) * in[d] : 0))
      return op_error(op, SHLOC_ERR_VERIFY, "padding of dimension %d does not match the result", (int)d);
    /* Operand element i lands at lo + i*step; keep those inside [0, out_n). */
    int64_t i_lo = lo[d] >= 0 ? 0 : (-lo[d] + step - 1) / step;
    int64_t i_hi = out_n - 1 - lo[d] < 0 ? 0 : (out_n - 1 - lo[d]) / step + 1;
    if (i_hi > n) i_hi = n;
    int64_t cnt = i_hi > i_lo ? i_hi - i_lo : 0;
    p->box.dims[d] = cnt;
    p->box.ss[d] = is[d];
    p->box.ds[d] = os[d] * step;
    if (cnt) {
      p->src_off += i_lo * is[d];
      p->dst_off += (lo[d] + i_lo * step) * os[d];
    }
  }
  return finish_copy(p, ot, params);
}

static shl_status pad_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  (void)ec;
  const copy_params *p = po->params;
  strided_fill(out[0]->data, out[0]->n, in[1]->data, p->esz);
  strided_copy(&p->box, (uint8_t *)out[0]->data + p->dst_off, (const uint8_t *)in[0]->data + p->src_off, p->esz);
  return NULL;
}

const shl_kernel kernel_pad = {pad_prepare, pad_run};

/* ---- get_dimension_size ---- */

static shl_status get_dimension_size_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  ST_TRY(operand_and_result(op));
  int64_t d;
  const shl_type *t = op->operands[0]->type;
  if (!attr_as_int(op_attr(op, "dimension"), &d) || d < 0 || d >= t->rank)
    return op_error(op, SHLOC_ERR_VERIFY, "needs a valid 'dimension'");
  if (!dtype_is_int(type_storage_dtype(op->results[0].type)))
    return op_error(op, SHLOC_ERR_VERIFY, "result must be an integer scalar");
  int64_t *v = plan_alloc(pc, sizeof *v);
  if (!v) return st_oom();
  *v = t->dims[d];
  *params = v;
  return NULL;
}

static shl_status get_dimension_size_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  (void)ec, (void)in;
  int_store(out[0]->dtype, out[0]->data, *(const int64_t *)po->params);
  return NULL;
}

const shl_kernel kernel_get_dimension_size = {get_dimension_size_prepare, get_dimension_size_run};

/* ---- tuples: the planner gives a tuple value one buffer per leaf
 * (plan_leaf_count), so tuple and get_tuple_element copy leaves. ---- */

static void copy_leaves(shl_buf *const *dst, shl_buf *const *src, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (dst[i]->data != src[i]->data && src[i]->nbytes) memcpy(dst[i]->data, src[i]->data, src[i]->nbytes);
}

static shl_status tuple_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  (void)ec;
  copy_leaves(out, in, po->n_out);
  return NULL;
}

/* params: index of the element's first leaf among the operand's leaves. */
static shl_status get_tuple_element_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  const shl_type *t = op->operands[0]->type;
  int64_t idx;
  if (!attr_as_int(op_attr(op, "index"), &idx) || idx < 0 || idx >= t->n_in)
    return op_error(op, SHLOC_ERR_VERIFY, "index is missing or out of range");
  uint32_t *first = plan_alloc(pc, sizeof *first);
  if (!first) return st_oom();
  *first = 0;
  for (int64_t i = 0; i < idx; i++) *first += plan_leaf_count(t->in[i]);
  *params = first;
  return NULL;
}

static shl_status get_tuple_element_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  (void)ec;
  copy_leaves(out, in + *(const uint32_t *)po->params, po->n_out);
  return NULL;
}

const shl_kernel kernel_tuple = {NULL, tuple_run};
const shl_kernel kernel_get_tuple_element = {get_tuple_element_prepare, get_tuple_element_run};

/* ---- interpreter.print: passes the operand through and hands it, formatted
 * as the reference interpreter prints tensors, to the executable's print
 * sink (exec_config.print); the library itself never writes to stdout.
 * (interpreter.probe records values: probe.c.) ---- */

/* interpreter.print's line prefix, "%name = " as the reference interpreter
 * writes it (the operand's name in the printed function), found once here. */
static shl_status passthrough_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  *params = NULL;
  if (!op_is(op, OP_INTERPRETER_PRINT) || !plan_config(pc)->print || !op->n_operands) return NULL;
  char *name;
  shl_status st = printer_value_name(op->operands[0], &name);
  if (st) return st_at(st, &op->pos, NULL);
  size_t n = strlen(name);
  char *prefix = plan_alloc(pc, n + 4);
  if (prefix) snprintf(prefix, n + 4, "%s = ", name);
  free(name);
  if (!prefix) return st_oom();
  *params = prefix;
  return NULL;
}

static shl_status passthrough_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const exec_config *cfg = &ec->x->cfg;
  if (po->params) {
    char *text;
    size_t len;
    shl_status st = print_interpreter_value(in[0]->type, in[0]->data, in[0]->nbytes, &text, &len);
    if (st) return st_at(st, &po->op->pos, NULL);
    text[len] = '\n'; /* the NUL becomes the line end */
    const char *prefix = po->params;
    cfg->print(cfg->print_user, prefix, strlen(prefix));
    cfg->print(cfg->print_user, text, len + 1);
    free(text);
  }
  for (uint32_t i = 0; i < po->op->n_results && i < po->op->n_operands; i++)
    if (out[i]->nbytes && out[i]->data != in[i]->data) memcpy(out[i]->data, in[i]->data, out[i]->nbytes);
  return NULL;
}

const shl_kernel kernel_passthrough = {passthrough_prepare, passthrough_run};
