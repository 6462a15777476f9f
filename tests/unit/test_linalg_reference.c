/* f32 dot_general and convolution against a double-precision reference
 * computed here from the StableHLO spec's definitions, on random inputs in
 * [-1, 1) (not small integers: rounding and accumulation order matter).
 * The reference shares nothing with the kernels (no dimension setup, no
 * BLAS): plain loops over the spec's index formulas.  An f32 result may
 * differ from the exact sum by the rounding of K products and additions:
 * the bound is (K + 2) * FLT_EPSILON * sum |x_i * y_i| per element. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "shloc/executable.h"
#include "shloc/shloc.h"

/* ---- running a module through the public API ---- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

/* Uniform in [-1, 1), from a 64-bit LCG (Knuth's MMIX constants). */
static float next_uniform(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((double)(rng_state >> 40) / (double)(1ull << 23) - 1.0);
}

static float *random_tensor(int64_t n) {
  float *v = malloc((size_t)(n ? n : 1) * sizeof *v);
  assert_non_null(v);
  for (int64_t i = 0; i < n; i++) v[i] = next_uniform();
  return v;
}

/* Runs @main(x, y) of `text` (both f32) and returns its f32 result. */
static float *run2(const char *text, const int64_t *xd, int xr, const float *x, const int64_t *yd, int yr,
                   const float *y, int64_t n_out) {
  shloc_context *ctx = shloc_context_create();
  shloc_module *m = NULL;
  shloc_executable *ex = NULL;
  shloc_status st = shloc_module_parse(ctx, "ref.mlir", text, strlen(text), 1, &m);
  if (!st) st = shloc_module_verify(m);
  if (!st) st = shloc_executable_create(m, NULL, NULL, &ex);
  int64_t nx = 1, ny = 1;
  for (int i = 0; i < xr; i++) nx *= xd[i];
  for (int i = 0; i < yr; i++) ny *= yd[i];
  shloc_tensor args[2] = {
      {XLA_FFI_DataType_F32, xr, xd, (void *)x, (size_t)nx * 4},
      {XLA_FFI_DataType_F32, yr, yd, (void *)y, (size_t)ny * 4},
  };
  shloc_tensor res = {0};
  if (!st) st = shloc_executable_run(ex, args, 2, &res, 1);
  if (st) {
    char *msg = shloc_status_render(st, text, strlen(text));
    fail_msg("%s", msg ? msg : shloc_status_message(st));
  }
  assert_int_equal(res.nbytes, (size_t)n_out * 4);
  shloc_executable_destroy(ex);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
  return res.data;
}

/* got[i] within (k + 2) * FLT_EPSILON * mag[i] (+ a denormal floor) of want[i]. */
static void expect_close(const float *got, const double *want, const double *mag, int64_t n, int64_t k,
                         const char *what) {
  for (int64_t i = 0; i < n; i++) {
    double tol = (double)(k + 2) * FLT_EPSILON * mag[i] + 1e-30;
    if (!(fabs((double)got[i] - want[i]) <= tol))
      fail_msg("%s: element %lld is %.9g, reference %.9g (tolerance %.3g)", what, (long long)i, (double)got[i],
               want[i], tol);
  }
}

/* ---- dot_general ----
 * Reference for result[b, m, n] = sum_k lhs[...] * rhs[...], with the
 * operand element addresses given by strides per logical dimension
 * (batch, free, contracting), so that any operand layout reads alike. */
typedef struct {
  int64_t B, M, N, K;
  int64_t ls_b, ls_m, ls_k; /* lhs strides (elements) of batch, free, contracting */
  int64_t rs_b, rs_n, rs_k; /* rhs strides */
} dot_case;

static void dot_reference(const dot_case *c, const float *l, const float *r, double *out, double *mag) {
  for (int64_t b = 0; b < c->B; b++)
    for (int64_t m = 0; m < c->M; m++)
      for (int64_t n = 0; n < c->N; n++) {
        double s = 0, a = 0;
        for (int64_t k = 0; k < c->K; k++) {
          double p = (double)l[b * c->ls_b + m * c->ls_m + k * c->ls_k] * r[b * c->rs_b + n * c->rs_n + k * c->rs_k];
          s += p;
          a += fabs(p);
        }
        out[(b * c->M + m) * c->N + n] = s;
        mag[(b * c->M + m) * c->N + n] = a;
      }
}

