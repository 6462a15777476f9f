/* Quantized types, one family per test: quantize (rounding to nearest even,
 * clamping at the storage limits, narrowed ranges, sub-byte and unsigned
 * storage), dequantize, per-axis parameters, requantization, integer add,
 * integer dot_general and convolution with zero points (both operands, odd
 * sizes that leave partial register blocks), the hybrid form, an
 * elementwise op through dequantize_op_quantize, and type errors.  Each
 * module is written with its expected values, computed here in double
 * precision from the spec's formulas; inputs keep clear of rounding
 * boundaries except where a tie is the point (then they are exact). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/exec.h"
#include "exec/kernels/quant.h"
#include "group_ctx.h"
#include "harness.h"
#include "shloc/shloc.h"

/* A growing text buffer for generated modules. */
typedef struct {
  char *p;
  size_t n, cap;
} text;

static void put(text *t, const char *fmt, ...) {
  va_list ap;
  if (!t->p) {
    t->cap = 4096;
    t->p = malloc(t->cap);
    if (!t->p) {
      fail_msg("out of memory");
      return;
    }
  }
  for (;;) {
    va_start(ap, fmt);
    int k = vsnprintf(t->p + t->n, t->cap - t->n, fmt, ap);
    va_end(ap);
    if (k >= 0 && (size_t)k < t->cap - t->n) {
      t->n += (size_t)k;
      return;
    }
    t->cap = t->cap * 2 + 4096;
    char *np = realloc(t->p, t->cap);
    if (!np) {
      fail_msg("out of memory");
      return;
    }
    t->p = np;
  }
}

static void put_ints(text *t, const int64_t *v, int64_t n) {
  put(t, "dense<[");
  for (int64_t i = 0; i < n; i++) put(t, i ? ", %lld" : "%lld", (long long)v[i]);
  put(t, "]>");
}

static void put_floats(text *t, const double *v, int64_t n) {
  put(t, "dense<[");
  for (int64_t i = 0; i < n; i++) put(t, i ? ", %.17g" : "%.17g", v[i]);
  put(t, "]>");
}

static void run_body(text *t) {
  size_t len = t->n + 64;
  char *full = malloc(len);
  if (!full) {
    fail_msg("out of memory");
    return;
  }
  snprintf(full, len, "func.func @main() {\n%s  return\n}\n", t->p);
  shloc_status st = run_main(ctx, full, 1, NULL, NULL);
  if (st) {
    fprintf(stderr, "unexpected failure: %s\n%s\n", shloc_status_message(st), full);
    shloc_status_free(st);
    free(full);
    free(t->p);
    fail();
  }
  free(full);
  free(t->p);
}

/* %name = a tensor of type `shape` (e.g. "2x3xi8") holding v in row-major order. */
static void put_flat_as(text *t, const char *name, const int64_t *v, int64_t n, const char *shape) {
  const char *elem = strrchr(shape, 'x') + 1;
  put(t, "  %%%s_flat = stablehlo.constant ", name);
  put_ints(t, v, n);
  put(t, " : tensor<%lldx%s>\n", (long long)n, elem);
  put(t, "  %%%s = stablehlo.reshape %%%s_flat : (tensor<%lldx%s>) -> tensor<%s>\n", name, name, (long long)n, elem, shape);
}

