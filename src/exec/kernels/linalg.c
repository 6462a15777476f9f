/* stablehlo.cholesky (LAPACKE ?potrf) and stablehlo.triangular_solve
 * (cblas ?trsm, or XLA:CPU's inverse-based algorithm for f32, see
 * trsm_xla_f32), batched over leading dimensions.  Other real types compute
 * in f64.  cholesky zeroes the unused triangle (the spec leaves it
 * implementation-defined) and fills a matrix that is not positive definite
 * with NaN, as XLA does. */
#include <math.h>
#include <stdlib.h>

#include "kconvert.h"
#include "kutil.h"
#include "mathlib.h"

/* Both ops run on float and complex types, through LAPACKE/BLAS. */
static shl_status linalg_check_type(const shl_op *op, shl_dtype t) {
  if (!dtype_is_float(t) && !dtype_is_complex(t))
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "on %s is not supported", dtype_name(t));
  return mathlib_require_lapack(op);
}

/* Real types solve in double and round once: XLA's blocked algorithms and
 * LAPACK's differ in rounding, and the exact answer is closest to both. */
static ku_ck linalg_ck(shl_dtype t) {
  ku_ck ck = ku_ck_of(t);
  return ck == CK_F32 ? CK_F64 : ck;
}

/* ---- cholesky ---- */

static shl_status chol_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  if (op->n_operands != 1 || op->n_results != 1) return op_error(op, SHLOC_ERR_VERIFY, "expects one operand");
  const shl_type *t = op->operands[0]->type;
  if (!type_is_static(t) || t->rank < 2 || t->dims[t->rank - 1] != t->dims[t->rank - 2])
    return op_error(op, SHLOC_ERR_VERIFY, "needs static square matrices");
  return linalg_check_type(op, type_storage_dtype(t));
}

#define CHOL_BODY(T, FN, NANV)                                                                                \
  do {                                                                                                      \
    T *m = (T *)a + b * n * n;                                                                              \
    lapack_int info = FN(LAPACK_ROW_MAJOR, lower ? 'L' : 'U', (lapack_int)n, m, (lapack_int)n);             \
    for (int64_t i = 0; i < n; i++)                                                                         \
      for (int64_t j = 0; j < n; j++) {                                                                     \
        if (info != 0) m[i * n + j] = NANV;                                                                 \
        else if (lower ? j > i : j < i) m[i * n + j] = 0;                                                   \
      }                                                                                                     \
  } while (0)

static shl_status chol_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const shl_buf *x = in[0];
  shl_buf *r = out[0];
  if (r->n == 0) return NULL;
  bool lower = ku_bool(po->op, "lower", false);
  int64_t n = x->dims[x->rank - 1], batches = x->n / (n * n);
  ku_ck ck = linalg_ck(r->dtype);
  bool direct = r->dtype == DT_F64 || dtype_is_complex(r->dtype);
  void *a = direct ? r->data : malloc((size_t)r->n * ku_ck_bytes(ck));
  if (!a) return st_oom();
  if (direct) memcpy(a, x->data, x->nbytes);
  else ku_to_ck(ck, x->dtype, x->data, a, x->n);
  const mathlib *ml = mathlib_get();
  for (int64_t b = 0; b < batches; b++) {
    switch (ck) {
      case CK_F32: CHOL_BODY(float, ml->spotrf, NAN); break;
      case CK_F64: CHOL_BODY(double, ml->dpotrf, NAN); break;
      case CK_C64: CHOL_BODY(lapack_complex_float, ml->cpotrf, CMPLXF(NAN, NAN)); break;
      default: CHOL_BODY(lapack_complex_double, ml->zpotrf, CMPLX(NAN, NAN)); break;
    }
  }
  if (!direct) {
    ku_from_ck(ck, r->dtype, a, r->data, r->n);
    free(a);
  }
  return NULL;
}

const shl_kernel kernel_cholesky = {chol_prepare, chol_run};

/* ---- triangular_solve ---- */

typedef struct {
  bool left, lower, unit;
  int trans; /* CBLAS_TRANSPOSE */
  int64_t m, n, batches, ka;
} trsm_params;

