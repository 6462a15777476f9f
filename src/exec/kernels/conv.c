/* stablehlo.convolution as a direct loop over output elements in the compute
 * type (kconvert.h): every dimension numbering, padding, lhs/rhs dilation,
 * window reversal, feature and batch groups.  Out-of-range (padding or
 * dilation hole) input positions contribute nothing. */
#include <complex.h>
#include <stdlib.h>

#include "kconvert.h"
#include "kutil.h"

#define CV_MAX_SP 16

typedef struct {
  ku_ck ck;
  int32_t ns; /* spatial dims */
  int64_t G, BG;
  int64_t in_b_stride, in_f_stride, in_sp_stride[CV_MAX_SP], in_sp_dim[CV_MAX_SP];
  int64_t k_i_stride, k_o_stride, k_sp_stride[CV_MAX_SP], k_sp_dim[CV_MAX_SP], k_in_feat, n_kwin;
  int32_t out_rank;
  int64_t out_dims[KU_MAX_RANK];
  int32_t out_b, out_f, out_sp[CV_MAX_SP]; /* output dimension numbers */
  int64_t out_feat, out_batch;
  int64_t stride[CV_MAX_SP], pad_lo[CV_MAX_SP], ldil[CV_MAX_SP], rdil[CV_MAX_SP];
  bool rev[CV_MAX_SP];
} conv_params;

static bool field_int(const shl_attr *dn, const char *name, int64_t *v) {
  return attr_as_int(attr_struct_field(dn, name), v);
}

static bool field_ints(const shl_attr *dn, const char *name, int64_t *v, size_t *n) {
  const shl_attr *f = attr_struct_field(dn, name);
  *n = 0;
  return f && attr_as_ints(f, v, CV_MAX_SP, n) && *n <= CV_MAX_SP;
}

static shl_status conv_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  if (op->n_operands != 2 || op->n_results != 1) return op_error(op, SHLOC_ERR_VERIFY, "expects two operands");
  const shl_type *lt = op->operands[0]->type, *rt = op->operands[1]->type, *ot = op->results[0].type;
  if (!type_is_static(lt) || !type_is_static(rt) || !type_is_static(ot))
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "needs static shapes");
  const shl_attr *dn = op_attr(op, "dimension_numbers");
  if (!dn || dn->kind != AT_STRUCT) return op_error(op, SHLOC_ERR_VERIFY, "has no dimension_numbers");
  conv_params *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  memset(p, 0, sizeof *p);
  p->ck = ku_ck_of(type_storage_dtype(ot));
  if (p->ck == CK_NONE) return op_error(op, SHLOC_ERR_UNSUPPORTED, "on this element type is not supported");
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
  if (p->G < 1 || p->BG < 1 || p->out_feat % p->G || p->out_feat % p->BG ||
      lt->dims[ifd] != p->k_in_feat * p->G || lt->dims[ib] != p->out_batch * p->BG)
    return op_error(op, SHLOC_ERR_VERIFY, "has inconsistent group counts");
  *params = p;
  return NULL;
}

/* Per output element: lhs base offset, rhs base offset; then the sum over
 * kernel window positions and input features of the group. */
#define CONV_LOOP(T, ACC)                                                                                     \
  do {                                                                                                      \
    const T *L = lhs;                                                                                       \
    const T *R = rhs;                                                                                       \
    T *O = outc;                                                                                            \
    _Pragma("omp parallel for if (n_out * p->n_kwin * p->k_in_feat > (1 << 16))")                           \
    for (int64_t o = 0; o < n_out; o++) {                                                                   \
      int64_t rem = o, oidx[KU_MAX_RANK];                                                                   \
      for (int32_t d = p->out_rank - 1; d >= 0; d--) {                                                      \
        oidx[d] = rem % p->out_dims[d];                                                                     \
        rem /= p->out_dims[d];                                                                              \
      }                                                                                                     \
      int64_t of = oidx[p->out_f], obt = oidx[p->out_b];                                                    \
      int64_t fg = of / (p->out_feat / p->G), bg = of / (p->out_feat / p->BG);                              \
      int64_t lbase = (bg * p->out_batch + obt) * p->in_b_stride + fg * p->k_in_feat * p->in_f_stride;      \
      int64_t rbase = of * p->k_o_stride;                                                                   \
      ACC acc = 0;                                                                                          \
      int64_t kw[CV_MAX_SP] = {0};                                                                          \
      for (int64_t w = 0; w < p->n_kwin; w++) {                                                             \
        int64_t loff = lbase, roff = rbase;                                                                 \
        bool ok = true;                                                                                     \
        for (int32_t d = 0; d < p->ns && ok; d++) {                                                         \
          int64_t pos = oidx[p->out_sp[d]] * p->stride[d] - p->pad_lo[d] + kw[d] * p->rdil[d];              \
          if (pos < 0 || pos % p->ldil[d]) ok = false;                                                      \
          else if (pos / p->ldil[d] >= p->in_sp_dim[d]) ok = false;                                         \
          else {                                                                                            \
            loff += pos / p->ldil[d] * p->in_sp_stride[d];                                                  \
            roff += (p->rev[d] ? p->k_sp_dim[d] - 1 - kw[d] : kw[d]) * p->k_sp_stride[d];                   \
          }                                                                                                 \
        }                                                                                                   \
        if (ok)                                                                                             \
          for (int64_t ci = 0; ci < p->k_in_feat; ci++)                                                     \
            acc += (ACC)L[loff + ci * p->in_f_stride] * (ACC)R[roff + ci * p->k_i_stride];                  \
        for (int32_t d = p->ns - 1; d >= 0; d--) {                                                          \
          if (++kw[d] < p->k_sp_dim[d]) break;                                                              \
          kw[d] = 0;                                                                                        \
        }                                                                                                   \
      }                                                                                                     \
      O[o] = (T)acc;                                                                                        \
    }                                                                                                       \
  } while (0)

static void conv_compute(const conv_params *p, const void *lhs, const void *rhs, void *outc, int64_t n_out) {
  switch (p->ck) {
    case CK_F32: CONV_LOOP(float, double); break;
    case CK_F64: CONV_LOOP(double, double); break;
    case CK_C64: CONV_LOOP(float complex, double complex); break;
    case CK_C128: CONV_LOOP(double complex, double complex); break;
    default: CONV_LOOP(uint64_t, uint64_t); break;
  }
}

static shl_status conv_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const conv_params *p = po->params;
  shl_buf *r = out[0];
  if (r->n == 0) return NULL;
  size_t es = ku_ck_bytes(p->ck);
  void *lhs = malloc((size_t)in[0]->n * es + 16), *rhs = malloc((size_t)in[1]->n * es + 16);
  void *oc = malloc((size_t)r->n * es + 16);
  shl_status st = lhs && rhs && oc ? NULL : st_oom();
  if (!st && (!ku_to_ck(p->ck, in[0]->dtype, in[0]->data, lhs, in[0]->n) ||
              !ku_to_ck(p->ck, in[1]->dtype, in[1]->data, rhs, in[1]->n)))
    st = op_error(po->op, SHLOC_ERR_UNSUPPORTED, "cannot convert its operands");
  if (!st) {
    conv_compute(p, lhs, rhs, oc, r->n);
    ku_from_ck(p->ck, r->dtype, oc, r->data, r->n);
  }
  free(lhs);
  free(rhs);
  free(oc);
  return st;
}

const shl_kernel kernel_convolution = {conv_prepare, conv_run};
