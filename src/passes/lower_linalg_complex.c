/* Complex elementwise ops -> `complex.re`/`complex.im`/`complex.create`
 * around arith/math on the parts, with the interpreter's semantics
 * (src/exec/kernels/ew_{unary,binary,compare,convert}.c): it computes in C's
 * double complex and rounds each part to the element type, so complex<f32>
 * parts are widened to f64 here too, and the functions with special cases
 * at inf/NaN/huge/tiny parts (exp, log, sqrt, sin, cos, tan, tanh, pow,
 * division) are glibc's own (cexp, ..., __divdc3 as gcc's `x / y`), called
 * on complex<f64> (two f64 registers, the C ABI of double complex);
 * products are the interpreter's fma form (support/scalar.h cmul_*). */
#include "passes/lower_linalg_emit.h"

typedef struct {
  uint32_t re, im;
} cx;

/* Called functions (bit per entry; declared once at the end of the module). */
enum { F_CEXP, F_CLOG, F_CSQRT, F_CSIN, F_CCOS, F_CTAN, F_CTANH, F_CPOW, F_DIV, F_HYPOT, F_COUNT };
static const char *const fnames[F_COUNT] = {"cexp", "clog", "csqrt", "csin", "ccos", "ctan", "ctanh", "cpow",
                                            "__divdc3", "hypot"};
static const char *const fsigs[F_COUNT] = {
    [F_CPOW] = "(complex<f64>, complex<f64>) -> complex<f64>",
    [F_DIV] = "(f64, f64, f64, f64) -> complex<f64>",
    [F_HYPOT] = "(f64, f64) -> f64",
};
static const char *sig(int f) { return fsigs[f] ? fsigs[f] : "(complex<f64>) -> complex<f64>"; }

static shl_dtype part_of(shl_dtype c) { return c == DT_C64 ? DT_F32 : DT_F64; }

static uint32_t un_p(ll_emit *e, const char *opname, uint32_t a, shl_dtype p);
static uint32_t un(ll_emit *e, const char *opname, uint32_t a) { return un_p(e, opname, a, DT_F64); }

static uint32_t part(ll_emit *e, const char *which, uint32_t z, const char *ct) {
  uint32_t r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_printf(&e->pr, " = complex.%s ", which);
  ll_tmp(e, z);
  pr_printf(&e->pr, " : %s", ct);
  return r;
}

static uint32_t create(ll_emit *e, uint32_t re, uint32_t im, const char *ct) {
  uint32_t r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_puts(&e->pr, " = complex.create ");
  ll_tmp(e, re);
  pr_puts(&e->pr, ", ");
  ll_tmp(e, im);
  pr_printf(&e->pr, " : %s", ct);
  return r;
}

/* A complex value's parts in f64. */
static cx load(ll_emit *e, uint32_t z, shl_dtype c) {
  shl_dtype p = part_of(c);
  const char *ct = ll_dtype(c);
  return (cx){ll_convert(e, part(e, "re", z, ct), p, DT_F64), ll_convert(e, part(e, "im", z, ct), p, DT_F64)};
}

/* f64 parts rounded to complex type c. */
static uint32_t store(ll_emit *e, cx v, shl_dtype c) {
  shl_dtype p = part_of(c);
  return create(e, ll_convert(e, v.re, DT_F64, p), ll_convert(e, v.im, DT_F64, p), ll_dtype(c));
}

