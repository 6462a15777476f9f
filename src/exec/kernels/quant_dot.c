/* dot_general, dot and convolution on quantized operands, in integers.
 *
 * Each operand's zero points are subtracted first (per element, so
 * per-axis zero points and the padding of convolutions, whose dequantized
 * value is 0, come out right), the products are summed exactly in i32
 * (8-bit storage: i16 operands through quant_gemm) or i64 (wider storage),
 * and each sum is scaled once to the result: round_nearest_even(sum *
 * lhs_scale * rhs_scale / result_scale) + result_zero_point, clamped to the
 * storage range.  That is the spec's dequantize_op_quantize evaluated
 * exactly; the hybrid form (float lhs) dequantizes rhs (quant_qdq.c). */
#include <math.h>
#include <stdlib.h>

#include "conv.h"
#include "quant.h"

typedef struct {
  bool conv, narrow;
  conv_params cp;
  /* dot: canonical orders [batch, free, contracting] (lhs) and [batch, contracting, free] (rhs) */
  int64_t B, M, K, N;
  int32_t lorder[KU_MAX_RANK], rorder[KU_MAX_RANK];
  int32_t chan_dim; /* result dimension that selects scales (-1: one scale) */
  size_t scratch;   /* bytes of scratch a run needs (carve) */
  struct qdot_cache *cache;
} qdot_params;

/* Scratch kept from run to run (first touches of fresh pages cost more
 * than the products here); a re-entered op allocates its own. */
typedef struct qdot_cache {
  void *mem;
  char busy;
} qdot_cache;

static void cache_release(void *arg) {
  qdot_cache *c = arg;
  free(c->mem);
  c->mem = NULL;
}

static void *scratch_get(const qdot_params *p, bool *owned) {
  *owned = true;
  if (!__atomic_test_and_set(&p->cache->busy, __ATOMIC_ACQUIRE)) {
    if (!p->cache->mem) p->cache->mem = exec_malloc(p->scratch);
    if (p->cache->mem) {
      *owned = false;
      return p->cache->mem;
    }
    __atomic_clear(&p->cache->busy, __ATOMIC_RELEASE);
  }
  return exec_malloc(p->scratch);
}

static void scratch_put(const qdot_params *p, void *m, bool owned) {
  if (owned) free(m);
  else __atomic_clear(&p->cache->busy, __ATOMIC_RELEASE);
}

/* Successive 64-byte aligned pieces of a scratch block (sizes first, then
 * addresses: the same walk at prepare and at run). */
static size_t carve(size_t *at, size_t n) {
  size_t here = *at;
  *at += (n + 63) & ~(size_t)63;
  return here;
}

/* Scratch layout: pieces of run_dot / run_conv, then the sums. */
typedef struct {
  size_t a, b, packed, w, tmp, out, acc, end;
} qdot_layout;

static qdot_layout layout_of(const qdot_params *p, int64_t n_l, int64_t n_r, int64_t n_out) {
  qdot_layout L = {0};
  size_t at = 0, es = p->narrow ? sizeof(int16_t) : sizeof(int64_t);
  if (p->conv) {
    const conv_params *cp = &p->cp;
    int64_t lda = (cp->Kd + 1) & ~(int64_t)1;
    L.a = carve(&at, (size_t)n_l * es);
    L.b = carve(&at, (size_t)n_r * es);
    if (p->narrow) {
      L.w = carve(&at, (size_t)(cp->P * lda) * es);
      L.tmp = carve(&at, (size_t)(cp->Kd * cp->Cq) * es);
      L.packed = carve(&at, quant_gemm_packed_size(cp->Kd, cp->Cq));
      if (!cp->out_direct) L.out = carve(&at, (size_t)(cp->P * cp->Cq) * sizeof(int32_t));
    }
  } else {
    int64_t Kp = p->narrow ? (p->K + 1) & ~(int64_t)1 : p->K;
    L.a = carve(&at, (size_t)(p->B * p->M * Kp) * es);
    L.b = carve(&at, (size_t)(p->B * p->K * p->N) * es);
    if (p->narrow) L.packed = carve(&at, quant_gemm_packed_size(p->K, p->N));
  }
  L.acc = carve(&at, (size_t)n_out * (p->narrow ? sizeof(int32_t) : sizeof(int64_t)));
  L.end = at;
  return L;
}