static double rne(double x) { return nearbyint(x); }
static int64_t clampi(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* A deterministic stream of integers in [lo, hi]. */
static uint64_t lcg = 88172645463325252ull;
static int64_t rnd(int64_t lo, int64_t hi) {
  lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
  return lo + (int64_t)((lcg >> 33) % (uint64_t)(hi - lo + 1));
}

/* ---- quantize ---- */

/* quantize(x) = clamp(rne(x / scale + zp), min, max), checked on storage. */
static void check_quantize(const char *qtype, const char *storage, double scale, int64_t zp, int64_t lo, int64_t hi,
                           const double *x, int64_t n) {
  int64_t want[64];
  for (int64_t i = 0; i < n; i++) want[i] = clampi((int64_t)rne(x[i] / scale + (double)zp), lo, hi);
  text t = {0};
  put(&t, "  %%x = stablehlo.constant ");
  put_floats(&t, x, n);
  put(&t, " : tensor<%lldxf32>\n", (long long)n);
  put(&t, "  %%q = stablehlo.uniform_quantize %%x : (tensor<%lldxf32>) -> tensor<%lldx%s>\n", (long long)n, (long long)n,
      qtype);
  put(&t, "  %%s = stablehlo.bitcast_convert %%q : (tensor<%lldx%s>) -> tensor<%lldx%s>\n", (long long)n, qtype,
      (long long)n, storage);
  put(&t, "  check.expect_eq_const %%s, ");
  put_ints(&t, want, n);
  put(&t, " : tensor<%lldx%s>\n", (long long)n, storage);
  run_body(&t);
}

static void test_quantize_rounding_and_limits(void **state) {
  (void)state;
  /* Exact halves (scale 0.5): ties go to even; far values clamp. */
  const double halves[] = {0.25, 0.75, 1.25, -0.25, -0.75, -1.25, 0.0, -0.0, 63.25, 63.75, -64.25, -64.75, 1e9, -1e9};
  check_quantize("!quant.uniform<i8:f32, 0.5>", "i8", 0.5, 0, -128, 127, halves, 14);
  check_quantize("!quant.uniform<i8:f32, 0.5:-3>", "i8", 0.5, -3, -128, 127, halves, 14);
  check_quantize("!quant.uniform<i8<-100:100>:f32, 0.5:2>", "i8", 0.5, 2, -100, 100, halves, 14);
  check_quantize("!quant.uniform<u8:f32, 0.5:128>", "ui8", 0.5, 128, 0, 255, halves, 14);
  check_quantize("!quant.uniform<i4:f32, 0.5:1>", "i4", 0.5, 1, -8, 7, halves, 14);
  check_quantize("!quant.uniform<u4:f32, 0.5:8>", "ui4", 0.5, 8, 0, 15, halves, 14);
  check_quantize("!quant.uniform<i2:f32, 0.5>", "i2", 0.5, 0, -2, 1, halves, 14);
  check_quantize("!quant.uniform<i16:f32, 0.5:-1000>", "i16", 0.5, -1000, -32768, 32767, halves, 14);
  /* A scale that is not a power of two, values 0.3 steps off the grid. */
  double off[40];
  for (int i = 0; i < 40; i++) off[i] = ((double)(i - 20) * 7 + 0.3) * 0.1;
  check_quantize("!quant.uniform<i8:f32, 0.1:5>", "i8", 0.1, 5, -128, 127, off, 40);
  check_quantize("!quant.uniform<i32:f32, 0.1:-7>", "i32", 0.1, -7, INT32_MIN, INT32_MAX, off, 40);
}

/* ---- dequantize ---- */

static void test_dequantize(void **state) {
  (void)state;
  int64_t q[] = {-128, -1, 0, 1, 5, 127};
  double want[6];
  for (int i = 0; i < 6; i++) want[i] = (double)(q[i] - -9) * 0.25;
  text t = {0};
  put(&t, "  %%s = stablehlo.constant ");
  put_ints(&t, q, 6);
  put(&t, " : tensor<6xi8>\n"
          "  %%q = stablehlo.bitcast_convert %%s : (tensor<6xi8>) -> tensor<6x!quant.uniform<i8:f32, 0.25:-9>>\n"
          "  %%x = stablehlo.uniform_dequantize %%q : (tensor<6x!quant.uniform<i8:f32, 0.25:-9>>) -> tensor<6xf32>\n"
          "  check.expect_eq_const %%x, ");
  put_floats(&t, want, 6);
  put(&t, " : tensor<6xf32>\n");
  /* Unsigned storage above the signed range, and a scale off the binary grid. */
  int64_t u[] = {0, 100, 200, 255};
  double wu[4];
  for (int i = 0; i < 4; i++) wu[i] = (double)(u[i] - 3) * 0.1;
  put(&t, "  %%us = stablehlo.constant ");
  put_ints(&t, u, 4);
  put(&t, " : tensor<4xui8>\n"
          "  %%uq = stablehlo.bitcast_convert %%us : (tensor<4xui8>) -> tensor<4x!quant.uniform<u8:f32, 0.1:3>>\n"
          "  %%ux = stablehlo.uniform_dequantize %%uq : (tensor<4x!quant.uniform<u8:f32, 0.1:3>>) -> tensor<4xf32>\n"
          "  check.expect_almost_eq_const %%ux, ");
  put_floats(&t, wu, 4);
  put(&t, " : tensor<4xf32>, tolerance = 1.0e-5\n");
  run_body(&t);
}

/* ---- per-axis parameters ---- */

static void test_per_axis(void **state) {
  (void)state;
  const double sc[3] = {0.5, 0.25, 2.0};
  const int64_t zp[3] = {-10, 4, 0};
  double x[6];
  int64_t want[6];
  for (int i = 0; i < 6; i++) {
    x[i] = (double)(i * 3 - 7) + 0.3;
    want[i] = clampi((int64_t)rne(x[i] / sc[i % 3] + (double)zp[i % 3]), -128, 127);
  }
  double back[6];
  for (int i = 0; i < 6; i++) back[i] = (double)(want[i] - zp[i % 3]) * sc[i % 3];
  const char *qt = "!quant.uniform<i8:f32:1, {0.5:-10, 0.25:4, 2.0}>";
  text t = {0};
  put(&t, "  %%x = stablehlo.constant ");
  put_floats(&t, x, 6);
  put(&t, " : tensor<6xf32>\n  %%x2 = stablehlo.reshape %%x : (tensor<6xf32>) -> tensor<2x3xf32>\n");
  put(&t, "  %%q = stablehlo.uniform_quantize %%x2 : (tensor<2x3xf32>) -> tensor<2x3x%s>\n", qt);
  put(&t, "  %%s = stablehlo.bitcast_convert %%q : (tensor<2x3x%s>) -> tensor<2x3xi8>\n", qt);
  put(&t, "  %%s1 = stablehlo.reshape %%s : (tensor<2x3xi8>) -> tensor<6xi8>\n  check.expect_eq_const %%s1, ");
  put_ints(&t, want, 6);
  put(&t, " : tensor<6xi8>\n");
  put(&t, "  %%d = stablehlo.uniform_dequantize %%q : (tensor<2x3x%s>) -> tensor<2x3xf32>\n", qt);
  put(&t, "  %%d1 = stablehlo.reshape %%d : (tensor<2x3xf32>) -> tensor<6xf32>\n  check.expect_eq_const %%d1, ");
  put_floats(&t, back, 6);
  put(&t, " : tensor<6xf32>\n");
  /* A transpose moves the quantization dimension with the data. */
  const char *qt0 = "!quant.uniform<i8:f32:0, {0.5:-10, 0.25:4, 2.0}>";
  put(&t, "  %%tq = stablehlo.transpose %%q, dims = [1, 0] : (tensor<2x3x%s>) -> tensor<3x2x%s>\n", qt, qt0);
  put(&t, "  %%td = stablehlo.uniform_dequantize %%tq : (tensor<3x2x%s>) -> tensor<3x2xf32>\n", qt0);
  double tb[6];
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 2; c++) tb[r * 2 + c] = back[c * 3 + r];
  put(&t, "  %%td1 = stablehlo.reshape %%td : (tensor<3x2xf32>) -> tensor<6xf32>\n  check.expect_eq_const %%td1, ");
  put_floats(&t, tb, 6);
  put(&t, " : tensor<6xf32>\n");
  run_body(&t);
}