static void check_dot(const char *what, const char *text, const dot_case *c, const int64_t *ld, int lr,
                      const int64_t *rd, int rr) {
  int64_t nl = 1, nr = 1, no = c->B * c->M * c->N;
  for (int i = 0; i < lr; i++) nl *= ld[i];
  for (int i = 0; i < rr; i++) nr *= rd[i];
  float *l = random_tensor(nl), *r = random_tensor(nr);
  double *want = malloc((size_t)no * sizeof *want), *mag = malloc((size_t)no * sizeof *mag);
  assert_true(want && mag);
  dot_reference(c, l, r, want, mag);
  float *got = run2(text, ld, lr, l, rd, rr, r, no);
  expect_close(got, want, mag, no, c->K, what);
  free(got);
  free(want);
  free(mag);
  free(l);
  free(r);
}

static void test_dot_general(void **state) {
  (void)state;
  /* [M,K] x [K,N]: the plain matrix product. */
  {
    const int64_t ld[2] = {37, 53}, rd[2] = {53, 29};
    dot_case c = {1, 37, 29, 53, 0, 53, 1, 0, 1, 29};
    check_dot("matmul",
              "func.func @main(%a: tensor<37x53xf32>, %b: tensor<53x29xf32>) -> tensor<37x29xf32> {\n"
              "  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<37x53xf32>, "
              "tensor<53x29xf32>) -> tensor<37x29xf32>\n"
              "  return %0 : tensor<37x29xf32>\n}\n",
              &c, ld, 2, rd, 2);
  }
  /* [K,M] x [N,K]: both operands transposed. */
  {
    const int64_t ld[2] = {64, 17}, rd[2] = {23, 64};
    dot_case c = {1, 17, 23, 64, 0, 1, 17, 0, 64, 1};
    check_dot("transposed operands",
              "func.func @main(%a: tensor<64x17xf32>, %b: tensor<23x64xf32>) -> tensor<17x23xf32> {\n"
              "  %0 = stablehlo.dot_general %a, %b, contracting_dims = [0] x [1] : (tensor<64x17xf32>, "
              "tensor<23x64xf32>) -> tensor<17x23xf32>\n"
              "  return %0 : tensor<17x23xf32>\n}\n",
              &c, ld, 2, rd, 2);
  }
  /* lhs [M,B,K], rhs [K,N,B]: batch dimensions in the middle and last. */
  {
    const int64_t ld[3] = {9, 3, 31}, rd[3] = {31, 11, 3};
    dot_case c = {3, 9, 11, 31, 31, 3 * 31, 1, 1, 3, 11 * 3};
    check_dot("batched, permuted",
              "func.func @main(%a: tensor<9x3x31xf32>, %b: tensor<31x11x3xf32>) -> tensor<3x9x11xf32> {\n"
              "  %0 = stablehlo.dot_general %a, %b, batching_dims = [1] x [2], contracting_dims = [2] x [0] : "
              "(tensor<9x3x31xf32>, tensor<31x11x3xf32>) -> tensor<3x9x11xf32>\n"
              "  return %0 : tensor<3x9x11xf32>\n}\n",
              &c, ld, 3, rd, 3);
  }
  /* [M,K] x [K]: matrix-vector, a long contraction (K = 1000). */
  {
    const int64_t ld[2] = {5, 1000}, rd[1] = {1000};
    dot_case c = {1, 5, 1, 1000, 0, 1000, 1, 0, 0, 1};
    check_dot("matvec",
              "func.func @main(%a: tensor<5x1000xf32>, %b: tensor<1000xf32>) -> tensor<5xf32> {\n"
              "  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<5x1000xf32>, "
              "tensor<1000xf32>) -> tensor<5xf32>\n"
              "  return %0 : tensor<5xf32>\n}\n",
              &c, ld, 2, rd, 1);
  }
}

/* ---- convolution ----
 * 2-D, from the spec: output[n, o, y, x] = sum over input features i of the
 * group and window positions (wy, wx) of lhs[nb, g*I + i, iy, ix] *
 * rhs[o, i, wy', wx'], where the window position lands on the padded,
 * lhs-dilated input at (y*stride + wy*rhs_dil - pad_lo), skipped unless it
 * falls on a real input element; window reversal flips wy' = KH-1-wy.
 * Layouts: strides per logical dimension. */