static shl_status trsm_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  if (op->n_operands != 2 || op->n_results != 1) return op_error(op, SHLOC_ERR_VERIFY, "expects two operands");
  const shl_type *at = op->operands[0]->type, *bt = op->operands[1]->type;
  if (!type_is_static(at) || !type_is_static(bt) || at->rank < 2 || bt->rank != at->rank)
    return op_error(op, SHLOC_ERR_VERIFY, "needs static operands of equal rank >= 2");
  ST_TRY(linalg_check_type(op, type_storage_dtype(bt)));
  trsm_params *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  p->left = ku_bool(op, "left_side", false);
  p->lower = ku_bool(op, "lower", false);
  p->unit = ku_bool(op, "unit_diagonal", false);
  const shl_attr *t = op_attr(op, "transpose_a");
  if (!t || ku_enum_is(t, "NO_TRANSPOSE")) p->trans = CblasNoTrans;
  else if (ku_enum_is(t, "TRANSPOSE")) p->trans = CblasTrans;
  else if (ku_enum_is(t, "ADJOINT")) p->trans = CblasConjTrans;
  else return op_error(op, SHLOC_ERR_VERIFY, "has an invalid transpose_a");
  int32_t r = bt->rank;
  p->m = bt->dims[r - 2];
  p->n = bt->dims[r - 1];
  p->ka = at->dims[r - 1];
  if (at->dims[r - 2] != p->ka || p->ka != (p->left ? p->m : p->n))
    return op_error(op, SHLOC_ERR_VERIFY, "has mismatched matrix shapes");
  int64_t nb = type_num_elements(bt);
  p->batches = (p->m && p->n) ? nb / (p->m * p->n) : 0;
  *params = p;
  return NULL;
}

/* f32 the way XLA:CPU computes it (its TriangularSolveExpander, for one
 * diagonal block of at most 128): A's triangle is scaled to a unit diagonal
 * by columns, inverted a row at a time by substitution (FMA dot products
 * accumulated in order), unscaled by rows, and the solution is one product
 * with that inverse, accumulated in two interleaved FMA sums as its GEMM does. */
enum { XLA_TRSM_BLOCK = 128 };

static bool trsm_xla_applies(const trsm_params *p, shl_dtype dt) {
  /* XLA solves directly instead for many small matrices. */
  bool direct = p->batches > XLA_TRSM_BLOCK / 16 && p->ka < XLA_TRSM_BLOCK / 4;
  return dt == DT_F32 && p->ka >= 1 && p->ka <= XLA_TRSM_BLOCK && !direct;
}

static float dot2_f32(const float *x, size_t sx, const float *y, size_t sy, int64_t n) {
  float a0 = 0, a1 = 0;
  for (int64_t k = 0; k < n; k += 2) {
    a0 = fmaf(x[k * sx], y[k * sy], a0);
    if (k + 1 < n) a1 = fmaf(x[(k + 1) * sx], y[(k + 1) * sy], a1);
  }
  return a0 + a1;
}

/* Solves one matrix: a is ka x ka, b (and x) m x n; w is scratch of 3*ka*ka floats. */
static void trsm_xla_f32(const trsm_params *p, const float *a, const float *b, float *x, float *w) {
  int64_t n = p->ka, rows = p->m, cols = p->n;
  float *inv = w, *s = w + n * n, *d = w + 2 * n * n;
  bool unit = p->unit, lower = p->lower, tr = p->trans != CblasNoTrans;
  if (n == 1) {
    for (int64_t i = 0; i < rows * cols; i++) x[i] = unit ? b[i] : b[i] / a[0];
    return;
  }
  /* the triangle (unit diagonal: strict triangle plus identity) scaled by columns */
  for (int64_t i = 0; i < n; i++) d[i] = unit ? 1.0f : a[i * n + i];
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = 0; k < n; k++) {
      bool in = lower ? k <= i : k >= i;
      float v = i == k ? (unit ? 1.0f : a[i * n + k]) : in ? a[i * n + k] : 0.0f;
      s[i * n + k] = v / d[k];
    }
  for (int64_t i = 0; i < n * n; i++) inv[i] = (i % (n + 1) == 0) ? -1.0f : -0.0f;
  int64_t first = lower ? 0 : n - 1;
  inv[first * n + first] = 1.0f;
  float *row = d + n;
  for (int64_t it = 1; it < n; it++) {
    int64_t j = lower ? it : n - 1 - it;
    for (int64_t c = 0; c < n; c++) {
      float acc = 0;
      for (int64_t k = 0; k < n; k++) acc = fmaf(s[j * n + k], inv[k * n + c], acc);
      row[c] = -acc;
    }
    memcpy(inv + j * n, row, (size_t)n * sizeof *row);
  }
  for (int64_t i = 0; i < n; i++)
    for (int64_t c = 0; c < n; c++) inv[i * n + c] /= d[i];
  /* x = op(inv) b (left) or b op(inv) (right) */
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < cols; c++) {
      if (p->left)
        x[r * cols + c] = tr ? dot2_f32(inv + r, (size_t)n, b + c, (size_t)cols, n)
                             : dot2_f32(inv + r * n, 1, b + c, (size_t)cols, n);
      else
        x[r * cols + c] = tr ? dot2_f32(b + r * cols, 1, inv + c * n, 1, n)
                             : dot2_f32(b + r * cols, 1, inv + c, (size_t)n, n);
    }
}

