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

static void expect_close(const void *data, const double *want, int n) {
  const float *got = data;
  for (int i = 0; i < n; i++)
    if (fabs((double)got[i] - want[i]) > 1e-5 * (1 + fabs(want[i])))
      fail_msg("element %d: got %.9g, want %.9g", i, (double)got[i], want[i]);
}

/* Mode 1: lhs [B, M, K] (ragged M), rhs [G, B, K, N], group sizes per batch
 * [B, G]; rows past the groups stay zero. */
static void ragged_noncontracting(int B, int M, int K, int G, int N, const int64_t *gs) {
  float *L = malloc(sizeof *L * (size_t)(B * M * K)), *R = malloc(sizeof *R * (size_t)(G * B * K * N));
  double *want = calloc((size_t)(B * M * N), sizeof *want);
  assert_true(L && R && want);
  fill(L, B * M * K, 1);
  fill(R, G * B * K * N, 2);
  for (int b = 0; b < B; b++) {
    int start = 0;
    for (int g = 0; g < G; g++) {
      /* group g's rows; with a negative size the ranges can overlap, and a
       * row in two groups gets both products (the reference masks per group
       * and adds the products up) */
      for (int m = start < 0 ? 0 : start; m < start + gs[b * G + g] && m < M; m++)
        for (int n = 0; n < N; n++) {
          double acc = 0;
          for (int k = 0; k < K; k++) acc += (double)L[(b * M + m) * K + k] * R[((g * B + b) * K + k) * N + n];
          want[(b * M + m) * N + n] += acc;
        }
      start += (int)gs[b * G + g];
    }
  }
  char lt[64], rt[64], ot[64], gt[64];
  snprintf(lt, sizeof lt, "tensor<%dx%dx%dxf32>", B, M, K);
  snprintf(rt, sizeof rt, "tensor<%dx%dx%dx%dxf32>", G, B, K, N);
  snprintf(ot, sizeof ot, "tensor<%dx%dx%dxf32>", B, M, N);
  snprintf(gt, sizeof gt, "tensor<%dx%dxi64>", B, G);
  text t = {0};
  put(&t, "func.func @main() -> %s {\n", ot);
  put_f32s(&t, "l", L, B * M * K, lt);
  put_f32s(&t, "r", R, G * B * K * N, rt);
  put(&t, "  %%g = stablehlo.constant dense<[");
  for (int b = 0; b < B; b++) {
    put(&t, "%s[", b ? ", " : "");
    for (int g = 0; g < G; g++) put(&t, "%s%lld", g ? ", " : "", (long long)gs[b * G + g]);
    put(&t, "]");
  }
  put(&t, "]> : %s\n", gt);
  put(&t, "  %%0 = \"chlo.ragged_dot\"(%%l, %%r, %%g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<"
          "lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [2], "
          "rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]>} : "
          "(%s, %s, %s) -> %s\n  return %%0 : %s\n}\n",
      lt, rt, gt, ot, ot);
  shl_buf res[1];
  run_ok(t.s, res);
  expect_close(res[0].data, want, B * M * N);
  free(res[0].data);
  free(t.s);
  free(L);
  free(R);
  free(want);
}

static void test_ragged_noncontracting(void **state) {
  (void)state;
  /* batch 0: {2, 0, 4} leaves row 6 outside every group; batch 1: {1, 5, 1} */
  const int64_t small[] = {2, 0, 4, 1, 5, 1};
  ragged_noncontracting(2, 7, 3, 3, 4, small);
  /* large enough for ?gemm; a negative size (overlapping ranges) takes the loops */
  const int64_t large[] = {20, 0, 30, 5, 10, 40};
  ragged_noncontracting(2, 64, 32, 3, 24, large);
  const int64_t negative[] = {30, -10, 30, 5, 10, 40};
  ragged_noncontracting(2, 64, 32, 3, 24, negative);
}

/* Mode 2: lhs [M, K] (ragged K), rhs [N, K], group sizes [G]: out[g, m, n]
 * sums k within group g only. */
