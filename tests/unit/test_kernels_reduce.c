/* Reduction, window, sorting, linear-algebra and signal kernels: small
 * modules (generic form) that check their own results through check ops,
 * covering edge cases the conformance corpus lacks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/exec.h"
#include "harness.h"

#define EQ(v, val, ty) "  \"check.expect_eq_const\"(" v ") {value = " val " : " ty "} : (" ty ") -> ()\n"
#define NEAR(v, val, ty) "  \"check.expect_almost_eq_const\"(" v ") {value = " val " : " ty "} : (" ty ") -> ()\n"
#define BODY2(T, OP)                                                                      \
  "  ^bb0(%a: tensor<" T ">, %b: tensor<" T ">):\n"                                        \
  "    %s = \"stablehlo." OP "\"(%a, %b) : (tensor<" T ">, tensor<" T ">) -> tensor<" T ">\n" \
  "    \"stablehlo.return\"(%s) : (tensor<" T ">) -> ()\n"

static void test_reduce_fast(void **state) {
  (void)state;
  run_ok("func.func @main() {\n"
         "  %x = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>\n"
         "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
         "  %r = \"stablehlo.reduce\"(%x, %z) <{dimensions = array<i64: 1>}> ({\n" BODY2("f32", "add")
         "  }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>\n" EQ("%r", "dense<[6.0, 15.0]>", "tensor<2xf32>")
         /* i8 sums wrap */
         "  %i = stablehlo.constant dense<[100, 100, 100]> : tensor<3xi8>\n"
         "  %iz = stablehlo.constant dense<0> : tensor<i8>\n"
         "  %ri = \"stablehlo.reduce\"(%i, %iz) <{dimensions = array<i64: 0>}> ({\n" BODY2("i8", "add")
         "  }) : (tensor<3xi8>, tensor<i8>) -> tensor<i8>\n" EQ("%ri", "dense<44>", "tensor<i8>")
         /* max propagates NaN */
         "  %n = stablehlo.constant dense<[1.0, 0x7FC00000, 3.0]> : tensor<3xf32>\n"
         "  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
         "  %rn = \"stablehlo.reduce\"(%n, %ninf) <{dimensions = array<i64: 0>}> ({\n" BODY2("f32", "maximum")
         "  }) : (tensor<3xf32>, tensor<f32>) -> tensor<f32>\n"
         "  %isn = \"stablehlo.compare\"(%rn, %rn) <{comparison_direction = #stablehlo<comparison_direction NE>}> : "
         "(tensor<f32>, tensor<f32>) -> tensor<i1>\n" EQ("%isn", "dense<true>", "tensor<i1>")
         /* empty operand: the init value */
         "  %e = stablehlo.constant dense<> : tensor<0x2xf32>\n"
         "  %one = stablehlo.constant dense<1.0> : tensor<f32>\n"
         "  %re = \"stablehlo.reduce\"(%e, %one) <{dimensions = array<i64: 0>}> ({\n" BODY2("f32", "multiply")
         "  }) : (tensor<0x2xf32>, tensor<f32>) -> tensor<2xf32>\n" EQ("%re", "dense<1.0>", "tensor<2xf32>")
         /* rank 0, no dimensions */
         "  %s0 = stablehlo.constant dense<7> : tensor<i32>\n"
         "  %s1 = stablehlo.constant dense<5> : tensor<i32>\n"
         "  %rs = \"stablehlo.reduce\"(%s0, %s1) <{dimensions = array<i64>}> ({\n" BODY2("i32", "minimum")
         "  }) : (tensor<i32>, tensor<i32>) -> tensor<i32>\n" EQ("%rs", "dense<5>", "tensor<i32>")
         /* bf16 sum rounds every step */
         "  %h = stablehlo.constant dense<[256.0, 1.0, 1.0]> : tensor<3xbf16>\n"
         "  %hz = stablehlo.constant dense<0.0> : tensor<bf16>\n"
         "  %rh = \"stablehlo.reduce\"(%h, %hz) <{dimensions = array<i64: 0>}> ({\n" BODY2("bf16", "add")
         "  }) : (tensor<3xbf16>, tensor<bf16>) -> tensor<bf16>\n" EQ("%rh", "dense<256.0>", "tensor<bf16>")
         "  func.return\n}\n");
}