/* ---- requantization ---- */

static void test_requantize(void **state) {
  (void)state;
  int64_t q[16], want[16];
  for (int i = 0; i < 16; i++) {
    q[i] = i * 17 - 128;
    want[i] = clampi((int64_t)rne((double)(q[i] - 3) * 0.5 / 0.25 + -5.0), -128, 127);
  }
  text t = {0};
  put(&t, "  %%s = stablehlo.constant ");
  put_ints(&t, q, 16);
  put(&t, " : tensor<16xi8>\n"
          "  %%a = stablehlo.bitcast_convert %%s : (tensor<16xi8>) -> tensor<16x!quant.uniform<i8:f32, 0.5:3>>\n"
          "  %%b = stablehlo.uniform_quantize %%a : (tensor<16x!quant.uniform<i8:f32, 0.5:3>>) -> "
          "tensor<16x!quant.uniform<i8:f32, 0.25:-5>>\n"
          "  %%r = stablehlo.bitcast_convert %%b : (tensor<16x!quant.uniform<i8:f32, 0.25:-5>>) -> tensor<16xi8>\n"
          "  check.expect_eq_const %%r, ");
  put_ints(&t, want, 16);
  put(&t, " : tensor<16xi8>\n");
  /* i32 accumulator scale down to i8 (scale ratio 1/8, exact). */
  int64_t w[8], ww[8];
  for (int i = 0; i < 8; i++) {
    w[i] = (i - 4) * 333 + 4;
    ww[i] = clampi((int64_t)rne((double)w[i] * (0.125 / 1.0) + 1.0), -128, 127);
  }
  put(&t, "  %%w = stablehlo.constant ");
  put_ints(&t, w, 8);
  put(&t, " : tensor<8xi32>\n"
          "  %%wa = stablehlo.bitcast_convert %%w : (tensor<8xi32>) -> tensor<8x!quant.uniform<i32:f32, 0.125>>\n"
          "  %%wb = stablehlo.uniform_quantize %%wa : (tensor<8x!quant.uniform<i32:f32, 0.125>>) -> "
          "tensor<8x!quant.uniform<i8:f32, 1.0:1>>\n"
          "  %%wr = stablehlo.bitcast_convert %%wb : (tensor<8x!quant.uniform<i8:f32, 1.0:1>>) -> tensor<8xi8>\n"
          "  check.expect_eq_const %%wr, ");
  put_ints(&t, ww, 8);
  put(&t, " : tensor<8xi8>\n");
  run_body(&t);
}

