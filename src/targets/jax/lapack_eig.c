/* JAX CPU targets: symmetric/Hermitian eigendecomposition
 * (lapack_?syevd_ffi / lapack_?heevd_ffi) and general eigendecomposition
 * (lapack_?geev_ffi).  Shapes and conventions: jax-cpu-targets.md §2. */
#include <math.h>

#include "lapack_util.h"

/* a [b..,n,n]; attrs mode ('V' vectors / 'N'), uplo -> v (alias 0, the
 * eigenvectors in columns), w [b..,n] real ascending, info.  JAX's kernel
 * sizes the workspace with LAPACK's documented minimums, not a query. */
static XLA_FFI_Error *syevd(lk_call *c) {
  lapack_int n = 0, lwork, lrwork = 0, liwork;
  char mode, uplo;
  void *a, *v, *w, *info, *work, *iwork, *rwork = NULL;
  XLA_FFI_Error *e = lk_arity(c, 1, 3);
  if (!e) e = lk_attr_char(c, "mode", "NV", NULL, &mode);
  if (!e) e = lk_attr_char(c, "uplo", "LU", NULL, &uplo);
  if (!e) e = lk_square(c, 0, &n, &a);
  if (!e) e = lk_ret(c, 0, c->dt, LK_DIMS(n, n), &v);
  if (!e) e = lk_ret(c, 1, c->rdt, LK_DIMS(n), &w);
  if (!e) e = lk_ret(c, 2, XLA_FFI_DataType_S32, LK_NODIMS, &info);
  if (e) return e;
  int64_t step = (int64_t)n * n, nn = n;
  lk_copy_in(v, a, (size_t)(c->batch * step) * c->esz);
  if (!c->batch) return NULL;
  bool vec = mode == 'V';
  if (lk_complex(c)) {
    if ((e = lk_size(c, vec ? 2 * nn + nn * nn : nn + 1, &lwork)) ||
        (e = lk_size(c, vec ? 1 + 5 * nn + 2 * nn * nn : nn, &lrwork)) || (e = lk_alloc(c, lrwork, c->resz, &rwork)))
      return e;
  } else if ((e = lk_size(c, vec ? 1 + 6 * nn + 2 * nn * nn : 2 * nn + 1, &lwork))) {
    return e;
  }
  if ((e = lk_size(c, vec ? 3 + 5 * nn : 1, &liwork)) || (e = lk_alloc(c, lwork, c->esz, &work)) ||
      (e = lk_alloc(c, liwork, sizeof(lapack_int), &iwork)))
    return e;
  for (int64_t i = 0; i < c->batch; i++) {
    void *vi = lk_at(v, i * step, c->esz), *wi = lk_at(w, i * n, c->resz);
    ((int32_t *)info)[i] =
        lk_complex(c) ? LK_CPLX(c, syevd, mode, uplo, n, vi, lk_ld(n), wi, work, lwork, rwork, lrwork, iwork, liwork)
                      : LK_REAL(c, syevd, mode, uplo, n, vi, lk_ld(n), wi, work, lwork, iwork, liwork);
  }
  return NULL;
}

/* True when none of the `count` reals at p (float for s/c, double for d/z)
 * is an infinity or a NaN. */
static bool all_finite(const lk_call *c, const void *p, int64_t count) {
  if (c->p == LK_S || c->p == LK_C) {
    for (int64_t i = 0; i < count; i++)
      if (!isfinite(((const float *)p)[i])) return false;
  } else {
    for (int64_t i = 0; i < count; i++)
      if (!isfinite(((const double *)p)[i])) return false;
  }
  return true;
}

/* LAPACK's real eigenvectors, packed (column j real when wi[j] == 0, else
 * columns j, j+1 hold re, im of the pair v_j, v_{j+1} = conj(v_j)), into
 * complex columns. */
#define UNPACK(T)                                                                  \
  for (lapack_int j = 0; j < n;) {                                                 \
    const T *re = (const T *)packed + (int64_t)j * n;                              \
    T *out = (T *)unpacked + 2 * (int64_t)j * n;                                   \
    if (((const T *)wimag)[j] == 0 || isnan(((const T *)wimag)[j]) || j + 1 == n) { \
      for (lapack_int r = 0; r < n; r++) out[2 * r] = re[r], out[2 * r + 1] = 0;   \
      j++;                                                                         \
    } else {                                                                       \
      const T *im = re + n;                                                        \
      for (lapack_int r = 0; r < n; r++) {                                         \
        out[2 * r] = out[2 * (n + r)] = re[r];                                     \
        out[2 * r + 1] = im[r];                                                    \
        out[2 * (n + r) + 1] = -im[r];                                             \
      }                                                                            \
      j += 2;                                                                      \
    }                                                                              \
  }
static void unpack(const lk_call *c, lapack_int n, const void *wimag, const void *packed, void *unpacked) {
  if (c->p == LK_S) {
    UNPACK(float)
  } else {
    UNPACK(double)
  }
}
#undef UNPACK

