/* Element types without an upstream arithmetic: f8/f6/f4 formats and tf32
 * (stored as i8 / i32 bit patterns) and i2/i4/ui2/ui4 (stored one per byte,
 * sign- or zero-extended).  The interpreter loads such elements into
 * double / int64, computes and rounds (wraps) on store
 * (src/exec/kernels/ew_common.c); compiled code does the same per op:
 * floats decode to f64 (exactly) and encode back with one rounding to
 * nearest even and each format's overflow, NaN and zero conventions
 * (support/scalar.h fp_layout_to_f64 / fp_layout_from_f64, mirrored here in
 * integer arith); exp, expm1, log and tanh compute in f32 as the interpreter
 * does for every float narrower than f64.  Sub-byte integers compute in
 * i8 and wrap to their width. */
#include <stdio.h>
#include <string.h>

#include "passes/lower_linalg_emit.h"
#include "support/scalar.h"

bool ll_narrow_float(shl_dtype dt) {
  return dtype_is_float(dt) && dt != DT_F16 && dt != DT_BF16 && dt != DT_F32 && dt != DT_F64;
}

bool ll_sub_byte_int(shl_dtype dt) {
  shl_dtype_class c = dtype_class(dt);
  return (c == DTC_SINT || c == DTC_UINT) && dt != DT_INDEX && dtype_bits(dt) < 8;
}

/* Storage integer type of a narrow float (i8, i32 for tf32). */
static shl_dtype storage_int(shl_dtype dt) { return dtype_bits(dt) > 8 ? DT_I32 : DT_I8; }

static uint32_t c64(ll_emit *e, long long v) { return ll_cst_int(e, v, DT_I64); }
static uint32_t bin64(ll_emit *e, const char *o, uint32_t a, uint32_t b) { return ll_bin(e, o, a, b, DT_I64); }

static uint32_t sel(ll_emit *e, uint32_t c, uint32_t a, uint32_t b, const char *t) {
  uint32_t r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_puts(&e->pr, " = arith.select ");
  ll_tmp(e, c);
  pr_puts(&e->pr, ", ");
  ll_tmp(e, a);
  pr_puts(&e->pr, ", ");
  ll_tmp(e, b);
  pr_printf(&e->pr, " : %s", t);
  return r;
}

static uint32_t icmp(ll_emit *e, const char *pred, uint32_t a, uint32_t b) {
  uint32_t r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_printf(&e->pr, " = arith.cmpi %s, ", pred);
  ll_tmp(e, a);
  pr_puts(&e->pr, ", ");
  ll_tmp(e, b);
  pr_puts(&e->pr, " : i64");
  return r;
}

static uint32_t cast(ll_emit *e, const char *o, uint32_t x, const char *from, const char *to) {
  uint32_t r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_printf(&e->pr, " = %s ", o);
  ll_tmp(e, x);
  pr_printf(&e->pr, " : %s to %s", from, to);
  return r;
}

static uint32_t cmpf_uno(ll_emit *e, uint32_t v) {
  uint32_t r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_puts(&e->pr, " = arith.cmpf uno, ");
  ll_tmp(e, v);
  pr_puts(&e->pr, ", ");
  ll_tmp(e, v);
  pr_puts(&e->pr, " : f64");
  return r;
}

static uint32_t and1(ll_emit *e, uint32_t a, uint32_t b) { return ll_bin(e, "arith.andi", a, b, DT_I1); }

static long long mask(unsigned bits) { return bits >= 63 ? -1LL : (long long)((1ull << bits) - 1); }

