/* Rules of the ops with computation regions over windows or dimensions:
 * reduce, reduce_window, select_and_scatter, sort and map, including the
 * signatures of their regions. */
#include "rules.h"

#include <stdlib.h>

/* The first `n` operands starting at `first`, as a type array (caller frees
 * when it is not `small`). */
static const shl_type **operand_types(const shl_op *op, uint32_t first, uint32_t n, const shl_type **small,
                                      uint32_t cap) {
  const shl_type **v = small;
  if (n > cap) v = malloc((size_t)n * sizeof *v);
  if (v)
    for (uint32_t i = 0; i < n; i++) v[i] = vfy_otype(op, first + i);
  return v;
}

/* Operands [0, n) have compatible shapes; init values [n, 2n) are rank 0. */
static shl_status inputs_and_inits(const shl_op *op, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    ST_TRY(vfy_expect_same_shape(op, vfy_fmt("input #%u", i), vfy_otype(op, i), "input #0", vfy_otype(op, 0)));
    ST_TRY(vfy_rank(op, vfy_fmt("init value #%u", i), vfy_otype(op, n + i), 0));
  }
  return NULL;
}

/* Runs the reducer check on region #r with inputs [0, n) and inits [n, 2n),
 * then checks result element types against the region's results. */
static shl_status reducer_and_results(const shl_op *op, uint32_t n) {
  const shl_type *small[16];
  const shl_type **v = operand_types(op, 0, 2 * n, small, 16);
  if (!v) return st_oom();
  const shl_op *term;
  shl_status st = vfy_reducer(op, 0, v, v + n, n, &term);
  for (uint32_t i = 0; !st && i < n; i++)
    if (!vfy_elem_compat(vfy_rtype(op, i), vfy_otype(term, i)))
      st = VFY_ERR(op, "result #%u type %s must have the element type of the reduction region's result %s", i,
                   vfy_tstr(vfy_rtype(op, i)), vfy_tstr(vfy_otype(term, i)));
  if (v != small) free(v);
  return st;
}

static shl_status even_operands(const shl_op *op, uint32_t *n) {
  if (op->n_operands < 2 || op->n_operands % 2)
    return VFY_ERR(op, "expects N inputs followed by N init values, got %u operands", op->n_operands);
  *n = op->n_operands / 2;
  return vfy_all_tensors(op, op->n_operands, *n);
}

shl_status verify_reduce(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  uint32_t n;
  ST_TRY(even_operands(op, &n));
  ST_TRY(inputs_and_inits(op, n));
  vfy_ints dims;
  ST_TRY(vfy_ints_attr(op, "dimensions", false, &dims));
  ST_TRY(reducer_and_results(op, n));
  const shl_type *a = NULL;
  for (uint32_t i = 0; i < n && !a; i++)
    if (vfy_otype(op, i)->rank >= 0) a = vfy_otype(op, i);
  if (!a) return NULL;
  ST_TRY(vfy_dims(op, &dims, a->rank, false));
  for (uint32_t i = 0; i < n; i++) {
    vfy_shape sh;
    if (!vfy_shape_init(&sh, a->rank - (int64_t)dims.n)) return st_oom();
    int64_t k = 0;
    for (int32_t d = 0; d < a->rank; d++)
      if (!vfy_ints_contains(&dims, d)) sh.d[k++] = a->dims[d];
    ST_TRY(vfy_shape_check(op, vfy_fmt("result #%u", i), vfy_rtype(op, i), &sh));
  }
  return NULL;
}

/* ------------------------------------------------------------------ windows */

typedef struct {
  vfy_ints dims, strides, base_dil, win_dil, padding;
} window;

/* Reads the window attributes for a rank-`rank` operand and checks sizes and
 * signs; `with_dilations` for reduce_window. */
static shl_status window_attrs(const shl_op *op, int64_t rank, bool with_dilations, window *w) {
  ST_TRY(vfy_ints_attr(op, "window_dimensions", !with_dilations, &w->dims));
  ST_TRY(vfy_ints_attr(op, "window_strides", true, &w->strides));
  w->base_dil = w->win_dil = (vfy_ints){NULL, 0, ""};
  if (with_dilations) {
    ST_TRY(vfy_ints_attr(op, "base_dilations", true, &w->base_dil));
    ST_TRY(vfy_ints_attr(op, "window_dilations", true, &w->win_dil));
  }
  if (rank < 0) rank = (int64_t)w->dims.n;
  if (w->dims.n != (size_t)rank)
    return VFY_ERR(op, "expects window_dimensions size (%zu) to equal the input rank (%lld)", w->dims.n, (long long)rank);
  ST_TRY(vfy_padding_attr(op, "padding", rank, &w->padding));
  const vfy_ints *lists[3] = {&w->strides, &w->base_dil, &w->win_dil};
  for (int k = 0; k < 3; k++)
    if (lists[k]->a && lists[k]->n != (size_t)rank)
      return VFY_ERR(op, "expects %s size (%zu) to equal the input rank (%lld)", lists[k]->name, lists[k]->n,
                     (long long)rank);
  for (int64_t i = 0; i < rank; i++) {
    int64_t d = vfy_int_at(&w->dims, (size_t)i);
    if (d <= 0) return VFY_ERR(op, "expects window dimension %lld to be positive, got %lld", (long long)i, (long long)d);
    for (int k = 0; k < 3; k++)
      if (lists[k]->a && vfy_int_at(lists[k], (size_t)i) <= 0)
        return VFY_ERR(op, "expects %s to be positive in dimension %lld, got %lld", lists[k]->name, (long long)i,
                       (long long)vfy_int_at(lists[k], (size_t)i));
  }
  return NULL;
}

