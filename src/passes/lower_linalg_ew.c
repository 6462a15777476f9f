/* Elementwise ops -> linalg.generic with an arith/math body, with shloc's
 * interpreter semantics (src/exec/kernels/ew_*.c, support/scalar.h):
 * integer x/0 = -1, x%0 = x, INT_MIN/-1 = INT_MIN; shifts by >= the bit
 * width give 0 (sign fill for arithmetic right shifts); float max/min
 * propagate NaN and order -0 < +0 (arith.maximumf/minimumf); float -> int
 * converts truncate and saturate, NaN -> 0; bool add/multiply are or/and. */
#include <stdio.h>
#include <string.h>

#include "passes/lower_linalg_emit.h"

static const char *ty(shl_dtype dt) { return ll_dtype(dt); }

/* %t = OPNAME a[, b] : T */
static uint32_t ins(ll_emit *e, const char *opname, uint32_t a, const uint32_t *b, shl_dtype dt) {
  uint32_t r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_printf(&e->pr, " = %s ", opname);
  ll_tmp(e, a);
  if (b) {
    pr_puts(&e->pr, ", ");
    ll_tmp(e, *b);
  }
  pr_printf(&e->pr, " : %s", ty(dt));
  return r;
}

uint32_t ll_bin(ll_emit *e, const char *opname, uint32_t a, uint32_t b, shl_dtype dt) {
  return ins(e, opname, a, &b, dt);
}

uint32_t ll_unary(ll_emit *e, const char *opname, uint32_t a, shl_dtype dt) { return ins(e, opname, a, NULL, dt); }

uint32_t ll_cst_int(ll_emit *e, long long v, shl_dtype dt) {
  uint32_t r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  if (dtype_class(dt) == DTC_BOOL) pr_printf(&e->pr, " = arith.constant %s", v ? "true" : "false");
  else pr_printf(&e->pr, " = arith.constant %lld : %s", v, ty(dt));
  return r;
}

uint32_t ll_cst_float(ll_emit *e, const char *v, shl_dtype dt) {
  uint32_t r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_printf(&e->pr, " = arith.constant %s : %s", v, ty(dt));
  return r;
}

uint32_t ll_cmp(ll_emit *e, const char *kind, const char *pred, uint32_t a, uint32_t b, shl_dtype dt) {
  uint32_t r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_printf(&e->pr, " = arith.%s %s, ", kind, pred);
  ll_tmp(e, a);
  pr_puts(&e->pr, ", ");
  ll_tmp(e, b);
  pr_printf(&e->pr, " : %s", ty(dt));
  return r;
}

uint32_t ll_sel(ll_emit *e, uint32_t c, uint32_t a, uint32_t b, shl_dtype dt) {
  uint32_t r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_puts(&e->pr, " = arith.select ");
  ll_tmp(e, c);
  pr_puts(&e->pr, ", ");
  ll_tmp(e, a);
  pr_puts(&e->pr, ", ");
  ll_tmp(e, b);
  pr_printf(&e->pr, " : %s", ty(dt));
  return r;
}

/* %t = OPNAME a : A to B */
uint32_t ll_cast(ll_emit *e, const char *opname, uint32_t a, shl_dtype from, shl_dtype to) {
  uint32_t r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_printf(&e->pr, " = %s ", opname);
  ll_tmp(e, a);
  pr_printf(&e->pr, " : %s to %s", ty(from), ty(to));
  return r;
}

static long long int_min_of(shl_dtype dt) { return -(long long)(1ull << (dtype_bits(dt) - 1)); }

/* Largest finite value of a float type as a hex literal is awkward across
 * types; the saturation bounds below are powers of two, exact in any
 * float type with enough exponent range (others saturate through inf). */
