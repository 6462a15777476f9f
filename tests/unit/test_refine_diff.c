/* Differential test of the dynamic ops: each one, with its shape operands
 * computed from a dimension argument at run time, must give exactly (bit for
 * bit) what its static counterpart, written with the same shapes as
 * literals, gives on the same inputs.  Sizes 1, 2 and 5 per case. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ok.h"
#include "shloc/executable.h"
#include "shloc/shloc.h"

/* Both programs take (%n: tensor<i64>, %a: f32 tensor of rank 2 and shape
 * rows x cols) and return one f32 (or i32) tensor. */
typedef struct {
  const char *name;
  int64_t cols;
  int64_t (*rows)(int64_t n);
  void (*write)(int64_t n, char *dyn, char *stat, size_t cap);
} diff_case;

#define CAP 8192

/* [n] as %n1 : tensor<1xi32> (in a format string) */
#define N1                                                            \
  "  %%nc = stablehlo.convert %%n : (tensor<i64>) -> tensor<i32>\n"   \
  "  %%n1 = stablehlo.reshape %%nc : (tensor<i32>) -> tensor<1xi32>\n"

static int64_t rows_n(int64_t n) { return n; }

static void w_broadcast(int64_t n, char *d, char *s, size_t cap) {
  snprintf(d, cap,
           "func.func @main(%%n: tensor<i64>, %%a: tensor<?x1xf32>) -> tensor<?x3xf32> {\n" N1
           "  %%three = stablehlo.constant dense<3> : tensor<1xi32>\n"
           "  %%sh = stablehlo.concatenate %%n1, %%three, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>\n"
           "  %%r = stablehlo.dynamic_broadcast_in_dim %%a, %%sh, dims = [0, 1] : (tensor<?x1xf32>, tensor<2xi32>) -> tensor<?x3xf32>\n"
           "  return %%r : tensor<?x3xf32>\n}\n");
  snprintf(s, cap,
           "func.func @main(%%n: tensor<i64>, %%a: tensor<%lldx1xf32>) -> tensor<%lldx3xf32> {\n"
           "  %%r = stablehlo.broadcast_in_dim %%a, dims = [0, 1] : (tensor<%lldx1xf32>) -> tensor<%lldx3xf32>\n"
           "  return %%r : tensor<%lldx3xf32>\n}\n",
           (long long)n, (long long)n, (long long)n, (long long)n, (long long)n);
}

static void w_reshape(int64_t n, char *d, char *s, size_t cap) {
  snprintf(d, cap,
           "func.func @main(%%n: tensor<i64>, %%a: tensor<?x6xf32>) -> tensor<?x2xf32> {\n" N1
           "  %%three = stablehlo.constant dense<3> : tensor<1xi32>\n"
           "  %%n3 = stablehlo.multiply %%n1, %%three : tensor<1xi32>\n"
           "  %%two = stablehlo.constant dense<2> : tensor<1xi32>\n"
           "  %%sh = stablehlo.concatenate %%n3, %%two, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>\n"
           "  %%r = stablehlo.dynamic_reshape %%a, %%sh : (tensor<?x6xf32>, tensor<2xi32>) -> tensor<?x2xf32>\n"
           "  return %%r : tensor<?x2xf32>\n}\n");
  snprintf(s, cap,
           "func.func @main(%%n: tensor<i64>, %%a: tensor<%lldx6xf32>) -> tensor<%lldx2xf32> {\n"
           "  %%r = stablehlo.reshape %%a : (tensor<%lldx6xf32>) -> tensor<%lldx2xf32>\n"
           "  return %%r : tensor<%lldx2xf32>\n}\n",
           (long long)n, (long long)(3 * n), (long long)n, (long long)(3 * n), (long long)(3 * n));
}

