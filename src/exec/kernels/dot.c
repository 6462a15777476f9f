/* stablehlo.dot_general and stablehlo.dot.  Operands are packed (gathered
 * and converted to the compute type) into [batch, M, K] and [batch, K, N];
 * floats multiply with OpenBLAS ?gemm (bf16/f16/f8 through f32, rounded once
 * at the end), integers with a blocked loop in wrapping uint64 arithmetic. */
#include <cblas.h>
#include <complex.h>
#include <stdlib.h>

#include "kconvert.h"
#include "kutil.h"

typedef struct {
  ku_ck ck;
  int64_t B, M, K, N;
  int64_t *lhs_offs, *rhs_offs; /* source offsets of the packed layouts (NULL: identity) */
} dot_params;

/* Walk offsets of `t` visiting dims in `order`; NULL when the walk is the identity. */
static shl_status pack_offsets(plan_ctx *pc, const shl_type *t, const int64_t *order, int64_t **out) {
  int32_t r = t->rank;
  bool ident = true;
  for (int32_t k = 0; k < r; k++) ident = ident && order[k] == k;
  *out = NULL;
  if (ident) return NULL;
  int64_t strides[KU_MAX_RANK], pd[KU_MAX_RANK], ps[KU_MAX_RANK];
  ku_strides(r, t->dims, strides);
  for (int32_t k = 0; k < r; k++) pd[k] = t->dims[order[k]], ps[k] = strides[order[k]];
  int64_t n = type_num_elements(t);
  *out = plan_alloc(pc, (size_t)(n + 1) * sizeof(int64_t));
  if (!*out) return st_oom();
  ku_walk_offsets(r, pd, ps, *out);
  return NULL;
}

static shl_status dot_setup(plan_ctx *pc, const shl_op *op, const int64_t *lb, size_t nlb, const int64_t *rb, size_t nrb,
                            const int64_t *lc, size_t nlc, const int64_t *rc, size_t nrc, void **params) {
  const shl_type *lt = op->operands[0]->type, *rt = op->operands[1]->type;
  if (!type_is_static(lt) || !type_is_static(rt)) return op_error(op, SHLOC_ERR_UNSUPPORTED, "needs static shapes");
  if (lt->rank > KU_MAX_RANK || rt->rank > KU_MAX_RANK) return op_error(op, SHLOC_ERR_UNSUPPORTED, "rank too large");
  if (nlb != nrb || nlc != nrc) return op_error(op, SHLOC_ERR_VERIFY, "batching/contracting dimension counts differ");
  dot_params *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  shl_dtype res = type_storage_dtype(op->results[0].type);
  p->ck = ku_ck_of(res);
  if (p->ck == CK_NONE) return op_error(op, SHLOC_ERR_UNSUPPORTED, "on %s is not supported", dtype_name(res));
  bool used_l[KU_MAX_RANK] = {false}, used_r[KU_MAX_RANK] = {false};
  int64_t lorder[KU_MAX_RANK], rorder[KU_MAX_RANK];
  int32_t nl = 0, nr = 0;
  p->B = p->M = p->K = p->N = 1;
  for (size_t i = 0; i < nlb; i++) {
    if (lb[i] < 0 || lb[i] >= lt->rank || rb[i] < 0 || rb[i] >= rt->rank || used_l[lb[i]] || used_r[rb[i]])
      return op_error(op, SHLOC_ERR_VERIFY, "has invalid batching dimensions");
    used_l[lb[i]] = used_r[rb[i]] = true;
    lorder[nl++] = lb[i];
    rorder[nr++] = rb[i];
    p->B *= lt->dims[lb[i]];
  }
  for (size_t i = 0; i < nlc; i++) {
    if (lc[i] < 0 || lc[i] >= lt->rank || rc[i] < 0 || rc[i] >= rt->rank || used_l[lc[i]] || used_r[rc[i]])
      return op_error(op, SHLOC_ERR_VERIFY, "has invalid contracting dimensions");
    used_l[lc[i]] = used_r[rc[i]] = true;
    rorder[nr++] = rc[i];
    p->K *= lt->dims[lc[i]];
  }
  for (int32_t d = 0; d < lt->rank; d++)
    if (!used_l[d]) lorder[nl++] = d, p->M *= lt->dims[d];
  for (size_t i = 0; i < nlc; i++) lorder[nl++] = lc[i];
  for (int32_t d = 0; d < rt->rank; d++)
    if (!used_r[d]) rorder[nr++] = d, p->N *= rt->dims[d];
  ST_TRY(pack_offsets(pc, lt, lorder, &p->lhs_offs));
  ST_TRY(pack_offsets(pc, rt, rorder, &p->rhs_offs));
  *params = p;
  return NULL;
}