static uint32_t float_to_int(ll_emit *e, uint32_t x, shl_dtype from, shl_dtype to) {
  if (dtype_class(to) == DTC_BOOL) {
    uint32_t z = ll_cst_float(e, "0.0", from);
    return ll_cmp(e, "cmpf", "une", x, z, from);
  }
  unsigned bits = dtype_bits(to);
  /* Compare in f64 when it holds the bound exactly, to avoid overflowing a narrow type. */
  shl_dtype wide = dtype_from_name("f64", 3);
  uint32_t xw = dtype_bits(from) < 64 ? ll_cast(e, "arith.extf", x, from, wide) : x;
  if (dtype_bits(from) > 64) return ll_cast(e, "arith.fptosi", x, from, to);
  char lim[64];
  snprintf(lim, sizeof lim, "%.1f", (double)(1ull << (bits - 1)));
  char nlim[66];
  snprintf(nlim, sizeof nlim, "-%s", lim);
  uint32_t hi = ll_cst_float(e, lim, wide), lo = ll_cst_float(e, nlim, wide);
  uint32_t over = ll_cmp(e, "cmpf", "oge", xw, hi, wide), under = ll_cmp(e, "cmpf", "ole", xw, lo, wide);
  uint32_t nan = ll_cmp(e, "cmpf", "uno", xw, xw, wide);
  uint32_t zero = ll_cst_float(e, "0.0", wide);
  uint32_t safe = ll_sel(e, nan, zero, xw, wide);
  safe = ll_sel(e, over, zero, safe, wide);
  safe = ll_sel(e, under, zero, safe, wide);
  uint32_t t = ll_cast(e, "arith.fptosi", safe, wide, to);
  uint32_t mx = ll_cst_int(e, (long long)((1ull << (bits - 1)) - 1), to), mn = ll_cst_int(e, int_min_of(to), to);
  t = ll_sel(e, over, mx, t, to);
  return ll_sel(e, under, mn, t, to);
}

/* float -> unsigned: truncate; below 1 (negatives, NaN) gives 0, at or above
 * 2^bits the maximum (scalar.h fp_to_int). */
static uint32_t float_to_uint(ll_emit *e, uint32_t x, shl_dtype from, shl_dtype to) {
  unsigned bits = dtype_bits(to);
  shl_dtype wide = DT_F64;
  uint32_t xw = dtype_bits(from) < 64 ? ll_cast(e, "arith.extf", x, from, wide) : x;
  char lim[64];
  snprintf(lim, sizeof lim, "%.1f", bits >= 64 ? 18446744073709551616.0 : (double)(1ull << bits));
  uint32_t hi = ll_cst_float(e, lim, wide), one = ll_cst_float(e, "1.0", wide);
  uint32_t over = ll_cmp(e, "cmpf", "oge", xw, hi, wide), low = ll_cmp(e, "cmpf", "ult", xw, one, wide);
  uint32_t zero = ll_cst_float(e, "0.0", wide);
  uint32_t safe = ll_sel(e, over, zero, ll_sel(e, low, zero, xw, wide), wide);
  uint32_t t = ll_cast(e, "arith.fptoui", safe, wide, to);
  t = ll_sel(e, over, ll_cst_int(e, -1, to), t, to);
  return ll_sel(e, low, ll_cst_int(e, 0, to), t, to);
}

/* f64 -> bf16 without double rounding: f64 -> f32 rounded to odd (the
 * nearest-even f32 moved toward zero when it rounded away, with its last bit
 * set when inexact; 24 bits keep the sticky information that 8 need), then
 * f32 -> bf16 to nearest even.  A direct truncf becomes a call of
 * __truncdfbf2, which gcc 12's libgcc does not have. */
static uint32_t f64_to_bf16(ll_emit *e, uint32_t x) {
  shl_dtype f32 = DT_F32, f64 = DT_F64, i32 = dtype_from_name("i32", 3);
  uint32_t near = ll_cast(e, "arith.truncf", x, f64, f32);
  uint32_t back = ll_cast(e, "arith.extf", near, f32, f64);
  uint32_t inexact = ll_cmp(e, "cmpf", "one", back, x, f64);
  uint32_t away = ll_cmp(e, "cmpf", "ogt", ins(e, "math.absf", back, NULL, f64), ins(e, "math.absf", x, NULL, f64), f64);
  uint32_t bits = ll_cast(e, "arith.bitcast", near, f32, i32);
  uint32_t toward = ll_sel(e, away, ll_bin(e, "arith.subi", bits, ll_cst_int(e, 1, i32), i32), bits, i32);
  uint32_t odd = ll_bin(e, "arith.ori", toward, ll_cst_int(e, 1, i32), i32);
  uint32_t r = ll_cast(e, "arith.bitcast", ll_sel(e, inexact, odd, bits, i32), i32, f32);
  return ll_cast(e, "arith.truncf", r, f32, DT_BF16);
}

