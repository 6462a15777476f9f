/* CHLO ops with short decompositions (upstream ChloDecompositionPatterns.td
 * and ChloLegalizeToStablehlo.cpp): conj, is_inf, is_neg_inf, is_pos_inf,
 * constant, constant_like, square, tan, atan, atanh, mulhi, next_after,
 * cosh, sinh, and the implicitly broadcasting binary ops. */
#include <math.h>

#include "chlo_impl.h"
#include "support/scalar.h"

static bool is_cplx(const shl_value *v) { return dtype_is_complex(v->type->dtype); }

static shl_dtype real_part(shl_dtype dt) { return dt == DT_C64 ? DT_F32 : DT_F64; }

static shl_value *real_of(cl_emit *e, shl_value *z) {
  if (!z) return NULL;
  return cl_op(e, OP_REAL, 1, &z, cl_type_like(e, z->type, real_part(z->type->dtype)), 0, NULL);
}

static shl_value *imag_of(cl_emit *e, shl_value *z) {
  if (!z) return NULL;
  return cl_op(e, OP_IMAG, 1, &z, cl_type_like(e, z->type, real_part(z->type->dtype)), 0, NULL);
}

static shl_value *complex_of(cl_emit *e, shl_value *re, shl_value *im, const shl_type *t) {
  shl_value *ops[2] = {re, im};
  return cl_op(e, OP_COMPLEX, 2, ops, t, 0, NULL);
}

/* +-inf of a float element type. */
static shl_value *inf_like(cl_emit *e, shl_value *x, bool negative) {
  return cl_const(e, x, negative ? -INFINITY : INFINITY);
}

/* exp(x + log(1/2)) +- exp(log(1/2) - x): cosh and sinh without overflow
 * for large |x| (upstream materializeCoshApproximation / ...SinhApproximationForLargeX). */
static shl_value *half_exp_pair(cl_emit *e, shl_value *x, bool minus) {
  shl_value *log_half = cl_log(e, cl_const(e, x, 0.5));
  shl_value *a = cl_exp(e, cl_add(e, x, log_half));
  shl_value *b = cl_exp(e, cl_sub(e, log_half, x));
  return minus ? cl_sub(e, a, b) : cl_add(e, a, b);
}

static shl_value *cosh_f32(cl_emit *e, shl_value *x) { return half_exp_pair(e, x, false); }

/* sinh(x) = (expm1(x) + expm1(x) / (expm1(x) + 1)) / 2 for |x| < 1 (no
 * cancellation), the exp pair otherwise. */
static shl_value *sinh_f32(cl_emit *e, shl_value *x) {
  shl_value *large = half_exp_pair(e, x, true);
  shl_value *em1 = cl_un(e, OP_EXPONENTIAL_MINUS_ONE, x);
  shl_value *one = cl_const(e, x, 1.0);
  shl_value *small = cl_mul(e, cl_const(e, x, 0.5), cl_add(e, em1, cl_div(e, em1, cl_add(e, em1, one))));
  return cl_select(e, cl_cmp(e, "LT", cl_abs(e, x), one), small, large);
}

/* atanh(x) = (log1p(x) - log1p(-x)) / 2, NaN for |x| > 1. */
static shl_value *atanh_real(cl_emit *e, shl_value *x) {
  shl_value *out = cl_mul(e, cl_sub(e, cl_log1p(e, x), cl_log1p(e, cl_neg(e, x))), cl_const(e, x, 0.5));
  return cl_select(e, cl_cmp(e, "GT", cl_abs(e, x), cl_const(e, x, 1.0)), cl_const(e, x, NAN), out);
}

/* tan without stablehlo.tan (StableHLO's compatibility expander):
 * sin(x) / cos(x); complex: (tan a + i tanh b) / (1 - i tan a tanh b). */
static shl_value *tan_expanded(cl_emit *e, shl_value *x) {
  if (!is_cplx(x)) return cl_div(e, cl_un(e, OP_SINE, x), cl_un(e, OP_COSINE, x));
  shl_value *t = tan_expanded(e, real_of(e, x)), *th = cl_un(e, OP_TANH, imag_of(e, x));
  shl_value *num = complex_of(e, t, th, x->type);
  shl_value *den = complex_of(e, cl_const(e, t, 1.0), cl_neg(e, cl_mul(e, t, th)), x->type);
  return cl_div(e, num, den);
}

