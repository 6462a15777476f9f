/* Rules of the shape-manipulating ops: iota, broadcasts, reshape, transpose,
 * reverse, slices, concatenate, pad and get_dimension_size.  Where the spec
 * defines the result shape it is inferred and compared with the declared
 * one. */
#include "rules.h"

/* Result element type agrees with operand #0's. */
static shl_status same_elem(const shl_op *op) {
  const shl_type *a = vfy_otype(op, 0), *r = vfy_rtype(op, 0);
  if (!vfy_elem_compat(a, r))
    return VFY_ERR(op, "result type %s must have the element type of operand #0 type %s", vfy_tstr(r), vfy_tstr(a));
  return NULL;
}

shl_status verify_iota(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 0, 1));
  const shl_type *r = vfy_rtype(op, 0);
  ST_TRY(vfy_elem_in(op, "result", r, EK_INT | EK_FLOAT | EK_COMPLEX | EK_QUANT, "integer, floating-point or complex"));
  int64_t d;
  ST_TRY(vfy_int_attr(op, "iota_dimension", false, 0, &d));
  if (r->rank < 0) return NULL;
  if (r->rank == 0) return VFY_ERR(op, "does not support scalars");
  if (d < 0 || d >= r->rank)
    return VFY_ERR(op, "iota_dimension %lld is out of range [0, %d)", (long long)d, (int)r->rank);
  return NULL;
}

shl_status verify_broadcast_in_dim(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 1, 1));
  ST_TRY(same_elem(op));
  const shl_type *a = vfy_otype(op, 0), *r = vfy_rtype(op, 0);
  vfy_ints dims;
  ST_TRY(vfy_ints_attr(op, "broadcast_dimensions", false, &dims));
  if (a->rank < 0) return NULL;
  if (dims.n != (size_t)a->rank)
    return VFY_ERR(op, "broadcast_dimensions size (%zu) does not match operand rank (%d)", dims.n, (int)a->rank);
  if (r->rank < 0) return NULL;
  if (r->rank < a->rank)
    return VFY_ERR(op, "result rank (%d) is less than operand rank (%d)", (int)r->rank, (int)a->rank);
  ST_TRY(vfy_dims(op, &dims, r->rank, false));
  for (int32_t i = 0; i < a->rank; i++) {
    int64_t rd = r->dims[vfy_int_at(&dims, (size_t)i)], od = a->dims[i];
    if (od >= 0 && od != 1 && rd >= 0 && od != rd)
      return VFY_ERR(op, "size of operand dimension %d (%lld) is not equal to 1 or size of result dimension %lld (%lld)",
                     (int)i, (long long)od, (long long)vfy_int_at(&dims, (size_t)i), (long long)rd);
  }
  return NULL;
}

shl_status verify_broadcast(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 1, 1));
  ST_TRY(same_elem(op));
  const shl_type *a = vfy_otype(op, 0);
  vfy_ints sizes;
  ST_TRY(vfy_ints_attr(op, "broadcast_sizes", false, &sizes));
  for (size_t i = 0; i < sizes.n; i++)
    if (vfy_int_at(&sizes, i) < 0)
      return VFY_ERR(op, "broadcast_sizes has negative size %lld", (long long)vfy_int_at(&sizes, i));
  if (a->rank < 0) return NULL;
  vfy_shape s;
  if (!vfy_shape_init(&s, (int64_t)sizes.n + a->rank)) return st_oom();
  for (size_t i = 0; i < sizes.n; i++) s.d[i] = vfy_int_at(&sizes, i);
  for (int32_t i = 0; i < a->rank; i++) s.d[sizes.n + (size_t)i] = a->dims[i];
  return vfy_shape_check(op, "result", vfy_rtype(op, 0), &s);
}

shl_status verify_reshape(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 1, 1));
  ST_TRY(same_elem(op));
  const shl_type *a = vfy_otype(op, 0), *r = vfy_rtype(op, 0);
  if (!type_is_static(a) || !type_is_static(r)) return NULL;
  int64_t na = type_num_elements(a), nr = type_num_elements(r);
  if (na != nr)
    return VFY_ERR(op, "number of result elements (%lld) does not match the number of operand elements (%lld)",
                   (long long)nr, (long long)na);
  return NULL;
}

shl_status verify_transpose(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 1, 1));
  ST_TRY(same_elem(op));
  const shl_type *a = vfy_otype(op, 0);
  vfy_ints perm;
  ST_TRY(vfy_ints_attr(op, "permutation", false, &perm));
  if (a->rank < 0) return NULL;
  if (perm.n != (size_t)a->rank)
    return VFY_ERR(op, "permutation size (%zu) does not match operand rank (%d)", perm.n, (int)a->rank);
  ST_TRY(vfy_dims(op, &perm, a->rank, false));
  vfy_shape s;
  if (!vfy_shape_init(&s, a->rank)) return st_oom();
  for (int32_t i = 0; i < a->rank; i++) s.d[i] = a->dims[vfy_int_at(&perm, (size_t)i)];
  return vfy_shape_check(op, "result", vfy_rtype(op, 0), &s);
}