uint32_t ll_convert(ll_emit *e, uint32_t x, shl_dtype from, shl_dtype to) {
  if (from == to) return x;
  /* narrow types through f64 / their 8-bit integer type */
  if (ll_narrow_float(from)) return ll_convert(e, ll_narrow_decode(e, x, from), DT_F64, to);
  if (ll_narrow_float(to)) return ll_narrow_encode(e, ll_convert(e, x, from, DT_F64), to);
  if (ll_sub_byte_int(from)) return ll_convert(e, ll_int_wrap(e, x, from), ll_int_wide(from), to);
  if (ll_sub_byte_int(to) && !dtype_is_float(from))
    return ll_int_wrap(e, ll_convert(e, x, from, ll_int_wide(to)), to);
  if (from == DT_F64 && to == DT_BF16) return f64_to_bf16(e, x);
  shl_dtype_class fc = dtype_class(from), tc = dtype_class(to);
  unsigned fb = dtype_bits(from), tb = dtype_bits(to);
  if (fc == DTC_FLOAT && tc == DTC_FLOAT) {
    if (fb == tb) { /* bf16 <-> f16 and friends: through f32 */
      shl_dtype f32 = dtype_from_name("f32", 3);
      return ll_cast(e, "arith.truncf", ll_cast(e, "arith.extf", x, from, f32), f32, to);
    }
    return ll_cast(e, fb < tb ? "arith.extf" : "arith.truncf", x, from, to);
  }
  bool from_uns = fc == DTC_BOOL || fc == DTC_UINT;
  if (fc == DTC_FLOAT) return tc == DTC_UINT ? float_to_uint(e, x, from, to) : float_to_int(e, x, from, to);
  if (tc == DTC_FLOAT) return ll_cast(e, from_uns ? "arith.uitofp" : "arith.sitofp", x, from, to);
  if (tc == DTC_BOOL) return ll_cmp(e, "cmpi", "ne", x, ll_cst_int(e, 0, from), from);
  if (fb == tb) return x;
  if (fb < tb) return ll_cast(e, from_uns ? "arith.extui" : "arith.extsi", x, from, to);
  return ll_cast(e, "arith.trunci", x, from, to);
}

static uint32_t int_div_rem(ll_emit *e, uint32_t x, uint32_t y, shl_dtype dt, bool rem) {
  if (dtype_class(dt) == DTC_UINT) { /* x / 0 = all ones, x % 0 = x */
    uint32_t z = ll_cmp(e, "cmpi", "eq", y, ll_cst_int(e, 0, dt), dt);
    uint32_t ys = ll_sel(e, z, ll_cst_int(e, 1, dt), y, dt);
    uint32_t q = ll_bin(e, rem ? "arith.remui" : "arith.divui", x, ys, dt);
    return ll_sel(e, z, rem ? x : ll_cst_int(e, -1, dt), q, dt);
  }
  uint32_t zero = ll_cst_int(e, 0, dt), one = ll_cst_int(e, 1, dt), m1 = ll_cst_int(e, -1, dt);
  uint32_t mn = ll_cst_int(e, int_min_of(dt), dt);
  uint32_t z = ll_cmp(e, "cmpi", "eq", y, zero, dt);
  uint32_t ovf = ll_bin(e, "arith.andi", ll_cmp(e, "cmpi", "eq", x, mn, dt), ll_cmp(e, "cmpi", "eq", y, m1, dt),
                     dtype_from_name("i1", 2));
  uint32_t bad = ll_bin(e, "arith.ori", z, ovf, dtype_from_name("i1", 2));
  uint32_t ys = ll_sel(e, bad, one, y, dt);
  if (rem) return ll_sel(e, z, x, ll_bin(e, "arith.remsi", x, ys, dt), dt); /* INT_MIN % -1 = x % 1 = 0 */
  uint32_t q = ll_sel(e, ovf, x, ll_bin(e, "arith.divsi", x, ys, dt), dt);
  return ll_sel(e, z, m1, q, dt);
}

