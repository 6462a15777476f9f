/* stablehlo.dot_general and stablehlo.dot as batched matrix products.
 * Per batch, each operand is a strided matrix (lhs M x K, rhs K x N) when
 * its free and its contracting dimensions each merge into one strided
 * dimension; BLAS then reads it in place through the transpose flag and the
 * leading dimension (one of the two strides must be 1).  Otherwise the
 * operand is first copied into the canonical [batch, M, K] / [batch, K, N]
 * layout.  Operands whose element type is not the compute type
 * (kconvert.h) are converted first (bf16/f16/f8 through f32, rounded once
 * at the end).  Floats multiply with OpenBLAS ?gemm (gemm.h): few large
 * products are each split across the threads, many products run one per
 * thread.  Small real products use gemm_small.h's vectorised loops (in
 * XLA's small-dot order), complex and integer ones plain loops.  The result
 * is [batch, M, N] row-major. */
#include <limits.h>
#include <omp.h>
#include <stdlib.h>

#include "dot_algorithm.h"
#include "gemm.h"
#include "gemm_small.h"
#include "mathlib.h"
#include "kutil.h"
#include "strided.h"

/* One operand as a matrix per batch: rows x cols (lhs M x K, rhs K x N). */
typedef struct {
  bool pack;                  /* copy into the canonical layout first */
  strided_box box;            /* pack: canonical walk over the operand (byte strides) */
  int64_t bst[KU_MAX_RANK];   /* batch strides (elements) of the matrix used */
  int64_t rs, cs;             /* its row and column strides (elements) */
} dot_side;

typedef struct {
  ku_ck ck;
  bool blas;                  /* products go to ?gemm (else the loops below) */
  int64_t B, M, K, N;
  int32_t nb;
  int64_t bdims[KU_MAX_RANK];
  dot_side lhs, rhs;
  dot_alg alg;                /* dot_general's `algorithm` (dot_algorithm.h) */
} dot_params;

/* Merges dimensions ds[0..n) (outer to inner) of a tensor into one strided
 * dimension: false when they are not evenly nested.  Unit dimensions are
 * ignored; if all are unit, the stride is 1. */
static bool merge_dims(const int64_t *dims, const int64_t *strides, const int64_t *ds, size_t n, int64_t *stride) {
  int64_t next = -1;
  *stride = 1;
  for (size_t i = n; i-- > 0;) {
    int64_t d = ds[i];
    if (dims[d] == 1) continue;
    if (next < 0) *stride = strides[d];
    else if (strides[d] != next) return false;
    next = strides[d] * dims[d];
  }
  return true;
}

/* BLAS form of a rows x cols matrix with strides rs, cs: the transpose flag
 * and the leading dimension, or false when neither stride is usable. */
static bool blas_form(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool *trans, int64_t *ld) {
  if (cs == 1 || cols == 1) {
    *trans = false;
    *ld = rows == 1 ? (cols > 1 ? cols : 1) : rs;
    return *ld >= cols && *ld <= INT_MAX;
  }
  if (rs == 1 || rows == 1) {
    *trans = true;
    *ld = cols == 1 ? (rows > 1 ? rows : 1) : cs;
    return *ld >= rows && *ld <= INT_MAX;
  }
  return false;
}

/* Sets up one operand: ob its batching dims, rd the row dims, cd the
 * column dims (each outer to inner), all of tensor type t. */
static void side_setup(const shl_type *t, const int64_t *ob, int32_t nb, const int64_t *rd, size_t nr, const int64_t *cd,
                       size_t nc, int64_t rows, int64_t cols, bool blas, size_t esz, dot_side *s) {
  int64_t st[KU_MAX_RANK];
  ku_strides(t->rank, t->dims, st);
  bool ok = merge_dims(t->dims, st, rd, nr, &s->rs) && merge_dims(t->dims, st, cd, nc, &s->cs);
  bool tr;
  int64_t ld;
  if (ok && blas) ok = blas_form(rows, cols, s->rs, s->cs, &tr, &ld);
  s->pack = !ok;
  if (ok) {
    for (int32_t i = 0; i < nb; i++) s->bst[i] = st[ob[i]];
    return;
  }
  /* Canonical layout [batch..., rows, cols]: box over it in that order. */
  int32_t r = 0;
  const int64_t *lists[3] = {ob, rd, cd};
  size_t lens[3] = {(size_t)nb, nr, nc};
  for (int g = 0; g < 3; g++)
    for (size_t i = 0; i < lens[g]; i++) {
      s->box.dims[r] = t->dims[lists[g][i]];
      s->box.ss[r] = st[lists[g][i]];
      r++;
    }
  s->box.rank = r;
  int64_t dst[KU_MAX_RANK];
  strided_row_major(r, s->box.dims, dst);
  memcpy(s->box.ds, dst, (size_t)r * sizeof *dst);
  strided_finish(&s->box, esz);
  int64_t m = rows * cols;
  for (int32_t i = nb - 1; i >= 0; i--) {
    s->bst[i] = m;
    m *= t->dims[ob[i]];
  }
  s->rs = cols;
  s->cs = 1;
}

