/* Fast paths of the linear-algebra, sorting and window kernels: dot_general
 * reading transposed and batched operands in place, convolution as
 * im2col + GEMM in several layouts, the radix sort behind recognised
 * comparators, and row-wise reduce_window.  Float results are checked
 * exactly against the integer kernels (small integer values make every f32
 * sum exact; the Winograd convolution, whose transforms divide by 6 and 24,
 * within a bound) or against hand-computed values. */
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

/* %NAME_i (i32) and %NAME (f32) of shape SHAPE (N elements): small integers
 * (i * MUL) % 11 - 5 in row-major order. */
#define INTS(NAME, N, SHAPE, MUL)                                                                              \
  "  %" NAME "_io = \"stablehlo.iota\"() <{iota_dimension = 0 : i64}> : () -> tensor<" N "xi32>\n"             \
  "  %" NAME "_m = stablehlo.constant dense<" MUL "> : tensor<" N "xi32>\n"                                   \
  "  %" NAME "_e = stablehlo.constant dense<11> : tensor<" N "xi32>\n"                                        \
  "  %" NAME "_f = stablehlo.constant dense<5> : tensor<" N "xi32>\n"                                         \
  "  %" NAME "_p = stablehlo.multiply %" NAME "_io, %" NAME "_m : tensor<" N "xi32>\n"                        \
  "  %" NAME "_r = stablehlo.remainder %" NAME "_p, %" NAME "_e : tensor<" N "xi32>\n"                        \
  "  %" NAME "_s = stablehlo.subtract %" NAME "_r, %" NAME "_f : tensor<" N "xi32>\n"                         \
  "  %" NAME "_i = stablehlo.reshape %" NAME "_s : (tensor<" N "xi32>) -> tensor<" SHAPE "xi32>\n"            \
  "  %" NAME " = stablehlo.convert %" NAME "_i : (tensor<" SHAPE "xi32>) -> tensor<" SHAPE "xf32>\n"

/* %R (f32) equals the i32 result %R_i converted. */
#define SAME_AS_INT(R, SHAPE)                                                                                  \
  "  %" R "_c = stablehlo.convert %" R "_i : (tensor<" SHAPE "xi32>) -> tensor<" SHAPE "xf32>\n"               \
  "  stablehlo.custom_call @check.expect_eq(%" R ", %" R "_c) {has_side_effect = true} : (tensor<" SHAPE      \
  "xf32>, tensor<" SHAPE "xf32>) -> ()\n"

#define DOT(R, L, RH, DIMS, LT, RT, OT)                                                                        \
  "  %" R " = stablehlo.dot_general %" L ", %" RH ", " DIMS " : (tensor<" LT "xf32>, tensor<" RT               \
  "xf32>) -> tensor<" OT "xf32>\n"                                                                             \
  "  %" R "_i = stablehlo.dot_general %" L "_i, %" RH "_i, " DIMS " : (tensor<" LT "xi32>, tensor<" RT         \
  "xi32>) -> tensor<" OT "xi32>\n" SAME_AS_INT(R, OT)

static void test_dot_in_place(void **state) {
  (void)state;
  run_ok("func.func @main() {\n"
         /* transposed lhs, transposed rhs, both */
         INTS("a", "7680", "96x80", "7") INTS("b", "6720", "96x70", "13") INTS("c", "6720", "70x96", "3")
         DOT("d1", "a", "b", "contracting_dims = [0] x [0]", "96x80", "96x70", "80x70")
         DOT("d2", "a", "c", "contracting_dims = [0] x [1]", "96x80", "70x96", "80x70")
         /* attention-style batching: [b, q, h, d] x [b, k, h, d] -> [b, h, q, k] */
         INTS("q", "4608", "2x48x3x16", "5") INTS("k", "4800", "2x50x3x16", "9")
         DOT("s", "q", "k", "batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3]", "2x48x3x16", "2x50x3x16",
             "2x3x48x50")
         /* [b, h, q, k] x [b, k, h, d] -> [b, h, q, d] */
         INTS("p", "14400", "2x3x48x50", "4")
         DOT("o", "p", "k", "batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1]", "2x3x48x50", "2x50x3x16",
             "2x3x48x16")
         /* free dimensions that do not merge: packed first */
         INTS("u", "6000", "5x30x40", "6") INTS("v", "1800", "30x60", "8")
         DOT("w", "u", "v", "contracting_dims = [1] x [0]", "5x30x40", "30x60", "5x40x60")
         /* two contracting dimensions, in swapped order on the rhs */
         INTS("x", "7200", "40x12x15", "2") INTS("y", "5400", "15x12x30", "10")
         DOT("z", "x", "y", "contracting_dims = [1, 2] x [1, 0]", "40x12x15", "15x12x30", "40x30")
         "  func.return\n}\n");
}

