/* Built-in JAX targets lapack_?gees_ffi, lapack_?gehrd_ffi and
 * lapack_?sytrd_ffi/?hetrd_ffi, every type, batched and not, including 1x1
 * and empty matrices.  Checked in double precision: Schur A = Z·T·Zᴴ with Z
 * unitary and T upper triangular (complex) or quasi-triangular with
 * standardised 2x2 blocks (real), eigenvalues read off T, sdim 0; Hessenberg
 * A = Q·H·Qᴴ and tridiagonal A = Q·T·Qᴴ with Q rebuilt from the stored
 * reflectors, d and e the real diagonal and off-diagonal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lapack_harness.h"

/* Asserts M = Q·X·Qᴴ for m x m row-major Q (X given by a function). */
typedef double complex (*elem_fn)(const void *ctx, int64_t b, int64_t i, int64_t j);
static void check_similar(const lt_tensor *a, int64_t b, const double complex *q, elem_fn x, const void *ctx,
                          double tol, const char *what) {
  int64_t n = a->dims[a->rank - 1];
  double scale = lt_norm(a, b) * (double)n;
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++) {
      double complex s = 0;
      for (int64_t r = 0; r < n; r++)
        for (int64_t c = 0; c < n; c++) s += q[i * n + r] * x(ctx, b, r, c) * conj(q[j * n + c]);
      lt_near(s, lt_m(a, b, i, j), tol, scale, what, b, i, j);
    }
}

static double complex mat_elem(const void *ctx, int64_t b, int64_t i, int64_t j) { return lt_m(ctx, b, i, j); }

static void check_gees(int t, const lt_batch_shape *bs, int64_t n, char mode) {
  XLA_FFI_DataType dt = lt_types[t];
  bool cplx = lt_is_complex(dt);
  lt_tensor a = lt_batched(dt, bs->nb, bs->bd, 2, (int64_t[]){n, n}), out[6];
  lt_fill_random(&a, (uint64_t)(t * 43 + n));
  int k = 0;
  out[k++] = lt_like(&a);
  out[k++] = lt_like(&a);
  for (int w = 0; w < (cplx ? 1 : 2); w++) out[k++] = lt_batched(dt, bs->nb, bs->bd, 1, &n);
  out[k++] = lt_batched(XLA_FFI_DataType_S32, bs->nb, bs->bd, 0, NULL);
  out[k++] = lt_batched(XLA_FFI_DataType_S32, bs->nb, bs->bd, 0, NULL);
  int alias[6] = {0, -1, -1, -1, -1, -1};
  char target[32], config[48];
  snprintf(target, sizeof target, "lapack_%cgees_ffi", lt_prefix[t]);
  snprintf(config, sizeof config, "{mode = %d : ui8, sort = 78 : ui8}", mode);
  lt_call(target, config, 1, &a, k, out, alias);
  double tol = lt_tol(dt, n) * 10;
  const lt_tensor *tm = &out[0];
  for (int64_t b = 0; b < lt_batch(&a, 2); b++) {
    assert_int_equal(creal(lt_get(&out[k - 1], b)), 0);
    assert_int_equal(creal(lt_get(&out[k - 2], b)), 0);
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j < i; j++) {
        double complex v = lt_m(tm, b, i, j);
        if (cplx || j < i - 1) {
          assert_true(v == 0);
          continue;
        }
        if (v == 0) continue;
        /* a standardised 2x2 block: equal diagonal, off-diagonals of opposite sign, no neighbour block */
        assert_true(i < 2 || lt_m(tm, b, i - 1, i - 2) == 0);
        lt_near(lt_m(tm, b, i, i), lt_m(tm, b, j, j), tol, 1, "2x2 block diagonal", b, i, j);
        assert_true(creal(v) * creal(lt_m(tm, b, j, i)) < 0);
      }
    for (int64_t j = 0; j < n; j++) { /* eigenvalues from T */
      double complex w = cplx ? lt_v(&out[2], b, j) : lt_v(&out[2], b, j) + I * creal(lt_v(&out[3], b, j));
      if (cplx || cimag(w) == 0) {
        lt_near(w, lt_m(tm, b, j, j), tol, 1, "w = diag(T)", b, j, j);
      } else {
        int64_t p = cimag(w) > 0 ? j + 1 : j - 1;
        double complex prod = lt_m(tm, b, j, p) * lt_m(tm, b, p, j);
        lt_near(cimag(w) * cimag(w), -creal(prod), tol, 1, "Im w of a 2x2 block", b, j, p);
      }
    }
    if (mode == 'V') {
      double complex *z = malloc(sizeof *z * (size_t)(n * n + 1));
      for (int64_t i = 0; i < n * n; i++) z[i] = lt_m(&out[1], b, i / n, i % n);
      lt_check_unitary(z, n, n, tol, b);
      check_similar(&a, b, z, mat_elem, tm, tol, "A = Z·T·Zᴴ");
      free(z);
    }
  }
  lt_free(&a, 1);
  lt_free(out, k);
}

