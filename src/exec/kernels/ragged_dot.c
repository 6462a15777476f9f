/* chlo.ragged_dot: a dot_general whose lhs has one ragged dimension cut into
 * groups by group_sizes (ChloOps.td; reference decomposition in
 * ChloLegalizeToStablehlo.cpp).  Groups are consecutive ranges along the
 * ragged dimension: group j covers [start_j, start_j + size_j) with start_j
 * the sum of the sizes before it (an empty range for a size <= 0, positions
 * past the dimension ignored), per row of group_sizes' leading dimensions.
 *
 *   mode 1, ragged lhs free dim m:   out[b,m,n]   = lhs[b,m,:] . rhs[j,b,:,n] for the group(s) j holding m
 *   mode 2, ragged contracting k:    out[j,b,m,n] = sum over k in group j of lhs[b,m,k] rhs[b,k,n]
 *   mode 3, ragged batch dim:        a plain dot_general (groups do not interact)
 *
 * Rows outside every group are zero.  The reference masks lhs with zeros
 * and multiplies by every group's rhs, so an inf/NaN in another group's rhs
 * would give NaN there; here only the group's own products are summed.
 *
 * Operands are gathered once into canonical layouts L[B][M][K] and
 * R[G][B][N][K] (K innermost, so each output element is one contiguous dot
 * product) in the compute type: int64 wrapping for integers, double for
 * floats (rounded once into the result type), double complex for complex.
 * Float products go to ?gemm (gemm.h) one block per group: a group's rows
 * (mode 1) and its contracting range (mode 2) are contiguous there; small
 * products, integers and groups with negative sizes (which may overlap) use
 * the loops. */
#include <complex.h>
#include <stdlib.h>

#include "ew_common.h"
#include "exec/plan.h"
#include "gemm.h"
#include "kutil.h"
#include "mathlib.h"

enum { RD_NONCONTRACTING = 1, RD_CONTRACTING = 2, RD_BATCH = 3 };

typedef struct {
  int mode;
  ew_cat cat;
  int64_t B, M, K, N, G;
  /* gather orders (dims of lhs / rhs, outer to inner) */
  int32_t lrank, rrank, nl, nr;
  int64_t lorder[KU_MAX_RANK], rorder[KU_MAX_RANK];
  int64_t ldims[KU_MAX_RANK], rdims[KU_MAX_RANK];
  /* the ragged dimension inside M (mode 1) or K (mode 2): its size, the
   * product of the sizes after it, and the product of the prefix dims before
   * it that index group_sizes (x...) */
  int64_t rsize, rinner, xcount;
  bool gs_per_row; /* group_sizes has leading dims (else one row for all) */
  bool blas;       /* float products through ?gemm */
} rd_params;

static bool field(const shl_attr *dn, const char *name, int64_t *v, size_t *n) {
  const shl_attr *f = attr_struct_field(dn, name);
  *n = 0;
  return !f || (attr_as_ints(f, NULL, 0, n) && *n <= KU_MAX_RANK && attr_as_ints(f, v, KU_MAX_RANK, n));
}

static bool contains(const int64_t *v, size_t n, int64_t x) {
  for (size_t i = 0; i < n; i++)
    if (v[i] == x) return true;
  return false;
}