#define CONV(R, X, K, ATTRS, XT, KT, OT)                                                                       \
  "  %" R " = \"stablehlo.convolution\"(%" X ", %" K ") <{" ATTRS "}> : (tensor<" XT "xf32>, tensor<" KT        \
  "xf32>) -> tensor<" OT "xf32>\n"                                                                             \
  "  %" R "_i = \"stablehlo.convolution\"(%" X "_i, %" K "_i) <{" ATTRS "}> : (tensor<" XT "xi32>, tensor<" KT \
  "xi32>) -> tensor<" OT "xi32>\n" SAME_AS_INT(R, OT)

static void test_conv_gemm(void **state) {
  (void)state;
  run_ok("func.func @main() {\n"
         /* NHWC x HWIO, padded: several im2col blocks, written in place */
         INTS("x", "51200", "2x40x40x16", "7") INTS("k", "1152", "3x3x16x8", "3")
         CONV("c1", "x", "k",
              "batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, "
              "feature_group_count = 1 : i64, padding = dense<[[1, 1], [1, 1]]> : tensor<2x2xi64>",
              "2x40x40x16", "3x3x16x8", "2x40x40x8")
         /* NCHW x OIHW, strided, dilated, reversed, two feature groups: through scratch */
         INTS("y", "6400", "2x8x20x20", "5") INTS("g", "216", "6x4x3x3", "9")
         CONV("c2", "y", "g",
              "batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, "
              "feature_group_count = 2 : i64, lhs_dilation = array<i64: 1, 2>, padding = dense<[[2, 1], [0, 2]]> : "
              "tensor<2x2xi64>, rhs_dilation = array<i64: 2, 1>, window_reversal = array<i1: false, true>, "
              "window_strides = array<i64: 2, 3>",
              "2x8x20x20", "6x4x3x3", "2x6x10x13")
         /* batch groups, output features outermost */
         INTS("z", "1728", "4x12x12x3", "4") INTS("h", "24", "2x2x3x2", "8")
         CONV("c3", "z", "h",
              "batch_group_count = 2 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[f, b, 0, 1]>, "
              "feature_group_count = 1 : i64",
              "4x12x12x3", "2x2x3x2", "2x2x11x11")
         "  func.return\n}\n");
}

/* %R (f32) within TOL of the i32 result %R_i converted. */
#define NEAR_INT(R, SHAPE, TOL)                                                                                \
  "  %" R "_c = stablehlo.convert %" R "_i : (tensor<" SHAPE "xi32>) -> tensor<" SHAPE "xf32>\n"               \
  "  \"check.expect_almost_eq\"(%" R ", %" R "_c) {tolerance = " TOL " : f64} : (tensor<" SHAPE              \
  "xf32>, tensor<" SHAPE "xf32>) -> ()\n"

#define CONV_NEAR(R, X, K, ATTRS, XT, KT, OT, TOL)                                                             \
  "  %" R " = \"stablehlo.convolution\"(%" X ", %" K ") <{" ATTRS "}> : (tensor<" XT "xf32>, tensor<" KT        \
  "xf32>) -> tensor<" OT "xf32>\n"                                                                             \
  "  %" R "_i = \"stablehlo.convolution\"(%" X "_i, %" K "_i) <{" ATTRS "}> : (tensor<" XT "xi32>, tensor<" KT \
  "xi32>) -> tensor<" OT "xi32>\n" NEAR_INT(R, OT, TOL)

/* 3x3 windows large enough for the Winograd path (conv_winograd.c).  Its
 * F(4x4, 3x3) kernel transform divides by 6 and 24, so even on small
 * integers the f32 result only approaches the integer one: sums of up to
 * 360 terms of magnitude <= 25 within 0.05 (about 1e-6 of 9000, the
 * largest sum of |terms|, with margin).  Odd output sizes (clipped edge
 * tiles), asymmetric padding that trims and extends. */
static void test_conv_winograd(void **state) {
  (void)state;
  run_ok("func.func @main() {\n"
         INTS("x", "81840", "2x33x31x40", "7") INTS("k", "17280", "3x3x40x48", "3")
         CONV_NEAR("c1", "x", "k",
              "batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, "
              "feature_group_count = 1 : i64, padding = dense<[[1, 1], [1, 1]]> : tensor<2x2xi64>",
              "2x33x31x40", "3x3x40x48", "2x33x31x48", "5.0e-02")
         CONV_NEAR("c2", "x", "k",
              "batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, "
              "feature_group_count = 1 : i64, padding = dense<[[0, 0], [2, 1]]> : tensor<2x2xi64>",
              "2x33x31x40", "3x3x40x48", "2x31x32x48", "5.0e-02")
         "  func.return\n}\n");
}

