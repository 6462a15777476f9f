/* Row-major matrix products on a compute type (kconvert.h) through OpenBLAS:
 * the one place the dot and convolution kernels call ?gemm.
 *
 * Products run on OpenMP threads with OpenBLAS single-threaded: OpenBLAS's
 * own thread pool would fight the (spinning) OpenMP workers of the other
 * kernels for the cores, which costs more than it gains. */
#ifndef SHLOC_EXEC_KERNELS_GEMM_H
#define SHLOC_EXEC_KERNELS_GEMM_H

#include <stdbool.h>
#include <stdint.h>

#include "kconvert.h"

/* C[M,N] = op(A)[M,K] * op(B)[K,N]; op transposes when ta/tb are set (A is
 * then stored K x M, B N x K); lda/ldb/ldc are row pitches in elements.
 * ck is CK_F32, CK_F64, CK_C64 or CK_C128; sizes and pitches fit in int. */
typedef struct {
  bool ta, tb;
  int64_t M, N, K, lda, ldb, ldc;
} gemm_shape;

/* Switches OpenBLAS to one thread around a region of gemm_one calls;
 * returns what gemm_serial_end restores.  (OpenBLAS's thread count is
 * process-wide; it is restored as soon as the region ends.) */
int gemm_serial_begin(void);
void gemm_serial_end(int saved);

/* One product on the calling thread (between gemm_serial_begin and _end). */
void gemm_one(ku_ck ck, const gemm_shape *g, const void *A, const void *B, void *C);

/* One product, split by rows or columns across the OpenMP threads when large
 * (in pieces that depend on the product alone, so its bits do not depend on
 * the thread count). */
void gemm_call(ku_ck ck, const gemm_shape *g, const void *A, const void *B, void *C);

/* Batches of fewer products than this run each through gemm_call, larger
 * ones each whole on one thread (gemm_one).  A constant (it was 4 per
 * thread, 8 on two) for the same reason. */
enum { GEMM_FEW_PRODUCTS = 8 };

#endif