static void ragged_contracting(int M, int K, int N, int G, const int64_t *gs) {
  float *L = malloc(sizeof *L * (size_t)(M * K)), *R = malloc(sizeof *R * (size_t)(N * K));
  double *want = calloc((size_t)(G * M * N), sizeof *want);
  assert_true(L && R && want);
  fill(L, M * K, 3);
  fill(R, N * K, 4);
  int start = 0;
  for (int g = 0; g < G; g++) {
    for (int m = 0; m < M; m++)
      for (int n = 0; n < N; n++) {
        double acc = 0;
        for (int k = start < 0 ? 0 : start; k < start + gs[g] && k < K; k++) acc += (double)L[m * K + k] * R[n * K + k];
        want[(g * M + m) * N + n] = acc;
      }
    start += (int)gs[g];
  }
  char lt[64], rt[64], ot[64], gt[64];
  snprintf(lt, sizeof lt, "tensor<%dx%dxf32>", M, K);
  snprintf(rt, sizeof rt, "tensor<%dx%dxf32>", N, K);
  snprintf(ot, sizeof ot, "tensor<%dx%dx%dxf32>", G, M, N);
  snprintf(gt, sizeof gt, "tensor<%dxi64>", G);
  text t = {0};
  put(&t, "func.func @main() -> %s {\n", ot);
  put_f32s(&t, "l", L, M * K, lt);
  put_f32s(&t, "r", R, N * K, rt);
  put(&t, "  %%g = stablehlo.constant dense<[");
  for (int g = 0; g < G; g++) put(&t, "%s%lld", g ? ", " : "", (long long)gs[g]);
  put(&t, "]> : %s\n", gt);
  put(&t, "  %%0 = \"chlo.ragged_dot\"(%%l, %%r, %%g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<"
          "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [1]>} : "
          "(%s, %s, %s) -> %s\n  return %%0 : %s\n}\n",
      lt, rt, gt, ot, ot);
  shl_buf res[1];
  run_ok(t.s, res);
  expect_close(res[0].data, want, G * M * N);
  free(res[0].data);
  free(t.s);
  free(L);
  free(R);
  free(want);
}

static void test_ragged_contracting(void **state) {
  (void)state;
  const int64_t small[] = {2, 3, 1};
  ragged_contracting(3, 6, 2, 3, small);
  const int64_t large[] = {10, 0, 30, 20}; /* 60 of 64 columns: the last 4 in no group */
  ragged_contracting(40, 64, 20, 4, large);
}

/* Mode 3: ragged batch dim: a batched dot; group sizes play no part. */
static void ragged_batch(int B, int M, int K, int N) {
  float *L = malloc(sizeof *L * (size_t)(B * M * K)), *R = malloc(sizeof *R * (size_t)(B * K * N));
  double *want = calloc((size_t)(B * M * N), sizeof *want);
  assert_true(L && R && want);
  fill(L, B * M * K, 5);
  fill(R, B * K * N, 6);
  for (int b = 0; b < B; b++)
    for (int m = 0; m < M; m++)
      for (int n = 0; n < N; n++) {
        double acc = 0;
        for (int k = 0; k < K; k++) acc += (double)L[(b * M + m) * K + k] * R[(b * K + k) * N + n];
        want[(b * M + m) * N + n] = acc;
      }
  char lt[64], rt[64], ot[64];
  snprintf(lt, sizeof lt, "tensor<%dx%dx%dxf32>", B, M, K);
  snprintf(rt, sizeof rt, "tensor<%dx%dx%dxf32>", B, K, N);
  snprintf(ot, sizeof ot, "tensor<%dx%dx%dxf32>", B, M, N);
  text t = {0};
  put(&t, "func.func @main() -> %s {\n", ot);
  put_f32s(&t, "l", L, B * M * K, lt);
  put_f32s(&t, "r", R, B * K * N, rt);
  put(&t, "  %%g = stablehlo.constant dense<[1, 3]> : tensor<2xi32>\n");
  put(&t, "  %%0 = \"chlo.ragged_dot\"(%%l, %%r, %%g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<"
          "lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], "
          "rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0]>} : (%s, %s, tensor<2xi32>) -> %s\n"
          "  return %%0 : %s\n}\n",
      lt, rt, ot, ot);
  shl_buf res[1];
  run_ok(t.s, res);
  expect_close(res[0].data, want, B * M * N);
  free(res[0].data);
  free(t.s);
  free(L);
  free(R);
  free(want);
}

