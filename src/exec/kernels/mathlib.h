/* OpenBLAS and LAPACKE, opened on first use.
 *
 * Only programs that multiply or factor matrices need them, and loading them
 * costs more than parsing a mid-sized module: OpenBLAS maps ~30 MB, resolves
 * thousands of relocations and starts a thread pool whose threads spin for a
 * while.  So libshloc does not link them: the kernels that call them ask for
 * them while planning (mathlib_require) and the built-in JAX LAPACK targets
 * (src/targets/jax) when called, which also turns a missing library into an
 * error at the op instead of a loader failure at startup.  The prototypes
 * come from the installed cblas.h / lapacke.h. */
#ifndef SHLOC_EXEC_KERNELS_MATHLIB_H
#define SHLOC_EXEC_KERNELS_MATHLIB_H

#include <cblas.h>
#include <lapacke.h>

#include "ir/ir.h"

/* LAPACKE's *_work routines the JAX CPU targets call (src/targets/jax), one
 * row per field: X(prefix, field, routine).  The field is named after the
 * real routine; for complex types it holds the Hermitian/unitary one
 * (orgqr -> ungqr, ...).  The _work variants take caller workspace and, in
 * column-major order, call LAPACK directly: no NaN scan, no transposition. */
#define MATHLIB_LAPACK_COMMON(X, p)                                                                          \
  X(p, potrf, potrf) X(p, getrf, getrf) X(p, geqrf, geqrf) X(p, geqp3, geqp3) X(p, geev, geev)                \
  X(p, gesdd, gesdd) X(p, gesvd, gesvd) X(p, gees, gees) X(p, gehrd, gehrd) X(p, gtsv, gtsv)
#define MATHLIB_LAPACK_REAL(X, p) \
  MATHLIB_LAPACK_COMMON(X, p) X(p, orgqr, orgqr) X(p, ormqr, ormqr) X(p, syevd, syevd) X(p, sytrd, sytrd)
#define MATHLIB_LAPACK_CPLX(X, p) \
  MATHLIB_LAPACK_COMMON(X, p) X(p, orgqr, ungqr) X(p, ormqr, unmqr) X(p, syevd, heevd) X(p, sytrd, hetrd)
#define MATHLIB_LAPACK_FIELD(p, field, routine) __typeof__(LAPACKE_##p##routine##_work) *field;
typedef struct { MATHLIB_LAPACK_REAL(MATHLIB_LAPACK_FIELD, s) } mathlib_lapack_s;
typedef struct { MATHLIB_LAPACK_REAL(MATHLIB_LAPACK_FIELD, d) } mathlib_lapack_d;
typedef struct { MATHLIB_LAPACK_CPLX(MATHLIB_LAPACK_FIELD, c) } mathlib_lapack_c;
typedef struct { MATHLIB_LAPACK_CPLX(MATHLIB_LAPACK_FIELD, z) } mathlib_lapack_z;
#undef MATHLIB_LAPACK_FIELD

typedef struct {
  __typeof__(cblas_sgemm) *sgemm;
  __typeof__(cblas_dgemm) *dgemm;
  __typeof__(cblas_cgemm) *cgemm;
  __typeof__(cblas_zgemm) *zgemm;
  __typeof__(cblas_strsm) *strsm;
  __typeof__(cblas_dtrsm) *dtrsm;
  __typeof__(cblas_ctrsm) *ctrsm;
  __typeof__(cblas_ztrsm) *ztrsm;
  __typeof__(LAPACKE_spotrf) *spotrf;
  __typeof__(LAPACKE_dpotrf) *dpotrf;
  __typeof__(LAPACKE_cpotrf) *cpotrf;
  __typeof__(LAPACKE_zpotrf) *zpotrf;
  mathlib_lapack_s s;
  mathlib_lapack_d d;
  mathlib_lapack_c c;
  mathlib_lapack_z z;
  /* OpenBLAS's thread count; NULL when the BLAS found is another one */
  int (*get_threads)(void);
  void (*set_threads)(int);
} mathlib;

/* Loads BLAS (once per process; later calls are cheap); an error naming op
 * (when not NULL) and what could not be loaded when it is missing. */
shl_status mathlib_require(const shl_op *op);

/* The same for BLAS and LAPACKE (factorizations). */
shl_status mathlib_require_lapack(const shl_op *op);

/* The loaded functions; BLAS's after mathlib_require succeeded, LAPACKE's
 * (spotrf ... and s, d, c, z) after mathlib_require_lapack. */
const mathlib *mathlib_get(void);

#endif
