/* stablehlo.convolution with a 3x3 window, unit strides and no dilation on
 * f32: Winograd's minimal filtering F(4x4, 3x3) (Lavin & Gray, "Fast
 * Algorithms for Convolutional Neural Networks", 2016; interpolation points
 * 0, 1, -1, 2, -2 and infinity).  Each 4x4 tile of the output comes from a
 * 6x6 tile of the input: with the transforms
 *   V = B^T d B (input tile d),  U = G g G^T (3x3 window g),  Y = A^T M A,
 * the products of all input and output features become 36 independent
 * matrix products M[x] = V[x] U[x] (x = the 36 transformed positions):
 * [tiles, in features] x [in features, out features], so the products take
 * 2.25 multiplications per output where the window takes 9 (F(2x2, 3x3):
 * 4).  Tiles go in blocks that stay in cache, each thread its own blocks;
 * the transforms run 16 features at a time.
 *
 * The transforms scale by up to 8 (and the window's by 1/24), so results
 * round differently from the direct sum (relative differences of about
 * 1e-6 of the sum of |terms|); only large convolutions take this path,
 * small ones keep the exact-order matrix form. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "gemm.h"

/* Tiles per block: V and M of a block (36 x TILES x features floats each)
 * fit a core's L2 for 64 features.  The 36 matrices of a block are SKEW
 * floats more than their size apart: at a power-of-two distance the 36
 * streams a transform reads or writes would share one set of the L1 cache. */
enum { TILES = 48, SKEW = 16, MIN_FLOPS = 1 << 26 };

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

/* t = G g for three values (G's rows: 1/4 (1 0 0), -1/6 (1 1 1), -1/6 (1 -1 1),
 * 1/24 (1 2 4), 1/24 (1 -2 4), (0 0 1)); in double, by multiplications. */
static inline void g6(double g0, double g1, double g2, double t[6]) {
  double s = g0 + g2, q = g0 + 4 * g2;
  t[0] = 0.25 * g0;
  t[1] = (s + g1) * (-1.0 / 6);
  t[2] = (s - g1) * (-1.0 / 6);
  t[3] = (q + 2 * g1) * (1.0 / 24);
  t[4] = (q - 2 * g1) * (1.0 / 24);
  t[5] = g2;
}

/* U[x][ci][co] = G g G^T of the window of (ci, co), in double, rounded once.
 * One input feature at a time into T[x][co]: the 36 rows of U it lands in
 * are C * O floats apart, and stores that far apart per co would all
 * compete for one set of the L1 cache.  T: 36 O floats. */
static void kernel_transform(const conv_params *p, const float *k, float *U, float *T) {
  int64_t C = p->k_in_feat, O = p->out_feat;
  for (int64_t ci = 0; ci < C; ci++) {
    for (int64_t co = 0; co < O; co++) {
      const float *w = k + ci * p->k_i_stride + co * p->k_o_stride;
      double g[3][3], t[3][6], u[6];
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) g[i][j] = w[i * p->k_sp_stride[0] + j * p->k_sp_stride[1]];
      for (int j = 0; j < 3; j++) g6(g[0][j], g[1][j], g[2][j], t[j]); /* t[j][i] = (G g)[i][j] */
      for (int i = 0; i < 6; i++) {
        g6(t[0][i], t[1][i], t[2][i], u);
        for (int j = 0; j < 6; j++) T[(i * 6 + j) * O + co] = (float)u[j];
      }
    }
    for (int x = 0; x < 36; x++) memcpy(U + ((size_t)x * C + ci) * O, T + x * O, (size_t)O * sizeof *T);
  }
}

typedef struct {
  int64_t tiles_h, tiles_w, tiles; /* per image, per row; all */
  int64_t ob, oh, ow, of;          /* output strides */
} geometry;

/* 64-byte vectors are passed in registers only with AVX-512; the helpers
 * below are always inlined, so the ABI note does not apply. */
#pragma GCC diagnostic ignored "-Wpsabi"

/* 16 features at a time, loaded and stored unaligned. */
typedef float vf __attribute__((vector_size(64), aligned(4)));

/* a * b + c rounded once, lane by lane (one vector FMA on FMA targets). */
static inline __attribute__((always_inline)) vf vfma(float a, vf b, vf c) {
  vf r;
  for (int i = 0; i < 16; i++) r[i] = fmaf(a, b[i], c[i]);
  return r;
}