/* a [b..,n,n] (not modified); attrs compute_left, compute_right ('V'/'N').
 * real: wr, wi [b..,n], vl, vr [b..,n,n] complex, info; complex: w, vl, vr,
 * info.  A matrix with a non-finite element is not decomposed: info = -4. */
static XLA_FFI_Error *geev(lk_call *c) {
  lapack_int n = 0, lwork;
  char jobvl, jobvr;
  void *a, *wr = NULL, *wi = NULL, *vl, *vr, *info, *work, *copy, *rwork = NULL, *pvl = NULL, *pvr = NULL;
  double query[2];
  bool cplx = lk_complex(c);
  int nw = cplx ? 1 : 2; /* eigenvalue results before vl */
  XLA_FFI_Error *e = lk_arity(c, 1, nw + 3);
  if (!e) e = lk_attr_char(c, "compute_left", "NV", NULL, &jobvl);
  if (!e) e = lk_attr_char(c, "compute_right", "NV", NULL, &jobvr);
  if (!e) e = lk_square(c, 0, &n, &a);
  if (!e) e = lk_ret(c, 0, c->dt, LK_DIMS(n), &wr);
  if (!e && !cplx) e = lk_ret(c, 1, c->dt, LK_DIMS(n), &wi);
  if (!e) e = lk_ret(c, nw, c->cdt, LK_DIMS(n, n), &vl);
  if (!e) e = lk_ret(c, nw + 1, c->cdt, LK_DIMS(n, n), &vr);
  if (!e) e = lk_ret(c, nw + 2, XLA_FFI_DataType_S32, LK_NODIMS, &info);
  if (e || !c->batch) return e;
  int64_t step = (int64_t)n * n;
  if (cplx) {
    /* rwork goes into the query too: LAPACK 3.11's ?trevc3 writes to it there */
    if ((e = lk_alloc(c, 2 * (int64_t)n, c->resz, &rwork))) return e;
    LK_CPLX(c, geev, jobvl, jobvr, n, NULL, lk_ld(n), NULL, NULL, lk_ld(n), NULL, lk_ld(n), (void *)query, -1, rwork);
  } else {
    LK_REAL(c, geev, jobvl, jobvr, n, NULL, lk_ld(n), NULL, NULL, NULL, lk_ld(n), NULL, lk_ld(n), (void *)query, -1);
    /* LAPACK's packed real vectors, unpacked into vl / vr afterwards */
    if (!(e = lk_alloc(c, step, c->esz, &pvl))) e = lk_alloc(c, step, c->esz, &pvr);
  }
  if (e || (e = lk_query_size(c, query, &lwork)) || (e = lk_alloc(c, lwork, c->esz, &work)) ||
      (e = lk_alloc(c, step, c->esz, &copy)))
    return e;
  int64_t reals = cplx ? 2 * step : step;
  size_t vsz = shloc_ffi_dtype_bytes(c->cdt);
  for (int64_t i = 0; i < c->batch; i++) {
    int32_t *inf = (int32_t *)info + i;
    const void *ai = lk_at(a, i * step, c->esz);
    void *wri = lk_at(wr, i * n, c->esz), *vli = lk_at(vl, i * step, vsz), *vri = lk_at(vr, i * step, vsz);
    if (!all_finite(c, ai, reals)) {
      *inf = -4;
      continue;
    }
    memcpy(copy, ai, (size_t)step * c->esz);
    if (cplx) {
      *inf = LK_CPLX(c, geev, jobvl, jobvr, n, copy, lk_ld(n), wri, vli, lk_ld(n), vri, lk_ld(n), work, lwork, rwork);
      if (jobvl == 'N') memset(vli, 0, (size_t)step * vsz);
      if (jobvr == 'N') memset(vri, 0, (size_t)step * vsz);
      continue;
    }
    void *wii = lk_at(wi, i * n, c->esz);
    *inf = LK_REAL(c, geev, jobvl, jobvr, n, copy, lk_ld(n), wri, wii, pvl, lk_ld(n), pvr, lk_ld(n), work, lwork);
    if (*inf) continue;
    /* JAX unpacks both sides; an unrequested one is set to zeros here
     * rather than unpacked from uninitialised scratch (same for complex). */
    if (jobvl == 'V') unpack(c, n, wii, pvl, vli);
    else memset(vli, 0, (size_t)step * vsz);
    if (jobvr == 'V') unpack(c, n, wii, pvr, vri);
    else memset(vri, 0, (size_t)step * vsz);
  }
  return NULL;
}

LK_HANDLER(lapack_ssyevd, LK_S, syevd)
LK_HANDLER(lapack_dsyevd, LK_D, syevd)
LK_HANDLER(lapack_cheevd, LK_C, syevd)
LK_HANDLER(lapack_zheevd, LK_Z, syevd)
LK_HANDLER(lapack_sgeev, LK_S, geev)
LK_HANDLER(lapack_dgeev, LK_D, geev)
LK_HANDLER(lapack_cgeev, LK_C, geev)
LK_HANDLER(lapack_zgeev, LK_Z, geev)
