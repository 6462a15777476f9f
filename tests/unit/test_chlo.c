/* CHLO ops at StableHLO HEAD, run through parse, verify and the executor and
 * compared with values computed here from the ops' definitions:
 *   chlo.mulhi       the high half of the widened product (64-bit products
 *                    for <= 32 bits, 32-bit schoolbook halves for 64 bits);
 *   chlo.ragged_dot  a per-group double-precision loop, all three modes;
 *   chlo.scan        the loop written out by hand;
 *   chlo._asin_acos_kernel  C99 casin/cacos through the identities of its
 *                    definition in ChloOps.td. */
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
#include "shloc/shloc.h"

/* ---- running a module ---- */

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

/* Parses, verifies and runs @main (no arguments); res[i] get the results
 * (caller frees res[i].data).  Returns the error message (static storage
 * for this test) or NULL. */
static const char *run(const char *src, shl_buf *res) {
  static char msg[512];
  shloc_context *c = shloc_context_create();
  shloc_module *m = NULL;
  shloc_executable *x = NULL;
  shloc_status st = shloc_module_parse(c, "t.mlir", src, strlen(src), 1, &m);
  if (!st) st = shloc_module_verify(m);
  const shl_op *f = m ? module_find_func(m, str_of("main")) : NULL;
  if (!st) st = executable_create(m, f, NULL, &x);
  if (!st) st = executable_run(x, NULL, res);
  const char *out = NULL;
  if (st) {
    snprintf(msg, sizeof msg, "%s", shloc_status_message(st));
    out = msg;
    shloc_status_free(st);
  }
  executable_destroy(x);
  shloc_module_destroy(m);
  shloc_context_destroy(c);
  return out;
}

static void run_ok(const char *src, shl_buf *res) {
  const char *err = run(src, res);
  if (err) fail_msg("%s\n%s", err, src);
}

static uint64_t lcg(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 11 ^ *s << 53;
}

/* ---- chlo.mulhi ---- */

/* High 64 bits of a 64x64 product from 32-bit halves. */
static uint64_t mulhi_u64(uint64_t a, uint64_t b) {
  uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
  uint64_t p0 = al * bl, p1 = al * bh, p2 = ah * bl, p3 = ah * bh;
  uint64_t mid = (p0 >> 32) + (p1 & 0xffffffffu) + (p2 & 0xffffffffu);
  return p3 + (p1 >> 32) + (p2 >> 32) + (mid >> 32);
}

/* Expected mulhi of two elements of `bits` bits (values as sign- or
 * zero-extended int64), as an int64 of the same extension. */
static int64_t mulhi_ref(int64_t a, int64_t b, unsigned bits, bool sgn) {
  if (bits == 64) {
    uint64_t hi = mulhi_u64((uint64_t)a, (uint64_t)b);
    if (sgn) hi -= (a < 0 ? (uint64_t)b : 0) + (b < 0 ? (uint64_t)a : 0);
    return (int64_t)hi;
  }
  if (sgn) return (a * b) >> bits; /* |a*b| < 2^62: exact in int64 */
  return (int64_t)(((uint64_t)a * (uint64_t)b) >> bits);
}

static void put_elem(text *t, int i, int64_t v, bool sgn) {
  if (sgn) put(t, "%s%lld", i ? ", " : "", (long long)v);
  else put(t, "%s%llu", i ? ", " : "", (unsigned long long)v);
}