/* ---- add (integers) and an op through dequantize_op_quantize ---- */

static void test_add_and_qdq(void **state) {
  (void)state;
  int64_t a[10], b[10], sum[10], prod[10];
  for (int i = 0; i < 10; i++) {
    a[i] = rnd(-128, 127);
    b[i] = rnd(-128, 127);
    double fa = (double)(a[i] - 2) * 0.5, fb = (double)(b[i] + 6) * 0.25;
    /* add follows the reference interpreter's integer lowering: each operand
     * is first requantized to the result (merged scale and zero point,
     * rounded to nearest even), then the integers are summed; at ties this
     * differs from rounding the exact sum once. */
    int64_t ra = (int64_t)rne((double)a[i] * (0.5 / 0.5) + (-1.0 - 2.0 * (0.5 / 0.5)));
    int64_t rb = (int64_t)rne((double)b[i] * (0.25 / 0.5) + (-1.0 - -6.0 * (0.25 / 0.5)));
    sum[i] = clampi(ra + rb - -1, -128, 127);
    prod[i] = clampi((int64_t)rne(fa * fb / 8.0 + 3.0), -128, 127);
  }
  const char *qa = "!quant.uniform<i8:f32, 0.5:2>", *qb = "!quant.uniform<i8:f32, 0.25:-6>";
  text t = {0};
  put(&t, "  %%sa = stablehlo.constant ");
  put_ints(&t, a, 10);
  put(&t, " : tensor<10xi8>\n  %%sb = stablehlo.constant ");
  put_ints(&t, b, 10);
  put(&t, " : tensor<10xi8>\n");
  put(&t, "  %%a = stablehlo.bitcast_convert %%sa : (tensor<10xi8>) -> tensor<10x%s>\n", qa);
  put(&t, "  %%b = stablehlo.bitcast_convert %%sb : (tensor<10xi8>) -> tensor<10x%s>\n", qb);
  put(&t, "  %%c = stablehlo.add %%a, %%b : (tensor<10x%s>, tensor<10x%s>) -> tensor<10x!quant.uniform<i8:f32, 0.5:-1>>\n",
      qa, qb);
  put(&t, "  %%cs = stablehlo.bitcast_convert %%c : (tensor<10x!quant.uniform<i8:f32, 0.5:-1>>) -> tensor<10xi8>\n"
          "  check.expect_eq_const %%cs, ");
  put_ints(&t, sum, 10);
  put(&t, " : tensor<10xi8>\n");
  put(&t, "  %%m = stablehlo.multiply %%a, %%b : (tensor<10x%s>, tensor<10x%s>) -> tensor<10x!quant.uniform<i8:f32, 8.0:3>>\n",
      qa, qb);
  put(&t, "  %%ms = stablehlo.bitcast_convert %%m : (tensor<10x!quant.uniform<i8:f32, 8.0:3>>) -> tensor<10xi8>\n"
          "  check.expect_eq_const %%ms, ");
  put_ints(&t, prod, 10);
  put(&t, " : tensor<10xi8>\n");
  run_body(&t);
}

