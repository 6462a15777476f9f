/* Built-in JAX targets lapack_?geqrf_ffi, lapack_?orgqr_ffi/?ungqr_ffi,
 * lapack_?geqp3_ffi and lapack_?ormqr_ffi/?unmqr_ffi, every type, batched
 * and not, including empty and 1x1 matrices.  The test rebuilds Q in double
 * precision from the stored Householder vectors and tau (H_i = I - tau_i
 * v_i v_iᴴ, v_i = e_i + the part below the diagonal) and checks A = Q·R,
 * QᴴQ = I, LAPACK's sign convention R_00 = -sign(Re a_00)·|a_:0| and tau's
 * range, the column permutation of geqp3, and op(Q)·C of ormqr. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lapack_harness.h"

static void geqrf(int t, const lt_tensor *a, lt_tensor *out) {
  int64_t m = a->dims[a->rank - 2], n = a->dims[a->rank - 1], k = m < n ? m : n;
  out[0] = lt_like(a);
  out[1] = lt_batched(a->dt, a->rank - 2, a->dims, 1, &k);
  char target[32];
  snprintf(target, sizeof target, "lapack_%cgeqrf_ffi", lt_prefix[t]);
  lt_call(target, "{}", 1, a, 2, out, (int[]){0, -1});
}

static void check_geqrf(int t, const lt_batch_shape *bs, int64_t m, int64_t n) {
  XLA_FFI_DataType dt = lt_types[t];
  int64_t k = m < n ? m : n;
  lt_tensor a = lt_batched(dt, bs->nb, bs->bd, 2, (int64_t[]){m, n}), out[2];
  lt_fill_random(&a, (uint64_t)(3 * t + 5 * m + n));
  geqrf(t, &a, out);
  double tol = lt_tol(dt, m + n);
  for (int64_t b = 0; b < lt_batch(&a, 2); b++) {
    double complex *q = lt_householder_q(&out[0], &out[1], b, k, 0);
    lt_check_unitary(q, m, m, tol, b);
    double scale = lt_norm(&a, b);
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
        double complex s = 0;
        for (int64_t r = 0; r <= j && r < m; r++) s += q[i * m + r] * lt_m(&out[0], b, r, j);
        lt_near(s, lt_m(&a, b, i, j), tol, scale, "A = Q·R", b, i, j);
      }
    if (k > 0 && m > 1) {
      /* LAPACK's reflector: beta = -sign(Re alpha)·norm, real; tau in [1, 2] (real) or |tau - 1| <= 1 */
      double norm = 0;
      for (int64_t r = 0; r < m; r++) norm += pow(cabs(lt_m(&a, b, r, 0)), 2);
      double complex r00 = lt_m(&out[0], b, 0, 0);
      lt_near(r00, -copysign(sqrt(norm), creal(lt_m(&a, b, 0, 0))), tol, 1, "R_00 sign", b, 0, 0);
      double complex t0 = lt_v(&out[1], b, 0);
      if (lt_is_complex(dt))
        assert_true(cabs(t0 - 1) <= 1 + tol);
      else
        assert_true(creal(t0) >= 1 - tol && creal(t0) <= 2 + tol);
    }
    free(q);
  }
  lt_free(&a, 1);
  lt_free(out, 2);
}

static void test_geqrf(void **state) {
  static const int64_t shapes[][2] = {{4, 3}, {3, 4}, {3, 3}, {1, 1}, {0, 0}, {3, 0}, {0, 3}, {7, 5}};
  for (int t = 0; t < 4; t++)
    for (int b = 0; b < LT_N_BATCHES; b++)
      for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) check_geqrf(t, &lt_batches[b], shapes[s][0], shapes[s][1]);
}

/* QR as jnp.linalg.qr exports it: geqrf, then orgqr/ungqr on a_out (padded
 * with zero columns to m x m when `full`) and the same tau. */