/* Reductions over leading dimensions fold whole rows, blocks of adjacent
 * outputs at a time (1100 columns: a partial block). */
static void test_reduce_columns(void **state) {
  (void)state;
  run_ok("func.func @main() {\n"
         "  %x = \"stablehlo.iota\"() <{iota_dimension = 2 : i64}> : () -> tensor<2x3x1100xi32>\n"
         "  %r = stablehlo.reshape %x : (tensor<2x3x1100xi32>) -> tensor<2x3x1100xi32>\n"
         "  %z = stablehlo.constant dense<0> : tensor<i32>\n"
         "  %cs = \"stablehlo.reduce\"(%r, %z) <{dimensions = array<i64: 0, 1>}> ({\n" BODY2("i32", "add")
         "  }) : (tensor<2x3x1100xi32>, tensor<i32>) -> tensor<1100xi32>\n"
         "  %j = \"stablehlo.iota\"() <{iota_dimension = 0 : i64}> : () -> tensor<1100xi32>\n"
         "  %six = stablehlo.constant dense<6> : tensor<1100xi32>\n"
         "  %want = stablehlo.multiply %j, %six : tensor<1100xi32>\n"
         "  \"check.expect_eq\"(%cs, %want) : (tensor<1100xi32>, tensor<1100xi32>) -> ()\n"
         /* f32 max over the middle dimension, NaN in one column */
         "  %f = stablehlo.constant dense<[[[1.0, 5.0], [0x7FC00000, 2.0], [3.0, -1.0]], [[4.0, 0.0], [1.0, 7.0], [2.0, 2.0]]]> : tensor<2x3x2xf32>\n"
         "  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
         "  %m = \"stablehlo.reduce\"(%f, %ninf) <{dimensions = array<i64: 1>}> ({\n" BODY2("f32", "maximum")
         "  }) : (tensor<2x3x2xf32>, tensor<f32>) -> tensor<2x2xf32>\n"
         "  %m0 = stablehlo.slice %m [1:2, 0:2] : (tensor<2x2xf32>) -> tensor<1x2xf32>\n" EQ("%m0", "dense<[[4.0, 7.0]]>", "tensor<1x2xf32>")
         "  %m1 = stablehlo.slice %m [0:1, 1:2] : (tensor<2x2xf32>) -> tensor<1x1xf32>\n" EQ("%m1", "dense<5.0>", "tensor<1x1xf32>")
         "  %m2 = stablehlo.slice %m [0:1, 0:1] : (tensor<2x2xf32>) -> tensor<1x1xf32>\n"
         "  %isn = \"stablehlo.compare\"(%m2, %m2) <{comparison_direction = #stablehlo<comparison_direction NE>}> : "
         "(tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<1x1xi1>\n" EQ("%isn", "dense<true>", "tensor<1x1xi1>")
         /* bf16 column sums round every step, in order (1 + 1 + 256 would give 258) */
         "  %h = stablehlo.constant dense<[[256.0, 1.0], [1.0, 256.0], [1.0, 1.0]]> : tensor<3x2xbf16>\n"
         "  %hz = stablehlo.constant dense<0.0> : tensor<bf16>\n"
         "  %rh = \"stablehlo.reduce\"(%h, %hz) <{dimensions = array<i64: 0>}> ({\n" BODY2("bf16", "add")
         "  }) : (tensor<3x2xbf16>, tensor<bf16>) -> tensor<2xbf16>\n" EQ("%rh", "dense<256.0>", "tensor<2xbf16>")
         "  func.return\n}\n");
}