static uint32_t shift(ll_emit *e, shl_opid id, uint32_t x, uint32_t y, shl_dtype dt) {
  uint32_t bits = ll_cst_int(e, dtype_bits(dt), dt);
  uint32_t big = ll_cmp(e, "cmpi", "uge", y, bits, dt); /* negative amounts are huge unsigned */
  if (id == OP_SHIFT_RIGHT_ARITHMETIC) {
    uint32_t ys = ll_sel(e, big, ll_cst_int(e, dtype_bits(dt) - 1, dt), y, dt);
    return ll_bin(e, "arith.shrsi", x, ys, dt);
  }
  uint32_t s = ll_bin(e, id == OP_SHIFT_LEFT ? "arith.shli" : "arith.shrui", x, y, dt);
  return ll_sel(e, big, ll_cst_int(e, 0, dt), s, dt);
}

static uint32_t sign(ll_emit *e, uint32_t x, shl_dtype dt) {
  if (dtype_is_float(dt)) { /* NaN and +-0 are returned as they are */
    uint32_t cs = ll_bin(e, "math.copysign", ll_cst_float(e, "1.0", dt), x, dt);
    uint32_t keep = ll_cmp(e, "cmpf", "ueq", x, ll_cst_float(e, "0.0", dt), dt);
    return ll_sel(e, keep, x, cs, dt);
  }
  uint32_t zero = ll_cst_int(e, 0, dt);
  uint32_t r = ll_sel(e, ll_cmp(e, "cmpi", "sgt", x, zero, dt), ll_cst_int(e, 1, dt), zero, dt);
  return ll_sel(e, ll_cmp(e, "cmpi", "slt", x, zero, dt), ll_cst_int(e, -1, dt), r, dt);
}

static const char *const fdir[] = {"oeq", "une", "oge", "ogt", "ole", "olt"};
static const char *const sdir[] = {"eq", "ne", "sge", "sgt", "sle", "slt"};
static const char *const udir[] = {"eq", "ne", "uge", "ugt", "ule", "ult"};
static const char *const dir_names[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};

/* The float's bits as a signed integer that orders like the spec's total
 * order (-NaN < -inf < ... < -0 < +0 < ... < inf < +NaN): negative values
 * get their magnitude bits flipped. */
static uint32_t total_order_key(ll_emit *e, uint32_t x, shl_dtype dt) {
  unsigned bits = dtype_bits(dt);
  shl_dtype it = bits == 16 ? DT_I16 : bits == 32 ? DT_I32 : DT_I64;
  uint32_t i = ll_cast(e, "arith.bitcast", x, dt, it);
  uint32_t neg = ll_cmp(e, "cmpi", "slt", i, ll_cst_int(e, 0, it), it);
  long long mag = (long long)((1ull << (bits - 1)) - 1);
  return ll_sel(e, neg, ll_bin(e, "arith.xori", i, ll_cst_int(e, mag, it), it), i, it);
}

static shl_status compare(ll_emit *e, const shl_op *op, const uint32_t *a, shl_dtype dt, uint32_t *res) {
  const shl_attr *d = op_attr(op, "comparison_direction"), *t = op_attr(op, "compare_type");
  int k = -1;
  for (int i = 0; d && d->kind == AT_ENUM && i < 6; i++)
    if (str_eq_c(d->u.en.value, dir_names[i])) k = i;
  if (k < 0) return ll_refuse(op, "unknown comparison_direction");
  if (t && t->kind == AT_ENUM && str_eq_c(t->u.en.value, "TOTALORDER") && dtype_is_float(dt)) {
    unsigned bits = dtype_bits(dt);
    shl_dtype it = bits == 16 ? DT_I16 : bits == 32 ? DT_I32 : DT_I64;
    *res = ll_cmp(e, "cmpi", sdir[k], total_order_key(e, a[0], dt), total_order_key(e, a[1], dt), it);
    return NULL;
  }
  bool uns = dtype_class(dt) == DTC_BOOL || dtype_class(dt) == DTC_UINT ||
             (t && t->kind == AT_ENUM && str_eq_c(t->u.en.value, "UNSIGNED"));
  if (dtype_is_float(dt)) *res = ll_cmp(e, "cmpf", fdir[k], a[0], a[1], dt);
  else *res = ll_cmp(e, "cmpi", uns ? udir[k] : sdir[k], a[0], a[1], dt);
  return NULL;
}

