/* Small matrix products: see gemm_small.h.
 *
 * A product runs as rows x K of x times K x cols of y: either C = A B (rows
 * i, columns j) or, when M fills the vector lanes better than N, C^T = B^T
 * A^T (rows j, columns i), written back transposed.  A block is GS_MR rows
 * by one vector of columns, its sums held in registers across k; y is read
 * in place when its columns are contiguous and the block is full, else from
 * a zero-padded panel.  K goes in slices of GS_KC (the panel's height); a
 * slice after the first continues from the partial sums stored in C, which
 * are the same rounded values the registers held. */
#include "gemm_small.h"

#include <stdbool.h>
#include <string.h>

#include "kutil.h"

/* 64-byte vectors are passed in registers only with AVX-512; the block
 * functions are always inlined, so the ABI note does not apply. */
#pragma GCC diagnostic ignored "-Wpsabi"

#define GS_INLINE static inline __attribute__((always_inline))

/* Six rows: six independent add chains hide the add latency, and with
 * AVX2 (a 64-byte vector is two registers) they still fit the 16 registers. */
enum { GS_MR = 6, GS_KC = 128 };

typedef float gs_vf __attribute__((vector_size(64)));
typedef double gs_vd __attribute__((vector_size(64)));

/* One orientation of a product: x (rows x K), y (K x cols) and the result
 * (rows x cols), each with its element strides. */
typedef struct {
  int64_t rows, cols, K;
  int64_t xrs, xks, yks, ycs, ors, ocs;
} gs_plan;

#define GT float
#define GV gs_vf
#define GL 16
#define GX(name) f32_##name
#include "gemm_small_body.h"
#undef GT
#undef GV
#undef GL
#undef GX
#define GT double
#define GV gs_vd
#define GL 8
#define GX(name) f64_##name
#include "gemm_small_body.h"
#undef GT
#undef GV
#undef GL
#undef GX

void gemm_small(ku_ck ck, const gemm_small_shape *g, const void *A, const void *B, void *C) {
  int64_t lanes = ck == CK_F32 ? 16 : 8;
  /* across N unless across M takes fewer vector blocks */
  bool tr = g->N * ((g->M + lanes - 1) / lanes) < g->M * ((g->N + lanes - 1) / lanes);
  gs_plan p = tr ? (gs_plan){g->N, g->M, g->K, g->bcs, g->brs, g->acs, g->ars, 1, g->N}
                 : (gs_plan){g->M, g->N, g->K, g->ars, g->acs, g->brs, g->bcs, g->N, 1};
  const void *x = tr ? B : A, *y = tr ? A : B;
  if (ck == CK_F32) f32_product(&p, x, y, C);
  else f64_product(&p, x, y, C);
}
