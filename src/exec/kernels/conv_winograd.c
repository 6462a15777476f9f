/* stablehlo.convolution with a 3x3 window, unit strides and no dilation on
 * f32: Winograd's minimal filtering F(2x2, 3x3) (Lavin & Gray, "Fast
 * Algorithms for Convolutional Neural Networks", 2016).  Each 2x2 tile of
 * the output comes from a 4x4 tile of the input: with the transforms
 *   V = B^T d B (input tile d),  U = G g G^T (3x3 window g),  Y = A^T M A,
 * the products of all input and output features become 16 independent
 * matrix products M[x] = V[x] U[x] (x = the 16 transformed positions):
 * [tiles, in features] x [in features, out features], so the products take
 * 4 multiplications per output where the window takes 9.  Tiles go in
 * blocks that stay in cache, each thread its own blocks.
 *
 * The transforms add and halve, so results round differently from the
 * direct sum (relative differences of a few 1e-7 of the sum of |terms|);
 * only large convolutions take this path, small ones keep the exact-order
 * matrix form. */
#include <omp.h>
#include <stdlib.h>

#include "conv.h"
#include "gemm.h"

/* Tiles per block: V and M of a block (16 x TILES x features floats each)
 * fit a core's L2 for 64 features.  The 16 matrices of a block are SKEW
 * floats more than their size apart: at a power-of-two distance the 16
 * streams a transform reads or writes would share one set of the L1 cache. */
enum { TILES = 128, SKEW = 16, MIN_FLOPS = 1 << 26 };

/* Floats from one transformed position's matrix to the next. */
static size_t pos_stride(int64_t features) { return (size_t)TILES * (size_t)features + SKEW; }

bool conv_winograd_applies(const conv_params *p) {
  if (p->ck != CK_F32 || p->ns != 2 || p->G != 1 || p->BG != 1 || p->in_f_stride != 1 || p->out_f_stride != 1)
    return false;
  for (int32_t d = 0; d < 2; d++)
    if (p->k_sp_dim[d] != 3 || p->stride[d] != 1 || p->ldil[d] != 1 || p->rdil[d] != 1 || p->rev[d] ||
        p->osp_dim[d] < 2)
      return false;
  /* 2 * outputs * 9 * in features: the direct form's flops */
  double flops = 18.0 * (double)p->P * (double)p->out_feat * (double)p->k_in_feat;
  return flops >= MIN_FLOPS;
}

/* U[x][ci][co] = G g G^T of the window of (ci, co), in double, rounded once. */
static void kernel_transform(const conv_params *p, const float *k, float *U) {
  int64_t C = p->k_in_feat, O = p->out_feat;
  for (int64_t ci = 0; ci < C; ci++)
    for (int64_t co = 0; co < O; co++) {
      const float *w = k + ci * p->k_i_stride + co * p->k_o_stride;
      double g[3][3], t[4][3];
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) g[i][j] = w[i * p->k_sp_stride[0] + j * p->k_sp_stride[1]];
      for (int j = 0; j < 3; j++) {
        t[0][j] = g[0][j];
        t[1][j] = 0.5 * (g[0][j] + g[1][j] + g[2][j]);
        t[2][j] = 0.5 * (g[0][j] - g[1][j] + g[2][j]);
        t[3][j] = g[2][j];
      }
      for (int i = 0; i < 4; i++) {
        double u[4] = {t[i][0], 0.5 * (t[i][0] + t[i][1] + t[i][2]), 0.5 * (t[i][0] - t[i][1] + t[i][2]), t[i][2]};
        for (int j = 0; j < 4; j++) U[((size_t)(i * 4 + j) * C + ci) * O + co] = (float)u[j];
      }
    }
}

typedef struct {
  int64_t tiles_h, tiles_w, tiles; /* per image, per row; all */
  int64_t ob, oh, ow, of;          /* output strides */
} geometry;

/* V[x][t][c] for the tiles t0 .. t0 + nt - 1: B^T d B of each feature's 4x4
 * input tile, vectorised across features (contiguous in the input).
 * Positions outside the input read `zeros` (C floats). */
