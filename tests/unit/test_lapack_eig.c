/* Built-in JAX targets lapack_?syevd_ffi/?heevd_ffi and lapack_?geev_ffi,
 * every type, batched and not, including empty and 1x1 matrices.  Checked
 * in double precision: A·V = V·diag(w) with V unitary and w ascending
 * (reading only the `uplo` triangle: the other one holds garbage), values
 * alone in mode 'N'; for geev A·v_j = λ_j·v_j and u_jᴴ·A = λ_j·u_jᴴ with
 * unit columns, the real kernels' eigenvalue pairs (positive imaginary part
 * first) and the unpacking of LAPACK's packed real eigenvectors into
 * complex columns, and info = -4 for a matrix with a NaN or infinity. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lapack_harness.h"

/* Hermitian matrix from the `uplo` triangle of matrix b of a. */
static double complex herm(const lt_tensor *a, int64_t b, int64_t i, int64_t j, char uplo) {
  bool stored = uplo == 'L' ? i >= j : i <= j;
  double complex v = stored ? lt_m(a, b, i, j) : conj(lt_m(a, b, j, i));
  return i == j ? creal(v) : v;
}

static void syevd(int t, const lt_tensor *a, char mode, char uplo, lt_tensor *out) {
  int64_t n = a->dims[a->rank - 1];
  out[0] = lt_like(a);
  out[1] = lt_batched(lt_real_of(a->dt), a->rank - 2, a->dims, 1, &n);
  out[2] = lt_batched(XLA_FFI_DataType_S32, a->rank - 2, a->dims, 0, NULL);
  char target[32], config[64];
  snprintf(target, sizeof target, "lapack_%c%s_ffi", lt_prefix[t], t < 2 ? "syevd" : "heevd");
  snprintf(config, sizeof config, "{mode = %d : ui8, uplo = %d : ui8}", mode, uplo);
  lt_call(target, config, 1, a, 3, out, (int[]){0, -1, -1});
}

static void check_syevd(int t, const lt_batch_shape *bs, int64_t n, char uplo) {
  XLA_FFI_DataType dt = lt_types[t];
  lt_tensor a = lt_batched(dt, bs->nb, bs->bd, 2, (int64_t[]){n, n}), out[3], vals[3];
  lt_fill_random(&a, (uint64_t)(t * 31 + n + uplo));
  syevd(t, &a, 'V', uplo, out);
  syevd(t, &a, 'N', uplo, vals);
  double tol = lt_tol(dt, n);
  for (int64_t b = 0; b < lt_batch(&a, 2); b++) {
    assert_int_equal(creal(lt_get(&out[2], b)), 0);
    assert_int_equal(creal(lt_get(&vals[2], b)), 0);
    double scale = lt_norm(&a, b) * (double)n;
    for (int64_t j = 0; j < n; j++) {
      double w = creal(lt_v(&out[1], b, j));
      if (j) assert_true(w >= creal(lt_v(&out[1], b, j - 1)));
      lt_near(lt_v(&vals[1], b, j), w, tol, scale, "values only", b, j, 0);
      for (int64_t i = 0; i < n; i++) {
        double complex av = 0, vv = 0;
        for (int64_t r = 0; r < n; r++) {
          av += herm(&a, b, i, r, uplo) * lt_m(&out[0], b, r, j);
          vv += conj(lt_m(&out[0], b, r, i)) * lt_m(&out[0], b, r, j);
        }
        lt_near(av, w * lt_m(&out[0], b, i, j), tol, scale, "A·v = w·v", b, i, j);
        lt_near(vv, i == j, tol, 1, "VᴴV = I", b, i, j);
      }
    }
  }
  lt_free(&a, 1);
  lt_free(out, 3);
  lt_free(vals, 3);
}

static void test_syevd(void **state) {
  static const int64_t sizes[] = {1, 2, 5, 0, 9};
  for (int t = 0; t < 4; t++)
    for (int b = 0; b < LT_N_BATCHES; b++)
      for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        check_syevd(t, &lt_batches[b], sizes[s], 'L');
        check_syevd(t, &lt_batches[b], sizes[s], 'U');
      }
}

/* Runs geev; out: real w_re, w_im, vl, vr, info / complex w, vl, vr, info. */
static int geev(int t, const lt_tensor *a, char left, char right, lt_tensor *out) {
  int64_t n = a->dims[a->rank - 1];
  bool cplx = lt_is_complex(a->dt);
  int nw = cplx ? 1 : 2, k = 0;
  for (; k < nw; k++) out[k] = lt_batched(a->dt, a->rank - 2, a->dims, 1, &n);
  out[k++] = lt_batched(lt_complex_of(a->dt), a->rank - 2, a->dims, 2, (int64_t[]){n, n});
  out[k++] = lt_batched(lt_complex_of(a->dt), a->rank - 2, a->dims, 2, (int64_t[]){n, n});
  out[k++] = lt_batched(XLA_FFI_DataType_S32, a->rank - 2, a->dims, 0, NULL);
  char target[32], config[80];
  snprintf(target, sizeof target, "lapack_%cgeev_ffi", lt_prefix[t]);
  snprintf(config, sizeof config, "{compute_left = %d : ui8, compute_right = %d : ui8}", left, right);
  /* geev has no output_operand_aliases */
  lt_call(target, config, 1, a, k, out, NULL);
  return k;
}