/* JAX's jnp.sort comparator on f32: -0 -> +0, NaN -> one NaN, then TOTALORDER. */
#define JAX_CANON(A, P)                                                                                        \
  "    %" P "z = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n"                                        \
  "    %" P "e = stablehlo.compare  EQ, %" A ", %" P "z,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"   \
  "    %" P "s = stablehlo.select %" P "e, %" P "z, %" A " : tensor<i1>, tensor<f32>\n"                         \
  "    %" P "n = stablehlo.compare  NE, %" A ", %" A ",  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"    \
  "    %" P "q = stablehlo.constant dense<0x7FC00000> : tensor<f32>\n"                                          \
  "    %" P "c = stablehlo.select %" P "n, %" P "q, %" P "s : tensor<i1>, tensor<f32>\n"

static void test_sort_keyed(void **state) {
  (void)state;
  run_ok("func.func @main() {\n"
         /* stable, zeros equal, NaN last; checked bit-exactly */
         "  %x = stablehlo.constant dense<[3.0, -0.0, 0x7FC00000, 1.0, 0.0, -2.0, -0.0, 1.0]> : tensor<8xf32>\n"
         "  %s = \"stablehlo.sort\"(%x) <{dimension = 0 : i64, is_stable = true}> ({\n"
         "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n" JAX_CANON("a", "a") JAX_CANON("b", "b")
         "    %lt = stablehlo.compare  LT, %ac, %bc,  TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
         "    stablehlo.return %lt : tensor<i1>\n"
         "  }) : (tensor<8xf32>) -> tensor<8xf32>\n"
         "  %sb = stablehlo.bitcast_convert %s : (tensor<8xf32>) -> tensor<8xi32>\n"
         "  \"check.expect_eq_const\"(%sb) {value = dense<[-1073741824, -2147483648, 0, -2147483648, 1065353216, "
         "1065353216, 1077936128, 2143289344]> : tensor<8xi32>} : (tensor<8xi32>) -> ()\n"
         /* descending i32 keys with a payload: ties keep their order */
         "  %k = stablehlo.constant dense<[[2, 5, 2, 7, 5], [1, 1, 0, 1, 9]]> : tensor<2x5xi32>\n"
         "  %v = stablehlo.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0, 9.0]]> : tensor<2x5xf32>\n"
         "  %r:2 = \"stablehlo.sort\"(%k, %v) <{dimension = 1 : i64, is_stable = true}> ({\n"
         "  ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<f32>, %d: tensor<f32>):\n"
         "    %gt = stablehlo.compare  GT, %a, %b,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
         "    stablehlo.return %gt : tensor<i1>\n"
         "  }) : (tensor<2x5xi32>, tensor<2x5xf32>) -> (tensor<2x5xi32>, tensor<2x5xf32>)\n"
         "  \"check.expect_eq_const\"(%r#0) {value = dense<[[7, 5, 5, 2, 2], [9, 1, 1, 1, 0]]> : tensor<2x5xi32>} : "
         "(tensor<2x5xi32>) -> ()\n"
         "  \"check.expect_eq_const\"(%r#1) {value = dense<[[3.0, 1.0, 4.0, 0.0, 2.0], [9.0, 5.0, 6.0, 8.0, 7.0]]> : "
         "tensor<2x5xf32>} : (tensor<2x5xf32>) -> ()\n"
         /* 128 keys (the radix sort): (i * 37) % 128 - 64 is a permutation; the
          * payload i lands at position k with i = (k * 45) % 128 */
         "  %i = \"stablehlo.iota\"() <{iota_dimension = 0 : i64}> : () -> tensor<128xi32>\n"
         "  %c37 = stablehlo.constant dense<37> : tensor<128xi32>\n"
         "  %c45 = stablehlo.constant dense<45> : tensor<128xi32>\n"
         "  %c128 = stablehlo.constant dense<128> : tensor<128xi32>\n"
         "  %c64 = stablehlo.constant dense<64> : tensor<128xi32>\n"
         "  %m = stablehlo.multiply %i, %c37 : tensor<128xi32>\n"
         "  %mr = stablehlo.remainder %m, %c128 : tensor<128xi32>\n"
         "  %ms = stablehlo.subtract %mr, %c64 : tensor<128xi32>\n"
         "  %kf = stablehlo.convert %ms : (tensor<128xi32>) -> tensor<128xf32>\n"
         "  %t:2 = \"stablehlo.sort\"(%kf, %i) <{dimension = 0 : i64}> ({\n"
         "  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):\n"
         "    %lt = stablehlo.compare  LT, %a, %b,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
         "    stablehlo.return %lt : tensor<i1>\n"
         "  }) : (tensor<128xf32>, tensor<128xi32>) -> (tensor<128xf32>, tensor<128xi32>)\n"
         "  %is = stablehlo.subtract %i, %c64 : tensor<128xi32>\n"
         "  %isf = stablehlo.convert %is : (tensor<128xi32>) -> tensor<128xf32>\n"
         "  stablehlo.custom_call @check.expect_eq(%t#0, %isf) {has_side_effect = true} : (tensor<128xf32>, "
         "tensor<128xf32>) -> ()\n"
         "  %pm = stablehlo.multiply %i, %c45 : tensor<128xi32>\n"
         "  %pr = stablehlo.remainder %pm, %c128 : tensor<128xi32>\n"
         "  stablehlo.custom_call @check.expect_eq(%t#1, %pr) {has_side_effect = true} : (tensor<128xi32>, "
         "tensor<128xi32>) -> ()\n"
         /* the same keys alone, descending (keys-only radix sort) */
         "  %u = \"stablehlo.sort\"(%ms) <{dimension = 0 : i64}> ({\n"
         "  ^bb0(%a: tensor<i32>, %b: tensor<i32>):\n"
         "    %gt = stablehlo.compare  GT, %a, %b,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
         "    stablehlo.return %gt : tensor<i1>\n"
         "  }) : (tensor<128xi32>) -> tensor<128xi32>\n"
         "  %c63 = stablehlo.constant dense<63> : tensor<128xi32>\n"
         "  %down = stablehlo.subtract %c63, %i : tensor<128xi32>\n"
         "  stablehlo.custom_call @check.expect_eq(%u, %down) {has_side_effect = true} : (tensor<128xi32>, "
         "tensor<128xi32>) -> ()\n"
         "  func.return\n}\n");
}