/* Products of at most NAIVE_MAX_WORK multiply-adds sum as XLA:CPU does for
 * small dots (k ascending, separate multiply and add, no FMA; gemm_small.h),
 * so that results with cancellation agree to the last bit.  Batches of them
 * go to the threads from PAR_MIN_WORK multiply-adds in all, in pieces of at
 * least PIECE_MIN_WORK (waking a thread costs microseconds). */
enum { NAIVE_MAX_WORK = 1 << 15, PAR_MIN_WORK = 1 << 18, PIECE_MIN_WORK = 1 << 16 };

static shl_status dot_setup(plan_ctx *pc, const shl_op *op, const int64_t *lb, size_t nlb, const int64_t *rb, size_t nrb,
                            const int64_t *lc, size_t nlc, const int64_t *rc, size_t nrc, void **params) {
  const shl_type *lt = op->operands[0]->type, *rt = op->operands[1]->type;
  if (!type_is_static(lt) || !type_is_static(rt)) return op_error(op, SHLOC_ERR_UNSUPPORTED, "needs static shapes");
  if (lt->rank > KU_MAX_RANK || rt->rank > KU_MAX_RANK) return op_error(op, SHLOC_ERR_UNSUPPORTED, "rank too large");
  if (nlb != nrb || nlc != nrc) return op_error(op, SHLOC_ERR_VERIFY, "batching/contracting dimension counts differ");
  dot_params *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  memset(p, 0, sizeof *p);
  shl_dtype res = type_storage_dtype(op->results[0].type);
  p->ck = ku_ck_of(res);
  if (p->ck == CK_NONE) return op_error(op, SHLOC_ERR_UNSUPPORTED, "on %s is not supported", dtype_name(res));
  ST_TRY(dot_algorithm_of(op, p->ck, &p->alg));
  bool used_l[KU_MAX_RANK] = {false}, used_r[KU_MAX_RANK] = {false};
  int64_t lfree[KU_MAX_RANK], rfree[KU_MAX_RANK];
  size_t nlf = 0, nrf = 0;
  p->B = p->M = p->K = p->N = 1;
  for (size_t i = 0; i < nlb; i++) {
    if (lb[i] < 0 || lb[i] >= lt->rank || rb[i] < 0 || rb[i] >= rt->rank || used_l[lb[i]] || used_r[rb[i]] ||
        lt->dims[lb[i]] != rt->dims[rb[i]])
      return op_error(op, SHLOC_ERR_VERIFY, "has invalid batching dimensions");
    used_l[lb[i]] = used_r[rb[i]] = true;
    p->bdims[i] = lt->dims[lb[i]];
    p->B *= lt->dims[lb[i]];
  }
  p->nb = (int32_t)nlb;
  for (size_t i = 0; i < nlc; i++) {
    if (lc[i] < 0 || lc[i] >= lt->rank || rc[i] < 0 || rc[i] >= rt->rank || used_l[lc[i]] || used_r[rc[i]] ||
        lt->dims[lc[i]] != rt->dims[rc[i]])
      return op_error(op, SHLOC_ERR_VERIFY, "has invalid contracting dimensions");
    used_l[lc[i]] = used_r[rc[i]] = true;
    p->K *= lt->dims[lc[i]];
  }
  for (int32_t d = 0; d < lt->rank; d++)
    if (!used_l[d]) lfree[nlf++] = d, p->M *= lt->dims[d];
  for (int32_t d = 0; d < rt->rank; d++)
    if (!used_r[d]) rfree[nrf++] = d, p->N *= rt->dims[d];
  if (p->M > INT_MAX || p->N > INT_MAX || p->K > INT_MAX) return op_error(op, SHLOC_ERR_UNSUPPORTED, "matrix too large");
  p->blas = p->ck != CK_INT && p->M * p->N * p->K > NAIVE_MAX_WORK;
  if (p->blas) ST_TRY(mathlib_require(op));
  size_t esz = ku_ck_bytes(p->ck);
  side_setup(lt, lb, p->nb, lfree, nlf, lc, nlc, p->M, p->K, p->blas, esz, &p->lhs);
  side_setup(rt, rb, p->nb, rc, nrc, rfree, nrf, p->K, p->N, p->blas, esz, &p->rhs);
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

/* Buffers already in the compute type are used as they are. */
static bool in_compute_type(ku_ck ck, shl_dtype t) {
  switch (ck) {
    case CK_F32: return t == DT_F32;
    case CK_F64: return t == DT_F64;
    case CK_C64: return t == DT_C64;
    case CK_C128: return t == DT_C128;
    default: return false;
  }
}

/* The data an operand's matrices are read from: converted to the compute
 * type and/or packed as needed; *owned lists what to free. */
static shl_status side_data(ku_ck ck, const dot_side *s, const shl_buf *b, const void **out, void *owned[2]) {
  size_t es = ku_ck_bytes(ck);
  const void *src = b->data;
  owned[0] = owned[1] = NULL;
  if (!in_compute_type(ck, b->dtype)) {
    void *c = malloc((size_t)b->n * es + 16);
    if (!c) return st_oom();
    owned[0] = c;
    if (!ku_to_ck(ck, b->dtype, b->data, c, b->n))
      return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL, "dot: cannot convert %s operands", dtype_name(b->dtype));
    src = c;
  }
  if (s->pack) {
    void *c = malloc((size_t)b->n * es + 16);
    if (!c) return st_oom();
    owned[1] = c;
    strided_copy(&s->box, c, src, es);
    src = c;
  }
  *out = src;
  return NULL;
}