/* square(z) for complex z: real part 0 when |re| == |im| (finite), else
 * (re - im)(re + im); imaginary part 2 re im. */
static shl_value *square_complex(cl_emit *e, shl_value *z) {
  shl_value *x = real_of(e, z), *y = imag_of(e, z);
  shl_value *finite = x ? cl_op(e, OP_IS_FINITE, 1, &x, cl_type_like(e, x->type, DT_I1), 0, NULL) : NULL;
  shl_value *eq = cl_and(e, finite, cl_cmp(e, "EQ", cl_abs(e, x), cl_abs(e, y)));
  shl_value *re = cl_select(e, eq, cl_const(e, x, 0.0), cl_mul(e, cl_sub(e, x, y), cl_add(e, x, y)));
  shl_value *im = cl_mul(e, cl_const(e, x, 2.0), cl_mul(e, x, y));
  return complex_of(e, re, im, z->type);
}

/* Integer type of twice the width and the same signedness, or the type itself. */
static shl_dtype wider_int(shl_dtype dt) {
  switch (dt) {
    case DT_I2: return DT_I4;
    case DT_I4: return DT_I8;
    case DT_I8: return DT_I16;
    case DT_I16: return DT_I32;
    case DT_I32: return DT_I64;
    case DT_UI2: return DT_UI4;
    case DT_UI4: return DT_UI8;
    case DT_UI8: return DT_UI16;
    case DT_UI16: return DT_UI32;
    case DT_UI32: return DT_UI64;
    default: return dt;
  }
}

/* The high half of the unsigned 64-bit product from 32-bit halves. */
static shl_value *mulhi_u64(cl_emit *e, shl_value *a, shl_value *b) {
  shl_value *c32 = cl_const(e, a, 32), *lo = cl_const_bits(e, a, 0xFFFFFFFFu);
  shl_value *a_hi = cl_bin(e, OP_SHIFT_RIGHT_LOGICAL, a, c32), *b_hi = cl_bin(e, OP_SHIFT_RIGHT_LOGICAL, b, c32);
  shl_value *a_lo = cl_and(e, a, lo), *b_lo = cl_and(e, b, lo);
  shl_value *p0 = cl_mul(e, a_lo, b_lo), *p1 = cl_mul(e, a_lo, b_hi);
  shl_value *p2 = cl_mul(e, a_hi, b_lo), *p3 = cl_mul(e, a_hi, b_hi);
  shl_value *mid1 = cl_add(e, p1, cl_bin(e, OP_SHIFT_RIGHT_LOGICAL, p0, c32));
  shl_value *mid2 = cl_add(e, p2, cl_and(e, mid1, lo));
  return cl_add(e, cl_add(e, p3, cl_bin(e, OP_SHIFT_RIGHT_LOGICAL, mid1, c32)),
                cl_bin(e, OP_SHIFT_RIGHT_LOGICAL, mid2, c32));
}

static shl_value *mulhi(cl_emit *e, shl_value *a, shl_value *b) {
  shl_dtype dt = a->type->dtype, w = wider_int(dt);
  if (w != dt) {
    shl_value *p = cl_mul(e, cl_convert(e, a, w), cl_convert(e, b, w));
    shl_value *sh = cl_bin(e, dtype_is_signed(dt) ? OP_SHIFT_RIGHT_ARITHMETIC : OP_SHIFT_RIGHT_LOGICAL, p,
                           cl_const(e, p, (double)dtype_bits(dt)));
    return cl_convert(e, sh, dt);
  }
  if (dt == DT_UI64) return mulhi_u64(e, a, b);
  if (dt != DT_I64) return cl_fail(e, "has element type %s, which has no decomposition", dtype_name(dt));
  /* Signed: the unsigned high half, minus b where a < 0 and a where b < 0
   * (each unsigned view its own convert, as upstream's pattern builds it). */
  shl_value *hi = mulhi_u64(e, cl_convert(e, a, DT_UI64), cl_convert(e, b, DT_UI64));
  shl_value *ub = cl_convert(e, b, DT_UI64), *ua = cl_convert(e, a, DT_UI64);
  hi = cl_sub(e, hi, cl_select(e, cl_cmp(e, "LT", a, cl_const(e, a, 0)), ub, cl_const(e, ub, 0)));
  hi = cl_sub(e, hi, cl_select(e, cl_cmp(e, "LT", b, cl_const(e, b, 0)), ua, cl_const(e, ua, 0)));
  return cl_convert(e, hi, DT_I64);
}