static void w_iota(int64_t n, char *d, char *s, size_t cap) {
  snprintf(d, cap,
           "func.func @main(%%n: tensor<i64>, %%a: tensor<?x3xf32>) -> tensor<?x3xf32> {\n" N1
           "  %%three = stablehlo.constant dense<3> : tensor<1xi32>\n"
           "  %%sh = stablehlo.concatenate %%n1, %%three, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>\n"
           "  %%i = stablehlo.dynamic_iota %%sh, dim = 0 : (tensor<2xi32>) -> tensor<?x3xf32>\n"
           "  %%r = stablehlo.add %%i, %%a : tensor<?x3xf32>\n"
           "  return %%r : tensor<?x3xf32>\n}\n");
  snprintf(s, cap,
           "func.func @main(%%n: tensor<i64>, %%a: tensor<%lldx3xf32>) -> tensor<%lldx3xf32> {\n"
           "  %%i = stablehlo.iota dim = 0 : tensor<%lldx3xf32>\n"
           "  %%r = stablehlo.add %%i, %%a : tensor<%lldx3xf32>\n"
           "  return %%r : tensor<%lldx3xf32>\n}\n",
           (long long)n, (long long)n, (long long)n, (long long)n, (long long)n);
}

static int64_t rows_n1(int64_t n) { return n + 1; }

static void w_real_slice(int64_t n, char *d, char *s, size_t cap) {
  /* rows [1, n + 1), columns [1, 6) step 2 of an (n + 1) x 6 array */
  snprintf(d, cap,
           "func.func @main(%%n: tensor<i64>, %%a: tensor<?x6xf32>) -> tensor<?x3xf32> {\n" N1
           "  %%one = stablehlo.constant dense<1> : tensor<1xi32>\n"
           "  %%n11 = stablehlo.add %%n1, %%one : tensor<1xi32>\n"
           "  %%six = stablehlo.constant dense<6> : tensor<1xi32>\n"
           "  %%lim = stablehlo.concatenate %%n11, %%six, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>\n"
           "  %%lo = stablehlo.constant dense<[1, 1]> : tensor<2xi32>\n"
           "  %%st = stablehlo.constant dense<[1, 2]> : tensor<2xi32>\n"
           "  %%r = stablehlo.real_dynamic_slice %%a, %%lo, %%lim, %%st : (tensor<?x6xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<?x3xf32>\n"
           "  return %%r : tensor<?x3xf32>\n}\n");
  snprintf(s, cap,
           "func.func @main(%%n: tensor<i64>, %%a: tensor<%lldx6xf32>) -> tensor<%lldx3xf32> {\n"
           "  %%r = stablehlo.slice %%a [1:%lld, 1:6:2] : (tensor<%lldx6xf32>) -> tensor<%lldx3xf32>\n"
           "  return %%r : tensor<%lldx3xf32>\n}\n",
           (long long)(n + 1), (long long)n, (long long)(n + 1), (long long)(n + 1), (long long)n, (long long)n);
}

static void w_slice_sizes(int64_t n, char *d, char *s, size_t cap) {
  /* starts [n, 1] at run time (row n is past the end for size n: clamped),
   * sizes [1, 4]: dynamic_slice semantics */
  snprintf(d, cap,
           "func.func @main(%%n: tensor<i64>, %%a: tensor<?x6xf32>) -> tensor<1x4xf32> {\n"
           "  %%nc = stablehlo.convert %%n : (tensor<i64>) -> tensor<i32>\n"
           "  %%n1 = stablehlo.broadcast_in_dim %%nc, dims = [] : (tensor<i32>) -> tensor<1xi32>\n"
           "  %%one = stablehlo.constant dense<1> : tensor<1xi32>\n"
           "  %%start = stablehlo.concatenate %%n1, %%one, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>\n"
           "  %%sz = stablehlo.constant dense<[1, 4]> : tensor<2xi32>\n"
           "  %%lim = stablehlo.add %%start, %%sz : tensor<2xi32>\n"
           "  %%st = stablehlo.constant dense<1> : tensor<2xi32>\n"
           "  %%r = stablehlo.real_dynamic_slice %%a, %%start, %%lim, %%st : (tensor<?x6xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<1x4xf32>\n"
           "  return %%r : tensor<1x4xf32>\n}\n");
  snprintf(s, cap,
           "func.func @main(%%n: tensor<i64>, %%a: tensor<%lldx6xf32>) -> tensor<1x4xf32> {\n"
           "  %%nc = stablehlo.convert %%n : (tensor<i64>) -> tensor<i32>\n"
           "  %%one = stablehlo.constant dense<1> : tensor<i32>\n"
           "  %%r = stablehlo.dynamic_slice %%a, %%nc, %%one, sizes = [1, 4] : (tensor<%lldx6xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>\n"
           "  return %%r : tensor<1x4xf32>\n}\n",
           (long long)n, (long long)n);
}