/* Bit pattern (storage) -> f64 (fp_layout_to_f64). */
uint32_t ll_narrow_decode(ll_emit *e, uint32_t x, shl_dtype dt) {
  fp_layout L = fp_layout_of(dt);
  const char *st = ll_dtype(storage_int(dt));
  unsigned nb = fp_layout_bits(L), sbit = (unsigned)L.ebits + L.mant;
  uint32_t p = cast(e, "arith.extui", x, st, "i64");
  if (L.shift) p = bin64(e, "arith.shrui", p, c64(e, L.shift));
  p = bin64(e, "arith.andi", p, c64(e, mask(nb)));
  uint32_t out;
  if (L.kind == FPK_E8M0) { /* 2^(p - 127), NaN at 0xFF */
    uint32_t bits = bin64(e, "arith.shli", bin64(e, "arith.addi", p, c64(e, 1023 - 127)), c64(e, 52));
    out = sel(e, icmp(e, "eq", p, c64(e, 0xFF)), c64(e, 0x7FF8000000000000LL), bits, "i64");
    return cast(e, "arith.bitcast", out, "i64", "f64");
  }
  uint32_t sign = bin64(e, "arith.shli", bin64(e, "arith.shrui", p, c64(e, sbit)), c64(e, 63));
  uint32_t ex = bin64(e, "arith.andi", bin64(e, "arith.shrui", p, c64(e, L.mant)), c64(e, mask(L.ebits)));
  uint32_t f = bin64(e, "arith.andi", p, c64(e, mask(L.mant)));
  uint32_t fhi = bin64(e, "arith.shli", f, c64(e, 52 - L.mant));
  /* normal: sign | (e - bias + 1023) << 52 | f << (52 - mant) */
  uint32_t normal = bin64(e, "arith.ori", sign,
                          bin64(e, "arith.ori", bin64(e, "arith.shli", bin64(e, "arith.addi", ex, c64(e, 1023 - L.bias)),
                                                      c64(e, 52)),
                                fhi));
  /* subnormal (and zero): f * 2^(1 - bias - mant), exact in f64, then the sign */
  char scale[64];
  snprintf(scale, sizeof scale, "%.17g", fp_bits_f64((uint64_t)(1023 + 1 - L.bias - L.mant) << 52));
  uint32_t mag = ll_bin(e, "arith.mulf", cast(e, "arith.uitofp", f, "i64", "f64"), ll_cst_float(e, scale, DT_F64), DT_F64);
  uint32_t sub = bin64(e, "arith.ori", cast(e, "arith.bitcast", mag, "f64", "i64"), sign);
  out = sel(e, icmp(e, "eq", ex, c64(e, 0)), sub, normal, "i64");
  uint32_t emax = icmp(e, "eq", ex, c64(e, mask(L.ebits)));
  switch ((fp_kind)L.kind) {
  case FPK_IEEE: { /* inf, or a quiet NaN keeping the payload */
    uint32_t inf = bin64(e, "arith.ori", sign, c64(e, 0x7FF0000000000000LL));
    uint32_t nan = bin64(e, "arith.ori", sign, bin64(e, "arith.ori", c64(e, 0x7FF8000000000000LL), fhi));
    out = sel(e, emax, sel(e, icmp(e, "eq", f, c64(e, 0)), inf, nan, "i64"), out, "i64");
    break;
  }
  case FPK_NAN_ALLONES: {
    uint32_t isnan = and1(e, emax, icmp(e, "eq", f, c64(e, mask(L.mant))));
    out = sel(e, isnan, bin64(e, "arith.ori", sign, bin64(e, "arith.ori", c64(e, 0x7FF0000000000000LL), fhi)), out, "i64");
    break;
  }
  case FPK_NAN_NEGZERO:
    out = sel(e, icmp(e, "eq", p, c64(e, 1ll << sbit)), c64(e, 0x7FF8000000000000LL), out, "i64");
    break;
  default: break;
  }
  return cast(e, "arith.bitcast", out, "i64", "f64");
}

