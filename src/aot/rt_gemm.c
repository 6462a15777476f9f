/* dot_general call-outs of compiled code (include/shloc/aot_runtime.h):
 * one ?gemm per batch through the interpreter's BLAS path
 * (src/exec/kernels/gemm.h: OpenBLAS opened on first use; few large
 * products split across OpenMP threads, many products one per thread).  Without a BLAS library, or for sizes
 * beyond BLAS's int, the product runs as a plain loop. */
#include <limits.h>
#include <omp.h>

#include "aot/rt_memref.h"
#include "exec/kernels/gemm.h"
#include "exec/kernels/mathlib.h"

/* C[b] = op(A[b]) op(B[b]) without BLAS. */
#define RT_LOOP_GEMM(T)                                                                                       \
  static void loop_gemm_##T(const T *A, const T *B, T *C, int64_t batch, int64_t m, int64_t n, int64_t k,    \
                            bool ta, bool tb) {                                                               \
    for (int64_t b = 0; b < batch; b++, A += m * k, B += k * n, C += m * n)                                   \
      for (int64_t i = 0; i < m; i++)                                                                         \
        for (int64_t j = 0; j < n; j++) {                                                                     \
          T s = 0;                                                                                            \
          for (int64_t p = 0; p < k; p++) s += A[ta ? p * m + i : i * k + p] * B[tb ? j * k + p : p * n + j]; \
          C[i * n + j] = s;                                                                                   \
        }                                                                                                     \
  }
RT_LOOP_GEMM(float)
RT_LOOP_GEMM(double)

static void run_gemm(ku_ck ck, size_t es, const shloc_aot_unranked *a, const shloc_aot_unranked *b,
                     const shloc_aot_unranked *c, int64_t batch, int64_t m, int64_t n, int64_t k, bool ta, bool tb) {
  rt_memref A, B, C;
  /* A strided operand that cannot be copied leaves the result unset: compiled
   * code has no way to receive an error, and the copy is a few MB at most
   * in practice. */
  if (rt_memref_contiguous(a, es, &A)) return;
  if (rt_memref_contiguous(b, es, &B)) {
    rt_memref_release(&A);
    return;
  }
  bool dense;
  C.data = rt_memref_base(c, es, &dense);
  bool fits = m <= INT_MAX && n <= INT_MAX && k <= INT_MAX && m * k <= INT_MAX && k * n <= INT_MAX;
  shl_status st = fits ? mathlib_require(NULL) : NULL;
  if (st) shloc_status_free(st);
  if (fits && !st && m && n) {
    gemm_shape g = {ta, tb, m, n, k, ta ? (m > 1 ? m : 1) : (k > 1 ? k : 1), tb ? (k > 1 ? k : 1) : (n > 1 ? n : 1),
                    n > 1 ? n : 1};
    const char *pa = A.data, *pb = B.data;
    char *pc = C.data;
    if (batch < GEMM_FEW_PRODUCTS) {
      /* Few products: each one split across the threads when large. */
      for (int64_t i = 0; i < batch; i++)
        gemm_call(ck, &g, pa + (size_t)(i * m * k) * es, pb + (size_t)(i * k * n) * es, pc + (size_t)(i * m * n) * es);
    } else {
      /* Many products (as the interpreter's dot kernel): one thread each. */
      int saved = gemm_serial_begin();
#pragma omp parallel for schedule(dynamic) if ((double)batch * m * n * k > 1e6)
      for (int64_t i = 0; i < batch; i++)
        gemm_one(ck, &g, pa + (size_t)(i * m * k) * es, pb + (size_t)(i * k * n) * es, pc + (size_t)(i * m * n) * es);
      gemm_serial_end(saved);
    }
  } else if (ck == CK_F32) {
    loop_gemm_float(A.data, B.data, C.data, batch, m, n, k, ta, tb);
  } else {
    loop_gemm_double(A.data, B.data, C.data, batch, m, n, k, ta, tb);
  }
  rt_memref_release(&A);
  rt_memref_release(&B);
}

void _mlir_ciface_shloc_rt_gemm_f32(const shloc_aot_unranked *a, const shloc_aot_unranked *b,
                                    const shloc_aot_unranked *c, int64_t batch, int64_t m, int64_t n, int64_t k,
                                    int32_t trans_a, int32_t trans_b) {
  run_gemm(CK_F32, sizeof(float), a, b, c, batch, m, n, k, trans_a, trans_b);
}

void _mlir_ciface_shloc_rt_gemm_f64(const shloc_aot_unranked *a, const shloc_aot_unranked *b,
                                    const shloc_aot_unranked *c, int64_t batch, int64_t m, int64_t n, int64_t k,
                                    int32_t trans_a, int32_t trans_b) {
  run_gemm(CK_F64, sizeof(double), a, b, c, batch, m, n, k, trans_a, trans_b);
}