static void check_orgqr(int t, const lt_batch_shape *bs, int64_t m, int64_t n, bool full) {
  XLA_FFI_DataType dt = lt_types[t];
  int64_t k = n, qn = full ? m : n;
  lt_tensor a = lt_batched(dt, bs->nb, bs->bd, 2, (int64_t[]){m, n}), out[2];
  lt_fill_random(&a, (uint64_t)(11 * t + m + 3 * n + full));
  geqrf(t, &a, out);
  lt_tensor in[2] = {lt_batched(dt, bs->nb, bs->bd, 2, (int64_t[]){m, qn}), out[1]};
  lt_alloc(&in[0]);
  int64_t nb = lt_batch(&a, 2);
  for (int64_t b = 0; b < nb; b++)
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) lt_set(&in[0], (b * m + i) * qn + j, lt_m(&out[0], b, i, j));
  lt_tensor q = lt_like(&in[0]);
  char target[32];
  snprintf(target, sizeof target, "lapack_%c%s_ffi", lt_prefix[t], t < 2 ? "orgqr" : "ungqr");
  lt_call(target, "{}", 2, in, 1, &q, (int[]){0});
  double tol = lt_tol(dt, m + n);
  for (int64_t b = 0; b < nb; b++) {
    double complex *ref = lt_householder_q(&out[0], &out[1], b, k, 0);
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < qn; j++) lt_near(lt_m(&q, b, i, j), ref[i * m + j], tol, 1, "orgqr Q", b, i, j);
    free(ref);
  }
  lt_free(&a, 1);
  lt_free(out, 2);
  lt_free(in, 1);
  lt_free(&q, 1);
}

static void test_orgqr(void **state) {
  static const int64_t shapes[][2] = {{4, 3}, {3, 3}, {1, 1}, {0, 0}, {3, 0}, {6, 2}};
  for (int t = 0; t < 4; t++)
    for (int b = 0; b < LT_N_BATCHES; b++)
      for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        check_orgqr(t, &lt_batches[b], shapes[s][0], shapes[s][1], false);
        check_orgqr(t, &lt_batches[b], shapes[s][0], shapes[s][1], true);
      }
}

/* A·P = Q·R with P from the 1-based jpvt; |R_ii| non-increasing; a column
 * marked nonzero in jpvt on input is moved to the front. */
static void check_geqp3(int t, const lt_batch_shape *bs, int64_t m, int64_t n, bool fix_last) {
  XLA_FFI_DataType dt = lt_types[t];
  int64_t k = m < n ? m : n;
  lt_tensor in[2] = {lt_batched(dt, bs->nb, bs->bd, 2, (int64_t[]){m, n}),
                     lt_batched(XLA_FFI_DataType_S32, bs->nb, bs->bd, 1, &n)};
  lt_fill_random(&in[0], (uint64_t)(t + 13 * m + n));
  lt_alloc(&in[1]);
  int64_t nb = lt_batch(&in[0], 2);
  if (fix_last && n > 0)
    for (int64_t b = 0; b < nb; b++) lt_set(&in[1], b * n + n - 1, 1);
  lt_tensor out[3] = {lt_like(&in[0]), lt_like(&in[1]), lt_batched(dt, bs->nb, bs->bd, 1, &k)};
  char target[32];
  snprintf(target, sizeof target, "lapack_%cgeqp3_ffi", lt_prefix[t]);
  lt_call(target, "{}", 2, in, 3, out, (int[]){0, 1, -1});
  double tol = lt_tol(dt, m + n);
  for (int64_t b = 0; b < nb; b++) {
    double complex *q = lt_householder_q(&out[0], &out[2], b, k, 0);
    lt_check_unitary(q, m, m, tol, b);
    double scale = lt_norm(&in[0], b);
    bool seen[16] = {false};
    for (int64_t j = 0; j < n; j++) {
      int p = (int)creal(lt_v(&out[1], b, j));
      assert_true(p >= 1 && p <= n && !seen[p - 1]);
      seen[p - 1] = true;
      if (fix_last && j == 0) assert_int_equal(p, n);
      for (int64_t i = 0; i < m; i++) {
        double complex s = 0;
        for (int64_t r = 0; r <= j && r < m; r++) s += q[i * m + r] * lt_m(&out[0], b, r, j);
        lt_near(s, lt_m(&in[0], b, i, p - 1), tol, scale, "A·P = Q·R", b, i, j);
      }
    }
    for (int64_t i = fix_last ? 2 : 1; i < k; i++)
      assert_true(cabs(lt_m(&out[0], b, i, i)) <= cabs(lt_m(&out[0], b, i - 1, i - 1)) * (1 + tol));
    free(q);
  }
  lt_free(in, 2);
  lt_free(out, 3);
}

