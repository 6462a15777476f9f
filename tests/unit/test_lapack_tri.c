/* Built-in JAX targets lapack_?trsm_ffi, lapack_?gtsv_ffi and
 * tridiagonal_solve_perturbed_ffi, every type, batched and not, including
 * 1x1 and empty systems.  Checked in double precision: op(A)·X = B or
 * X·op(A) = B for every side/uplo/transpose/diag, reading only the `uplo`
 * triangle (and not the diagonal for 'U'); T·x = b for the tridiagonal
 * solvers with JAX's padding (dl[0], du[n-1]) holding garbage; gtsv's info
 * for a singular system; finite answers from the perturbed solver where
 * gtsv reports a zero pivot, and its known answer for a zero 1x1 pivot. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <float.h>

#include "lapack_harness.h"

/* op(A)_ij for the triangle `uplo` of matrix b, with a unit diagonal for 'U'. */
static double complex op_a(const lt_tensor *a, int64_t b, int64_t i, int64_t j, char uplo, char trans, char diag) {
  if (trans != 'N') {
    int64_t s = i;
    i = j;
    j = s;
  }
  double complex v = i == j ? (diag == 'U' ? 1 : lt_m(a, b, i, j)) : (uplo == 'L') == (i > j) ? lt_m(a, b, i, j) : 0;
  return trans == 'C' ? conj(v) : v;
}

static void check_trsm(int t, const lt_batch_shape *bs, int64_t m, int64_t n, char side, char uplo, char trans,
                       char diag) {
  XLA_FFI_DataType dt = lt_types[t];
  int64_t k = side == 'L' ? m : n;
  lt_tensor in[2] = {lt_batched(dt, bs->nb, bs->bd, 2, (int64_t[]){k, k}),
                     lt_batched(dt, bs->nb, bs->bd, 2, (int64_t[]){m, n})};
  lt_fill_random(&in[0], (uint64_t)(t + m + n + side + uplo + trans + diag));
  lt_fill_random(&in[1], (uint64_t)(t * 3 + 1));
  int64_t nb = lt_batch(&in[1], 2);
  for (int64_t b = 0; b < nb; b++) /* a well-conditioned triangle */
    for (int64_t i = 0; i < k; i++) lt_set(&in[0], (b * k + i) * k + i, lt_m(&in[0], b, i, i) + (double)k + 2);
  lt_tensor x = lt_like(&in[1]);
  char target[32], config[96];
  snprintf(target, sizeof target, "lapack_%ctrsm_ffi", lt_prefix[t]);
  snprintf(config, sizeof config, "{diag = %d : ui8, side = %d : ui8, trans_x = %d : ui8, uplo = %d : ui8}", diag,
           side, trans, uplo);
  lt_call(target, config, 2, in, 1, &x, (int[]){1});
  double tol = lt_tol(dt, m + n);
  for (int64_t b = 0; b < nb; b++) {
    double scale = lt_norm(&in[1], b) * (double)k;
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
        double complex s = 0;
        for (int64_t r = 0; r < k; r++)
          s += side == 'L' ? op_a(&in[0], b, i, r, uplo, trans, diag) * lt_m(&x, b, r, j)
                           : lt_m(&x, b, i, r) * op_a(&in[0], b, r, j, uplo, trans, diag);
        lt_near(s, lt_m(&in[1], b, i, j), tol, scale, side == 'L' ? "op(A)·X = B" : "X·op(A) = B", b, i, j);
      }
  }
  lt_free(in, 2);
  lt_free(&x, 1);
}

static void test_trsm(void **state) {
  static const int64_t shapes[][2] = {{3, 2}, {1, 1}, {0, 3}, {4, 0}, {5, 5}};
  static const char sides[] = "LR", uplos[] = "LU", transs[] = "NTC", diags[] = "NU";
  for (int t = 0; t < 4; t++)
    for (int b = 0; b < LT_N_BATCHES; b++)
      for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (int c = 0; c < 2 * 2 * 3 * 2; c++)
          check_trsm(t, &lt_batches[b], shapes[s][0], shapes[s][1], sides[c % 2], uplos[c / 2 % 2], transs[c / 4 % 3],
                     diags[c / 12]);
}