static shl_status dot_general_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  if (op->n_operands != 2 || op->n_results != 1) return op_error(op, SHLOC_ERR_VERIFY, "expects two operands");
  const shl_attr *dn = op_attr(op, "dot_dimension_numbers");
  if (!dn || dn->kind != AT_STRUCT) return op_error(op, SHLOC_ERR_VERIFY, "has no dot_dimension_numbers");
  int64_t lb[KU_MAX_RANK], rb[KU_MAX_RANK], lc[KU_MAX_RANK], rc[KU_MAX_RANK];
  size_t nlb = 0, nrb = 0, nlc = 0, nrc = 0;
  const shl_attr *f;
  if ((f = attr_struct_field(dn, "lhs_batching_dimensions")) && !attr_as_ints(f, lb, KU_MAX_RANK, &nlb)) nlb = 0;
  if ((f = attr_struct_field(dn, "rhs_batching_dimensions")) && !attr_as_ints(f, rb, KU_MAX_RANK, &nrb)) nrb = 0;
  if ((f = attr_struct_field(dn, "lhs_contracting_dimensions")) && !attr_as_ints(f, lc, KU_MAX_RANK, &nlc)) nlc = 0;
  if ((f = attr_struct_field(dn, "rhs_contracting_dimensions")) && !attr_as_ints(f, rc, KU_MAX_RANK, &nrc)) nrc = 0;
  if (nlb > KU_MAX_RANK || nrb > KU_MAX_RANK || nlc > KU_MAX_RANK || nrc > KU_MAX_RANK)
    return op_error(op, SHLOC_ERR_VERIFY, "has too many dimensions");
  return dot_setup(pc, op, lb, nlb, rb, nrb, lc, nlc, rc, nrc, params);
}

static shl_status dot_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  if (op->n_operands != 2 || op->n_results != 1) return op_error(op, SHLOC_ERR_VERIFY, "expects two operands");
  const shl_type *lt = op->operands[0]->type, *rt = op->operands[1]->type;
  if (lt->rank < 1 || lt->rank > 2 || rt->rank < 1 || rt->rank > 2)
    return op_error(op, SHLOC_ERR_VERIFY, "needs operands of rank 1 or 2");
  int64_t lc = lt->rank - 1, rc = 0;
  return dot_setup(pc, op, NULL, 0, NULL, 0, &lc, 1, &rc, 1, params);
}

/* Packs an operand into compute type ck; *owned is set when a copy was made. */
static shl_status pack(ku_ck ck, const shl_buf *b, const int64_t *offs, void **out, bool *owned) {
  size_t esz = dtype_bytes(b->dtype);
  *owned = false;
  if (!offs && ku_ck_of(b->dtype) == ck && ck != CK_INT && (ck != CK_F32 || b->dtype == DT_F32)) {
    *out = b->data;
    return NULL;
  }
  void *tmp = NULL, *dst = malloc((size_t)b->n * ku_ck_bytes(ck) + 16);
  if (!dst) return st_oom();
  const void *src = b->data;
  if (offs) {
    tmp = malloc((size_t)b->n * esz + 16);
    if (!tmp) {
      free(dst);
      return st_oom();
    }
    ku_gather(esz, b->data, offs, tmp, b->n);
    src = tmp;
  }
  bool ok = ku_to_ck(ck, b->dtype, src, dst, b->n);
  free(tmp);
  if (!ok) {
    free(dst);
    return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL, "dot: cannot convert %s operands", dtype_name(b->dtype));
  }
  *out = dst;
  *owned = true;
  return NULL;
}

static void int_gemm(int64_t M, int64_t K, int64_t N, const uint64_t *A, const uint64_t *Bm, uint64_t *C) {
  memset(C, 0, (size_t)(M * N) * sizeof *C);
#pragma omp parallel for if (M * N * K > (1 << 18))
  for (int64_t i = 0; i < M; i++) {
    uint64_t *c = C + i * N;
    for (int64_t k = 0; k < K; k++) {
      uint64_t a = A[i * K + k];
      const uint64_t *b = Bm + k * N;
      for (int64_t j = 0; j < N; j++) c[j] += a * b[j];
    }
  }
}

static void bool_gemm(int64_t M, int64_t K, int64_t N, const uint64_t *A, const uint64_t *Bm, uint64_t *C) {
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < N; j++) {
      uint64_t acc = 0;
      for (int64_t k = 0; k < K && !acc; k++) acc = A[i * K + k] && Bm[k * N + j];
      C[i * N + j] = acc;
    }
}