static int64_t list_or(const vfy_ints *v, size_t i, int64_t dflt) { return v->a ? vfy_int_at(v, i) : dflt; }

/* Output size of dimension i of a windowed op over a base of size `base`. */
static int64_t window_out(const window *w, size_t i, int64_t base) {
  if (base < 0) return SHL_DYN;
  __int128 bd = list_or(&w->base_dil, i, 1), wd = list_or(&w->win_dil, i, 1);
  __int128 lo = list_or(&w->padding, 2 * i, 0), hi = list_or(&w->padding, 2 * i + 1, 0);
  __int128 dilated = base == 0 ? 0 : ((__int128)base - 1) * bd + 1;
  __int128 padded = lo + dilated + hi;
  __int128 win = ((__int128)vfy_int_at(&w->dims, i) - 1) * wd + 1;
  __int128 stride = list_or(&w->strides, i, 1);
  if (padded <= 0 || win > padded) return 0;
  __int128 out = (padded - win) / stride + 1;
  return out > INT64_MAX ? INT64_MAX : (int64_t)out;
}

shl_status verify_reduce_window(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  uint32_t n;
  ST_TRY(even_operands(op, &n));
  ST_TRY(inputs_and_inits(op, n));
  const shl_type *a = NULL;
  for (uint32_t i = 0; i < n && !a; i++)
    if (vfy_otype(op, i)->rank >= 0) a = vfy_otype(op, i);
  window w;
  ST_TRY(window_attrs(op, a ? a->rank : -1, true, &w));
  ST_TRY(reducer_and_results(op, n));
  if (!a) return NULL;
  for (uint32_t i = 0; i < n; i++) {
    vfy_shape sh;
    if (!vfy_shape_init(&sh, a->rank)) return st_oom();
    for (int32_t d = 0; d < a->rank; d++) sh.d[d] = window_out(&w, (size_t)d, a->dims[d]);
    ST_TRY(vfy_shape_check(op, vfy_fmt("result #%u", i), vfy_rtype(op, i), &sh));
  }
  return NULL;
}

shl_status verify_select_and_scatter(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 3, 1));
  const shl_type *a = vfy_otype(op, 0), *src = vfy_otype(op, 1), *init = vfy_otype(op, 2);
  ST_TRY(vfy_rank(op, "init value", init, 0));
  /* select: (tensor<E>, tensor<E>) -> tensor<i1> */
  const shl_block *blk;
  const shl_op *term;
  ST_TRY(vfy_region(op, 0, OP_RETURN, &blk, &term));
  if (blk->n_args != 2) return VFY_ERR(op, "select region must take 2 arguments, but takes %u", blk->n_args);
  for (uint32_t i = 0; i < 2; i++) ST_TRY(vfy_scalar_arg(op, "select region", blk, i, a, true));
  if (term->n_operands != 1) return VFY_ERR(op, "select region must return 1 value, but returns %u", term->n_operands);
  const shl_type *sel = vfy_otype(term, 0);
  if (!vfy_is_tensor(sel) || sel->rank > 0 || sel->dtype != DT_I1)
    return VFY_ERR(op, "select region must return tensor<i1>, got %s", vfy_tstr(sel));
  const shl_type *in[1] = {src}, *inits[1] = {init};
  ST_TRY(vfy_reducer(op, 1, in, inits, 1, &term));
  window w;
  ST_TRY(window_attrs(op, a->rank, false, &w));
  /* The result takes the operand's shape and the scatter body's element
   * type, which may be a promoted one (spec C11-C12). */
  const shl_type *r = vfy_rtype(op, 0);
  ST_TRY(vfy_expect_same_shape(op, "operand #0", a, "result", r));
  if (term->n_operands == 1 && vfy_is_tensor(vfy_otype(term, 0)) && !vfy_elem_compat(vfy_otype(term, 0), r))
    return VFY_ERR(op, "result type %s must have the element type of the scatter body's result %s", vfy_tstr(r),
                   vfy_tstr(vfy_otype(term, 0)));
  if (!vfy_elem_compat_fp(src, a))
    return VFY_ERR(op, "source type %s must have the element type of operand type %s", vfy_tstr(src), vfy_tstr(a));
  if (a->rank < 0) return NULL;
  vfy_shape sh;
  if (!vfy_shape_init(&sh, a->rank)) return st_oom();
  for (int32_t d = 0; d < a->rank; d++) sh.d[d] = window_out(&w, (size_t)d, a->dims[d]);
  return vfy_shape_check(op, "source", src, &sh);
}