static void test_reduce_variadic(void **state) {
  (void)state;
  /* argmax with the first index on ties */
  run_ok("func.func @main() {\n"
         "  %x = stablehlo.constant dense<[[1.0, 9.0, 9.0], [4.0, 2.0, 0.0]]> : tensor<2x3xf32>\n"
         "  %ix = stablehlo.constant dense<[[0, 1, 2], [0, 1, 2]]> : tensor<2x3xi32>\n"
         "  %z = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
         "  %zi = stablehlo.constant dense<0> : tensor<i32>\n"
         "  %r:2 = \"stablehlo.reduce\"(%x, %ix, %z, %zi) <{dimensions = array<i64: 1>}> ({\n"
         "  ^bb0(%a: tensor<f32>, %ai: tensor<i32>, %b: tensor<f32>, %bi: tensor<i32>):\n"
         "    %gt = \"stablehlo.compare\"(%a, %b) <{comparison_direction = #stablehlo<comparison_direction GE>}> : "
         "(tensor<f32>, tensor<f32>) -> tensor<i1>\n"
         "    %v = \"stablehlo.select\"(%gt, %a, %b) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>\n"
         "    %i = \"stablehlo.select\"(%gt, %ai, %bi) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>\n"
         "    \"stablehlo.return\"(%v, %i) : (tensor<f32>, tensor<i32>) -> ()\n"
         "  }) : (tensor<2x3xf32>, tensor<2x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)\n" EQ(
             "%r#0", "dense<[9.0, 4.0]>", "tensor<2xf32>") EQ("%r#1", "dense<[1, 0]>", "tensor<2xi32>")
         "  func.return\n}\n");
}

static void test_reduce_window(void **state) {
  (void)state;
  run_ok("func.func @main() {\n"
         "  %x = stablehlo.constant dense<[1, 2, 3, 4, 5]> : tensor<5xi32>\n"
         "  %z = stablehlo.constant dense<0> : tensor<i32>\n"
         "  %r = \"stablehlo.reduce_window\"(%x, %z) <{padding = dense<[[1, 1]]> : tensor<1x2xi64>, "
         "window_dimensions = array<i64: 3>, window_strides = array<i64: 2>}> ({\n" BODY2("i32", "add")
         "  }) : (tensor<5xi32>, tensor<i32>) -> tensor<3xi32>\n" EQ("%r", "dense<[3, 9, 9]>", "tensor<3xi32>")
         /* base and window dilation */
         "  %r2 = \"stablehlo.reduce_window\"(%x, %z) <{base_dilations = array<i64: 2>, "
         "window_dilations = array<i64: 2>, window_dimensions = array<i64: 2>}> ({\n" BODY2("i32", "maximum")
         "  }) : (tensor<5xi32>, tensor<i32>) -> tensor<7xi32>\n"
         EQ("%r2", "dense<[2, 0, 3, 0, 4, 0, 5]>", "tensor<7xi32>")
         "  func.return\n}\n");
}

static void test_select_and_scatter(void **state) {
  (void)state;
  run_ok("func.func @main() {\n"
         "  %x = stablehlo.constant dense<[1.0, 5.0, 5.0, 2.0]> : tensor<4xf32>\n"
         "  %src = stablehlo.constant dense<[10.0, 20.0]> : tensor<2xf32>\n"
         "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
         "  %r = \"stablehlo.select_and_scatter\"(%x, %src, %z) <{window_dimensions = array<i64: 2>, "
         "window_strides = array<i64: 2>, padding = dense<[[0, 1]]> : tensor<1x2xi64>}> ({\n"
         "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
         "    %c = \"stablehlo.compare\"(%a, %b) <{comparison_direction = #stablehlo<comparison_direction GE>}> : "
         "(tensor<f32>, tensor<f32>) -> tensor<i1>\n"
         "    \"stablehlo.return\"(%c) : (tensor<i1>) -> ()\n"
         "  }, {\n" BODY2("f32", "add")
         "  }) : (tensor<4xf32>, tensor<2xf32>, tensor<f32>) -> tensor<4xf32>\n"
         EQ("%r", "dense<[0.0, 10.0, 20.0, 0.0]>", "tensor<4xf32>")
         "  func.return\n}\n");
}

