/* Ops that move elements by position -> tensor/linalg: pad (linalg.fill of
 * the padding value + tensor.insert_slice with the interior as stride, after
 * an extract_slice that drops what negative edges cut), reverse
 * (linalg.generic reading at `size - 1 - d`), dynamic_slice and
 * dynamic_update_slice (tensor.extract_slice / insert_slice at offsets
 * clamped to [0, dim - size], as the spec says). */
#include "passes/lower_linalg_emit.h"

#define LL_MAX_RANK 16

static shl_status ints(const shl_op *op, const char *name, int64_t *out, size_t n_want) {
  const shl_attr *a = op_attr(op, name);
  size_t n = 0;
  if (!a || !attr_as_ints(a, out, LL_MAX_RANK, &n) || n != n_want) return ll_refuse(op, "bad dimension attribute");
  return NULL;
}

static void static_list(ll_emit *e, const int64_t *v, int n) {
  pr_puts(&e->pr, "[");
  for (int i = 0; i < n; i++) pr_printf(&e->pr, "%s%lld", i ? ", " : "", (long long)v[i]);
  pr_puts(&e->pr, "]");
}

static void tmp_list(ll_emit *e, const uint32_t *v, int n) {
  pr_puts(&e->pr, "[");
  for (int i = 0; i < n; i++) {
    if (i) pr_puts(&e->pr, ", ");
    ll_tmp(e, v[i]);
  }
  pr_puts(&e->pr, "]");
}

/* %f = linalg.fill of the rank-0 tensor `scalar` into a new tensor of type t. */
static uint32_t fill_from(ll_emit *e, const shl_value *scalar, const shl_type *t) {
  uint32_t s = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, s);
  pr_puts(&e->pr, " = tensor.extract ");
  ll_val(e, scalar);
  pr_puts(&e->pr, "[] : ");
  ll_type(e, scalar->type);
  uint32_t empty = ll_empty(e, t), f = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, f);
  pr_printf(&e->pr, " = linalg.fill ins(");
  ll_tmp(e, s);
  pr_printf(&e->pr, " : %s) outs(", ll_dtype(type_storage_dtype(t)));
  ll_tmp(e, empty);
  pr_puts(&e->pr, " : ");
  ll_type(e, t);
  pr_puts(&e->pr, ") -> ");
  ll_type(e, t);
  return f;
}

static shl_status pad(ll_emit *e, const shl_op *op) {
  const shl_type *it = op->operands[0]->type, *rt = op->results[0].type;
  int r = rt->rank;
  if (r > LL_MAX_RANK) return ll_refuse(op, "rank too large");
  int64_t lo[LL_MAX_RANK], hi[LL_MAX_RANK], in[LL_MAX_RANK];
  ST_TRY(ints(op, "edge_padding_low", lo, (size_t)r));
  ST_TRY(ints(op, "edge_padding_high", hi, (size_t)r));
  ST_TRY(ints(op, "interior_padding", in, (size_t)r));
  int64_t first[LL_MAX_RANK], count[LL_MAX_RANK], off[LL_MAX_RANK], step[LL_MAX_RANK], one[LL_MAX_RANK];
  bool any = true, whole = true;
  for (int d = 0; d < r; d++) {
    int64_t n = it->dims[d], s = in[d] + 1, out = rt->dims[d];
    /* operand element i lands at lo + i * s; keep those inside [0, out) */
    int64_t i0 = lo[d] >= 0 ? 0 : (-lo[d] + s - 1) / s;
    int64_t i1 = out - 1 - lo[d] < 0 ? -1 : (out - 1 - lo[d]) / s;
    if (i1 > n - 1) i1 = n - 1;
    first[d] = i0;
    count[d] = i1 - i0 + 1;
    off[d] = lo[d] + i0 * s;
    step[d] = s;
    one[d] = 1;
    if (count[d] <= 0) any = false;
    if (i0 != 0 || count[d] != n) whole = false;
  }
  uint32_t f = fill_from(e, op->operands[1], rt);
  uint32_t src = 0;
  const shl_value *src_val = op->operands[0];
  shl_type st = *it;
  st.dims = count;
  if (any && !whole) {
    src = ll_fresh(e);
    src_val = NULL;
    pr_newline(&e->pr);
    ll_tmp(e, src);
    pr_puts(&e->pr, " = tensor.extract_slice ");
    ll_val(e, op->operands[0]);
    static_list(e, first, r);
    static_list(e, count, r);
    static_list(e, one, r);
    pr_puts(&e->pr, " : ");
    ll_type(e, it);
    pr_puts(&e->pr, " to ");
    ll_type(e, &st);
  }
  pr_newline(&e->pr);
  ll_results(e, op);
  if (!any) { /* nothing of the operand survives */
    pr_puts(&e->pr, "tensor.cast ");
    ll_tmp(e, f);
    pr_puts(&e->pr, " : ");
    ll_type(e, rt);
    pr_puts(&e->pr, " to ");
    ll_type(e, rt);
    return NULL;
  }
  pr_puts(&e->pr, "tensor.insert_slice ");
  if (src_val) ll_val(e, src_val);
  else ll_tmp(e, src);
  pr_puts(&e->pr, " into ");
  ll_tmp(e, f);
  static_list(e, off, r);
  static_list(e, count, r);
  static_list(e, step, r);
  pr_puts(&e->pr, " : ");
  ll_type(e, &st);
  pr_puts(&e->pr, " into ");
  ll_type(e, rt);
  return NULL;
}

