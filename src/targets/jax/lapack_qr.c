/* JAX CPU targets: Householder QR (lapack_?geqrf_ffi), QR with column
 * pivoting (lapack_?geqp3_ffi), forming Q (lapack_?orgqr_ffi /
 * lapack_?ungqr_ffi) and applying it (lapack_?ormqr_ffi / lapack_?unmqr_ffi).
 * None has an info result.  Workspace: one query per call, reused for every
 * matrix of the batch.  Shapes: jax-cpu-targets.md §2. */
#include "lapack_util.h"

/* a [b..,m,n] -> a_out (alias 0: R above the diagonal, reflectors below),
 * tau [b..,min(m,n)]. */
static XLA_FFI_Error *geqrf(lk_call *c) {
  lapack_int m = 0, n = 0, lwork;
  void *a, *out, *tau, *work;
  double query[2];
  XLA_FFI_Error *e = lk_arity(c, 1, 2);
  if (!e) e = lk_main(c, 0, &m, &n, &a);
  lapack_int k = lk_min(m, n);
  if (!e) e = lk_ret(c, 0, c->dt, LK_DIMS(m, n), &out);
  if (!e) e = lk_ret(c, 1, c->dt, LK_DIMS(k), &tau);
  if (e) return e;
  int64_t step = (int64_t)m * n;
  lk_copy_in(out, a, (size_t)(c->batch * step) * c->esz);
  if (!c->batch) return NULL;
  LK_ANY(c, geqrf, m, n, NULL, lk_ld(m), NULL, (void *)query, -1);
  if ((e = lk_query_size(c, query, &lwork)) || (e = lk_alloc(c, lwork, c->esz, &work))) return e;
  for (int64_t i = 0; i < c->batch; i++)
    LK_ANY(c, geqrf, m, n, lk_at(out, i * step, c->esz), lk_ld(m), lk_at(tau, i * k, c->esz), work, lwork);
  return NULL;
}

/* a [b..,m,n], jpvt [b..,n] (0 = free column) -> a_out (alias 0), jpvt_out
 * (alias 1, 1-based), tau [b..,min(m,n)]. */
static XLA_FFI_Error *geqp3(lk_call *c) {
  lapack_int m = 0, n = 0, lwork;
  void *a, *jpvt, *out, *jpvt_out, *tau, *work, *rwork = NULL;
  double query[2];
  XLA_FFI_Error *e = lk_arity(c, 2, 3);
  if (!e) e = lk_main(c, 0, &m, &n, &a);
  lapack_int k = lk_min(m, n);
  if (!e) e = lk_arg(c, 1, XLA_FFI_DataType_S32, LK_DIMS(n), &jpvt);
  if (!e) e = lk_ret(c, 0, c->dt, LK_DIMS(m, n), &out);
  if (!e) e = lk_ret(c, 1, XLA_FFI_DataType_S32, LK_DIMS(n), &jpvt_out);
  if (!e) e = lk_ret(c, 2, c->dt, LK_DIMS(k), &tau);
  if (e) return e;
  int64_t step = (int64_t)m * n;
  lk_copy_in(out, a, (size_t)(c->batch * step) * c->esz);
  lk_copy_in(jpvt_out, jpvt, (size_t)(c->batch * n) * sizeof(int32_t));
  if (!c->batch) return NULL;
  if (lk_complex(c)) {
    if ((e = lk_alloc(c, 2 * (int64_t)n, c->resz, &rwork))) return e;
    LK_CPLX(c, geqp3, m, n, NULL, lk_ld(m), NULL, NULL, (void *)query, -1, rwork);
  } else {
    LK_REAL(c, geqp3, m, n, NULL, lk_ld(m), NULL, NULL, (void *)query, -1);
  }
  if (e || (e = lk_query_size(c, query, &lwork)) || (e = lk_alloc(c, lwork, c->esz, &work))) return e;
  for (int64_t i = 0; i < c->batch; i++) {
    void *ai = lk_at(out, i * step, c->esz), *ti = lk_at(tau, i * k, c->esz);
    lapack_int *pi = (lapack_int *)jpvt_out + i * n;
    if (lk_complex(c))
      LK_CPLX(c, geqp3, m, n, ai, lk_ld(m), pi, ti, work, lwork, rwork);
    else
      LK_REAL(c, geqp3, m, n, ai, lk_ld(m), pi, ti, work, lwork);
  }
  return NULL;
}

/* a [b..,m,n] (n <= m), tau [b..,k] (k <= n) -> q (alias 0): the first n
 * columns of the product of geqrf's first k reflectors. */
