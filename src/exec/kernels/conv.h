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
  bool xla_order;             /* small f32/f64: conv_xla_rows sums in XLA:CPU's order */
} conv_params;

/* The op's geometry (everything but the compute type and the matrix form). */
shl_status conv_geometry(const shl_op *op, conv_params *p);
/* The matrix form: rows P, contraction Kd, Cq output features per group;
 * the output box for results of esz bytes. */
void conv_matrix_setup(conv_params *p, const shl_type *ot, size_t esz);
/* Integers (wrapping uint64): each output element's sum, in the output's layout. */
void conv_int(const conv_params *p, const uint64_t *L, const uint64_t *R, uint64_t *O, int64_t n_out);
/* Group q's kernel as W[(window, in feature), out feature] (Kd x Cq), elements of es bytes. */
void conv_kernel_matrix(const conv_params *p, const uint8_t *k, size_t es, int64_t q, uint8_t *W);
/* Row r of group q's im2col matrix (Kd elements of es bytes; zeros outside the input). */
void conv_im2col_row(const conv_params *p, const uint8_t *in, size_t es, int64_t q, int64_t r, uint8_t *row);

/* Whether the Winograd path computes this convolution (see conv_winograd.c). */
bool conv_winograd_applies(const conv_params *p);
/* out = the convolution of lhs and rhs (f32, operands in their own layouts). */
shl_status conv_winograd(const conv_params *p, const float *lhs, const float *rhs, float *out);

/* Whether a convolution is small enough to be summed in XLA's order (conv_xla.c). */
bool conv_xla_order_applies(const conv_params *p);
/* C[i, :] = A[i, :] W for m im2col rows A (m x Kd) and the group's kernel
 * matrix W (Kd x Cq), rows of C ldc apart, summed in XLA:CPU's order; acc
 * is scratch for 2 Cq elements of the compute type. */
void conv_xla_rows(const conv_params *p, int64_t m, const void *A, const void *W, void *C, int64_t ldc, void *acc);

#endif
