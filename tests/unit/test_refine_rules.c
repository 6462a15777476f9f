/* Shape refinement, per-op rules: result shapes of ops whose operands got
 * concrete shapes, from the spec's shape functions (expected shapes worked
 * out by hand), and errors for operands that contradict each other. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "refine_util.h"

static void refine1(rt_case *rt, const char *text, int32_t rank, int64_t d0, int64_t d1, int64_t d2) {
  rt_arg a = {DT_F32, rank, {d0, d1, d2}, NULL};
  rt_refine(rt, text, 1, &a);
}

static void test_elementwise(void **state) {
  (void)state;
  rt_case rt;
  refine1(&rt,
          "func.func @main(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {\n"
          "  %0 = stablehlo.exponential %a : tensor<?x4xf32>\n"
          "  %1 = stablehlo.add %0, %a : tensor<?x4xf32>\n"
          "  %2 = stablehlo.compare GT, %1, %a : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xi1>\n"
          "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
          "  %3 = stablehlo.clamp %z, %1, %a : (tensor<f32>, tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>\n"
          "  %4 = stablehlo.select %2, %3, %a : tensor<?x4xi1>, tensor<?x4xf32>\n"
          "  return %4 : tensor<?x4xf32>\n}\n",
          2, 7, 4, 0);
  rt_result(&rt, 0, 2, I64(7), I64(4));
  rt_valid(&rt);
  rt_free(&rt);
}

/* Two arguments whose '?' dimensions disagree: named op, dimension, sizes. */
static void test_elementwise_mismatch(void **state) {
  (void)state;
  rt_case rt;
  rt_arg args[2] = {{DT_F32, 2, {3, 4}, NULL}, {DT_F32, 2, {5, 4}, NULL}};
  rt_refine(&rt,
            "func.func @main(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xf32> {\n"
            "  %0 = stablehlo.add %a, %b : tensor<?x4xf32>\n"
            "  return %0 : tensor<?x4xf32>\n}\n",
            2, args);
  rt_fails(&rt, "'stablehlo.add'", "dimension 0", "3", "5", NULL);
  rt_free(&rt);
}

static void test_shape_ops(void **state) {
  (void)state;
  rt_case rt;
  /* a: 6x4; transpose -> 4x6; slice [0:4:2, 1:6] -> 2x5; pad lo 1 hi 2
   * interior 1 on dim 0: 2 + 1 + 2 + 1 = 6, dim 1 unchanged; concatenate with
   * itself on dim 1 -> 6x10; reverse keeps it; reshape to ?x5 -> 12x5 */
  refine1(&rt,
          "func.func @main(%a: tensor<?x4xf32>) -> tensor<?x5xf32> {\n"
          "  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<?x4xf32>) -> tensor<4x?xf32>\n"
          "  %s = stablehlo.slice %t [0:4:2, 1:6] : (tensor<4x?xf32>) -> tensor<2x5xf32>\n"
          "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
          "  %p = stablehlo.pad %s, %z, low = [1, 0], high = [2, 0], interior = [1, 0] : (tensor<2x5xf32>, tensor<f32>) -> tensor<6x5xf32>\n"
          "  %c = stablehlo.concatenate %p, %p, dim = 1 : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x10xf32>\n"
          "  %r = stablehlo.reverse %c, dims = [0] : tensor<6x10xf32>\n"
          "  %q = stablehlo.reshape %r : (tensor<6x10xf32>) -> tensor<?x5xf32>\n"
          "  return %q : tensor<?x5xf32>\n}\n",
          2, 6, 4, 0);
  rt_result(&rt, 0, 2, I64(12), I64(5));
  rt_valid(&rt);
  rt_free(&rt);
}

/* A slice that no longer fits the refined operand is the slice's error. */
static void test_slice_out_of_range(void **state) {
  (void)state;
  rt_case rt;
  refine1(&rt,
          "func.func @main(%a: tensor<?xf32>) -> tensor<4xf32> {\n"
          "  %s = stablehlo.slice %a [0:4] : (tensor<?xf32>) -> tensor<4xf32>\n"
          "  return %s : tensor<4xf32>\n}\n",
          1, 2, 0, 0);
  rt_fails(&rt, "stablehlo.slice", NULL);
  rt_free(&rt);
}

static void test_broadcast_in_dim(void **state) {
  (void)state;
  rt_case rt;
  refine1(&rt,
          "func.func @main(%a: tensor<?xf32>) -> tensor<3x?xf32> {\n"
          "  %b = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<?xf32>) -> tensor<3x?xf32>\n"
          "  return %b : tensor<3x?xf32>\n}\n",
          1, 5, 0, 0);
  rt_result(&rt, 0, 2, I64(3), I64(5));
  rt_free(&rt);
  /* The declared static dimension contradicts the operand's size. */
  refine1(&rt,
          "func.func @main(%a: tensor<?xf32>) -> tensor<3x4xf32> {\n"
          "  %b = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<?xf32>) -> tensor<3x4xf32>\n"
          "  return %b : tensor<3x4xf32>\n}\n",
          1, 5, 0, 0);
  rt_fails(&rt, "stablehlo.broadcast_in_dim", "operand dimension 0 (5)", "result dimension 1 (4)", NULL);
  rt_free(&rt);
}

static void test_reshape_counts(void **state) {
  (void)state;
  rt_case rt;
  refine1(&rt,
          "func.func @main(%a: tensor<?x4xf32>) -> tensor<?x8xf32> {\n"
          "  %b = stablehlo.reshape %a : (tensor<?x4xf32>) -> tensor<?x8xf32>\n"
          "  return %b : tensor<?x8xf32>\n}\n",
          2, 3, 4, 0);
  rt_fails(&rt, "stablehlo.reshape", "12 elements", NULL);
  rt_free(&rt);
}

