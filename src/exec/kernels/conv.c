/* stablehlo.convolution: every dimension numbering, padding, lhs/rhs
 * dilation, window reversal, feature and batch groups.  Out-of-range
 * (padding or dilation hole) input positions contribute nothing.
 *
 * Floats run as matrix products per group: the rows are the output
 * positions (batch, spatial...), the columns the output features of the
 * group, and the contraction runs over (window position, input feature).
 * The lhs side is gathered ("im2col") a block of rows at a time so that it
 * stays in cache, each thread its own blocks, and multiplied by the kernel reshaped to
 * [window x features, output features] (gemm.h).  When the output's feature
 * dimension is innermost and its batch and spatial dimensions nest in
 * order (NHWC-like), products land in the result directly; otherwise they
 * go through a scratch matrix and a strided copy.  Large f32 convolutions
 * with 3x3 windows, unit strides and features innermost take Winograd's
 * F(2x2, 3x3) instead (conv_winograd.c).  Integers use a direct loop over
 * output elements. */
#include <omp.h>
#include <stdlib.h>

#include "conv.h"
#include "gemm.h"
#include "mathlib.h"

static bool field_int(const shl_attr *dn, const char *name, int64_t *v) {
  return attr_as_int(attr_struct_field(dn, name), v);
}

static bool field_ints(const shl_attr *dn, const char *name, int64_t *v, size_t *n) {
  const shl_attr *f = attr_struct_field(dn, name);
  *n = 0;
  return f && attr_as_ints(f, v, CV_MAX_SP, n) && *n <= CV_MAX_SP;
}

/* The matrix form's geometry and how its products reach the result. */
void conv_matrix_setup(conv_params *p, const shl_type *ot, size_t esz) {
  int64_t os[KU_MAX_RANK];
  ku_strides(ot->rank, ot->dims, os);
  p->NQ = p->G * p->BG;
  p->Cq = p->out_feat / p->NQ;
  p->Kd = p->n_kwin * p->k_in_feat;
  p->P = p->out_batch;
  for (int32_t d = 0; d < p->ns; d++) {
    p->osp_dim[d] = ot->dims[p->out_sp[d]];
    p->P *= p->osp_dim[d];
  }
  p->out_f_stride = os[p->out_f];
  /* Rows (batch, spatial...) nest with one pitch and features are unit-stride? */
  int32_t rows[CV_MAX_SP + 1];
  rows[0] = p->out_b;
  for (int32_t d = 0; d < p->ns; d++) rows[d + 1] = p->out_sp[d];
  int64_t next = -1, pitch = p->Cq * p->NQ;
  bool nest = true;
  for (int32_t i = p->ns; i >= 0; i--) {
    int64_t d = rows[i];
    if (ot->dims[d] == 1) continue;
    if (next < 0) pitch = os[d];
    else if (os[d] != next) nest = false;
    next = os[d] * ot->dims[d];
  }
  p->out_direct = nest && (p->out_f_stride == 1 || p->Cq == 1) && pitch >= p->Cq;
  p->out_pitch = pitch;
  if (p->out_direct) return;
  strided_box *b = &p->out_box;
  b->rank = p->ns + 2;
  for (int32_t i = 0; i <= p->ns; i++) b->dims[i] = ot->dims[rows[i]], b->ds[i] = os[rows[i]];
  b->dims[p->ns + 1] = p->Cq;
  b->ds[p->ns + 1] = p->out_f_stride;
  strided_row_major(b->rank, b->dims, b->ss);
  strided_finish(b, esz);
}