typedef struct {
  int64_t N, C, H, W;     /* input */
  int64_t O, I, KH, KW;   /* kernel (I = C / feature_group_count) */
  int64_t stride[2], pad_lo[2], pad_hi[2], lhs_dil[2], rhs_dil[2];
  bool reverse[2];
  int64_t fgc, bgc;
  int64_t xs[4], ks[4], os[4]; /* strides: input (n,c,h,w), kernel (o,i,h,w), output (n,o,h,w) */
  int64_t ON, OH, OW;          /* output sizes, filled by conv_shape */
} conv_case;

static void conv_shape(conv_case *c) {
  int64_t in[2] = {c->H, c->W}, k[2] = {c->KH, c->KW}, out[2];
  for (int d = 0; d < 2; d++) {
    int64_t padded = (in[d] - 1) * c->lhs_dil[d] + 1 + c->pad_lo[d] + c->pad_hi[d];
    int64_t window = (k[d] - 1) * c->rhs_dil[d] + 1;
    out[d] = (padded - window) / c->stride[d] + 1;
  }
  c->OH = out[0];
  c->OW = out[1];
  c->ON = c->N / c->bgc;
}

static void conv_reference(const conv_case *c, const float *x, const float *k, double *out, double *mag) {
  int64_t o_per_fg = c->O / c->fgc, o_per_bg = c->O / c->bgc;
  for (int64_t n = 0; n < c->ON; n++)
    for (int64_t o = 0; o < c->O; o++)
      for (int64_t y = 0; y < c->OH; y++)
        for (int64_t xo = 0; xo < c->OW; xo++) {
          int64_t g = o / o_per_fg, nb = (o / o_per_bg) * c->ON + n;
          double s = 0, a = 0;
          for (int64_t i = 0; i < c->I; i++)
            for (int64_t wy = 0; wy < c->KH; wy++)
              for (int64_t wx = 0; wx < c->KW; wx++) {
                int64_t py = y * c->stride[0] + wy * c->rhs_dil[0] - c->pad_lo[0];
                int64_t px = xo * c->stride[1] + wx * c->rhs_dil[1] - c->pad_lo[1];
                if (py < 0 || px < 0 || py % c->lhs_dil[0] || px % c->lhs_dil[1]) continue;
                int64_t iy = py / c->lhs_dil[0], ix = px / c->lhs_dil[1];
                if (iy >= c->H || ix >= c->W) continue;
                int64_t ky = c->reverse[0] ? c->KH - 1 - wy : wy, kx = c->reverse[1] ? c->KW - 1 - wx : wx;
                double p = (double)x[nb * c->xs[0] + (g * c->I + i) * c->xs[1] + iy * c->xs[2] + ix * c->xs[3]] *
                           k[o * c->ks[0] + i * c->ks[1] + ky * c->ks[2] + kx * c->ks[3]];
                s += p;
                a += fabs(p);
              }
          int64_t at = n * c->os[0] + o * c->os[1] + y * c->os[2] + xo * c->os[3];
          out[at] = s;
          mag[at] = a;
        }
}

static void check_conv(const char *what, const char *text, conv_case *c, const int64_t *xd, const int64_t *kd) {
  conv_shape(c);
  int64_t nx = c->N * c->C * c->H * c->W, nk = c->O * c->I * c->KH * c->KW, no = c->ON * c->O * c->OH * c->OW;
  float *x = random_tensor(nx), *k = random_tensor(nk);
  double *want = malloc((size_t)no * sizeof *want), *mag = malloc((size_t)no * sizeof *mag);
  assert_true(want && mag);
  conv_reference(c, x, k, want, mag);
  float *got = run2(text, xd, 4, x, kd, 4, k, no);
  expect_close(got, want, mag, no, c->I * c->KH * c->KW, what);
  free(got);
  free(want);
  free(mag);
  free(x);
  free(k);
}