static uint32_t sel_t(ll_emit *e, uint32_t c, uint32_t a, uint32_t b, const char *t) {
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

static uint32_t sel64(ll_emit *e, uint32_t c, uint32_t a, uint32_t b) { return sel_t(e, c, a, b, "f64"); }

static uint32_t cmpf(ll_emit *e, const char *pred, uint32_t a, uint32_t b, shl_dtype dt) {
  uint32_t r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_printf(&e->pr, " = arith.cmpf %s, ", pred);
  ll_tmp(e, a);
  pr_puts(&e->pr, ", ");
  ll_tmp(e, b);
  pr_printf(&e->pr, " : %s", ll_dtype(dt));
  return r;
}

/* %r = func.call @f(args) : sig */
static uint32_t call(ll_emit *e, int f, const uint32_t *args, int n) {
  uint32_t r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_printf(&e->pr, " = func.call @%s(", fnames[f]);
  for (int i = 0; i < n; i++) {
    if (i) pr_puts(&e->pr, ", ");
    ll_tmp(e, args[i]);
  }
  pr_printf(&e->pr, ") : %s", sig(f));
  e->complex_used |= 1u << f;
  return r;
}

/* glibc's complex function f of f64 parts. */
static cx cfn(ll_emit *e, int f, cx x, const cx *y) {
  uint32_t args[2] = {create(e, x.re, x.im, "complex<f64>"), y ? create(e, y->re, y->im, "complex<f64>") : 0};
  uint32_t r = call(e, f, args, y ? 2 : 1);
  return (cx){part(e, "re", r, "complex<f64>"), part(e, "im", r, "complex<f64>")};
}

/* x / y as gcc compiles C's double complex division (__divdc3). */
static cx cdiv(ll_emit *e, cx x, cx y) {
  uint32_t args[4] = {x.re, x.im, y.re, y.im};
  uint32_t r = call(e, F_DIV, args, 4);
  return (cx){part(e, "re", r, "complex<f64>"), part(e, "im", r, "complex<f64>")};
}

static uint32_t hypot2(ll_emit *e, cx x) {
  uint32_t args[2] = {x.re, x.im};
  return call(e, F_HYPOT, args, 2);
}

static uint32_t f64c(ll_emit *e, const char *v) { return ll_cst_float(e, v, DT_F64); }
static uint32_t add(ll_emit *e, uint32_t a, uint32_t b) { return ll_bin(e, "arith.addf", a, b, DT_F64); }
static uint32_t sub(ll_emit *e, uint32_t a, uint32_t b) { return ll_bin(e, "arith.subf", a, b, DT_F64); }
static uint32_t mul(ll_emit *e, uint32_t a, uint32_t b) { return ll_bin(e, "arith.mulf", a, b, DT_F64); }

/* exp(z) - 1: (expm1(x) cos y - 2 sin^2(y/2), exp(x) sin y) (ew_unary.c cexpm1_). */
static cx cexpm1(ll_emit *e, cx z) {
  uint32_t s = un(e, "math.sin", mul(e, z.im, f64c(e, "0.5")));
  uint32_t two_s = mul(e, f64c(e, "2.0"), s);
  uint32_t re = sub(e, mul(e, ll_libm_call(e, LL_LIBM_EXPM1, z.re, DT_F64), un(e, "math.cos", z.im)), mul(e, two_s, s));
  return (cx){re, mul(e, un(e, "math.exp", z.re), un(e, "math.sin", z.im))};
}

/* log(1 + z): near 0 from log1p(2x + x^2 + y^2) / 2 and atan2(y, 1 + x),
 * else clog(1 + z) (ew_unary.c clog1p_). */
static cx clog1p(ll_emit *e, cx z) {
  uint32_t half = f64c(e, "0.5"), one = f64c(e, "1.0");
  uint32_t near = ll_bin(e, "arith.andi", cmpf(e, "olt", un(e, "math.absf", z.re), half, DT_F64),
                         cmpf(e, "olt", un(e, "math.absf", z.im), half, DT_F64), DT_I1);
  uint32_t t = add(e, mul(e, z.re, add(e, f64c(e, "2.0"), z.re)), mul(e, z.im, z.im));
  uint32_t nre = mul(e, half, un(e, "math.log1p", t));
  uint32_t xp1 = add(e, one, z.re);
  uint32_t nim = ll_bin(e, "math.atan2", z.im, xp1, DT_F64);
  cx far = cfn(e, F_CLOG, (cx){xp1, z.im}, NULL);
  return (cx){sel64(e, near, nre, far.re), sel64(e, near, nim, far.im)};
}

/* z / |z|, z itself at 0, NaN when a part is NaN (ew_unary.c csign_). */
static cx csign(ll_emit *e, cx z) {
  uint32_t r = hypot2(e, z);
  uint32_t nan = ll_bin(e, "arith.ori", cmpf(e, "uno", z.re, z.re, DT_F64), cmpf(e, "uno", z.im, z.im, DT_F64), DT_I1);
  uint32_t zero = cmpf(e, "oeq", r, f64c(e, "0.0"), DT_F64), qnan = f64c(e, "0x7FF8000000000000");
  uint32_t re = sel64(e, zero, z.re, ll_bin(e, "arith.divf", z.re, r, DT_F64));
  uint32_t im = sel64(e, zero, z.im, ll_bin(e, "arith.divf", z.im, r, DT_F64));
  return (cx){sel64(e, nan, qnan, re), sel64(e, nan, qnan, im)};
}

/* x^y for complex<f64> (ew_binary.c cpow_): 0^0 = 1, 0^y = 0 for real y > 0. */
static cx cpow64(ll_emit *e, cx x, cx y) {
  cx p = cfn(e, F_CPOW, x, &y);
  uint32_t zero = f64c(e, "0.0"), one = f64c(e, "1.0");
  uint32_t x0 = ll_bin(e, "arith.andi", cmpf(e, "oeq", x.re, zero, DT_F64), cmpf(e, "oeq", x.im, zero, DT_F64), DT_I1);
  uint32_t yim0 = cmpf(e, "oeq", y.im, zero, DT_F64);
  uint32_t y0 = ll_bin(e, "arith.andi", cmpf(e, "oeq", y.re, zero, DT_F64), yim0, DT_I1);
  uint32_t ypos = ll_bin(e, "arith.andi", cmpf(e, "ogt", y.re, zero, DT_F64), yim0, DT_I1);
  uint32_t re = sel64(e, ypos, zero, p.re), im = sel64(e, ypos, zero, p.im);
  re = sel64(e, y0, one, re);
  im = sel64(e, y0, zero, im);
  return (cx){sel64(e, x0, re, p.re), sel64(e, x0, im, p.im)};
}

static uint32_t f32c(ll_emit *e, const char *v) { return ll_cst_float(e, v, DT_F32); }
static uint32_t fma_p(ll_emit *e, uint32_t a, uint32_t b, uint32_t c, shl_dtype p);

/* |a + bi| in f32 as XLA (xla_mathf.c xla_cabsf): max sqrt(1 + (min/max)^2). */
static uint32_t cabsf_xla(ll_emit *e, uint32_t a, uint32_t b) {
  shl_dtype f = DT_F32;
  uint32_t x = un_p(e, "math.absf", a, f), y = un_p(e, "math.absf", b, f);
  uint32_t mx = ll_bin(e, "arith.maxnumf", x, y, f), mn = ll_bin(e, "arith.minnumf", x, y, f);
  uint32_t ratio = ll_bin(e, "arith.divf", mn, mx, f);
  uint32_t fm = fma_p(e, ratio, ratio, f32c(e, "1.0"), f);
  uint32_t r = ll_bin(e, "arith.mulf", mx, un_p(e, "math.sqrt", fm, f), f);
  uint32_t inf = f32c(e, "0x7F800000");
  uint32_t isinf = cmpf(e, "oeq", mx, inf, f);
  r = sel_t(e, ll_bin(e, "arith.ori", cmpf(e, "oeq", mx, f32c(e, "0.0"), f), isinf, DT_I1), mx, r, "f32");
  uint32_t nan = ll_bin(e, "arith.ori", cmpf(e, "uno", a, a, f), cmpf(e, "uno", b, b, f), DT_I1);
  return sel_t(e, nan, sel_t(e, isinf, inf, f32c(e, "0x7FC00000"), "f32"), r, "f32");
}

/* x^y for complex<f32> as XLA:CPU computes it in f32 (ew_binary.c cpowf_):
 * with r = |x|, t = arg x: r^c e^(-d t) (cos q + i sin q), q = c t + d ln r
 * (cos and sin in double); x = 0 as complex<f64>. */
static uint32_t cpow32(ll_emit *e, uint32_t x, uint32_t y) {
  shl_dtype f = DT_F32;
  const char *ct = "complex<f32>";
  uint32_t a = part(e, "re", x, ct), b = part(e, "im", x, ct), c = part(e, "re", y, ct), d = part(e, "im", y, ct);
  uint32_t r = cabsf_xla(e, a, b), t = ll_bin(e, "math.atan2", b, a, f);
  uint32_t ex = ll_libm_call(e, LL_LIBM_EXP, ll_bin(e, "arith.mulf", un_p(e, "arith.negf", d, f), t, f), f);
  uint32_t coeff = ll_bin(e, "arith.mulf", ll_bin(e, "math.powf", r, c, f), ex, f);
  uint32_t dl = ll_bin(e, "arith.mulf", d, ll_libm_call(e, LL_LIBM_LOG, r, f), f);
  uint32_t q = fma_p(e, c, t, dl, f);
  uint32_t qd = ll_convert(e, q, f, DT_F64);
  uint32_t re = ll_bin(e, "arith.mulf", coeff, ll_convert(e, un(e, "math.cos", qd), DT_F64, f), f);
  uint32_t im = ll_bin(e, "arith.mulf", coeff, ll_convert(e, un(e, "math.sin", qd), DT_F64, f), f);
  uint32_t general = create(e, re, im, ct);
  uint32_t zero = f32c(e, "0.0");
  uint32_t x0 = ll_bin(e, "arith.andi", cmpf(e, "oeq", a, zero, f), cmpf(e, "oeq", b, zero, f), DT_I1);
  uint32_t at0 = store(e, cpow64(e, load(e, x, DT_C64), load(e, y, DT_C64)), DT_C64);
  return sel_t(e, x0, at0, general, ct);
}

/* Lexicographic x > y (ew_binary.c cgt). */
static uint32_t cgt(ll_emit *e, cx x, cx y) {
  uint32_t eq = cmpf(e, "oeq", x.re, y.re, DT_F64);
  uint32_t gt_im = ll_bin(e, "arith.andi", eq, cmpf(e, "ogt", x.im, y.im, DT_F64), DT_I1);
  return ll_bin(e, "arith.ori", cmpf(e, "ogt", x.re, y.re, DT_F64), gt_im, DT_I1);
}

/* compare: (real, imag) lexicographically, each part as the direction says
 * (ew_compare.c cmp_lex); TOTALORDER is left to the call-out. */
static shl_status compare(ll_emit *e, const shl_op *op, cx x, cx y, uint32_t *res) {
  const shl_attr *d = op_attr(op, "comparison_direction"), *t = op_attr(op, "compare_type");
  if (t && t->kind == AT_ENUM && str_eq_c(t->u.en.value, "TOTALORDER"))
    return ll_refuse(op, "TOTALORDER on complex elements");
  if (!d || d->kind != AT_ENUM) return ll_refuse(op, "unknown comparison_direction");
  shl_str dir = d->u.en.value;
  uint32_t req = cmpf(e, "oeq", x.re, y.re, DT_F64), ieq = cmpf(e, "oeq", x.im, y.im, DT_F64);
  uint32_t both = ll_bin(e, "arith.andi", req, ieq, DT_I1);
  if (str_eq_c(dir, "EQ") || str_eq_c(dir, "NE")) {
    *res = str_eq_c(dir, "EQ") ? both : ll_bin(e, "arith.xori", both, ll_cst_int(e, 1, DT_I1), DT_I1);
    return NULL;
  }
  bool greater = str_eq_c(dir, "GT") || str_eq_c(dir, "GE");
  if (!greater && !str_eq_c(dir, "LT") && !str_eq_c(dir, "LE")) return ll_refuse(op, "unknown comparison_direction");
  bool orequal = str_eq_c(dir, "GE") || str_eq_c(dir, "LE");
  const char *strict = greater ? "ogt" : "olt";
  uint32_t im = cmpf(e, strict, x.im, y.im, DT_F64);
  if (orequal) im = ll_bin(e, "arith.ori", im, ieq, DT_I1);
  *res = ll_bin(e, "arith.ori", cmpf(e, strict, x.re, y.re, DT_F64), ll_bin(e, "arith.andi", req, im, DT_I1), DT_I1);
  return NULL;
}

/* convert from or to a complex type: complex -> other types takes the real
 * part (the spec), other types -> complex have imaginary part 0. */
static shl_status convert(ll_emit *e, const uint32_t *a, shl_dtype in, shl_dtype out, uint32_t *res) {
  bool cin = dtype_is_complex(in), cout = dtype_is_complex(out);
  if (cin && cout) {
    *res = store(e, load(e, a[0], in), out);
    return NULL;
  }
  if (cin) {
    shl_dtype p = part_of(in);
    uint32_t re = part(e, "re", a[0], ll_dtype(in));
    if (dtype_class(out) == DTC_BOOL) *res = cmpf(e, "une", re, ll_cst_float(e, "0.0", p), p);
    else *res = ll_convert(e, re, p, out);
    return NULL;
  }
  /* (the interpreter widens to double first, then rounds to the part) */
  uint32_t re = ll_convert(e, a[0], in, DT_F64);
  *res = store(e, (cx){re, f64c(e, "0.0")}, out);
  return NULL;
}

static uint32_t un_p(ll_emit *e, const char *opname, uint32_t a, shl_dtype p) {
  uint32_t r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_printf(&e->pr, " = %s ", opname);
  ll_tmp(e, a);
  pr_printf(&e->pr, " : %s", ll_dtype(p));
  return r;
}

static uint32_t fma_p(ll_emit *e, uint32_t a, uint32_t b, uint32_t c, shl_dtype p) {
  uint32_t r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_puts(&e->pr, " = math.fma ");
  ll_tmp(e, a);
  pr_puts(&e->pr, ", ");
  ll_tmp(e, b);
  pr_puts(&e->pr, ", ");
  ll_tmp(e, c);
  pr_printf(&e->pr, " : %s", ll_dtype(p));
  return r;
}

/* x * y in the part type p, the interpreter's fma form (support/scalar.h
 * cmul_f32/f64): (fma(xr, yr, -(xi yi)), fma(xi, yr, xr yi)). */
static uint32_t cmul(ll_emit *e, uint32_t x, uint32_t y, shl_dtype c) {
  shl_dtype p = part_of(c);
  const char *ct = ll_dtype(c);
  uint32_t xr = part(e, "re", x, ct), xi = part(e, "im", x, ct), yr = part(e, "re", y, ct), yi = part(e, "im", y, ct);
  uint32_t re = fma_p(e, xr, yr, un_p(e, "arith.negf", ll_bin(e, "arith.mulf", xi, yi, p), p), p);
  uint32_t im = fma_p(e, xi, yr, ll_bin(e, "arith.mulf", xr, yi, p), p);
  return create(e, re, im, ct);
}

/* x + y (or x - y) in f64, rounded once, as the interpreter does. */
static uint32_t cadd(ll_emit *e, uint32_t x, uint32_t y, shl_dtype c, bool minus) {
  cx a = load(e, x, c), b = load(e, y, c);
  const char *o = minus ? "arith.subf" : "arith.addf";
  return store(e, (cx){ll_bin(e, o, a.re, b.re, DT_F64), ll_bin(e, o, a.im, b.im, DT_F64)}, c);
}

/* dot_general's multiply-add on complex elements: acc + x * y, the product
 * as C's complex multiplication (ac - bd, ad + bc) and the sum in the
 * element type (dot.c NAIVE_GEMM). */
uint32_t ll_complex_mul_add(ll_emit *e, uint32_t acc, uint32_t x, uint32_t y, shl_dtype c) {
  shl_dtype p = part_of(c);
  const char *ct = ll_dtype(c);
  uint32_t xr = part(e, "re", x, ct), xi = part(e, "im", x, ct), yr = part(e, "re", y, ct), yi = part(e, "im", y, ct);
  uint32_t re = ll_bin(e, "arith.subf", ll_bin(e, "arith.mulf", xr, yr, p), ll_bin(e, "arith.mulf", xi, yi, p), p);
  uint32_t im = ll_bin(e, "arith.addf", ll_bin(e, "arith.mulf", xr, yi, p), ll_bin(e, "arith.mulf", xi, yr, p), p);
  uint32_t ar = part(e, "re", acc, ct), ai = part(e, "im", acc, ct);
  return create(e, ll_bin(e, "arith.addf", ar, re, p), ll_bin(e, "arith.addf", ai, im, p), ct);
}

uint32_t ll_complex_zero(ll_emit *e, shl_dtype c) {
  uint32_t r = ll_fresh(e);
  const char *p = ll_dtype(part_of(c));
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_printf(&e->pr, " = complex.constant [0.0 : %s, 0.0 : %s] : %s", p, p, ll_dtype(c));
  return r;
}

static const struct {
  shl_opid id;
  int f;
} libm_unary[] = {{OP_EXPONENTIAL, F_CEXP}, {OP_LOG, F_CLOG}, {OP_SQRT, F_CSQRT}, {OP_SINE, F_CSIN},
                  {OP_COSINE, F_CCOS},     {OP_TAN, F_CTAN}, {OP_TANH, F_CTANH}};

shl_status ll_complex_scalar(ll_emit *e, const shl_op *op, const uint32_t *a, shl_dtype dt, shl_dtype out_dt,
                             uint32_t *res) {
  shl_opid id = op_id(op);
  if (id == OP_CONVERT) return convert(e, a, dt, out_dt, res);
  if (id == OP_COMPLEX) {
    *res = create(e, a[0], a[1], ll_dtype(out_dt));
    return NULL;
  }
  if (dt != DT_C64 && dt != DT_C128) return ll_refuse(op, "not covered on complex elements");
  const char *ct = ll_dtype(dt);
  shl_dtype p = part_of(dt);
  for (size_t i = 0; i < sizeof libm_unary / sizeof *libm_unary; i++)
    if (libm_unary[i].id == id) {
      *res = store(e, cfn(e, libm_unary[i].f, load(e, a[0], dt), NULL), dt);
      return NULL;
    }
  switch (id) {
  case OP_REAL: *res = part(e, "re", a[0], ct); return NULL;
  case OP_IMAG: *res = part(e, "im", a[0], ct); return NULL;
  case OP_SELECT: /* operands (pred, on_true, on_false) */
    *res = sel_t(e, a[0], a[1], a[2], ct);
    return NULL;
  case OP_BITCAST_CONVERT:
    if (dt != out_dt) break;
    *res = a[0];
    return NULL;
  case OP_NEGATE:
    *res = create(e, un_p(e, "arith.negf", part(e, "re", a[0], ct), p), un_p(e, "arith.negf", part(e, "im", a[0], ct), p),
                  ct);
    return NULL;
  case OP_ADD:
  case OP_SUBTRACT: *res = cadd(e, a[0], a[1], dt, id == OP_SUBTRACT); return NULL;
  case OP_MULTIPLY: *res = cmul(e, a[0], a[1], dt); return NULL;
  case OP_DIVIDE: *res = store(e, cdiv(e, load(e, a[0], dt), load(e, a[1], dt)), dt); return NULL;
  case OP_ABS: *res = ll_convert(e, hypot2(e, load(e, a[0], dt)), DT_F64, out_dt); return NULL;
  case OP_EXPONENTIAL_MINUS_ONE: *res = store(e, cexpm1(e, load(e, a[0], dt)), dt); return NULL;
  case OP_LOG_PLUS_ONE: *res = store(e, clog1p(e, load(e, a[0], dt)), dt); return NULL;
  case OP_SIGN: *res = store(e, csign(e, load(e, a[0], dt)), dt); return NULL;
  case OP_RSQRT: /* 1 / csqrt(z) */
    *res = store(e, cdiv(e, (cx){f64c(e, "1.0"), f64c(e, "0.0")}, cfn(e, F_CSQRT, load(e, a[0], dt), NULL)), dt);
    return NULL;
  case OP_LOGISTIC: { /* 1 / (1 + cexp(-z)) */
    cx z = load(e, a[0], dt);
    cx ex = cfn(e, F_CEXP, (cx){un(e, "arith.negf", z.re), un(e, "arith.negf", z.im)}, NULL);
    uint32_t one = f64c(e, "1.0");
    *res = store(e, cdiv(e, (cx){one, f64c(e, "0.0")}, (cx){add(e, one, ex.re), ex.im}), dt);
    return NULL;
  }
  case OP_CBRT: { /* cpow(z, 1/3) */
    cx third = {f64c(e, "0.33333333333333331"), f64c(e, "0.0")};
    *res = store(e, cfn(e, F_CPOW, load(e, a[0], dt), &third), dt);
    return NULL;
  }
  case OP_POWER:
    *res = dt == DT_C64 ? cpow32(e, a[0], a[1]) : store(e, cpow64(e, load(e, a[0], dt), load(e, a[1], dt)), dt);
    return NULL;
  case OP_MAXIMUM:
  case OP_MINIMUM: {
    uint32_t gt = cgt(e, load(e, a[0], dt), load(e, a[1], dt));
    *res = sel_t(e, gt, a[id == OP_MAXIMUM ? 0 : 1], a[id == OP_MAXIMUM ? 1 : 0], ct);
    return NULL;
  }
  case OP_COMPARE: return compare(e, op, load(e, a[0], dt), load(e, a[1], dt), res);
  default: break;
  }
  return ll_refuse(op, "not covered on complex elements");
}

void ll_complex_declarations(ll_emit *e) {
  for (int f = 0; f < F_COUNT; f++)
    if (e->complex_used & (1u << f)) {
      pr_newline(&e->pr);
      pr_printf(&e->pr, "func.func private @%s%s attributes {llvm.readnone}", fnames[f], sig(f));
    }
}