static shl_status rd_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  if (op->n_operands != 3 || op->n_results != 1) return op_error(op, SHLOC_ERR_VERIFY, "expects lhs, rhs, group_sizes");
  const shl_type *lt = op->operands[0]->type, *rt = op->operands[1]->type, *gt = op->operands[2]->type;
  const shl_type *ot = op->results[0].type;
  if (!type_is_static(lt) || !type_is_static(rt) || !type_is_static(gt) || !type_is_static(ot))
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "needs static shapes");
  if (lt->rank > KU_MAX_RANK || rt->rank > KU_MAX_RANK) return op_error(op, SHLOC_ERR_UNSUPPORTED, "rank too large");
  if (gt->rank < 1) return op_error(op, SHLOC_ERR_VERIFY, "group_sizes must have rank >= 1");
  const shl_attr *dn = op_attr(op, "ragged_dot_dimension_numbers");
  int64_t lb[KU_MAX_RANK], rb[KU_MAX_RANK], lc[KU_MAX_RANK], rc[KU_MAX_RANK], lr[KU_MAX_RANK], rg[KU_MAX_RANK];
  size_t nlb, nrb, nlc, nrc, nlr, nrg;
  if (!dn || dn->kind != AT_STRUCT || !field(dn, "lhs_batching_dimensions", lb, &nlb) ||
      !field(dn, "rhs_batching_dimensions", rb, &nrb) || !field(dn, "lhs_contracting_dimensions", lc, &nlc) ||
      !field(dn, "rhs_contracting_dimensions", rc, &nrc) || !field(dn, "lhs_ragged_dimensions", lr, &nlr) ||
      !field(dn, "rhs_group_dimensions", rg, &nrg) || nlr != 1 || nlb != nrb || nlc != nrc || nrg > 1)
    return op_error(op, SHLOC_ERR_VERIFY, "has invalid ragged_dot_dimension_numbers");
  rd_params *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  memset(p, 0, sizeof *p);
  p->cat = ew_cat_of(type_storage_dtype(ot));
  if (p->cat == EWC_NONE || ew_cat_of(type_storage_dtype(lt)) != p->cat || ew_cat_of(type_storage_dtype(rt)) != p->cat ||
      !dtype_is_int(type_storage_dtype(gt)))
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "with element types %s, %s -> %s is not supported",
                    dtype_name(type_storage_dtype(lt)), dtype_name(type_storage_dtype(rt)),
                    dtype_name(type_storage_dtype(ot)));
  int64_t ragged = lr[0];
  /* Each dim once and in range (the verifier's rules; cheap to recheck here
   * since the gathers below index with them). */
  bool seen_l[KU_MAX_RANK] = {false}, seen_r[KU_MAX_RANK] = {false};
  const int64_t *ls[2] = {lb, lc}, *rs[3] = {rb, rc, rg};
  size_t lns[2] = {nlb, nlc}, rns[3] = {nrb, nrc, nrg};
  bool ok = ragged >= 0 && ragged < lt->rank;
  for (int g = 0; g < 2; g++)
    for (size_t i = 0; i < lns[g] && ok; i++) {
      ok = ls[g][i] >= 0 && ls[g][i] < lt->rank && !seen_l[ls[g][i]];
      if (ok) seen_l[ls[g][i]] = true;
    }
  for (int g = 0; g < 3; g++)
    for (size_t i = 0; i < rns[g] && ok; i++) {
      ok = rs[g][i] >= 0 && rs[g][i] < rt->rank && !seen_r[rs[g][i]];
      if (ok) seen_r[rs[g][i]] = true;
    }
  for (size_t i = 0; i < nlb && ok; i++) ok = lt->dims[lb[i]] == rt->dims[rb[i]];
  for (size_t i = 0; i < nlc && ok; i++) ok = lt->dims[lc[i]] == rt->dims[rc[i]];
  if (!ok) return op_error(op, SHLOC_ERR_VERIFY, "has invalid ragged_dot_dimension_numbers");
  p->mode = contains(lb, nlb, ragged) ? RD_BATCH : contains(lc, nlc, ragged) ? RD_CONTRACTING : RD_NONCONTRACTING;
  if ((p->mode == RD_NONCONTRACTING) != (nrg == 1)) return op_error(op, SHLOC_ERR_VERIFY, "has invalid rhs_group_dimensions");
  p->lrank = lt->rank;
  p->rrank = rt->rank;
  memcpy(p->ldims, lt->dims, (size_t)lt->rank * sizeof *p->ldims);
  memcpy(p->rdims, rt->dims, (size_t)rt->rank * sizeof *p->rdims);
  /* lhs: batch (lb order), free (ascending), contracting (lc order) */
  p->B = p->M = p->K = p->N = p->G = 1;
  int32_t k = 0;
  for (size_t i = 0; i < nlb; i++) p->lorder[k++] = lb[i], p->B *= lt->dims[lb[i]];
  int64_t after = 1; /* mode 1: free sizes after the ragged dim; x: those before */
  p->xcount = 1;
  for (int32_t d = 0; d < lt->rank; d++) {
    if (contains(lb, nlb, d) || contains(lc, nlc, d)) continue;
    p->lorder[k++] = d;
    p->M *= lt->dims[d];
    if (d > ragged) after *= lt->dims[d];
    else if (d < ragged && p->mode == RD_NONCONTRACTING) p->xcount *= lt->dims[d];
  }
  int64_t kafter = 1;
  bool past = false;
  for (size_t i = 0; i < nlc; i++) {
    p->lorder[k++] = lc[i];
    p->K *= lt->dims[lc[i]];
    if (past) kafter *= lt->dims[lc[i]];
    else if (lc[i] == ragged) past = true;
    else if (p->mode == RD_CONTRACTING) p->xcount *= lt->dims[lc[i]];
  }
  p->nl = k;
  p->rsize = lt->dims[ragged];
  p->rinner = p->mode == RD_CONTRACTING ? kafter : after;
  /* rhs: group, batch (rb order), free (ascending), contracting (rc order) */
  k = 0;
  if (nrg) p->rorder[k++] = rg[0], p->G = rt->dims[rg[0]];
  for (size_t i = 0; i < nrb; i++) p->rorder[k++] = rb[i];
  for (int32_t d = 0; d < rt->rank; d++)
    if (!contains(rb, nrb, d) && !contains(rc, nrc, d) && !contains(rg, nrg, d)) p->rorder[k++] = d, p->N *= rt->dims[d];
  for (size_t i = 0; i < nrc; i++) p->rorder[k++] = rc[i];
  p->nr = k;
  if (p->mode != RD_NONCONTRACTING) p->G = gt->dims[gt->rank - 1];
  p->gs_per_row = gt->rank > 1;
  if (p->mode == RD_BATCH) p->G = 1;
  /* group_sizes rows: [b..., x...] when given per row (verified shape) */
  int64_t rows = p->gs_per_row ? type_num_elements(gt) / (gt->dims[gt->rank - 1] ? gt->dims[gt->rank - 1] : 1) : 1;
  bool rows_ok = p->gs_per_row ? rows == p->B * p->xcount : gt->rank == 1;
  if (p->mode != RD_BATCH && (!rows_ok || gt->dims[gt->rank - 1] != p->G))
    return op_error(op, SHLOC_ERR_VERIFY, "group_sizes shape does not match the lhs and rhs");
  if (type_num_elements(ot) != (p->mode == RD_CONTRACTING ? p->G : 1) * p->B * p->M * p->N)
    return op_error(op, SHLOC_ERR_VERIFY, "result shape does not match the operands");
  p->blas = p->cat != EWC_INT && p->M * p->N * p->K >= (1 << 15) && p->M <= INT32_MAX && p->N <= INT32_MAX &&
            p->K <= INT32_MAX;
  if (p->blas) ST_TRY(mathlib_require(op));
  *params = p;
  return NULL;
}