static XLA_FFI_Error *orgqr(lk_call *c) {
  lapack_int m = 0, n = 0, lwork;
  int64_t k;
  void *a, *tau, *q, *work;
  double query[2];
  XLA_FFI_Error *e = lk_arity(c, 2, 1);
  if (!e) e = lk_main(c, 0, &m, &n, &a);
  if (!e) e = lk_arg_dims(c, 1, c->dt, 1, &k, &tau);
  if (!e && !(n <= m && k <= n))
    return lk_err(c, XLA_FFI_Error_Code_INVALID_ARGUMENT,
                  "needs columns <= rows and reflectors <= columns; got a %d x %d matrix and %lld reflectors", m, n,
                  (long long)k);
  if (!e) e = lk_ret(c, 0, c->dt, LK_DIMS(m, n), &q);
  if (e) return e;
  int64_t step = (int64_t)m * n;
  lk_copy_in(q, a, (size_t)(c->batch * step) * c->esz);
  if (!c->batch) return NULL;
  LK_ANY(c, orgqr, m, n, (lapack_int)k, NULL, lk_ld(m), NULL, (void *)query, -1);
  if ((e = lk_query_size(c, query, &lwork)) || (e = lk_alloc(c, lwork, c->esz, &work))) return e;
  for (int64_t i = 0; i < c->batch; i++)
    LK_ANY(c, orgqr, m, n, (lapack_int)k, lk_at(q, i * step, c->esz), lk_ld(m), lk_at(tau, i * k, c->esz), work,
           lwork);
  return NULL;
}

/* a [b..,nq,ka] (geqrf's output), tau [b..,k], c [b..,m,n]; attrs left,
 * transpose -> c_out (alias 2) = op(Q) c (left) or c op(Q) (right), where Q
 * has order nq = m (left) or n (right) and op is ᵀ (real) / ᴴ (complex). */
static XLA_FFI_Error *ormqr(lk_call *c) {
  lapack_int m = 0, n = 0, lwork;
  int64_t ad[2], k;
  bool left = true, transpose;
  void *a, *tau, *cin, *out, *work;
  double query[2];
  XLA_FFI_Error *e = lk_arity(c, 3, 1);
  if (!e) e = lk_attr_bool(c, "left", &left);
  if (!e) e = lk_attr_bool(c, "transpose", &transpose);
  if (!e) e = lk_main(c, 2, &m, &n, &cin);
  if (!e) e = lk_arg_dims(c, 0, c->dt, 2, ad, &a);
  if (!e) e = lk_arg_dims(c, 1, c->dt, 1, &k, &tau);
  lapack_int nq = left ? m : n;
  if (!e && !(ad[0] == nq && k <= nq && k <= ad[1]))
    return lk_err(c, XLA_FFI_Error_Code_INVALID_ARGUMENT,
                  "the reflectors (%lld x %lld, %lld of them) do not fit a Q of order %d", (long long)ad[0],
                  (long long)ad[1], (long long)k, nq);
  if (!e) e = lk_ret(c, 0, c->dt, LK_DIMS(m, n), &out);
  if (e) return e;
  char side = left ? 'L' : 'R', trans = !transpose ? 'N' : lk_complex(c) ? 'C' : 'T';
  int64_t step = (int64_t)m * n, astep = ad[0] * ad[1];
  lk_copy_in(out, cin, (size_t)(c->batch * step) * c->esz);
  if (!c->batch) return NULL;
  LK_ANY(c, ormqr, side, trans, m, n, (lapack_int)k, NULL, lk_ld(nq), NULL, NULL, lk_ld(m), (void *)query, -1);
  if ((e = lk_query_size(c, query, &lwork)) || (e = lk_alloc(c, lwork, c->esz, &work))) return e;
  for (int64_t i = 0; i < c->batch; i++)
    LK_ANY(c, ormqr, side, trans, m, n, (lapack_int)k, lk_at(a, i * astep, c->esz), lk_ld(nq),
           lk_at(tau, i * k, c->esz), lk_at(out, i * step, c->esz), lk_ld(m), work, lwork);
  return NULL;
}

LK_HANDLER(lapack_sgeqrf, LK_S, geqrf)
LK_HANDLER(lapack_dgeqrf, LK_D, geqrf)
LK_HANDLER(lapack_cgeqrf, LK_C, geqrf)
LK_HANDLER(lapack_zgeqrf, LK_Z, geqrf)
LK_HANDLER(lapack_sgeqp3, LK_S, geqp3)
LK_HANDLER(lapack_dgeqp3, LK_D, geqp3)
LK_HANDLER(lapack_cgeqp3, LK_C, geqp3)
LK_HANDLER(lapack_zgeqp3, LK_Z, geqp3)
LK_HANDLER(lapack_sorgqr, LK_S, orgqr)
LK_HANDLER(lapack_dorgqr, LK_D, orgqr)
LK_HANDLER(lapack_cungqr, LK_C, orgqr)
LK_HANDLER(lapack_zungqr, LK_Z, orgqr)
LK_HANDLER(lapack_sormqr, LK_S, ormqr)
LK_HANDLER(lapack_dormqr, LK_D, ormqr)
LK_HANDLER(lapack_cunmqr, LK_C, ormqr)
LK_HANDLER(lapack_zunmqr, LK_Z, ormqr)