/* Exports of older JAX pass alpha as a third operand: X = op(A)⁻¹·(alpha·B). */
static void test_trsm_alpha(void **state) {
  for (int t = 0; t < 4; t++) {
    XLA_FFI_DataType dt = lt_types[t];
    lt_tensor in[3] = {LT(dt, 2, 2), LT(dt, 2, 1), LT0(dt)}, x = LT(dt, 2, 1);
    for (int i = 0; i < 3; i++) lt_alloc(&in[i]);
    lt_set(&in[0], 0, 2);
    lt_set(&in[0], 2, 1);
    lt_set(&in[0], 3, 4); /* [[2, 0], [1, 4]] lower */
    lt_set(&in[1], 0, 2);
    lt_set(&in[1], 1, 9);
    lt_set(&in[2], 0, lt_is_complex(dt) ? 3 * I : 3);
    char target[32];
    snprintf(target, sizeof target, "lapack_%ctrsm_ffi", lt_prefix[t]);
    lt_call(target, "{diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}", 3, in, 1, &x,
            (int[]){1});
    double complex alpha = lt_get(&in[2], 0); /* [[2, 0], [1, 4]] x = alpha (2, 9): x = alpha (1, 2) */
    lt_near(lt_get(&x, 0), alpha, 1e-6, 1, "x_0", 0, 0, 0);
    lt_near(lt_get(&x, 1), 2 * alpha, 1e-6, 1, "x_1", 0, 1, 0);
    lt_free(in, 3);
    lt_free(&x, 1);
  }
}

/* Operands dl, d, du [b.., n] and rhs [b.., n, k]: random, diagonally
 * dominant unless `singular` (then d = 0, dl = du = 0: a zero matrix). */
static void tridiag_operands(int t, const lt_batch_shape *bs, int64_t n, int64_t k, bool singular, lt_tensor *in) {
  XLA_FFI_DataType dt = lt_types[t];
  for (int i = 0; i < 3; i++) {
    in[i] = lt_batched(dt, bs->nb, bs->bd, 1, &n);
    lt_fill_random(&in[i], (uint64_t)(t * 59 + i + n));
  }
  in[3] = lt_batched(dt, bs->nb, bs->bd, 2, (int64_t[]){n, k});
  lt_fill_random(&in[3], (uint64_t)(t + k));
  for (int64_t i = 0; i < lt_count(&in[1]); i++) {
    if (singular) {
      lt_set(&in[0], i, i % n == 0 ? 7 : 0); /* padding keeps garbage */
      lt_set(&in[1], i, 0);
      lt_set(&in[2], i, i % n == n - 1 ? 7 : 0);
    } else {
      lt_set(&in[1], i, lt_get(&in[1], i) + 3);
    }
  }
}

/* Asserts T·x = b with T from dl[1:], d, du[:n-1]. */
static void check_tridiag_solution(const lt_tensor *in, const lt_tensor *x, const char *what) {
  int64_t n = in[1].dims[in[1].rank - 1], k = in[3].dims[in[3].rank - 1];
  double tol = lt_tol(in[1].dt, n) * 4;
  for (int64_t b = 0; b < lt_batch(&in[1], 1); b++)
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j < k; j++) {
        double complex s = lt_v(&in[1], b, i) * lt_m(x, b, i, j);
        if (i > 0) s += lt_v(&in[0], b, i) * lt_m(x, b, i - 1, j);
        if (i + 1 < n) s += lt_v(&in[2], b, i) * lt_m(x, b, i + 1, j);
        lt_near(s, lt_m(&in[3], b, i, j), tol, 4, what, b, i, j);
      }
}

static void check_gtsv(int t, const lt_batch_shape *bs, int64_t n, int64_t k) {
  lt_tensor in[4], out[5];
  tridiag_operands(t, bs, n, k, false, in);
  for (int i = 0; i < 4; i++) out[i] = lt_like(&in[i]);
  out[4] = lt_batched(XLA_FFI_DataType_S32, bs->nb, bs->bd, 0, NULL);
  char target[32];
  snprintf(target, sizeof target, "lapack_%cgtsv_ffi", lt_prefix[t]);
  lt_call(target, "{}", 4, in, 5, out, (int[]){0, 1, 2, 3, -1});
  for (int64_t b = 0; b < lt_count(&out[4]); b++) assert_int_equal(creal(lt_get(&out[4], b)), 0);
  check_tridiag_solution(in, &out[3], "gtsv T·x = b");
  lt_free(in, 4);
  lt_free(out, 5);
}

