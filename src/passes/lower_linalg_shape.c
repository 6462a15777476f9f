/* Data-movement ops -> linalg/tensor: broadcast_in_dim (linalg.generic with
 * a projected input map), transpose (linalg.transpose), reshape (collapse to
 * rank 1, expand to the result), slice (tensor.extract_slice), concatenate
 * (tensor.concat), iota (linalg.generic over linalg.index). */
#include "passes/lower_linalg_emit.h"

#define LL_MAX_RANK 16

static shl_status ints_attr(const shl_op *op, const char *name, int64_t *out, size_t *n) {
  const shl_attr *a = op_attr(op, name);
  if (!a || !attr_as_ints(a, out, LL_MAX_RANK, n) || *n > LL_MAX_RANK)
    return ll_refuse(op, "missing or oversized dimension attribute");
  return NULL;
}

static shl_status broadcast_in_dim(ll_emit *e, const shl_op *op) {
  const shl_type *it = op->operands[0]->type, *rt = op->results[0].type;
  int64_t bd[LL_MAX_RANK];
  size_t n;
  ST_TRY(ints_attr(op, "broadcast_dimensions", bd, &n));
  if ((int)n != it->rank || rt->rank > LL_MAX_RANK) return ll_refuse(op, "broadcast_dimensions do not match the operand");
  for (size_t i = 0; i < n; i++)
    if (it->dims[i] == 1 && rt->dims[bd[i]] != 1) bd[i] = -1; /* a size-1 dimension is broadcast */
  uint32_t empty = ll_empty(e, rt);
  ll_parallel_type(e, rt); /* one left unfused (a scatter's operand) is a large fill */
  pr_newline(&e->pr);
  ll_results(e, op);
  pr_puts(&e->pr, "linalg.generic {indexing_maps = [");
  ll_map(e, rt->rank, bd, (int)n);
  pr_puts(&e->pr, ", ");
  ll_identity_map(e, rt->rank);
  pr_puts(&e->pr, "], ");
  ll_iterators(e, rt->rank, NULL);
  pr_puts(&e->pr, "} ");
  ll_ins_outs(e, op->operands, 1, empty, rt);
  uint32_t x = ll_fresh(e), o = ll_fresh(e);
  pr_puts(&e->pr, " {");
  pr_newline(&e->pr);
  pr_puts(&e->pr, "^bb0(");
  ll_tmp(e, x);
  pr_printf(&e->pr, ": %s, ", ll_dtype(it->dtype));
  ll_tmp(e, o);
  pr_printf(&e->pr, ": %s):", ll_dtype(rt->dtype));
  e->pr.indent += 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "linalg.yield ");
  ll_tmp(e, x);
  pr_printf(&e->pr, " : %s", ll_dtype(rt->dtype));
  e->pr.indent -= 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "} -> ");
  ll_type(e, rt);
  return NULL;
}

static shl_status transpose(ll_emit *e, const shl_op *op) {
  int64_t perm[LL_MAX_RANK];
  size_t n;
  ST_TRY(ints_attr(op, "permutation", perm, &n));
  const shl_type *rt = op->results[0].type;
  uint32_t empty = ll_empty(e, rt);
  ll_parallel_type(e, rt);
  pr_newline(&e->pr);
  ll_results(e, op);
  pr_puts(&e->pr, "linalg.transpose ");
  ll_ins_outs(e, op->operands, 1, empty, rt);
  pr_puts(&e->pr, " permutation = [");
  for (size_t i = 0; i < n; i++) pr_printf(&e->pr, "%s%lld", i ? ", " : "", (long long)perm[i]);
  pr_puts(&e->pr, "]");
  return NULL;
}

/* [[0, 1, ..., rank-1]], or [] for rank 0. */
static void reassoc_all(ll_emit *e, int rank) {
  pr_puts(&e->pr, rank ? "[[" : "[");
  for (int i = 0; i < rank; i++) pr_printf(&e->pr, "%s%d", i ? ", " : "", i);
  pr_puts(&e->pr, rank ? "]]" : "]");
}

