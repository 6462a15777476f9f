/* Rules of the elementwise families: unary and binary arithmetic, logic,
 * conversions, compare, select and clamp.  Shapes of operands and results
 * must be compatible ('?' matches anything); element types follow the spec's
 * per-op classes. */
#include "ir/result_accuracy.h"
#include "rules.h"

static const char *nth(const char *what, uint32_t i) { return vfy_fmt("%s #%u", what, i); }

/* All operands and the result have compatible types.  These run for most ops
 * of a program, so labels are formatted only once a check has failed. */
static shl_status same_types(const shl_op *op) {
  const shl_type *r = vfy_rtype(op, 0);
  for (uint32_t i = 0; i < op->n_operands; i++) {
    const shl_type *t = vfy_otype(op, i);
    if (i && !vfy_types_compat(t, vfy_otype(op, 0)))
      return vfy_expect_compat(op, nth("operand", i), t, "operand #0", vfy_otype(op, 0));
    if (!vfy_types_compat(t, r)) return vfy_expect_compat(op, nth("operand", i), t, "result", r);
  }
  return NULL;
}

static shl_status ew(const shl_op *op, uint32_t n_operands, unsigned kinds, const char *desc) {
  ST_TRY(vfy_all_tensors(op, n_operands, 1));
  for (uint32_t i = 0; i < n_operands; i++)
    if (!(vfy_elem_kind(vfy_otype(op, i)) & kinds)) return vfy_elem_in(op, nth("operand", i), vfy_otype(op, i), kinds, desc);
  return same_types(op);
}

/* Result has the operand's shape and element type `dt`. */
static shl_status result_shape_elem(const shl_op *op, shl_dtype dt) {
  const shl_type *a = vfy_otype(op, 0), *r = vfy_rtype(op, 0);
  ST_TRY(vfy_expect_same_shape(op, "result", r, "operand #0", a));
  if (r->dtype != dt)
    return VFY_ERR(op, "result element type must be %s, got %s", dtype_name(dt), vfy_tstr(r));
  return NULL;
}

#define FP_DESC "floating-point or complex"

/* The transcendental ops: each also takes result_accuracy. */
shl_status verify_unary_float(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ra_spec ra;
  ST_TRY(result_accuracy_of(op, &ra));
  return ew(op, 1, EK_FLOAT | EK_COMPLEX | EK_QUANT, FP_DESC);
}

shl_status verify_unary_int(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  return ew(op, 1, EK_INT | EK_PRED, "integer or boolean");
}

shl_status verify_unary_numeric(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  return ew(op, 1, EK_INT | EK_FLOAT | EK_COMPLEX | EK_QUANT, "integer, floating-point or complex");
}

shl_status verify_binary_any(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  return ew(op, 2, EK_ANY, "any");
}

shl_status verify_binary_numeric(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  return ew(op, 2, EK_INT | EK_FLOAT | EK_COMPLEX | EK_QUANT, "integer, floating-point or complex");
}

shl_status verify_binary_int(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  return ew(op, 2, EK_INT | EK_PRED, "integer or boolean");
}

shl_status verify_binary_float(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  return ew(op, 2, EK_FLOAT | EK_COMPLEX | EK_QUANT, FP_DESC);
}

/* chlo.mulhi: 2- to 64-bit integers (not i1), one type for all. */
shl_status verify_mulhi(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  return ew(op, 2, EK_INT, "2/4/8/16/32/64-bit integer");
}

/* chlo._asin_acos_kernel: complex in, the same complex type out. */
shl_status verify_asin_acos_kernel(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  return ew(op, 1, EK_COMPLEX, "complex");
}

shl_status verify_abs(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 1, 1));
  const shl_type *a = vfy_otype(op, 0);
  ST_TRY(vfy_elem_in(op, "operand #0", a, EK_SINT | EK_FLOAT | EK_COMPLEX | EK_QUANT,
                     "signed integer, floating-point or complex"));
  /* |complex| is real. */
  if (vfy_elem_kind(a) == EK_COMPLEX) return result_shape_elem(op, vfy_real_dtype(a->dtype));
  return same_types(op);
}

shl_status verify_real_imag(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 1, 1));
  const shl_type *a = vfy_otype(op, 0);
  ST_TRY(vfy_elem_in(op, "operand #0", a, EK_FLOAT | EK_COMPLEX, FP_DESC));
  return result_shape_elem(op, vfy_real_dtype(a->dtype));
}

shl_status verify_is_finite(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 1, 1));
  ST_TRY(vfy_elem_in(op, "operand #0", vfy_otype(op, 0), EK_FLOAT | EK_QUANT, "floating-point"));
  return result_shape_elem(op, DT_I1);
}

shl_status verify_convert(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 1, 1));
  return vfy_expect_same_shape(op, "result", vfy_rtype(op, 0), "operand #0", vfy_otype(op, 0));
}

static unsigned bit_width(const shl_type *t) {
  shl_dtype dt = type_storage_dtype(t);
  return dt > DT_INVALID && dt < DT_COUNT ? dtype_bits(dt) : 0;
}