shl_status conv_geometry(const shl_op *op, conv_params *p) {
  if (op->n_operands != 2 || op->n_results != 1) return op_error(op, SHLOC_ERR_VERIFY, "expects two operands");
  const shl_type *lt = op->operands[0]->type, *rt = op->operands[1]->type, *ot = op->results[0].type;
  if (!type_is_static(lt) || !type_is_static(rt) || !type_is_static(ot))
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "needs static shapes");
  const shl_attr *dn = op_attr(op, "dimension_numbers");
  if (!dn || dn->kind != AT_STRUCT) return op_error(op, SHLOC_ERR_VERIFY, "has no dimension_numbers");
  memset(p, 0, sizeof *p);
  int64_t ib, ifd, ki, ko, ob, of, isp[CV_MAX_SP], ksp[CV_MAX_SP], osp[CV_MAX_SP];
  size_t ni, nk, no;
  if (!field_int(dn, "input_batch_dimension", &ib) || !field_int(dn, "input_feature_dimension", &ifd) ||
      !field_int(dn, "kernel_input_feature_dimension", &ki) || !field_int(dn, "kernel_output_feature_dimension", &ko) ||
      !field_int(dn, "output_batch_dimension", &ob) || !field_int(dn, "output_feature_dimension", &of) ||
      !field_ints(dn, "input_spatial_dimensions", isp, &ni) || !field_ints(dn, "kernel_spatial_dimensions", ksp, &nk) ||
      !field_ints(dn, "output_spatial_dimensions", osp, &no) || ni != nk || ni != no)
    return op_error(op, SHLOC_ERR_VERIFY, "has invalid dimension_numbers");
  int32_t ns = (int32_t)ni;
  if (lt->rank != ns + 2 || rt->rank != ns + 2 || ot->rank != ns + 2)
    return op_error(op, SHLOC_ERR_VERIFY, "operand ranks do not match the dimension numbers");
  int32_t r = lt->rank;
  int64_t all[] = {ib, ifd, ki, ko, ob, of};
  for (int i = 0; i < 6; i++)
    if (all[i] < 0 || all[i] >= r) return op_error(op, SHLOC_ERR_VERIFY, "has out-of-range dimension numbers");
  for (int32_t d = 0; d < ns; d++)
    if (isp[d] < 0 || isp[d] >= r || ksp[d] < 0 || ksp[d] >= r || osp[d] < 0 || osp[d] >= r)
      return op_error(op, SHLOC_ERR_VERIFY, "has out-of-range dimension numbers");
  p->ns = ns;
  int64_t ls[KU_MAX_RANK], rs[KU_MAX_RANK];
  ku_strides(r, lt->dims, ls);
  ku_strides(r, rt->dims, rs);
  p->in_b_stride = ls[ib];
  p->in_f_stride = ls[ifd];
  p->k_i_stride = rs[ki];
  p->k_o_stride = rs[ko];
  p->k_in_feat = rt->dims[ki];
  p->n_kwin = 1;
  for (int32_t d = 0; d < ns; d++) {
    p->in_sp_stride[d] = ls[isp[d]];
    p->in_sp_dim[d] = lt->dims[isp[d]];
    p->k_sp_stride[d] = rs[ksp[d]];
    p->k_sp_dim[d] = rt->dims[ksp[d]];
    p->n_kwin *= p->k_sp_dim[d];
    p->out_sp[d] = (int32_t)osp[d];
    p->stride[d] = p->ldil[d] = p->rdil[d] = 1;
  }
  p->out_rank = r;
  memcpy(p->out_dims, ot->dims, (size_t)r * sizeof(int64_t));
  p->out_b = (int32_t)ob;
  p->out_f = (int32_t)of;
  p->out_feat = ot->dims[of];
  p->out_batch = ot->dims[ob];
  size_t n;
  int64_t tmp[2 * CV_MAX_SP];
  if (ku_ints(op, "window_strides", tmp, CV_MAX_SP, &n)) {
    if ((int32_t)n != ns) return op_error(op, SHLOC_ERR_VERIFY, "window_strides has the wrong size");
    memcpy(p->stride, tmp, n * sizeof *tmp);
  }
  if (ku_ints(op, "lhs_dilation", tmp, CV_MAX_SP, &n)) {
    if ((int32_t)n != ns) return op_error(op, SHLOC_ERR_VERIFY, "lhs_dilation has the wrong size");
    memcpy(p->ldil, tmp, n * sizeof *tmp);
  }
  if (ku_ints(op, "rhs_dilation", tmp, CV_MAX_SP, &n)) {
    if ((int32_t)n != ns) return op_error(op, SHLOC_ERR_VERIFY, "rhs_dilation has the wrong size");
    memcpy(p->rdil, tmp, n * sizeof *tmp);
  }
  if (ku_ints(op, "padding", tmp, 2 * CV_MAX_SP, &n)) {
    if ((int32_t)n != 2 * ns) return op_error(op, SHLOC_ERR_VERIFY, "padding has the wrong size");
    for (int32_t d = 0; d < ns; d++) p->pad_lo[d] = tmp[2 * d];
  }
  if (ku_bools(op, "window_reversal", p->rev, CV_MAX_SP, &n) && (int32_t)n != ns)
    return op_error(op, SHLOC_ERR_VERIFY, "window_reversal has the wrong size");
  for (int32_t d = 0; d < ns; d++)
    if (p->stride[d] < 1 || p->ldil[d] < 1 || p->rdil[d] < 1) return op_error(op, SHLOC_ERR_VERIFY, "has invalid window");
  p->G = 1;
  p->BG = 1;
  attr_as_int(op_attr(op, "feature_group_count"), &p->G);
  attr_as_int(op_attr(op, "batch_group_count"), &p->BG);
  if (p->G < 1 || p->BG < 1 || (p->G > 1 && p->BG > 1) || p->out_feat % p->G || p->out_feat % p->BG ||
      lt->dims[ifd] != p->k_in_feat * p->G || lt->dims[ib] != p->out_batch * p->BG)
    return op_error(op, SHLOC_ERR_VERIFY, "has inconsistent group counts");
  return NULL;
}

