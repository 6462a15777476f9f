/* shloc public API: JAX's CPU custom-call targets, built in.
 *
 * Programs exported by jax.export on CPU call LAPACK through custom calls
 * named `lapack_<p><routine>_ffi` (p = s f32, d f64, c complex64, z
 * complex128).  libshloc implements them as typed XLA FFI handlers with the
 * operands, results, attributes, layouts, aliasing and `info` outputs of
 * JAX's own kernels (jaxlib/cpu/lapack_kernels.cc), on LAPACKE and CBLAS
 * opened at first use.  Every registry, and an executable created without
 * one, resolves these targets; a handler registered under the same name
 * takes precedence.
 *
 * Each handler is also an exported function, so that C code produced by
 * `shloc lower-custom-calls --shim` (which calls the symbol below by default
 * for these targets) links against libshloc alone:
 *
 *     target lapack_<p><routine>_ffi  ->  symbol shloc_lapack_<p><routine>_ffi
 *     target tridiagonal_solve_perturbed_ffi -> shloc_tridiagonal_solve_perturbed_ffi
 *
 * They can also be registered by hand under other names with
 * shloc_ffi_register_handler.  A missing BLAS/LAPACKE is reported as an
 * error of the call, not at load time. */
#ifndef SHLOC_JAX_TARGETS_H
#define SHLOC_JAX_TARGETS_H

#include "shloc/shloc.h"
#include "shloc/xla_ffi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* triangular solve op(A) X = B or X op(A) = B (cblas_?trsm) */
SHLOC_API XLA_FFI_Error *shloc_lapack_strsm_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_dtrsm_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_ctrsm_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_ztrsm_ffi(XLA_FFI_CallFrame *cf);
/* LU with partial pivoting */
SHLOC_API XLA_FFI_Error *shloc_lapack_sgetrf_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_dgetrf_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_cgetrf_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_zgetrf_ffi(XLA_FFI_CallFrame *cf);
/* Cholesky */
SHLOC_API XLA_FFI_Error *shloc_lapack_spotrf_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_dpotrf_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_cpotrf_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_zpotrf_ffi(XLA_FFI_CallFrame *cf);
/* Householder QR */
SHLOC_API XLA_FFI_Error *shloc_lapack_sgeqrf_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_dgeqrf_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_cgeqrf_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_zgeqrf_ffi(XLA_FFI_CallFrame *cf);
/* QR with column pivoting */
SHLOC_API XLA_FFI_Error *shloc_lapack_sgeqp3_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_dgeqp3_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_cgeqp3_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_zgeqp3_ffi(XLA_FFI_CallFrame *cf);
/* Q from geqrf's reflectors */
SHLOC_API XLA_FFI_Error *shloc_lapack_sorgqr_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_dorgqr_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_cungqr_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_zungqr_ffi(XLA_FFI_CallFrame *cf);
/* product with Q from geqrf's reflectors */
SHLOC_API XLA_FFI_Error *shloc_lapack_sormqr_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_dormqr_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_cunmqr_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_zunmqr_ffi(XLA_FFI_CallFrame *cf);
/* symmetric/Hermitian eigendecomposition (divide and conquer) */
SHLOC_API XLA_FFI_Error *shloc_lapack_ssyevd_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_dsyevd_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_cheevd_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_zheevd_ffi(XLA_FFI_CallFrame *cf);
/* general eigendecomposition */
SHLOC_API XLA_FFI_Error *shloc_lapack_sgeev_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_dgeev_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_cgeev_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_zgeev_ffi(XLA_FFI_CallFrame *cf);
/* SVD (divide and conquer) */
SHLOC_API XLA_FFI_Error *shloc_lapack_sgesdd_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_dgesdd_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_cgesdd_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_zgesdd_ffi(XLA_FFI_CallFrame *cf);
/* SVD (QR iteration) */
SHLOC_API XLA_FFI_Error *shloc_lapack_sgesvd_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_dgesvd_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_cgesvd_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_zgesvd_ffi(XLA_FFI_CallFrame *cf);
/* Schur decomposition */
SHLOC_API XLA_FFI_Error *shloc_lapack_sgees_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_dgees_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_cgees_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_zgees_ffi(XLA_FFI_CallFrame *cf);
/* Hessenberg reduction */
SHLOC_API XLA_FFI_Error *shloc_lapack_sgehrd_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_dgehrd_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_cgehrd_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_zgehrd_ffi(XLA_FFI_CallFrame *cf);
/* symmetric/Hermitian tridiagonal reduction */
SHLOC_API XLA_FFI_Error *shloc_lapack_ssytrd_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_dsytrd_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_chetrd_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_zhetrd_ffi(XLA_FFI_CallFrame *cf);
/* tridiagonal solve */
SHLOC_API XLA_FFI_Error *shloc_lapack_sgtsv_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_dgtsv_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_cgtsv_ffi(XLA_FFI_CallFrame *cf);
SHLOC_API XLA_FFI_Error *shloc_lapack_zgtsv_ffi(XLA_FFI_CallFrame *cf);
/* tridiagonal solve that perturbs tiny pivots instead of failing (JAX's
 * tridiagonal_solve(perturb_singular=True); no LAPACK) */
SHLOC_API XLA_FFI_Error *shloc_tridiagonal_solve_perturbed_ffi(XLA_FFI_CallFrame *cf);

#ifdef __cplusplus
}
#endif
#endif
