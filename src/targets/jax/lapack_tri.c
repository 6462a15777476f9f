/* JAX CPU targets: triangular solve (lapack_?trsm_ffi, through CBLAS) and
 * tridiagonal solve (lapack_?gtsv_ffi).  Shapes: jax-cpu-targets.md §2. */
#include "ffi/ffi.h"
#include "lapack_util.h"

/* a [b..,k,k], y [b..,m,n] (and, in exports of older JAX, a scalar alpha);
 * attrs diag, side, trans_x, uplo -> y_out (alias 1) = the X solving
 * op(a) X = alpha y (side 'L', k = m) or X op(a) = alpha y ('R', k = n). */
static XLA_FFI_Error *trsm(lk_call *c) {
  lapack_int m = 0, n = 0;
  char diag, side = 'L', trans, uplo;
  void *a, *y, *out, *alpha_p = NULL;
  int64_t n_args = c->cf->args.size;
  XLA_FFI_Error *e = n_args == 3 ? lk_arity(c, 3, 1) : lk_arity(c, 2, 1);
  if (!e) e = lk_attr_char(c, "diag", "NU", NULL, &diag);
  if (!e) e = lk_attr_char(c, "side", "LR", NULL, &side);
  if (!e) e = lk_attr_char(c, "trans_x", "NTC", NULL, &trans);
  if (!e) e = lk_attr_char(c, "uplo", "LU", NULL, &uplo);
  if (!e) e = lk_main(c, 1, &m, &n, &y);
  lapack_int k = side == 'L' ? m : n;
  if (!e) e = lk_arg(c, 0, c->dt, LK_DIMS(k, k), &a);
  if (!e && n_args == 3) {
    XLA_FFI_Buffer *al = shloc_ffi_arg(c->cf, 2);
    if (!al || al->dtype != c->dt || shloc_ffi_buffer_elements(al) != 1)
      return lk_err(c, XLA_FFI_Error_Code_INVALID_ARGUMENT, "operand 2 (alpha) must be one %s element",
                    ffi_dtype_xla_name(c->dt));
    alpha_p = al->data;
  }
  if (!e) e = lk_ret(c, 0, c->dt, LK_DIMS(m, n), &out);
  if (e) return e;
  int64_t step = (int64_t)m * n, astep = (int64_t)k * k;
  lk_copy_in(out, y, (size_t)(c->batch * step) * c->esz);
  if (!m || !n) return NULL;
  static const double one[2] = {1, 0};
  static const float onef[2] = {1, 0};
  const void *alpha = alpha_p ? alpha_p : c->p == LK_S || c->p == LK_C ? (const void *)onef : (const void *)one;
  CBLAS_SIDE cs = side == 'L' ? CblasLeft : CblasRight;
  CBLAS_UPLO cu = uplo == 'L' ? CblasLower : CblasUpper;
  CBLAS_TRANSPOSE ct = trans == 'N' ? CblasNoTrans : trans == 'T' ? CblasTrans : CblasConjTrans;
  CBLAS_DIAG cd = diag == 'U' ? CblasUnit : CblasNonUnit;
  for (int64_t i = 0; i < c->batch; i++) {
    const void *ai = lk_at(a, i * astep, c->esz);
    void *yi = lk_at(out, i * step, c->esz);
    switch (c->p) {
      case LK_S: c->ml->strsm(CblasColMajor, cs, cu, ct, cd, m, n, *(const float *)alpha, ai, k, yi, m); break;
      case LK_D: c->ml->dtrsm(CblasColMajor, cs, cu, ct, cd, m, n, *(const double *)alpha, ai, k, yi, m); break;
      case LK_C: c->ml->ctrsm(CblasColMajor, cs, cu, ct, cd, m, n, alpha, ai, k, yi, m); break;
      case LK_Z: c->ml->ztrsm(CblasColMajor, cs, cu, ct, cd, m, n, alpha, ai, k, yi, m); break;
    }
  }
  return NULL;
}

/* dl, d, du [b..,n] (dl[0] and du[n-1] are padding), b [b..,n,nrhs] ->
 * dl_out, d_out, du_out (aliases 0..2, overwritten by the factorisation),
 * b_out (alias 3, the solution), info. */
static XLA_FFI_Error *gtsv(lk_call *c) {
  lapack_int n, nrhs;
  void *in[4], *out[4], *info;
  XLA_FFI_Error *e = lk_arity(c, 4, 5);
  if (!e) e = lk_main(c, 3, &n, &nrhs, &in[3]);
  for (int i = 0; i < 3 && !e; i++) e = lk_arg(c, i, c->dt, LK_DIMS(n), &in[i]);
  for (int i = 0; i < 3 && !e; i++) e = lk_ret(c, i, c->dt, LK_DIMS(n), &out[i]);
  if (!e) e = lk_ret(c, 3, c->dt, LK_DIMS(n, nrhs), &out[3]);
  if (!e) e = lk_ret(c, 4, XLA_FFI_DataType_S32, LK_NODIMS, &info);
  if (e) return e;
  int64_t step = (int64_t)n * nrhs;
  for (int i = 0; i < 3; i++) lk_copy_in(out[i], in[i], (size_t)(c->batch * n) * c->esz);
  lk_copy_in(out[3], in[3], (size_t)(c->batch * step) * c->esz);
  /* LAPACK's back substitution for nrhs <= 2 runs once even when nrhs = 0:
   * give it a column to write then (the factorisation and info stand). */
  void *spare = NULL;
  if (!nrhs && c->batch && (e = lk_alloc(c, n, c->esz, &spare))) return e;
  for (int64_t i = 0; i < c->batch; i++) {
    int32_t *inf = (int32_t *)info + i;
    if (!n) {
      *inf = 0;
      continue;
    }
    *inf = LK_ANY(c, gtsv, n, nrhs, lk_at(out[0], i * n + 1, c->esz), lk_at(out[1], i * n, c->esz),
                  lk_at(out[2], i * n, c->esz), spare ? spare : lk_at(out[3], i * step, c->esz), lk_ld(n));
  }
  return NULL;
}

LK_HANDLER(lapack_strsm, LK_S, trsm)
LK_HANDLER(lapack_dtrsm, LK_D, trsm)
LK_HANDLER(lapack_ctrsm, LK_C, trsm)
LK_HANDLER(lapack_ztrsm, LK_Z, trsm)
LK_HANDLER(lapack_sgtsv, LK_S, gtsv)
LK_HANDLER(lapack_dgtsv, LK_D, gtsv)
LK_HANDLER(lapack_cgtsv, LK_C, gtsv)
LK_HANDLER(lapack_zgtsv, LK_Z, gtsv)