static void test_sort_and_top_k(void **state) {
  (void)state;
  run_ok("func.func @main() {\n"
         "  %k = stablehlo.constant dense<[[3, 1, 3, 2], [0, 0, -1, 5]]> : tensor<2x4xi32>\n"
         "  %v = stablehlo.constant dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi32>\n"
         "  %r:2 = \"stablehlo.sort\"(%k, %v) <{dimension = 1 : i64, is_stable = true}> ({\n"
         "  ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<i32>, %d: tensor<i32>):\n"
         "    %lt = \"stablehlo.compare\"(%a, %b) <{comparison_direction = #stablehlo<comparison_direction LT>}> : "
         "(tensor<i32>, tensor<i32>) -> tensor<i1>\n"
         "    \"stablehlo.return\"(%lt) : (tensor<i1>) -> ()\n"
         "  }) : (tensor<2x4xi32>, tensor<2x4xi32>) -> (tensor<2x4xi32>, tensor<2x4xi32>)\n"
         EQ("%r#0", "dense<[[1, 2, 3, 3], [-1, 0, 0, 5]]>", "tensor<2x4xi32>")
         EQ("%r#1", "dense<[[1, 3, 0, 2], [6, 4, 5, 7]]>", "tensor<2x4xi32>")
         /* top_k: NaN is largest, ties keep the lower index */
         "  %f = stablehlo.constant dense<[1.0, 0x7FC00000, 2.0, 2.0, -1.0]> : tensor<5xf32>\n"
         "  %t:2 = \"chlo.top_k\"(%f) {k = 3 : i64} : (tensor<5xf32>) -> (tensor<3xf32>, tensor<3xi32>)\n"
         EQ("%t#1", "dense<[1, 2, 3]>", "tensor<3xi32>")
         "  %u = stablehlo.constant dense<[200, 7, 255]> : tensor<3xui8>\n"
         "  %tu:2 = \"chlo.top_k\"(%u) {k = 2 : i64} : (tensor<3xui8>) -> (tensor<2xui8>, tensor<2xi32>)\n"
         EQ("%tu#0", "dense<[255, 200]>", "tensor<2xui8>") EQ("%tu#1", "dense<[2, 0]>", "tensor<2xi32>")
         "  func.return\n}\n");
}

static void test_dot(void **state) {
  (void)state;
  run_ok("func.func @main() {\n"
         "  %a = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[1.0, 0.0], [0.0, 1.0]]]> : tensor<2x2x2xf32>\n"
         "  %b = stablehlo.constant dense<[[[1.0, 1.0], [1.0, 1.0]], [[5.0, 6.0], [7.0, 8.0]]]> : tensor<2x2x2xf32>\n"
         /* batch 0, contract lhs 1 with rhs 1: out[b, i, j] = sum_k a[b, k, i] * b[b, j, k] */
         "  %r = \"stablehlo.dot_general\"(%a, %b) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = "
         "[0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [2]>}> : "
         "(tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> tensor<2x2x2xf32>\n"
         EQ("%r", "dense<[[[4.0, 4.0], [6.0, 6.0]], [[5.0, 7.0], [6.0, 8.0]]]>", "tensor<2x2x2xf32>")
         /* integer wrap */
         "  %i = stablehlo.constant dense<[100, 100]> : tensor<2xi8>\n"
         "  %ri = \"stablehlo.dot\"(%i, %i) : (tensor<2xi8>, tensor<2xi8>) -> tensor<i8>\n"
         EQ("%ri", "dense<32>", "tensor<i8>")
         /* empty contraction gives zeros */
         "  %e1 = stablehlo.constant dense<> : tensor<2x0xf64>\n"
         "  %e2 = stablehlo.constant dense<> : tensor<0x3xf64>\n"
         "  %re = \"stablehlo.dot\"(%e1, %e2) : (tensor<2x0xf64>, tensor<0x3xf64>) -> tensor<2x3xf64>\n"
         EQ("%re", "dense<0.0>", "tensor<2x3xf64>")
         /* bf16 through f32 */
         "  %h = stablehlo.constant dense<[[1.5, 2.0]]> : tensor<1x2xbf16>\n"
         "  %hv = stablehlo.constant dense<[[2.0], [0.25]]> : tensor<2x1xbf16>\n"
         "  %rh = \"stablehlo.dot\"(%h, %hv) : (tensor<1x2xbf16>, tensor<2x1xbf16>) -> tensor<1x1xbf16>\n"
         EQ("%rh", "dense<3.5>", "tensor<1x1xbf16>")
         "  func.return\n}\n");
}