static void test_ragged_batch(void **state) {
  (void)state;
  ragged_batch(4, 2, 3, 2);
  ragged_batch(3, 40, 32, 30);
}

/* General layouts: a direct evaluation of the definition over multi-indices
 * (no canonical layout), for dimension orders the cases above do not use. */
typedef struct {
  int lrank, rrank, grank;
  int64_t ld[4], rd[4], gd[4];
  int nb, nc, ngrp;
  int64_t lb[4], rb[4], lc[4], rc[4], lr, rg;
} rd_case;

static bool has(const int64_t *v, int n, int64_t x) {
  for (int i = 0; i < n; i++)
    if (v[i] == x) return true;
  return false;
}

static int64_t flat(const int64_t *dims, const int64_t *idx, int rank) {
  int64_t o = 0;
  for (int i = 0; i < rank; i++) o = o * dims[i] + idx[i];
  return o;
}

/* Is position `pos` in group j of group_sizes row `row` (mask semantics)? */
static bool in_group(const rd_case *c, const int64_t *gs, int64_t row, int64_t j, int64_t pos) {
  int64_t G = c->gd[c->grank - 1], start = 0;
  const int64_t *g = gs + (c->grank > 1 ? row * G : 0);
  for (int64_t i = 0; i < j; i++) start += g[i];
  return pos >= start && pos < start + g[j];
}

static void ragged_general(const rd_case *c, const float *L, const float *R, const int64_t *gs, double *out,
                           int64_t *n_out) {
  bool batch = has(c->lb, c->nb, c->lr), contracting = !batch && has(c->lc, c->nc, c->lr);
  int64_t G = c->gd[c->grank - 1];
  int lfree[4], rfree[4], nlf = 0, nrf = 0;
  for (int d = 0; d < c->lrank; d++)
    if (!has(c->lb, c->nb, d) && !has(c->lc, c->nc, d)) lfree[nlf++] = d;
  for (int d = 0; d < c->rrank; d++)
    if (!has(c->rb, c->nb, d) && !has(c->rc, c->nc, d) && !(c->ngrp && d == c->rg)) rfree[nrf++] = d;
  /* output dims: [g], batch, lhs free, rhs free */
  int64_t od[8];
  int orank = 0;
  if (contracting) od[orank++] = G;
  for (int i = 0; i < c->nb; i++) od[orank++] = c->ld[c->lb[i]];
  for (int i = 0; i < nlf; i++) od[orank++] = c->ld[lfree[i]];
  for (int i = 0; i < nrf; i++) od[orank++] = c->rd[rfree[i]];
  int64_t total = 1, kt = 1;
  for (int i = 0; i < orank; i++) total *= od[i];
  for (int i = 0; i < c->nc; i++) kt *= c->ld[c->lc[i]];
  for (int64_t e = 0; e < total; e++) {
    int64_t oi[8], rem = e;
    for (int i = orank - 1; i >= 0; i--) oi[i] = rem % od[i], rem /= od[i];
    int at = contracting ? 1 : 0;
    int64_t li[4] = {0}, ri[4] = {0};
    for (int i = 0; i < c->nb; i++, at++) li[c->lb[i]] = ri[c->rb[i]] = oi[at];
    for (int i = 0; i < nlf; i++, at++) li[lfree[i]] = oi[at];
    for (int i = 0; i < nrf; i++, at++) ri[rfree[i]] = oi[at];
    double acc = 0;
    for (int64_t k = 0; k < kt; k++) {
      int64_t kr = k;
      for (int i = c->nc - 1; i >= 0; i--) {
        int64_t v = kr % c->ld[c->lc[i]];
        kr /= c->ld[c->lc[i]];
        li[c->lc[i]] = ri[c->rc[i]] = v;
      }
      /* group_sizes row: batch coords (before the ragged one when it is a
       * batch dim), then x: contracting coords before it (mode 2) or free
       * coords before it (mode 1) */
      int64_t pre[8], pd[8];
      int np = 0;
      for (int i = 0; i < c->nb && !(batch && c->lb[i] == c->lr); i++) pre[np] = li[c->lb[i]], pd[np++] = c->ld[c->lb[i]];
      for (int i = 0; contracting && c->lc[i] != c->lr; i++) pre[np] = li[c->lc[i]], pd[np++] = c->ld[c->lc[i]];
      for (int d = 0; !batch && !contracting && d < c->lr; d++)
        if (!has(c->lb, c->nb, d) && !has(c->lc, c->nc, d)) pre[np] = li[d], pd[np++] = c->ld[d];
      int64_t row = flat(pd, pre, np);
      double lv = L[flat(c->ld, li, c->lrank)];
      if (batch) {
        acc += lv * R[flat(c->rd, ri, c->rrank)];
      } else if (contracting) {
        if (in_group(c, gs, row, oi[0], li[c->lr])) acc += lv * R[flat(c->rd, ri, c->rrank)];
      } else {
        for (int64_t j = 0; j < G; j++) {
          if (!in_group(c, gs, row, j, li[c->lr])) continue;
          ri[c->rg] = j;
          acc += lv * R[flat(c->rd, ri, c->rrank)];
        }
      }
    }
    out[e] = acc;
  }
  *n_out = total;
}

