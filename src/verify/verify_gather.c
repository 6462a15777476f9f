/* Rules of gather, dynamic_gather and scatter: the dimension numbers
 * (including the batching dimensions of newer StableHLO) and the inferred
 * result / update shapes. */
#include "rules.h"

#include <stdlib.h>

/* No entry of `a` appears in `b` (both already distinct on their own). */
static shl_status disjoint(const shl_op *op, const vfy_ints *a, const vfy_ints *b) {
  for (size_t i = 0; i < a->n; i++)
    if (vfy_ints_contains(b, vfy_int_at(a, i)))
      return VFY_ERR(op, "%s and %s share dimension %lld", a->name, b->name, (long long)vfy_int_at(a, i));
  return NULL;
}

/* Batching dimension pairs: operand side in [0, rank_a), index side in
 * [0, rank_i) and not the index vector dimension, sizes compatible. */
static shl_status batching(const shl_op *op, const shl_type *a, const vfy_ints *abd, const shl_type *idx,
                           const vfy_ints *ibd, int64_t ivd) {
  if (abd->n != ibd->n)
    return VFY_ERR(op, "%s and %s must have the same size, got %zu and %zu", abd->name, ibd->name, abd->n, ibd->n);
  if (idx->rank < 0) return NULL;
  ST_TRY(vfy_dims(op, ibd, idx->rank, false));
  if (vfy_ints_contains(ibd, ivd)) return VFY_ERR(op, "%s must not contain index_vector_dim %lld", ibd->name, (long long)ivd);
  if (a->rank < 0) return NULL;
  for (size_t i = 0; i < abd->n; i++) {
    int64_t da = a->dims[vfy_int_at(abd, i)], di = idx->dims[vfy_int_at(ibd, i)];
    if (!vfy_dims_compat(da, di))
      return VFY_ERR(op, "batching dimension sizes must match: %s[%zu] has size %lld, %s[%zu] has size %lld", abd->name,
                     i, (long long)da, ibd->name, i, (long long)di);
  }
  return NULL;
}

/* Index-vector checks shared by gather and scatter: 0 <= ivd <= rank and
 * the index map covers the index vector. */
static shl_status index_vector(const shl_op *op, const shl_type *idx, int64_t ivd, const vfy_ints *map) {
  ST_TRY(vfy_elem_in(op, "indices", idx, EK_INT, "integer"));
  if (idx->rank < 0) return NULL;
  if (ivd < 0 || ivd > idx->rank)
    return VFY_ERR(op, "index_vector_dim %lld is out of range [0, %d]", (long long)ivd, (int)idx->rank);
  int64_t n = ivd < idx->rank ? idx->dims[ivd] : 1;
  if (n >= 0 && (size_t)n != map->n)
    return VFY_ERR(op, "%s size (%zu) is not equal to the size of the index vector dimension of the indices (%lld)",
                   map->name, map->n, (long long)n);
  return NULL;
}