/* Copies `src` (row-major with dims) into dst walking the dims in `order`. */
#define GATHER(T)                                                                           \
  static void gather_##T(const T *src, int32_t rank, const int64_t *dims, const int64_t *order, \
                         T *dst) {                                                          \
    int64_t st[KU_MAX_RANK], idx[KU_MAX_RANK] = {0}, n = 1, off = 0;                       \
    ku_strides(rank, dims, st);                                                             \
    for (int32_t i = 0; i < rank; i++) n *= dims[order[i]];                                 \
    for (int64_t e = 0; e < n; e++) {                                                       \
      dst[e] = src[off];                                                                    \
      for (int32_t i = rank - 1; i >= 0; i--) {                                             \
        int64_t d = order[i];                                                               \
        off += st[d];                                                                       \
        if (++idx[i] < dims[d]) break;                                                      \
        off -= st[d] * dims[d];                                                             \
        idx[i] = 0;                                                                         \
      }                                                                                     \
    }                                                                                       \
  }

typedef uint64_t u64;
typedef double complex cplx;
GATHER(u64)
GATHER(double)
GATHER(cplx)

/* Group j's range along the ragged dimension for group_sizes row `row`. */
static void group_range(const rd_params *p, const int64_t *gs, int64_t row, int64_t j, int64_t *s, int64_t *e) {
  const int64_t *g = gs + (p->gs_per_row ? row * p->G : 0);
  uint64_t start = 0; /* sums wrap rather than overflow */
  for (int64_t i = 0; i < j; i++) start += (uint64_t)g[i];
  int64_t a = (int64_t)start, b = (int64_t)(start + (uint64_t)g[j]);
  *s = a < 0 ? 0 : a;
  *e = b > p->rsize ? p->rsize : b;
}