static shl_status reverse(ll_emit *e, const shl_op *op) {
  const shl_type *rt = op->results[0].type;
  int r = rt->rank;
  int64_t dims[LL_MAX_RANK];
  size_t n = 0;
  const shl_attr *a = op_attr(op, "dimensions");
  if (r > LL_MAX_RANK || !a || !attr_as_ints(a, dims, LL_MAX_RANK, &n) || n > LL_MAX_RANK)
    return ll_refuse(op, "bad dimensions");
  bool rev[LL_MAX_RANK] = {false};
  for (size_t i = 0; i < n; i++)
    if (dims[i] >= 0 && dims[i] < r) rev[dims[i]] = true;
  const char *et = ll_dtype(type_storage_dtype(rt));
  uint32_t empty = ll_empty(e, rt);
  pr_newline(&e->pr);
  ll_results(e, op);
  pr_puts(&e->pr, "linalg.generic {indexing_maps = [affine_map<(");
  for (int i = 0; i < r; i++) pr_printf(&e->pr, "%sd%d", i ? ", " : "", i);
  pr_puts(&e->pr, ") -> (");
  for (int i = 0; i < r; i++) {
    if (rev[i]) pr_printf(&e->pr, "%s%lld - d%d", i ? ", " : "", (long long)rt->dims[i] - 1, i);
    else pr_printf(&e->pr, "%sd%d", i ? ", " : "", i);
  }
  pr_puts(&e->pr, ")>, ");
  ll_identity_map(e, r);
  pr_puts(&e->pr, "], ");
  ll_iterators(e, r, NULL);
  pr_puts(&e->pr, "} ");
  ll_ins_outs(e, op->operands, 1, empty, rt);
  pr_puts(&e->pr, " {");
  uint32_t x = ll_fresh(e), o = ll_fresh(e);
  pr_newline(&e->pr);
  pr_puts(&e->pr, "^bb0(");
  ll_tmp(e, x);
  pr_printf(&e->pr, ": %s, ", et);
  ll_tmp(e, o);
  pr_printf(&e->pr, ": %s):", et);
  e->pr.indent += 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "linalg.yield ");
  ll_tmp(e, x);
  pr_printf(&e->pr, " : %s", et);
  e->pr.indent -= 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "} -> ");
  ll_type(e, rt);
  return NULL;
}

/* The start index in `v` (a rank-0 integer tensor) clamped to [0, limit],
 * as an index. */
