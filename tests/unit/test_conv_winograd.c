/* The Winograd convolution (conv_winograd.c) called directly on NHWC x HWIO
 * f32 operands with random values, against a direct convolution in double:
 * every element within 1e-5 of the sum of its |terms|.
 * Covers odd output sizes (clipped edge tiles of F(4x4, 3x3)), padding on each side,
 * feature counts that are not multiples of a vector, one-row outputs and
 * more tiles than a block; and which convolutions take the path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/kernels/conv.h"
#include "exec/kernels/mathlib.h"

typedef struct {
  int64_t n, h, w, c, o, pad_t, pad_b, pad_l, pad_r;
} shape;

static conv_params nhwc(const shape *s) {
  conv_params p;
  memset(&p, 0, sizeof p);
  int64_t oh = s->h + s->pad_t + s->pad_b - 2, ow = s->w + s->pad_l + s->pad_r - 2;
  p.ck = CK_F32;
  p.ns = 2;
  p.G = p.BG = 1;
  p.in_b_stride = s->h * s->w * s->c;
  p.in_f_stride = 1;
  p.in_sp_stride[0] = s->w * s->c;
  p.in_sp_stride[1] = s->c;
  p.in_sp_dim[0] = s->h;
  p.in_sp_dim[1] = s->w;
  p.k_sp_stride[0] = 3 * s->c * s->o;
  p.k_sp_stride[1] = s->c * s->o;
  p.k_i_stride = s->o;
  p.k_o_stride = 1;
  p.k_sp_dim[0] = p.k_sp_dim[1] = 3;
  p.k_in_feat = s->c;
  p.n_kwin = 9;
  p.out_rank = 4;
  int64_t od[4] = {s->n, oh, ow, s->o};
  memcpy(p.out_dims, od, sizeof od);
  p.out_b = 0;
  p.out_sp[0] = 1;
  p.out_sp[1] = 2;
  p.out_f = 3;
  p.out_feat = s->o;
  p.out_batch = s->n;
  for (int d = 0; d < 2; d++) p.stride[d] = p.ldil[d] = p.rdil[d] = 1;
  p.pad_lo[0] = s->pad_t;
  p.pad_lo[1] = s->pad_l;
  p.osp_dim[0] = oh;
  p.osp_dim[1] = ow;
  p.P = s->n * oh * ow;
  p.Kd = 9 * s->c;
  p.NQ = 1;
  p.Cq = s->o;
  p.out_f_stride = 1;
  return p;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static float rnd(void) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((double)(rng >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
}

static void check(const shape *s) {
  conv_params p = nhwc(s);
  int64_t oh = p.osp_dim[0], ow = p.osp_dim[1];
  size_t n_in = (size_t)(s->n * s->h * s->w * s->c), n_k = (size_t)(9 * s->c * s->o), n_out = (size_t)(p.P * s->o);
  float *x = malloc(n_in * sizeof *x), *k = malloc(n_k * sizeof *k), *y = malloc(n_out * sizeof *y);
  assert_true(x && k && y);
  for (size_t i = 0; i < n_in; i++) x[i] = rnd();
  for (size_t i = 0; i < n_k; i++) k[i] = rnd();
  assert_null(conv_winograd(&p, x, k, y));
  for (int64_t b = 0; b < s->n; b++)
    for (int64_t i = 0; i < oh; i++)
      for (int64_t j = 0; j < ow; j++)
        for (int64_t o = 0; o < s->o; o++) {
          double sum = 0, mag = 0;
          for (int64_t u = 0; u < 3; u++)
            for (int64_t v = 0; v < 3; v++) {
              int64_t yy = i - s->pad_t + u, xx = j - s->pad_l + v;
              if (yy < 0 || yy >= s->h || xx < 0 || xx >= s->w) continue;
              for (int64_t c = 0; c < s->c; c++) {
                double t = (double)x[((b * s->h + yy) * s->w + xx) * s->c + c] * k[((u * 3 + v) * s->c + c) * s->o + o];
                sum += t;
                mag += t < 0 ? -t : t;
              }
            }
          double got = y[((b * oh + i) * ow + j) * s->o + o], err = got - sum;
          if (err < 0) err = -err;
          if (err > 1e-5 * mag + 1e-30)
            fail_msg("%ldx%ldx%ldx%ld -> %ld, pads %ld %ld %ld %ld: y[%ld,%ld,%ld,%ld] = %.9g, direct %.9g (sum |terms| %.3g)",
                     (long)s->n, (long)s->h, (long)s->w, (long)s->c, (long)s->o, (long)s->pad_t, (long)s->pad_b,
                     (long)s->pad_l, (long)s->pad_r, (long)b, (long)i, (long)j, (long)o, got, sum, mag);
        }
  free(x);
  free(k);
  free(y);
}

static void test_values(void **state) {
  (void)state;
  assert_null(mathlib_require(NULL)); /* what planning a convolution does */
  static const shape cases[] = {
      {1, 4, 4, 1, 1, 0, 0, 0, 0},     /* one tile */
      {1, 3, 3, 2, 3, 0, 0, 0, 0},     /* a 1x1 output: one clipped tile */
      {2, 9, 7, 5, 3, 1, 1, 1, 1},     /* odd outputs, edge tiles */
      {1, 6, 11, 17, 19, 0, 2, 2, 0},  /* one-sided paddings, features not a vector multiple */
      {1, 5, 5, 3, 4, 2, 2, 2, 2},     /* padding wider than the window's reach */
      {3, 20, 24, 8, 16, 1, 1, 1, 1},  /* more tiles than a block */
      {1, 2, 40, 4, 4, 1, 1, 1, 1},    /* two output rows */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check(&cases[i]);
}

static void test_applies(void **state) {
  (void)state;
  shape big = {8, 56, 56, 64, 64, 1, 1, 1, 1}, small = {1, 8, 8, 4, 4, 1, 1, 1, 1};
  conv_params p = nhwc(&big);
  assert_true(conv_winograd_applies(&p));
  conv_params q = nhwc(&small);
  assert_false(conv_winograd_applies(&q)); /* small: the exact-order matrix form */
  q = p;
  q.stride[1] = 2;
  assert_false(conv_winograd_applies(&q));
  q = p;
  q.rdil[0] = 2;
  assert_false(conv_winograd_applies(&q));
  q = p;
  q.rev[1] = true;
  assert_false(conv_winograd_applies(&q));
  q = p;
  q.G = 2;
  assert_false(conv_winograd_applies(&q));
  q = p;
  q.in_f_stride = 56 * 56; /* features not innermost */
  assert_false(conv_winograd_applies(&q));
  q = p;
  q.ck = CK_F64;
  assert_false(conv_winograd_applies(&q));
  q = p;
  q.k_sp_dim[0] = 5;
  assert_false(conv_winograd_applies(&q));
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_values), cmocka_unit_test(test_applies)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