static void test_bitcast_convert(void **state) {
  (void)state;
  rt_case rt;
  refine1(&rt,
          "func.func @main(%a: tensor<?xf32>) -> tensor<?x4xui8> {\n"
          "  %b = stablehlo.bitcast_convert %a : (tensor<?xf32>) -> tensor<?x4xui8>\n"
          "  return %b : tensor<?x4xui8>\n}\n",
          1, 6, 0, 0);
  rt_result(&rt, 0, 2, I64(6), I64(4));
  rt_free(&rt);
}

/* dot_general, reduce, reduce_window, gather and convolution take their
 * shapes from the verifier's shape functions. */
static void test_linalg_and_reductions(void **state) {
  (void)state;
  rt_case rt;
  refine1(&rt,
          "func.func @main(%a: tensor<?x5x4xf32>) -> (tensor<?x5x5xf32>, tensor<?x4xf32>, tensor<?x2x4xf32>) {\n"
          "  %d = stablehlo.dot_general %a, %a, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<?x5x4xf32>, tensor<?x5x4xf32>) -> tensor<?x5x5xf32>\n"
          "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
          "  %r = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<?x5x4xf32>, tensor<f32>) -> tensor<?x4xf32>\n"
          "  %w = \"stablehlo.reduce_window\"(%a, %z) ({\n"
          "    ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
          "      %m = stablehlo.maximum %x, %y : tensor<f32>\n"
          "      stablehlo.return %m : tensor<f32>\n"
          "  }) {window_dimensions = array<i64: 1, 2, 1>, window_strides = array<i64: 1, 2, 1>} : (tensor<?x5x4xf32>, tensor<f32>) -> tensor<?x2x4xf32>\n"
          "  return %d, %r, %w : tensor<?x5x5xf32>, tensor<?x4xf32>, tensor<?x2x4xf32>\n}\n",
          3, 3, 5, 4);
  rt_result(&rt, 0, 3, I64(3), I64(5), I64(5));
  rt_result(&rt, 1, 2, I64(3), I64(4));
  rt_result(&rt, 2, 3, I64(3), I64(2), I64(4));
  rt_valid(&rt);
  rt_free(&rt);
}

static void test_gather_and_convolution(void **state) {
  (void)state;
  rt_case rt;
  rt_arg args[3] = {{DT_F32, 2, {7, 3}, NULL}, {DT_I32, 2, {5, 1}, NULL}, {DT_F32, 3, {2, 9, 3}, NULL}};
  rt_refine(&rt,
            "func.func @main(%a: tensor<?x3xf32>, %i: tensor<?x1xi32>, %x: tensor<?x?x3xf32>) -> (tensor<?x3xf32>, tensor<?x?x8xf32>) {\n"
            "  %g = \"stablehlo.gather\"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>} : (tensor<?x3xf32>, tensor<?x1xi32>) -> tensor<?x3xf32>\n"
            "  %k = stablehlo.constant dense<1.0> : tensor<3x3x8xf32>\n"
            "  %c = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [2], pad = [[1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x?x3xf32>, tensor<3x3x8xf32>) -> tensor<?x?x8xf32>\n"
            "  return %g, %c : tensor<?x3xf32>, tensor<?x?x8xf32>\n}\n",
            3, args);
  rt_result(&rt, 0, 2, I64(5), I64(3));
  /* (9 + 2 - 3) / 2 + 1 = 5 */
  rt_result(&rt, 1, 3, I64(2), I64(5), I64(8));
  rt_free(&rt);
}

/* Unranked arguments take the input's rank. */
static void test_unranked(void **state) {
  (void)state;
  rt_case rt;
  refine1(&rt,
          "func.func @main(%a: tensor<*xf32>) -> tensor<*xf32> {\n"
          "  %0 = stablehlo.negate %a : tensor<*xf32>\n"
          "  %1 = stablehlo.multiply %0, %a : tensor<*xf32>\n"
          "  return %1 : tensor<*xf32>\n}\n",
          3, 2, 3, 4);
  rt_result(&rt, 0, 3, I64(2), I64(3), I64(4));
  rt_valid(&rt);
  rt_free(&rt);
}

/* The function's declared result must allow the refined one. */
static void test_result_contradicts_signature(void **state) {
  (void)state;
  rt_case rt;
  refine1(&rt,
          "func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {\n"
          "  %b = stablehlo.broadcast_in_dim %a, dims = [0] : (tensor<?xf32>) -> tensor<?xf32>\n"
          "  return %b : tensor<?xf32>\n}\n",
          1, 4, 0, 0);
  rt_result(&rt, 0, 1, I64(4));
  rt_free(&rt);
  rt_arg a = {DT_F32, 2, {4, 2}, NULL};
  rt_refine(&rt, "func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {\n  return %a : tensor<?xf32>\n}\n", 1, &a);
  rt_fails(&rt, "argument #0", "[4, 2]", "[?]", NULL);
  rt_free(&rt);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_elementwise),
      cmocka_unit_test(test_elementwise_mismatch),
      cmocka_unit_test(test_shape_ops),
      cmocka_unit_test(test_slice_out_of_range),
      cmocka_unit_test(test_broadcast_in_dim),
      cmocka_unit_test(test_reshape_counts),
      cmocka_unit_test(test_bitcast_convert),
      cmocka_unit_test(test_linalg_and_reductions),
      cmocka_unit_test(test_gather_and_convolution),
      cmocka_unit_test(test_unranked),
      cmocka_unit_test(test_result_contradicts_signature),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
