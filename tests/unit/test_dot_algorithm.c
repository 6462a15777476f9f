/* dot_general's `algorithm` changes the result: inputs rounded to bf16 /
 * tf32 / f16 (products accumulated in f32), or split into bf16 components
 * summed as XLA:CPU's BF16_BF16_F32_X3 / _X6 rewrite defines.  Expected
 * values come from a double-precision reference over inputs rounded here
 * with frexp/nearbyint (not shloc's converters).  Each case also checks that
 * the plain f32 product is far from the expected value, so ignoring the
 * attribute fails.  Algorithms shloc does not run are refused at plan time. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "shloc/executable.h"
#include "shloc/shloc.h"
#include "ok.h"

/* x rounded to nearest-even with `bits` significant bits (normal range). */
static double round_sig(double x, int bits) {
  if (x == 0 || !isfinite(x)) return x;
  int e;
  double m = frexp(x, &e);
  return ldexp(nearbyint(ldexp(m, bits)), e - bits);
}
static double bf16(double x) { return round_sig(x, 8); }
/* The bf16 head by truncation: the top 8 significant bits. */
static double trunc8(double x) {
  if (x == 0) return x;
  int e;
  double m = frexp(x, &e);
  return ldexp(trunc(ldexp(m, 8)), e - 8);
}

enum { M = 24, K = 80, N = 20 }; /* M*N*K > 2^15: the BLAS path */
typedef enum { R_BF16, R_TF32, R_F16, R_X3, R_X6 } ref_kind;

static char *program(const char *alg, int m, int k, int n) {
  static char buf[1024];
  snprintf(buf, sizeof buf,
           "func.func @main(%%a: tensor<%dx%dxf32>, %%b: tensor<%dx%dxf32>) -> tensor<%dx%dxf32> {\n"
           "  %%0 = stablehlo.dot_general %%a, %%b, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = %s, "
           "allow_imprecise_accumulation = false> : (tensor<%dx%dxf32>, tensor<%dx%dxf32>) -> tensor<%dx%dxf32>\n"
           "  return %%0 : tensor<%dx%dxf32>\n}\n",
           m, k, k, n, m, n, alg, m, k, k, n, m, n, m, n);
  return buf;
}

static shloc_status run(const char *alg, int m, int k, int n, const float *a, const float *b, float *c) {
  const char *text = program(alg, m, k, n);
  shloc_context *ctx = shloc_context_create();
  shloc_module *mod;
  shloc_executable *x = NULL;
  OK(shloc_module_parse(ctx, "alg.mlir", text, strlen(text), 1, &mod));
  OK(shloc_module_verify(mod));
  shloc_status st = shloc_executable_create(mod, "main", NULL, &x);
  if (!st) {
    const int64_t da[2] = {m, k}, db[2] = {k, n};
    shloc_tensor args[2] = {{XLA_FFI_DataType_F32, 2, da, (void *)a, (size_t)(m * k) * 4},
                            {XLA_FFI_DataType_F32, 2, db, (void *)b, (size_t)(k * n) * 4}};
    shloc_tensor res[1] = {{.data = c, .nbytes = (size_t)(m * n) * 4}};
    st = shloc_executable_run_into(x, args, 2, res, 1);
    shloc_executable_destroy(x);
  }
  shloc_module_destroy(mod);
  shloc_context_destroy(ctx);
  return st;
}

/* Components of x per the algorithm, in double. */
static int parts(ref_kind r, double x, double *p) {
  switch (r) {
    case R_BF16: p[0] = bf16(x); return 1;
    case R_TF32: p[0] = round_sig(x, 11); return 1;
    case R_F16: p[0] = round_sig(x, 11); return 1; /* values stay in f16's normal range */
    case R_X3: p[0] = trunc8(x); p[1] = bf16(x - p[0]); return 2;
    case R_X6: {
      double mid = x - trunc8(x);
      p[0] = trunc8(x);
      p[1] = trunc8(mid);
      p[2] = bf16(mid - p[1]);
      return 3;
    }
  }
  return 0;
}

/* Inputs with many significant bits, in [-2, 2], exact in f32. */
static void fill(float *v, int n, uint32_t seed) {
  for (int i = 0; i < n; i++) {
    seed = seed * 1664525u + 1013904223u;
    v[i] = (float)ldexp((double)(int32_t)(seed >> 8) - (1 << 23), -22);
  }
}

static void check(const char *alg, ref_kind r) {
  static float a[M * K], b[K * N], c[M * N];
  fill(a, M * K, 1);
  fill(b, K * N, 2);
  OK(run(alg, M, K, N, a, b, c));
  double worst_plain = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double want = 0, plain = 0, mag = 0;
      for (int k = 0; k < K; k++) {
        double pa[3], pb[3];
        int na = parts(r, a[i * K + k], pa);
        parts(r, b[k * N + j], pb);
        for (int u = 0; u < na; u++)
          for (int v = 0; v < na; v++)
            if (u + v < (r == R_X6 ? 3 : r == R_X3 ? 2 : 1)) want += pa[u] * pb[v];
        plain += (double)a[i * K + k] * b[k * N + j];
        mag += fabs((double)a[i * K + k] * b[k * N + j]);
      }
      double tol = mag * 0x1p-21; /* f32 accumulation over K = 80 terms */
      double got = c[i * N + j];
      if (fabs(got - want) > tol)
        fail_msg("%s [%d,%d]: got %.9g, want %.9g (tol %.3g)", alg, i, j, got, want, tol);
      if (fabs(plain - want) / tol > worst_plain) worst_plain = fabs(plain - want) / tol;
    }
  /* The attribute matters: the unrounded product is off by many tolerances
   * (X6 keeps about f32's precision: test_x6_known_value shows it instead). */
  if (r != R_X6) assert_true(worst_plain > 8);
}