KU_CLONES static void input_transform(const conv_params *p, const geometry *g, const float *in, const float *zeros, int64_t t0,
                            int64_t nt, float *V) {
  int64_t C = p->k_in_feat;
  size_t xs = pos_stride(C);
  for (int64_t t = 0; t < nt; t++) {
    int64_t tile = t0 + t, b = tile / (g->tiles_h * g->tiles_w), r = tile % (g->tiles_h * g->tiles_w);
    int64_t y0 = r / g->tiles_w * 2 - p->pad_lo[0], x0 = r % g->tiles_w * 2 - p->pad_lo[1];
    const float *s[16];
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 4; j++) {
        int64_t y = y0 + i, x = x0 + j;
        bool inside = y >= 0 && y < p->in_sp_dim[0] && x >= 0 && x < p->in_sp_dim[1];
        s[i * 4 + j] = inside ? in + b * p->in_b_stride + y * p->in_sp_stride[0] + x * p->in_sp_stride[1] : zeros;
      }
    /* the pointers in locals: kept in registers, not reloaded per feature */
    const float *restrict s0 = s[0], *restrict s1 = s[1], *restrict s2 = s[2], *restrict s3 = s[3];
    const float *restrict s4 = s[4], *restrict s5 = s[5], *restrict s6 = s[6], *restrict s7 = s[7];
    const float *restrict s8 = s[8], *restrict s9 = s[9], *restrict s10 = s[10], *restrict s11 = s[11];
    const float *restrict s12 = s[12], *restrict s13 = s[13], *restrict s14 = s[14], *restrict s15 = s[15];
    float *restrict v = V + t * C;
#pragma omp simd
    for (int64_t c = 0; c < C; c++) {
      /* u = B^T d, column by column */
      float u00 = s0[c] - s8[c], u01 = s1[c] - s9[c], u02 = s2[c] - s10[c], u03 = s3[c] - s11[c];
      float u10 = s4[c] + s8[c], u11 = s5[c] + s9[c], u12 = s6[c] + s10[c], u13 = s7[c] + s11[c];
      float u20 = s8[c] - s4[c], u21 = s9[c] - s5[c], u22 = s10[c] - s6[c], u23 = s11[c] - s7[c];
      float u30 = s4[c] - s12[c], u31 = s5[c] - s13[c], u32 = s6[c] - s14[c], u33 = s7[c] - s15[c];
      /* v = u B */
      v[0 * xs + (size_t)c] = u00 - u02;
      v[1 * xs + (size_t)c] = u01 + u02;
      v[2 * xs + (size_t)c] = u02 - u01;
      v[3 * xs + (size_t)c] = u01 - u03;
      v[4 * xs + (size_t)c] = u10 - u12;
      v[5 * xs + (size_t)c] = u11 + u12;
      v[6 * xs + (size_t)c] = u12 - u11;
      v[7 * xs + (size_t)c] = u11 - u13;
      v[8 * xs + (size_t)c] = u20 - u22;
      v[9 * xs + (size_t)c] = u21 + u22;
      v[10 * xs + (size_t)c] = u22 - u21;
      v[11 * xs + (size_t)c] = u21 - u23;
      v[12 * xs + (size_t)c] = u30 - u32;
      v[13 * xs + (size_t)c] = u31 + u32;
      v[14 * xs + (size_t)c] = u32 - u31;
      v[15 * xs + (size_t)c] = u31 - u33;
    }
  }
}

/* s = A^T m for output feature co of a tile's 16 transformed values. */
static inline void output_rows(const float *m, size_t xs, int64_t co, float s0[4], float s1[4]) {
  for (int j = 0; j < 4; j++) {
    float m0 = m[(size_t)j * xs + (size_t)co], m1 = m[(size_t)(4 + j) * xs + (size_t)co];
    float m2 = m[(size_t)(8 + j) * xs + (size_t)co], m3 = m[(size_t)(12 + j) * xs + (size_t)co];
    s0[j] = m0 + m1 + m2;
    s1[j] = m1 - m2 - m3;
  }
}

/* out = A^T M A of each output feature's 4x4 tile, clipped to the output,
 * vectorised across features (contiguous in the output). */