/* One collapse_shape or expand_shape step: src (a value or, when in_val is
 * NULL, temporary tmp) of type from -> to, named *out (fresh) or as op's
 * result when last. */
static void reshape_step(ll_emit *e, const shl_op *op, const char *kind, const shl_value *in_val, uint32_t tmp,
                         const shl_type *from, const shl_type *to, bool last, uint32_t *out) {
  pr_newline(&e->pr);
  if (last) {
    ll_results(e, op);
  } else {
    *out = ll_fresh(e);
    ll_tmp(e, *out);
    pr_puts(&e->pr, " = ");
  }
  pr_printf(&e->pr, "tensor.%s ", kind);
  if (in_val) ll_val(e, in_val);
  else ll_tmp(e, tmp);
  pr_puts(&e->pr, " ");
  bool expand = kind[0] == 'e';
  const shl_type *big = expand ? to : from, *small = expand ? from : to;
  reassoc_all(e, small->rank == 0 ? 0 : big->rank);
  if (expand) {
    pr_puts(&e->pr, " output_shape [");
    for (int i = 0; i < to->rank; i++) pr_printf(&e->pr, "%s%lld", i ? ", " : "", (long long)to->dims[i]);
    pr_puts(&e->pr, "]");
  }
  pr_puts(&e->pr, " : ");
  ll_type(e, from);
  pr_puts(&e->pr, " into ");
  ll_type(e, to);
}

/* Through rank 1 (or straight to/from rank 0); equal shapes are a tensor.cast. */
static shl_status reshape(ll_emit *e, const shl_op *op) {
  const shl_type *it = op->operands[0]->type, *rt = op->results[0].type;
  int64_t count = type_num_elements(rt);
  if (count < 0) return ll_refuse(op, "result too large");
  bool same = it->rank == rt->rank;
  for (int i = 0; same && i < rt->rank; i++) same = it->dims[i] == rt->dims[i];
  if (same) {
    pr_newline(&e->pr);
    ll_results(e, op);
    pr_puts(&e->pr, "tensor.cast ");
    ll_val(e, op->operands[0]);
    pr_puts(&e->pr, " : ");
    ll_type(e, it);
    pr_puts(&e->pr, " to ");
    ll_type(e, rt);
    return NULL;
  }
  uint32_t mid = 0;
  if (it->rank == 0 || rt->rank == 0) {
    reshape_step(e, op, it->rank == 0 ? "expand_shape" : "collapse_shape", op->operands[0], 0, it, rt, true, &mid);
    return NULL;
  }
  int64_t flat_dims[1] = {count};
  shl_type flat = *rt;
  flat.rank = 1;
  flat.dims = flat_dims;
  if (it->rank == 1) {
    reshape_step(e, op, "expand_shape", op->operands[0], 0, it, rt, true, &mid);
  } else if (rt->rank == 1) {
    reshape_step(e, op, "collapse_shape", op->operands[0], 0, it, rt, true, &mid);
  } else {
    reshape_step(e, op, "collapse_shape", op->operands[0], 0, it, &flat, false, &mid);
    reshape_step(e, op, "expand_shape", NULL, mid, &flat, rt, true, &mid);
  }
  return NULL;
}

static void int_list(ll_emit *e, const int64_t *v, size_t n) {
  pr_puts(&e->pr, "[");
  for (size_t i = 0; i < n; i++) pr_printf(&e->pr, "%s%lld", i ? ", " : "", (long long)v[i]);
  pr_puts(&e->pr, "]");
}

static shl_status slice(ll_emit *e, const shl_op *op) {
  int64_t start[LL_MAX_RANK], limit[LL_MAX_RANK], stride[LL_MAX_RANK], size[LL_MAX_RANK];
  size_t n, n2, n3;
  ST_TRY(ints_attr(op, "start_indices", start, &n));
  ST_TRY(ints_attr(op, "limit_indices", limit, &n2));
  ST_TRY(ints_attr(op, "strides", stride, &n3));
  const shl_type *rt = op->results[0].type;
  if (n != n2 || n != n3 || (int)n != rt->rank) return ll_refuse(op, "inconsistent slice attributes");
  for (size_t i = 0; i < n; i++) size[i] = rt->dims[i];
  pr_newline(&e->pr);
  ll_results(e, op);
  pr_puts(&e->pr, "tensor.extract_slice ");
  ll_val(e, op->operands[0]);
  int_list(e, start, n);
  int_list(e, size, n);
  int_list(e, stride, n);
  pr_puts(&e->pr, " : ");
  ll_type(e, op->operands[0]->type);
  pr_puts(&e->pr, " to ");
  ll_type(e, rt);
  return NULL;
}