/* y = B^T x for one column (or row) of six values. */
static inline __attribute__((always_inline)) void bt6(const vf x[6], vf y[6]) {
  y[0] = vfma(4.0f, x[0], vfma(-5.0f, x[2], x[4]));
  y[1] = vfma(-4.0f, x[1] + x[2], x[3] + x[4]);
  y[2] = vfma(4.0f, x[1] - x[2], x[4] - x[3]);
  y[3] = vfma(2.0f, x[3] - x[1], x[4] - x[2]);
  y[4] = vfma(2.0f, x[1] - x[3], x[4] - x[2]);
  y[5] = vfma(4.0f, x[1], vfma(-5.0f, x[3], x[5]));
}

/* y = A^T x: four values from six. */
static inline __attribute__((always_inline)) void at6(const vf x[6], vf y[4]) {
  vf s12 = x[1] + x[2], d12 = x[1] - x[2], s34 = x[3] + x[4], d34 = x[3] - x[4];
  y[0] = x[0] + s12 + s34;
  y[1] = vfma(2.0f, d34, d12);
  y[2] = vfma(4.0f, s34, s12);
  y[3] = vfma(8.0f, d34, d12 + x[5]);
}

/* B^T d B of 16 features: d[i][j] at s[i * 6 + j][0..15], result x at
 * v[x * xs + 0..15]. */
static inline __attribute__((always_inline)) void in_tile16(const float *const s[36], float *v, size_t xs) {
  vf u[36];
#pragma GCC unroll 6
  for (int j = 0; j < 6; j++) { /* u = B^T d, column by column */
    vf d[6], e[6];
#pragma GCC unroll 6
    for (int i = 0; i < 6; i++) d[i] = *(const vf *)s[i * 6 + j];
    bt6(d, e);
#pragma GCC unroll 6
    for (int i = 0; i < 6; i++) u[i * 6 + j] = e[i];
  }
#pragma GCC unroll 6
  for (int i = 0; i < 6; i++) { /* v = u B, row by row */
    vf e[6];
    bt6(u + i * 6, e);
#pragma GCC unroll 6
    for (int j = 0; j < 6; j++) *(vf *)(v + (size_t)(i * 6 + j) * xs) = e[j];
  }
}

/* A^T m A of 16 features: m[x] at m[x * xs + 0..15]; row i of the 4x4
 * result at o[i][0..15] (rows ny, columns nx of it stored, ow apart). */
static inline __attribute__((always_inline)) void out_tile16(const float *m, size_t xs, float *const o[4], int64_t ny,
                                                             int64_t nx, int64_t ow) {
  vf w[24];
#pragma GCC unroll 6
  for (int j = 0; j < 6; j++) { /* w = A^T m, column by column */
    vf d[6], e[4];
#pragma GCC unroll 6
    for (int i = 0; i < 6; i++) d[i] = *(const vf *)(m + (size_t)(i * 6 + j) * xs);
    at6(d, e);
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) w[i * 6 + j] = e[i];
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; i++) { /* out = w A, row by row */
    if (i >= ny) break;
    vf e[4];
    at6(w + i * 6, e);
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++)
      if (j < nx) *(vf *)(o[i] + j * ow) = e[j];
  }
}

/* V[x][t][c] for the tiles t0 .. t0 + nt - 1: B^T d B of each feature's 6x6
 * input tile, 16 features at a time (contiguous in the input; the last
 * partial group through a zero-padded copy).  Positions outside the input
 * read `zeros` (C floats). */
KU_CLONES static void input_transform(const conv_params *p, const geometry *g, const float *in, const float *zeros, int64_t t0,
                                      int64_t nt, float *V) {
  int64_t C = p->k_in_feat, full = C / 16 * 16;
  size_t xs = pos_stride(C), n_tail = (size_t)(C - full) * sizeof(float);
  float dt[36][16], vt[36][16];
  for (int64_t t = 0; t < nt; t++) {
    int64_t tile = t0 + t, b = tile / (g->tiles_h * g->tiles_w), r = tile % (g->tiles_h * g->tiles_w);
    int64_t y0 = r / g->tiles_w * 4 - p->pad_lo[0], x0 = r % g->tiles_w * 4 - p->pad_lo[1];
    const float *s[36], *sc[36];
    for (int i = 0; i < 6; i++)
      for (int j = 0; j < 6; j++) {
        int64_t y = y0 + i, x = x0 + j;
        bool inside = y >= 0 && y < p->in_sp_dim[0] && x >= 0 && x < p->in_sp_dim[1];
        s[i * 6 + j] = inside ? in + b * p->in_b_stride + y * p->in_sp_stride[0] + x * p->in_sp_stride[1] : zeros;
      }
    float *v = V + t * C;
    for (int64_t c = 0; c < C; c += 16) {
      /* one call site, so the unrolled transform is inlined once per clone */
      bool tail = c >= full;
      float *dst = tail ? vt[0] : v + c;
      for (int x = 0; x < 36; x++) {
        sc[x] = s[x] + c;
        if (tail) {
          memset(dt[x], 0, sizeof dt[x]);
          memcpy(dt[x], sc[x], n_tail);
          sc[x] = dt[x];
        }
      }
      in_tile16(sc, dst, tail ? 16 : xs);
      if (tail)
        for (int x = 0; x < 36; x++) memcpy(v + (size_t)x * xs + (size_t)c, vt[x], n_tail);
    }
  }
}

