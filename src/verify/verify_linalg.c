/* Rules of the linear-algebra and signal ops: dot_general, dot, convolution,
 * fft, cholesky, triangular_solve and the batch_norm family. */
#include "rules.h"

/* ------------------------------------------------------------------ dot */

shl_status vfy_dot_dims(const shl_op *op, const shl_type *l, const shl_type *r, const shl_attr *dn, vfy_ints *lb_,
                        vfy_ints *rb_, vfy_ints *lc_, vfy_ints *rc_) {
  vfy_ints lb, rb, lc, rc;
  ST_TRY(vfy_ints_field(op, dn, "lhs_batching_dimensions", true, &lb));
  ST_TRY(vfy_ints_field(op, dn, "rhs_batching_dimensions", true, &rb));
  ST_TRY(vfy_ints_field(op, dn, "lhs_contracting_dimensions", true, &lc));
  ST_TRY(vfy_ints_field(op, dn, "rhs_contracting_dimensions", true, &rc));
  if (lb.n != rb.n) return VFY_ERR(op, "lhs and rhs should have the same number of batching dimensions");
  if (lc.n != rc.n) return VFY_ERR(op, "lhs and rhs should have the same number of contracting dimensions");
  *lb_ = lb;
  *rb_ = rb;
  *lc_ = lc;
  *rc_ = rc;
  const shl_type *sides[2] = {l, r};
  const vfy_ints *bat[2] = {&lb, &rb}, *con[2] = {&lc, &rc};
  for (int s = 0; s < 2; s++) {
    if (sides[s]->rank < 0) continue;
    ST_TRY(vfy_dims(op, bat[s], sides[s]->rank, false));
    ST_TRY(vfy_dims(op, con[s], sides[s]->rank, false));
    for (size_t i = 0; i < bat[s]->n; i++)
      if (vfy_ints_contains(con[s], vfy_int_at(bat[s], i)))
        return VFY_ERR(op, "has duplicated dimension from %s and %s: %lld", bat[s]->name, con[s]->name,
                       (long long)vfy_int_at(bat[s], i));
  }
  if (l->rank < 0 || r->rank < 0) return NULL;
  for (size_t i = 0; i < lb.n; i++)
    if (!vfy_dims_compat(l->dims[vfy_int_at(&lb, i)], r->dims[vfy_int_at(&rb, i)]))
      return VFY_ERR(op, "batching dimension sizes must match for lhs/rhs (%s and %s)", vfy_tstr(l), vfy_tstr(r));
  for (size_t i = 0; i < lc.n; i++)
    if (!vfy_dims_compat(l->dims[vfy_int_at(&lc, i)], r->dims[vfy_int_at(&rc, i)]))
      return VFY_ERR(op, "contracting dimension sizes must match for lhs/rhs (%s and %s)", vfy_tstr(l), vfy_tstr(r));
  return NULL;
}

shl_status verify_dot_general(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 2, 1));
  ST_TRY(vfy_precision_config(op));
  const shl_type *l = vfy_otype(op, 0), *r = vfy_otype(op, 1);
  const shl_attr *dn;
  ST_TRY(vfy_struct_attr(op, "dot_dimension_numbers", &dn));
  vfy_ints lb, rb, lc, rc;
  ST_TRY(vfy_dot_dims(op, l, r, dn, &lb, &rb, &lc, &rc));
  if (l->rank < 0 || r->rank < 0) return NULL;
  const shl_type *sides[2] = {l, r};
  const vfy_ints *bat[2] = {&lb, &rb}, *con[2] = {&lc, &rc};
  /* batch dims, then lhs free dims, then rhs free dims */
  vfy_shape sh;
  if (!vfy_shape_init(&sh, (int64_t)l->rank + r->rank - (int64_t)(lb.n + lc.n + rb.n + rc.n) + (int64_t)lb.n))
    return st_oom();
  int64_t k = 0;
  for (size_t i = 0; i < lb.n; i++) sh.d[k++] = l->dims[vfy_int_at(&lb, i)];
  for (int s = 0; s < 2; s++)
    for (int32_t d = 0; d < sides[s]->rank; d++)
      if (!vfy_ints_contains(bat[s], d) && !vfy_ints_contains(con[s], d)) sh.d[k++] = sides[s]->dims[d];
  return vfy_shape_check(op, "result", vfy_rtype(op, 0), &sh);
}