static void test_geqp3(void **state) {
  static const int64_t shapes[][2] = {{5, 4}, {3, 5}, {1, 1}, {0, 0}, {4, 4}};
  for (int t = 0; t < 4; t++)
    for (int b = 0; b < LT_N_BATCHES; b++)
      for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        check_geqp3(t, &lt_batches[b], shapes[s][0], shapes[s][1], false);
        check_geqp3(t, &lt_batches[b], shapes[s][0], shapes[s][1], true);
      }
}

/* c_out = op(Q)·C (left) or C·op(Q) (right) for Q of order nq from geqrf of
 * an nq x ka matrix, checked against Q built from the reflectors. */
static void check_ormqr(int t, const lt_batch_shape *bs, int64_t m, int64_t n, int64_t ka, bool left, bool trans) {
  XLA_FFI_DataType dt = lt_types[t];
  int64_t nq = left ? m : n, k = nq < ka ? nq : ka;
  lt_tensor a = lt_batched(dt, bs->nb, bs->bd, 2, (int64_t[]){nq, ka}), qr[2];
  lt_fill_random(&a, (uint64_t)(t + m + 7 * n + 17 * ka));
  geqrf(t, &a, qr);
  lt_tensor in[3] = {qr[0], qr[1], lt_batched(dt, bs->nb, bs->bd, 2, (int64_t[]){m, n})};
  lt_fill_random(&in[2], (uint64_t)(t + 99));
  lt_tensor out = lt_like(&in[2]);
  char target[32], config[64];
  snprintf(target, sizeof target, "lapack_%c%s_ffi", lt_prefix[t], t < 2 ? "ormqr" : "unmqr");
  snprintf(config, sizeof config, "{left = %s, transpose = %s}", left ? "true" : "false", trans ? "true" : "false");
  lt_call(target, config, 3, in, 1, &out, (int[]){2});
  double tol = lt_tol(dt, m + n + ka);
  for (int64_t b = 0; b < lt_batch(&a, 2); b++) {
    double complex *q = lt_householder_q(&qr[0], &qr[1], b, k, 0);
#define OPQ(i, j) (trans ? conj(q[(j) * nq + (i)]) : q[(i) * nq + (j)])
    double scale = lt_norm(&in[2], b);
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
        double complex s = 0;
        for (int64_t r = 0; r < nq; r++)
          s += left ? OPQ(i, r) * lt_m(&in[2], b, r, j) : lt_m(&in[2], b, i, r) * OPQ(r, j);
        lt_near(lt_m(&out, b, i, j), s, tol, scale, "ormqr", b, i, j);
      }
#undef OPQ
    free(q);
  }
  lt_free(&a, 1);
  lt_free(qr, 2);
  lt_free(&in[2], 1);
  lt_free(&out, 1);
}

static void test_ormqr(void **state) {
  for (int t = 0; t < 4; t++)
    for (int b = 0; b < LT_N_BATCHES; b++)
      for (int lr = 0; lr < 2; lr++)
        for (int tr = 0; tr < 2; tr++) {
          check_ormqr(t, &lt_batches[b], 4, 3, 2, lr, tr);
          check_ormqr(t, &lt_batches[b], 3, 5, 3, lr, tr);
          check_ormqr(t, &lt_batches[b], 1, 1, 1, lr, tr);
          check_ormqr(t, &lt_batches[b], 0, 3, 0, lr, tr); /* empty Q (left) or no reflectors (right) */
        }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_geqrf),
      cmocka_unit_test(test_orgqr),
      cmocka_unit_test(test_geqp3),
      cmocka_unit_test(test_ormqr),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