static void test_reduce_window_rows(void **state) {
  (void)state;
  /* NHWC max pooling: the channel dimension is reduced as rows */
  run_ok("func.func @main() {\n"
         "  %i = \"stablehlo.iota\"() <{iota_dimension = 0 : i64}> : () -> tensor<48xf32>\n"
         "  %x = stablehlo.reshape %i : (tensor<48xf32>) -> tensor<1x4x4x3xf32>\n"
         "  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
         "  %p = \"stablehlo.reduce_window\"(%x, %ninf) <{window_dimensions = array<i64: 1, 2, 2, 1>, "
         "window_strides = array<i64: 1, 2, 2, 1>}> ({\n"
         "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
         "    %m = stablehlo.maximum %a, %b : tensor<f32>\n"
         "    stablehlo.return %m : tensor<f32>\n"
         "  }) : (tensor<1x4x4x3xf32>, tensor<f32>) -> tensor<1x2x2x3xf32>\n"
         "  \"check.expect_eq_const\"(%p) {value = dense<[[[[15.0, 16.0, 17.0], [21.0, 22.0, 23.0]], "
         "[[39.0, 40.0, 41.0], [45.0, 46.0, 47.0]]]]> : tensor<1x2x2x3xf32>} : (tensor<1x2x2x3xf32>) -> ()\n"
         /* padded windows go element by element */
         "  %q = \"stablehlo.reduce_window\"(%x, %ninf) <{padding = dense<[[0, 0], [1, 0], [1, 0], [0, 0]]> : "
         "tensor<4x2xi64>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({\n"
         "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
         "    %m = stablehlo.maximum %a, %b : tensor<f32>\n"
         "    stablehlo.return %m : tensor<f32>\n"
         "  }) : (tensor<1x4x4x3xf32>, tensor<f32>) -> tensor<1x2x2x3xf32>\n"
         "  \"check.expect_eq_const\"(%q) {value = dense<[[[[0.0, 1.0, 2.0], [6.0, 7.0, 8.0]], "
         "[[24.0, 25.0, 26.0], [30.0, 31.0, 32.0]]]]> : tensor<1x2x2x3xf32>} : (tensor<1x2x2x3xf32>) -> ()\n"
         "  func.return\n}\n");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dot_in_place),
      cmocka_unit_test(test_conv_gemm),
      cmocka_unit_test(test_conv_winograd),
      cmocka_unit_test(test_sort_keyed),
      cmocka_unit_test(test_reduce_window_rows),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
