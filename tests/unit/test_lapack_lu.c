/* Built-in JAX targets lapack_?getrf_ffi and lapack_?potrf_ffi, every type,
 * unbatched, batched and empty: P·A = L·U from the stored 1-based pivots
 * (LAPACK's row-interchange convention, partial pivoting), info for singular input; L·Lᴴ = A (or Uᴴ·U) for Cholesky with
 * the other triangle left as it was, info for a matrix that is not positive
 * definite.  All checked in double precision against the inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lapack_harness.h"

static double cabs1(double complex z) { return fabs(creal(z)) + fabs(cimag(z)); }

static void check_getrf(int t, const lt_batch_shape *bs, int64_t m, int64_t n) {
  XLA_FFI_DataType dt = lt_types[t];
  int64_t k = m < n ? m : n;
  lt_tensor a = lt_batched(dt, bs->nb, bs->bd, 2, (int64_t[]){m, n});
  lt_fill_random(&a, (uint64_t)(t * 100 + m * 10 + n));
  lt_tensor out[3] = {lt_batched(dt, bs->nb, bs->bd, 2, (int64_t[]){m, n}),
                      lt_batched(XLA_FFI_DataType_S32, bs->nb, bs->bd, 1, &k),
                      lt_batched(XLA_FFI_DataType_S32, bs->nb, bs->bd, 0, NULL)};
  char target[32];
  snprintf(target, sizeof target, "lapack_%cgetrf_ffi", lt_prefix[t]);
  lt_call(target, "{}", 1, &a, 3, out, (int[]){0, -1, -1});
  double tol = lt_tol(dt, m + n);
  int64_t nb = lt_batch(&a, 2);
  double complex *pa = malloc(sizeof *pa * (size_t)(m * n + 1));
  for (int64_t b = 0; b < nb; b++) {
    assert_int_equal(creal(lt_get(&out[2], b)), 0);
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) pa[i * n + j] = lt_m(&a, b, i, j);
    for (int64_t i = 0; i < k; i++) {
      int p = (int)creal(lt_v(&out[1], b, i));
      /* 1-based, at or below the current row; the pivot has the largest
       * |re|+|im| of what is left of the column, so |l| <= 1 (real) or
       * sqrt(2) (complex) */
      assert_true(p >= i + 1 && p <= m);
      for (int64_t r = i + 1; r < m; r++)
        assert_true(cabs(lt_m(&out[0], b, r, i)) <= (lt_is_complex(dt) ? sqrt(2) : 1) + tol);
      for (int64_t j = 0; j < n; j++) {
        double complex s = pa[i * n + j];
        pa[i * n + j] = pa[(p - 1) * n + j];
        pa[(p - 1) * n + j] = s;
      }
    }
    /* the first pivot row is the first largest |re|+|im| of column 0 (i?amax) */
    int64_t best = 0;
    for (int64_t r = 1; r < m && k > 0; r++)
      if (cabs1(lt_m(&a, b, r, 0)) > cabs1(lt_m(&a, b, best, 0))) best = r;
    if (k > 0) assert_int_equal(creal(lt_v(&out[1], b, 0)), best + 1);
    double scale = lt_norm(&a, b);
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
        double complex s = 0;
        for (int64_t q = 0; q <= (i < j ? i : j) && q < k; q++)
          s += (q == i ? 1 : lt_m(&out[0], b, i, q)) * lt_m(&out[0], b, q, j);
        lt_near(s, pa[i * n + j], tol, scale, "P·A = L·U", b, i, j);
      }
  }
  free(pa);
  lt_free(&a, 1);
  lt_free(out, 3);
}

static void test_getrf(void **state) {
  static const int64_t shapes[][2] = {{3, 3}, {5, 3}, {3, 5}, {1, 1}, {0, 0}, {2, 0}, {0, 2}, {8, 8}};
  for (int t = 0; t < 4; t++)
    for (int b = 0; b < LT_N_BATCHES; b++)
      for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) check_getrf(t, &lt_batches[b], shapes[s][0], shapes[s][1]);
}

/* A zero column: info is the 1-based index of the first zero pivot, > 0. */
static void test_getrf_singular(void **state) {
  for (int t = 0; t < 4; t++) {
    lt_tensor a = LT(lt_types[t], 2, 2, 2);
    lt_alloc(&a);
    lt_set(&a, 0, 1);
    lt_set(&a, 2, 2);      /* [[1, 0], [2, 0]] */
    lt_set(&a, 4, 1);      /* second matrix: [[1, 1], [1, 1]] */
    lt_set(&a, 5, 1);
    lt_set(&a, 6, 1);
    lt_set(&a, 7, 1);
    lt_tensor out[3] = {LT(lt_types[t], 2, 2, 2), LT(XLA_FFI_DataType_S32, 2, 2), LT(XLA_FFI_DataType_S32, 2)};
    char target[32];
    snprintf(target, sizeof target, "lapack_%cgetrf_ffi", lt_prefix[t]);
    lt_call(target, "{}", 1, &a, 3, out, (int[]){0, -1, -1});
    assert_int_equal(((int32_t *)out[2].data)[0], 2);
    assert_int_equal(((int32_t *)out[2].data)[1], 2);
    /* first column pivots on row 2 (|2| > |1|) */
    assert_int_equal(((int32_t *)out[1].data)[0], 2);
    lt_free(&a, 1);
    lt_free(out, 3);
  }
}

