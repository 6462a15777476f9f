/* JAX CPU targets: singular value decomposition, divide and conquer
 * (lapack_?gesdd_ffi, jnp.linalg.svd's default) and QR iteration
 * (lapack_?gesvd_ffi, algorithm=QR).  Shapes: jax-cpu-targets.md §2. */
#include "lapack_util.h"

/* a [b..,m,n]; attr mode 'A' (full U, Vᴴ), 'S' (economy), 'N' (values
 * only; 'O' is UNIMPLEMENTED as in JAX) -> a_out (alias 0, destroyed),
 * s [b..,min] real descending, u [b..,m,m|min], vt [b..,n|min,n], info.
 * In mode 'N' u and vt keep either shape and are not written. */
static XLA_FFI_Error *svd(lk_call *c, bool dc) {
  lapack_int m = 0, n = 0, lwork;
  char mode;
  void *a, *out, *s, *u, *vt, *info, *work, *rwork = NULL, *iwork = NULL;
  int64_t ud[2], vd[2];
  double query[2];
  XLA_FFI_Error *e = lk_arity(c, 1, 5);
  if (!e) e = lk_attr_char(c, "mode", "ASN", "O", &mode);
  if (!e) e = lk_main(c, 0, &m, &n, &a);
  lapack_int k = lk_min(m, n);
  if (!e) e = lk_ret(c, 0, c->dt, LK_DIMS(m, n), &out);
  if (!e) e = lk_ret(c, 1, c->rdt, LK_DIMS(k), &s);
  if (!e) e = lk_ret_dims(c, 2, c->dt, 2, ud, &u);
  if (!e) e = lk_ret_dims(c, 3, c->dt, 2, vd, &vt);
  if (e) return e;
  bool full_ok = ud[0] == m && ud[1] == m && vd[0] == n && vd[1] == n;
  bool econ_ok = ud[0] == m && ud[1] == k && vd[0] == k && vd[1] == n;
  if (mode == 'A' ? !full_ok : mode == 'S' ? !econ_ok : !(full_ok || econ_ok))
    return lk_err(c, XLA_FFI_Error_Code_INVALID_ARGUMENT,
                  "results 2 and 3 (u, vt) have trailing dims %lldx%lld and %lldx%lld, which do not fit mode '%c' "
                  "of a %dx%d matrix",
                  (long long)ud[0], (long long)ud[1], (long long)vd[0], (long long)vd[1], mode, m, n);
  if ((e = lk_ret(c, 4, XLA_FFI_DataType_S32, LK_NODIMS, &info))) return e;
  int64_t step = (int64_t)m * n, ustep = ud[0] * ud[1], vstep = vd[0] * vd[1];
  lk_copy_in(out, a, (size_t)(c->batch * step) * c->esz);
  if (!c->batch) return NULL;
  lapack_int ldvt = lk_ld((lapack_int)vd[0]);
  int64_t mn = k, mx = m > n ? m : n;
  if (dc && (e = lk_alloc(c, 8 * mn, sizeof(lapack_int), &iwork))) return e;
  if (lk_complex(c)) {
    int64_t lrwork = !dc ? 5 * mn
                     : mode == 'N' ? 7 * mn
                                   : (5 * mn * mn + 5 * mn > 2 * mx * mn + 2 * mn * mn + mn ? 5 * mn * mn + 5 * mn
                                                                                          : 2 * mx * mn + 2 * mn * mn + mn);
    /* the query gets the real workspaces too (LAPACK 3.11 writes to some of them there) */
    if ((e = lk_alloc(c, lrwork, c->resz, &rwork))) return e;
    if (dc)
      LK_CPLX(c, gesdd, mode, m, n, NULL, lk_ld(m), NULL, NULL, lk_ld(m), NULL, ldvt, (void *)query, -1, rwork, iwork);
    else
      LK_CPLX(c, gesvd, mode, mode, m, n, NULL, lk_ld(m), NULL, NULL, lk_ld(m), NULL, ldvt, (void *)query, -1, rwork);
  } else if (dc) {
    LK_REAL(c, gesdd, mode, m, n, NULL, lk_ld(m), NULL, NULL, lk_ld(m), NULL, ldvt, (void *)query, -1, iwork);
  } else {
    LK_REAL(c, gesvd, mode, mode, m, n, NULL, lk_ld(m), NULL, NULL, lk_ld(m), NULL, ldvt, (void *)query, -1);
  }
  if ((e = lk_query_size(c, query, &lwork)) || (e = lk_alloc(c, lwork, c->esz, &work))) return e;
  for (int64_t i = 0; i < c->batch; i++) {
    void *ai = lk_at(out, i * step, c->esz), *si = lk_at(s, i * k, c->resz);
    void *ui = lk_at(u, i * ustep, c->esz), *vi = lk_at(vt, i * vstep, c->esz);
    lapack_int r;
    if (lk_complex(c))
      r = dc ? LK_CPLX(c, gesdd, mode, m, n, ai, lk_ld(m), si, ui, lk_ld(m), vi, ldvt, work, lwork, rwork, iwork)
             : LK_CPLX(c, gesvd, mode, mode, m, n, ai, lk_ld(m), si, ui, lk_ld(m), vi, ldvt, work, lwork, rwork);
    else
      r = dc ? LK_REAL(c, gesdd, mode, m, n, ai, lk_ld(m), si, ui, lk_ld(m), vi, ldvt, work, lwork, iwork)
             : LK_REAL(c, gesvd, mode, mode, m, n, ai, lk_ld(m), si, ui, lk_ld(m), vi, ldvt, work, lwork);
    ((int32_t *)info)[i] = r;
  }
  return NULL;
}

static XLA_FFI_Error *gesdd(lk_call *c) { return svd(c, true); }
static XLA_FFI_Error *gesvd(lk_call *c) { return svd(c, false); }

LK_HANDLER(lapack_sgesdd, LK_S, gesdd)
LK_HANDLER(lapack_dgesdd, LK_D, gesdd)
LK_HANDLER(lapack_cgesdd, LK_C, gesdd)
LK_HANDLER(lapack_zgesdd, LK_Z, gesdd)
LK_HANDLER(lapack_sgesvd, LK_S, gesvd)
LK_HANDLER(lapack_dgesvd, LK_D, gesvd)
LK_HANDLER(lapack_cgesvd, LK_C, gesvd)
LK_HANDLER(lapack_zgesvd, LK_Z, gesvd)
