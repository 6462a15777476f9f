/* OpenBLAS and LAPACKE, opened on first use.
 *
 * Only programs that multiply or factor matrices need them, and loading them
 * costs more than parsing a mid-sized module: OpenBLAS maps ~30 MB, resolves
 * thousands of relocations and starts a thread pool whose threads spin for a
 * while.  So libshloc does not link them: the kernels that call them ask for
 * them while planning (mathlib_require), which also turns a missing library
 * into an error at the op instead of a loader failure at startup.  The
 * prototypes come from the installed cblas.h / lapacke.h. */
#ifndef SHLOC_EXEC_KERNELS_MATHLIB_H
#define SHLOC_EXEC_KERNELS_MATHLIB_H

#include <cblas.h>
#include <lapacke.h>

#include "ir/ir.h"

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
  /* OpenBLAS's thread count; NULL when the BLAS found is another one */
  int (*get_threads)(void);
  void (*set_threads)(int);
} mathlib;

/* Loads the libraries (once per process; later calls are cheap); an error
 * naming op (when not NULL) and what could not be loaded when they are missing. */
shl_status mathlib_require(const shl_op *op);

/* The loaded functions; only after mathlib_require succeeded. */
const mathlib *mathlib_get(void);

#endif