static uint32_t clamped_start(ll_emit *e, const shl_value *v, int64_t limit) {
  shl_dtype dt = v->type->dtype;
  bool uns = dtype_class(dt) == DTC_UINT;
  unsigned bits = dtype_bits(dt);
  uint32_t s = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, s);
  pr_puts(&e->pr, " = tensor.extract ");
  ll_val(e, v);
  pr_puts(&e->pr, "[] : ");
  ll_type(e, v->type);
  /* clamp in the index's own type; a limit beyond its range cannot bind */
  int64_t type_max = bits >= 64 ? INT64_MAX : uns ? (int64_t)((1ull << bits) - 1) : (int64_t)((1ull << (bits - 1)) - 1);
  if (limit <= type_max) s = ll_bin(e, uns ? "arith.minui" : "arith.minsi", s, ll_cst_int(e, limit, dt), dt);
  if (!uns) s = ll_bin(e, "arith.maxsi", s, ll_cst_int(e, 0, dt), dt);
  uint32_t ix = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, ix);
  pr_printf(&e->pr, " = arith.%s ", uns ? "index_castui" : "index_cast");
  ll_tmp(e, s);
  pr_printf(&e->pr, " : %s to index", ll_dtype(dt));
  return ix;
}

static shl_status dynamic_slice(ll_emit *e, const shl_op *op) {
  const shl_type *it = op->operands[0]->type, *rt = op->results[0].type;
  int r = it->rank;
  if (r > LL_MAX_RANK || op->n_operands != (uint32_t)r + 1) return ll_refuse(op, "one start index per dimension");
  for (int d = 0; d < r; d++)
    if (!ll_native_dtype(op->operands[1 + d]->type->dtype) && dtype_class(op->operands[1 + d]->type->dtype) != DTC_UINT)
      return ll_refuse(op, "start index type");
  uint32_t off[LL_MAX_RANK];
  int64_t one[LL_MAX_RANK];
  for (int d = 0; d < r; d++) {
    off[d] = clamped_start(e, op->operands[1 + d], it->dims[d] - rt->dims[d]);
    one[d] = 1;
  }
  pr_newline(&e->pr);
  ll_results(e, op);
  pr_puts(&e->pr, "tensor.extract_slice ");
  ll_val(e, op->operands[0]);
  tmp_list(e, off, r);
  static_list(e, rt->dims, r);
  static_list(e, one, r);
  pr_puts(&e->pr, " : ");
  ll_type(e, it);
  pr_puts(&e->pr, " to ");
  ll_type(e, rt);
  return NULL;
}

static shl_status dynamic_update_slice(ll_emit *e, const shl_op *op) {
  const shl_type *it = op->operands[0]->type, *ut = op->operands[1]->type;
  int r = it->rank;
  if (r > LL_MAX_RANK || op->n_operands != (uint32_t)r + 2) return ll_refuse(op, "one start index per dimension");
  for (int d = 0; d < r; d++)
    if (!ll_native_dtype(op->operands[2 + d]->type->dtype) && dtype_class(op->operands[2 + d]->type->dtype) != DTC_UINT)
      return ll_refuse(op, "start index type");
  uint32_t off[LL_MAX_RANK];
  int64_t one[LL_MAX_RANK];
  for (int d = 0; d < r; d++) {
    off[d] = clamped_start(e, op->operands[2 + d], it->dims[d] - ut->dims[d]);
    one[d] = 1;
  }
  pr_newline(&e->pr);
  ll_results(e, op);
  pr_puts(&e->pr, "tensor.insert_slice ");
  ll_val(e, op->operands[1]);
  pr_puts(&e->pr, " into ");
  ll_val(e, op->operands[0]);
  tmp_list(e, off, r);
  static_list(e, ut->dims, r);
  static_list(e, one, r);
  pr_puts(&e->pr, " : ");
  ll_type(e, ut);
  pr_puts(&e->pr, " into ");
  ll_type(e, it);
  return NULL;
}

shl_status ll_index_op(ll_emit *e, const shl_op *op, bool *handled) {
  *handled = true;
  switch (op_id(op)) {
  case OP_PAD: return pad(e, op);
  case OP_REVERSE: return reverse(e, op);
  case OP_DYNAMIC_SLICE: return dynamic_slice(e, op);
  case OP_DYNAMIC_UPDATE_SLICE: return dynamic_update_slice(e, op);
  case OP_GATHER: return ll_gather(e, op);
  case OP_SCATTER: return ll_scatter_rows(e, op);
  default: *handled = false; return NULL;
  }
}