/* f64 -> bit pattern with one rounding (fp_layout_from_f64). */
uint32_t ll_narrow_encode(ll_emit *e, uint32_t v, shl_dtype dt) {
  fp_layout L = fp_layout_of(dt);
  unsigned sbit = (unsigned)L.ebits + L.mant;
  uint32_t x = cast(e, "arith.bitcast", v, "f64", "i64");
  uint32_t sign = bin64(e, "arith.shrui", x, c64(e, 63));
  uint32_t bex = bin64(e, "arith.andi", bin64(e, "arith.shrui", x, c64(e, 52)), c64(e, 0x7FF));
  uint32_t special = icmp(e, "eq", bex, c64(e, 0x7FF));
  uint32_t isnan = cmpf_uno(e, v);
  uint32_t e2 = bin64(e, "arith.subi", bex, c64(e, 1023)); /* floor(log2 |v|) for normal v */
  uint32_t p;
  if (L.kind == FPK_E8M0) { /* powers of two; 1.5 * 2^e (ties) up; no zero, no sign */
    uint32_t up = bin64(e, "arith.andi", bin64(e, "arith.shrui", x, c64(e, 51)), c64(e, 1));
    uint32_t ee = bin64(e, "arith.addi", e2, up);
    p = bin64(e, "arith.addi", ee, c64(e, 127));
    p = sel(e, icmp(e, "slt", ee, c64(e, -127)), c64(e, 0), p, "i64");
    p = sel(e, icmp(e, "sgt", ee, c64(e, 127)), c64(e, 0xFF), p, "i64");
    uint32_t zero = icmp(e, "eq", bin64(e, "arith.andi", x, c64(e, 0x7FFFFFFFFFFFFFFFLL)), c64(e, 0));
    p = sel(e, ll_bin(e, "arith.ori", special, icmp(e, "ne", sign, c64(e, 0)), DT_I1), c64(e, 0xFF), p, "i64");
    p = sel(e, zero, c64(e, 0), p, "i64"); /* +-0 (before the sign: -0 too) */
  } else {
    /* eq = max(e, emin) - mant: the exponent of the last kept bit; the kept
     * value r = roundeven(|v| 2^-eq) (exact scaling, < 2^(mant+2)) carries
     * into the exponent field when it rounds up. */
    int emin = 1 - L.bias;
    uint32_t ec = ll_bin(e, "arith.maxsi", e2, c64(e, emin), DT_I64);
    uint32_t eq = bin64(e, "arith.subi", ec, c64(e, L.mant));
    uint32_t scale = cast(e, "arith.bitcast", bin64(e, "arith.shli", bin64(e, "arith.subi", c64(e, 1023), eq), c64(e, 52)),
                          "i64", "f64");
    uint32_t av = cast(e, "arith.bitcast", bin64(e, "arith.andi", x, c64(e, 0x7FFFFFFFFFFFFFFFLL)), "i64", "f64");
    uint32_t scaled = ll_bin(e, "arith.mulf", av, scale, DT_F64);
    uint32_t rf = ll_fresh(e);
    pr_newline(&e->pr);
    ll_tmp(e, rf);
    pr_puts(&e->pr, " = math.roundeven ");
    ll_tmp(e, scaled);
    pr_puts(&e->pr, " : f64");
    uint32_t r = cast(e, "arith.fptosi", rf, "f64", "i64");
    uint32_t enc = bin64(e, "arith.addi", bin64(e, "arith.shli", bin64(e, "arith.subi", ec, c64(e, emin)), c64(e, L.mant)), r);
    uint32_t s = bin64(e, "arith.shli", sign, c64(e, sbit));
    long long allones = mask(sbit), infp = mask(L.ebits) << L.mant;
    uint32_t nanp, infv; /* patterns for NaN and +-inf inputs (fp__special) */
    switch ((fp_kind)L.kind) {
    case FPK_IEEE: {
      uint32_t over = icmp(e, "sge", enc, c64(e, infp));
      p = bin64(e, "arith.ori", s, sel(e, over, c64(e, infp), enc, "i64"));
      infv = bin64(e, "arith.ori", s, c64(e, infp));
      uint32_t payload = bin64(e, "arith.shrui", bin64(e, "arith.andi", x, c64(e, mask(52))), c64(e, 52 - L.mant));
      nanp = bin64(e, "arith.ori", infv, bin64(e, "arith.ori", payload, c64(e, 1ll << (L.mant - 1))));
      break;
    }
    case FPK_NAN_ALLONES:
    case FPK_FINITE:
      p = bin64(e, "arith.ori", s, ll_bin(e, "arith.minsi", enc, c64(e, allones), DT_I64));
      infv = bin64(e, "arith.ori", s, c64(e, allones));
      nanp = L.kind == FPK_FINITE ? c64(e, 1ll << sbit) : infv;
      break;
    default: /* FPK_NAN_NEGZERO: no -0; overflow is NaN */
      p = sel(e, icmp(e, "eq", enc, c64(e, 0)), c64(e, 0), bin64(e, "arith.ori", s, enc), "i64");
      p = sel(e, icmp(e, "sgt", enc, c64(e, allones)), c64(e, 1ll << sbit), p, "i64");
      infv = nanp = c64(e, 1ll << sbit);
      break;
    }
    p = sel(e, special, sel(e, isnan, nanp, infv, "i64"), p, "i64");
  }
  if (L.shift) p = bin64(e, "arith.shli", p, c64(e, L.shift));
  return cast(e, "arith.trunci", p, "i64", ll_dtype(storage_int(dt)));
}