shl_status verify_reverse(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 1, 1));
  const shl_type *a = vfy_otype(op, 0);
  vfy_ints dims;
  ST_TRY(vfy_ints_attr(op, "dimensions", false, &dims));
  if (a->rank >= 0) ST_TRY(vfy_dims(op, &dims, a->rank, false));
  return vfy_expect_compat(op, "operand #0", a, "result", vfy_rtype(op, 0));
}

shl_status verify_slice(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 1, 1));
  ST_TRY(same_elem(op));
  const shl_type *a = vfy_otype(op, 0);
  vfy_ints start, limit, strides;
  ST_TRY(vfy_ints_attr(op, "start_indices", false, &start));
  ST_TRY(vfy_ints_attr(op, "limit_indices", false, &limit));
  ST_TRY(vfy_ints_attr(op, "strides", false, &strides));
  if (a->rank < 0) return NULL;
  const vfy_ints *lists[3] = {&start, &limit, &strides};
  for (int k = 0; k < 3; k++)
    if (lists[k]->n != (size_t)a->rank)
      return VFY_ERR(op, "%s size (%zu) does not match operand rank (%d)", lists[k]->name, lists[k]->n, (int)a->rank);
  for (int32_t i = 0; i < a->rank; i++) {
    int64_t s = vfy_int_at(&start, (size_t)i), l = vfy_int_at(&limit, (size_t)i), st = vfy_int_at(&strides, (size_t)i);
    if (s < 0) return VFY_ERR(op, "negative start index %lld in dimension %d", (long long)s, (int)i);
    if (a->dims[i] >= 0 && l > a->dims[i])
      return VFY_ERR(op, "limit index %lld is larger than dimension size %lld in dimension %d", (long long)l,
                     (long long)a->dims[i], (int)i);
    if (s > l)
      return VFY_ERR(op, "start index %lld is larger than limit index %lld in dimension %d", (long long)s,
                     (long long)l, (int)i);
    if (st <= 0) return VFY_ERR(op, "stride must be positive but got %lld in dimension %d", (long long)st, (int)i);
  }
  vfy_shape sh;
  if (!vfy_shape_init(&sh, a->rank)) return st_oom();
  for (int32_t i = 0; i < a->rank; i++) {
    int64_t s = vfy_int_at(&start, (size_t)i), l = vfy_int_at(&limit, (size_t)i), st = vfy_int_at(&strides, (size_t)i);
    /* l - s >= 0 and st > 0: ceil without overflow. */
    sh.d[i] = (l - s) / st + ((l - s) % st != 0);
  }
  return vfy_shape_check(op, "result", vfy_rtype(op, 0), &sh);
}

/* Start-index operands from `first` on: rank-0 integer tensors of one type. */
static shl_status start_indices(const shl_op *op, uint32_t first) {
  for (uint32_t i = first; i < op->n_operands; i++) {
    const shl_type *t = vfy_otype(op, i);
    const char *what = vfy_fmt("operand #%u (start index)", i);
    ST_TRY(vfy_rank(op, what, t, 0));
    ST_TRY(vfy_elem_in(op, what, t, EK_INT, "integer"));
    if (i > first && t->dtype != vfy_otype(op, first)->dtype)
      return VFY_ERR(op, "start indices must have the same element type, got %s and %s",
                     vfy_tstr(vfy_otype(op, first)), vfy_tstr(t));
  }
  return NULL;
}

shl_status verify_dynamic_slice(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  if (op->n_operands < 1 || op->n_results != 1)
    return VFY_ERR(op, "expects an operand, start indices and one result");
  ST_TRY(vfy_all_tensors(op, op->n_operands, 1));
  ST_TRY(same_elem(op));
  ST_TRY(start_indices(op, 1));
  const shl_type *a = vfy_otype(op, 0);
  vfy_ints sizes;
  ST_TRY(vfy_ints_attr(op, "slice_sizes", false, &sizes));
  if (sizes.n != op->n_operands - 1)
    return VFY_ERR(op, "has mismatched number of slice sizes (%zu) and number of start indices (%u)", sizes.n,
                   op->n_operands - 1);
  if (a->rank < 0) return NULL;
  if (sizes.n != (size_t)a->rank)
    return VFY_ERR(op, "has mismatched number of start indices (%zu) and the rank of operand (%d)", sizes.n,
                   (int)a->rank);
  for (int32_t i = 0; i < a->rank; i++) {
    int64_t s = vfy_int_at(&sizes, (size_t)i);
    if (s < 0) return VFY_ERR(op, "has negative slice size %lld", (long long)s);
    if (a->dims[i] >= 0 && s > a->dims[i])
      return VFY_ERR(op, "has slice size %lld greater than dimension size %lld in dimension %d of operand",
                     (long long)s, (long long)a->dims[i], (int)i);
  }
  vfy_shape sh;
  if (!vfy_shape_init(&sh, a->rank)) return st_oom();
  for (int32_t i = 0; i < a->rank; i++) sh.d[i] = vfy_int_at(&sizes, (size_t)i);
  return vfy_shape_check(op, "result", vfy_rtype(op, 0), &sh);
}