/* ---- dot_general in integers ---- */

enum { DM = 7, DK = 37, DN = 19, DB = 2 };

static void test_dot_general(void **state) {
  (void)state;
  static int64_t l[DB * DM * DK], r[DB * DK * DN], want[DB * DM * DN];
  const double sl = 0.02, sr = 0.03, so = 0.5;
  const int64_t zl = -7, zo = 4;
  for (int i = 0; i < DB * DM * DK; i++) l[i] = rnd(-128, 127);
  for (int i = 0; i < DB * DK * DN; i++) r[i] = rnd(-128, 127);
  for (int b = 0; b < DB; b++)
    for (int i = 0; i < DM; i++)
      for (int j = 0; j < DN; j++) {
        int64_t s = 0;
        for (int k = 0; k < DK; k++) s += (l[(b * DM + i) * DK + k] - zl) * r[(b * DK + k) * DN + j];
        want[(b * DM + i) * DN + j] = clampi((int64_t)rne((double)s * sl * sr / so) + zo, -128, 127);
      }
  char ql[64], qr[64], qo[64];
  snprintf(ql, sizeof ql, "!quant.uniform<i8:f32, %.17g:%lld>", sl, (long long)zl);
  snprintf(qr, sizeof qr, "!quant.uniform<i8:f32, %.17g>", sr);
  snprintf(qo, sizeof qo, "!quant.uniform<i8:f32, %.17g:%lld>", so, (long long)zo);
  text t = {0};
  put_flat_as(&t, "sl", l, DB * DM * DK, "2x7x37xi8");
  put_flat_as(&t, "sr", r, DB * DK * DN, "2x37x19xi8");
  put(&t, "  %%lq = stablehlo.bitcast_convert %%sl : (tensor<%dx%dx%dxi8>) -> tensor<%dx%dx%dx%s>\n", DB, DM, DK, DB, DM,
      DK, ql);
  put(&t, "  %%rq = stablehlo.bitcast_convert %%sr : (tensor<%dx%dx%dxi8>) -> tensor<%dx%dx%dx%s>\n", DB, DK, DN, DB, DK,
      DN, qr);
  put(&t, "  %%d = stablehlo.dot_general %%lq, %%rq, batching_dims = [0] x [0], contracting_dims = [2] x [1] : "
          "(tensor<%dx%dx%dx%s>, tensor<%dx%dx%dx%s>) -> tensor<%dx%dx%dx%s>\n",
      DB, DM, DK, ql, DB, DK, DN, qr, DB, DM, DN, qo);
  put(&t, "  %%ds = stablehlo.bitcast_convert %%d : (tensor<%dx%dx%dx%s>) -> tensor<%dx%dx%dxi8>\n", DB, DM, DN, qo, DB,
      DM, DN);
  put(&t, "  %%df = stablehlo.reshape %%ds : (tensor<%dx%dx%dxi8>) -> tensor<%dxi8>\n  check.expect_eq_const %%df, ", DB,
      DM, DN, DB * DM * DN);
  put_ints(&t, want, DB * DM * DN);
  put(&t, " : tensor<%dxi8>\n", DB * DM * DN);
  run_body(&t);
}

/* ---- convolution in integers (NHWC, padding, stride, both zero points) ---- */

enum { CH = 6, CW = 7, CI = 3, KH = 3, KW = 3, CO = 5 };