shl_status verify_dot(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 2, 1));
  ST_TRY(vfy_precision_config(op));
  const shl_type *l = vfy_otype(op, 0), *r = vfy_otype(op, 1);
  if (l->rank < 0 || r->rank < 0) return NULL;
  if (l->rank < 1 || l->rank > 2 || r->rank < 1 || r->rank > 2)
    return VFY_ERR(op, "expected both lhs/rhs ranks to be either 1 or 2, got %s and %s", vfy_tstr(l), vfy_tstr(r));
  if (!vfy_dims_compat(l->dims[l->rank - 1], r->dims[0]))
    return VFY_ERR(op, "contracting dimension sizes must match for lhs/rhs (%s and %s)", vfy_tstr(l), vfy_tstr(r));
  vfy_shape sh;
  if (!vfy_shape_init(&sh, l->rank + r->rank - 2)) return st_oom();
  int64_t k = 0;
  if (l->rank == 2) sh.d[k++] = l->dims[0];
  if (r->rank == 2) sh.d[k++] = r->dims[1];
  return vfy_shape_check(op, "result", vfy_rtype(op, 0), &sh);
}

/* ------------------------------------------------------------------ convolution */

typedef struct {
  int64_t ib, ifeat, kin, kout, ob, of;
  vfy_ints isp, ksp, osp;
} conv_dims;

static shl_status conv_dnums(const shl_op *op, conv_dims *c) {
  const shl_attr *dn;
  ST_TRY(vfy_struct_attr(op, "dimension_numbers", &dn));
  static const char *const names[6] = {"input_batch_dimension",          "input_feature_dimension",
                                       "kernel_input_feature_dimension", "kernel_output_feature_dimension",
                                       "output_batch_dimension",         "output_feature_dimension"};
  int64_t *slots[6] = {&c->ib, &c->ifeat, &c->kin, &c->kout, &c->ob, &c->of};
  for (int i = 0; i < 6; i++) ST_TRY(vfy_int_of(op, attr_struct_field(dn, names[i]), names[i], false, 0, slots[i]));
  ST_TRY(vfy_ints_field(op, dn, "input_spatial_dimensions", true, &c->isp));
  ST_TRY(vfy_ints_field(op, dn, "kernel_spatial_dimensions", true, &c->ksp));
  ST_TRY(vfy_ints_field(op, dn, "output_spatial_dimensions", true, &c->osp));
  return NULL;
}

/* One side's dimension numbers: two named dims plus spatial ones, all in
 * [0, rank) and distinct. */
static shl_status conv_side(const shl_op *op, const char *side, int64_t a, int64_t b, const vfy_ints *sp, int64_t rank) {
  if (a < 0 || a >= rank || b < 0 || b >= rank)
    return VFY_ERR(op, "expects %s dimension numbers to be in range [0, %lld)", side, (long long)rank);
  if (a == b) return VFY_ERR(op, "expects %s dimension numbers to be unique", side);
  ST_TRY(vfy_dims(op, sp, rank, false));
  if (vfy_ints_contains(sp, a) || vfy_ints_contains(sp, b))
    return VFY_ERR(op, "expects %s dimension numbers to be unique", side);
  return NULL;
}