static void test_convolution(void **state) {
  (void)state;
  /* 1-D, NWC x WIO -> NWC, pad 1, lhs dilation 2, reversed window, two feature groups */
  run_ok("func.func @main() {\n"
         "  %x = stablehlo.constant dense<[[[1.0], [2.0], [3.0]]]> : tensor<1x3x1xf32>\n"
         "  %w = stablehlo.constant dense<[[[1.0]], [[10.0]]]> : tensor<2x1x1xf32>\n"
         "  %r = \"stablehlo.convolution\"(%x, %w) <{batch_group_count = 1 : i64, dimension_numbers = "
         "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = 1 : i64, "
         "lhs_dilation = array<i64: 2>, padding = dense<[[1, 0]]> : tensor<1x2xi64>, "
         "window_reversal = array<i1: true>}> : (tensor<1x3x1xf32>, tensor<2x1x1xf32>) -> tensor<1x5x1xf32>\n"
         EQ("%r", "dense<[[[1.0], [10.0], [2.0], [20.0], [3.0]]]>", "tensor<1x5x1xf32>")
         "  %x2 = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]]]> : tensor<1x2x2xf32>\n"
         "  %w2 = stablehlo.constant dense<[[[1.0, 100.0]]]> : tensor<1x1x2xf32>\n"
         "  %r2 = \"stablehlo.convolution\"(%x2, %w2) <{batch_group_count = 1 : i64, dimension_numbers = "
         "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = 2 : i64}> : "
         "(tensor<1x2x2xf32>, tensor<1x1x2xf32>) -> tensor<1x2x2xf32>\n"
         EQ("%r2", "dense<[[[1.0, 200.0], [3.0, 400.0]]]>", "tensor<1x2x2xf32>")
         "  func.return\n}\n");
}

static void test_fft(void **state) {
  (void)state;
  run_ok("func.func @main() {\n"
         "  %x = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>\n"
         "  %f = \"stablehlo.fft\"(%x) <{fft_length = array<i64: 4>, fft_type = #stablehlo<fft_type RFFT>}> : "
         "(tensor<4xf32>) -> tensor<3xcomplex<f32>>\n"
         NEAR("%f", "dense<[(10.0, 0.0), (-2.0, 2.0), (-2.0, 0.0)]>", "tensor<3xcomplex<f32>>")
         "  %b = \"stablehlo.fft\"(%f) <{fft_length = array<i64: 4>, fft_type = #stablehlo<fft_type IRFFT>}> : "
         "(tensor<3xcomplex<f32>>) -> tensor<4xf32>\n"
         NEAR("%b", "dense<[1.0, 2.0, 3.0, 4.0]>", "tensor<4xf32>")
         "  %c = stablehlo.constant dense<[(1.0, 0.0), (0.0, 1.0)]> : tensor<2xcomplex<f64>>\n"
         "  %i = \"stablehlo.fft\"(%c) <{fft_length = array<i64: 2>, fft_type = #stablehlo<fft_type IFFT>}> : "
         "(tensor<2xcomplex<f64>>) -> tensor<2xcomplex<f64>>\n"
         NEAR("%i", "dense<[(0.5, 0.5), (0.5, -0.5)]>", "tensor<2xcomplex<f64>>")
         "  %e = stablehlo.constant dense<> : tensor<0x4xf32>\n"
         "  %fe = \"stablehlo.fft\"(%e) <{fft_length = array<i64: 4>, fft_type = #stablehlo<fft_type RFFT>}> : "
         "(tensor<0x4xf32>) -> tensor<0x3xcomplex<f32>>\n"
         "  func.return\n}\n");
}