static void mulhi_case(const char *ty, unsigned bits, bool sgn) {
  enum { N = 24 };
  int64_t a[N], b[N];
  uint64_t s = bits * 977 + sgn;
  for (int i = 0; i < N; i++) {
    uint64_t ra = lcg(&s), rb = lcg(&s);
    if (bits < 64) {
      ra &= (1ull << bits) - 1;
      rb &= (1ull << bits) - 1;
    }
    if (sgn && bits < 64) {
      a[i] = (int64_t)(ra << (64 - bits)) >> (64 - bits);
      b[i] = (int64_t)(rb << (64 - bits)) >> (64 - bits);
    } else {
      a[i] = (int64_t)ra;
      b[i] = (int64_t)rb;
    }
  }
  /* the extremes: min * min, min * max, -1 * -1, max * max */
  int64_t mn = sgn ? (bits == 64 ? INT64_MIN : -(1ll << (bits - 1))) : 0;
  int64_t mx = sgn ? (bits == 64 ? INT64_MAX : (1ll << (bits - 1)) - 1) : (bits == 64 ? -1 : (int64_t)((1ull << bits) - 1));
  a[0] = mn, b[0] = mn, a[1] = mn, b[1] = mx, a[2] = -1 & (sgn ? -1 : mx), b[2] = a[2], a[3] = mx, b[3] = mx;
  text t = {0};
  put(&t, "func.func @main() -> tensor<%dx%s> {\n  %%a = stablehlo.constant dense<[", N, ty);
  for (int i = 0; i < N; i++) put_elem(&t, i, a[i], sgn);
  put(&t, "]> : tensor<%dx%s>\n  %%b = stablehlo.constant dense<[", N, ty);
  for (int i = 0; i < N; i++) put_elem(&t, i, b[i], sgn);
  put(&t, "]> : tensor<%dx%s>\n  %%0 = chlo.mulhi %%a, %%b : tensor<%dx%s>, tensor<%dx%s> -> tensor<%dx%s>\n", N, ty, N, ty, N, ty,
      N, ty);
  put(&t, "  return %%0 : tensor<%dx%s>\n}\n", N, ty);
  shl_buf res[1];
  run_ok(t.s, res);
  for (int i = 0; i < N; i++) {
    int64_t got = 0;
    memcpy(&got, (const uint8_t *)res[0].data + i * (bits / 8), bits / 8);
    if (sgn && bits < 64) got = (int64_t)((uint64_t)got << (64 - bits)) >> (64 - bits);
    int64_t want = mulhi_ref(a[i], b[i], bits, sgn);
    if (!sgn && bits < 64) want &= (int64_t)((1ull << bits) - 1);
    if (got != want) fail_msg("%s element %d: mulhi(%lld, %lld) = %lld, want %lld", ty, i, (long long)a[i], (long long)b[i],
                              (long long)got, (long long)want);
  }
  free(res[0].data);
  free(t.s);
}

static void test_mulhi(void **state) {
  (void)state;
  static const struct {
    const char *ty;
    unsigned bits;
    bool sgn;
  } cases[] = {{"i8", 8, true},   {"ui8", 8, false},  {"i16", 16, true}, {"ui16", 16, false},
               {"i32", 32, true}, {"ui32", 32, false}, {"i64", 64, true}, {"ui64", 64, false}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) mulhi_case(cases[i].ty, cases[i].bits, cases[i].sgn);
}

/* ---- chlo.ragged_dot ---- */

/* `%name = ` a constant of type `ty` holding v[0..n) (a flat literal reshaped). */
static void put_f32s(text *t, const char *name, const float *v, int n, const char *ty) {
  put(t, "  %%%s_flat = stablehlo.constant dense<[", name);
  for (int i = 0; i < n; i++) put(t, "%s%.9g", i ? ", " : "", (double)v[i]);
  put(t, "]> : tensor<%dxf32>\n  %%%s = stablehlo.reshape %%%s_flat : (tensor<%dxf32>) -> %s\n", n, name, name, n, ty);
}

static void fill(float *v, int n, uint64_t seed) {
  for (int i = 0; i < n; i++) v[i] = (float)((double)(lcg(&seed) >> 40) / (double)(1 << 24) - 0.5);
}

static void expect_close(const float *got, const double *want, int n) {
  for (int i = 0; i < n; i++)
    if (fabs((double)got[i] - want[i]) > 1e-5 * (1 + fabs(want[i])))
      fail_msg("element %d: got %.9g, want %.9g", i, (double)got[i], want[i]);
}

/* Mode 1: lhs [b=2, m=7, k=3] (ragged m), rhs [g=3, b=2, k=3, n=4], group
 * sizes per batch [2, 3]: batch 0 {2, 0, 4} (all 6 of 7 rows used, row 6
 * outside every group), batch 1 {1, 5, 1}. */