static shl_status conv_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  conv_params *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  ST_TRY(conv_geometry(op, p));
  const shl_type *ot = op->results[0].type;
  p->ck = ku_ck_of(type_storage_dtype(ot));
  if (p->ck == CK_NONE) return op_error(op, SHLOC_ERR_UNSUPPORTED, "on this element type is not supported");
  if (p->ck != CK_INT) {
    conv_matrix_setup(p, ot, ku_ck_bytes(p->ck));
    if (p->P > INT32_MAX || p->Kd > INT32_MAX || p->Cq > INT32_MAX || p->out_pitch > INT32_MAX)
      return op_error(op, SHLOC_ERR_UNSUPPORTED, "is too large");
    ST_TRY(mathlib_require(op));
    p->winograd = conv_winograd_applies(p);
    p->xla_order = conv_xla_order_applies(p);
  }
  *params = p;
  return NULL;
}

/* ---- integers: per output element, the sum over kernel window positions
 * and input features of the group ---- */

void conv_int(const conv_params *p, const uint64_t *L, const uint64_t *R, uint64_t *O, int64_t n_out) {
#pragma omp parallel for if (n_out * p->n_kwin * p->k_in_feat > (1 << 16))
  for (int64_t o = 0; o < n_out; o++) {
    int64_t rem = o, oidx[KU_MAX_RANK];
    for (int32_t d = p->out_rank - 1; d >= 0; d--) {
      oidx[d] = rem % p->out_dims[d];
      rem /= p->out_dims[d];
    }
    int64_t of = oidx[p->out_f], obt = oidx[p->out_b];
    int64_t fg = of / (p->out_feat / p->G), bg = of / (p->out_feat / p->BG);
    int64_t lbase = (bg * p->out_batch + obt) * p->in_b_stride + fg * p->k_in_feat * p->in_f_stride;
    int64_t rbase = of * p->k_o_stride;
    uint64_t acc = 0;
    int64_t kw[CV_MAX_SP] = {0};
    for (int64_t w = 0; w < p->n_kwin; w++) {
      int64_t loff = lbase, roff = rbase;
      bool ok = true;
      for (int32_t d = 0; d < p->ns && ok; d++) {
        int64_t pos = oidx[p->out_sp[d]] * p->stride[d] - p->pad_lo[d] + kw[d] * p->rdil[d];
        if (pos < 0 || pos % p->ldil[d] || pos / p->ldil[d] >= p->in_sp_dim[d]) ok = false;
        else {
          loff += pos / p->ldil[d] * p->in_sp_stride[d];
          roff += (p->rev[d] ? p->k_sp_dim[d] - 1 - kw[d] : kw[d]) * p->k_sp_stride[d];
        }
      }
      if (ok)
        for (int64_t ci = 0; ci < p->k_in_feat; ci++) acc += L[loff + ci * p->in_f_stride] * R[roff + ci * p->k_i_stride];
      for (int32_t d = p->ns - 1; d >= 0; d--) {
        if (++kw[d] < p->k_sp_dim[d]) break;
        kw[d] = 0;
      }
    }
    O[o] = acc;
  }
}