static void test_convolution(void **state) {
  (void)state;
  static int64_t in[CH * CW * CI], k[KH * KW * CI * CO], want[3 * 4 * CO];
  const double sl = 0.004, sr = 0.006, so = 0.05;
  const int64_t zl = -128, zr = -128, zo = -3;
  for (int i = 0; i < CH * CW * CI; i++) in[i] = rnd(-128, 127);
  for (int i = 0; i < KH * KW * CI * CO; i++) k[i] = rnd(-128, 127);
  /* stride 2, padding 1 on each side: output 3 x 4 */
  for (int oh = 0; oh < 3; oh++)
    for (int ow = 0; ow < 4; ow++)
      for (int co = 0; co < CO; co++) {
        int64_t s = 0;
        for (int kh = 0; kh < KH; kh++)
          for (int kw = 0; kw < KW; kw++) {
            int ih = oh * 2 - 1 + kh, iw = ow * 2 - 1 + kw;
            if (ih < 0 || ih >= CH || iw < 0 || iw >= CW) continue; /* padding: dequantized 0 */
            for (int ci = 0; ci < CI; ci++)
              s += (in[(ih * CW + iw) * CI + ci] - zl) * (k[((kh * KW + kw) * CI + ci) * CO + co] - zr);
          }
        want[(oh * 4 + ow) * CO + co] = clampi((int64_t)rne((double)s * sl * sr / so) + zo, -128, 127);
      }
  char ql[64], qr[64], qo[64];
  snprintf(ql, sizeof ql, "!quant.uniform<i8:f32, %.17g:%lld>", sl, (long long)zl);
  snprintf(qr, sizeof qr, "!quant.uniform<i8:f32, %.17g:%lld>", sr, (long long)zr);
  snprintf(qo, sizeof qo, "!quant.uniform<i8:f32, %.17g:%lld>", so, (long long)zo);
  text t = {0};
  put_flat_as(&t, "si", in, CH * CW * CI, "1x6x7x3xi8");
  put_flat_as(&t, "sk", k, KH * KW * CI * CO, "3x3x3x5xi8");
  put(&t, "  %%iq = stablehlo.bitcast_convert %%si : (tensor<1x6x7x3xi8>) -> tensor<1x6x7x3x%s>\n", ql);
  put(&t, "  %%kq = stablehlo.bitcast_convert %%sk : (tensor<3x3x3x5xi8>) -> tensor<3x3x3x5x%s>\n", qr);
  put(&t, "  %%c = stablehlo.convolution(%%iq, %%kq) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
          "window = {stride = [2, 2], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : "
          "(tensor<1x6x7x3x%s>, tensor<3x3x3x5x%s>) -> tensor<1x3x4x5x%s>\n",
      ql, qr, qo);
  put(&t, "  %%cs = stablehlo.bitcast_convert %%c : (tensor<1x3x4x5x%s>) -> tensor<1x3x4x5xi8>\n", qo);
  put(&t, "  %%cf = stablehlo.reshape %%cs : (tensor<1x3x4x5xi8>) -> tensor<60xi8>\n  check.expect_eq_const %%cf, ");
  put_ints(&t, want, 60);
  put(&t, " : tensor<60xi8>\n");
  run_body(&t);
}

/* ---- hybrid: float lhs, quantized rhs (weights dequantized) ---- */

static void test_hybrid_dot(void **state) {
  (void)state;
  double l[2 * 3] = {0.5, -1.25, 2.0, 4.0, 0.25, -3.0};
  int64_t r[3 * 2] = {-8, 3, 100, -127, 0, 45};
  double want[2 * 2];
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      double s = 0;
      for (int k = 0; k < 3; k++) s += l[i * 3 + k] * (double)(r[k * 2 + j] - 2) * 0.125;
      want[i * 2 + j] = s;
    }
  text t = {0};
  put(&t, "  %%l1 = stablehlo.constant ");
  put_floats(&t, l, 6);
  put(&t, " : tensor<6xf32>\n  %%l = stablehlo.reshape %%l1 : (tensor<6xf32>) -> tensor<2x3xf32>\n");
  put_flat_as(&t, "rs", r, 6, "3x2xi8");
  put(&t, "  %%rq = stablehlo.bitcast_convert %%rs : (tensor<3x2xi8>) -> tensor<3x2x!quant.uniform<i8:f32, 0.125:2>>\n"
          "  %%d = stablehlo.dot_general %%l, %%rq, contracting_dims = [1] x [0] : "
          "(tensor<2x3xf32>, tensor<3x2x!quant.uniform<i8:f32, 0.125:2>>) -> tensor<2x2xf32>\n"
          "  %%df = stablehlo.reshape %%d : (tensor<2x2xf32>) -> tensor<4xf32>\n"
          "  check.expect_eq_const %%df, ");
  put_floats(&t, want, 4);
  put(&t, " : tensor<4xf32>\n");
  run_body(&t);
}

