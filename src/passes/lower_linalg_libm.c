/* Scalar math that upstream's math lowering gets wrong or slow:
 *  - expm1 as a direct call (f64: libm; f32: libshloc's shloc_rt_expm1f,
 *    XLA's, to which libm's expm1f differs in the last bit): convert-math-to-llvm computes math.expm1
 *    as exp(x) - 1, which loses the precision of small results, and the
 *    pipeline runs it before convert-math-to-libm (which rejects the math ops
 *    it has no function for).  The declarations are readnone, so clang
 *    -fveclib=libmvec vectorizes loops calling them;
 *  - f32 tanh as the interpreter's vector kernel computes it (XLA:CPU's
 *    rational approximation, src/exec/kernels/ew_f32.c) in arith/math ops,
 *    which vectorize; libm's tanhf has no vector variant LLVM knows of;
 *  - f32 exp and logistic likewise (the interpreter's vexp/vlogistic), so
 *    that compiled code gives the interpreter's results and vectorizes 16
 *    wide without calls.
 * Narrower floats compute in f32. */
#include <stdio.h>

#include "passes/lower_linalg_emit.h"

static const char *const names[LL_LIBM_COUNT][2] = {
    [LL_LIBM_EXPM1] = {"shloc_rt_expm1f", "expm1"}, /* f32: the interpreter's (XLA's) expm1f */
    [LL_LIBM_EXP] = {"shloc_rt_expf", "exp"},       /* f32: XLA's; complex<f32> power only */
    [LL_LIBM_LOG] = {"shloc_rt_logf", "log"},
};

uint32_t ll_libm_call(ll_emit *e, ll_libm fn, uint32_t x, shl_dtype dt) {
  bool f64 = dt == DT_F64;
  shl_dtype ct = f64 ? DT_F64 : DT_F32;
  uint32_t arg = ll_convert(e, x, dt, ct), r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_printf(&e->pr, " = func.call @%s(", names[fn][f64]);
  ll_tmp(e, arg);
  pr_printf(&e->pr, ") : (%s) -> %s", dtype_name(ct), dtype_name(ct));
  e->libm_used |= 1u << (2 * fn + f64);
  return ll_convert(e, r, ct, dt);
}

void ll_libm_declarations(ll_emit *e) {
  for (int fn = 0; fn < LL_LIBM_COUNT; fn++)
    for (int f64 = 0; f64 < 2; f64++) {
      if (!(e->libm_used & (1u << (2 * fn + f64)))) continue;
      const char *t = f64 ? "f64" : "f32";
      pr_newline(&e->pr);
      pr_printf(&e->pr, "func.func private @%s(%s) -> %s attributes {llvm.readnone}", names[fn][f64], t, t);
    }
}

static uint32_t cst_f32(ll_emit *e, float v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%.9e", (double)v);
  return ll_cst_float(e, buf, DT_F32);
}

/* r = fma(a, b, c) */
static uint32_t fma3(ll_emit *e, uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_puts(&e->pr, " = math.fma ");
  ll_tmp(e, a);
  pr_puts(&e->pr, ", ");
  ll_tmp(e, b);
  pr_puts(&e->pr, ", ");
  ll_tmp(e, c);
  pr_puts(&e->pr, " : f32");
  return r;
}

uint32_t ll_xla_tanh(ll_emit *e, uint32_t x, shl_dtype dt) {
  static const float num[7] = {-2.76076847742355e-16f, 2.00018790482477e-13f, -8.60467152213735e-11f,
                               5.12229709037114e-08f,  1.48572235717979e-05f, 6.37261928875436e-04f,
                               4.89352455891786e-03f};
  static const float den[4] = {1.19825839466702e-06f, 1.18534705686654e-04f, 2.26843463243900e-03f,
                               4.89352518554385e-03f};
  uint32_t v = ll_convert(e, x, dt, DT_F32);
  uint32_t ax = ll_unary(e, "math.absf", v, DT_F32);
  /* |x| >= 0.0004, false for NaN: tiny values and NaN pass through */
  uint32_t big = ll_cmp(e, "cmpf", "oge", ax, cst_f32(e, 0.0004f), DT_F32);
  /* |x| >= lim: +-1 exactly (the interpreter's vector kernel, ew_f32.c) */
  uint32_t in_range = ll_cmp(e, "cmpf", "olt", ax, cst_f32(e, 7.90531110763549805f), DT_F32);
  uint32_t x2 = ll_bin(e, "arith.mulf", v, v, DT_F32), p = cst_f32(e, num[0]), q = cst_f32(e, den[0]);
  for (int i = 1; i < 7; i++) p = fma3(e, x2, p, cst_f32(e, num[i]));
  for (int i = 1; i < 4; i++) q = fma3(e, x2, q, cst_f32(e, den[i]));
  uint32_t t = ll_bin(e, "arith.divf", ll_bin(e, "arith.mulf", v, p, DT_F32), q, DT_F32);
  uint32_t one = ll_bin(e, "math.copysign", cst_f32(e, 1.0f), v, DT_F32);
  uint32_t r = ll_sel(e, big, ll_sel(e, in_range, t, one, DT_F32), v, DT_F32);
  return ll_convert(e, r, DT_F32, dt);
}

