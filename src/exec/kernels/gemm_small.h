/* Matrix products too small for BLAS (dot.c's small products), f32 and f64.
 *
 * Each result element is summed as XLA:CPU evaluates small dots: products
 * rounded, then added in ascending k from zero (no FMA), so results with
 * cancellation agree to the last bit.  The loops are vectorised across a
 * result row (or column, whichever wastes fewer vector lanes) and blocked
 * over rows in registers, which changes no element's summation order. */
#ifndef SHLOC_EXEC_KERNELS_GEMM_SMALL_H
#define SHLOC_EXEC_KERNELS_GEMM_SMALL_H

#include <stdint.h>

#include "kconvert.h"

/* A is M x K with element (i, k) at A[i * ars + k * acs]; B is K x N with
 * (k, j) at B[k * brs + j * bcs]; C is M x N row-major (pitch N). */
typedef struct {
  int64_t M, N, K;
  int64_t ars, acs, brs, bcs;
} gemm_small_shape;

/* C = A B for ck CK_F32 or CK_F64 (float / double buffers); C must not
 * overlap A or B. */
void gemm_small(ku_ck ck, const gemm_small_shape *g, const void *A, const void *B, void *C);

#endif