static int64_t batch_offset(const dot_params *p, const int64_t *bst, int64_t b) {
  int64_t off = 0;
  for (int32_t i = p->nb - 1; i >= 0; i--) {
    off += b % p->bdims[i] * bst[i];
    b /= p->bdims[i];
  }
  return off;
}

/* Complex small products: the same order as gemm_small, one element at a time. */
#define NAIVE_GEMM(T)                                                                                \
  do {                                                                                               \
    const T *A_ = a;                                                                                 \
    const T *B_ = bm;                                                                                \
    T *C_ = c;                                                                                       \
    for (int64_t i = 0; i < p->M; i++)                                                               \
      for (int64_t j = 0; j < p->N; j++) {                                                           \
        T acc = 0;                                                                                   \
        for (int64_t k = 0; k < p->K; k++) {                                                         \
          T prod = A_[i * ars + k * acs] * B_[k * brs + j * bcs];                                    \
          acc += prod;                                                                               \
        }                                                                                            \
        C_[i * p->N + j] = acc;                                                                      \
      }                                                                                              \
  } while (0)

/* Integers wrap (uint64); i1 is a boolean or-of-ands. */
static void int_product(const dot_params *p, bool pred, const uint64_t *A, const uint64_t *Bm, uint64_t *C) {
  int64_t ars = p->lhs.rs, acs = p->lhs.cs, brs = p->rhs.rs, bcs = p->rhs.cs;
  memset(C, 0, (size_t)(p->M * p->N) * sizeof *C);
  if (pred) {
    for (int64_t i = 0; i < p->M; i++)
      for (int64_t j = 0; j < p->N; j++) {
        uint64_t acc = 0;
        for (int64_t k = 0; k < p->K && !acc; k++) acc = A[i * ars + k * acs] && Bm[k * brs + j * bcs];
        C[i * p->N + j] = acc;
      }
    return;
  }
#pragma omp parallel for if (p->M * p->N * p->K > PAR_MIN_WORK)
  for (int64_t i = 0; i < p->M; i++) {
    uint64_t *c = C + i * p->N;
    for (int64_t k = 0; k < p->K; k++) {
      uint64_t av = A[i * ars + k * acs];
      const uint64_t *b = Bm + k * brs;
      for (int64_t j = 0; j < p->N; j++) c[j] += av * b[j * bcs];
    }
  }
}