/* The operand as [outer][dims[d]][inner] along dimension d. */
static quant_layout layout_along(const shl_type *t, int32_t d) {
  quant_layout L = {1, 1, type_num_elements(t)};
  if (d < 0) return L;
  L.channels = t->dims[d];
  L.inner = 1;
  for (int32_t i = 0; i < d; i++) L.outer *= t->dims[i];
  for (int32_t i = d + 1; i < t->rank; i++) L.inner *= t->dims[i];
  return L;
}

/* The operand minus its zero points, walked in `order` (outer to inner) into
 * dst; every run of `row` elements (a multiple of the innermost dimension)
 * is followed by `pad - row` zeros.  The innermost dimension is one typed
 * strided run. */
static void gather_centered(const shl_type *t, const void *src, const int32_t *order, int64_t row, int64_t pad,
                            bool narrow, void *dst) {
  const shl_quant *q = t->quant;
  int32_t r = t->rank;
  int64_t n = type_num_elements(t);
  if (n == 0) return;
  int64_t st[KU_MAX_RANK], idx[KU_MAX_RANK] = {0}, off = 0, w = 0, done = 0;
  ku_strides(r, t->dims, st);
  /* Runs along the innermost dimension, unless rows are shorter than it
   * (no contracting dimension: one-element rows), then one element each. */
  int32_t in = r ? order[r - 1] : -1, odo = r - 1;
  int64_t len = r ? t->dims[in] : 1, stride = r ? st[in] : 1;
  if (row && row % len) {
    in = -1;
    odo = r;
    len = 1;
    stride = 0;
  }
  int64_t buf[256];
  for (;;) {
    if (narrow && q->axis != in) {
      quant_center16_run(q->storage, src, off, stride, len, q->zero_points[q->axis < 0 ? 0 : idx[q->axis]],
                         (int16_t *)dst + w);
    } else {
      for (int64_t j0 = 0; j0 < len; j0 += 256) {
        int64_t m = len - j0 < 256 ? len - j0 : 256;
        quant_load_run(q->storage, src, off + j0 * stride, stride, m, buf);
        for (int64_t j = 0; j < m; j++) {
          int64_t c = q->axis < 0 ? 0 : q->axis == in ? j0 + j : idx[q->axis];
          int64_t v = buf[j] - q->zero_points[c];
          if (narrow) ((int16_t *)dst)[w + j0 + j] = (int16_t)v;
          else ((int64_t *)dst)[w + j0 + j] = v;
        }
      }
    }
    w += len;
    done += len;
    if (row && done % row == 0)
      for (int64_t z = row; z < pad; z++, w++) {
        if (narrow) ((int16_t *)dst)[w] = 0;
        else ((int64_t *)dst)[w] = 0;
      }
    int32_t i = odo - 1;
    for (; i >= 0; i--) {
      int32_t d = order[i];
      off += st[d];
      if (++idx[d] < t->dims[d]) break;
      off -= st[d] * t->dims[d];
      idx[d] = 0;
    }
    if (i < 0) break;
  }
}

/* The operand minus its zero points in its own layout. */
static void center(const shl_type *t, const void *src, bool narrow, void *dst) {
  const shl_quant *q = t->quant;
  quant_layout L = quant_layout_of(t);
  int64_t buf[256];
  for (int64_t o = 0, k = 0; o < L.outer; o++)
    for (int64_t c = 0; c < L.channels; c++) {
      int64_t zp = q->zero_points[q->axis >= 0 ? c : 0];
      if (narrow) {
        quant_center16_run(q->storage, src, k, 1, L.inner, zp, (int16_t *)dst + k);
        k += L.inner;
        continue;
      }
      for (int64_t i = 0; i < L.inner; i += 256) {
        int64_t m = L.inner - i < 256 ? L.inner - i : 256;
        quant_load_run(q->storage, src, k, 1, m, buf);
        for (int64_t j = 0; j < m; j++, k++) {
          if (narrow) ((int16_t *)dst)[k] = (int16_t)(buf[j] - zp);
          else ((int64_t *)dst)[k] = buf[j] - zp;
        }
      }
    }
}