shl_status verify_dynamic_update_slice(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  if (op->n_operands < 2 || op->n_results != 1)
    return VFY_ERR(op, "expects an operand, an update, start indices and one result");
  ST_TRY(vfy_all_tensors(op, op->n_operands, 1));
  ST_TRY(start_indices(op, 2));
  const shl_type *a = vfy_otype(op, 0), *u = vfy_otype(op, 1);
  if (!vfy_elem_compat(a, u))
    return VFY_ERR(op, "update type %s must have the element type of operand type %s", vfy_tstr(u), vfy_tstr(a));
  if (a->rank >= 0 && u->rank >= 0 && a->rank != u->rank)
    return VFY_ERR(op, "update rank (%d) does not match operand rank (%d)", (int)u->rank, (int)a->rank);
  if (a->rank >= 0 && op->n_operands - 2 != (uint32_t)a->rank)
    return VFY_ERR(op, "expects the number of start indices (%u) to match operand rank (%d)", op->n_operands - 2,
                   (int)a->rank);
  if (a->rank >= 0 && u->rank >= 0)
    for (int32_t i = 0; i < a->rank; i++)
      if (u->dims[i] >= 0 && a->dims[i] >= 0 && u->dims[i] > a->dims[i])
        return VFY_ERR(op, "update size %lld at dimension %d exceeds operand size %lld", (long long)u->dims[i],
                       (int)i, (long long)a->dims[i]);
  return vfy_expect_compat(op, "operand #0", a, "result", vfy_rtype(op, 0));
}

shl_status verify_concatenate(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  if (op->n_operands < 1) return VFY_ERR(op, "expects at least one operand");
  ST_TRY(vfy_all_tensors(op, op->n_operands, 1));
  int64_t dim;
  ST_TRY(vfy_int_attr(op, "dimension", false, 0, &dim));
  if (dim < 0) return VFY_ERR(op, "dimension %lld is negative", (long long)dim);
  const shl_type *first = NULL;
  uint32_t first_i = 0;
  for (uint32_t i = 0; i < op->n_operands; i++) {
    const shl_type *t = vfy_otype(op, i);
    if (!vfy_elem_compat(t, vfy_otype(op, 0)))
      return VFY_ERR(op, "operand #%u type %s has a different element type than operand #0 type %s", i, vfy_tstr(t),
                     vfy_tstr(vfy_otype(op, 0)));
    if (t->rank < 0) continue;
    if (!first) {
      first = t;
      first_i = i;
      if (t->rank == 0) return VFY_ERR(op, "rank-0 values cannot be concatenated");
      if (dim >= t->rank)
        return VFY_ERR(op, "dimension %lld is out of range for operand rank %d", (long long)dim, (int)t->rank);
      continue;
    }
    if (t->rank != first->rank) return VFY_ERR(op, "operands #%u and #%u do not match rank", first_i, i);
    for (int32_t d = 0; d < t->rank; d++)
      if (d != dim && !vfy_dims_compat(first->dims[d], t->dims[d]))
        return VFY_ERR(op, "shapes of operands #%u (%s) and #%u (%s) do not match at non-concat dimension %d", first_i,
                       vfy_tstr(first), i, vfy_tstr(t), (int)d);
  }
  const shl_type *r = vfy_rtype(op, 0);
  if (!vfy_elem_compat(r, vfy_otype(op, 0)))
    return VFY_ERR(op, "result type %s must have the element type of operand #0 type %s", vfy_tstr(r),
                   vfy_tstr(vfy_otype(op, 0)));
  if (!first) return NULL;
  vfy_shape sh;
  if (!vfy_shape_init(&sh, first->rank)) return st_oom();
  int64_t total = 0;
  for (uint32_t i = 0; i < op->n_operands; i++) {
    const shl_type *t = vfy_otype(op, i);
    for (int32_t d = 0; t->rank >= 0 && d < t->rank; d++)
      if (d != dim && t->dims[d] >= 0) sh.d[d] = t->dims[d];
    int64_t c = t->rank >= 0 ? t->dims[dim] : SHL_DYN;
    if (total >= 0) total = c < 0 || c > INT64_MAX - total ? SHL_DYN : total + c;
  }
  sh.d[dim] = total;
  return vfy_shape_check(op, "result", r, &sh);
}