shl_status verify_convolution(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 2, 1));
  ST_TRY(vfy_precision_config(op));
  const shl_type *l = vfy_otype(op, 0), *k = vfy_otype(op, 1), *res = vfy_rtype(op, 0);
  conv_dims c;
  ST_TRY(conv_dnums(op, &c));
  int64_t fgc, bgc;
  ST_TRY(vfy_int_attr(op, "feature_group_count", true, 1, &fgc));
  ST_TRY(vfy_int_attr(op, "batch_group_count", true, 1, &bgc));
  if (fgc <= 0) return VFY_ERR(op, "expects feature_group_count to be a positive number, got %lld", (long long)fgc);
  if (bgc <= 0) return VFY_ERR(op, "expects batch_group_count to be a positive number, got %lld", (long long)bgc);
  if (fgc > 1 && bgc > 1)
    return VFY_ERR(op, "expects batch_group_count and feature_group_count not to be both greater than 1");
  size_t ns = c.isp.n;
  if (c.ksp.n != ns || c.osp.n != ns)
    return VFY_ERR(op, "expects the same number of input, kernel and output spatial dimensions, got %zu, %zu and %zu",
                   ns, c.ksp.n, c.osp.n);
  vfy_ints strides, lhs_dil, rhs_dil, rev, pad;
  ST_TRY(vfy_ints_attr(op, "window_strides", true, &strides));
  ST_TRY(vfy_ints_attr(op, "lhs_dilation", true, &lhs_dil));
  ST_TRY(vfy_ints_attr(op, "rhs_dilation", true, &rhs_dil));
  ST_TRY(vfy_ints_attr(op, "window_reversal", true, &rev));
  ST_TRY(vfy_padding_attr(op, "padding", (int64_t)ns, &pad));
  const vfy_ints *lists[4] = {&strides, &lhs_dil, &rhs_dil, &rev};
  for (int i = 0; i < 4; i++) {
    if (lists[i]->a && lists[i]->n != ns)
      return VFY_ERR(op, "expects %s size (%zu) to equal the number of spatial dimensions (%zu)", lists[i]->name,
                     lists[i]->n, ns);
    for (size_t j = 0; i < 3 && j < lists[i]->n; j++)
      if (vfy_int_at(lists[i], j) <= 0)
        return VFY_ERR(op, "expects %s to be positive, got %lld", lists[i]->name, (long long)vfy_int_at(lists[i], j));
  }
  if (l->rank < 0 || k->rank < 0) return NULL;
  if (l->rank != k->rank)
    return VFY_ERR(op, "expects convolution arguments to have the same rank, got %s and %s", vfy_tstr(l), vfy_tstr(k));
  if (l->rank < 2) return VFY_ERR(op, "expects convolution arguments to have >= 2 dimensions, got %s", vfy_tstr(l));
  if ((size_t)l->rank != ns + 2)
    return VFY_ERR(op, "expects convolution arguments to have %zu dimensions, got %d", ns + 2, (int)l->rank);
  ST_TRY(conv_side(op, "input", c.ib, c.ifeat, &c.isp, l->rank));
  ST_TRY(conv_side(op, "kernel", c.kin, c.kout, &c.ksp, l->rank));
  ST_TRY(conv_side(op, "output", c.ob, c.of, &c.osp, l->rank));
  int64_t in_f = l->dims[c.ifeat], in_b = l->dims[c.ib], k_in = k->dims[c.kin], k_out = k->dims[c.kout];
  if (k_out >= 0 && k_out % bgc)
    return VFY_ERR(op, "expects output feature dimension size (%lld) to be a multiple of batch_group_count (%lld)",
                   (long long)k_out, (long long)bgc);
  if (k_out >= 0 && k_out % fgc)
    return VFY_ERR(op, "expects kernel output feature dimension (%lld) to be divisible by feature_group_count (%lld)",
                   (long long)k_out, (long long)fgc);
  if (in_f >= 0 && in_f % fgc)
    return VFY_ERR(op, "expects input feature dimension (%lld) to be a multiple of feature_group_count (%lld)",
                   (long long)in_f, (long long)fgc);
  if (in_f >= 0 && k_in >= 0 && in_f / fgc != k_in)
    return VFY_ERR(op, "expects input feature dimension (%lld) / feature_group_count (%lld) = kernel input feature dimension (%lld)",
                   (long long)in_f, (long long)fgc, (long long)k_in);
  if (in_b >= 0 && in_b % bgc)
    return VFY_ERR(op, "expects input batch dimension (%lld) to be divisible by batch_group_count (%lld)",
                   (long long)in_b, (long long)bgc);
  vfy_shape sh;
  if (!vfy_shape_init(&sh, l->rank)) return st_oom();
  sh.d[c.ob] = in_b >= 0 ? in_b / bgc : SHL_DYN;
  sh.d[c.of] = k_out;
  for (size_t i = 0; i < ns; i++) {
    int64_t base = l->dims[vfy_int_at(&c.isp, i)], win = k->dims[vfy_int_at(&c.ksp, i)];
    int64_t out = SHL_DYN;
    if (base >= 0 && win >= 0) {
      __int128 ld = lhs_dil.a ? vfy_int_at(&lhs_dil, i) : 1, rd = rhs_dil.a ? vfy_int_at(&rhs_dil, i) : 1;
      __int128 st = strides.a ? vfy_int_at(&strides, i) : 1;
      __int128 lo = pad.a ? vfy_int_at(&pad, 2 * i) : 0, hi = pad.a ? vfy_int_at(&pad, 2 * i + 1) : 0;
      __int128 padded = lo + hi + (base ? ((__int128)base - 1) * ld + 1 : 0);
      __int128 dwin = win ? ((__int128)win - 1) * rd + 1 : 0;
      __int128 o = padded <= 0 || dwin > padded ? 0 : (padded - dwin) / st + 1;
      out = o > INT64_MAX ? INT64_MAX : (int64_t)o;
    }
    sh.d[vfy_int_at(&c.osp, i)] = out;
  }
  return vfy_shape_check(op, "result", res, &sh);
}

/* ------------------------------------------------------------------ fft */