typedef struct {
  shl_opid id;
  const char *f, *i; /* float / integer instruction; NULL when not applicable */
} simple_row;

static const simple_row simple[] = {
    {OP_ABS, "math.absf", "math.absi"},       {OP_CBRT, "math.cbrt", NULL},
    {OP_CEIL, "math.ceil", NULL},             {OP_COSINE, "math.cos", NULL},
    {OP_COUNT_LEADING_ZEROS, NULL, "math.ctlz"}, {OP_EXPONENTIAL, "math.exp", NULL},
    {OP_EXPONENTIAL_MINUS_ONE, "math.expm1", NULL}, {OP_FLOOR, "math.floor", NULL},
    {OP_LOG, "math.log", NULL},               {OP_LOG_PLUS_ONE, "math.log1p", NULL},
    {OP_NEGATE, "arith.negf", NULL},          {OP_POPCNT, NULL, "math.ctpop"},
    {OP_ROUND_NEAREST_AFZ, "math.round", NULL}, {OP_ROUND_NEAREST_EVEN, "math.roundeven", NULL},
    {OP_RSQRT, "math.rsqrt", NULL},           {OP_SINE, "math.sin", NULL},
    {OP_SQRT, "math.sqrt", NULL},             {OP_TAN, "math.tan", NULL},
    {OP_TANH, "math.tanh", NULL},             {OP_ADD, "arith.addf", "arith.addi"},
    {OP_SUBTRACT, "arith.subf", "arith.subi"}, {OP_MULTIPLY, "arith.mulf", "arith.muli"},
    {OP_DIVIDE, "arith.divf", NULL},          {OP_REMAINDER, "arith.remf", NULL},
    {OP_POWER, "math.powf", NULL},            {OP_MAXIMUM, "arith.maximumf", "arith.maxsi"},
    {OP_MINIMUM, "arith.minimumf", "arith.minsi"}, {OP_AND, NULL, "arith.andi"},
    {OP_OR, NULL, "arith.ori"},               {OP_XOR, NULL, "arith.xori"},
    {OP_ATAN2, "math.atan2", NULL},
};

bool ll_is_elementwise(const shl_op *op) {
  shl_opid id = op_id(op);
  for (size_t i = 0; i < sizeof simple / sizeof *simple; i++)
    if (simple[i].id == id) return true;
  /* bitcast_convert between equal widths (others change the shape) */
  if (id == OP_BITCAST_CONVERT) return op->operands[0]->type->rank == op->results[0].type->rank;
  return id == OP_COMPARE || id == OP_SELECT || id == OP_REDUCE_PRECISION || id == OP_REAL || id == OP_IMAG || id == OP_COMPLEX || id == OP_CLAMP || id == OP_CONVERT || id == OP_NOT ||
         id == OP_SIGN || id == OP_LOGISTIC || id == OP_IS_FINITE || id == OP_SHIFT_LEFT ||
         id == OP_SHIFT_RIGHT_LOGICAL || id == OP_SHIFT_RIGHT_ARITHMETIC;
}

