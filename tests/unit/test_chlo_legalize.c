/* The CHLO -> StableHLO decomposition (src/passes/chlo_*.c) computes what
 * the CHLO ops define: each case decomposes a module holding one CHLO op
 * (no CHLO op may remain), runs it, and compares with a double-precision
 * reference that does not share the decomposition's formulas:
 *   libm / C99 complex.h (erf, erfc, lgamma, asin.., casin.., nextafter),
 *   Newton's method on libm's erf (erf_inv), the recurrence and asymptotic
 *   series (digamma), the power series of I1 (bessel_i1e), a direct sum with
 *   an Euler-Maclaurin tail of its own (zeta, polygamma), __int128 products
 *   (mulhi) and qsort (top_k).
 * Tolerances are relative to the element type's epsilon, set from measured
 * errors with headroom; a wrong coefficient or branch misses them by orders
 * of magnitude. */
#include <complex.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/exec.h"
#include "passes/chlo_legalize.h"
#include "shloc/shloc.h"

typedef struct {
  char *s;
  size_t n, cap;
} text;

static void put(text *t, const char *fmt, ...) {
  va_list ap;
  for (;;) {
    va_start(ap, fmt);
    int n = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
    va_end(ap);
    assert_true(n >= 0);
    if (t->s && t->n + (size_t)n < t->cap) {
      t->n += (size_t)n;
      return;
    }
    t->cap = (t->cap + (size_t)n + 1) * 2;
    t->s = realloc(t->s, t->cap);
    assert_non_null(t->s);
  }
}

static bool has_chlo(const shl_block *b) {
  for (const shl_op *o = b->first; o; o = o->next) {
    if (!strncmp(o->def->name, "chlo.", 5)) return true;
    for (uint32_t r = 0; r < o->n_regions; r++)
      for (uint32_t k = 0; k < o->regions[r].n_blocks; k++)
        if (has_chlo(o->regions[r].blocks[k])) return true;
  }
  return false;
}

/* PASS_CHLO_* flags of the decomposition under test. */
static unsigned pass_flags;

/* Parses, verifies, decomposes (n_chlo ops replaced) and runs @main. */
static void run_legalized(const char *src, size_t n_chlo, shl_buf *res) {
  shloc_context *c = shloc_context_create();
  shloc_module *m = NULL;
  shloc_executable *x = NULL;
  size_t replaced = 0;
  shloc_status st = shloc_module_parse(c, "t.mlir", src, strlen(src), 1, &m);
  if (!st) st = shloc_module_verify(m);
  if (!st) st = pass_legalize_chlo(m, pass_flags, &replaced);
  const shl_op *f = m ? module_find_func(m, str_of("main")) : NULL;
  if (!st) st = executable_create(m, f, NULL, &x);
  if (!st) st = executable_run(x, NULL, res);
  if (st) fail_msg("%s\n%s", shloc_status_message(st), src);
  assert_int_equal(replaced, n_chlo);
  assert_false(has_chlo(func_body(f)));
  executable_destroy(x);
  shloc_module_destroy(m);
  shloc_context_destroy(c);
}

/* The reference's magnitude floor: relative error below it is absolute. */
static double err_of(double got, double want, double floor_) {
  if (isnan(want)) return isnan(got) ? 0 : INFINITY;
  if (isinf(want)) return got == want ? 0 : INFINITY;
  return fabs(got - want) / fmax(fabs(want), floor_);
}

typedef double ref1(double);

