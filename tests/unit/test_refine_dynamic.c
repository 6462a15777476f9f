/* Shape refinement, dynamic ops: each becomes its static form once its
 * shape operands are known, with the shape the spec gives; contradictions
 * are errors naming the dynamic op, the dimension and both sizes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "refine_util.h"

/* @main(%n: tensor<i64>, %a: <a_type>) with %n = n and %a of dims a. */
static void refine_n(rt_case *rt, const char *text, int64_t n, int32_t rank, int64_t d0, int64_t d1) {
  rt_arg args[2] = {{DT_I64, 0, {0}, &n}, {DT_F32, rank, {d0, d1}, NULL}};
  rt_refine(rt, text, 2, args);
}

/* Shape vector [n, 4] as %shape : tensor<2xi32>. */
#define SHAPE_N4                                                                      \
  "  %c = stablehlo.convert %n : (tensor<i64>) -> tensor<i32>\n"                      \
  "  %c1 = stablehlo.reshape %c : (tensor<i32>) -> tensor<1xi32>\n"                  \
  "  %four = stablehlo.constant dense<4> : tensor<1xi32>\n"                           \
  "  %shape = stablehlo.concatenate %c1, %four, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>\n"

static const char dbid[] = "func.func @main(%n: tensor<i64>, %a: tensor<?xf32>) -> tensor<?x4xf32> {\n" SHAPE_N4
                           "  %b = stablehlo.dynamic_broadcast_in_dim %a, %shape, dims = [0] : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x4xf32>\n"
                           "  return %b : tensor<?x4xf32>\n}\n";

static void test_dynamic_broadcast_in_dim(void **state) {
  (void)state;
  rt_case rt;
  refine_n(&rt, dbid, 3, 1, 3, 0);
  rt_result(&rt, 0, 2, I64(3), I64(4));
  assert_int_equal(rt_count(&rt, OP_DYNAMIC_BROADCAST_IN_DIM), 0);
  assert_int_equal(rt_count(&rt, OP_BROADCAST_IN_DIM), 1);
  /* the shape computation feeding it is gone */
  assert_int_equal(rt_count(&rt, OP_CONCATENATE), 0);
  rt_valid(&rt);
  rt_free(&rt);
  /* size-1 operand dimensions expand */
  refine_n(&rt, dbid, 6, 1, 1, 0);
  rt_result(&rt, 0, 2, I64(6), I64(4));
  rt_free(&rt);
}

/* JAX's dimension argument says 3 rows, the array has 5. */
static void test_dimension_argument_disagrees(void **state) {
  (void)state;
  rt_case rt;
  refine_n(&rt, dbid, 3, 1, 5, 0);
  rt_fails(&rt, "'stablehlo.dynamic_broadcast_in_dim'", "operand dimension 0 (5)", "result dimension 0 (3)", NULL);
  rt_free(&rt);
  /* The output shape contradicts the declared static dimension. */
  refine_n(&rt,
           "func.func @main(%n: tensor<i64>, %a: tensor<?xf32>) -> tensor<?x5xf32> {\n" SHAPE_N4
           "  %b = stablehlo.dynamic_broadcast_in_dim %a, %shape, dims = [0] : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x5xf32>\n"
           "  return %b : tensor<?x5xf32>\n}\n",
           3, 1, 3, 0);
  rt_fails(&rt, "'stablehlo.dynamic_broadcast_in_dim'", "dimension 1", "4", "5", NULL);
  rt_free(&rt);
}