shl_status verify_fft(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 1, 1));
  static const char *const kinds[] = {"FFT", "IFFT", "RFFT", "IRFFT", NULL};
  int kind;
  ST_TRY(vfy_enum_attr(op, "fft_type", false, kinds, &kind));
  vfy_ints len;
  ST_TRY(vfy_ints_attr(op, "fft_length", false, &len));
  if (len.n < 1 || len.n > 3) return VFY_ERR(op, "fft_length must have 1 to 3 entries, got %zu", len.n);
  for (size_t i = 0; i < len.n; i++)
    if (vfy_int_at(&len, i) < 0) return VFY_ERR(op, "fft_length must be non-negative");
  const shl_type *a = vfy_otype(op, 0), *r = vfy_rtype(op, 0);
  bool rfft = kind == 2, irfft = kind == 3;
  shl_dtype want;
  if (rfft) {
    if (a->dtype != DT_F32 && a->dtype != DT_F64)
      return VFY_ERR(op, "RFFT requires an f32 or f64 operand, got %s", vfy_tstr(a));
    want = a->dtype == DT_F32 ? DT_C64 : DT_C128;
  } else {
    if (vfy_elem_kind(a) != EK_COMPLEX)
      return VFY_ERR(op, "FFT, IFFT and IRFFT take a complex operand, got %s", vfy_tstr(a));
    want = irfft ? vfy_real_dtype(a->dtype) : a->dtype;
  }
  if (r->dtype != want) return VFY_ERR(op, "result element type must be %s, got %s", dtype_name(want), vfy_tstr(r));
  if (a->rank < 0) return NULL;
  int64_t n = (int64_t)len.n;
  if (a->rank < n)
    return VFY_ERR(op, "operand rank must not be less than the fft rank %lld, got %s", (long long)n, vfy_tstr(a));
  int64_t last = vfy_int_at(&len, len.n - 1);
  vfy_shape sh;
  if (!vfy_shape_init(&sh, a->rank)) return st_oom();
  for (int32_t d = 0; d < a->rank; d++) sh.d[d] = a->dims[d];
  int64_t base = a->rank - n;
  shl_status st = NULL;
  if (rfft) {
    for (int64_t i = 0; i < n && !st; i++)
      if (!vfy_dims_compat(a->dims[base + i], vfy_int_at(&len, (size_t)i)))
        st = VFY_ERR(op, "RFFT requires the innermost dimensions of %s to match fft_length", vfy_tstr(a));
    if (last != 0) sh.d[a->rank - 1] = last / 2 + 1;
  } else if (irfft) {
    for (int64_t i = 0; i + 1 < n && !st; i++)
      if (!vfy_dims_compat(a->dims[base + i], vfy_int_at(&len, (size_t)i)))
        st = VFY_ERR(op, "IRFFT requires the non-final transformed dimensions of %s to match fft_length", vfy_tstr(a));
    int64_t inner = a->dims[a->rank - 1];
    if (!st && inner >= 0 && !(inner == 0 && last == 0) && inner != last / 2 + 1)
      st = VFY_ERR(op, "IRFFT requires the innermost dimension of %s to be fft_length[-1] / 2 + 1", vfy_tstr(a));
    sh.d[a->rank - 1] = last;
  }
  if (st) {
    vfy_shape_free(&sh);
    return st;
  }
  return vfy_shape_check(op, "result", r, &sh);
}

/* ------------------------------------------------------------------ factorizations */

shl_status verify_cholesky(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 1, 1));
  const shl_type *a = vfy_otype(op, 0);
  ST_TRY(vfy_elem_in(op, "operand #0", a, EK_FLOAT | EK_COMPLEX, "floating-point or complex"));
  bool lower;
  ST_TRY(vfy_bool_attr(op, "lower", false, &lower));
  if (a->rank >= 0) {
    if (a->rank < 2) return VFY_ERR(op, "operand must have rank >= 2, got %s", vfy_tstr(a));
    if (!vfy_dims_compat(a->dims[a->rank - 1], a->dims[a->rank - 2]))
      return VFY_ERR(op, "minor dimensions of the operand must have equal size, got %s", vfy_tstr(a));
  }
  return vfy_expect_compat(op, "operand #0", a, "result", vfy_rtype(op, 0));
}