static void test_linalg(void **state) {
  (void)state;
  run_ok("func.func @main() {\n"
         "  %a = stablehlo.constant dense<[[4.0, 2.0], [2.0, 5.0]]> : tensor<2x2xf64>\n"
         "  %l = \"stablehlo.cholesky\"(%a) <{lower = true}> : (tensor<2x2xf64>) -> tensor<2x2xf64>\n"
         NEAR("%l", "dense<[[2.0, 0.0], [1.0, 2.0]]>", "tensor<2x2xf64>")
         "  %b = stablehlo.constant dense<[[2.0], [5.0]]> : tensor<2x1xf64>\n"
         "  %x = \"stablehlo.triangular_solve\"(%l, %b) <{left_side = true, lower = true, "
         "transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : "
         "(tensor<2x2xf64>, tensor<2x1xf64>) -> tensor<2x1xf64>\n"
         NEAR("%x", "dense<[[1.0], [2.0]]>", "tensor<2x1xf64>")
         "  %xt = \"stablehlo.triangular_solve\"(%l, %b) <{left_side = true, lower = true, "
         "transpose_a = #stablehlo<transpose TRANSPOSE>, unit_diagonal = false}> : "
         "(tensor<2x2xf64>, tensor<2x1xf64>) -> tensor<2x1xf64>\n"
         NEAR("%xt", "dense<[[-0.25], [2.5]]>", "tensor<2x1xf64>")
         "  func.return\n}\n");
}

static void test_batch_norm(void **state) {
  (void)state;
  run_ok("func.func @main() {\n"
         "  %x = stablehlo.constant dense<[[1.0, 10.0], [3.0, 30.0]]> : tensor<2x2xf32>\n"
         "  %s = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>\n"
         "  %o = stablehlo.constant dense<[0.0, 1.0]> : tensor<2xf32>\n"
         "  %y:3 = \"stablehlo.batch_norm_training\"(%x, %s, %o) <{epsilon = 0.0 : f32, feature_index = 1 : i64}> : "
         "(tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>)\n"
         NEAR("%y#0", "dense<[[-1.0, -1.0], [1.0, 3.0]]>", "tensor<2x2xf32>")
         NEAR("%y#1", "dense<[2.0, 20.0]>", "tensor<2xf32>") NEAR("%y#2", "dense<[1.0, 100.0]>", "tensor<2xf32>")
         "  %z = \"stablehlo.batch_norm_inference\"(%x, %s, %o, %y#1, %y#2) <{epsilon = 0.0 : f32, feature_index = 1 : "
         "i64}> : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>\n"
         NEAR("%z", "dense<[[-1.0, -1.0], [1.0, 3.0]]>", "tensor<2x2xf32>")
         "  func.return\n}\n");
}