/* A sub-byte integer's storage byte made canonical: sign- or zero-extended
 * from its width (loads drop stray upper bits, stores wrap). */
uint32_t ll_int_wrap(ll_emit *e, uint32_t x, shl_dtype dt) {
  unsigned b = dtype_bits(dt);
  if (dtype_class(dt) == DTC_UINT) return ll_bin(e, "arith.andi", x, ll_cst_int(e, mask(b), DT_I8), DT_I8);
  uint32_t k = ll_cst_int(e, 8 - b, DT_I8);
  return ll_bin(e, "arith.shrsi", ll_bin(e, "arith.shli", x, k, DT_I8), k, DT_I8);
}

/* The 8-bit type a sub-byte integer computes in. */
shl_dtype ll_int_wide(shl_dtype dt) { return dtype_class(dt) == DTC_UINT ? DT_UI8 : DT_I8; }

shl_status ll_narrow_scalar(ll_emit *e, const shl_op *op, const uint32_t *a, shl_dtype dt, shl_dtype out_dt,
                            uint32_t *res) {
  shl_opid id = op_id(op);
  uint32_t w[3], r;
  if (op->n_operands > 3) return ll_refuse(op, "too many operands");
  if (ll_narrow_float(dt)) {
    /* exp, expm1, log, tanh: the interpreter's f32 functions (XLA's) */
    bool f32 = id == OP_EXPONENTIAL || id == OP_EXPONENTIAL_MINUS_ONE || id == OP_LOG || id == OP_TANH;
    shl_dtype wt = f32 ? DT_F32 : DT_F64;
    for (uint32_t i = 0; i < op->n_operands; i++) w[i] = ll_convert(e, ll_narrow_decode(e, a[i], dt), DT_F64, wt);
    ST_TRY(ll_scalar(e, op, w, wt, out_dt == dt ? wt : out_dt, &r));
    *res = out_dt == dt ? ll_narrow_encode(e, ll_convert(e, r, wt, DT_F64), dt) : r;
    return NULL;
  }
  shl_dtype wt = ll_int_wide(dt);
  for (uint32_t i = 0; i < op->n_operands; i++) w[i] = ll_int_wrap(e, a[i], dt);
  if (id == OP_POPCNT || id == OP_COUNT_LEADING_ZEROS) { /* of the low bits alone */
    unsigned b = dtype_bits(dt);
    uint32_t low = ll_bin(e, "arith.andi", w[0], ll_cst_int(e, mask(b), DT_I8), DT_I8);
    r = ll_fresh(e);
    pr_newline(&e->pr);
    ll_tmp(e, r);
    pr_printf(&e->pr, " = %s ", id == OP_POPCNT ? "math.ctpop" : "math.ctlz");
    ll_tmp(e, low);
    pr_puts(&e->pr, " : i8");
    if (id == OP_COUNT_LEADING_ZEROS) r = ll_bin(e, "arith.subi", r, ll_cst_int(e, 8 - b, DT_I8), DT_I8);
    *res = r;
    return NULL;
  }
  ST_TRY(ll_scalar(e, op, w, wt, out_dt == dt ? wt : out_dt, &r));
  *res = out_dt == dt ? ll_int_wrap(e, r, dt) : r;
  return NULL;
}