/* The next representable value after x towards y, on the bit patterns. */
static shl_value *next_after(cl_emit *e, shl_value *x, shl_value *y) {
  shl_dtype ft = x->type->dtype;
  unsigned bits = dtype_bits(ft);
  shl_dtype it = bits == 64 ? DT_I64 : bits == 32 ? DT_I32 : bits == 16 ? DT_I16 : DT_I8;
  if (!dtype_is_float(ft) || (bits != 64 && bits != 32 && bits != 16))
    return cl_fail(e, "has element type %s, which has no decomposition", dtype_name(ft));
  const shl_type *itype = cl_type_like(e, x->type, it);
  shl_value *xi = cl_op(e, OP_BITCAST_CONVERT, 1, &x, itype, 0, NULL);
  shl_value *yi = cl_op(e, OP_BITCAST_CONVERT, 1, &y, itype, 0, NULL);
  shl_value *nan_in = cl_or(e, cl_cmp(e, "NE", x, x), cl_cmp(e, "NE", y, y));
  shl_value *nan = cl_const(e, x, NAN);
  shl_value *nan_i = cl_op(e, OP_BITCAST_CONVERT, 1, &nan, itype, 0, NULL);
  uint64_t sign = (uint64_t)1 << (bits - 1);
  shl_value *sign_mask = cl_const_bits(e, xi, sign), *abs_mask = cl_const_bits(e, xi, ~sign);
  shl_value *x_abs = cl_and(e, xi, abs_mask), *y_abs = cl_and(e, yi, abs_mask);
  shl_value *equal = cl_cmp(e, "EQ", x, y);
  shl_value *zero = cl_const(e, xi, 0), *one = cl_const(e, xi, 1);
  shl_value *x_zero = cl_cmp(e, "EQ", x_abs, zero), *y_zero = cl_cmp(e, "EQ", y_abs, zero);
  shl_value *x_sign = cl_and(e, xi, sign_mask), *y_sign = cl_and(e, yi, sign_mask);
  /* From +-0 towards a nonzero y: the smallest subnormal with y's sign. */
  shl_value *from_zero = cl_or(e, y_sign, one);
  shl_value *smaller = cl_or(e, cl_cmp(e, "GT", x_abs, y_abs), cl_cmp(e, "NE", x_sign, y_sign));
  shl_value *r = cl_add(e, xi, cl_select(e, smaller, cl_const(e, xi, -1), one));
  r = cl_select(e, x_zero, cl_select(e, y_zero, yi, from_zero), r);
  r = cl_select(e, equal, yi, r);
  r = cl_select(e, nan_in, nan_i, r);
  return cl_op(e, OP_BITCAST_CONVERT, 1, &r, x->type, 0, NULL);
}

/* ---- implicitly broadcasting binary ops ---- */