/* op(x) for each x, in `ty` (f32 or f64): max error / eps <= tol. */
static void unary_case(const char *op, const char *ty, const double *xs, int n, ref1 *ref, double tol, double floor_) {
  bool f64 = !strcmp(ty, "f64");
  text t = {0};
  put(&t, "func.func @main() -> tensor<%dx%s> {\n  %%x = stablehlo.constant dense<[", n, ty);
  for (int i = 0; i < n; i++) put(&t, f64 ? "%s%.17e" : "%s%.9e", i ? ", " : "", f64 ? xs[i] : (double)(float)xs[i]);
  put(&t, "]> : tensor<%dx%s>\n  %%0 = %s %%x : tensor<%dx%s> -> tensor<%dx%s>\n  return %%0 : tensor<%dx%s>\n}\n", n, ty, op,
      n, ty, n, ty, n, ty);
  shl_buf res[1];
  run_legalized(t.s, 1, res);
  double eps = f64 ? 0x1p-52 : 0x1p-23, worst = 0;
  int at = 0;
  for (int i = 0; i < n; i++) {
    double x = f64 ? xs[i] : (double)(float)xs[i];
    double got = f64 ? ((double *)res[0].data)[i] : (double)((float *)res[0].data)[i];
    double e = err_of(got, ref(x), floor_) / eps;
    if (e > worst || isnan(e)) worst = e, at = i;
  }
  if (!(worst <= tol)) fail_msg("%s %s: error %.3g eps at x = %.17g (tolerance %g)", op, ty, worst, xs[at], tol);
  free(res[0].data);
  free(t.s);
}

/* n points spread over [lo, hi] (and the ends). */
static int grid(double *xs, int n, double lo, double hi) {
  for (int i = 0; i < n; i++) xs[i] = lo + (hi - lo) * i / (n - 1);
  return n;
}

/* ---- references ---- */

static double erfinv_ref(double y) {
  if (fabs(y) == 1) return copysign(INFINITY, y);
  double x = 0;
  for (int k = 0; k < 100; k++) {
    double d = (erf(x) - y) / (2 / sqrt(M_PI) * exp(-x * x));
    x -= d;
    if (fabs(d) < 1e-17 * fmax(1, fabs(x))) break;
  }
  return x;
}

/* digamma: recurrence up to x >= 12, then the asymptotic series; reflection below 1/2. */
static double digamma_ref(double x) {
  if (x <= 0 && x == floor(x)) return NAN;
  if (x < 0.5) return digamma_ref(1 - x) - M_PI / tan(M_PI * x);
  double acc = 0;
  while (x < 12) acc -= 1 / x, x += 1;
  double x2 = 1 / (x * x);
  double s = log(x) - 0.5 / x -
             x2 * (1.0 / 12 - x2 * (1.0 / 120 - x2 * (1.0 / 252 - x2 * (1.0 / 240 - x2 * (1.0 / 132)))));
  return acc + s;
}

/* I1(|x|) exp(-|x|) sign(x) from the power series sum (x/2)^(2k+1) / (k! (k+1)!). */
static double bessel_i1e_ref(double x) {
  double ax = fabs(x), h = ax / 2, term = h, sum = 0;
  for (int k = 0; k < 500 && term > sum * 1e-18; k++) {
    sum += term;
    term *= h * h / ((k + 1.0) * (k + 2.0));
  }
  return copysign(sum * exp(-ax), x);
}

/* Hurwitz zeta(s, q), s > 1, q > 0: sum to N plus an Euler-Maclaurin tail
 * with six Bernoulli terms. */
static double zeta_ref(double s, double q) {
  static const double b2k[] = {1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66, -691.0 / 2730};
  const int n = 30;
  double sum = 0;
  for (int k = 0; k < n; k++) sum += pow(k + q, -s);
  double a = n + q;
  sum += pow(a, 1 - s) / (s - 1) + pow(a, -s) / 2;
  double fact = 1, rising = s, pw = pow(a, -s - 1);
  for (int j = 1; j <= 6; j++) {
    fact *= (2.0 * j - 1) * (2.0 * j);
    sum += b2k[j - 1] / fact * rising * pw;
    rising *= (s + 2 * j - 1) * (s + 2 * j);
    pw /= a * a;
  }
  return sum;
}

static double atanh_ref(double x) { return fabs(x) > 1 ? NAN : atanh(x); }

/* ---- real unary ops ---- */