/* ---- floats: im2col blocks times the reshaped kernel ---- */

/* Rows per im2col block: about 1 MB of gathered input (a core's L2), at
 * least 16 rows. */
enum { BLOCK_BYTES = 1 << 20, BLOCK_MIN_ROWS = 16 };

/* Kernel of group q as W[(w, ci), co] (Kd x Cq, row-major), elements of size es. */
void conv_kernel_matrix(const conv_params *p, const uint8_t *k, size_t es, int64_t q, uint8_t *W) {
  int64_t kw[CV_MAX_SP] = {0};
  for (int64_t w = 0; w < p->n_kwin; w++) {
    int64_t off = q * p->Cq * p->k_o_stride;
    for (int32_t d = 0; d < p->ns; d++) off += (p->rev[d] ? p->k_sp_dim[d] - 1 - kw[d] : kw[d]) * p->k_sp_stride[d];
    for (int64_t ci = 0; ci < p->k_in_feat; ci++) {
      uint8_t *row = W + (size_t)((w * p->k_in_feat + ci) * p->Cq) * es;
      const uint8_t *src = k + (size_t)(off + ci * p->k_i_stride) * es;
      for (int64_t co = 0; co < p->Cq; co++) memcpy(row + (size_t)co * es, src + (size_t)(co * p->k_o_stride) * es, es);
    }
    for (int32_t d = p->ns - 1; d >= 0; d--) {
      if (++kw[d] < p->k_sp_dim[d]) break;
      kw[d] = 0;
    }
  }
}

/* Copies the group's input features at input offset off (or zeros). */
static void features(const conv_params *p, const uint8_t *in, size_t es, bool ok, int64_t off, uint8_t *dst) {
  size_t run = (size_t)p->k_in_feat * es;
  if (!ok) memset(dst, 0, run);
  else if (p->in_f_stride == 1) memcpy(dst, in + (size_t)off * es, run);
  else
    for (int64_t ci = 0; ci < p->k_in_feat; ci++)
      memcpy(dst + (size_t)ci * es, in + (size_t)(off + ci * p->in_f_stride) * es, es);
}

/* Row r of group q's lhs matrix: for every window position, the group's
 * input features at the position it reads, or zeros.  When the window
 * positions along the last spatial dimension read adjacent features
 * (NHWC-like, undilated), their in-range part is copied as one run. */