/* out = the result's storage values from the exact sums (i32 or i64). */
static void scale_out(const qdot_params *p, const shl_op *op, const int32_t *s32, const int64_t *s64, void *out) {
  const shl_quant *lq = op->operands[0]->type->quant, *rq = op->operands[1]->type->quant;
  const shl_type *ot = op->results[0].type;
  const shl_quant *oq = ot->quant;
  quant_layout L = layout_along(ot, p->chan_dim);
  double tmin = (double)oq->storage_min, tmax = (double)oq->storage_max;
  int64_t buf[256];
  for (int64_t c = 0; c < L.channels; c++) {
    double m = lq->scales[0] * rq->scales[rq->axis >= 0 ? c : 0] / oq->scales[oq->axis >= 0 ? c : 0];
    double zp = (double)oq->zero_points[oq->axis >= 0 ? c : 0];
    for (int64_t o = 0; o < L.outer; o++)
      for (int64_t i = 0; i < L.inner; i += 256) {
        int64_t k0 = (o * L.channels + c) * L.inner + i, len = L.inner - i < 256 ? L.inner - i : 256;
        for (int64_t j = 0; j < len; j++) {
          double v = quant_rint((double)(s32 ? s32[k0 + j] : s64[k0 + j]) * m) + zp;
          buf[j] = (int64_t)(v <= tmin ? tmin : v >= tmax ? tmax : v);
        }
        quant_store_run(oq->storage, out, k0, len, buf);
      }
  }
}

static shl_status dims_attr(const shl_op *op, const shl_attr *dn, const char *name, int64_t *v, size_t *n) {
  const shl_attr *f = attr_struct_field(dn, name);
  *n = 0;
  if (f && !attr_as_ints(f, v, KU_MAX_RANK, n)) return op_error(op, SHLOC_ERR_VERIFY, "has an invalid %s", name);
  return NULL;
}

static shl_status dot_setup(const shl_op *op, qdot_params *p) {
  const shl_type *lt = op->operands[0]->type, *rt = op->operands[1]->type;
  int64_t lb[KU_MAX_RANK], rb[KU_MAX_RANK], lc[KU_MAX_RANK], rc[KU_MAX_RANK];
  size_t nlb = 0, nrb = 0, nlc = 0, nrc = 0;
  if (op_is(op, OP_DOT)) {
    if (lt->rank < 1 || lt->rank > 2 || rt->rank < 1 || rt->rank > 2)
      return op_error(op, SHLOC_ERR_VERIFY, "needs operands of rank 1 or 2");
    lc[0] = lt->rank - 1;
    rc[0] = 0;
    nlc = nrc = 1;
  } else {
    const shl_attr *dn = op_attr(op, "dot_dimension_numbers");
    if (!dn || dn->kind != AT_STRUCT) return op_error(op, SHLOC_ERR_VERIFY, "has no dot_dimension_numbers");
    ST_TRY(dims_attr(op, dn, "lhs_batching_dimensions", lb, &nlb));
    ST_TRY(dims_attr(op, dn, "rhs_batching_dimensions", rb, &nrb));
    ST_TRY(dims_attr(op, dn, "lhs_contracting_dimensions", lc, &nlc));
    ST_TRY(dims_attr(op, dn, "rhs_contracting_dimensions", rc, &nrc));
  }
  if (nlb != nrb || nlc != nrc) return op_error(op, SHLOC_ERR_VERIFY, "batching/contracting dimension counts differ");
  bool ul[KU_MAX_RANK] = {false}, ur[KU_MAX_RANK] = {false};
  p->B = p->M = p->K = p->N = 1;
  int32_t nl = 0, nr = 0;
  for (size_t i = 0; i < nlb; i++) {
    if (lb[i] < 0 || lb[i] >= lt->rank || rb[i] < 0 || rb[i] >= rt->rank || ul[lb[i]] || ur[rb[i]] ||
        lt->dims[lb[i]] != rt->dims[rb[i]])
      return op_error(op, SHLOC_ERR_VERIFY, "has invalid batching dimensions");
    ul[lb[i]] = ur[rb[i]] = true;
    p->B *= lt->dims[lb[i]];
    p->lorder[nl++] = (int32_t)lb[i];
    p->rorder[nr++] = (int32_t)rb[i];
  }
  for (size_t i = 0; i < nlc; i++)
    if (lc[i] < 0 || lc[i] >= lt->rank || rc[i] < 0 || rc[i] >= rt->rank || ul[lc[i]] || ur[rc[i]] ||
        lt->dims[lc[i]] != rt->dims[rc[i]])
      return op_error(op, SHLOC_ERR_VERIFY, "has invalid contracting dimensions");
  for (int32_t d = 0; d < lt->rank; d++) {
    bool contr = false;
    for (size_t i = 0; i < nlc; i++) contr |= lc[i] == d;
    if (!ul[d] && !contr) p->lorder[nl++] = d, p->M *= lt->dims[d];
  }
  for (size_t i = 0; i < nlc; i++) {
    p->lorder[nl++] = (int32_t)lc[i];
    p->rorder[nr++] = (int32_t)rc[i];
    p->K *= lt->dims[lc[i]];
    ul[lc[i]] = ur[rc[i]] = true;
  }
  int32_t rfree0 = nr, res_dim = (int32_t)nlb + (int32_t)(nl - nlb - nlc);
  for (int32_t d = 0; d < rt->rank; d++)
    if (!ur[d]) {
      if (rt->quant->axis == d) p->chan_dim = res_dim + (nr - rfree0);
      p->rorder[nr++] = d, p->N *= rt->dims[d];
    }
  if (rt->quant->axis >= 0 && p->chan_dim < 0)
    return op_error(op, SHLOC_ERR_VERIFY, "rhs quantization dimension must not be a batching or contracting dimension");
  return NULL;
}