static void test_dynamic_reshape_and_iota(void **state) {
  (void)state;
  rt_case rt;
  refine_n(&rt,
           "func.func @main(%n: tensor<i64>, %a: tensor<?xf32>) -> (tensor<?x4xf32>, tensor<?x4xi32>) {\n" SHAPE_N4
           "  %r = stablehlo.dynamic_reshape %a, %shape : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x4xf32>\n"
           "  %i = stablehlo.dynamic_iota %shape, dim = 1 : (tensor<2xi32>) -> tensor<?x4xi32>\n"
           "  return %r, %i : tensor<?x4xf32>, tensor<?x4xi32>\n}\n",
           3, 1, 12, 0);
  rt_result(&rt, 0, 2, I64(3), I64(4));
  rt_result(&rt, 1, 2, I64(3), I64(4));
  assert_int_equal(rt_count(&rt, OP_RESHAPE), 1);
  assert_int_equal(rt_count(&rt, OP_IOTA), 1);
  rt_valid(&rt);
  rt_free(&rt);
  /* 10 elements do not make 3x4 */
  refine_n(&rt,
           "func.func @main(%n: tensor<i64>, %a: tensor<?xf32>) -> tensor<?x4xf32> {\n" SHAPE_N4
           "  %r = stablehlo.dynamic_reshape %a, %shape : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x4xf32>\n"
           "  return %r : tensor<?x4xf32>\n}\n",
           3, 1, 10, 0);
  rt_fails(&rt, "'stablehlo.dynamic_reshape'", "10 elements", NULL);
  rt_free(&rt);
}

static void test_real_dynamic_slice(void **state) {
  (void)state;
  rt_case rt;
  /* rows [1, n), columns [0, 4) step 2 */
  static const char text[] =
      "func.func @main(%n: tensor<i64>, %a: tensor<?x4xf32>) -> tensor<?x2xf32> {\n" SHAPE_N4
      "  %lo = stablehlo.constant dense<[1, 0]> : tensor<2xi32>\n"
      "  %st = stablehlo.constant dense<[1, 2]> : tensor<2xi32>\n"
      "  %s = stablehlo.real_dynamic_slice %a, %lo, %shape, %st : (tensor<?x4xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<?x2xf32>\n"
      "  return %s : tensor<?x2xf32>\n}\n";
  refine_n(&rt, text, 5, 2, 5, 4);
  rt_result(&rt, 0, 2, I64(4), I64(2));
  assert_int_equal(rt_count(&rt, OP_SLICE), 1);
  rt_valid(&rt);
  rt_free(&rt);
  /* limit n = 6 is past the 5 rows */
  refine_n(&rt, text, 6, 2, 5, 4);
  rt_fails(&rt, "'stablehlo.real_dynamic_slice'", "dimension 0", "limit 6", "size 5", NULL);
  rt_free(&rt);
}

/* Limits = run-time starts + known sizes: a dynamic_slice (clamped starts). */
static void test_real_dynamic_slice_sizes(void **state) {
  (void)state;
  rt_case rt;
  rt_arg args[2] = {{DT_F32, 2, {6, 4}, NULL}, {DT_I32, 1, {2}, NULL}};
  rt_refine(&rt,
            "func.func @main(%a: tensor<?x4xf32>, %start: tensor<2xi32>) -> tensor<2x3xf32> {\n"
            "  %sz = stablehlo.constant dense<[2, 3]> : tensor<2xi32>\n"
            "  %lim = stablehlo.add %start, %sz : tensor<2xi32>\n"
            "  %one = stablehlo.constant dense<1> : tensor<2xi32>\n"
            "  %s = stablehlo.real_dynamic_slice %a, %start, %lim, %one : (tensor<?x4xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<2x3xf32>\n"
            "  return %s : tensor<2x3xf32>\n}\n",
            2, args);
  rt_result(&rt, 0, 2, I64(2), I64(3));
  assert_int_equal(rt_count(&rt, OP_DYNAMIC_SLICE), 1);
  assert_int_equal(rt_count(&rt, OP_REAL_DYNAMIC_SLICE), 0);
  rt_valid(&rt);
  rt_free(&rt);
}

static void test_dynamic_pad(void **state) {
  (void)state;
  rt_case rt;
  /* low [n, 0], high [1, 4], interior [1, 0]: 3 + 2 + 1 + 2 = 8 rows for
   * 3 rows and n = 2; columns 4 + 4 = 8 */
  refine_n(&rt,
           "func.func @main(%n: tensor<i64>, %a: tensor<?x4xf32>) -> tensor<?x?xf32> {\n"
           "  %c = stablehlo.convert %n : (tensor<i64>) -> tensor<i32>\n"
           "  %c1 = stablehlo.reshape %c : (tensor<i32>) -> tensor<1xi32>\n"
           "  %zero = stablehlo.constant dense<0> : tensor<1xi32>\n"
           "  %lo = stablehlo.concatenate %c1, %zero, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>\n"
           "  %hi = stablehlo.constant dense<[1, 4]> : tensor<2xi32>\n"
           "  %in = stablehlo.constant dense<[1, 0]> : tensor<2xi32>\n"
           "  %pv = stablehlo.constant dense<0.0> : tensor<f32>\n"
           "  %p = stablehlo.dynamic_pad %a, %pv, %lo, %hi, %in : (tensor<?x4xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<?x?xf32>\n"
           "  return %p : tensor<?x?xf32>\n}\n",
           2, 2, 3, 4);
  rt_result(&rt, 0, 2, I64(8), I64(8));
  assert_int_equal(rt_count(&rt, OP_PAD), 1);
  rt_valid(&rt);
  rt_free(&rt);
}

