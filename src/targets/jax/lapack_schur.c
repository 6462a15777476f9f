/* JAX CPU targets: Schur decomposition (lapack_?gees_ffi) and the
 * reductions it builds on, Hessenberg (lapack_?gehrd_ffi) and
 * symmetric/Hermitian tridiagonal (lapack_?sytrd_ffi / lapack_?hetrd_ffi).
 * Shapes and conventions: jax-cpu-targets.md §2. */
#include "lapack_util.h"

/* a [b..,n,n]; attrs mode ('V' Schur vectors / 'N'), sort ('N' only; 'S' is
 * UNIMPLEMENTED as in JAX) -> t (alias 0; real: quasi-triangular), vs
 * [b..,n,n], real: wr, wi [b..,n] / complex: w [b..,n], sdim [b..], info. */
static XLA_FFI_Error *gees(lk_call *c) {
  lapack_int n = 0, lwork;
  char mode, sort;
  void *a, *t, *vs, *wr, *wi = NULL, *sdim, *info, *work, *rwork = NULL;
  double query[2];
  bool cplx = lk_complex(c);
  int nw = cplx ? 1 : 2;
  XLA_FFI_Error *e = lk_arity(c, 1, 4 + nw);
  if (!e) e = lk_attr_char(c, "mode", "NV", NULL, &mode);
  if (!e) e = lk_attr_char(c, "sort", "N", "S", &sort);
  if (!e) e = lk_square(c, 0, &n, &a);
  if (!e) e = lk_ret(c, 0, c->dt, LK_DIMS(n, n), &t);
  if (!e) e = lk_ret(c, 1, c->dt, LK_DIMS(n, n), &vs);
  if (!e) e = lk_ret(c, 2, c->dt, LK_DIMS(n), &wr);
  if (!e && !cplx) e = lk_ret(c, 3, c->dt, LK_DIMS(n), &wi);
  if (!e) e = lk_ret(c, 2 + nw, XLA_FFI_DataType_S32, LK_NODIMS, &sdim);
  if (!e) e = lk_ret(c, 3 + nw, XLA_FFI_DataType_S32, LK_NODIMS, &info);
  if (e) return e;
  int64_t step = (int64_t)n * n;
  lk_copy_in(t, a, (size_t)(c->batch * step) * c->esz);
  if (!c->batch) return NULL;
  if (cplx) {
    if ((e = lk_alloc(c, n, c->resz, &rwork))) return e;
    LK_CPLX(c, gees, mode, sort, NULL, n, NULL, lk_ld(n), NULL, NULL, NULL, lk_ld(n), (void *)query, -1, rwork, NULL);
  } else {
    LK_REAL(c, gees, mode, sort, NULL, n, NULL, lk_ld(n), NULL, NULL, NULL, NULL, lk_ld(n), (void *)query, -1, NULL);
  }
  if (e || (e = lk_query_size(c, query, &lwork)) || (e = lk_alloc(c, lwork, c->esz, &work))) return e;
  for (int64_t i = 0; i < c->batch; i++) {
    void *ti = lk_at(t, i * step, c->esz), *vi = lk_at(vs, i * step, c->esz), *wri = lk_at(wr, i * n, c->esz);
    lapack_int *sd = (lapack_int *)sdim + i;
    ((int32_t *)info)[i] =
        cplx ? LK_CPLX(c, gees, mode, sort, NULL, n, ti, lk_ld(n), sd, wri, vi, lk_ld(n), work, lwork, rwork, NULL)
             : LK_REAL(c, gees, mode, sort, NULL, n, ti, lk_ld(n), sd, wri, lk_at(wi, i * n, c->esz), vi, lk_ld(n),
                       work, lwork, NULL);
  }
  return NULL;
}

/* a [b..,n,n]; attrs low, high (i32: LAPACK's 1-based ilo, ihi) -> a_out
 * (alias 0: Hessenberg part, reflectors below the subdiagonal), tau
 * [b..,n-1], info. */