/* reduce_precision on the element's bits (ew_convert.c reduce_bits, XLA's
 * algorithm): the mantissa rounded to nearest even, exponents outside the
 * reduced range flushed to 0 or inf, NaN kept NaN.  IEEE layouts only. */
shl_status ll_reduce_precision(ll_emit *e, const shl_op *op, uint32_t x, shl_dtype dt, uint32_t *res) {
  int64_t eb, mb;
  if (!attr_as_int(op_attr(op, "exponent_bits"), &eb) || !attr_as_int(op_attr(op, "mantissa_bits"), &mb) || eb < 1 ||
      mb < 0)
    return ll_refuse(op, "needs exponent_bits >= 1 and mantissa_bits >= 0");
  if (!dtype_is_float(dt) || fp_layout_of(dt).kind != FPK_IEEE) return ll_refuse(op, "element type");
  fp_layout L = fp_layout_of(dt);
  int sm = L.mant, se = L.ebits, nbits = se + sm + 1;
  /* the pattern as i64 */
  const char *st = ll_narrow_float(dt) ? ll_dtype(storage_int(dt)) : dtype_bits(dt) == 64 ? "i64"
                                        : dtype_bits(dt) == 32                         ? "i32"
                                                                                       : "i16";
  uint32_t v = ll_narrow_float(dt) ? x : cast(e, "arith.bitcast", x, ll_dtype(dt), st);
  if (strcmp(st, "i64")) v = cast(e, "arith.extui", v, st, "i64");
  if (L.shift) v = bin64(e, "arith.shrui", v, c64(e, L.shift));
  v = bin64(e, "arith.andi", v, c64(e, mask((unsigned)nbits)));
  long long exp_mask = mask((unsigned)se) << sm, sign_mask = (long long)(1ull << (nbits - 1));
  uint32_t orig = v;
  uint32_t nan = and1(e, icmp(e, "eq", bin64(e, "arith.andi", v, c64(e, exp_mask)), c64(e, exp_mask)),
                      icmp(e, "ne", bin64(e, "arith.andi", v, c64(e, mask((unsigned)sm))), c64(e, 0)));
  if (mb < sm) {
    long long last = 1ll << (sm - mb);
    uint32_t odd = bin64(e, "arith.shrui", bin64(e, "arith.andi", v, c64(e, last)), c64(e, sm - mb));
    uint32_t bias = bin64(e, "arith.addi", c64(e, (last >> 1) - 1), odd);
    v = bin64(e, "arith.andi", bin64(e, "arith.addi", v, bias), c64(e, ~(last - 1)));
    v = bin64(e, "arith.andi", v, c64(e, mask((unsigned)nbits)));
  }
  if (eb < se) {
    long long src_bias = (1ll << (se - 1)) - 1, red_bias = (1ll << (eb - 1)) - 1;
    uint32_t xe = bin64(e, "arith.andi", v, c64(e, exp_mask));
    uint32_t sign = bin64(e, "arith.andi", v, c64(e, sign_mask));
    uint32_t big = icmp(e, "ugt", xe, c64(e, (src_bias + red_bias) << sm));
    uint32_t small = icmp(e, "ule", xe, c64(e, (src_bias - red_bias) << sm));
    v = sel(e, small, sign, v, "i64");
    v = sel(e, big, bin64(e, "arith.ori", sign, c64(e, exp_mask)), v, "i64");
  }
  uint32_t nanv = mb > 0 ? orig
                         : bin64(e, "arith.ori", bin64(e, "arith.andi", orig, c64(e, sign_mask)), c64(e, exp_mask));
  v = sel(e, nan, nanv, v, "i64");
  if (L.shift) v = bin64(e, "arith.shli", v, c64(e, L.shift));
  if (strcmp(st, "i64")) v = cast(e, "arith.trunci", v, "i64", st);
  *res = ll_narrow_float(dt) ? v : cast(e, "arith.bitcast", v, st, ll_dtype(dt));
  return NULL;
}