static void w_pad(int64_t n, char *d, char *s, size_t cap) {
  snprintf(d, cap,
           "func.func @main(%%n: tensor<i64>, %%a: tensor<?x3xf32>) -> tensor<?x?xf32> {\n" N1
           "  %%one = stablehlo.constant dense<1> : tensor<1xi32>\n"
           "  %%zero = stablehlo.constant dense<0> : tensor<1xi32>\n"
           "  %%lo = stablehlo.concatenate %%one, %%n1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>\n"
           "  %%hi = stablehlo.concatenate %%n1, %%zero, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>\n"
           "  %%in = stablehlo.constant dense<1> : tensor<2xi32>\n"
           "  %%pv = stablehlo.constant dense<-7.5> : tensor<f32>\n"
           "  %%r = stablehlo.dynamic_pad %%a, %%pv, %%lo, %%hi, %%in : (tensor<?x3xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<?x?xf32>\n"
           "  return %%r : tensor<?x?xf32>\n}\n");
  long long r = 1 + n + (n - 1) + n, c = n + 3 + 2;
  snprintf(s, cap,
           "func.func @main(%%n: tensor<i64>, %%a: tensor<%lldx3xf32>) -> tensor<%lldx%lldxf32> {\n"
           "  %%pv = stablehlo.constant dense<-7.5> : tensor<f32>\n"
           "  %%r = stablehlo.pad %%a, %%pv, low = [1, %lld], high = [%lld, 0], interior = [1, 1] : (tensor<%lldx3xf32>, tensor<f32>) -> tensor<%lldx%lldxf32>\n"
           "  return %%r : tensor<%lldx%lldxf32>\n}\n",
           (long long)n, r, c, (long long)n, (long long)n, (long long)n, r, c, r, c);
}

static void w_gather(int64_t n, char *d, char *s, size_t cap) {
  /* rows 0 and n - 1 (and 7, clamped), slices of 1 x n columns of n x 5 */
  snprintf(d, cap,
           "func.func @main(%%n: tensor<i64>, %%a: tensor<?x5xf32>) -> tensor<3x?xf32> {\n" N1
           "  %%idx = stablehlo.constant dense<[[0], [7], [1]]> : tensor<3x1xi32>\n"
           "  %%one = stablehlo.constant dense<1> : tensor<1xi32>\n"
           "  %%sz = stablehlo.concatenate %%one, %%n1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>\n"
           "  %%r = \"stablehlo.dynamic_gather\"(%%a, %%idx, %%sz) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>} : (tensor<?x5xf32>, tensor<3x1xi32>, tensor<2xi32>) -> tensor<3x?xf32>\n"
           "  return %%r : tensor<3x?xf32>\n}\n");
  snprintf(s, cap,
           "func.func @main(%%n: tensor<i64>, %%a: tensor<%lldx5xf32>) -> tensor<3x%lldxf32> {\n"
           "  %%idx = stablehlo.constant dense<[[0], [7], [1]]> : tensor<3x1xi32>\n"
           "  %%r = \"stablehlo.gather\"(%%a, %%idx) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, %lld>} : (tensor<%lldx5xf32>, tensor<3x1xi32>) -> tensor<3x%lldxf32>\n"
           "  return %%r : tensor<3x%lldxf32>\n}\n",
           (long long)n, (long long)n, (long long)n, (long long)n, (long long)n, (long long)n);
}