#define PRODUCTS(T)                                                                                   \
  static void products_##T(const rd_params *p, const int64_t *gs, const T *L, const T *R, T *O) {    \
    int64_t B = p->B, M = p->M, N = p->N, K = p->K;                                                   \
    if (p->mode == RD_CONTRACTING) {                                                                  \
      int64_t span = p->rsize * p->rinner;                                                            \
      for (int64_t j = 0; j < p->G; j++)                                                              \
        for (int64_t b = 0; b < B; b++)                                                               \
          for (int64_t m = 0; m < M; m++)                                                             \
            for (int64_t n = 0; n < N; n++) {                                                         \
              const T *l = L + (b * M + m) * K, *r = R + (b * N + n) * K;                             \
              T acc = 0;                                                                              \
              for (int64_t x = 0; x < p->xcount; x++) {                                               \
                int64_t s, e;                                                                         \
                group_range(p, gs, b * p->xcount + x, j, &s, &e);                                     \
                for (int64_t k = x * span + s * p->rinner; k < x * span + e * p->rinner; k++)         \
                  acc += l[k] * r[k];                                                                 \
              }                                                                                       \
              O[((j * B + b) * M + m) * N + n] = acc;                                                 \
            }                                                                                         \
      return;                                                                                         \
    }                                                                                                 \
    for (int64_t b = 0; b < B; b++)                                                                   \
      for (int64_t m = 0; m < M; m++) {                                                               \
        T *o = O + (b * M + m) * N;                                                                   \
        for (int64_t n = 0; n < N; n++) o[n] = 0;                                                     \
        int64_t pos = (m / p->rinner) % p->rsize, row = b * p->xcount + m / (p->rinner * p->rsize);   \
        for (int64_t j = 0; j < p->G; j++) {                                                          \
          if (p->mode == RD_NONCONTRACTING) {                                                         \
            int64_t s, e;                                                                             \
            group_range(p, gs, row, j, &s, &e);                                                       \
            if (pos < s || pos >= e) continue;                                                        \
          }                                                                                           \
          const T *l = L + (b * M + m) * K, *rr = R + ((j * B + b) * N) * K;                          \
          for (int64_t n = 0; n < N; n++) {                                                           \
            T acc = 0;                                                                                \
            for (int64_t k = 0; k < K; k++) acc += l[k] * rr[n * K + k];                              \
            o[n] += acc;                                                                              \
          }                                                                                           \
        }                                                                                             \
      }                                                                                               \
  }

PRODUCTS(u64)
PRODUCTS(double)
PRODUCTS(cplx)

/* ?gemm for mode 3 (a batched product), mode 1 (each group's row block
 * times its rhs) and mode 2 (each group's contracting range, summed over the
 * x prefixes).  False, touching nothing, when some group size is negative. */
static bool products_gemm(const rd_params *p, const int64_t *gs, int64_t ngs, const void *L, const void *R, void *O) {
  for (int64_t i = 0; i < ngs && p->mode != RD_BATCH; i++)
    if (gs[i] < 0) return false;
  ku_ck ck = p->cat == EWC_CPLX ? CK_C128 : CK_F64;
  size_t es = ku_ck_bytes(ck);
  int64_t B = p->B, M = p->M, N = p->N, K = p->K;
  const uint8_t *l = L, *r = R;
  uint8_t *o = O;
  if (p->mode == RD_BATCH) {
    for (int64_t b = 0; b < B; b++) {
      gemm_shape g = {false, true, M, N, K, K, K, N};
      gemm_call(ck, &g, l + (size_t)(b * M * K) * es, r + (size_t)(b * N * K) * es, o + (size_t)(b * M * N) * es);
    }
    return true;
  }
  if (p->mode == RD_NONCONTRACTING) {
    memset(O, 0, (size_t)(B * M * N) * es); /* rows outside every group */
    int64_t span = p->rsize * p->rinner;
    for (int64_t b = 0; b < B; b++)
      for (int64_t x = 0; x < p->xcount; x++)
        for (int64_t j = 0; j < p->G; j++) {
          int64_t s, e;
          group_range(p, gs, b * p->xcount + x, j, &s, &e);
          if (e <= s) continue;
          int64_t r0 = x * span + s * p->rinner;
          gemm_shape g = {false, true, (e - s) * p->rinner, N, K, K, K, N};
          gemm_call(ck, &g, l + (size_t)((b * M + r0) * K) * es, r + (size_t)((j * B + b) * N * K) * es,
                    o + (size_t)((b * M + r0) * N) * es);
        }
    return true;
  }
  /* mode 2: out[j][b] = sum over x of L[b][:, range] R[b][:, range]^T */
  void *tmp = malloc((size_t)(M * N) * es + 1);
  if (!tmp) return false;
  int64_t span = p->rsize * p->rinner;
  for (int64_t j = 0; j < p->G; j++)
    for (int64_t b = 0; b < B; b++) {
      uint8_t *c = o + (size_t)((j * B + b) * M * N) * es;
      memset(c, 0, (size_t)(M * N) * es);
      for (int64_t x = 0; x < p->xcount; x++) {
        int64_t s, e;
        group_range(p, gs, b * p->xcount + x, j, &s, &e);
        if (e <= s) continue;
        int64_t k0 = x * span + s * p->rinner;
        gemm_shape g = {false, true, M, N, (e - s) * p->rinner, K, K, N};
        gemm_call(ck, &g, l + (size_t)(b * M * K + k0) * es, r + (size_t)(b * N * K + k0) * es, tmp);
        if (ck == CK_F64)
          for (int64_t i = 0; i < M * N; i++) ((double *)(void *)c)[i] += ((const double *)tmp)[i];
        else
          for (int64_t i = 0; i < M * N; i++) ((cplx *)(void *)c)[i] += ((const cplx *)tmp)[i];
      }
    }
  free(tmp);
  return true;
}