shl_status verify_triangular_solve(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 2, 1));
  const shl_type *a = vfy_otype(op, 0), *b = vfy_otype(op, 1);
  ST_TRY(vfy_elem_in(op, "operand #0", a, EK_FLOAT | EK_COMPLEX, "floating-point or complex"));
  if (!vfy_elem_compat(a, b))
    return VFY_ERR(op, "operands must have the same element type, got %s and %s", vfy_tstr(a), vfy_tstr(b));
  bool left, lower, unit;
  ST_TRY(vfy_bool_attr(op, "left_side", false, &left));
  ST_TRY(vfy_bool_attr(op, "lower", false, &lower));
  ST_TRY(vfy_bool_attr(op, "unit_diagonal", false, &unit));
  static const char *const transposes[] = {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT", NULL};
  int tr;
  ST_TRY(vfy_enum_attr(op, "transpose_a", false, transposes, &tr));
  if (a->rank >= 0) {
    if (a->rank < 2) return VFY_ERR(op, "operand 'a' must have rank >= 2, got %s", vfy_tstr(a));
    if (!vfy_dims_compat(a->dims[a->rank - 1], a->dims[a->rank - 2]))
      return VFY_ERR(op, "the two minor dimensions of operand 'a' must be equal, got %s", vfy_tstr(a));
    if (b->rank >= 0) {
      if (a->rank != b->rank) return VFY_ERR(op, "operands must have equal rank, got %s and %s", vfy_tstr(a), vfy_tstr(b));
      if (!vfy_dims_compat(a->dims[a->rank - 1], b->dims[b->rank - (left ? 2 : 1)]))
        return VFY_ERR(op, "shared dimension of operands 'a' and 'b' must match, got %s and %s", vfy_tstr(a),
                       vfy_tstr(b));
      for (int32_t d = 0; d + 2 < a->rank; d++)
        if (!vfy_dims_compat(a->dims[d], b->dims[d]))
          return VFY_ERR(op, "batch dimensions of the operands must match, got %s and %s", vfy_tstr(a), vfy_tstr(b));
    }
  }
  return vfy_expect_compat(op, "operand #1", b, "result", vfy_rtype(op, 0));
}

/* ------------------------------------------------------------------ batch norm */

shl_status verify_batch_norm(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  /* inference: (operand, scale, offset, mean, variance) -> result;
   * training: (operand, scale, offset) -> (output, batch_mean, batch_var);
   * grad: (operand, scale, mean, variance, grad_output) -> (grad_operand,
   * grad_scale, grad_offset). */
  bool grad = op_is(op, OP_BATCH_NORM_GRAD);
  uint32_t n_in = op_is(op, OP_BATCH_NORM_TRAINING) ? 3 : 5, n_out = op_is(op, OP_BATCH_NORM_INFERENCE) ? 1 : 3;
  ST_TRY(vfy_all_tensors(op, n_in, n_out));
  const shl_type *a = vfy_otype(op, 0);
  ST_TRY(vfy_elem_in(op, "operand #0", a, EK_FLOAT | EK_QUANT, "floating-point"));
  const shl_attr *eps = op_attr(op, "epsilon");
  if (!eps) return VFY_ERR(op, "requires attribute 'epsilon'");
  if (eps->kind != AT_FLOAT) return VFY_ERR(op, "attribute 'epsilon' must be a float");
  int64_t fi;
  ST_TRY(vfy_int_attr(op, "feature_index", false, 0, &fi));
  if (fi < 0) return VFY_ERR(op, "expects feature_index to be non-negative, got %lld", (long long)fi);
  if (a->rank >= 0 && fi >= a->rank)
    return VFY_ERR(op, "expects feature_index (%lld) to be smaller than the operand rank (%d)", (long long)fi,
                   (int)a->rank);
  int64_t features = a->rank >= 0 ? a->dims[fi] : SHL_DYN;
  /* Every other tensor: operand-shaped (operand #0, grad_output, result #0)
   * or a 1-D vector of `features` elements. */
  for (uint32_t i = 0; i < n_in + n_out; i++) {
    bool is_result = i >= n_in;
    uint32_t j = is_result ? i - n_in : i;
    const shl_type *t = is_result ? vfy_rtype(op, j) : vfy_otype(op, j);
    const char *what = vfy_fmt("%s #%u", is_result ? "result" : "operand", j);
    if (!vfy_elem_compat(t, a))
      return VFY_ERR(op, "%s type %s must have the element type of operand #0 type %s", what, vfy_tstr(t), vfy_tstr(a));
    bool multi = j == 0 || (grad && !is_result && j == 4);
    if (multi) {
      ST_TRY(vfy_expect_same_shape(op, what, t, "operand #0", a));
      continue;
    }
    ST_TRY(vfy_rank(op, what, t, 1));
    if (t->rank == 1 && !vfy_dims_compat(t->dims[0], features))
      return VFY_ERR(op, "%s type %s must have the feature count (%lld) of the operand", what, vfy_tstr(t),
                     (long long)features);
  }
  return NULL;
}