static void test_gees(void **state) {
  static const int64_t sizes[] = {1, 2, 5, 0, 8};
  for (int t = 0; t < 4; t++)
    for (int b = 0; b < LT_N_BATCHES; b++)
      for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        check_gees(t, &lt_batches[b], sizes[s], 'V');
        check_gees(t, &lt_batches[b], sizes[s], 'N');
      }
}

/* Upper Hessenberg part of matrix b. */
static double complex hess_elem(const void *ctx, int64_t b, int64_t i, int64_t j) {
  return i > j + 1 ? 0 : lt_m(ctx, b, i, j);
}

static void check_gehrd(int t, const lt_batch_shape *bs, int64_t n) {
  XLA_FFI_DataType dt = lt_types[t];
  int64_t nt = n > 0 ? n - 1 : 0;
  lt_tensor a = lt_batched(dt, bs->nb, bs->bd, 2, (int64_t[]){n, n});
  lt_fill_random(&a, (uint64_t)(t * 47 + n));
  lt_tensor out[3] = {lt_like(&a), lt_batched(dt, bs->nb, bs->bd, 1, &nt),
                      lt_batched(XLA_FFI_DataType_S32, bs->nb, bs->bd, 0, NULL)};
  char target[32], config[48];
  snprintf(target, sizeof target, "lapack_%cgehrd_ffi", lt_prefix[t]);
  /* JAX passes low = 1, high = n */
  snprintf(config, sizeof config, "{high = %d : i32, low = 1 : i32}", (int)n);
  lt_call(target, config, 1, &a, 3, out, (int[]){0, -1, -1});
  double tol = lt_tol(dt, n) * 4;
  for (int64_t b = 0; b < lt_batch(&a, 2); b++) {
    assert_int_equal(creal(lt_get(&out[2], b)), 0);
    double complex *q = lt_householder_q(&out[0], &out[1], b, nt, 1);
    lt_check_unitary(q, n, n, tol, b);
    check_similar(&a, b, q, hess_elem, &out[0], tol, "A = Q·H·Qᴴ");
    free(q);
  }
  lt_free(&a, 1);
  lt_free(out, 3);
}

static void test_gehrd(void **state) {
  static const int64_t sizes[] = {1, 2, 5, 0, 8};
  for (int t = 0; t < 4; t++)
    for (int b = 0; b < LT_N_BATCHES; b++)
      for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) check_gehrd(t, &lt_batches[b], sizes[s]);
}

/* The tridiagonal matrix of d and e (outputs 1 and 2). */
static double complex tri_elem(const void *ctx, int64_t b, int64_t i, int64_t j) {
  const lt_tensor *out = ctx;
  if (i == j) return lt_v(&out[1], b, i);
  if (i == j + 1) return lt_v(&out[2], b, j);
  if (j == i + 1) return lt_v(&out[2], b, i);
  return 0;
}