static void test_dynamic_gather_and_conv(void **state) {
  (void)state;
  rt_case rt;
  rt_arg args[3] = {{DT_I64, 0, {0}, (const int64_t[]){3}}, {DT_F32, 2, {7, 3}, NULL}, {DT_F32, 3, {2, 9, 3}, NULL}};
  rt_refine(&rt,
            "func.func @main(%n: tensor<i64>, %a: tensor<?x3xf32>, %x: tensor<?x?x3xf32>) -> (tensor<?x3xf32>, tensor<?x?x8xf32>) {\n"
            "  %idx = stablehlo.constant dense<[1]> : tensor<1xi32>\n"
            "  %c = stablehlo.convert %n : (tensor<i64>) -> tensor<i32>\n"
            "  %c1 = stablehlo.reshape %c : (tensor<i32>) -> tensor<1xi32>\n"
            "  %three = stablehlo.constant dense<3> : tensor<1xi32>\n"
            "  %sizes = stablehlo.concatenate %c1, %three, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>\n"
            "  %g = \"stablehlo.dynamic_gather\"(%a, %idx, %sizes) {dimension_numbers = #stablehlo.gather<offset_dims = [0, 1], start_index_map = [0]>} : (tensor<?x3xf32>, tensor<1xi32>, tensor<2xi32>) -> tensor<?x3xf32>\n"
            "  %k = stablehlo.constant dense<1.0> : tensor<3x3x8xf32>\n"
            "  %pad = stablehlo.constant dense<[[1, 1]]> : tensor<1x2xi32>\n"
            "  %cv = \"stablehlo.dynamic_conv\"(%x, %k, %pad) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = 1 : i64, window_strides = array<i64: 2>} : (tensor<?x?x3xf32>, tensor<3x3x8xf32>, tensor<1x2xi32>) -> tensor<?x?x8xf32>\n"
            "  return %g, %cv : tensor<?x3xf32>, tensor<?x?x8xf32>\n}\n",
            3, args);
  rt_result(&rt, 0, 2, I64(3), I64(3));
  rt_result(&rt, 1, 3, I64(2), I64(5), I64(8));
  assert_int_equal(rt_count(&rt, OP_GATHER), 1);
  assert_int_equal(rt_count(&rt, OP_CONVOLUTION), 1);
  rt_valid(&rt);
  rt_free(&rt);
}

/* dynamic_conv window attributes longer than the spatial rank: one value
 * repeated is that value per spatial dimension (the output size follows
 * stride 2: (9 + 2 - 3) / 2 + 1 = 5); differing values are an error naming
 * the dynamic op and both sizes. */
static void conv_strides(rt_case *rt, const char *strides) {
  char text[2048];
  snprintf(text, sizeof text,
           "func.func @main(%%n: tensor<i64>, %%x: tensor<?x?x3xf32>) -> tensor<?x?x8xf32> {\n"
           "  %%k = stablehlo.constant dense<1.0> : tensor<3x3x8xf32>\n"
           "  %%c = stablehlo.convert %%n : (tensor<i64>) -> tensor<i32>\n"
           "  %%c1 = stablehlo.reshape %%c : (tensor<i32>) -> tensor<1x1xi32>\n"
           "  %%pad = stablehlo.concatenate %%c1, %%c1, dim = 1 : (tensor<1x1xi32>, tensor<1x1xi32>) -> tensor<1x2xi32>\n"
           "  %%cv = \"stablehlo.dynamic_conv\"(%%x, %%k, %%pad) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = 1 : i64, %s} : (tensor<?x?x3xf32>, tensor<3x3x8xf32>, tensor<1x2xi32>) -> tensor<?x?x8xf32>\n"
           "  return %%cv : tensor<?x?x8xf32>\n}\n",
           strides);
  rt_arg args[2] = {{DT_I64, 0, {0}, (const int64_t[]){1}}, {DT_F32, 3, {2, 9, 3}, NULL}};
  rt_refine(rt, text, 2, args);
}