static shl_status trsm_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const trsm_params *p = po->params;
  shl_buf *r = out[0];
  if (r->n == 0) return NULL;
  if (trsm_xla_applies(p, r->dtype)) {
    float *w = malloc((size_t)(3 * p->ka * p->ka + 2 * p->ka) * sizeof *w);
    if (!w) return st_oom();
    for (int64_t bi = 0; bi < p->batches; bi++)
      trsm_xla_f32(p, (const float *)in[0]->data + bi * p->ka * p->ka, (const float *)in[1]->data + bi * p->m * p->n,
                   (float *)r->data + bi * p->m * p->n, w);
    free(w);
    return NULL;
  }
  ku_ck ck = linalg_ck(r->dtype);
  size_t es = ku_ck_bytes(ck);
  void *A = malloc((size_t)in[0]->n * es + 16), *B = malloc((size_t)r->n * es + 16);
  if (!A || !B || !ku_to_ck(ck, in[0]->dtype, in[0]->data, A, in[0]->n) ||
      !ku_to_ck(ck, in[1]->dtype, in[1]->data, B, in[1]->n)) {
    free(A);
    free(B);
    return A && B ? op_error(po->op, SHLOC_ERR_UNSUPPORTED, "cannot convert its operands") : st_oom();
  }
  CBLAS_SIDE side = p->left ? CblasLeft : CblasRight;
  CBLAS_UPLO uplo = p->lower ? CblasLower : CblasUpper;
  CBLAS_DIAG diag = p->unit ? CblasUnit : CblasNonUnit;
  CBLAS_TRANSPOSE tr = (CBLAS_TRANSPOSE)p->trans;
  int m = (int)p->m, n = (int)p->n, ka = (int)p->ka;
  int lda = ka > 1 ? ka : 1, ldb = n > 1 ? n : 1;
  const mathlib *ml = mathlib_get();
  for (int64_t b = 0; b < p->batches; b++) {
    uint8_t *a = (uint8_t *)A + (size_t)(b * p->ka * p->ka) * es, *x = (uint8_t *)B + (size_t)(b * p->m * p->n) * es;
    switch (ck) {
      case CK_F32: ml->strsm(CblasRowMajor, side, uplo, tr, diag, m, n, 1.0f, (float *)a, lda, (float *)x, ldb); break;
      case CK_F64: ml->dtrsm(CblasRowMajor, side, uplo, tr, diag, m, n, 1.0, (double *)a, lda, (double *)x, ldb); break;
      case CK_C64: {
        const float one[2] = {1, 0};
        ml->ctrsm(CblasRowMajor, side, uplo, tr, diag, m, n, one, a, lda, x, ldb);
        break;
      }
      default: {
        const double one[2] = {1, 0};
        ml->ztrsm(CblasRowMajor, side, uplo, tr, diag, m, n, one, a, lda, x, ldb);
        break;
      }
    }
  }
  ku_from_ck(ck, r->dtype, B, r->data, r->n);
  free(A);
  free(B);
  return NULL;
}

const shl_kernel kernel_triangular_solve = {trsm_prepare, trsm_run};