static void test_convolution(void **state) {
  (void)state;
  /* NHWC x HWIO -> NHWC, stride 2, asymmetric padding, rhs dilation. */
  {
    conv_case c = {.N = 2, .C = 5, .H = 13, .W = 11, .O = 7, .I = 5, .KH = 3, .KW = 4,
                   .stride = {2, 1}, .pad_lo = {1, 2}, .pad_hi = {2, 0}, .lhs_dil = {1, 1}, .rhs_dil = {1, 2},
                   .fgc = 1, .bgc = 1};
    /* input [N,H,W,C], kernel [KH,KW,I,O]; output [N,OH,OW,O] = [2,7,7,7] */
    int64_t xs[4] = {13 * 11 * 5, 1, 11 * 5, 5}, ks[4] = {1, 7, 4 * 5 * 7, 5 * 7};
    memcpy(c.xs, xs, sizeof xs);
    memcpy(c.ks, ks, sizeof ks);
    int64_t os[4] = {7 * 7 * 7, 1, 7 * 7, 7};
    memcpy(c.os, os, sizeof os);
    const int64_t xd[4] = {2, 13, 11, 5}, kd[4] = {3, 4, 5, 7};
    check_conv("NHWC/HWIO, stride, padding, rhs dilation",
               "func.func @main(%x: tensor<2x13x11x5xf32>, %k: tensor<3x4x5x7xf32>) -> tensor<2x7x7x7xf32> {\n"
               "  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
               "window = {stride = [2, 1], pad = [[1, 2], [2, 0]], rhs_dilate = [1, 2]} "
               "{batch_group_count = 1 : i64, feature_group_count = 1 : i64} : "
               "(tensor<2x13x11x5xf32>, tensor<3x4x5x7xf32>) -> tensor<2x7x7x7xf32>\n"
               "  return %0 : tensor<2x7x7x7xf32>\n}\n",
               &c, xd, kd);
  }
  /* NCHW x OIHW -> NCHW, two feature groups, lhs dilation, window reversal. */
  {
    conv_case c = {.N = 1, .C = 6, .H = 5, .W = 6, .O = 4, .I = 3, .KH = 3, .KW = 2,
                   .stride = {1, 1}, .pad_lo = {1, 1}, .pad_hi = {1, 1}, .lhs_dil = {2, 1}, .rhs_dil = {1, 1},
                   .reverse = {true, false}, .fgc = 2, .bgc = 1};
    /* padded H = 4*2+1+2 = 11 -> OH 9; W = 6+2 = 8 -> OW 7 */
    int64_t xs[4] = {6 * 5 * 6, 5 * 6, 6, 1}, ks[4] = {3 * 3 * 2, 3 * 2, 2, 1}, os[4] = {4 * 9 * 7, 9 * 7, 7, 1};
    memcpy(c.xs, xs, sizeof xs);
    memcpy(c.ks, ks, sizeof ks);
    memcpy(c.os, os, sizeof os);
    const int64_t xd[4] = {1, 6, 5, 6}, kd[4] = {4, 3, 3, 2};
    check_conv("NCHW/OIHW, feature groups, lhs dilation, reversal",
               "func.func @main(%x: tensor<1x6x5x6xf32>, %k: tensor<4x3x3x2xf32>) -> tensor<1x4x9x7xf32> {\n"
               "  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], "
               "window = {pad = [[1, 1], [1, 1]], lhs_dilate = [2, 1], reverse = [true, false]} "
               "{batch_group_count = 1 : i64, feature_group_count = 2 : i64} : "
               "(tensor<1x6x5x6xf32>, tensor<4x3x3x2xf32>) -> tensor<1x4x9x7xf32>\n"
               "  return %0 : tensor<1x4x9x7xf32>\n}\n",
               &c, xd, kd);
  }
  /* Two batch groups (the weight-gradient form): input batch 4 -> output 2. */
  {
    conv_case c = {.N = 4, .C = 3, .H = 6, .W = 5, .O = 6, .I = 3, .KH = 2, .KW = 2,
                   .stride = {1, 1}, .pad_lo = {0, 0}, .pad_hi = {0, 0}, .lhs_dil = {1, 1}, .rhs_dil = {1, 1},
                   .fgc = 1, .bgc = 2};
    int64_t xs[4] = {3 * 6 * 5, 6 * 5, 5, 1}, ks[4] = {3 * 2 * 2, 2 * 2, 2, 1}, os[4] = {6 * 5 * 4, 5 * 4, 4, 1};
    memcpy(c.xs, xs, sizeof xs);
    memcpy(c.ks, ks, sizeof ks);
    memcpy(c.os, os, sizeof os);
    const int64_t xd[4] = {4, 3, 6, 5}, kd[4] = {6, 3, 2, 2};
    check_conv("batch groups",
               "func.func @main(%x: tensor<4x3x6x5xf32>, %k: tensor<6x3x2x2xf32>) -> tensor<2x6x5x4xf32> {\n"
               "  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], "
               "window = {} {batch_group_count = 2 : i64, feature_group_count = 1 : i64} : "
               "(tensor<4x3x6x5xf32>, tensor<6x3x2x2xf32>) -> tensor<2x6x5x4xf32>\n"
               "  return %0 : tensor<2x6x5x4xf32>\n}\n",
               &c, xd, kd);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dot_general),
      cmocka_unit_test(test_convolution),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