static void test_dynamic_conv_window_splats(void **state) {
  (void)state;
  rt_case rt;
  conv_strides(&rt, "window_strides = array<i64: 2, 2>");
  rt_result(&rt, 0, 3, I64(2), I64(5), I64(8));
  rt_valid(&rt);
  rt_free(&rt);
  conv_strides(&rt, "window_strides = array<i64: 2, 2, 2>, rhs_dilation = array<i64: 1, 1>");
  rt_result(&rt, 0, 3, I64(2), I64(5), I64(8));
  rt_free(&rt);
  /* lhs dilation 2 repeated: (2 * 8 + 1 + 2 - 3) / 1 + 1 = 17 */
  conv_strides(&rt, "lhs_dilation = array<i64: 2, 2>");
  rt_result(&rt, 0, 3, I64(2), I64(17), I64(8));
  rt_free(&rt);
  conv_strides(&rt, "window_strides = array<i64: 2, 3>");
  rt_fails(&rt, "'stablehlo.dynamic_conv'", "window_strides size (2)", "spatial dimensions (1)", NULL);
  rt_free(&rt);
}

/* A shape computed from run-time data cannot be refined. */
static void test_shape_from_data(void **state) {
  (void)state;
  rt_case rt;
  rt_arg args[2] = {{DT_F32, 0, {0}, NULL}, {DT_F32, 1, {3}, NULL}};
  rt_refine(&rt,
            "func.func @main(%f: tensor<f32>, %a: tensor<?xf32>) -> tensor<?xf32> {\n"
            "  %i = stablehlo.convert %f : (tensor<f32>) -> tensor<i32>\n"
            "  %s = stablehlo.reshape %i : (tensor<i32>) -> tensor<1xi32>\n"
            "  %b = stablehlo.dynamic_broadcast_in_dim %a, %s, dims = [0] : (tensor<?xf32>, tensor<1xi32>) -> tensor<?xf32>\n"
            "  return %b : tensor<?xf32>\n}\n",
            2, args);
  rt_fails(&rt, "'stablehlo.dynamic_broadcast_in_dim'", "output_dimensions", "not known", NULL);
  rt_free(&rt);
}

/* Sizes from the inputs are bounded by the context's element limit. */
static void test_element_limit(void **state) {
  (void)state;
  rt_case rt;
  refine_n(&rt,
           "func.func @main(%n: tensor<i64>, %a: tensor<?xf32>) -> tensor<?x4xi32> {\n"
           "  %n1 = stablehlo.reshape %n : (tensor<i64>) -> tensor<1xi64>\n"
           "  %four = stablehlo.constant dense<4> : tensor<1xi64>\n"
           "  %s = stablehlo.concatenate %n1, %four, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>\n"
           "  %i = stablehlo.dynamic_iota %s, dim = 0 : (tensor<2xi64>) -> tensor<?x4xi32>\n"
           "  return %i : tensor<?x4xi32>\n}\n",
           I64(1) << 50, 1, 1, 0);
  rt_fails(&rt, "'stablehlo.dynamic_iota'", "more than the limit", NULL);
  rt_free(&rt);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dynamic_broadcast_in_dim),
      cmocka_unit_test(test_dimension_argument_disagrees),
      cmocka_unit_test(test_dynamic_reshape_and_iota),
      cmocka_unit_test(test_real_dynamic_slice),
      cmocka_unit_test(test_real_dynamic_slice_sizes),
      cmocka_unit_test(test_dynamic_pad),
      cmocka_unit_test(test_dynamic_gather_and_conv),
      cmocka_unit_test(test_dynamic_conv_window_splats),
      cmocka_unit_test(test_shape_from_data),
      cmocka_unit_test(test_element_limit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