/* A = B·Bᴴ + n·I, Hermitian positive definite. */
static void fill_hpd(lt_tensor *a, uint64_t seed) {
  int64_t n = a->dims[a->rank - 1], nb = lt_batch(a, 2);
  lt_tensor bm = *a;
  lt_fill_random(&bm, seed);
  lt_alloc(a);
  for (int64_t b = 0; b < nb; b++)
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j < n; j++) {
        double complex s = i == j ? (double)n : 0;
        for (int64_t q = 0; q < n; q++) s += lt_m(&bm, b, i, q) * conj(lt_m(&bm, b, j, q));
        lt_set(a, b * n * n + i * n + j, i == j ? creal(s) : s);
      }
  free(bm.data);
}

static void check_potrf(int t, const lt_batch_shape *bs, int64_t n, char uplo) {
  XLA_FFI_DataType dt = lt_types[t];
  lt_tensor a = lt_batched(dt, bs->nb, bs->bd, 2, (int64_t[]){n, n});
  fill_hpd(&a, (uint64_t)(t + 7 * n));
  lt_tensor out[2] = {lt_like(&a), lt_batched(XLA_FFI_DataType_S32, bs->nb, bs->bd, 0, NULL)};
  char target[32], config[32];
  snprintf(target, sizeof target, "lapack_%cpotrf_ffi", lt_prefix[t]);
  snprintf(config, sizeof config, "{uplo = %d : ui8}", uplo);
  lt_call(target, config, 1, &a, 2, out, (int[]){0, -1});
  double tol = lt_tol(dt, n);
  for (int64_t b = 0; b < lt_batch(&a, 2); b++) {
    assert_int_equal(creal(lt_get(&out[1], b)), 0);
    double scale = lt_norm(&a, b);
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j < n; j++) {
        bool in_tri = uplo == 'L' ? j <= i : j >= i;
        if (!in_tri) { /* the other triangle is untouched */
          lt_near(lt_m(&out[0], b, i, j), lt_m(&a, b, i, j), 0, 1, "other triangle", b, i, j);
          continue;
        }
        if (i == j) assert_true(creal(lt_m(&out[0], b, i, i)) > 0 && cimag(lt_m(&out[0], b, i, i)) == 0);
        double complex s = 0; /* (L Lᴴ)_ij or (Uᴴ U)_ij */
        for (int64_t q = 0; q < n; q++) {
          if (uplo == 'L' && q <= j) s += lt_m(&out[0], b, i, q) * conj(lt_m(&out[0], b, j, q));
          if (uplo == 'U' && q <= i) s += conj(lt_m(&out[0], b, q, i)) * lt_m(&out[0], b, q, j);
        }
        lt_near(s, lt_m(&a, b, i, j), tol, scale, "Cholesky product", b, i, j);
      }
  }
  lt_free(&a, 1);
  lt_free(out, 2);
}

static void test_potrf(void **state) {
  static const int64_t sizes[] = {1, 3, 6, 0};
  for (int t = 0; t < 4; t++)
    for (int b = 0; b < LT_N_BATCHES; b++)
      for (size_t s = 0; s < 4; s++) {
        check_potrf(t, &lt_batches[b], sizes[s], 'L');
        check_potrf(t, &lt_batches[b], sizes[s], 'U');
      }
}

/* -I is not positive definite: info 1, for each matrix of the batch. */
static void test_potrf_not_pd(void **state) {
  for (int t = 0; t < 4; t++) {
    lt_tensor a = LT(lt_types[t], 3, 2, 2);
    lt_alloc(&a);
    for (int b = 0; b < 3; b++) lt_set(&a, b * 4, -1), lt_set(&a, b * 4 + 3, b == 1 ? 1 : -1);
    lt_set(&a, 4, 4); /* matrix 1: [[4, 0], [0, 1]] is fine */
    lt_tensor out[2] = {lt_like(&a), LT(XLA_FFI_DataType_S32, 3)};
    char target[32];
    snprintf(target, sizeof target, "lapack_%cpotrf_ffi", lt_prefix[t]);
    lt_call(target, "{uplo = 76 : ui8}", 1, &a, 2, out, (int[]){0, -1});
    assert_int_equal(((int32_t *)out[1].data)[0], 1);
    assert_int_equal(((int32_t *)out[1].data)[1], 0);
    assert_int_equal(((int32_t *)out[1].data)[2], 1);
    assert_true(cabs(lt_get(&out[0], 4) - 2) < 1e-6);
    lt_free(&a, 1);
    lt_free(out, 2);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_getrf),
      cmocka_unit_test(test_getrf_singular),
      cmocka_unit_test(test_potrf),
      cmocka_unit_test(test_potrf_not_pd),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