static XLA_FFI_Error *gehrd(lk_call *c) {
  lapack_int n = 0, lwork;
  int32_t lo, hi;
  void *a, *out, *tau, *info, *work;
  double query[2];
  XLA_FFI_Error *e = lk_arity(c, 1, 3);
  if (!e) e = lk_attr_i32(c, "high", &hi);
  if (!e) e = lk_attr_i32(c, "low", &lo);
  if (!e) e = lk_square(c, 0, &n, &a);
  /* LAPACK's own rule; checked here because LAPACK would print on failure */
  if (!e && !(lo >= 1 && lo <= lk_ld(n) && hi >= lk_min(lo, n) && hi <= n))
    return lk_err(c, XLA_FFI_Error_Code_INVALID_ARGUMENT,
                  "attributes low = %d, high = %d are not 1 <= low <= high <= %d (or low = 1, high = 0 for an empty "
                  "matrix)",
                  lo, hi, n);
  lapack_int nt = n > 0 ? n - 1 : 0;
  if (!e) e = lk_ret(c, 0, c->dt, LK_DIMS(n, n), &out);
  if (!e) e = lk_ret(c, 1, c->dt, LK_DIMS(nt), &tau);
  if (!e) e = lk_ret(c, 2, XLA_FFI_DataType_S32, LK_NODIMS, &info);
  if (e) return e;
  int64_t step = (int64_t)n * n;
  lk_copy_in(out, a, (size_t)(c->batch * step) * c->esz);
  if (!c->batch) return NULL;
  LK_ANY(c, gehrd, n, lo, hi, NULL, lk_ld(n), NULL, (void *)query, -1);
  if ((e = lk_query_size(c, query, &lwork)) || (e = lk_alloc(c, lwork, c->esz, &work))) return e;
  for (int64_t i = 0; i < c->batch; i++)
    ((int32_t *)info)[i] =
        LK_ANY(c, gehrd, n, lo, hi, lk_at(out, i * step, c->esz), lk_ld(n), lk_at(tau, i * nt, c->esz), work, lwork);
  return NULL;
}

/* a [b..,n,n]; attr uplo -> a_out (alias 0), d [b..,n] and e [b..,n-1]
 * real (diagonal, off-diagonal), tau [b..,n-1], info. */
static XLA_FFI_Error *sytrd(lk_call *c) {
  lapack_int n = 0, lwork;
  char uplo;
  void *a, *out, *d, *off, *tau, *info, *work;
  double query[2];
  XLA_FFI_Error *e = lk_arity(c, 1, 5);
  if (!e) e = lk_attr_char(c, "uplo", "LU", NULL, &uplo);
  if (!e) e = lk_square(c, 0, &n, &a);
  lapack_int nt = n > 0 ? n - 1 : 0;
  if (!e) e = lk_ret(c, 0, c->dt, LK_DIMS(n, n), &out);
  if (!e) e = lk_ret(c, 1, c->rdt, LK_DIMS(n), &d);
  if (!e) e = lk_ret(c, 2, c->rdt, LK_DIMS(nt), &off);
  if (!e) e = lk_ret(c, 3, c->dt, LK_DIMS(nt), &tau);
  if (!e) e = lk_ret(c, 4, XLA_FFI_DataType_S32, LK_NODIMS, &info);
  if (e) return e;
  int64_t step = (int64_t)n * n;
  lk_copy_in(out, a, (size_t)(c->batch * step) * c->esz);
  if (!c->batch) return NULL;
  LK_ANY(c, sytrd, uplo, n, NULL, lk_ld(n), NULL, NULL, NULL, (void *)query, -1);
  if ((e = lk_query_size(c, query, &lwork)) || (e = lk_alloc(c, lwork, c->esz, &work))) return e;
  for (int64_t i = 0; i < c->batch; i++)
    ((int32_t *)info)[i] = LK_ANY(c, sytrd, uplo, n, lk_at(out, i * step, c->esz), lk_ld(n), lk_at(d, i * n, c->resz),
                                  lk_at(off, i * nt, c->resz), lk_at(tau, i * nt, c->esz), work, lwork);
  return NULL;
}

LK_HANDLER(lapack_sgees, LK_S, gees)
LK_HANDLER(lapack_dgees, LK_D, gees)
LK_HANDLER(lapack_cgees, LK_C, gees)
LK_HANDLER(lapack_zgees, LK_Z, gees)
LK_HANDLER(lapack_sgehrd, LK_S, gehrd)
LK_HANDLER(lapack_dgehrd, LK_D, gehrd)
LK_HANDLER(lapack_cgehrd, LK_C, gehrd)
LK_HANDLER(lapack_zgehrd, LK_Z, gehrd)
LK_HANDLER(lapack_ssytrd, LK_S, sytrd)
LK_HANDLER(lapack_dsytrd, LK_D, sytrd)
LK_HANDLER(lapack_chetrd, LK_C, sytrd)
LK_HANDLER(lapack_zhetrd, LK_Z, sytrd)