static shl_opid broadcast_target(shl_opid id) {
  switch (id) {
    case OP_CHLO_BROADCAST_ADD: return OP_ADD;
    case OP_CHLO_BROADCAST_SUBTRACT: return OP_SUBTRACT;
    case OP_CHLO_BROADCAST_MULTIPLY: return OP_MULTIPLY;
    case OP_CHLO_BROADCAST_DIVIDE: return OP_DIVIDE;
    case OP_CHLO_BROADCAST_REMAINDER: return OP_REMAINDER;
    case OP_CHLO_BROADCAST_POWER: return OP_POWER;
    case OP_CHLO_BROADCAST_MAXIMUM: return OP_MAXIMUM;
    case OP_CHLO_BROADCAST_MINIMUM: return OP_MINIMUM;
    case OP_CHLO_BROADCAST_AND: return OP_AND;
    case OP_CHLO_BROADCAST_OR: return OP_OR;
    case OP_CHLO_BROADCAST_XOR: return OP_XOR;
    case OP_CHLO_BROADCAST_ATAN2: return OP_ATAN2;
    case OP_CHLO_BROADCAST_COMPARE: return OP_COMPARE;
    case OP_CHLO_BROADCAST_SELECT: return OP_SELECT;
    case OP_CHLO_BROADCAST_COMPLEX: return OP_COMPLEX;
    case OP_CHLO_BROADCAST_SHIFT_LEFT: return OP_SHIFT_LEFT;
    case OP_CHLO_BROADCAST_SHIFT_RIGHT_ARITHMETIC: return OP_SHIFT_RIGHT_ARITHMETIC;
    case OP_CHLO_BROADCAST_SHIFT_RIGHT_LOGICAL: return OP_SHIFT_RIGHT_LOGICAL;
    case OP_CHLO_BROADCAST_NEXT_AFTER: return OP_CHLO_NEXT_AFTER;
    case OP_CHLO_BROADCAST_POLYGAMMA: return OP_CHLO_POLYGAMMA;
    case OP_CHLO_BROADCAST_ZETA: return OP_CHLO_ZETA;
    default: return OP_UNKNOWN;
  }
}

/* v broadcast to the result's shape: along broadcast_dimensions when the op
 * has them and v has the smaller rank, else numpy-style (trailing dims). */
static shl_value *broadcast_to(cl_emit *e, shl_value *v, const shl_type *r, const shl_attr *bd, int32_t max_rank) {
  if (!v) return NULL;
  const shl_type *t = v->type;
  if (!type_is_static(t) || !type_is_static(r))
    return cl_fail(e, "has a dynamic shape; the CHLO decomposition handles static shapes only");
  bool same = t->rank == r->rank;
  for (int32_t d = 0; same && d < t->rank; d++) same = t->dims[d] == r->dims[d];
  if (same) return v;
  int64_t dims[64];
  if (t->rank > 64) return cl_fail(e, "has an operand of rank %d", (int)t->rank);
  size_t n = 0;
  if (bd && t->rank < max_rank && attr_as_ints(bd, dims, 64, &n) && n == (size_t)t->rank) {
  } else {
    for (int32_t d = 0; d < t->rank; d++) dims[d] = r->rank - t->rank + d;
  }
  shl_attr *a = attr_dense_array_i64(e->a, dims, t->rank);
  if (!a) return cl_fail(e, "out of memory");
  shl_named_attr na = {str_of("broadcast_dimensions"), a, true};
  return cl_op(e, OP_BROADCAST_IN_DIM, 1, &v, cl_type_like(e, r, t->dtype), 1, &na);
}

/* A stablehlo enum attribute with the value of a chlo one. */
static const shl_attr *stablehlo_enum(cl_emit *e, const shl_attr *a) {
  if (!a || a->kind != AT_ENUM) return a;
  shl_attr *s = attr_new(e->a, AT_ENUM);
  if (!s) return NULL;
  *s = *a;
  s->u.en.dialect = str_of("stablehlo");
  return s;
}

static void broadcast_op(cl_emit *e, const shl_op *op, shl_value **res) {
  shl_opid target = broadcast_target(op_id(op));
  const shl_type *r = op->results[0].type;
  const shl_attr *bd = op_attr(op, "broadcast_dimensions");
  int32_t max_rank = 0;
  for (uint32_t i = 0; i < op->n_operands; i++)
    if (op->operands[i]->type->rank > max_rank) max_rank = op->operands[i]->type->rank;
  shl_value *ops[3];
  for (uint32_t i = 0; i < op->n_operands && i < 3; i++) ops[i] = broadcast_to(e, op->operands[i], r, bd, max_rank);
  if (e->st) return;
  if (target == OP_CHLO_NEXT_AFTER) {
    res[0] = next_after(e, ops[0], ops[1]);
    return;
  }
  if (target == OP_CHLO_POLYGAMMA || target == OP_CHLO_ZETA) {
    res[0] = cl_upcast2_f32(e, ops[0], ops[1], target == OP_CHLO_ZETA ? cl_zeta : cl_polygamma);
    return;
  }
  shl_named_attr attrs[2];
  uint32_t n_attrs = 0;
  if (target == OP_COMPARE) {
    static const char *const names[] = {"compare_type", "comparison_direction"};
    for (int i = 0; i < 2; i++) {
      const shl_attr *a = op_attr(op, names[i]);
      if (a) attrs[n_attrs++] = (shl_named_attr){str_of(names[i]), stablehlo_enum(e, a), true};
    }
  }
  res[0] = cl_op(e, target, op->n_operands, ops, r, n_attrs, attrs);
}