/* Small products run as a plain loop: k ascending, separate multiply and add
 * (no FMA), which is how XLA:CPU evaluates small dots; results with
 * cancellation then agree to the last bit. */
#define NAIVE_GEMM(T)                                                                                        \
  do {                                                                                                     \
    const T *A_ = (const T *)a, *B_ = (const T *)bb;                                                       \
    T *C_ = (T *)c;                                                                                        \
    for (int64_t i = 0; i < p->M; i++)                                                                     \
      for (int64_t j = 0; j < p->N; j++) {                                                                 \
        T acc = 0;                                                                                         \
        for (int64_t k = 0; k < p->K; k++) {                                                               \
          T prod = A_[i * p->K + k] * B_[k * p->N + j];                                                    \
          acc += prod;                                                                                     \
        }                                                                                                  \
        C_[i * p->N + j] = acc;                                                                            \
      }                                                                                                    \
  } while (0)

enum { NAIVE_MAX_WORK = 1 << 15 };

static void gemm_batch(ku_ck ck, bool pred, const dot_params *p, const void *A, const void *Bm, void *C) {
  int M = (int)p->M, N = (int)p->N, K = (int)p->K;
  int lda = K > 1 ? K : 1, ldb = N > 1 ? N : 1, ldc = N > 1 ? N : 1;
  size_t es = ku_ck_bytes(ck);
  for (int64_t b = 0; b < p->B; b++) {
    const uint8_t *a = (const uint8_t *)A + (size_t)(b * p->M * p->K) * es;
    const uint8_t *bb = (const uint8_t *)Bm + (size_t)(b * p->K * p->N) * es;
    uint8_t *c = (uint8_t *)C + (size_t)(b * p->M * p->N) * es;
    if (ck != CK_INT && p->M * p->N * p->K <= NAIVE_MAX_WORK) {
      switch (ck) {
        case CK_F32: NAIVE_GEMM(float); break;
        case CK_F64: NAIVE_GEMM(double); break;
        case CK_C64: NAIVE_GEMM(float complex); break;
        default: NAIVE_GEMM(double complex); break;
      }
      continue;
    }
    switch (ck) {
      case CK_F32:
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, (const float *)a, lda, (const float *)bb,
                    ldb, 0.0f, (float *)c, ldc);
        break;
      case CK_F64:
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0, (const double *)a, lda,
                    (const double *)bb, ldb, 0.0, (double *)c, ldc);
        break;
      case CK_C64: {
        const float one[2] = {1, 0}, zero[2] = {0, 0};
        cblas_cgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, one, a, lda, bb, ldb, zero, c, ldc);
        break;
      }
      case CK_C128: {
        const double one[2] = {1, 0}, zero[2] = {0, 0};
        cblas_zgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, one, a, lda, bb, ldb, zero, c, ldc);
        break;
      }
      default:
        if (pred) bool_gemm(p->M, p->K, p->N, (const uint64_t *)a, (const uint64_t *)bb, (uint64_t *)c);
        else int_gemm(p->M, p->K, p->N, (const uint64_t *)a, (const uint64_t *)bb, (uint64_t *)c);
        break;
    }
  }
}

static shl_status dot_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const dot_params *p = po->params;
  shl_buf *r = out[0];
  if (r->n == 0) return NULL;
  size_t es = ku_ck_bytes(p->ck);
  if (p->K == 0) {
    /* An empty contraction: every element is the sum of nothing. */
    void *z = calloc((size_t)r->n, es);
    if (!z) return st_oom();
    ku_from_ck(p->ck, r->dtype, z, r->data, r->n);
    free(z);
    return NULL;
  }
  void *A = NULL, *Bm = NULL, *C = NULL;
  bool own_a = false, own_b = false;
  shl_status st = pack(p->ck, in[0], p->lhs_offs, &A, &own_a);
  if (!st) st = pack(p->ck, in[1], p->rhs_offs, &Bm, &own_b);
  bool direct = ku_ck_of(r->dtype) == p->ck && p->ck != CK_INT && (p->ck != CK_F32 || r->dtype == DT_F32);
  if (!st) {
    C = direct ? r->data : malloc((size_t)r->n * es);
    if (!C) st = st_oom();
  }
  if (!st) {
    gemm_batch(p->ck, r->dtype == DT_I1, p, A, Bm, C);
    if (!direct) ku_from_ck(p->ck, r->dtype, C, r->data, r->n);
  }
  if (own_a) free(A);
  if (own_b) free(Bm);
  if (!direct) free(C);
  return st;
}

const shl_kernel kernel_dot_general = {dot_general_prepare, dot_run};
const shl_kernel kernel_dot = {dot_prepare, dot_run};