/* ------------------------------------------------------------------ sort, map */

shl_status verify_sort(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  if (op->n_operands < 1) return VFY_ERR(op, "expects at least one operand");
  uint32_t n = op->n_operands;
  ST_TRY(vfy_all_tensors(op, n, n));
  int64_t dim;
  ST_TRY(vfy_int_attr(op, "dimension", true, -1, &dim));
  bool stable;
  ST_TRY(vfy_bool_attr(op, "is_stable", false, &stable));
  for (uint32_t i = 0; i < n; i++) {
    const shl_type *t = vfy_otype(op, i);
    ST_TRY(vfy_expect_same_shape(op, vfy_fmt("operand #%u", i), t, "operand #0", vfy_otype(op, 0)));
    ST_TRY(vfy_expect_compat(op, vfy_fmt("operand #%u", i), t, vfy_fmt("result #%u", i), vfy_rtype(op, i)));
    if (t->rank >= 0 && (dim < -(int64_t)t->rank || dim >= t->rank))
      return VFY_ERR(op, "dimension %lld is out of range [-%d, %d)", (long long)dim, (int)t->rank, (int)t->rank);
  }
  const shl_block *blk;
  const shl_op *term;
  ST_TRY(vfy_region(op, 0, OP_RETURN, &blk, &term));
  if (blk->n_args != 2 * n) return VFY_ERR(op, "comparator must take %u arguments, but takes %u", 2 * n, blk->n_args);
  for (uint32_t i = 0; i < 2 * n; i++) ST_TRY(vfy_scalar_arg(op, "comparator", blk, i, vfy_otype(op, i / 2), false));
  if (term->n_operands != 1) return VFY_ERR(op, "comparator must return 1 value, but returns %u", term->n_operands);
  const shl_type *c = vfy_otype(term, 0);
  if (!vfy_is_tensor(c) || c->rank > 0 || c->dtype != DT_I1)
    return VFY_ERR(op, "comparator must return tensor<i1>, got %s", vfy_tstr(c));
  return NULL;
}

shl_status verify_map(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  if (op->n_operands < 1) return VFY_ERR(op, "expects at least one operand");
  uint32_t n = op->n_operands;
  ST_TRY(vfy_all_tensors(op, n, 1));
  vfy_ints dims;
  ST_TRY(vfy_ints_attr(op, "dimensions", false, &dims));
  const shl_type *a = vfy_otype(op, 0);
  for (uint32_t i = 0; i < n; i++) {
    const shl_type *t = vfy_otype(op, i);
    ST_TRY(vfy_expect_same_shape(op, vfy_fmt("operand #%u", i), t, "operand #0", a));
    if (t->rank >= 0) a = t;
  }
  for (size_t i = 0; i < dims.n; i++)
    if (vfy_int_at(&dims, i) != (int64_t)i) return VFY_ERR(op, "requires dimensions to be [0, 1, ..., rank - 1]");
  if (a->rank >= 0 && dims.n != (size_t)a->rank)
    return VFY_ERR(op, "dimensions size (%zu) does not match operand rank (%d)", dims.n, (int)a->rank);
  const shl_block *blk;
  const shl_op *term;
  ST_TRY(vfy_region(op, 0, OP_RETURN, &blk, &term));
  if (blk->n_args != n) return VFY_ERR(op, "computation must take %u arguments, but takes %u", n, blk->n_args);
  for (uint32_t i = 0; i < n; i++) ST_TRY(vfy_scalar_arg(op, "computation", blk, i, vfy_otype(op, i), false));
  if (term->n_operands != 1) return VFY_ERR(op, "computation must return 1 value, but returns %u", term->n_operands);
  const shl_type *c = vfy_otype(term, 0), *r = vfy_rtype(op, 0);
  if (!vfy_is_tensor(c) || c->rank > 0) return VFY_ERR(op, "computation must return a rank-0 tensor, got %s", vfy_tstr(c));
  if (!vfy_elem_compat(r, c))
    return VFY_ERR(op, "result type %s must have the element type of the computation's result %s", vfy_tstr(r),
                   vfy_tstr(c));
  return vfy_expect_same_shape(op, "result", r, "operand #0", a);
}