KU_CLONES static void output_transform(const conv_params *p, const geometry *g, const float *M, int64_t t0, int64_t nt,
                                       float *out) {
  int64_t O = p->out_feat;
  size_t xs = pos_stride(O);
  for (int64_t t = 0; t < nt; t++) {
    int64_t tile = t0 + t, b = tile / (g->tiles_h * g->tiles_w), r = tile % (g->tiles_h * g->tiles_w);
    int64_t y0 = r / g->tiles_w * 2, x0 = r % g->tiles_w * 2;
    bool y1 = y0 + 1 < p->osp_dim[0], x1 = x0 + 1 < p->osp_dim[1];
    float *o00 = out + b * g->ob + y0 * g->oh + x0 * g->ow;
    const float *m = M + t * O;
    if (y1 && x1) {
      float *o01 = o00 + g->ow, *o10 = o00 + g->oh, *o11 = o10 + g->ow;
#pragma omp simd
      for (int64_t co = 0; co < O; co++) {
        float s0[4], s1[4];
        output_rows(m, xs, co, s0, s1);
        o00[co] = s0[0] + s0[1] + s0[2];
        o01[co] = s0[1] - s0[2] - s0[3];
        o10[co] = s1[0] + s1[1] + s1[2];
        o11[co] = s1[1] - s1[2] - s1[3];
      }
      continue;
    }
    /* a tile on the bottom or right edge of an odd-sized output */
    for (int64_t co = 0; co < O; co++) {
      float s0[4], s1[4];
      output_rows(m, xs, co, s0, s1);
      o00[co] = s0[0] + s0[1] + s0[2];
      if (x1) o00[g->ow + co] = s0[1] - s0[2] - s0[3];
      if (y1) o00[g->oh + co] = s1[0] + s1[1] + s1[2];
    }
  }
}

shl_status conv_winograd(const conv_params *p, const float *lhs, const float *rhs, float *out) {
  int64_t C = p->k_in_feat, O = p->out_feat;
  int64_t os[KU_MAX_RANK];
  ku_strides(p->out_rank, p->out_dims, os);
  geometry g = {(p->osp_dim[0] + 1) / 2, (p->osp_dim[1] + 1) / 2, 0, os[p->out_b], os[p->out_sp[0]], os[p->out_sp[1]],
                os[p->out_f]};
  g.tiles = p->out_batch * g.tiles_h * g.tiles_w;
  int64_t blocks = (g.tiles + TILES - 1) / TILES;
  int nt = omp_get_max_threads();
  if (nt > blocks) nt = (int)blocks;
  size_t per_thread = 16 * (pos_stride(C) + pos_stride(O));
  float *U = malloc((size_t)16 * (size_t)(C * O) * sizeof *U);
  float *scratch = malloc((size_t)nt * per_thread * sizeof *scratch);
  float *zeros = calloc((size_t)C, sizeof *zeros);
  if (!U || !scratch || !zeros) {
    free(U);
    free(scratch);
    free(zeros);
    return st_oom();
  }
  kernel_transform(p, rhs, U);
  int saved = gemm_serial_begin();
#pragma omp parallel for schedule(dynamic) num_threads(nt) if (nt > 1)
  for (int64_t blk = 0; blk < blocks; blk++) {
    float *V = scratch + (size_t)omp_get_thread_num() * per_thread, *M = V + 16 * pos_stride(C);
    int64_t t0 = blk * TILES, n = g.tiles - t0 < TILES ? g.tiles - t0 : TILES;
    input_transform(p, &g, lhs, zeros, t0, n, V);
    for (int x = 0; x < 16; x++) {
      gemm_shape s = {.M = n, .N = O, .K = C, .lda = C, .ldb = O, .ldc = O};
      gemm_one(CK_F32, &s, V + (size_t)x * pos_stride(C), U + (size_t)x * (size_t)(C * O), M + (size_t)x * pos_stride(O));
    }
    output_transform(p, &g, M, t0, n, out);
  }
  gemm_serial_end(saved);
  free(U);
  free(scratch);
  free(zeros);
  return NULL;
}