static void test_erf_family(void **state) {
  (void)state;
  double xs[121];
  int n = grid(xs, 121, -6, 6);
  unary_case("chlo.erf", "f64", xs, n, erf, 4, 1e-300);
  unary_case("chlo.erf", "f32", xs, n, erf, 4, 1e-30);
  unary_case("chlo.erfc", "f64", xs, n, erfc, 24, 1e-300);
  unary_case("chlo.erfc", "f32", xs, n, erfc, 24, 1e-30);
  double ys[101];
  n = grid(ys, 101, -1, 1);
  unary_case("chlo.erf_inv", "f64", ys, n, erfinv_ref, 8, 1e-300);
  unary_case("chlo.erf_inv", "f32", ys, n, erfinv_ref, 8, 1e-30);
}

static void test_gamma_family(void **state) {
  (void)state;
  double xs[100];
  int n = 0;
  for (int i = 0; i < 60; i++) xs[n++] = -9.75 + 0.35 * i; /* avoids the poles at integers <= 0 */
  xs[n++] = 1e-8, xs[n++] = 0.5, xs[n++] = 1, xs[n++] = 2, xs[n++] = 35.5, xs[n++] = 171.5, xs[n++] = 1e10;
  /* lgamma near its zeros at 1 and 2 is compared absolutely (floor 1). */
  unary_case("chlo.lgamma", "f64", xs, n, lgamma, 32, 1);
  unary_case("chlo.lgamma", "f32", xs, n, lgamma, 32, 1);
  /* f64 digamma: cancellation in the reflection near the poles (measured 75 eps) */
  unary_case("chlo.digamma", "f64", xs, n, digamma_ref, 256, 1);
  unary_case("chlo.digamma", "f32", xs, n, digamma_ref, 64, 1);
  double poles[] = {0, -1, -7};
  unary_case("chlo.digamma", "f64", poles, 3, digamma_ref, 0, 1);
  unary_case("chlo.lgamma", "f64", poles, 3, lgamma, 0, 1);
  double bs[81];
  n = grid(bs, 81, -40, 40);
  unary_case("chlo.bessel_i1e", "f64", bs, n, bessel_i1e_ref, 16, 1e-300);
  unary_case("chlo.bessel_i1e", "f32", bs, n, bessel_i1e_ref, 16, 1e-30);
}

static void test_trig_family(void **state) {
  (void)state;
  double xs[101], ws[61], hs[61];
  int n = grid(xs, 101, -1, 1);
  unary_case("chlo.asin", "f64", xs, n, asin, 4, 1e-300);
  unary_case("chlo.asin", "f32", xs, n, asin, 4, 1e-30);
  unary_case("chlo.acos", "f64", xs, n, acos, 4, 1e-300);
  unary_case("chlo.acos", "f32", xs, n, acos, 4, 1e-30);
  unary_case("chlo.atanh", "f64", xs, n, atanh_ref, 4, 1e-300);
  unary_case("chlo.atanh", "f32", xs, n, atanh_ref, 4, 1e-30);
  int m = grid(ws, 61, -30, 30);
  ws[0] = -1e300, ws[60] = 1e300, ws[30] = 1e-20;
  unary_case("chlo.asinh", "f64", ws, m, asinh, 4, 1e-300);
  unary_case("chlo.atan", "f64", ws, m, atan, 4, 1e-300);
  grid(hs, 61, 1, 1e6);
  hs[60] = 1.7e308;
  unary_case("chlo.acosh", "f64", hs, m, acosh, 4, 1e-300);
  /* exp(|x| + log(1/2)) rounds |x| + log(1/2): up to |x| eps (measured 12.4). */
  m = grid(ws, 61, -80, 80);
  unary_case("chlo.cosh", "f64", ws, m, cosh, 32, 1e-300);
  unary_case("chlo.sinh", "f64", ws, m, sinh, 32, 1e-300);
  unary_case("chlo.cosh", "f32", ws, m, cosh, 32, 1e-30);
  unary_case("chlo.sinh", "f32", ws, m, sinh, 32, 1e-30);
  unary_case("chlo.tan", "f64", ws, m, tan, 4, 1e-300);
}