static void put_dims(text *t, const int64_t *d, int rank, const char *ety) {
  put(t, "tensor<");
  for (int i = 0; i < rank; i++) put(t, "%lldx", (long long)d[i]);
  put(t, "%s>", ety);
}

static void put_list(text *t, const char *name, const int64_t *v, int n, bool *first) {
  if (!n) return;
  put(t, "%s%s = [", *first ? "" : ", ", name);
  for (int i = 0; i < n; i++) put(t, "%s%lld", i ? ", " : "", (long long)v[i]);
  put(t, "]");
  *first = false;
}

static void run_ragged_case(const rd_case *c, const int64_t *gs, uint64_t seed) {
  int64_t nl = 1, nr = 1, ng = 1;
  for (int i = 0; i < c->lrank; i++) nl *= c->ld[i];
  for (int i = 0; i < c->rrank; i++) nr *= c->rd[i];
  for (int i = 0; i < c->grank; i++) ng *= c->gd[i];
  float *L = malloc(sizeof *L * (size_t)nl), *R = malloc(sizeof *R * (size_t)nr);
  double *want = malloc(sizeof *want * 4096);
  assert_true(L && R && want);
  fill(L, (int)nl, seed);
  fill(R, (int)nr, seed + 1);
  int64_t n_out = 0;
  ragged_general(c, L, R, gs, want, &n_out);
  text t = {0}, lt = {0}, rt = {0}, gt = {0};
  put_dims(&lt, c->ld, c->lrank, "f32");
  put_dims(&rt, c->rd, c->rrank, "f32");
  put_dims(&gt, c->gd, c->grank, "i32");
  put(&t, "func.func @main() -> tensor<%lldxf32> {\n", (long long)n_out);
  put_f32s(&t, "l", L, (int)nl, lt.s);
  put_f32s(&t, "r", R, (int)nr, rt.s);
  put(&t, "  %%g0 = stablehlo.constant dense<[");
  for (int64_t i = 0; i < ng; i++) put(&t, "%s%lld", i ? ", " : "", (long long)gs[i]);
  put(&t, "]> : tensor<%lldxi32>\n  %%g = stablehlo.reshape %%g0 : (tensor<%lldxi32>) -> %s\n", (long long)ng, (long long)ng,
      gt.s);
  put(&t, "  %%0 = \"chlo.ragged_dot\"(%%l, %%r, %%g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<");
  bool first = true;
  put_list(&t, "lhs_batching_dimensions", c->lb, c->nb, &first);
  put_list(&t, "rhs_batching_dimensions", c->rb, c->nb, &first);
  put_list(&t, "lhs_contracting_dimensions", c->lc, c->nc, &first);
  put_list(&t, "rhs_contracting_dimensions", c->rc, c->nc, &first);
  put_list(&t, "lhs_ragged_dimensions", &c->lr, 1, &first);
  put_list(&t, "rhs_group_dimensions", &c->rg, c->ngrp, &first);
  put(&t, ">} : (%s, %s, %s) -> tensor<", lt.s, rt.s, gt.s);
  /* result type from the verifier's rule; the test flattens it */
  bool batch = has(c->lb, c->nb, c->lr), contracting = !batch && has(c->lc, c->nc, c->lr);
  if (contracting) put(&t, "%lldx", (long long)c->gd[c->grank - 1]);
  for (int i = 0; i < c->nb; i++) put(&t, "%lldx", (long long)c->ld[c->lb[i]]);
  for (int d = 0; d < c->lrank; d++)
    if (!has(c->lb, c->nb, d) && !has(c->lc, c->nc, d)) put(&t, "%lldx", (long long)c->ld[d]);
  for (int d = 0; d < c->rrank; d++)
    if (!has(c->rb, c->nb, d) && !has(c->rc, c->nc, d) && !(c->ngrp && d == c->rg)) put(&t, "%lldx", (long long)c->rd[d]);
  put(&t, "f32>\n  %%1 = stablehlo.reshape %%0 : (");
  put(&t, "tensor<");
  if (contracting) put(&t, "%lldx", (long long)c->gd[c->grank - 1]);
  for (int i = 0; i < c->nb; i++) put(&t, "%lldx", (long long)c->ld[c->lb[i]]);
  for (int d = 0; d < c->lrank; d++)
    if (!has(c->lb, c->nb, d) && !has(c->lc, c->nc, d)) put(&t, "%lldx", (long long)c->ld[d]);
  for (int d = 0; d < c->rrank; d++)
    if (!has(c->rb, c->nb, d) && !has(c->rc, c->nc, d) && !(c->ngrp && d == c->rg)) put(&t, "%lldx", (long long)c->rd[d]);
  put(&t, "f32>) -> tensor<%lldxf32>\n  return %%1 : tensor<%lldxf32>\n}\n", (long long)n_out, (long long)n_out);
  shl_buf res[1];
  run_ok(t.s, res);
  expect_close(res[0].data, want, (int)n_out);
  free(res[0].data);
  free(t.s);
  free(lt.s);
  free(rt.s);
  free(gt.s);
  free(L);
  free(R);
  free(want);
}

