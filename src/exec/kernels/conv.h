/* stablehlo.convolution's plan-time parameters, shared by the general
 * path (conv.c) and the Winograd path for 3x3 windows (conv_winograd.c). */
#ifndef SHLOC_EXEC_KERNELS_CONV_H
#define SHLOC_EXEC_KERNELS_CONV_H

#include "kconvert.h"
#include "kutil.h"
#include "strided.h"

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
  /* matrix form (floats) */
  int64_t P, Kd, NQ, Cq;      /* rows, contraction, groups, output features per group */
  int64_t osp_dim[CV_MAX_SP]; /* output spatial sizes in dimension-number order */
  bool out_direct;            /* products write the result in place, row pitch out_pitch */
  int64_t out_pitch, out_f_stride;
  strided_box out_box;        /* otherwise: scratch [P, Cq] -> result (byte strides) */
  bool winograd;              /* floats: conv_winograd computes it (decided at plan time) */
} conv_params;

/* Whether the Winograd path computes this convolution (see conv_winograd.c). */
bool conv_winograd_applies(const conv_params *p);
/* out = the convolution of lhs and rhs (f32, operands in their own layouts). */
shl_status conv_winograd(const conv_params *p, const float *lhs, const float *rhs, float *out);

#endif