void conv_im2col_row(const conv_params *p, const uint8_t *in, size_t es, int64_t q, int64_t r, uint8_t *row) {
  int64_t o[CV_MAX_SP];
  for (int32_t d = p->ns - 1; d >= 0; d--) {
    o[d] = r % p->osp_dim[d];
    r /= p->osp_dim[d];
  }
  int64_t base = (p->BG > 1 ? q * p->out_batch + r : r) * p->in_b_stride;
  if (p->G > 1) base += q * p->k_in_feat * p->in_f_stride;
  size_t run = (size_t)p->k_in_feat * es;
  int32_t l = p->ns - 1;
  int64_t kl = l >= 0 ? p->k_sp_dim[l] : 1, first = l >= 0 ? o[l] * p->stride[l] - p->pad_lo[l] : 0;
  bool merge = l >= 0 && p->in_f_stride == 1 && p->ldil[l] == 1 && p->rdil[l] * p->in_sp_stride[l] == p->k_in_feat;
  int64_t kw[CV_MAX_SP] = {0};
  for (int64_t w = 0; w < p->n_kwin; w += kl, row += (size_t)kl * run) {
    int64_t off = base;
    bool ok = true;
    for (int32_t d = 0; d < l && ok; d++) {
      int64_t pos = o[d] * p->stride[d] - p->pad_lo[d] + kw[d] * p->rdil[d];
      if (pos < 0 || pos % p->ldil[d] || pos / p->ldil[d] >= p->in_sp_dim[d]) ok = false;
      else off += pos / p->ldil[d] * p->in_sp_stride[d];
    }
    if (ok && merge) {
      int64_t k0 = 0, k1 = kl;
      while (k0 < kl && first + k0 * p->rdil[l] < 0) k0++;
      while (k1 > k0 && first + (k1 - 1) * p->rdil[l] >= p->in_sp_dim[l]) k1--;
      memset(row, 0, (size_t)k0 * run);
      if (k1 > k0) memcpy(row + (size_t)k0 * run, in + (size_t)(off + (first + k0 * p->rdil[l]) * p->in_sp_stride[l]) * es,
                          (size_t)(k1 - k0) * run);
      memset(row + (size_t)k1 * run, 0, (size_t)(kl - k1) * run);
    } else {
      for (int64_t k = 0; k < kl; k++) {
        int64_t pos = first + k * p->rdil[l >= 0 ? l : 0];
        bool in_range = ok && (l < 0 || (pos >= 0 && pos % p->ldil[l] == 0 && pos / p->ldil[l] < p->in_sp_dim[l]));
        features(p, in, es, in_range, l < 0 ? off : off + (in_range ? pos / p->ldil[l] * p->in_sp_stride[l] : 0),
                 row + (size_t)k * run);
      }
    }
    for (int32_t d = l - 1; d >= 0; d--) {
      if (++kw[d] < p->k_sp_dim[d]) break;
      kw[d] = 0;
    }
  }
}

/* out: the result in the compute type.  lhs/rhs: operands in the compute
 * type.  Each thread gathers its own blocks of rows and multiplies them. */