static int64_t rows_conv(int64_t n) { return 2 * n + 3; }

/* input 1 x (2n + 3) x 2 (rows as the spatial dimension through a
 * reshape), kernel 3 x 2 x 4 of constants, padding [n - 1, 1], stride 2
 * written as `strides` in the dynamic form */
static void w_conv_strides(int64_t n, char *d, char *s, size_t cap, const char *strides) {
  long long w = 2 * n + 3, out = (w + (n - 1) + 1 - 3) / 2 + 1;
  snprintf(d, cap,
           "func.func @main(%%n: tensor<i64>, %%a: tensor<?x2xf32>) -> tensor<1x?x4xf32> {\n" N1
           "  %%r0 = stablehlo.get_dimension_size %%a, dim = 0 : (tensor<?x2xf32>) -> tensor<i32>\n"
           "  %%r1 = stablehlo.reshape %%r0 : (tensor<i32>) -> tensor<1xi32>\n"
           "  %%one = stablehlo.constant dense<1> : tensor<1xi32>\n"
           "  %%two = stablehlo.constant dense<2> : tensor<1xi32>\n"
           "  %%sh = stablehlo.concatenate %%one, %%r1, %%two, dim = 0 : (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<3xi32>\n"
           "  %%x = stablehlo.dynamic_reshape %%a, %%sh : (tensor<?x2xf32>, tensor<3xi32>) -> tensor<1x?x2xf32>\n"
           "  %%k = stablehlo.constant dense<[[[1.0, -2.0, 0.5, 3.0], [0.25, 1.5, -1.0, 2.0]], [[2.0, 0.0, 1.0, -0.5], [1.0, 1.0, 1.0, 1.0]], [[-3.0, 0.75, 2.5, 1.0], [0.5, -0.25, 4.0, -2.0]]]> : tensor<3x2x4xf32>\n"
           "  %%nm1 = stablehlo.subtract %%n1, %%one : tensor<1xi32>\n"
           "  %%p1 = stablehlo.concatenate %%nm1, %%one, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>\n"
           "  %%pad = stablehlo.reshape %%p1 : (tensor<2xi32>) -> tensor<1x2xi32>\n"
           "  %%r = \"stablehlo.dynamic_conv\"(%%x, %%k, %%pad) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = 1 : i64, window_strides = array<i64: %s>} : (tensor<1x?x2xf32>, tensor<3x2x4xf32>, tensor<1x2xi32>) -> tensor<1x?x4xf32>\n"
           "  return %%r : tensor<1x?x4xf32>\n}\n",
           strides);
  snprintf(s, cap,
           "func.func @main(%%n: tensor<i64>, %%a: tensor<%lldx2xf32>) -> tensor<1x%lldx4xf32> {\n"
           "  %%x = stablehlo.reshape %%a : (tensor<%lldx2xf32>) -> tensor<1x%lldx2xf32>\n"
           "  %%k = stablehlo.constant dense<[[[1.0, -2.0, 0.5, 3.0], [0.25, 1.5, -1.0, 2.0]], [[2.0, 0.0, 1.0, -0.5], [1.0, 1.0, 1.0, 1.0]], [[-3.0, 0.75, 2.5, 1.0], [0.5, -0.25, 4.0, -2.0]]]> : tensor<3x2x4xf32>\n"
           "  %%r = stablehlo.convolution(%%x, %%k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [2], pad = [[%lld, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x%lldx2xf32>, tensor<3x2x4xf32>) -> tensor<1x%lldx4xf32>\n"
           "  return %%r : tensor<1x%lldx4xf32>\n}\n",
           w, out, w, w, (long long)(n - 1), w, out, out);
}