/* f16 and bf16 go through f32: a few points, compared at their own precision. */
static void test_half_types(void **state) {
  (void)state;
  static const char *const types[] = {"f16", "bf16"};
  static const double xs[] = {-2.5, -1, -0.25, 0, 0.5, 1.5, 3};
  static const char *const ops[] = {"chlo.erf", "chlo.lgamma", "chlo.sinh", "chlo.bessel_i1e"};
  static ref1 *const refs[] = {erf, lgamma, sinh, bessel_i1e_ref};
  for (int t = 0; t < 2; t++)
    for (int o = 0; o < 4; o++) {
      text s = {0};
      put(&s, "func.func @main() -> tensor<7xf32> {\n  %%x = stablehlo.constant dense<[-2.5, -1.0, -0.25, 0.0, 0.5, 1.5, 3.0]> : tensor<7x%s>\n"
              "  %%0 = %s %%x : tensor<7x%s> -> tensor<7x%s>\n  %%1 = stablehlo.convert %%0 : (tensor<7x%s>) -> tensor<7xf32>\n"
              "  return %%1 : tensor<7xf32>\n}\n", types[t], ops[o], types[t], types[t], types[t]);
      shl_buf res[1];
      run_legalized(s.s, 1, res);
      double eps = t ? 0x1p-7 : 0x1p-10;
      for (int i = 0; i < 7; i++) {
        double e = err_of(((float *)res[0].data)[i], refs[o](xs[i]), 1e-3) / eps;
        if (!(e <= 2)) fail_msg("%s %s at %g: %g eps", ops[o], types[t], xs[i], e);
      }
      free(res[0].data);
      free(s.s);
    }
}

/* ---- complex ---- */

typedef double complex cref(double complex);

static void complex_case(const char *op, const char *ty, cref *ref, double tol) {
  bool c128 = !strcmp(ty, "f64");
  /* The tiny part: 1e-30 in f64; in f32 its square would underflow, which
   * upstream's atanh formula does not guard against (it gives inf near +-i). */
  double parts[] = {-1e20, -3.5, -1, -0.5, -1e-3, 0, c128 ? 1e-30 : 1e-12, 0.25, 1, 2, 1e15};
  enum { P = 11, N = P * P };
  text t = {0};
  put(&t, "func.func @main() -> tensor<%dxcomplex<%s>> {\n  %%x = stablehlo.constant dense<[", N, ty);
  for (int i = 0; i < N; i++) put(&t, "%s(%.17e, %.17e)", i ? ", " : "", parts[i / P], parts[i % P]);
  put(&t, "]> : tensor<%dxcomplex<%s>>\n  %%0 = %s %%x : tensor<%dxcomplex<%s>> -> tensor<%dxcomplex<%s>>\n", N, ty, op, N,
      ty, N, ty);
  put(&t, "  return %%0 : tensor<%dxcomplex<%s>>\n}\n", N, ty);
  shl_buf res[1];
  run_legalized(t.s, 1, res);
  double eps = c128 ? 0x1p-52 : 0x1p-23;
  for (int i = 0; i < N; i++) {
    double complex z = CMPLX(parts[i / P], parts[i % P]);
    if (!c128) z = CMPLX((float)creal(z), (float)cimag(z));
    double complex want = ref(z);
    double gr = c128 ? ((double *)res[0].data)[2 * i] : ((float *)res[0].data)[2 * i];
    double gi = c128 ? ((double *)res[0].data)[2 * i + 1] : ((float *)res[0].data)[2 * i + 1];
    /* componentwise, relative to the larger component (as XLA's tests measure) */
    double scale = fmax(fmax(fabs(creal(want)), fabs(cimag(want))), 1e-300);
    double e = fmax(err_of(gr, creal(want), scale), err_of(gi, cimag(want), scale)) / eps;
    if (!(e <= tol)) fail_msg("%s complex<%s>(%g, %g): got (%.17g, %.17g), want (%.17g, %.17g): %g eps", op, ty,
                              creal(z), cimag(z), gr, gi, creal(want), cimag(want), e);
  }
  free(res[0].data);
  free(t.s);
}