shl_status vfy_gather_like(const shl_op *op, const vfy_ints *slice_sizes) {
  const shl_type *a = vfy_otype(op, 0), *idx = vfy_otype(op, 1), *r = vfy_rtype(op, 0);
  const shl_attr *dn;
  ST_TRY(vfy_struct_attr(op, "dimension_numbers", &dn));
  vfy_ints offset, collapsed, obd, sibd, map;
  int64_t ivd;
  ST_TRY(vfy_ints_field(op, dn, "offset_dims", true, &offset));
  ST_TRY(vfy_ints_field(op, dn, "collapsed_slice_dims", true, &collapsed));
  ST_TRY(vfy_ints_field(op, dn, "operand_batching_dims", true, &obd));
  ST_TRY(vfy_ints_field(op, dn, "start_indices_batching_dims", true, &sibd));
  ST_TRY(vfy_ints_field(op, dn, "start_index_map", true, &map));
  ST_TRY(vfy_int_of(op, attr_struct_field(dn, "index_vector_dim"), "index_vector_dim", true, 0, &ivd));
  bool sorted;
  ST_TRY(vfy_bool_attr(op, "indices_are_sorted", false, &sorted));
  if (!vfy_elem_compat(a, r))
    return VFY_ERR(op, "result type %s must have the element type of operand type %s", vfy_tstr(r), vfy_tstr(a));

  /* Operand rank, implied by the dimension numbers when unranked. */
  int64_t rank = (int64_t)(offset.n + collapsed.n + obd.n);
  if (a->rank >= 0 && a->rank != rank)
    return VFY_ERR(op, "offset_dims size (%zu) plus collapsed_slice_dims size (%zu) plus operand_batching_dims size (%zu) is not equal to operand rank (%d)",
                   offset.n, collapsed.n, obd.n, (int)a->rank);
  ST_TRY(vfy_dims(op, &collapsed, rank, true));
  ST_TRY(vfy_dims(op, &obd, rank, true));
  ST_TRY(disjoint(op, &collapsed, &obd));
  ST_TRY(vfy_dims(op, &map, rank, false));
  ST_TRY(disjoint(op, &map, &obd));
  ST_TRY(index_vector(op, idx, ivd, &map));
  ST_TRY(batching(op, a, &obd, idx, &sibd, ivd));

  if (slice_sizes) {
    if (slice_sizes->n != (size_t)rank)
      return VFY_ERR(op, "slice_sizes size (%zu) is not equal to the operand rank (%lld)", slice_sizes->n,
                     (long long)rank);
    for (int64_t i = 0; i < rank; i++) {
      int64_t s = vfy_int_at(slice_sizes, (size_t)i);
      if (s < 0 || (a->rank >= 0 && a->dims[i] >= 0 && s > a->dims[i]))
        return VFY_ERR(op, "slice size %lld is out of bounds for operand dimension %lld", (long long)s, (long long)i);
      if (s > 1 && (vfy_ints_contains(&collapsed, i) || vfy_ints_contains(&obd, i)))
        return VFY_ERR(op, "slice size of collapsed or batching dimension %lld must be <= 1, got %lld", (long long)i,
                       (long long)s);
    }
  }
  if (idx->rank < 0) return NULL;

  int64_t batch_rank = idx->rank - (ivd < idx->rank ? 1 : 0);
  int64_t res_rank = (int64_t)offset.n + batch_rank;
  ST_TRY(vfy_dims(op, &offset, res_rank, true));
  vfy_shape sh;
  if (!vfy_shape_init(&sh, res_rank)) return st_oom();
  int64_t next_slice = 0, next_batch = 0;
  for (int64_t d = 0; d < res_rank; d++) {
    if (vfy_ints_contains(&offset, d)) {
      /* The next slice dimension that is neither collapsed nor batching. */
      while (vfy_ints_contains(&collapsed, next_slice) || vfy_ints_contains(&obd, next_slice)) next_slice++;
      sh.d[d] = slice_sizes ? vfy_int_at(slice_sizes, (size_t)next_slice) : SHL_DYN;
      next_slice++;
    } else {
      if (next_batch == ivd) next_batch++;
      sh.d[d] = idx->dims[next_batch++];
    }
  }
  return vfy_shape_check(op, "result", r, &sh);
}

shl_status verify_gather(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 2, 1));
  vfy_ints sizes;
  ST_TRY(vfy_ints_attr(op, "slice_sizes", false, &sizes));
  return vfy_gather_like(op, &sizes);
}