static double complex eigval(const lt_tensor *out, bool cplx, int64_t b, int64_t j) {
  return cplx ? lt_v(&out[0], b, j) : lt_v(&out[0], b, j) + I * creal(lt_v(&out[1], b, j));
}

static void check_geev(int t, const lt_batch_shape *bs, int64_t n) {
  XLA_FFI_DataType dt = lt_types[t];
  bool cplx = lt_is_complex(dt);
  lt_tensor a = lt_batched(dt, bs->nb, bs->bd, 2, (int64_t[]){n, n}), out[5];
  lt_fill_random(&a, (uint64_t)(t * 37 + n));
  int k = geev(t, &a, 'V', 'V', out), nw = cplx ? 1 : 2;
  const lt_tensor *vl = &out[nw], *vr = &out[nw + 1];
  double tol = lt_tol(dt, n) * 10;
  for (int64_t b = 0; b < lt_batch(&a, 2); b++) {
    assert_int_equal(creal(lt_get(&out[k - 1], b)), 0);
    double scale = lt_norm(&a, b) * (double)n;
    for (int64_t j = 0; j < n; j++) {
      double complex w = eigval(out, cplx, b, j);
      if (!cplx && cimag(w) > 0) { /* a pair: conjugates, positive imaginary part first */
        assert_true(j + 1 < n);
        lt_near(eigval(out, cplx, b, j + 1), conj(w), 0, 1, "conjugate pair", b, j, 0);
      }
      double nr = 0, nl = 0;
      for (int64_t i = 0; i < n; i++) {
        double complex av = 0, ua = 0;
        for (int64_t r = 0; r < n; r++) {
          av += lt_m(&a, b, i, r) * lt_m(vr, b, r, j);
          ua += conj(lt_m(vl, b, r, j)) * lt_m(&a, b, r, i);
        }
        lt_near(av, w * lt_m(vr, b, i, j), tol, scale, "A·v = λ·v", b, i, j);
        lt_near(ua, w * conj(lt_m(vl, b, i, j)), tol, scale, "uᴴ·A = λ·uᴴ", b, i, j);
        nr += pow(cabs(lt_m(vr, b, i, j)), 2);
        nl += pow(cabs(lt_m(vl, b, i, j)), 2);
      }
      lt_near(nr, 1, tol, 1, "|v| = 1", b, j, 0);
      lt_near(nl, 1, tol, 1, "|u| = 1", b, j, 0);
    }
  }
  lt_free(&a, 1);
  lt_free(out, k);
}

static void test_geev(void **state) {
  static const int64_t sizes[] = {1, 2, 4, 0, 7};
  for (int t = 0; t < 4; t++)
    for (int b = 0; b < LT_N_BATCHES; b++)
      for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) check_geev(t, &lt_batches[b], sizes[s]);
}

/* A rotation has eigenvalues ±i with eigenvectors (1, ∓i)/√2: the real
 * kernels must unpack LAPACK's (re, im) column pair into v and conj(v). */
static void test_geev_rotation(void **state) {
  for (int t = 0; t < 2; t++) {
    lt_tensor a = LT(lt_types[t], 2, 2), out[5];
    lt_alloc(&a);
    lt_set(&a, 1, -1);
    lt_set(&a, 2, 1); /* [[0, -1], [1, 0]] */
    geev(t, &a, 'N', 'V', out);
    double tol = lt_tol(lt_types[t], 2);
    lt_near(eigval(out, false, 0, 0), I, tol, 1, "λ_0", 0, 0, 0);
    lt_near(eigval(out, false, 0, 1), -I, tol, 1, "λ_1", 0, 1, 0);
    /* v_0 is a multiple of (1, -i); v_1 its conjugate */
    double complex v00 = lt_m(&out[3], 0, 0, 0), v10 = lt_m(&out[3], 0, 1, 0);
    lt_near(v10, -I * v00, tol, 1, "v_0", 0, 1, 0);
    lt_near(lt_m(&out[3], 0, 0, 1), conj(v00), tol, 1, "v_1 = conj(v_0)", 0, 0, 1);
    lt_near(lt_m(&out[3], 0, 1, 1), conj(v10), tol, 1, "v_1 = conj(v_0)", 0, 1, 1);
    lt_free(&a, 1);
    lt_free(out, 5);
  }
}

/* A NaN or an infinity in a matrix: info = -4 for it, the others decompose. */
static void test_geev_nonfinite(void **state) {
  for (int t = 0; t < 4; t++) {
    lt_tensor a = LT(lt_types[t], 3, 2, 2), out[5];
    lt_fill_random(&a, 5);
    lt_set(&a, 1, NAN);
    lt_set(&a, 8 + 3, lt_is_complex(a.dt) ? 1 + I * INFINITY : INFINITY);
    int k = geev(t, &a, 'V', 'V', out);
    assert_int_equal(((int32_t *)out[k - 1].data)[0], -4);
    assert_int_equal(((int32_t *)out[k - 1].data)[1], 0);
    assert_int_equal(((int32_t *)out[k - 1].data)[2], -4);
    lt_free(&a, 1);
    lt_free(out, k);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_syevd),
      cmocka_unit_test(test_geev),
      cmocka_unit_test(test_geev_rotation),
      cmocka_unit_test(test_geev_nonfinite),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