static double complex sq(double complex z) { return z * z; }

static void test_complex(void **state) {
  (void)state;
  static const char *const ops[] = {"chlo.asin", "chlo.acos", "chlo.asinh", "chlo.acosh", "chlo.atan", "chlo.atanh"};
  static cref *const refs[] = {casin, cacos, casinh, cacosh, catan, catanh};
  for (int o = 0; o < 6; o++) {
    complex_case(ops[o], "f64", refs[o], 8);
    complex_case(ops[o], "f32", refs[o], 8);
  }
  complex_case("chlo.square", "f64", sq, 2);
}

/* tan as sine / cosine, for targets before stablehlo.tan (v1.4.0). */
static void test_tan_expanded(void **state) {
  (void)state;
  pass_flags = PASS_CHLO_EXPAND_TAN;
  double xs[61];
  int n = grid(xs, 61, -10, 10);
  unary_case("chlo.tan", "f64", xs, n, tan, 4, 1e-300);
  unary_case("chlo.tan", "f32", xs, n, tan, 4, 1e-30);
  complex_case("chlo.tan", "f64", ctan, 64);
  pass_flags = 0;
}

/* ---- zeta, polygamma ---- */

static void test_zeta_polygamma(void **state) {
  (void)state;
  static const double s[] = {1.5, 2, 3, 4.5, 7, 12};
  static const double q[] = {0.25, 0.5, 1, 2.5, 10, 100};
  enum { N = 36 };
  text t = {0};
  put(&t, "func.func @main() -> (tensor<%dxf64>, tensor<%dxf64>) {\n  %%s = stablehlo.constant dense<[", N, N);
  for (int i = 0; i < N; i++) put(&t, "%s%.17e", i ? ", " : "", s[i / 6]);
  put(&t, "]> : tensor<%dxf64>\n  %%q = stablehlo.constant dense<[", N);
  for (int i = 0; i < N; i++) put(&t, "%s%.17e", i ? ", " : "", q[i % 6]);
  put(&t, "]> : tensor<%dxf64>\n  %%n = stablehlo.constant dense<[", N);
  for (int i = 0; i < N; i++) put(&t, "%s%d", i ? ", " : "", i / 6);
  put(&t, ".0]> : tensor<%dxf64>\n", N);
  put(&t, "  %%z = chlo.zeta %%s, %%q : tensor<%dxf64>, tensor<%dxf64> -> tensor<%dxf64>\n", N, N, N);
  put(&t, "  %%p = chlo.polygamma %%n, %%q : tensor<%dxf64>, tensor<%dxf64> -> tensor<%dxf64>\n", N, N, N);
  put(&t, "  return %%z, %%p : tensor<%dxf64>, tensor<%dxf64>\n}\n", N, N);
  shl_buf res[2];
  run_legalized(t.s, 2, res);
  for (int i = 0; i < N; i++) {
    double z = ((double *)res[0].data)[i], p = ((double *)res[1].data)[i];
    double zw = zeta_ref(s[i / 6], q[i % 6]);
    int n = i / 6;
    double fact = tgamma(n + 1.0);
    double pw = n == 0 ? digamma_ref(q[i % 6]) : (n % 2 ? 1 : -1) * fact * zeta_ref(n + 1.0, q[i % 6]);
    if (!(err_of(z, zw, 1e-300) < 1e-12)) fail_msg("zeta(%g, %g) = %.17g, want %.17g", s[i / 6], q[i % 6], z, zw);
    if (!(err_of(p, pw, 1) < 1e-12)) fail_msg("polygamma(%d, %g) = %.17g, want %.17g", n, q[i % 6], p, pw);
  }
  free(res[0].data);
  free(res[1].data);
  free(t.s);
}

/* ---- bit-exact ops ---- */