/* Whole-buffer conversions into the compute type, chunked as ew_common wants. */
static void load_all(ew_cat c, shl_dtype dt, const void *src, int64_t n, void *dst) {
  for (int64_t off = 0; off < n; off += EW_CHUNK) {
    int m = (int)(n - off < EW_CHUNK ? n - off : EW_CHUNK);
    if (c == EWC_INT) ew_load_int(dt, src, off, m, (int64_t *)dst + off);
    else if (c == EWC_REAL) ew_load_real(dt, src, off, m, (double *)dst + off);
    else ew_load_cplx(dt, src, off, m, (cplx *)dst + off);
  }
}

static void store_all(ew_cat c, shl_dtype dt, const void *src, int64_t n, void *dst) {
  for (int64_t off = 0; off < n; off += EW_CHUNK) {
    int m = (int)(n - off < EW_CHUNK ? n - off : EW_CHUNK);
    if (c == EWC_INT) ew_store_int(dt, (const int64_t *)src + off, dst, off, m);
    else if (c == EWC_REAL) ew_store_real_exact(dt, (const double *)src + off, dst, off, m);
    else ew_store_cplx(dt, (const cplx *)src + off, dst, off, m);
  }
}

static shl_status rd_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  (void)ec;
  const rd_params *p = po->params;
  size_t esz = p->cat == EWC_CPLX ? sizeof(cplx) : sizeof(double);
  int64_t nl = in[0]->n, nr = in[1]->n, ng = in[2]->n, no = out[0]->n;
  void *lraw = malloc((size_t)nl * esz + 1), *rraw = malloc((size_t)nr * esz + 1);
  void *L = malloc((size_t)nl * esz + 1), *R = malloc((size_t)nr * esz + 1), *O = malloc((size_t)no * esz + 1);
  int64_t *gs = malloc((size_t)ng * sizeof *gs + 1);
  shl_status st = NULL;
  if (!lraw || !rraw || !L || !R || !O || !gs) {
    st = st_oom();
    goto done;
  }
  load_all(p->cat, in[0]->dtype, in[0]->data, nl, lraw);
  load_all(p->cat, in[1]->dtype, in[1]->data, nr, rraw);
  load_all(EWC_INT, in[2]->dtype, in[2]->data, ng, gs);
  switch (p->cat) {
    case EWC_INT:
      gather_u64(lraw, p->lrank, p->ldims, p->lorder, L);
      gather_u64(rraw, p->rrank, p->rdims, p->rorder, R);
      products_u64(p, gs, L, R, O);
      break;
    case EWC_REAL:
      gather_double(lraw, p->lrank, p->ldims, p->lorder, L);
      gather_double(rraw, p->rrank, p->rdims, p->rorder, R);
      if (!p->blas || !products_gemm(p, gs, ng, L, R, O)) products_double(p, gs, L, R, O);
      break;
    default:
      gather_cplx(lraw, p->lrank, p->ldims, p->lorder, L);
      gather_cplx(rraw, p->rrank, p->rdims, p->rorder, R);
      if (!p->blas || !products_gemm(p, gs, ng, L, R, O)) products_cplx(p, gs, L, R, O);
      break;
  }
  store_all(p->cat, out[0]->dtype, O, no, out[0]->data);
done:
  free(lraw);
  free(rraw);
  free(L);
  free(R);
  free(O);
  free(gs);
  return st;
}

const shl_kernel kernel_ragged_dot = {rd_prepare, rd_run};
