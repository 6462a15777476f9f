/* Built-in JAX targets lapack_?gesdd_ffi and lapack_?gesvd_ffi, every type
 * and mode ('A' full, 'S' economy, 'N' values only), batched and not,
 * including 1x1 and empty matrices.  Checked in double precision: singular
 * values non-negative and descending, U and Vᴴ with orthonormal columns /
 * rows, A = U·diag(s)·Vᴴ, the same values in mode 'N'. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lapack_harness.h"

static void svd(const char *routine, int t, const lt_tensor *a, char mode, bool full, lt_tensor *out) {
  int64_t m = a->dims[a->rank - 2], n = a->dims[a->rank - 1], k = m < n ? m : n;
  int nb = a->rank - 2;
  out[0] = lt_like(a);
  out[1] = lt_batched(lt_real_of(a->dt), nb, a->dims, 1, &k);
  out[2] = lt_batched(a->dt, nb, a->dims, 2, (int64_t[]){m, full ? m : k});
  out[3] = lt_batched(a->dt, nb, a->dims, 2, (int64_t[]){full ? n : k, n});
  out[4] = lt_batched(XLA_FFI_DataType_S32, nb, a->dims, 0, NULL);
  char target[32], config[32];
  snprintf(target, sizeof target, "lapack_%c%s_ffi", lt_prefix[t], routine);
  snprintf(config, sizeof config, "{mode = %d : ui8}", mode);
  lt_call(target, config, 1, a, 5, out, (int[]){0, -1, -1, -1, -1});
}

static void check_svd(const char *routine, int t, const lt_batch_shape *bs, int64_t m, int64_t n, char mode) {
  XLA_FFI_DataType dt = lt_types[t];
  int64_t k = m < n ? m : n;
  lt_tensor a = lt_batched(dt, bs->nb, bs->bd, 2, (int64_t[]){m, n}), out[5], vals[5];
  lt_fill_random(&a, (uint64_t)(t * 41 + m * 3 + n));
  svd(routine, t, &a, mode, mode == 'A', out);
  svd(routine, t, &a, 'N', mode == 'A', vals);
  double tol = lt_tol(dt, m + n) * 4;
  int64_t ur = m, uc = out[2].dims[out[2].rank - 1], vr = out[3].dims[out[3].rank - 2];
  for (int64_t b = 0; b < lt_batch(&a, 2); b++) {
    assert_int_equal(creal(lt_get(&out[4], b)), 0);
    assert_int_equal(creal(lt_get(&vals[4], b)), 0);
    double scale = lt_norm(&a, b) * (double)(m + n);
    for (int64_t j = 0; j < k; j++) {
      double s = creal(lt_v(&out[1], b, j));
      assert_true(s >= 0 && cimag(lt_v(&out[1], b, j)) == 0);
      if (j) assert_true(s <= creal(lt_v(&out[1], b, j - 1)));
      lt_near(lt_v(&vals[1], b, j), s, tol, scale, "values only", b, j, 0);
    }
    for (int64_t i = 0; i < uc; i++) /* UᴴU = I */
      for (int64_t j = 0; j < uc; j++) {
        double complex s = 0;
        for (int64_t r = 0; r < ur; r++) s += conj(lt_m(&out[2], b, r, i)) * lt_m(&out[2], b, r, j);
        lt_near(s, i == j, tol, 1, "UᴴU = I", b, i, j);
      }
    for (int64_t i = 0; i < vr; i++) /* Vᴴ (Vᴴ)ᴴ = I */
      for (int64_t j = 0; j < vr; j++) {
        double complex s = 0;
        for (int64_t r = 0; r < n; r++) s += lt_m(&out[3], b, i, r) * conj(lt_m(&out[3], b, j, r));
        lt_near(s, i == j, tol, 1, "VᴴV = I", b, i, j);
      }
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
        double complex s = 0;
        for (int64_t r = 0; r < k; r++) s += lt_m(&out[2], b, i, r) * lt_v(&out[1], b, r) * lt_m(&out[3], b, r, j);
        lt_near(s, lt_m(&a, b, i, j), tol, scale, "A = U·S·Vᴴ", b, i, j);
      }
  }
  lt_free(&a, 1);
  lt_free(out, 5);
  lt_free(vals, 5);
}

static void run_all(const char *routine) {
  static const int64_t shapes[][2] = {{4, 3}, {3, 5}, {3, 3}, {1, 1}, {6, 1}};
  for (int t = 0; t < 4; t++)
    for (int b = 0; b < LT_N_BATCHES; b++)
      for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        check_svd(routine, t, &lt_batches[b], shapes[s][0], shapes[s][1], 'A');
        check_svd(routine, t, &lt_batches[b], shapes[s][0], shapes[s][1], 'S');
      }
}

static void test_gesdd(void **state) { run_all("gesdd"); }
static void test_gesvd(void **state) { run_all("gesvd"); }

/* JAX lowers empty matrices without a call; a call still must not fail. */
static void test_svd_empty(void **state) {
  for (int t = 0; t < 4; t++) {
    lt_tensor a = LT(lt_types[t], 2, 0, 3), out[5];
    lt_alloc(&a);
    svd("gesdd", t, &a, 'S', false, out);
    lt_free(out, 5);
    svd("gesvd", t, &a, 'N', true, out);
    lt_free(out, 5);
    lt_free(&a, 1);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gesdd),
      cmocka_unit_test(test_gesvd),
      cmocka_unit_test(test_svd_empty),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