static shl_status concatenate(ll_emit *e, const shl_op *op) {
  const shl_attr *d = op_attr(op, "dimension");
  if (!d || d->kind != AT_INT) return ll_refuse(op, "missing dimension");
  pr_newline(&e->pr);
  ll_results(e, op);
  pr_printf(&e->pr, "tensor.concat dim(%lld) ", (long long)d->u.i);
  for (uint32_t i = 0; i < op->n_operands; i++) {
    if (i) pr_puts(&e->pr, ", ");
    ll_val(e, op->operands[i]);
  }
  pr_puts(&e->pr, " : (");
  for (uint32_t i = 0; i < op->n_operands; i++) {
    if (i) pr_puts(&e->pr, ", ");
    ll_type(e, op->operands[i]->type);
  }
  pr_puts(&e->pr, ") -> ");
  ll_type(e, op->results[0].type);
  return NULL;
}

static shl_status iota(ll_emit *e, const shl_op *op) {
  const shl_attr *d = op_attr(op, "iota_dimension");
  const shl_type *rt = op->results[0].type;
  if (!d || d->kind != AT_INT || d->u.i < 0 || d->u.i >= rt->rank) return ll_refuse(op, "bad iota_dimension");
  if (dtype_class(rt->dtype) == DTC_BOOL || !ll_native_dtype(rt->dtype)) return ll_refuse(op, "iota of this element type");
  ll_generic_outs_open(e, op, rt, ll_dtype(rt->dtype));
  e->pr.indent += 1;
  uint32_t ix = ll_fresh(e), i64 = ll_fresh(e), r = i64;
  pr_newline(&e->pr);
  ll_tmp(e, ix);
  pr_printf(&e->pr, " = linalg.index %lld : index", (long long)d->u.i);
  pr_newline(&e->pr);
  ll_tmp(e, i64);
  pr_puts(&e->pr, " = arith.index_cast ");
  ll_tmp(e, ix);
  pr_printf(&e->pr, " : index to %s", dtype_is_float(rt->dtype) ? "i64" : ll_dtype(rt->dtype));
  if (dtype_is_float(rt->dtype)) {
    r = ll_fresh(e);
    pr_newline(&e->pr);
    ll_tmp(e, r);
    pr_puts(&e->pr, " = arith.sitofp ");
    ll_tmp(e, i64);
    pr_printf(&e->pr, " : i64 to %s", ll_dtype(rt->dtype));
  }
  pr_newline(&e->pr);
  pr_puts(&e->pr, "linalg.yield ");
  ll_tmp(e, r);
  pr_printf(&e->pr, " : %s", ll_dtype(rt->dtype));
  e->pr.indent -= 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "} -> ");
  ll_type(e, rt);
  return NULL;
}

shl_status ll_shape_op(ll_emit *e, const shl_op *op, bool *handled) {
  *handled = true;
  for (uint32_t i = 0; i < op->n_results; i++)
    if (dtype_class(op->results[i].type->dtype) == DTC_QUANT) return ll_refuse(op, "quantized element type");
  switch (op_id(op)) {
  case OP_BROADCAST_IN_DIM: return broadcast_in_dim(e, op);
  case OP_TRANSPOSE: return transpose(e, op);
  case OP_RESHAPE: return reshape(e, op);
  case OP_SLICE: return slice(e, op);
  case OP_CONCATENATE: return concatenate(e, op);
  case OP_IOTA: return iota(e, op);
  default: return ll_index_op(e, op, handled);
  }
}