static void check_perturbed(int t, const lt_batch_shape *bs, int64_t n, int64_t k, bool singular) {
  lt_tensor in[4], x;
  tridiag_operands(t, bs, n, k, singular, in);
  x = lt_like(&in[3]);
  lt_call("tridiagonal_solve_perturbed_ffi", "{}", 4, in, 1, &x, NULL);
  if (singular) {
    for (int64_t i = 0; i < lt_count(&x); i++) assert_true(isfinite(creal(lt_get(&x, i))) && isfinite(cimag(lt_get(&x, i))));
  } else {
    check_tridiag_solution(in, &x, "perturbed T·x = b");
  }
  lt_free(in, 4);
  lt_free(&x, 1);
}

static void test_gtsv(void **state) {
  static const int64_t shapes[][2] = {{5, 2}, {1, 1}, {2, 3}, {0, 2}, {4, 0}, {9, 1}};
  for (int t = 0; t < 4; t++)
    for (int b = 0; b < LT_N_BATCHES; b++)
      for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        check_gtsv(t, &lt_batches[b], shapes[s][0], shapes[s][1]);
        check_perturbed(t, &lt_batches[b], shapes[s][0], shapes[s][1], false);
        if (shapes[s][0] > 0) check_perturbed(t, &lt_batches[b], shapes[s][0], shapes[s][1], true);
      }
}

/* A zero matrix: gtsv reports the first zero pivot (info 1). */
static void test_gtsv_singular(void **state) {
  for (int t = 0; t < 4; t++) {
    lt_tensor in[4], out[5];
    tridiag_operands(t, &lt_batches[1], 3, 2, true, in);
    for (int i = 0; i < 4; i++) out[i] = lt_like(&in[i]);
    out[4] = LT(XLA_FFI_DataType_S32, 2);
    char target[32];
    snprintf(target, sizeof target, "lapack_%cgtsv_ffi", lt_prefix[t]);
    lt_call(target, "{}", 4, in, 5, out, (int[]){0, 1, 2, 3, -1});
    assert_int_equal(((int32_t *)out[4].data)[0], 1);
    assert_int_equal(((int32_t *)out[4].data)[1], 1);
    lt_free(in, 4);
    lt_free(out, 5);
  }
}

/* Known answer of the perturbed solver for 0·x = 1: the zero pivot becomes
 * LAPACK's safe minimum (the smallest normal number), so x = 1 / FLT_MIN
 * (or DBL_MIN); a 1x1 system 4·x = 2 is solved exactly. */
static void test_perturbed_known(void **state) {
  for (int t = 0; t < 4; t++) {
    XLA_FFI_DataType dt = lt_types[t];
    lt_tensor in[4] = {LT(dt, 2, 1), LT(dt, 2, 1), LT(dt, 2, 1), LT(dt, 2, 1, 1)}, x = LT(dt, 2, 1, 1);
    for (int i = 0; i < 4; i++) lt_alloc(&in[i]);
    lt_set(&in[1], 1, 4);
    lt_set(&in[3], 0, 1);
    lt_set(&in[3], 1, 2);
    lt_call("tridiagonal_solve_perturbed_ffi", "{}", 4, in, 1, &x, NULL);
    double want = 1 / (lt_is_single(dt) ? (double)FLT_MIN : DBL_MIN);
    lt_near(lt_get(&x, 0), want, 1e-6, want, "0·x = 1", 0, 0, 0);
    lt_near(lt_get(&x, 1), 0.5, 0, 1, "4·x = 2", 1, 0, 0);
    lt_free(in, 4);
    lt_free(&x, 1);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_trsm),
      cmocka_unit_test(test_trsm_alpha),
      cmocka_unit_test(test_gtsv),
      cmocka_unit_test(test_gtsv_singular),
      cmocka_unit_test(test_perturbed_known),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
