/* Integer GEMM for quantized products: C (i32) = A (i16) x B (i16), exact
 * i32 accumulation.  Operands are 8-bit (or narrower) quantized values with
 * their zero points already subtracted, so every product fits i16 x i16 and
 * a pair of them fits i32.
 *
 * B is packed once into panels of 16 columns in which each pair of rows
 * (k, k+1) is interleaved: one pair-multiply-add instruction (AVX-512 VNNI
 * vpdpwssd, or AVX2 vpmaddwd + vpaddd) multiplies a broadcast pair
 * (A[i][k], A[i][k+1]) by the 16 columns' pairs and adds each column's two
 * products.  A register block is 8 rows x 16 columns.  Panels stay in L1/L2
 * while blocks of A rows (about 256 KB) stream past them; threads split the
 * panels (or the rows, when there are few panels).  Machines without AVX2
 * run the same blocking in plain C. */
#include <immintrin.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "quant.h"

enum { NR = 16, MR = 8, A_BLOCK_BYTES = 256 << 10 };

size_t quant_gemm_packed_size(int64_t K, int64_t N) {
  int64_t k2 = (K + 1) / 2, panels = (N + NR - 1) / NR;
  return (size_t)(panels * k2 * 2 * NR) * sizeof(int16_t);
}

void quant_gemm_pack_b(int64_t K, int64_t N, const int16_t *B, int64_t ldb, int16_t *packed) {
  int64_t k2 = (K + 1) / 2, panels = (N + NR - 1) / NR;
  for (int64_t p = 0; p < panels; p++) {
    int16_t *dst = packed + p * k2 * 2 * NR;
    int64_t j0 = p * NR, nr = N - j0 < NR ? N - j0 : NR;
    for (int64_t kp = 0; kp < k2; kp++, dst += 2 * NR) {
      const int16_t *b0 = B + 2 * kp * ldb + j0, *b1 = b0 + ldb;
      bool odd = 2 * kp + 1 >= K;
      if (nr == NR && !odd) {
        for (int64_t j = 0; j < NR; j++) {
          dst[2 * j] = b0[j];
          dst[2 * j + 1] = b1[j];
        }
        continue;
      }
      memset(dst, 0, 2 * NR * sizeof *dst);
      for (int64_t j = 0; j < nr; j++) {
        dst[2 * j] = b0[j];
        dst[2 * j + 1] = odd ? 0 : b1[j];
      }
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

__attribute__((target("avx2"))) static void block4_avx2(int64_t mr, int64_t k2, const int16_t *A, int64_t lda,
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

static void block_avx2(int64_t mr, int64_t k2, const int16_t *A, int64_t lda, const int16_t *panel, int32_t *c) {
  block4_avx2(mr < 4 ? mr : 4, k2, A, lda, panel, c);
  if (mr > 4) block4_avx2(mr - 4, k2, A + 4 * lda, lda, panel, c + 4 * NR);
}

__attribute__((target("avx512f,avx512bw,avx512vnni"))) static void block_vnni(int64_t mr, int64_t k2, const int16_t *A,
                                                                              int64_t lda, const int16_t *panel,
                                                                              int32_t *c) {
  /* Named accumulators and row pointers so that they stay in registers;
   * missing rows repeat row 0 and are not stored. */
  const int16_t *a0 = A, *a1 = A + (mr > 1 ? lda : 0), *a2 = A + (mr > 2 ? 2 * lda : 0), *a3 = A + (mr > 3 ? 3 * lda : 0),
                *a4 = A + (mr > 4 ? 4 * lda : 0), *a5 = A + (mr > 5 ? 5 * lda : 0), *a6 = A + (mr > 6 ? 6 * lda : 0),
                *a7 = A + (mr > 7 ? 7 * lda : 0);
  __m512i c0 = _mm512_setzero_si512(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0;
#define ROW(ci, ai)                                                  \
  {                                                                  \
    int32_t pr;                                                      \
    memcpy(&pr, ai + 2 * kp, 4);                                     \
    ci = _mm512_dpwssd_epi32(ci, _mm512_set1_epi32(pr), b);          \
  }
  for (int64_t kp = 0; kp < k2; kp++) {
    __m512i b = _mm512_loadu_si512(panel + kp * 2 * NR);
    ROW(c0, a0) ROW(c1, a1) ROW(c2, a2) ROW(c3, a3) ROW(c4, a4) ROW(c5, a5) ROW(c6, a6) ROW(c7, a7)
  }
#undef ROW
  __m512i rows[MR] = {c0, c1, c2, c3, c4, c5, c6, c7};
  for (int64_t i = 0; i < mr; i++) _mm512_storeu_si512(c + i * NR, rows[i]);
}

typedef void block_fn(int64_t, int64_t, const int16_t *, int64_t, const int16_t *, int32_t *);

/* A's rows are read two k at a time: lda and the row storage must cover K
 * rounded up to even, with a zero in the padding column. */
quant_isa quant_gemm_best_isa(void) {
  if (__builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw")) return QUANT_ISA_AVX512VNNI;
  return __builtin_cpu_supports("avx2") ? QUANT_ISA_AVX2 : QUANT_ISA_C;
}

void quant_gemm(int64_t M, int64_t N, int64_t K, const int16_t *A, int64_t lda, const int16_t *packed, int32_t *C,
                int64_t ldc) {
  quant_gemm_isa(quant_gemm_best_isa(), M, N, K, A, lda, packed, C, ldc);
}

void quant_gemm_isa(quant_isa isa, int64_t M, int64_t N, int64_t K, const int16_t *A, int64_t lda, const int16_t *packed,
                    int32_t *C, int64_t ldc) {
  int64_t k2 = (K + 1) / 2, panels = (N + NR - 1) / NR;
  block_fn *block = isa == QUANT_ISA_AVX512VNNI ? block_vnni : isa == QUANT_ISA_AVX2 ? block_avx2 : block_c;
  int64_t mc = A_BLOCK_BYTES / (lda * (int64_t)sizeof *A) / MR * MR;
  if (mc < MR) mc = MR;
  bool by_panel = panels >= 2 * omp_get_max_threads();
  bool par = M * N * K > (1 << 18);
  for (int64_t i0 = 0; i0 < M; i0 += mc) {
    int64_t i1 = i0 + mc < M ? i0 + mc : M, mblocks = (i1 - i0 + MR - 1) / MR;
    int64_t units = by_panel ? panels : mblocks;
#pragma omp parallel for schedule(static) if (par)
    for (int64_t u = 0; u < units; u++) {
      int32_t tile[MR * NR];
      int64_t p0 = by_panel ? u : 0, p1 = by_panel ? u + 1 : panels;
      int64_t b0 = by_panel ? 0 : u, b1 = by_panel ? mblocks : u + 1;
      for (int64_t p = p0; p < p1; p++) {
        const int16_t *panel = packed + p * k2 * 2 * NR;
        int64_t j0 = p * NR, nr = N - j0 < NR ? N - j0 : NR;
        for (int64_t mb = b0; mb < b1; mb++) {
          int64_t r0 = i0 + mb * MR, mr = i1 - r0 < MR ? i1 - r0 : MR;
          block(mr, k2, A + r0 * lda, lda, panel, tile);
          for (int64_t i = 0; i < mr; i++) memcpy(C + (r0 + i) * ldc + j0, tile + i * NR, (size_t)nr * sizeof *C);
        }
      }
    }
  }
}
