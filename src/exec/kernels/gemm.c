/* Row-major ?gemm calls: see gemm.h. */
#include "gemm.h"

#include <omp.h>

#include "mathlib.h"

/* Below this many flops a product runs in one piece.  Splits are multiples
 * of SPLIT_ALIGN rows or columns (OpenBLAS's micro-kernel tiles), at least
 * SPLIT_MIN, PIECES_MIN to PIECES_MAX pieces. */
enum { PAR_MIN_FLOPS = 1 << 21, SPLIT_ALIGN = 16, SPLIT_MIN = 64, PIECE_MIN = 1024, PIECES_MIN = 2, PIECES_MAX = 8 };

int gemm_serial_begin(void) {
  const mathlib *ml = mathlib_get();
  int n = ml->get_threads ? ml->get_threads() : 1;
  if (n != 1) ml->set_threads(1);
  return n;
}

void gemm_serial_end(int saved) {
  if (saved != 1) mathlib_get()->set_threads(saved);
}

void gemm_one(ku_ck ck, const gemm_shape *g, const void *A, const void *B, void *C) {
  enum CBLAS_TRANSPOSE fa = g->ta ? CblasTrans : CblasNoTrans, fb = g->tb ? CblasTrans : CblasNoTrans;
  int M = (int)g->M, N = (int)g->N, K = (int)g->K, lda = (int)g->lda, ldb = (int)g->ldb, ldc = (int)g->ldc;
  const mathlib *ml = mathlib_get();
  switch (ck) {
    case CK_F32: ml->sgemm(CblasRowMajor, fa, fb, M, N, K, 1.0f, A, lda, B, ldb, 0.0f, C, ldc); break;
    case CK_F64: ml->dgemm(CblasRowMajor, fa, fb, M, N, K, 1.0, A, lda, B, ldb, 0.0, C, ldc); break;
    case CK_C64: {
      const float one[2] = {1, 0}, zero[2] = {0, 0};
      ml->cgemm(CblasRowMajor, fa, fb, M, N, K, one, A, lda, B, ldb, zero, C, ldc);
      break;
    }
    case CK_C128: {
      const double one[2] = {1, 0}, zero[2] = {0, 0};
      ml->zgemm(CblasRowMajor, fa, fb, M, N, K, one, A, lda, B, ldb, zero, C, ldc);
      break;
    }
    default: break;
  }
}

/* How many pieces to split a product of `len` rows or columns into (1: do
 * not split), and their length.  OpenBLAS does not sum a piece of a
 * product as it sums the whole (its kernels for small products take over),
 * so the pieces depend on the product alone, never on the thread count or
 * whether the caller's parallel region is active: results are the same
 * with any OMP_NUM_THREADS (they were the 2-thread split's already; a
 * single thread now runs the same pieces one after another).  A few
 * pieces, handed out dynamically, so that a thread that loses its core for
 * a while does not hold up the rest; but every piece packs the whole other
 * operand again, so pieces beyond PIECES_MIN are at least PIECE_MIN long. */
static int64_t split(double flops, int64_t len, int64_t *chunk) {
  if (flops < PAR_MIN_FLOPS || omp_get_level() > 0) return 1;
  int64_t pieces = len / PIECE_MIN;
  if (pieces > PIECES_MAX) pieces = PIECES_MAX;
  if (pieces < PIECES_MIN) pieces = PIECES_MIN;
  int64_t c = (len + pieces - 1) / pieces;
  if (c < SPLIT_MIN) c = SPLIT_MIN;
  *chunk = (c + SPLIT_ALIGN - 1) / SPLIT_ALIGN * SPLIT_ALIGN;
  return (len + *chunk - 1) / *chunk;
}

void gemm_call(ku_ck ck, const gemm_shape *g, const void *A, const void *B, void *C) {
  bool by_rows = g->M >= g->N;
  int64_t len = by_rows ? g->M : g->N, chunk = len;
  int64_t pieces = split(2.0 * (double)g->M * (double)g->N * (double)g->K, len, &chunk);
  size_t es = ku_ck_bytes(ck);
  int saved = gemm_serial_begin();
#pragma omp parallel for schedule(dynamic, 1) if (pieces > 1)
  for (int64_t t = 0; t < pieces; t++) {
    int64_t lo = t * chunk, hi = lo + chunk < len ? lo + chunk : len;
    gemm_shape s = *g;
    const uint8_t *a = A, *b = B;
    uint8_t *c = C;
    if (by_rows) {
      s.M = hi - lo;
      a += (size_t)(g->ta ? lo : lo * g->lda) * es;
      c += (size_t)(lo * g->ldc) * es;
    } else {
      s.N = hi - lo;
      b += (size_t)(g->tb ? lo * g->ldb : lo) * es;
      c += (size_t)lo * es;
    }
    gemm_one(ck, &s, a, b, c);
  }
  gemm_serial_end(saved);
}