shl_status verify_scatter(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  if (op->n_operands < 3 || op->n_operands % 2 == 0)
    return VFY_ERR(op, "expects N inputs, the scatter indices and N updates, got %u operands", op->n_operands);
  uint32_t n = (op->n_operands - 1) / 2;
  ST_TRY(vfy_all_tensors(op, op->n_operands, n));
  const shl_type *a = vfy_otype(op, 0), *idx = vfy_otype(op, n), *u0 = vfy_otype(op, n + 1);
  const shl_attr *dn;
  ST_TRY(vfy_struct_attr(op, "scatter_dimension_numbers", &dn));
  vfy_ints uwd, iwd, ibd, sibd, map;
  int64_t ivd;
  ST_TRY(vfy_ints_field(op, dn, "update_window_dims", true, &uwd));
  ST_TRY(vfy_ints_field(op, dn, "inserted_window_dims", true, &iwd));
  ST_TRY(vfy_ints_field(op, dn, "input_batching_dims", true, &ibd));
  ST_TRY(vfy_ints_field(op, dn, "scatter_indices_batching_dims", true, &sibd));
  ST_TRY(vfy_ints_field(op, dn, "scatter_dims_to_operand_dims", true, &map));
  ST_TRY(vfy_int_of(op, attr_struct_field(dn, "index_vector_dim"), "index_vector_dim", true, 0, &ivd));
  bool flag;
  ST_TRY(vfy_bool_attr(op, "indices_are_sorted", false, &flag));
  ST_TRY(vfy_bool_attr(op, "unique_indices", false, &flag));

  for (uint32_t i = 0; i < n; i++) {
    const shl_type *ai = vfy_otype(op, i), *ui = vfy_otype(op, n + 1 + i);
    ST_TRY(vfy_expect_same_shape(op, vfy_fmt("input #%u", i), ai, "input #0", a));
    ST_TRY(vfy_expect_same_shape(op, vfy_fmt("update #%u", i), ui, "update #0", u0));
    if (!vfy_elem_compat_fp(ui, ai))
      return VFY_ERR(op, "update #%u type %s must have the element type of input #%u type %s", i, vfy_tstr(ui), i,
                     vfy_tstr(ai));
    ST_TRY(vfy_expect_same_shape(op, vfy_fmt("result #%u", i), vfy_rtype(op, i), vfy_fmt("input #%u", i), ai));
  }

  int64_t rank = (int64_t)(uwd.n + iwd.n + ibd.n);
  if (a->rank >= 0 && a->rank != rank)
    return VFY_ERR(op, "update_window_dims size (%zu) plus inserted_window_dims size (%zu) plus input_batching_dims size (%zu) is not equal to input rank (%d)",
                   uwd.n, iwd.n, ibd.n, (int)a->rank);
  ST_TRY(vfy_dims(op, &iwd, rank, true));
  ST_TRY(vfy_dims(op, &ibd, rank, true));
  ST_TRY(disjoint(op, &iwd, &ibd));
  ST_TRY(vfy_dims(op, &map, rank, false));
  ST_TRY(disjoint(op, &map, &ibd));
  ST_TRY(index_vector(op, idx, ivd, &map));
  ST_TRY(batching(op, a, &ibd, idx, &sibd, ivd));

  /* Update computation: inputs' element types in, results' element types out. */
  {
    const shl_type *small_in[8], *small_up[8];
    const shl_type **in = small_in, **up = small_up;
    if (n > 8) {
      in = malloc(2 * (size_t)n * sizeof *in);
      if (!in) return st_oom();
      up = in + n;
    }
    for (uint32_t i = 0; i < n; i++) {
      in[i] = vfy_otype(op, i);
      up[i] = vfy_otype(op, n + 1 + i);
    }
    const shl_op *term;
    shl_status st = vfy_reducer(op, 0, in, up, n, &term);
    for (uint32_t i = 0; !st && i < n; i++)
      if (!vfy_elem_compat(vfy_rtype(op, i), vfy_otype(term, i)))
        st = VFY_ERR(op, "result #%u type %s must have the element type of the update computation's result %s", i,
                     vfy_tstr(vfy_rtype(op, i)), vfy_tstr(vfy_otype(term, i)));
    if (in != small_in) free(in);
    if (st) return st;
  }

  if (u0->rank < 0) return NULL;
  ST_TRY(vfy_dims(op, &uwd, u0->rank, true));
  if (idx->rank < 0) return NULL;
  int64_t want = (int64_t)uwd.n + idx->rank - (ivd < idx->rank ? 1 : 0);
  if (u0->rank != want)
    return VFY_ERR(op, "expects updates to have rank %lld (update_window_dims size plus the indices' batch rank), got %s",
                   (long long)want, vfy_tstr(u0));
  int64_t next_input = 0, next_batch = 0;
  size_t k = 0;
  for (int64_t d = 0; d < u0->rank; d++) {
    int64_t ud = u0->dims[d];
    if (k < uwd.n && vfy_int_at(&uwd, k) == d) {
      k++;
      while (vfy_ints_contains(&iwd, next_input) || vfy_ints_contains(&ibd, next_input)) next_input++;
      int64_t ad = a->rank >= 0 ? a->dims[next_input] : SHL_DYN;
      next_input++;
      if (ud >= 0 && ad >= 0 && ud > ad)
        return VFY_ERR(op, "update window dimension %lld has size %lld, larger than input dimension %lld (%lld)",
                       (long long)d, (long long)ud, (long long)(next_input - 1), (long long)ad);
    } else {
      if (next_batch == ivd) next_batch++;
      int64_t id = idx->dims[next_batch++];
      if (!vfy_dims_compat(ud, id))
        return VFY_ERR(op, "update scatter dimension %lld has size %lld, but the matching indices dimension has size %lld",
                       (long long)d, (long long)ud, (long long)id);
    }
  }
  return NULL;
}