shl_status ll_scalar(ll_emit *e, const shl_op *op, const uint32_t *a, shl_dtype dt, shl_dtype out_dt,
                     uint32_t *res) {
  shl_opid id = op_id(op);
  if (dtype_is_complex(dt) || dtype_is_complex(out_dt) || id == OP_COMPLEX)
    return ll_complex_scalar(e, op, a, dt, out_dt, res);
  if (id == OP_REAL || id == OP_IMAG) { /* of a real number: itself, 0 */
    *res = id == OP_REAL ? a[0] : dtype_is_float(dt) ? ll_cst_float(e, "0.0", dt) : ll_cst_int(e, 0, dt);
    return NULL;
  }
  if (id == OP_REDUCE_PRECISION) return ll_reduce_precision(e, op, a[0], dt, res);
  if ((ll_narrow_float(dt) || ll_sub_byte_int(dt)) && id != OP_SELECT && id != OP_BITCAST_CONVERT &&
      id != OP_CONVERT)
    return ll_narrow_scalar(e, op, a, dt, out_dt, res);
  /* f16/bf16 compute in f32 and round once, as the interpreter does (exact
   * for + - * / sqrt either way; upstream's f16 expm1/rsqrt/... are not) */
  if ((dt == DT_F16 || dt == DT_BF16) && out_dt == dt && id != OP_SELECT && id != OP_BITCAST_CONVERT &&
      op->n_operands <= 3) {
    uint32_t w[3], r;
    for (uint32_t i = 0; i < op->n_operands; i++) w[i] = ll_convert(e, a[i], dt, DT_F32);
    ST_TRY(ll_scalar(e, op, w, DT_F32, DT_F32, &r));
    *res = ll_convert(e, r, DT_F32, dt);
    return NULL;
  }
  bool fl = dtype_is_float(dt), bl = dtype_class(dt) == DTC_BOOL, uns = dtype_class(dt) == DTC_UINT;
  if (bl && (id == OP_ADD || id == OP_MAXIMUM)) id = OP_OR; /* spec: logical or / and on booleans */
  if (bl && (id == OP_MULTIPLY || id == OP_MINIMUM)) id = OP_AND;
  switch (id) {
  case OP_COMPARE: return compare(e, op, a, dt, res);
  case OP_SELECT: *res = ll_sel(e, a[0], a[1], a[2], out_dt); return NULL;
  case OP_CONVERT: *res = ll_convert(e, a[0], dt, out_dt); return NULL;
  case OP_BITCAST_CONVERT:
    *res = !strcmp(ll_dtype(dt), ll_dtype(out_dt)) ? a[0] : ll_cast(e, "arith.bitcast", a[0], dt, out_dt);
    return NULL;
  case OP_NOT: *res = ll_bin(e, "arith.xori", a[0], ll_cst_int(e, -1, dt), dt); return NULL;
  case OP_SIGN:
    if (uns) *res = ll_cast(e, "arith.extui", ll_cmp(e, "cmpi", "ne", a[0], ll_cst_int(e, 0, dt), dt), DT_I1, dt);
    else *res = sign(e, a[0], dt);
    return NULL;
  case OP_ABS:
    if (!uns) break;
    *res = a[0];
    return NULL;
  case OP_MAXIMUM:
  case OP_MINIMUM:
    if (!uns) break;
    *res = ll_bin(e, id == OP_MAXIMUM ? "arith.maxui" : "arith.minui", a[0], a[1], dt);
    return NULL;
  case OP_TANH: /* the interpreter's f32 tanh (XLA's), vectorizable; f64: math.tanh */
    if (!fl || dt == DT_F64) break;
    *res = ll_xla_tanh(e, a[0], dt);
    return NULL;
  case OP_EXPONENTIAL: /* the interpreter's f32 exp, vectorizable; f64: math.exp */
    if (!fl || dt == DT_F64) break;
    *res = ll_kernel_exp(e, a[0], dt);
    return NULL;
  case OP_EXPONENTIAL_MINUS_ONE: /* math.expm1 would become exp(x) - 1 */
    if (!fl) break;
    *res = ll_libm_call(e, LL_LIBM_EXPM1, a[0], dt);
    return NULL;
  case OP_IS_FINITE:
    if (!fl) break;
    *res = ins(e, "math.isfinite", a[0], NULL, dt);
    return NULL;
  case OP_LOGISTIC:
    if (!fl) break;
    if (dt != DT_F64) { /* the interpreter's f32 logistic */
      *res = ll_kernel_logistic(e, a[0], dt);
      return NULL;
    }
    {
      uint32_t one = ll_cst_float(e, "1.0", dt);
      uint32_t ex = ins(e, "math.exp", ins(e, "arith.negf", a[0], NULL, dt), NULL, dt);
      *res = ll_bin(e, "arith.divf", one, ll_bin(e, "arith.addf", one, ex, dt), dt);
    }
    return NULL;
  case OP_CLAMP: /* min(max(x, lo), hi); operands are (lo, x, hi) */
    if (fl) *res = ll_bin(e, "arith.minimumf", ll_bin(e, "arith.maximumf", a[1], a[0], dt), a[2], dt);
    else if (bl) *res = ll_bin(e, "arith.andi", ll_bin(e, "arith.ori", a[1], a[0], dt), a[2], dt);
    else if (uns) *res = ll_bin(e, "arith.minui", ll_bin(e, "arith.maxui", a[1], a[0], dt), a[2], dt);
    else *res = ll_bin(e, "arith.minsi", ll_bin(e, "arith.maxsi", a[1], a[0], dt), a[2], dt);
    return NULL;
  case OP_SHIFT_LEFT:
  case OP_SHIFT_RIGHT_LOGICAL:
  case OP_SHIFT_RIGHT_ARITHMETIC:
    if (fl || bl) break;
    *res = shift(e, id, a[0], a[1], dt);
    return NULL;
  case OP_DIVIDE:
  case OP_REMAINDER:
    if (fl || bl) break;
    *res = int_div_rem(e, a[0], a[1], dt, id == OP_REMAINDER);
    return NULL;
  case OP_NEGATE:
    if (fl || bl) break;
    *res = ll_bin(e, "arith.subi", ll_cst_int(e, 0, dt), a[0], dt);
    return NULL;
  default: break;
  }
  for (size_t i = 0; i < sizeof simple / sizeof *simple; i++) {
    if (simple[i].id != id) continue;
    const char *name = fl ? simple[i].f : simple[i].i;
    if (!name) break;
    *res = op->n_operands == 1 || op_is(op, OP_NEGATE) || op_is(op, OP_ABS) ? ins(e, name, a[0], NULL, dt)
                                                                          : ll_bin(e, name, a[0], a[1], dt);
    return NULL;
  }
  return ll_refuse(op, fl ? "not covered on float elements" : "not covered on integer elements");
}