/* One batch's product without BLAS. */
static void loop_product(const dot_params *p, bool pred, const void *a, const void *bm, void *c) {
  int64_t ars = p->lhs.rs, acs = p->lhs.cs, brs = p->rhs.rs, bcs = p->rhs.cs;
  switch (p->ck) {
    case CK_F32:
    case CK_F64: {
      gemm_small_shape g = {p->M, p->N, p->K, ars, acs, brs, bcs};
      gemm_small(p->ck, &g, a, bm, c);
      break;
    }
    case CK_C64: NAIVE_GEMM(float complex); break;
    case CK_C128: NAIVE_GEMM(double complex); break;
    default: int_product(p, pred, a, bm, c); break;
  }
}

static void run_batches(const dot_params *p, bool pred, const uint8_t *A, const uint8_t *Bm, uint8_t *C) {
  size_t es = ku_ck_bytes(p->ck);
  int64_t mn = p->M * p->N;
  if (!p->blas) {
    int64_t piece = PIECE_MIN_WORK / (mn * p->K) + 1;
#pragma omp parallel for schedule(dynamic, piece) if (p->B > 1 && p->B * mn * p->K > PAR_MIN_WORK)
    for (int64_t b = 0; b < p->B; b++)
      loop_product(p, pred, A + (size_t)batch_offset(p, p->lhs.bst, b) * es,
                   Bm + (size_t)batch_offset(p, p->rhs.bst, b) * es, C + (size_t)(b * mn) * es);
    return;
  }
  gemm_shape g = {.M = p->M, .N = p->N, .K = p->K, .ldc = p->N > 1 ? p->N : 1};
  blas_form(p->M, p->K, p->lhs.rs, p->lhs.cs, &g.ta, &g.lda);
  blas_form(p->K, p->N, p->rhs.rs, p->rhs.cs, &g.tb, &g.ldb);
  if (p->B < GEMM_FEW_PRODUCTS && mn * p->K > PAR_MIN_WORK) {
    /* Few large products: each one split across the threads (in pieces that
     * do not depend on the thread count: gemm.c). */
    for (int64_t b = 0; b < p->B; b++)
      gemm_call(p->ck, &g, A + (size_t)batch_offset(p, p->lhs.bst, b) * es, Bm + (size_t)batch_offset(p, p->rhs.bst, b) * es,
                C + (size_t)(b * mn) * es);
    return;
  }
  /* Many products: one thread each. */
  int saved = gemm_serial_begin();
#pragma omp parallel for schedule(dynamic) if (p->B > 1 && p->B * mn * p->K > PAR_MIN_WORK)
  for (int64_t b = 0; b < p->B; b++)
    gemm_one(p->ck, &g, A + (size_t)batch_offset(p, p->lhs.bst, b) * es, Bm + (size_t)batch_offset(p, p->rhs.bst, b) * es,
             C + (size_t)(b * mn) * es);
  gemm_serial_end(saved);
}

static void alg_product(const void *ctx, const float *a, const float *b, float *c) {
  run_batches(ctx, false, (const uint8_t *)a, (const uint8_t *)b, (uint8_t *)c);
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
  const void *A = NULL, *Bm = NULL;
  void *own_a[2] = {NULL, NULL}, *own_b[2] = {NULL, NULL}, *C = NULL;
  shl_status st = side_data(p->ck, &p->lhs, in[0], &A, own_a);
  if (!st) st = side_data(p->ck, &p->rhs, in[1], &Bm, own_b);
  bool direct = in_compute_type(p->ck, r->dtype);
  if (!st) {
    C = direct ? r->data : malloc((size_t)r->n * es);
    if (!C) st = st_oom();
  }
  if (!st && p->alg != DOT_ALG_DEFAULT)
    st = dot_algorithm_run(p->alg, A, in[0]->n, Bm, in[1]->n, C, r->n, alg_product, p);
  else if (!st)
    run_batches(p, r->dtype == DT_I1, A, Bm, C);
  if (!st && !direct) ku_from_ck(p->ck, r->dtype, C, r->data, r->n);
  for (int i = 0; i < 2; i++) {
    free(own_a[i]);
    free(own_b[i]);
  }
  if (!direct) free(C);
  return st;
}

const shl_kernel kernel_dot_general = {dot_general_prepare, dot_run};
const shl_kernel kernel_dot = {dot_prepare, dot_run};