/* ---- the GEMM kernels, each instruction set the machine has ---- */

static void test_gemm_kernels(void **state) {
  (void)state;
  const int64_t shapes[][3] = {{1, 1, 1}, {3, 5, 7}, {8, 16, 2}, {9, 17, 33}, {37, 50, 129}, {64, 40, 1}};
  for (int isa = QUANT_ISA_C; isa <= (int)quant_gemm_best_isa(); isa++)
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
      int64_t M = shapes[t][0], N = shapes[t][1], K = shapes[t][2], lda = (K + 1) & ~(int64_t)1;
      int16_t *A = calloc((size_t)(M * lda), sizeof *A), *B = calloc((size_t)(K * N), sizeof *B);
      int16_t *P = malloc(quant_gemm_packed_size(K, N));
      int32_t *C = malloc((size_t)(M * N) * sizeof *C);
      if (!A || !B || !P || !C) fail_msg("out of memory");
      for (int64_t i = 0; i < M; i++)
        for (int64_t k = 0; k < K; k++) A[i * lda + k] = (int16_t)rnd(-255, 255);
      for (int64_t i = 0; i < K * N; i++) B[i] = (int16_t)rnd(-255, 255);
      quant_gemm_pack_b(K, N, B, N, P);
      quant_gemm_isa((quant_isa)isa, M, N, K, A, lda, P, C, N);
      for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
          int64_t s = 0;
          for (int64_t k = 0; k < K; k++) s += (int64_t)A[i * lda + k] * B[k * N + j];
          if (C[i * N + j] != s) fail_msg("isa %d, %lldx%lldx%lld: C[%lld][%lld] = %d, want %lld", isa, (long long)M,
                                          (long long)N, (long long)K, (long long)i, (long long)j, C[i * N + j], (long long)s);
        }
      free(A);
      free(B);
      free(P);
      free(C);
    }
}

/* ---- the type layer rejects what the spec rules out ---- */

static void expect_parse_error(const char *type, const char *needle) {
  char text_[512];
  snprintf(text_, sizeof text_, "func.func @main(%%a: tensor<2x%s>) {\n  return\n}\n", type);
  shloc_module *m = NULL;
  shloc_status st = shloc_module_parse(ctx, "t.mlir", text_, strlen(text_), 1, &m);
  if (!st) {
    shloc_module_destroy(m);
    fail_msg("accepted %s", type);
  }
  if (!strstr(shloc_status_message(st), needle)) fail_msg("%s: unexpected message %s", type, shloc_status_message(st));
  shloc_status_free(st);
}

static void test_type_errors(void **state) {
  (void)state;
  expect_parse_error("!quant.uniform<i8:f32, 0.0>", "positive");
  expect_parse_error("!quant.uniform<i8:f32, -0.5>", "positive");
  expect_parse_error("!quant.uniform<i8:f32, 0.5:200>", "zero point");
  expect_parse_error("!quant.uniform<i8<-10:10>:f32, 0.5:11>", "zero point");
  expect_parse_error("!quant.uniform<i8<-200:10>:f32, 0.5>", "storage range");
  expect_parse_error("!quant.uniform<i8<5:5>:f32, 0.5>", "storage range");
  expect_parse_error("!quant.uniform<i64:f32, 0.5>", "storage type");
  expect_parse_error("!quant.uniform<i8:i32, 0.5>", "expressed type");
  expect_parse_error("!quant.uniform<i8:f32:1, {0.5, 0.25}>", "quantization dimension");
  expect_parse_error("!quant.uniform<i8:f32:0, {0.5, 0.25, 1.0}>", "scales");
  expect_parse_error("!quant.uniform<i8:f32, 0.5, 0.25>", "unexpected");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_quantize_rounding_and_limits),
      cmocka_unit_test(test_dequantize),
      cmocka_unit_test(test_per_axis),
      cmocka_unit_test(test_requantize),
      cmocka_unit_test(test_add_and_qdq),
      cmocka_unit_test(test_dot_general),
      cmocka_unit_test(test_convolution),
      cmocka_unit_test(test_hybrid_dot),
      cmocka_unit_test(test_gemm_kernels),
      cmocka_unit_test(test_type_errors),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