static void test_next_after(void **state) {
  (void)state;
  static const float xs[] = {0.0f, -0.0f, 1.0f, 1.0f, -1.0f, 0x1p-149f, INFINITY, 3.5f, NAN, 2.0f, -0.0f};
  static const float ys[] = {1.0f, -1.0f, 2.0f, 0.0f, -INFINITY, 0.0f, 0.0f, 3.5f, 1.0f, NAN, 0.0f};
  enum { N = sizeof xs / sizeof *xs };
  text t = {0};
  put(&t, "func.func @main() -> tensor<%dxf32> {\n  %%x = stablehlo.constant dense<[", N);
  for (int i = 0; i < N; i++) {
    uint32_t b;
    memcpy(&b, &xs[i], 4);
    put(&t, "%s0x%08X", i ? ", " : "", b);
  }
  put(&t, "]> : tensor<%dxf32>\n  %%y = stablehlo.constant dense<[", N);
  for (int i = 0; i < N; i++) {
    uint32_t b;
    memcpy(&b, &ys[i], 4);
    put(&t, "%s0x%08X", i ? ", " : "", b);
  }
  put(&t, "]> : tensor<%dxf32>\n  %%0 = chlo.next_after %%x, %%y : tensor<%dxf32>, tensor<%dxf32> -> tensor<%dxf32>\n", N, N,
      N, N);
  put(&t, "  return %%0 : tensor<%dxf32>\n}\n", N);
  shl_buf res[1];
  run_legalized(t.s, 1, res);
  for (int i = 0; i < N; i++) {
    float got = ((float *)res[0].data)[i], want = nextafterf(xs[i], ys[i]);
    uint32_t gb, wb;
    memcpy(&gb, &got, 4);
    memcpy(&wb, &want, 4);
    if (isnan(want)) assert_true(isnan(got));
    else if (gb != wb) fail_msg("next_after(%a, %a) = %a, want %a", xs[i], ys[i], got, want);
  }
  free(res[0].data);
  free(t.s);
}

static void test_mulhi(void **state) {
  (void)state;
  static const int64_t a[] = {INT64_MIN, INT64_MIN, -1, INT64_MAX, 123456789012345LL, -987654321098765LL, 7};
  static const int64_t b[] = {INT64_MIN, INT64_MAX, -1, INT64_MAX, -55555555555555LL, 3, -9};
  enum { N = 7 };
  for (int u = 0; u < 2; u++) {
    const char *ty = u ? "ui64" : "i64";
    text t = {0};
    put(&t, "func.func @main() -> tensor<%dx%s> {\n  %%a = stablehlo.constant dense<[", N, ty);
    for (int i = 0; i < N; i++) {
      if (u) put(&t, "%s%llu", i ? ", " : "", (unsigned long long)a[i]);
      else put(&t, "%s%lld", i ? ", " : "", (long long)a[i]);
    }
    put(&t, "]> : tensor<%dx%s>\n  %%b = stablehlo.constant dense<[", N, ty);
    for (int i = 0; i < N; i++) {
      if (u) put(&t, "%s%llu", i ? ", " : "", (unsigned long long)b[i]);
      else put(&t, "%s%lld", i ? ", " : "", (long long)b[i]);
    }
    put(&t, "]> : tensor<%dx%s>\n  %%0 = chlo.mulhi %%a, %%b : tensor<%dx%s>, tensor<%dx%s> -> tensor<%dx%s>\n", N, ty, N, ty,
        N, ty, N, ty);
    put(&t, "  return %%0 : tensor<%dx%s>\n}\n", N, ty);
    shl_buf res[1];
    run_legalized(t.s, 1, res);
    for (int i = 0; i < N; i++) {
      int64_t want = u ? (int64_t)(uint64_t)(((unsigned __int128)(uint64_t)a[i] * (uint64_t)b[i]) >> 64)
                       : (int64_t)(((__int128)a[i] * b[i]) >> 64);
      assert_int_equal(((int64_t *)res[0].data)[i], want);
    }
    free(res[0].data);
    free(t.s);
  }
  /* narrower types widen: i16 */
  const char *src = "func.func @main() -> tensor<3xi16> {\n"
                    "  %a = stablehlo.constant dense<[-32768, 32767, -3]> : tensor<3xi16>\n"
                    "  %b = stablehlo.constant dense<[-32768, 32767, 5]> : tensor<3xi16>\n"
                    "  %0 = chlo.mulhi %a, %b : tensor<3xi16>, tensor<3xi16> -> tensor<3xi16>\n"
                    "  return %0 : tensor<3xi16>\n}\n";
  shl_buf res[1];
  run_legalized(src, 1, res);
  const int16_t *r = res[0].data;
  assert_int_equal(r[0], (-32768 * -32768) >> 16);
  assert_int_equal(r[1], (32767 * 32767) >> 16);
  assert_int_equal(r[2], (-15) >> 16);
  free(res[0].data);
}