shl_status ll_elementwise(ll_emit *e, const shl_op *op) {
  if (op_is(op, OP_DIVIDE) && ll_softmax(e, op)) return NULL;
  const shl_type *rt = op->results[0].type;
  int rank = rt->rank;
  /* The element type the body computes in: select's and clamp's operand 1. */
  uint32_t main_arg = op_is(op, OP_SELECT) || op_is(op, OP_CLAMP) ? 1 : 0;
  shl_dtype dt = op->operands[main_arg]->type->dtype;
  uint32_t empty = ll_empty(e, rt);
  ll_parallel_type(e, rt);
  pr_newline(&e->pr);
  ll_results(e, op);
  pr_puts(&e->pr, "linalg.generic {indexing_maps = [");
  for (uint32_t i = 0; i < op->n_operands; i++) {
    /* select's predicate and clamp's bounds may be rank 0 */
    if (op->operands[i]->type->rank == 0 && rank > 0) ll_map(e, rank, NULL, 0);
    else ll_identity_map(e, rank);
    pr_puts(&e->pr, ", ");
  }
  ll_identity_map(e, rank);
  pr_puts(&e->pr, "], ");
  ll_iterators(e, rank, NULL);
  pr_puts(&e->pr, "} ins(");
  for (uint32_t i = 0; i < op->n_operands; i++) {
    if (i) pr_puts(&e->pr, ", ");
    ll_val(e, op->operands[i]);
  }
  pr_puts(&e->pr, " : ");
  for (uint32_t i = 0; i < op->n_operands; i++) {
    if (i) pr_puts(&e->pr, ", ");
    ll_type(e, op->operands[i]->type);
  }
  pr_puts(&e->pr, ") outs(");
  ll_tmp(e, empty);
  pr_puts(&e->pr, " : ");
  ll_type(e, rt);
  pr_puts(&e->pr, ") {");
  pr_newline(&e->pr);
  uint32_t args[4];
  pr_puts(&e->pr, "^bb0(");
  for (uint32_t i = 0; i < op->n_operands && i < 3; i++) {
    args[i] = ll_fresh(e);
    ll_tmp(e, args[i]);
    pr_printf(&e->pr, ": %s, ", ty(op->operands[i]->type->dtype));
  }
  ll_tmp(e, ll_fresh(e));
  pr_printf(&e->pr, ": %s):", ty(rt->dtype));
  e->pr.indent += 1;
  uint32_t res = 0;
  ST_TRY(ll_scalar(e, op, args, dt, rt->dtype, &res));
  pr_newline(&e->pr);
  pr_puts(&e->pr, "linalg.yield ");
  ll_tmp(e, res);
  pr_printf(&e->pr, " : %s", ty(rt->dtype));
  e->pr.indent -= 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "} -> ");
  ll_type(e, rt);
  return NULL;
}