shl_status verify_bitcast_convert(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 1, 1));
  const shl_type *a = vfy_otype(op, 0), *r = vfy_rtype(op, 0);
  if ((vfy_elem_kind(a) == EK_COMPLEX) != (vfy_elem_kind(r) == EK_COMPLEX))
    return VFY_ERR(op, "cannot convert between real and complex types, got %s and %s", vfy_tstr(a), vfy_tstr(r));
  unsigned wa = bit_width(a), wr = bit_width(r);
  if (!wa || !wr) return VFY_ERR(op, "element types of %s and %s have no bit width", vfy_tstr(a), vfy_tstr(r));
  if (a->rank < 0 || r->rank < 0) return NULL;
  /* The tensor with the narrower element type has one extra minor dimension. */
  const shl_type *small = wa < wr ? a : r, *big = wa < wr ? r : a;
  unsigned ws = wa < wr ? wa : wr, wb = wa < wr ? wr : wa;
  int32_t prefix = big->rank;
  if (ws != wb) {
    if (small->rank != big->rank + 1)
      return VFY_ERR(op, "rank of the narrower type %s must be one more than the rank of %s", vfy_tstr(small),
                     vfy_tstr(big));
    int64_t last = small->dims[small->rank - 1];
    if (last >= 0 && (uint64_t)last * ws != wb)
      return VFY_ERR(op, "requires compatible bit widths: %s and %s", vfy_tstr(a), vfy_tstr(r));
  } else if (small->rank != big->rank) {
    return VFY_ERR(op, "operand and result shapes must match, got %s and %s", vfy_tstr(a), vfy_tstr(r));
  }
  for (int32_t i = 0; i < prefix; i++)
    if (!vfy_dims_compat(small->dims[i], big->dims[i]))
      return VFY_ERR(op, "operand and result shapes must match except for the minor dimension of the narrower type, got %s and %s",
                     vfy_tstr(a), vfy_tstr(r));
  return NULL;
}

shl_status verify_reduce_precision(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(ew(op, 1, EK_FLOAT | EK_QUANT, "floating-point"));
  int64_t e, m;
  ST_TRY(vfy_int_attr(op, "exponent_bits", false, 0, &e));
  ST_TRY(vfy_int_attr(op, "mantissa_bits", false, 0, &m));
  if (e < 1) return VFY_ERR(op, "exponent_bits must be at least 1, got %lld", (long long)e);
  if (m < 0) return VFY_ERR(op, "mantissa_bits must be at least 0, got %lld", (long long)m);
  return NULL;
}

shl_status verify_complex(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 2, 1));
  const shl_type *l = vfy_otype(op, 0), *r = vfy_otype(op, 1);
  if (l->dtype != DT_F32 && l->dtype != DT_F64)
    return VFY_ERR(op, "operand #0 must be a tensor of f32 or f64 values, got %s", vfy_tstr(l));
  ST_TRY(vfy_expect_compat(op, "operand #1", r, "operand #0", l));
  return result_shape_elem(op, l->dtype == DT_F32 ? DT_C64 : DT_C128);
}

static const char *const cmp_directions[] = {"EQ", "NE", "GE", "GT", "LE", "LT", NULL};
static const char *const cmp_types[] = {"NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED", NULL};

shl_status verify_compare(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 2, 1));
  int dir, ct;
  ST_TRY(vfy_enum_attr(op, "comparison_direction", false, cmp_directions, &dir));
  ST_TRY(vfy_enum_attr(op, "compare_type", true, cmp_types, &ct));
  ST_TRY(vfy_expect_compat(op, "operand #1", vfy_otype(op, 1), "operand #0", vfy_otype(op, 0)));
  return result_shape_elem(op, DT_I1);
}

shl_status verify_select(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 3, 1));
  const shl_type *pred = vfy_otype(op, 0), *t = vfy_otype(op, 1), *f = vfy_otype(op, 2);
  if (pred->dtype != DT_I1) return VFY_ERR(op, "operand #0 (pred) must be a tensor of i1 values, got %s", vfy_tstr(pred));
  ST_TRY(vfy_expect_compat(op, "operand #2", f, "operand #1", t));
  if (pred->rank != 0) ST_TRY(vfy_expect_same_shape(op, "operand #0 (pred)", pred, "operand #1", t));
  ST_TRY(vfy_expect_compat(op, "operand #1", t, "result", vfy_rtype(op, 0)));
  return vfy_expect_compat(op, "operand #2", f, "result", vfy_rtype(op, 0));
}

shl_status verify_clamp(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 3, 1));
  const shl_type *x = vfy_otype(op, 1);
  for (uint32_t i = 0; i < 3; i += 2) {
    const shl_type *b = vfy_otype(op, i);
    const char *what = i ? "operand #2 (max)" : "operand #0 (min)";
    if (!vfy_elem_compat(b, x))
      return VFY_ERR(op, "%s type %s has a different element type than operand #1 type %s", what, vfy_tstr(b),
                     vfy_tstr(x));
    if (b->rank != 0) ST_TRY(vfy_expect_same_shape(op, what, b, "operand #1", x));
  }
  return vfy_expect_compat(op, "operand #1", x, "result", vfy_rtype(op, 0));
}