static shl_status conv_matrix(const conv_params *p, const uint8_t *lhs, const uint8_t *rhs, uint8_t *out) {
  size_t es = ku_ck_bytes(p->ck);
  int64_t rows = BLOCK_BYTES / ((int64_t)es * p->Kd);
  if (rows < BLOCK_MIN_ROWS) rows = BLOCK_MIN_ROWS;
  if (rows > p->P) rows = p->P;
  int64_t nblk = (p->P + rows - 1) / rows;
  int nt = omp_get_max_threads();
  if (nt > nblk) nt = (int)nblk;
  uint8_t *W = malloc((size_t)(p->Kd * p->Cq) * es + 16), *A = malloc((size_t)(nt * rows * p->Kd) * es + 16);
  uint8_t *scratch = p->out_direct ? NULL : malloc((size_t)(p->P * p->Cq) * es + 16);
  uint8_t *acc = p->xla_order ? malloc((size_t)(nt * 2 * p->Cq) * es + 16) : NULL;
  shl_status st = W && A && (p->out_direct || scratch) && (!p->xla_order || acc) ? NULL : st_oom();
  int saved = gemm_serial_begin();
  for (int64_t q = 0; !st && q < p->NQ; q++) {
    conv_kernel_matrix(p, rhs, es, q, W);
    uint8_t *C = p->out_direct ? out + (size_t)(q * p->Cq * p->out_f_stride) * es : scratch;
    int64_t ldc = p->out_direct ? p->out_pitch : p->Cq;
#pragma omp parallel for schedule(dynamic) num_threads(nt) if (nt > 1)
    for (int64_t blk = 0; blk < nblk; blk++) {
      int64_t r0 = blk * rows, m = p->P - r0 < rows ? p->P - r0 : rows;
      uint8_t *a = A + (size_t)(omp_get_thread_num() * rows * p->Kd) * es;
      for (int64_t i = 0; i < m; i++) conv_im2col_row(p, lhs, es, q, r0 + i, a + (size_t)(i * p->Kd) * es);
      if (p->xla_order) {
        conv_xla_rows(p, m, a, W, C + (size_t)(r0 * ldc) * es, ldc, acc + (size_t)(omp_get_thread_num() * 2 * p->Cq) * es);
        continue;
      }
      gemm_shape g = {.M = m, .N = p->Cq, .K = p->Kd, .lda = p->Kd, .ldb = p->Cq, .ldc = ldc};
      gemm_one(p->ck, &g, a, W, C + (size_t)(r0 * ldc) * es);
    }
    if (!p->out_direct) strided_copy(&p->out_box, out + (size_t)(q * p->Cq * p->out_f_stride) * es, scratch, es);
  }
  gemm_serial_end(saved);
  free(W);
  free(A);
  free(scratch);
  free(acc);
  return st;
}

static bool in_compute_type(ku_ck ck, shl_dtype t) {
  return (ck == CK_F32 && t == DT_F32) || (ck == CK_F64 && t == DT_F64) || (ck == CK_C64 && t == DT_C64) ||
         (ck == CK_C128 && t == DT_C128);
}

/* An operand in the compute type: the buffer itself or a converted copy (*owned). */
static shl_status operand(const conv_params *p, const shl_op *op, const shl_buf *b, const void **out, void **owned) {
  *owned = NULL;
  *out = b->data;
  if (in_compute_type(p->ck, b->dtype)) return NULL;
  void *c = malloc((size_t)b->n * ku_ck_bytes(p->ck) + 16);
  if (!c) return st_oom();
  *owned = c;
  *out = c;
  if (!ku_to_ck(p->ck, b->dtype, b->data, c, b->n)) return op_error(op, SHLOC_ERR_UNSUPPORTED, "cannot convert its operands");
  return NULL;
}

static shl_status conv_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const conv_params *p = po->params;
  shl_buf *r = out[0];
  if (r->n == 0) return NULL;
  size_t es = ku_ck_bytes(p->ck);
  const void *lhs = NULL, *rhs = NULL;
  void *own_l = NULL, *own_r = NULL;
  bool direct = in_compute_type(p->ck, r->dtype);
  void *oc = direct ? r->data : malloc((size_t)r->n * es + 16);
  shl_status st = oc ? NULL : st_oom();
  if (!st) st = operand(p, po->op, in[0], &lhs, &own_l);
  if (!st) st = operand(p, po->op, in[1], &rhs, &own_r);
  if (!st) {
    if (p->ck == CK_INT) conv_int(p, lhs, rhs, oc, r->n);
    else if (p->Kd == 0) memset(oc, 0, (size_t)r->n * es);
    else if (p->winograd) st = conv_winograd(p, lhs, rhs, oc);
    else st = conv_matrix(p, lhs, rhs, oc);
  }
  if (!st && !direct) ku_from_ck(p->ck, r->dtype, oc, r->data, r->n);
  free(own_l);
  free(own_r);
  if (!direct) free(oc);
  return st;
}

const shl_kernel kernel_convolution = {conv_prepare, conv_run};