static void w_conv(int64_t n, char *d, char *s, size_t cap) { w_conv_strides(n, d, s, cap, "2"); }

/* The stride repeated once per entry of the padding row, as StableHLO's
 * test data writes JAX's one-dimensional strided convolutions: read as one
 * stride of 2 (refine_dynamic.c). */
static void w_conv_splat(int64_t n, char *d, char *s, size_t cap) { w_conv_strides(n, d, s, cap, "2, 2"); }

static const diff_case cases[] = {
    {"dynamic_broadcast_in_dim", 1, rows_n, w_broadcast},
    {"dynamic_reshape", 6, rows_n, w_reshape},
    {"dynamic_iota", 3, rows_n, w_iota},
    {"real_dynamic_slice", 6, rows_n1, w_real_slice},
    {"real_dynamic_slice (start + sizes)", 6, rows_n, w_slice_sizes},
    {"dynamic_pad", 3, rows_n, w_pad},
    {"dynamic_gather", 5, rows_n, w_gather},
    {"dynamic_conv", 2, rows_conv, w_conv},
    {"dynamic_conv (window_strides [2, 2] on one spatial dimension)", 2, rows_conv, w_conv_splat},
};

/* Runs `text` on (n, a); the result's data (malloc'd) and shape. */
static void run_text(const char *text, int64_t n, const float *a, int64_t rows, int64_t cols, shloc_tensor *res) {
  shloc_context *ctx = shloc_context_create();
  shloc_module *m;
  shloc_executable *x;
  OK(shloc_module_parse(ctx, "diff.mlir", text, strlen(text), 1, &m));
  OK(shloc_module_verify(m));
  OK(shloc_executable_create(m, NULL, NULL, &x));
  int64_t dims[2] = {rows, cols};
  shloc_tensor args[2] = {{XLA_FFI_DataType_S64, 0, NULL, &n, 8},
                          {XLA_FFI_DataType_F32, 2, dims, (void *)a, (size_t)(rows * cols) * sizeof(float)}};
  OK(shloc_executable_run(x, args, 2, res, 1));
  /* dims live in the executable: copy them out before it goes */
  static int64_t keep[2][8];
  static int which;
  int64_t *k = keep[which ^= 1];
  for (int32_t i = 0; i < res->rank && i < 8; i++) k[i] = res->dims[i];
  res->dims = k;
  shloc_executable_destroy(x);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
}

static void test_dynamic_equals_static(void **state) {
  (void)state;
  static char dyn[CAP], stat[CAP];
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    for (int64_t n = 1; n <= 5; n += (n == 2 ? 3 : 1)) {
      const diff_case *dc = &cases[c];
      int64_t rows = dc->rows(n);
      float *a = malloc((size_t)(rows * dc->cols) * sizeof(float) + 4);
      uint32_t seed = (uint32_t)(c * 977 + (size_t)n);
      for (int64_t i = 0; i < rows * dc->cols; i++) {
        seed = seed * 1664525u + 1013904223u;
        a[i] = (float)((int32_t)(seed >> 8) % 20001) / 1000.0f;
      }
      dc->write(n, dyn, stat, CAP);
      shloc_tensor rd, rs;
      run_text(dyn, n, a, rows, dc->cols, &rd);
      run_text(stat, n, a, rows, dc->cols, &rs);
      if (rd.rank != rs.rank || rd.nbytes != rs.nbytes || memcmp(rd.dims, rs.dims, (size_t)rd.rank * sizeof(int64_t)) ||
          memcmp(rd.data, rs.data, rd.nbytes))
        fail_msg("%s, n = %lld: dynamic and static results differ", dc->name, (long long)n);
      free(rd.data);
      free(rs.data);
      free(a);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dynamic_equals_static),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