/* 2^k as an f32 from its biased exponent (k in [-126, 127]). */
static uint32_t pow2(ll_emit *e, uint32_t k) {
  uint32_t biased = ll_bin(e, "arith.addi", k, ll_cst_int(e, 127, DT_I32), DT_I32);
  return ll_cast(e, "arith.bitcast", ll_bin(e, "arith.shli", biased, ll_cst_int(e, 23, DT_I32), DT_I32), DT_I32,
                 DT_F32);
}

/* vexp of src/exec/kernels/ew_f32.c, op for op: x clamped to [-104, 89]
 * (NaN to -104, restored at the end), k = rint(x / ln 2) by the 1.5 * 2^23
 * trick, r = x - k ln 2 (ln 2 in two parts), e^r by a degree-7 polynomial,
 * times 2^k as two factors so that subnormal results are rounded once.
 * Inline arithmetic vectorizes 16 wide; LLVM 22 knows only libmvec's 4- and
 * 8-wide expf. */
static uint32_t exp_f32(ll_emit *e, uint32_t x) {
  static const float poly[6] = {1.98412698e-04f, 1.38888889e-03f, 8.33333333e-03f,
                                4.16666667e-02f, 1.66666667e-01f, 0.5f};
  uint32_t lo = cst_f32(e, -104.0f), hi = cst_f32(e, 89.0f);
  uint32_t xc = ll_sel(e, ll_cmp(e, "cmpf", "ogt", x, lo, DT_F32), x, lo, DT_F32);
  xc = ll_sel(e, ll_cmp(e, "cmpf", "olt", xc, hi, DT_F32), xc, hi, DT_F32);
  uint32_t shift = cst_f32(e, 12582912.0f);
  uint32_t k = ll_bin(e, "arith.subf", fma3(e, xc, cst_f32(e, 1.44269504f), shift), shift, DT_F32);
  uint32_t r = fma3(e, k, cst_f32(e, -0.693145751953125f), xc);
  r = fma3(e, k, cst_f32(e, -1.42860677e-06f), r);
  uint32_t q = fma3(e, r, cst_f32(e, poly[0]), cst_f32(e, poly[1]));
  for (int i = 2; i < 6; i++) q = fma3(e, q, r, cst_f32(e, poly[i]));
  uint32_t p = fma3(e, q, ll_bin(e, "arith.mulf", r, r, DT_F32), r);
  p = ll_bin(e, "arith.addf", cst_f32(e, 1.0f), p, DT_F32);
  p = ll_sel(e, ll_cmp(e, "cmpf", "oeq", x, x, DT_F32), p, x, DT_F32);
  uint32_t ki = ll_cast(e, "arith.fptosi", k, DT_F32, DT_I32);
  uint32_t k1 = ll_bin(e, "arith.shrsi", ki, ll_cst_int(e, 1, DT_I32), DT_I32);
  uint32_t k2 = ll_bin(e, "arith.subi", ki, k1, DT_I32);
  p = ll_bin(e, "arith.mulf", p, pow2(e, k1), DT_F32);
  return ll_bin(e, "arith.mulf", p, pow2(e, k2), DT_F32);
}

uint32_t ll_kernel_exp(ll_emit *e, uint32_t x, shl_dtype dt) {
  return ll_convert(e, exp_f32(e, ll_convert(e, x, dt, DT_F32)), DT_F32, dt);
}

/* vlogistic: e = exp(-|x|), then e / (1 + e) for x < 0 (tiny results keep
 * their precision) and 1 / (1 + e) otherwise. */
uint32_t ll_kernel_logistic(ll_emit *e, uint32_t x, shl_dtype dt) {
  uint32_t v = ll_convert(e, x, dt, DT_F32), one = cst_f32(e, 1.0f);
  uint32_t ex = exp_f32(e, ll_unary(e, "arith.negf", ll_unary(e, "math.absf", v, DT_F32), DT_F32));
  uint32_t neg = ll_cmp(e, "cmpf", "olt", v, cst_f32(e, 0.0f), DT_F32);
  uint32_t r = ll_bin(e, "arith.divf", ll_sel(e, neg, ex, one, DT_F32), ll_bin(e, "arith.addf", one, ex, DT_F32),
                      DT_F32);
  return ll_convert(e, r, DT_F32, dt);
}