static void test_ragged_noncontracting(void **state) {
  (void)state;
  enum { B = 2, M = 7, K = 3, G = 3, N = 4 };
  float L[B * M * K], R[G * B * K * N], out[B * M * N];
  fill(L, B * M * K, 1);
  fill(R, G * B * K * N, 2);
  const int64_t gs[B][G] = {{2, 0, 4}, {1, 5, 1}};
  double want[B * M * N] = {0};
  for (int b = 0; b < B; b++) {
    int start = 0;
    for (int g = 0; g < G; g++) {
      for (int m = start; m < start + gs[b][g] && m < M; m++)
        for (int n = 0; n < N; n++) {
          double acc = 0;
          for (int k = 0; k < K; k++) acc += (double)L[(b * M + m) * K + k] * R[((g * B + b) * K + k) * N + n];
          want[(b * M + m) * N + n] = acc;
        }
      start += (int)gs[b][g];
    }
  }
  text t = {0};
  put(&t, "func.func @main() -> tensor<2x7x4xf32> {\n");
  put_f32s(&t, "l", L, B * M * K, "tensor<2x7x3xf32>");
  put_f32s(&t, "r", R, G * B * K * N, "tensor<3x2x3x4xf32>");
  put(&t, "  %%g = stablehlo.constant dense<[[2, 0, 4], [1, 5, 1]]> : tensor<2x3xi32>\n");
  put(&t, "  %%0 = \"chlo.ragged_dot\"(%%l, %%r, %%g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<"
          "lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [2], "
          "rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]>} : "
          "(tensor<2x7x3xf32>, tensor<3x2x3x4xf32>, tensor<2x3xi32>) -> tensor<2x7x4xf32>\n");
  put(&t, "  return %%0 : tensor<2x7x4xf32>\n}\n");
  shl_buf res[1];
  run_ok(t.s, res);
  memcpy(out, res[0].data, sizeof out);
  expect_close(out, want, B * M * N);
  for (int n = 0; n < N; n++) assert_true(out[(0 * M + 6) * N + n] == 0.0f); /* row outside the groups */
  free(res[0].data);
  free(t.s);
}

/* Mode 2: lhs [m=3, k=6] (ragged k), rhs [k=6, n=2] with the contracting
 * dim first in lhs order swapped (rhs is [n, k] here), group sizes [g=3]
 * {2, 3, 1}: out[g, m, n] sums k within group g only. */
static void test_ragged_contracting(void **state) {
  (void)state;
  enum { M = 3, K = 6, N = 2, G = 3 };
  float L[M * K], R[N * K], out[G * M * N];
  fill(L, M * K, 3);
  fill(R, N * K, 4);
  const int gs[G] = {2, 3, 1};
  double want[G * M * N];
  int start = 0;
  for (int g = 0; g < G; g++) {
    for (int m = 0; m < M; m++)
      for (int n = 0; n < N; n++) {
        double acc = 0;
        for (int k = start; k < start + gs[g]; k++) acc += (double)L[m * K + k] * R[n * K + k];
        want[(g * M + m) * N + n] = acc;
      }
    start += gs[g];
  }
  text t = {0};
  put(&t, "func.func @main() -> tensor<3x3x2xf32> {\n");
  put_f32s(&t, "l", L, M * K, "tensor<3x6xf32>");
  put_f32s(&t, "r", R, N * K, "tensor<2x6xf32>");
  put(&t, "  %%g = stablehlo.constant dense<[2, 3, 1]> : tensor<3xi64>\n");
  put(&t, "  %%0 = \"chlo.ragged_dot\"(%%l, %%r, %%g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<"
          "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [1]>} : "
          "(tensor<3x6xf32>, tensor<2x6xf32>, tensor<3xi64>) -> tensor<3x3x2xf32>\n");
  put(&t, "  return %%0 : tensor<3x3x2xf32>\n}\n");
  shl_buf res[1];
  run_ok(t.s, res);
  memcpy(out, res[0].data, sizeof out);
  expect_close(out, want, G * M * N);
  free(res[0].data);
  free(t.s);
}