static shl_status qdot_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  if (op->n_operands != 2 || op->n_results != 1) return op_error(op, SHLOC_ERR_VERIFY, "expects two operands");
  const shl_type *lt = op->operands[0]->type, *rt = op->operands[1]->type, *ot = op->results[0].type;
  if (rt->dtype != DT_QUANT || ot->dtype != DT_QUANT)
    return op_error(op, SHLOC_ERR_VERIFY, "with a quantized lhs needs a quantized rhs and result");
  if (!type_is_static(lt) || !type_is_static(rt) || !type_is_static(ot))
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "needs static shapes");
  if (lt->quant->axis >= 0) return op_error(op, SHLOC_ERR_VERIFY, "lhs must be per-tensor quantized");
  qdot_params *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  memset(p, 0, sizeof *p);
  p->chan_dim = -1;
  p->narrow = dtype_bits(lt->quant->storage) <= 8 && dtype_bits(rt->quant->storage) <= 8;
  p->conv = op_is(op, OP_CONVOLUTION);
  if (p->conv) {
    ST_TRY(conv_geometry(op, &p->cp));
    conv_matrix_setup(&p->cp, ot, sizeof(int32_t));
    if (rt->quant->axis >= 0) {
      const shl_attr *dn = op_attr(op, "dimension_numbers");
      const shl_attr *f = attr_struct_field(dn, "kernel_output_feature_dimension");
      int64_t ko;
      if (!f || !attr_as_int(f, &ko) || ko != rt->quant->axis)
        return op_error(op, SHLOC_ERR_VERIFY, "rhs quantization dimension must be the kernel output feature dimension");
      p->chan_dim = p->cp.out_f;
    }
  } else {
    ST_TRY(dot_setup(op, p));
  }
  if (ot->quant->axis >= 0) {
    if (p->chan_dim >= 0 && p->chan_dim != ot->quant->axis)
      return op_error(op, SHLOC_ERR_VERIFY, "result quantization dimension must be the one rhs scales map to");
    p->chan_dim = ot->quant->axis;
  }
  p->scratch = layout_of(p, type_num_elements(lt), type_num_elements(rt), type_num_elements(ot)).end + 64;
  p->cache = plan_alloc(pc, sizeof *p->cache);
  if (!p->cache) return st_oom();
  *p->cache = (qdot_cache){0};
  ST_TRY(plan_on_release(pc, cache_release, p->cache));
  *params = p;
  return NULL;
}