shl_status verify_pad(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 2, 1));
  ST_TRY(same_elem(op));
  const shl_type *a = vfy_otype(op, 0), *pv = vfy_otype(op, 1);
  ST_TRY(vfy_rank(op, "operand #1 (padding value)", pv, 0));
  if (!vfy_elem_compat(a, pv))
    return VFY_ERR(op, "padding value type %s must have the element type of operand type %s", vfy_tstr(pv),
                   vfy_tstr(a));
  vfy_ints lo, hi, in;
  ST_TRY(vfy_ints_attr(op, "edge_padding_low", false, &lo));
  ST_TRY(vfy_ints_attr(op, "edge_padding_high", false, &hi));
  ST_TRY(vfy_ints_attr(op, "interior_padding", false, &in));
  if (a->rank < 0) return NULL;
  const vfy_ints *lists[3] = {&lo, &hi, &in};
  for (int k = 0; k < 3; k++)
    if (lists[k]->n != (size_t)a->rank)
      return VFY_ERR(op, "%s size (%zu) does not match operand rank (%d)", lists[k]->name, lists[k]->n, (int)a->rank);
  vfy_shape sh;
  if (!vfy_shape_init(&sh, a->rank)) return st_oom();
  for (int32_t i = 0; i < a->rank; i++) {
    int64_t l = vfy_int_at(&lo, (size_t)i), h = vfy_int_at(&hi, (size_t)i), p = vfy_int_at(&in, (size_t)i);
    int64_t d = a->dims[i];
    shl_status st = NULL;
    if (p < 0) {
      st = VFY_ERR(op, "interior padding cannot be negative: %lld", (long long)p);
    } else if (d >= 0) {
      /* d + l + h + max(d - 1, 0) * p, in wide arithmetic. */
      __int128 n = (__int128)d + l + h + (__int128)(d > 0 ? d - 1 : 0) * p;
      if (n < 0) st = VFY_ERR(op, "padding results in a negative size for dimension %d", (int)i);
      else if (n > INT64_MAX) st = VFY_ERR(op, "padding results in a too large size for dimension %d", (int)i);
      else sh.d[i] = (int64_t)n;
    }
    if (st) {
      vfy_shape_free(&sh);
      return st;
    }
  }
  return vfy_shape_check(op, "result", vfy_rtype(op, 0), &sh);
}

/* The result has the operand's element type and rank; dimension `dimension`
 * becomes the size operand's value (a dynamic, bounded size in general), the
 * other dimensions stay (upstream's inferSetDimensionSizeOp). */
shl_status verify_set_dimension_size(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 2, 1));
  const shl_type *a = vfy_otype(op, 0), *s = vfy_otype(op, 1), *r = vfy_rtype(op, 0);
  int64_t d;
  ST_TRY(vfy_int_attr(op, "dimension", false, 0, &d));
  if (s->rank > 0 || s->dtype != DT_I32) return VFY_ERR(op, "size operand must be tensor<i32>, got %s", vfy_tstr(s));
  if (d < 0 || (a->rank >= 0 && d >= a->rank))
    return VFY_ERR(op, "dimension %lld is out of range [0, %d)", (long long)d, (int)a->rank);
  if (!vfy_elem_compat(a, r)) return VFY_ERR(op, "result type %s must have the element type of %s", vfy_tstr(r), vfy_tstr(a));
  if (a->rank < 0 || r->rank < 0) return NULL;
  if (r->rank != a->rank) return VFY_ERR(op, "result type %s must have the rank of %s", vfy_tstr(r), vfy_tstr(a));
  for (int32_t i = 0; i < a->rank; i++)
    if (i != d && !vfy_dims_compat(a->dims[i], r->dims[i]))
      return VFY_ERR(op, "result type %s must keep the dimensions of %s other than %lld", vfy_tstr(r), vfy_tstr(a),
                     (long long)d);
  return NULL;
}

shl_status verify_get_dimension_size(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 1, 1));
  const shl_type *a = vfy_otype(op, 0), *r = vfy_rtype(op, 0);
  int64_t d;
  ST_TRY(vfy_int_attr(op, "dimension", false, 0, &d));
  if (d < 0) return VFY_ERR(op, "requires a non-negative dimension, got %lld", (long long)d);
  if (a->rank >= 0 && d >= a->rank)
    return VFY_ERR(op, "dimension %lld is out of range [0, %d)", (long long)d, (int)a->rank);
  if (r->rank > 0 || r->dtype != DT_I32) return VFY_ERR(op, "result must be tensor<i32>, got %s", vfy_tstr(r));
  return NULL;
}