/* Mode 3: ragged batch dim: a batched dot; group sizes play no part. */
static void test_ragged_batch(void **state) {
  (void)state;
  enum { B = 4, M = 2, K = 3, N = 2 };
  float L[B * M * K], R[B * K * N], out[B * M * N];
  fill(L, B * M * K, 5);
  fill(R, B * K * N, 6);
  double want[B * M * N];
  for (int b = 0; b < B; b++)
    for (int m = 0; m < M; m++)
      for (int n = 0; n < N; n++) {
        double acc = 0;
        for (int k = 0; k < K; k++) acc += (double)L[(b * M + m) * K + k] * R[(b * K + k) * N + n];
        want[(b * M + m) * N + n] = acc;
      }
  text t = {0};
  put(&t, "func.func @main() -> tensor<4x2x2xf32> {\n");
  put_f32s(&t, "l", L, B * M * K, "tensor<4x2x3xf32>");
  put_f32s(&t, "r", R, B * K * N, "tensor<4x3x2xf32>");
  put(&t, "  %%g = stablehlo.constant dense<[1, 3]> : tensor<2xi32>\n");
  put(&t, "  %%0 = \"chlo.ragged_dot\"(%%l, %%r, %%g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<"
          "lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], "
          "rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0]>} : "
          "(tensor<4x2x3xf32>, tensor<4x3x2xf32>, tensor<2xi32>) -> tensor<4x2x2xf32>\n");
  put(&t, "  return %%0 : tensor<4x2x2xf32>\n}\n");
  shl_buf res[1];
  run_ok(t.s, res);
  memcpy(out, res[0].data, sizeof out);
  expect_close(out, want, B * M * N);
  free(res[0].data);
  free(t.s);
}

/* ---- chlo.scan ---- */

/* Two inputs scanned along dimension 1 of [2, 5], two carries: a running
 * sum of x and a running max of y, outputs the running sum and x * carry;
 * forward and reverse, against the loop written out. */
static void scan_case(bool reverse) {
  enum { R = 2, C = 5 };
  const int32_t x[R][C] = {{1, -2, 3, 4, -5}, {6, 7, -8, 9, 10}};
  const int32_t y[R][C] = {{3, 1, 4, 1, 5}, {-9, -2, -6, -5, -3}};
  int32_t sum[R] = {100, 0}, mx[R] = {-1000, -1000}, o0[R][C], o1[R][C];
  for (int s = 0; s < C; s++) {
    int c = reverse ? C - 1 - s : s;
    for (int r = 0; r < R; r++) {
      int32_t prev = sum[r];
      sum[r] += x[r][c];
      mx[r] = y[r][c] > mx[r] ? y[r][c] : mx[r];
      o0[r][c] = sum[r];
      o1[r][c] = x[r][c] * prev;
    }
  }
  text t = {0};
  put(&t, "func.func @main() -> (tensor<2x5xi32>, tensor<2x5xi32>, tensor<2xi32>, tensor<2xi32>) {\n"
          "  %%x = stablehlo.constant dense<[[1, -2, 3, 4, -5], [6, 7, -8, 9, 10]]> : tensor<2x5xi32>\n"
          "  %%y = stablehlo.constant dense<[[3, 1, 4, 1, 5], [-9, -2, -6, -5, -3]]> : tensor<2x5xi32>\n"
          "  %%s = stablehlo.constant dense<[100, 0]> : tensor<2xi32>\n"
          "  %%m = stablehlo.constant dense<-1000> : tensor<2xi32>\n"
          "  %%0:4 = chlo.scan(%%x, %%y) inits (%%s, %%m) dimension=1 attributes {is_reverse = %s} {\n"
          "  ^bb0(%%xi: tensor<2xi32>, %%yi: tensor<2xi32>, %%cs: tensor<2xi32>, %%cm: tensor<2xi32>):\n"
          "    %%ns = stablehlo.add %%cs, %%xi : tensor<2xi32>\n"
          "    %%nm = stablehlo.maximum %%cm, %%yi : tensor<2xi32>\n"
          "    %%p = stablehlo.multiply %%xi, %%cs : tensor<2xi32>\n"
          "    stablehlo.return %%ns, %%p, %%ns, %%nm : tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>\n"
          "  } : (tensor<2x5xi32>, tensor<2x5xi32>, tensor<2xi32>, tensor<2xi32>) -> "
          "(tensor<2x5xi32>, tensor<2x5xi32>, tensor<2xi32>, tensor<2xi32>)\n"
          "  return %%0#0, %%0#1, %%0#2, %%0#3 : tensor<2x5xi32>, tensor<2x5xi32>, tensor<2xi32>, tensor<2xi32>\n}\n",
      reverse ? "true" : "false");
  shl_buf res[4];
  run_ok(t.s, res);
  assert_memory_equal(res[0].data, o0, sizeof o0);
  assert_memory_equal(res[1].data, o1, sizeof o1);
  assert_memory_equal(res[2].data, sum, sizeof sum);
  assert_memory_equal(res[3].data, mx, sizeof mx);
  for (int i = 0; i < 4; i++) free(res[i].data);
  free(t.s);
}