static void run_dot(const qdot_params *p, const shl_op *op, shl_buf *const *in, uint8_t *mem, void *acc) {
  const shl_type *lt = op->operands[0]->type, *rt = op->operands[1]->type;
  qdot_layout Ly = layout_of(p, in[0]->n, in[1]->n, 0);
  int64_t Kp = p->narrow ? (p->K + 1) & ~(int64_t)1 : p->K;
  void *A = mem + Ly.a, *Bm = mem + Ly.b;
  int16_t *packed = (int16_t *)(mem + Ly.packed);
  gather_centered(lt, in[0]->data, p->lorder, p->K, Kp, p->narrow, A);
  gather_centered(rt, in[1]->data, p->rorder, 0, 0, p->narrow, Bm);
  for (int64_t b = 0; b < p->B; b++) {
    if (p->narrow) {
      quant_gemm_pack_b(p->K, p->N, (const int16_t *)Bm + b * p->K * p->N, p->N, packed);
      quant_gemm(p->M, p->N, p->K, (const int16_t *)A + b * p->M * Kp, Kp, packed, (int32_t *)acc + b * p->M * p->N, p->N);
      continue;
    }
    const int64_t *a = (const int64_t *)A + b * p->M * p->K, *bm = (const int64_t *)Bm + b * p->K * p->N;
    int64_t *c = (int64_t *)acc + b * p->M * p->N;
    for (int64_t i = 0; i < p->M; i++)
      for (int64_t j = 0; j < p->N; j++) {
        uint64_t s = 0; /* wraps like the i64 it stands for */
        for (int64_t k = 0; k < p->K; k++) s += (uint64_t)a[i * p->K + k] * (uint64_t)bm[k * p->N + j];
        c[i * p->N + j] = (int64_t)s;
      }
  }
}

static void run_conv(const qdot_params *p, const shl_op *op, shl_buf *const *in, uint8_t *mem, void *acc, int64_t n_out) {
  const conv_params *cp = &p->cp;
  const shl_type *lt = op->operands[0]->type, *rt = op->operands[1]->type;
  qdot_layout Ly = layout_of(p, in[0]->n, in[1]->n, n_out);
  size_t es = p->narrow ? sizeof(int16_t) : sizeof(int64_t);
  void *L = mem + Ly.a, *R = mem + Ly.b;
  center(lt, in[0]->data, p->narrow, L);
  center(rt, in[1]->data, p->narrow, R);
  if (!p->narrow) {
    conv_int(cp, L, R, acc, n_out);
    return;
  }
  int64_t lda = (cp->Kd + 1) & ~(int64_t)1;
  int16_t *A = (int16_t *)(mem + Ly.w), *W = (int16_t *)(mem + Ly.tmp), *packed = (int16_t *)(mem + Ly.packed);
  int32_t *scratch = cp->out_direct ? NULL : (int32_t *)(mem + Ly.out);
  for (int64_t q = 0; q < cp->NQ; q++) {
    conv_kernel_matrix(cp, R, es, q, (uint8_t *)W);
    quant_gemm_pack_b(cp->Kd, cp->Cq, W, cp->Cq, packed);
    for (int64_t r = 0; r < cp->P; r++) {
      conv_im2col_row(cp, L, es, q, r, (uint8_t *)(A + r * lda));
      if (lda > cp->Kd) A[r * lda + cp->Kd] = 0;
    }
    int32_t *dst = (int32_t *)acc + q * cp->Cq * cp->out_f_stride;
    if (cp->out_direct) quant_gemm(cp->P, cp->Cq, cp->Kd, A, lda, packed, dst, cp->out_pitch);
    else {
      quant_gemm(cp->P, cp->Cq, cp->Kd, A, lda, packed, scratch, cp->Cq);
      strided_copy(&cp->out_box, dst, scratch, sizeof(int32_t));
    }
  }
}

static shl_status qdot_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  (void)ec;
  const qdot_params *p = po->params;
  int64_t n = out[0]->n;
  if (n == 0) return NULL;
  bool owned;
  uint8_t *mem = scratch_get(p, &owned);
  if (!mem) return st_oom();
  void *acc = mem + layout_of(p, in[0]->n, in[1]->n, n).acc;
  if (p->conv) run_conv(p, po->op, in, mem, acc, n);
  else run_dot(p, po->op, in, mem, acc);
  scale_out(p, po->op, p->narrow ? acc : NULL, p->narrow ? NULL : acc, out[0]->data);
  scratch_put(p, mem, owned);
  return NULL;
}

const shl_kernel kernel_quant_dot = {qdot_prepare, qdot_run};