static void test_ragged_layouts(void **state) {
  (void)state;
  /* mode 1 with an x prefix: lhs [x=2, m=5, k=3], rhs [g=2, k=3, n=4], group_sizes [x, g] */
  const rd_case a = {.lrank = 3, .rrank = 3, .grank = 2, .ld = {2, 5, 3}, .rd = {2, 3, 4}, .gd = {2, 2},
                     .nc = 1, .lc = {2}, .rc = {1}, .lr = 1, .ngrp = 1, .rg = 0};
  const int64_t ga[] = {2, 3, 4, 1};
  run_ragged_case(&a, ga, 11);
  /* mode 1, contracting dim first and the group dim in the middle: lhs [k=3, m=6], rhs [n=2, g=2, k=3] */
  const rd_case b = {.lrank = 2, .rrank = 3, .grank = 1, .ld = {3, 6}, .rd = {2, 2, 3}, .gd = {2},
                     .nc = 1, .lc = {0}, .rc = {2}, .lr = 1, .ngrp = 1, .rg = 1};
  const int64_t gb[] = {4, 2};
  run_ragged_case(&b, gb, 12);
  /* mode 2 with a batch dim and an x prefix (a contracting dim before the ragged one):
   * lhs [b=2, m=3, k1=2, k2=4], rhs [b=2, k1=2, k2=4, n=3], group_sizes [b, k1, g=3] */
  const rd_case c = {.lrank = 4, .rrank = 4, .grank = 3, .ld = {2, 3, 2, 4}, .rd = {2, 2, 4, 3}, .gd = {2, 2, 3},
                     .nb = 1, .lb = {0}, .rb = {0}, .nc = 2, .lc = {2, 3}, .rc = {1, 2}, .lr = 3};
  const int64_t gc[] = {1, 2, 1, 0, 4, 0, 3, 0, 1, 2, 2, 0};
  run_ragged_case(&c, gc, 13);
  /* mode 3 with the ragged batch dim second of two */
  const rd_case d = {.lrank = 4, .rrank = 4, .grank = 1, .ld = {2, 3, 2, 2}, .rd = {3, 2, 2, 2}, .gd = {2},
                     .nb = 2, .lb = {0, 1}, .rb = {1, 0}, .nc = 1, .lc = {3}, .rc = {2}, .lr = 1};
  const int64_t gd[] = {1, 2};
  run_ragged_case(&d, gd, 14);
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

/* A body that swaps its two carries and outputs the first: the carries
 * alternate (a, b), (b, a), ... */
static void test_scan_swap(void **state) {
  (void)state;
  const char *src = "func.func @main() -> (tensor<3xi32>, tensor<i32>, tensor<i32>) {\n"
                    "  %x = stablehlo.constant dense<[10, 20, 30]> : tensor<3xi32>\n"
                    "  %a = stablehlo.constant dense<1> : tensor<i32>\n"
                    "  %b = stablehlo.constant dense<2> : tensor<i32>\n"
                    "  %0:3 = chlo.scan(%x) inits (%a, %b) dimension=0 {\n"
                    "  ^bb0(%xi: tensor<i32>, %p: tensor<i32>, %q: tensor<i32>):\n"
                    "    %s = stablehlo.add %xi, %p : tensor<i32>\n"
                    "    stablehlo.return %s, %q, %p : tensor<i32>, tensor<i32>, tensor<i32>\n"
                    "  } : (tensor<3xi32>, tensor<i32>, tensor<i32>) -> (tensor<3xi32>, tensor<i32>, tensor<i32>)\n"
                    "  return %0#0, %0#1, %0#2 : tensor<3xi32>, tensor<i32>, tensor<i32>\n}\n";
  shl_buf res[3];
  run_ok(src, res);
  int32_t p = 1, q = 2, want[3];
  const int32_t x[3] = {10, 20, 30};
  for (int i = 0; i < 3; i++) {
    want[i] = x[i] + p;
    int32_t t = p;
    p = q;
    q = t;
  }
  assert_memory_equal(res[0].data, want, sizeof want);
  assert_int_equal(*(int32_t *)res[1].data, p);
  assert_int_equal(*(int32_t *)res[2].data, q);
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
               "  %0:2 = \"chlo.scan\"(%a, %c) <{dimension = 0 : i32, operandSegmentSizes = array<i32: 1, 1>, "
               "resultSegmentSizes = array<i32: 1, 1>}> ({\n"
               "  ^bb0(%x: tensor<3xf32>, %y: tensor<3xf32>):\n"
               "    stablehlo.return %x, %y : tensor<3xf32>, tensor<3xf32>\n"
               "  }) : (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>)\n"
               "  return %0#0 : tensor<2x3xf32>\n}\n",
               "attribute 'dimension' must be a 64-bit integer");
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
      cmocka_unit_test(test_ragged_layouts),
      cmocka_unit_test(test_scan),
      cmocka_unit_test(test_scan_no_inputs),
      cmocka_unit_test(test_scan_swap),
      cmocka_unit_test(test_asin_acos_kernel),
      cmocka_unit_test(test_verify_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