void cl_rule_simple(cl_emit *e, const shl_op *op, shl_value **res) {
  shl_value *x = op->n_operands ? op->operands[0] : NULL;
  switch (op_id(op)) {
    case OP_CHLO_CONJ:
      res[0] = !is_cplx(x) ? x : complex_of(e, real_of(e, x), cl_neg(e, imag_of(e, x)), x->type);
      return;
    case OP_CHLO_IS_INF: res[0] = cl_cmp(e, "EQ", cl_abs(e, x), inf_like(e, x, false)); return;
    case OP_CHLO_IS_POS_INF: res[0] = cl_cmp(e, "EQ", x, inf_like(e, x, false)); return;
    case OP_CHLO_IS_NEG_INF: res[0] = cl_cmp(e, "EQ", x, inf_like(e, x, true)); return;
    case OP_CHLO_CONSTANT:
      res[0] = cl_op(e, OP_CONSTANT, 0, NULL, op->results[0].type, 1,
                     &(shl_named_attr){str_of("value"), op_attr(op, "value"), true});
      return;
    case OP_CHLO_CONSTANT_LIKE: {
      /* The scalar `value` splat to the operand's (static) shape. */
      const shl_attr *v = op_attr(op, "value");
      if (!type_is_static(op->results[0].type)) {
        cl_fail(e, "has a dynamic shape; the CHLO decomposition handles static shapes only");
        return;
      }
      if (!v || (v->kind != AT_FLOAT && v->kind != AT_INT && v->kind != AT_BOOL)) {
        cl_fail(e, "value must be a scalar number for the decomposition");
        return;
      }
      /* The value converted to the result's element type, as upstream's
       * DenseElementsAttr of the result type holds it. */
      shl_value like = {.type = op->results[0].type};
      shl_dtype rt = like.type->dtype;
      if (v->kind == AT_FLOAT && v->type && v->type->dtype == rt) res[0] = cl_const_bits(e, &like, v->u.f_bits);
      else if (v->kind == AT_FLOAT) res[0] = cl_const(e, &like, fp_to_f64(v->type ? v->type->dtype : DT_F64, v->u.f_bits));
      else if (dtype_is_float(rt) || dtype_is_complex(rt)) res[0] = cl_const(e, &like, v->kind == AT_BOOL ? v->u.b : (double)v->u.i);
      else res[0] = cl_const_bits(e, &like, v->kind == AT_BOOL ? (uint64_t)v->u.b : (uint64_t)v->u.i);
      return;
    }
    case OP_CHLO_SQUARE: res[0] = is_cplx(x) ? square_complex(e, x) : cl_mul(e, x, x); return;
    case OP_CHLO_TAN: res[0] = e->flags & PASS_CHLO_EXPAND_TAN ? tan_expanded(e, x) : cl_un(e, OP_TAN, x); return;
    case OP_CHLO_ATAN: res[0] = cl_bin(e, OP_ATAN2, x, cl_const(e, x, 1.0)); return;
    case OP_CHLO_ATANH: res[0] = atanh_real(e, x); return;
    case OP_CHLO_COSH: res[0] = is_cplx(x) ? half_exp_pair(e, x, false) : cl_upcast_f32(e, x, cosh_f32); return;
    case OP_CHLO_SINH: res[0] = is_cplx(x) ? half_exp_pair(e, x, true) : cl_upcast_f32(e, x, sinh_f32); return;
    case OP_CHLO_MULHI: res[0] = mulhi(e, x, op->operands[1]); return;
    case OP_CHLO_NEXT_AFTER: res[0] = next_after(e, x, op->operands[1]); return;
    default:
      if (broadcast_target(op_id(op)) != OP_UNKNOWN) {
        broadcast_op(e, op, res);
        return;
      }
      cl_fail(e, "has no StableHLO decomposition in shloc (VHLO cannot hold CHLO ops)");
      return;
  }
}
