/* conv_xla_rows (conv_xla.c): the order in which small convolutions sum
 * their terms, checked with known answers that tell the orders apart, and
 * random rows against a double-precision reference.
 *
 * Terms 2^24, 1, -2^24, 1 (then zeros): summed in order, 2^24 + 1 rounds
 * back to 2^24 and the result is 1; with even and odd terms in two
 * accumulators (Eigen's one- and half-packet rows, XLA:CPU's f32 path) the
 * sums are 0 and 2, so the result is 2.  Which output features take which
 * order follows Eigen's GEBP row split for 8-float packets: multiples of 24
 * then 16 in order, the next multiple of 8 and then of 4 paired, the rest
 * in order; one output position, reversed windows and f64 in order. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/kernels/conv.h"

static conv_params params(ku_ck ck, int64_t P, int64_t Kd, int64_t Cq) {
  conv_params p;
  memset(&p, 0, sizeof p);
  p.ck = ck;
  p.ns = 1;
  p.G = p.BG = p.NQ = 1;
  p.P = P;
  p.Kd = Kd;
  p.Cq = Cq;
  return p;
}

/* Every output feature's result for the terms 2^24, 1, -2^24, 1, 0... (K terms). */
static void known(int64_t P, int64_t K, int64_t Cq, bool rev, float *out) {
  conv_params p = params(CK_F32, P, K, Cq);
  p.rev[0] = rev;
  float *A = calloc((size_t)K, sizeof *A), *W = malloc((size_t)(K * Cq) * sizeof *W), acc[64];
  assert_non_null(A);
  assert_non_null(W);
  A[0] = 16777216.0f;
  A[1] = 1;
  A[2] = -16777216.0f;
  A[3] = 1;
  for (int64_t i = 0; i < K * Cq; i++) W[i] = 1;
  conv_xla_rows(&p, 1, A, W, out, Cq, acc);
  free(A);
  free(W);
}

static void test_row_classes(void **state) {
  (void)state;
  float out[32];
  known(5, 8, 4, false, out); /* 4 features: the half-packet path */
  for (int c = 0; c < 4; c++) assert_true(out[c] == 2.0f);
  known(5, 8, 12, false, out); /* 8 + 4 */
  for (int c = 0; c < 12; c++) assert_true(out[c] == 2.0f);
  known(5, 8, 16, false, out); /* the two-packet path */
  for (int c = 0; c < 16; c++) assert_true(out[c] == 1.0f);
  known(5, 8, 30, false, out); /* 24 in order, 4 paired, 2 in order */
  for (int c = 0; c < 30; c++) assert_true(out[c] == (c >= 24 && c < 28 ? 2.0f : 1.0f));
  known(5, 8, 3, false, out); /* fewer than 4: in order */
  for (int c = 0; c < 3; c++) assert_true(out[c] == 1.0f);
  known(1, 8, 4, false, out); /* one position: matrix-vector, in order */
  for (int c = 0; c < 4; c++) assert_true(out[c] == 1.0f);
  known(5, 8, 4, true, out); /* reversed window: XLA's elemental loop */
  for (int c = 0; c < 4; c++) assert_true(out[c] == 1.0f);
  /* only the first K & ~7 terms are paired: with 2^24 at k = 8 the tail sums in order */
  conv_params p = params(CK_F32, 5, 12, 4);
  float A[12] = {0, 0, 0, 0, 0, 0, 0, 0, 16777216.0f, 1, -16777216.0f, 1}, W[48], acc[8];
  for (int i = 0; i < 48; i++) W[i] = 1;
  conv_xla_rows(&p, 1, A, W, out, 4, acc);
  for (int c = 0; c < 4; c++) assert_true(out[c] == 1.0f);
}

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static double rnd(void) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(rng >> 40) / (double)(1ull << 24) * 2.0 - 1.0;
}

/* Random rows (m rows at pitch ldc > Cq) within a few roundings of the sum
 * of |terms| of the double-precision products; f64 likewise. */
static void test_random_rows(void **state) {
  (void)state;
  const int64_t shapes[][3] = {{7, 9, 4}, {5, 27, 12}, {3, 60, 3}, {9, 147, 64}, {4, 1, 5}, {6, 17, 33}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    int64_t m = shapes[s][0], K = shapes[s][1], n = shapes[s][2], ldc = n + 3;
    for (int f64 = 0; f64 < 2; f64++) {
      conv_params p = params(f64 ? CK_F64 : CK_F32, m + 1, K, n);
      size_t es = f64 ? 8 : 4;
      uint8_t *A = malloc((size_t)(m * K) * es), *W = malloc((size_t)(K * n) * es), *C = malloc((size_t)(m * ldc) * es);
      uint8_t *acc = malloc((size_t)(2 * n) * es);
      double *a = malloc((size_t)(m * K) * sizeof *a), *w = malloc((size_t)(K * n) * sizeof *w);
      assert_true(A && W && C && acc && a && w);
      for (int64_t i = 0; i < m * K; i++) {
        a[i] = rnd();
        if (f64) ((double *)A)[i] = a[i];
        else ((float *)A)[i] = (float)a[i], a[i] = (float)a[i];
      }
      for (int64_t i = 0; i < K * n; i++) {
        w[i] = rnd();
        if (f64) ((double *)W)[i] = w[i];
        else ((float *)W)[i] = (float)w[i], w[i] = (float)w[i];
      }
      conv_xla_rows(&p, m, A, W, C, ldc, acc);
      double eps = f64 ? 0x1p-52 : 0x1p-23;
      for (int64_t i = 0; i < m; i++)
        for (int64_t c = 0; c < n; c++) {
          double ref = 0, mag = 0;
          for (int64_t k = 0; k < K; k++) ref += a[i * K + k] * w[k * n + c], mag += fabs(a[i * K + k] * w[k * n + c]);
          double got = f64 ? ((double *)C)[i * ldc + c] : ((float *)C)[i * ldc + c];
          assert_true(fabs(got - ref) <= (double)(K + 1) * eps * mag);
        }
      free(A);
      free(W);
      free(C);
      free(acc);
      free(a);
      free(w);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_row_classes), cmocka_unit_test(test_random_rows)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