static const char *const BF16 = "bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, "
                                "rhs_component_count = 1, num_primitive_operations = ";

static void test_bf16(void **s) { (void)s; char al[256]; snprintf(al, sizeof al, "%s1", BF16); check(al, R_BF16); }
static void test_bf16_x3(void **s) { (void)s; char al[256]; snprintf(al, sizeof al, "%s3", BF16); check(al, R_X3); }
static void test_bf16_x6(void **s) { (void)s; char al[256]; snprintf(al, sizeof al, "%s6", BF16); check(al, R_X6); }
static void test_tf32(void **s) {
  (void)s;
  check("tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, "
        "num_primitive_operations = 1", R_TF32);
}
static void test_f16(void **s) {
  (void)s;
  check("f16, rhs_precision_type = f16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, "
        "num_primitive_operations = 1", R_F16);
}

/* X3 on a small (loop path) product where the lost lo x lo term is visible:
 * a = b = 1 + 2^-8 + 2^-20 -> hi = 1, lo = bf16(2^-8 + 2^-20) = 2^-8, so
 * the result is exactly 1 + 2^-7 (f32 would give 1 + 2^-7 + 2^-16 + ...). */
static void test_x3_known_value(void **s) {
  (void)s;
  char al[256];
  snprintf(al, sizeof al, "%s3", BF16);
  float a[1] = {1.0f + 0x1p-8f + 0x1p-20f}, b[1] = {a[0]}, c[1];
  OK(run(al, 1, 1, 1, a, b, c));
  assert_true(c[0] == 1.0f + 0x1p-7f);
}

/* X6 on a = b = 0x1.0103fep0: hi = 1, mid = 0x1.02p-8, lo = 0x1.fep-16;
 * the six kept products sum to exactly 0x1.0209p0, where the f32 product
 * rounds to 0x1.020904p0 (mid x lo and lo x lo are dropped). */
static void test_x6_known_value(void **s) {
  (void)s;
  char al[256];
  snprintf(al, sizeof al, "%s6", BF16);
  float a[1] = {0x1.0103fep0f}, b[1] = {a[0]}, c[1];
  OK(run(al, 1, 1, 1, a, b, c));
  assert_true(c[0] == 0x1.0209p0f);
}

/* An infinite input: the NaN from inf x 0 in the low products is dropped
 * before hi x hi is added, as XLA does. */
static void test_x3_infinity(void **s) {
  (void)s;
  char al[256];
  snprintf(al, sizeof al, "%s3", BF16);
  float a[1] = {1.0f}, b[1] = {INFINITY}, c[1];
  OK(run(al, 1, 1, 1, a, b, c));
  assert_true(isinf(c[0]) && c[0] > 0);
}

static void expect_refusal(const char *alg, shloc_code code, const char *needle) {
  float a[4] = {1, 2, 3, 4}, b[4] = {1, 2, 3, 4}, c[4];
  shloc_status st = run(alg, 2, 2, 2, a, b, c);
  assert_non_null(st);
  assert_int_equal(shloc_status_code(st), code);
  if (!strstr(shloc_status_message(st), needle)) fail_msg("message: %s", shloc_status_message(st));
  assert_string_equal(shloc_status_op(st), "stablehlo.dot_general");
  shloc_status_free(st);
}

static void test_refused(void **s) {
  (void)s;
  char al[256];
  snprintf(al, sizeof al, "%s9", BF16); /* valid, not carried out by shloc */
  expect_refusal(al, SHLOC_ERR_UNSUPPORTED, "BF16_BF16_F32_X9");
  expect_refusal("tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, "
                 "rhs_component_count = 1, num_primitive_operations = 3",
                 SHLOC_ERR_UNSUPPORTED, "TF32_TF32_F32_X3");
  expect_refusal("bf16, rhs_precision_type = bf16, accumulation_type = bf16, lhs_component_count = 1, "
                 "rhs_component_count = 1, num_primitive_operations = 1",
                 SHLOC_ERR_UNSUPPORTED, "BF16_BF16_BF16");
  snprintf(al, sizeof al, "%s4", BF16); /* no such algorithm */
  expect_refusal(al, SHLOC_ERR_VERIFY, "not a known dot algorithm");
  snprintf(al, sizeof al, "%s0", BF16);
  expect_refusal(al, SHLOC_ERR_VERIFY, "must be positive");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bf16),          cmocka_unit_test(test_bf16_x3),        cmocka_unit_test(test_bf16_x6),
      cmocka_unit_test(test_tf32),          cmocka_unit_test(test_f16),            cmocka_unit_test(test_x3_known_value),
      cmocka_unit_test(test_x6_known_value), cmocka_unit_test(test_x3_infinity),   cmocka_unit_test(test_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