static void test_general_bodies(void **state) {
  (void)state;
  run_ok("func.func @main() {\n"
         /* map with a two-op body */
         "  %x = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>\n"
         "  %y = stablehlo.constant dense<[10, 20, 30]> : tensor<3xi32>\n"
         "  %m = \"stablehlo.map\"(%x, %y) <{dimensions = array<i64: 0>}> ({\n"
         "  ^bb0(%a: tensor<i32>, %b: tensor<i32>):\n"
         "    %p = \"stablehlo.multiply\"(%a, %b) : (tensor<i32>, tensor<i32>) -> tensor<i32>\n"
         "    %q = \"stablehlo.subtract\"(%p, %a) : (tensor<i32>, tensor<i32>) -> tensor<i32>\n"
         "    \"stablehlo.return\"(%q) : (tensor<i32>) -> ()\n"
         "  }) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>\n" EQ("%m", "dense<[9, 38, 87]>", "tensor<3xi32>")
         /* sort descending by the second operand (comparator runs as a region) */
         "  %s:2 = \"stablehlo.sort\"(%x, %y) <{dimension = 0 : i64}> ({\n"
         "  ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<i32>, %d: tensor<i32>):\n"
         "    %gt = \"stablehlo.compare\"(%c, %d) <{comparison_direction = #stablehlo<comparison_direction GT>}> : "
         "(tensor<i32>, tensor<i32>) -> tensor<i1>\n"
         "    \"stablehlo.return\"(%gt) : (tensor<i1>) -> ()\n"
         "  }) : (tensor<3xi32>, tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>)\n"
         EQ("%s#0", "dense<[3, 2, 1]>", "tensor<3xi32>")
         /* sorting an empty tensor */
         "  %e = stablehlo.constant dense<> : tensor<0xf32>\n"
         "  %se = \"stablehlo.sort\"(%e) <{dimension = 0 : i64}> ({\n"
         "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
         "    %lt = \"stablehlo.compare\"(%a, %b) <{comparison_direction = #stablehlo<comparison_direction LT>}> : "
         "(tensor<f32>, tensor<f32>) -> tensor<i1>\n"
         "    \"stablehlo.return\"(%lt) : (tensor<i1>) -> ()\n"
         "  }) : (tensor<0xf32>) -> tensor<0xf32>\n"
         /* variadic reduce_window: running sum and count */
         "  %z = stablehlo.constant dense<0> : tensor<i32>\n"
         "  %w:2 = \"stablehlo.reduce_window\"(%x, %y, %z, %z) <{window_dimensions = array<i64: 2>}> ({\n"
         "  ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<i32>, %d: tensor<i32>):\n"
         "    %s1 = \"stablehlo.add\"(%a, %c) : (tensor<i32>, tensor<i32>) -> tensor<i32>\n"
         "    %s2 = \"stablehlo.maximum\"(%b, %d) : (tensor<i32>, tensor<i32>) -> tensor<i32>\n"
         "    \"stablehlo.return\"(%s1, %s2) : (tensor<i32>, tensor<i32>) -> ()\n"
         "  }) : (tensor<3xi32>, tensor<3xi32>, tensor<i32>, tensor<i32>) -> (tensor<2xi32>, tensor<2xi32>)\n"
         EQ("%w#0", "dense<[3, 5]>", "tensor<2xi32>") EQ("%w#1", "dense<[20, 30]>", "tensor<2xi32>")
         /* batch groups: output feature g reads batch group g */
         "  %bx = stablehlo.constant dense<[[[3.0]], [[5.0]]]> : tensor<2x1x1xf32>\n"
         "  %bw = stablehlo.constant dense<[[[2.0, 10.0]]]> : tensor<1x1x2xf32>\n"
         "  %bc = \"stablehlo.convolution\"(%bx, %bw) <{batch_group_count = 2 : i64, dimension_numbers = "
         "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = 1 : i64}> : "
         "(tensor<2x1x1xf32>, tensor<1x1x2xf32>) -> tensor<1x1x2xf32>\n"
         EQ("%bc", "dense<[[[6.0, 50.0]]]>", "tensor<1x1x2xf32>")
         "  func.return\n}\n");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reduce_fast), cmocka_unit_test(test_reduce_columns),    cmocka_unit_test(test_reduce_variadic), cmocka_unit_test(test_reduce_window),
      cmocka_unit_test(test_select_and_scatter), cmocka_unit_test(test_sort_and_top_k), cmocka_unit_test(test_dot),
      cmocka_unit_test(test_convolution),    cmocka_unit_test(test_fft),             cmocka_unit_test(test_linalg),
      cmocka_unit_test(test_batch_norm),     cmocka_unit_test(test_general_bodies),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
