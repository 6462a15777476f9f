/* Integer GEMM for quantized products: C (i32) = A (i16) x B (i16), exact
 * i32 accumulation.  Operands are 8-bit (or narrower) quantized values with
 * their zero points already subtracted, so every product fits i16 x i16 and
 * a pair of them fits i32.
 *
 * B is packed once into panels of 16 columns in which each pair of rows
 * (k, k+1) is interleaved, so that one AVX2 vpmaddwd multiplies a broadcast
 * pair (A[i][k], A[i][k+1]) by 8 columns' pairs and adds each column's two
 * products: a 4 x 16 register block costs 8 vpmaddwd + 8 vpaddd per two
 * k steps.  Machines without AVX2 run the same blocking in plain C. */
#include <immintrin.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "quant.h"

enum { NR = 16, MR = 4 };

size_t quant_gemm_packed_size(int64_t K, int64_t N) {
  int64_t k2 = (K + 1) / 2, panels = (N + NR - 1) / NR;
  return (size_t)(panels * k2 * 2 * NR) * sizeof(int16_t);
}

void quant_gemm_pack_b(int64_t K, int64_t N, const int16_t *B, int64_t ldb, int16_t *packed) {
  int64_t k2 = (K + 1) / 2, panels = (N + NR - 1) / NR;
  for (int64_t p = 0; p < panels; p++) {
    int16_t *dst = packed + p * k2 * 2 * NR;
    for (int64_t kp = 0; kp < k2; kp++)
      for (int64_t j = 0; j < NR; j++)
        for (int64_t h = 0; h < 2; h++) {
          int64_t k = 2 * kp + h, col = p * NR + j;
          dst[(kp * NR + j) * 2 + h] = k < K && col < N ? B[k * ldb + col] : 0;
        }
  }
}

/* mr x 16 block: C[i][j] = sum over k pairs of A pairs times the panel. */
static void block_c(int64_t mr, int64_t k2, const int16_t *A, int64_t lda, const int16_t *panel, int32_t *c) {
  for (int64_t i = 0; i < mr; i++) {
    int32_t acc[NR] = {0};
    const int16_t *a = A + i * lda;
    for (int64_t kp = 0; kp < k2; kp++) {
      int32_t a0 = a[2 * kp], a1 = a[2 * kp + 1];
      const int16_t *b = panel + kp * 2 * NR;
      for (int j = 0; j < NR; j++) acc[j] += a0 * b[2 * j] + a1 * b[2 * j + 1];
    }
    memcpy(c + i * NR, acc, sizeof acc);
  }
}

__attribute__((target("avx2"))) static void block_avx2(int64_t mr, int64_t k2, const int16_t *A, int64_t lda,
                                                        const int16_t *panel, int32_t *c) {
  __m256i c00 = _mm256_setzero_si256(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00;
  const int16_t *a0 = A, *a1 = A + (mr > 1 ? lda : 0), *a2 = A + (mr > 2 ? 2 * lda : 0), *a3 = A + (mr > 3 ? 3 * lda : 0);
  for (int64_t kp = 0; kp < k2; kp++) {
    __m256i b0 = _mm256_loadu_si256((const __m256i *)(panel + kp * 2 * NR));
    __m256i b1 = _mm256_loadu_si256((const __m256i *)(panel + kp * 2 * NR + NR));
    int32_t p0, p1, p2, p3;
    memcpy(&p0, a0 + 2 * kp, 4);
    memcpy(&p1, a1 + 2 * kp, 4);
    memcpy(&p2, a2 + 2 * kp, 4);
    memcpy(&p3, a3 + 2 * kp, 4);
    __m256i v = _mm256_set1_epi32(p0);
    c00 = _mm256_add_epi32(c00, _mm256_madd_epi16(v, b0));
    c01 = _mm256_add_epi32(c01, _mm256_madd_epi16(v, b1));
    v = _mm256_set1_epi32(p1);
    c10 = _mm256_add_epi32(c10, _mm256_madd_epi16(v, b0));
    c11 = _mm256_add_epi32(c11, _mm256_madd_epi16(v, b1));
    v = _mm256_set1_epi32(p2);
    c20 = _mm256_add_epi32(c20, _mm256_madd_epi16(v, b0));
    c21 = _mm256_add_epi32(c21, _mm256_madd_epi16(v, b1));
    v = _mm256_set1_epi32(p3);
    c30 = _mm256_add_epi32(c30, _mm256_madd_epi16(v, b0));
    c31 = _mm256_add_epi32(c31, _mm256_madd_epi16(v, b1));
  }
  __m256i rows[8] = {c00, c01, c10, c11, c20, c21, c30, c31};
  for (int64_t i = 0; i < mr; i++) {
    _mm256_storeu_si256((__m256i *)(c + i * NR), rows[2 * i]);
    _mm256_storeu_si256((__m256i *)(c + i * NR + 8), rows[2 * i + 1]);
  }
}

/* A's rows are read two k at a time: lda and the row storage must cover K
 * rounded up to even, with a zero in the padding column. */
void quant_gemm(int64_t M, int64_t N, int64_t K, const int16_t *A, int64_t lda, const int16_t *packed, int32_t *C,
                int64_t ldc) {
  int64_t k2 = (K + 1) / 2, panels = (N + NR - 1) / NR, mblocks = (M + MR - 1) / MR;
  bool avx2 = __builtin_cpu_supports("avx2");
#pragma omp parallel for schedule(static) if (M * N * K > (1 << 18))
  for (int64_t mb = 0; mb < mblocks; mb++) {
    int64_t i0 = mb * MR, mr = M - i0 < MR ? M - i0 : MR;
    int32_t tile[MR * NR];
    for (int64_t p = 0; p < panels; p++) {
      const int16_t *panel = packed + p * k2 * 2 * NR;
      if (avx2) block_avx2(mr, k2, A + i0 * lda, lda, panel, tile);
      else block_c(mr, k2, A + i0 * lda, lda, panel, tile);
      int64_t j0 = p * NR, nr = N - j0 < NR ? N - j0 : NR;
      for (int64_t i = 0; i < mr; i++) memcpy(C + (i0 + i) * ldc + j0, tile + i * NR, (size_t)nr * sizeof *C);
    }
  }
}