static void test_scan(void **state) {
  (void)state;
  scan_case(false);
  scan_case(true);
}

/* Outputs without inputs: the length comes from the outputs; a carry the
 * body returns unchanged. */
static void test_scan_no_inputs(void **state) {
  (void)state;
  const char *src = "func.func @main() -> (tensor<4xf32>, tensor<f32>, tensor<f32>) {\n"
                    "  %a = stablehlo.constant dense<1.5> : tensor<f32>\n"
                    "  %k = stablehlo.constant dense<7.0> : tensor<f32>\n"
                    "  %0:3 = chlo.scan() inits (%a, %k) dimension=0 {\n"
                    "  ^bb0(%c: tensor<f32>, %c2: tensor<f32>):\n"
                    "    %n = stablehlo.multiply %c, %c : tensor<f32>\n"
                    "    stablehlo.return %n, %n, %c2 : tensor<f32>, tensor<f32>, tensor<f32>\n"
                    "  } : (tensor<f32>, tensor<f32>) -> (tensor<4xf32>, tensor<f32>, tensor<f32>)\n"
                    "  return %0#0, %0#1, %0#2 : tensor<4xf32>, tensor<f32>, tensor<f32>\n}\n";
  shl_buf res[3];
  run_ok(src, res);
  float want[4], c = 1.5f;
  for (int i = 0; i < 4; i++) want[i] = c = c * c;
  assert_memory_equal(res[0].data, want, sizeof want);
  assert_true(*(float *)res[1].data == c);
  assert_true(*(float *)res[2].data == 7.0f);
  for (int i = 0; i < 3; i++) free(res[i].data);
}

/* ---- chlo._asin_acos_kernel ---- */

static void test_asin_acos_kernel(void **state) {
  (void)state;
  static const double z[][2] = {{0.3, 0.2}, {-0.7, 1.5}, {2.5, -0.1}, {-3, -4}, {0, 0.5}, {1e-3, -1e-3}, {1, 0}, {-2, 0}};
  enum { N = sizeof z / sizeof *z };
  text t = {0};
  put(&t, "func.func @main() -> tensor<%dxcomplex<f64>> {\n  %%z = stablehlo.constant dense<[", N);
  for (int i = 0; i < N; i++) put(&t, "%s(%.17g,%.17g)", i ? ", " : "", z[i][0], z[i][1]);
  put(&t, "]> : tensor<%dxcomplex<f64>>\n  %%0 = chlo._asin_acos_kernel %%z : tensor<%dxcomplex<f64>> -> "
          "tensor<%dxcomplex<f64>>\n  return %%0 : tensor<%dxcomplex<f64>>\n}\n",
      N, N, N, N);
  shl_buf res[1];
  run_ok(t.s, res);
  const double *w = res[0].data;
  for (int i = 0; i < N; i++) {
    double complex zz = CMPLX(z[i][0], z[i][1]), as = casin(zz), ac = cacos(zz);
    double sy = z[i][1] < 0 ? -1 : 1, wr = w[2 * i], wi = w[2 * i + 1];
    /* asin(z) = atan2(Re z, Re w) + i sign(Im z) Im w;  acos(z) = atan2(Re w, Re z) - i sign(Im z) Im w */
    assert_true(fabs(atan2(z[i][0], wr) - creal(as)) < 1e-12);
    assert_true(fabs(sy * wi - cimag(as)) < 1e-12 || (z[i][1] == 0 && fabs(wi - fabs(cimag(as))) < 1e-12));
    assert_true(fabs(atan2(wr, z[i][0]) - creal(ac)) < 1e-12);
  }
  free(res[0].data);
  free(t.s);
}

/* ---- verifier ---- */

static void expect_error(const char *src, const char *want) {
  shl_buf res[4];
  const char *err = run(src, res);
  if (!err) fail_msg("accepted, expected an error containing '%s'", want);
  if (!strstr(err, want)) fail_msg("error '%s' lacks '%s'", err, want);
}

