/* JAX CPU targets: LU (lapack_?getrf_ffi) and Cholesky (lapack_?potrf_ffi).
 * Shapes and conventions: jax-cpu-targets.md §2. */
#include "lapack_util.h"

/* a [b..,m,n] -> lu (alias 0), ipiv [b..,min(m,n)] 1-based, info [b..]. */
static XLA_FFI_Error *getrf(lk_call *c) {
  lapack_int m = 0, n = 0;
  void *a, *lu, *ipiv, *info;
  XLA_FFI_Error *e = lk_arity(c, 1, 3);
  if (!e) e = lk_main(c, 0, &m, &n, &a);
  lapack_int k = lk_min(m, n);
  if (!e) e = lk_ret(c, 0, c->dt, LK_DIMS(m, n), &lu);
  if (!e) e = lk_ret(c, 1, XLA_FFI_DataType_S32, LK_DIMS(k), &ipiv);
  if (!e) e = lk_ret(c, 2, XLA_FFI_DataType_S32, LK_NODIMS, &info);
  if (e) return e;
  int64_t step = (int64_t)m * n;
  lk_copy_in(lu, a, (size_t)(c->batch * step) * c->esz);
  for (int64_t i = 0; i < c->batch; i++)
    ((int32_t *)info)[i] =
        LK_ANY(c, getrf, m, n, lk_at(lu, i * step, c->esz), lk_ld(m), (lapack_int *)ipiv + i * k);
  return NULL;
}

/* a [b..,n,n] -> a_out (alias 0; only the `uplo` triangle is written), info. */
static XLA_FFI_Error *potrf(lk_call *c) {
  lapack_int n;
  char uplo;
  void *a, *out, *info;
  XLA_FFI_Error *e = lk_arity(c, 1, 2);
  if (!e) e = lk_attr_char(c, "uplo", "LU", NULL, &uplo);
  if (!e) e = lk_square(c, 0, &n, &a);
  if (!e) e = lk_ret(c, 0, c->dt, LK_DIMS(n, n), &out);
  if (!e) e = lk_ret(c, 1, XLA_FFI_DataType_S32, LK_NODIMS, &info);
  if (e) return e;
  int64_t step = (int64_t)n * n;
  lk_copy_in(out, a, (size_t)(c->batch * step) * c->esz);
  for (int64_t i = 0; i < c->batch; i++)
    ((int32_t *)info)[i] = LK_ANY(c, potrf, uplo, n, lk_at(out, i * step, c->esz), lk_ld(n));
  return NULL;
}

LK_HANDLER(lapack_sgetrf, LK_S, getrf)
LK_HANDLER(lapack_dgetrf, LK_D, getrf)
LK_HANDLER(lapack_cgetrf, LK_C, getrf)
LK_HANDLER(lapack_zgetrf, LK_Z, getrf)
LK_HANDLER(lapack_spotrf, LK_S, potrf)
LK_HANDLER(lapack_dpotrf, LK_D, potrf)
LK_HANDLER(lapack_cpotrf, LK_C, potrf)
LK_HANDLER(lapack_zpotrf, LK_Z, potrf)