/* Q = H(n-1)...H(1) of sytrd 'U' (LAPACK's 1-based i): v has 1 in row i-1
 * and column i of the output above it. */
static double complex *upper_q(const lt_tensor *refl, const lt_tensor *tau, int64_t b, int64_t n) {
  double complex *q = calloc((size_t)(n * n + 1), sizeof *q), *v = calloc((size_t)n + 1, sizeof *v);
  for (int64_t i = 0; i < n; i++) q[i * n + i] = 1;
  for (int64_t i = 1; i < n; i++) { /* Q = H(i)·Q, from H(1) up to H(n-1) */
    for (int64_t r = 0; r < n; r++) v[r] = r < i - 1 ? lt_m(refl, b, r, i) : r == i - 1 ? 1 : 0;
    double complex t = lt_v(tau, b, i - 1);
    for (int64_t c = 0; c < n; c++) {
      double complex w = 0;
      for (int64_t r = 0; r < n; r++) w += conj(v[r]) * q[r * n + c];
      for (int64_t r = 0; r < n; r++) q[r * n + c] -= t * v[r] * w;
    }
  }
  free(v);
  return q;
}

static void check_sytrd(int t, const lt_batch_shape *bs, int64_t n, char uplo) {
  XLA_FFI_DataType dt = lt_types[t];
  int64_t nt = n > 0 ? n - 1 : 0;
  lt_tensor a = lt_batched(dt, bs->nb, bs->bd, 2, (int64_t[]){n, n});
  lt_fill_random(&a, (uint64_t)(t * 53 + n));
  int64_t nb = lt_batch(&a, 2);
  for (int64_t b = 0; b < nb; b++) /* Hermitian */
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j <= i; j++) {
        double complex v = i == j ? creal(lt_m(&a, b, i, j)) : lt_m(&a, b, i, j);
        lt_set(&a, (b * n + i) * n + j, v);
        lt_set(&a, (b * n + j) * n + i, conj(v));
      }
  XLA_FFI_DataType rt = lt_real_of(dt);
  lt_tensor out[5] = {lt_like(&a), lt_batched(rt, bs->nb, bs->bd, 1, &n), lt_batched(rt, bs->nb, bs->bd, 1, &nt),
                      lt_batched(dt, bs->nb, bs->bd, 1, &nt), lt_batched(XLA_FFI_DataType_S32, bs->nb, bs->bd, 0, NULL)};
  char target[32], config[32];
  snprintf(target, sizeof target, "lapack_%c%s_ffi", lt_prefix[t], t < 2 ? "sytrd" : "hetrd");
  snprintf(config, sizeof config, "{uplo = %d : ui8}", uplo);
  lt_call(target, config, 1, &a, 5, out, (int[]){0, -1, -1, -1, -1});
  double tol = lt_tol(dt, n) * 4;
  for (int64_t b = 0; b < nb; b++) {
    assert_int_equal(creal(lt_get(&out[4], b)), 0);
    for (int64_t i = 0; i < n; i++) lt_near(lt_v(&out[1], b, i), lt_m(&out[0], b, i, i), 0, 1, "d = diag", b, i, i);
    double complex *q = uplo == 'L' ? lt_householder_q(&out[0], &out[3], b, nt, 1) : upper_q(&out[0], &out[3], b, n);
    lt_check_unitary(q, n, n, tol, b);
    check_similar(&a, b, q, tri_elem, out, tol, "A = Q·T·Qᴴ");
    free(q);
  }
  lt_free(&a, 1);
  lt_free(out, 5);
}

static void test_sytrd(void **state) {
  static const int64_t sizes[] = {1, 2, 5, 0, 7};
  for (int t = 0; t < 4; t++)
    for (int b = 0; b < LT_N_BATCHES; b++)
      for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        check_sytrd(t, &lt_batches[b], sizes[s], 'L');
        check_sytrd(t, &lt_batches[b], sizes[s], 'U');
      }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gees),
      cmocka_unit_test(test_gehrd),
      cmocka_unit_test(test_sytrd),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