static void test_verify_errors(void **state) {
  (void)state;
  expect_error("func.func @main(%a: tensor<4xi1>) -> tensor<4xi1> {\n"
               "  %0 = \"chlo.mulhi\"(%a, %a) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>\n"
               "  return %0 : tensor<4xi1>\n}\n",
               "'chlo.mulhi' operand #0 must be a tensor of 2/4/8/16/32/64-bit integer values");
  expect_error("func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
               "  %0 = chlo.mulhi %a, %a : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>\n"
               "  return %0 : tensor<4xf32>\n}\n",
               "integer");
  expect_error("func.func @main(%l: tensor<11x5xf32>, %r: tensor<3x5x7xf32>, %g: tensor<2xi64>) -> tensor<11x7xf32> {\n"
               "  %0 = \"chlo.ragged_dot\"(%l, %r, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<"
               "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], "
               "rhs_group_dimensions = [0]>} : (tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<2xi64>) -> tensor<11x7xf32>\n"
               "  return %0 : tensor<11x7xf32>\n}\n",
               "rhs group dimension is expected to have size=2, got 3");
  expect_error("func.func @main(%l: tensor<11x5xf32>, %r: tensor<3x5x7xf32>, %g: tensor<3xi64>) -> tensor<11x6xf32> {\n"
               "  %0 = \"chlo.ragged_dot\"(%l, %r, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<"
               "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], "
               "rhs_group_dimensions = [0]>} : (tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<3xi64>) -> tensor<11x6xf32>\n"
               "  return %0 : tensor<11x6xf32>\n}\n",
               "'chlo.ragged_dot'");
  expect_error("func.func @main(%l: tensor<11x5xf32>, %r: tensor<3x5x7xf32>, %g: tensor<3xi64>) -> tensor<11x7xf32> {\n"
               "  %0 = \"chlo.ragged_dot\"(%l, %r, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<"
               "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], "
               "rhs_group_dimensions = [0], bogus = [1]>} : (tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<3xi64>) -> "
               "tensor<11x7xf32>\n  return %0 : tensor<11x7xf32>\n}\n",
               "unknown ragged_dot field 'bogus'");
  expect_error("func.func @main(%a: tensor<2x3xf32>, %c: tensor<3xf32>) -> tensor<2x3xf32> {\n"
               "  %0:2 = chlo.scan(%a) inits (%c) dimension=2 {\n"
               "  ^bb0(%x: tensor<3xf32>, %y: tensor<3xf32>):\n"
               "    stablehlo.return %x, %y : tensor<3xf32>, tensor<3xf32>\n"
               "  } : (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>)\n"
               "  return %0#0 : tensor<2x3xf32>\n}\n",
               "'chlo.scan' scan dimension of operand 0 is out of bounds");
  expect_error("func.func @main(%a: tensor<2x3xf32>, %c: tensor<3xf32>) -> tensor<2x3xf32> {\n"
               "  %0:2 = chlo.scan(%a) inits (%c) dimension=0 {\n"
               "  ^bb0(%x: tensor<3xf32>, %y: tensor<3xf32>):\n"
               "    stablehlo.return %x, %y : tensor<3xf32>, tensor<3xf32>\n"
               "  } : (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x4xf32>, tensor<3xf32>)\n"
               "  return %0#0 : tensor<2x4xf32>\n}\n",
               "result #0");
  expect_error("func.func @main(%a: tensor<2x3xf32>, %c: tensor<3xf32>) -> tensor<2x3xf32> {\n"
               "  %0:2 = chlo.scan(%a) inits (%c) dimension=0 {\n"
               "  ^bb0(%x: tensor<3xf32>, %y: tensor<3xf32>):\n"
               "    stablehlo.return %x : tensor<3xf32>\n"
               "  } : (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>)\n"
               "  return %0#0 : tensor<2x3xf32>\n}\n",
               "body returns 1 values, but the op has 2 results");
  expect_error("func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
               "  %0 = chlo.scan(%a) inits () dimension=0 {\n"
               "  ^bb0(%x: tensor<3xf32>):\n"
               "    %1 = stablehlo.add %x, %a : tensor<3xf32>\n"
               "    stablehlo.return %1 : tensor<3xf32>\n"
               "  } : (tensor<2x3xf32>) -> tensor<2x3xf32>\n"
               "  return %0 : tensor<2x3xf32>\n}\n",
               "%a"); /* the body is isolated from above */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mulhi),
      cmocka_unit_test(test_ragged_noncontracting),
      cmocka_unit_test(test_ragged_contracting),
      cmocka_unit_test(test_ragged_batch),
      cmocka_unit_test(test_scan),
      cmocka_unit_test(test_scan_no_inputs),
      cmocka_unit_test(test_asin_acos_kernel),
      cmocka_unit_test(test_verify_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