static int cmp_desc(const void *x, const void *y) {
  float a = *(const float *)x, b = *(const float *)y;
  return (a < b) - (a > b);
}

static void test_top_k_and_broadcast(void **state) {
  (void)state;
  const char *src = "func.func @main() -> (tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x4xf32>, tensor<2x4xi1>) {\n"
                    "  %x = stablehlo.constant dense<[[3.0, -1.0, 7.5, 7.5, 0.0], [-2.0, 9.0, 1.0, 4.0, 4.5]]> : tensor<2x5xf32>\n"
                    "  %v, %i = chlo.top_k(%x, k = 3) : tensor<2x5xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)\n"
                    "  %a = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>\n"
                    "  %b = stablehlo.constant dense<[[10.0], [20.0]]> : tensor<2x1xf32>\n"
                    "  %s = chlo.broadcast_multiply %a, %b : (tensor<4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>\n"
                    "  %c = chlo.broadcast_compare %a, %b {comparison_direction = #chlo<comparison_direction LT>} : "
                    "(tensor<4xf32>, tensor<2x1xf32>) -> tensor<2x4xi1>\n"
                    "  return %v, %i, %s, %c : tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x4xf32>, tensor<2x4xi1>\n}\n";
  shl_buf res[4];
  run_legalized(src, 3, res);
  float rows[2][5] = {{3.0f, -1.0f, 7.5f, 7.5f, 0.0f}, {-2.0f, 9.0f, 1.0f, 4.0f, 4.5f}};
  for (int r = 0; r < 2; r++) {
    float sorted[5];
    memcpy(sorted, rows[r], sizeof sorted);
    qsort(sorted, 5, sizeof *sorted, cmp_desc);
    for (int k = 0; k < 3; k++) {
      float v = ((float *)res[0].data)[r * 3 + k];
      int32_t idx = ((int32_t *)res[1].data)[r * 3 + k];
      assert_true(v == sorted[k]);
      assert_true(rows[r][idx] == v);
    }
  }
  /* ties keep their order (stable): the two 7.5s at indices 2, 3 */
  assert_int_equal(((int32_t *)res[1].data)[0], 2);
  assert_int_equal(((int32_t *)res[1].data)[1], 3);
  static const float a[] = {1, 2, 3, 4}, b[] = {10, 20};
  for (int r = 0; r < 2; r++)
    for (int j = 0; j < 4; j++) {
      assert_true(((float *)res[2].data)[r * 4 + j] == a[j] * b[r]);
      assert_int_equal(((uint8_t *)res[3].data)[r * 4 + j] != 0, a[j] < b[r]);
    }
  for (int i = 0; i < 4; i++) free(res[i].data);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_erf_family),      cmocka_unit_test(test_gamma_family),
      cmocka_unit_test(test_trig_family),     cmocka_unit_test(test_half_types),
      cmocka_unit_test(test_complex),         cmocka_unit_test(test_tan_expanded),
      cmocka_unit_test(test_zeta_polygamma),
      cmocka_unit_test(test_next_after),      cmocka_unit_test(test_mulhi),
      cmocka_unit_test(test_top_k_and_broadcast),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