/* out = A^T M A of each output feature's 6x6 tile, clipped to the output,
 * 16 features at a time (contiguous in the output). */
KU_CLONES static void output_transform(const conv_params *p, const geometry *g, const float *M, int64_t t0, int64_t nt,
                                       float *out) {
  int64_t O = p->out_feat, full = O / 16 * 16;
  size_t xs = pos_stride(O), n_tail = (size_t)(O - full) * sizeof(float);
  float mt[36][16], ot[4][4][16];
  for (int64_t t = 0; t < nt; t++) {
    int64_t tile = t0 + t, b = tile / (g->tiles_h * g->tiles_w), r = tile % (g->tiles_h * g->tiles_w);
    int64_t y0 = r / g->tiles_w * 4, x0 = r % g->tiles_w * 4;
    int64_t ny = p->osp_dim[0] - y0 < 4 ? p->osp_dim[0] - y0 : 4, nx = p->osp_dim[1] - x0 < 4 ? p->osp_dim[1] - x0 : 4;
    float *o = out + b * g->ob + y0 * g->oh + x0 * g->ow;
    const float *m = M + t * O;
    for (int64_t c = 0; c < O; c += 16) {
      /* one call site, so the unrolled transform is inlined once per clone */
      bool tail = c >= full;
      const float *src = m + c;
      if (tail) {
        for (int x = 0; x < 36; x++) {
          memset(mt[x], 0, sizeof mt[x]);
          memcpy(mt[x], m + (size_t)x * xs + (size_t)c, n_tail);
        }
        src = mt[0];
      }
      float *rows[4];
      for (int i = 0; i < 4; i++) rows[i] = tail ? ot[i][0] : o + i * g->oh + c;
      out_tile16(src, tail ? 16 : xs, rows, ny, nx, tail ? 16 : g->ow);
      if (tail)
        for (int64_t i = 0; i < ny; i++)
          for (int64_t j = 0; j < nx; j++) memcpy(o + i * g->oh + j * g->ow + c, ot[i][j], n_tail);
    }
  }
}

shl_status conv_winograd(const conv_params *p, const float *lhs, const float *rhs, float *out) {
  int64_t C = p->k_in_feat, O = p->out_feat;
  int64_t os[KU_MAX_RANK];
  ku_strides(p->out_rank, p->out_dims, os);
  geometry g = {(p->osp_dim[0] + 3) / 4, (p->osp_dim[1] + 3) / 4, 0, os[p->out_b], os[p->out_sp[0]], os[p->out_sp[1]],
                os[p->out_f]};
  g.tiles = p->out_batch * g.tiles_h * g.tiles_w;
  int64_t blocks = (g.tiles + TILES - 1) / TILES;
  int nt = omp_get_max_threads();
  if (nt > blocks) nt = (int)blocks;
  size_t per_thread = 36 * (pos_stride(C) + pos_stride(O));
  float *U = malloc((size_t)36 * (size_t)(C * O) * sizeof *U);
  float *scratch = malloc((size_t)nt * per_thread * sizeof *scratch);
  float *zeros = calloc((size_t)C, sizeof *zeros);
  if (!U || !scratch || !zeros) {
    free(U);
    free(scratch);
    free(zeros);
    return st_oom();
  }
  kernel_transform(p, rhs, U, scratch);
  int saved = gemm_serial_begin();
#pragma omp parallel for schedule(dynamic) num_threads(nt) if (nt > 1)
  for (int64_t blk = 0; blk < blocks; blk++) {
    float *V = scratch + (size_t)omp_get_thread_num() * per_thread, *M = V + 36 * pos_stride(C);
    int64_t t0 = blk * TILES, n = g.tiles - t0 < TILES ? g.tiles - t0 : TILES;
    input_transform(p, &g, lhs, zeros, t0, n, V);
    for (int x = 0; x < 36; x++) {
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
