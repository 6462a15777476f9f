/* Shape refinement, folding: integer dimension arithmetic on a dimension
 * argument %n (JAX's older convention) decides the size of a dynamic_iota.
 * Expected sizes follow the spec's integer semantics, worked out by hand
 * (division truncates toward zero, converts wrap to the target width). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "refine_util.h"

/* @main(%n: tensor<i64>, %x: tensor<?x3xf32>): `body` computes %s :
 * tensor<i64>, the length of the returned iota. */
static void fold_case(const char *body, int64_t n, int64_t x_rows, rt_case *rt) {
  static char text[4096];
  snprintf(text, sizeof text,
           "func.func @main(%%n: tensor<i64>, %%x: tensor<?x3xf32>) -> tensor<?xi32> {\n%s"
           "  %%c = stablehlo.convert %%s : (tensor<i64>) -> tensor<i32>\n"
           "  %%r1 = stablehlo.reshape %%c : (tensor<i32>) -> tensor<1xi32>\n"
           "  %%io = stablehlo.dynamic_iota %%r1, dim = 0 : (tensor<1xi32>) -> tensor<?xi32>\n"
           "  return %%io : tensor<?xi32>\n}\n",
           body);
  rt_arg args[2] = {{DT_I64, 0, {0}, &n}, {DT_F32, 2, {x_rows, 3}, NULL}};
  rt_refine(rt, text, 2, args);
}

static void expect_len(const char *body, int64_t n, int64_t want) {
  rt_case rt;
  fold_case(body, n, 4, &rt);
  rt_result(&rt, 0, 1, want);
  rt_valid(&rt);
  assert_int_equal(rt_count(&rt, OP_DYNAMIC_IOTA), 0);
  rt_free(&rt);
}

static void test_arithmetic(void **state) {
  (void)state;
  /* ((n + 3) * 2) - 1 with n = 5 */
  expect_len("  %three = stablehlo.constant dense<3> : tensor<i64>\n"
             "  %two = stablehlo.constant dense<2> : tensor<i64>\n"
             "  %one = stablehlo.constant dense<1> : tensor<i64>\n"
             "  %a = stablehlo.add %n, %three : tensor<i64>\n"
             "  %b = stablehlo.multiply %a, %two : tensor<i64>\n"
             "  %s = stablehlo.subtract %b, %one : tensor<i64>\n",
             5, 15);
}

static void test_division_truncates(void **state) {
  (void)state;
  /* -n / 2 + 10 = -3 + 10 (n = 7), and -n % 2 + 4 = -1 + 4 */
  const char *div = "  %two = stablehlo.constant dense<2> : tensor<i64>\n"
                    "  %ten = stablehlo.constant dense<10> : tensor<i64>\n"
                    "  %m = stablehlo.negate %n : tensor<i64>\n"
                    "  %q = stablehlo.divide %m, %two : tensor<i64>\n"
                    "  %s = stablehlo.add %q, %ten : tensor<i64>\n";
  expect_len(div, 7, 7);
  const char *rem = "  %two = stablehlo.constant dense<2> : tensor<i64>\n"
                    "  %four = stablehlo.constant dense<4> : tensor<i64>\n"
                    "  %m = stablehlo.negate %n : tensor<i64>\n"
                    "  %q = stablehlo.remainder %m, %two : tensor<i64>\n"
                    "  %s = stablehlo.add %q, %four : tensor<i64>\n";
  expect_len(rem, 7, 3);
}

static void test_min_max_clamp(void **state) {
  (void)state;
  /* clamp(0, n - 10, 100) = 0 for n = 5; max(min(n, 3), 2) = 3 */
  expect_len("  %z = stablehlo.constant dense<0> : tensor<i64>\n"
             "  %ten = stablehlo.constant dense<10> : tensor<i64>\n"
             "  %h = stablehlo.constant dense<100> : tensor<i64>\n"
             "  %d = stablehlo.subtract %n, %ten : tensor<i64>\n"
             "  %s = stablehlo.clamp %z, %d, %h : tensor<i64>\n",
             5, 0);
  expect_len("  %three = stablehlo.constant dense<3> : tensor<i64>\n"
             "  %two = stablehlo.constant dense<2> : tensor<i64>\n"
             "  %a = stablehlo.minimum %n, %three : tensor<i64>\n"
             "  %s = stablehlo.maximum %a, %two : tensor<i64>\n",
             5, 3);
}

static void test_compare_select(void **state) {
  (void)state;
  /* n < 3 ? 1 : 2n, as JAX writes max/min of symbolic dimensions */
  const char *body = "  %three = stablehlo.constant dense<3> : tensor<i64>\n"
                     "  %one = stablehlo.constant dense<1> : tensor<i64>\n"
                     "  %two = stablehlo.constant dense<2> : tensor<i64>\n"
                     "  %p = stablehlo.compare LT, %n, %three, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
                     "  %d = stablehlo.multiply %n, %two : tensor<i64>\n"
                     "  %s = stablehlo.select %p, %one, %d : tensor<i1>, tensor<i64>\n";
  expect_len(body, 5, 10);
  expect_len(body, 2, 1);
}

static void test_convert_wraps(void **state) {
  (void)state;
  /* 300 as i8 is 44; -1 as ui8 is 255 (then widened: 255) */
  expect_len("  %a = stablehlo.convert %n : (tensor<i64>) -> tensor<i8>\n"
             "  %s = stablehlo.convert %a : (tensor<i8>) -> tensor<i64>\n",
             300, 44);
  expect_len("  %six = stablehlo.constant dense<6> : tensor<i64>\n"
             "  %d = stablehlo.subtract %n, %six : tensor<i64>\n"
             "  %a = stablehlo.convert %d : (tensor<i64>) -> tensor<ui8>\n"
             "  %s = stablehlo.convert %a : (tensor<ui8>) -> tensor<i64>\n",
             5, 255);
}

static void test_bitwise_and_unary(void **state) {
  (void)state;
  /* (n & 6) + (n | 8) + (n ^ 1) + abs(-n) + sign(-n) + (-(~n)) for n = 5:
   * 4 + 13 + 4 + 5 - 1 + 6 = 31 */
  expect_len("  %six = stablehlo.constant dense<6> : tensor<i64>\n"
             "  %eight = stablehlo.constant dense<8> : tensor<i64>\n"
             "  %one = stablehlo.constant dense<1> : tensor<i64>\n"
             "  %a = stablehlo.and %n, %six : tensor<i64>\n"
             "  %b = stablehlo.or %n, %eight : tensor<i64>\n"
             "  %c0 = stablehlo.xor %n, %one : tensor<i64>\n"
             "  %m = stablehlo.negate %n : tensor<i64>\n"
             "  %d = stablehlo.abs %m : tensor<i64>\n"
             "  %e = stablehlo.sign %m : tensor<i64>\n"
             "  %f0 = stablehlo.not %n : tensor<i64>\n"
             "  %f = stablehlo.negate %f0 : tensor<i64>\n"
             "  %s1 = stablehlo.add %a, %b : tensor<i64>\n"
             "  %s2 = stablehlo.add %s1, %c0 : tensor<i64>\n"
             "  %s3 = stablehlo.add %s2, %d : tensor<i64>\n"
             "  %s4 = stablehlo.add %s3, %e : tensor<i64>\n"
             "  %s = stablehlo.add %s4, %f : tensor<i64>\n",
             5, 31);
}

static void test_dimension_size_and_layout(void **state) {
  (void)state;
  /* rows of %x (4) and 3 as a shape vector [4, 3], transposed by a reverse
   * via concatenate and slices: element 1 of concat([slice 1], [slice 0]) = 4,
   * broadcast to two elements and summed through reshape: 4 * 3 = 12 */
  expect_len("  %r = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>\n"
             "  %c3 = stablehlo.get_dimension_size %x, dim = 1 : (tensor<?x3xf32>) -> tensor<i32>\n"
             "  %ra = stablehlo.reshape %r : (tensor<i32>) -> tensor<1xi32>\n"
             "  %c1 = stablehlo.reshape %c3 : (tensor<i32>) -> tensor<1xi32>\n"
             "  %v = stablehlo.concatenate %ra, %c1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>\n"
             "  %a = stablehlo.slice %v [1:2] : (tensor<2xi32>) -> tensor<1xi32>\n"
             "  %b = stablehlo.slice %v [0:1] : (tensor<2xi32>) -> tensor<1xi32>\n"
             "  %w = stablehlo.concatenate %a, %b, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>\n"
             "  %w1 = stablehlo.slice %w [1:2] : (tensor<2xi32>) -> tensor<1xi32>\n"
             "  %w0 = stablehlo.reshape %w1 : (tensor<1xi32>) -> tensor<i32>\n"
             "  %bb = stablehlo.broadcast_in_dim %w0, dims = [] : (tensor<i32>) -> tensor<2x1xi32>\n"
             "  %t = stablehlo.transpose %bb, dims = [1, 0] : (tensor<2x1xi32>) -> tensor<1x2xi32>\n"
             "  %t0 = stablehlo.slice %t [0:1, 0:1] : (tensor<1x2xi32>) -> tensor<1x1xi32>\n"
             "  %t1 = stablehlo.reshape %t0 : (tensor<1x1xi32>) -> tensor<i32>\n"
             "  %p = stablehlo.multiply %t1, %c3 : tensor<i32>\n"
             "  %s = stablehlo.convert %p : (tensor<i32>) -> tensor<i64>\n",
             0, 12);
}

static void test_division_by_zero_is_unknown(void **state) {
  (void)state;
  rt_case rt;
  fold_case("  %z = stablehlo.constant dense<0> : tensor<i64>\n"
            "  %s = stablehlo.divide %n, %z : tensor<i64>\n",
            5, 4, &rt);
  rt_fails(&rt, "stablehlo.dynamic_iota", "output_shape", "not known", NULL);
  rt_free(&rt);
}

/* The refinement records which arguments' values decided a shape. */
static void test_value_arguments(void **state) {
  (void)state;
  rt_case rt;
  fold_case("  %s = stablehlo.add %n, %n : tensor<i64>\n", 3, 4, &rt);
  rt_result(&rt, 0, 1, I64(6));
  assert_int_equal(rt.r.value_args, 1u); /* %n */
  rt_free(&rt);
  fold_case("  %r = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>\n"
            "  %s = stablehlo.convert %r : (tensor<i32>) -> tensor<i64>\n",
            3, 9, &rt);
  rt_result(&rt, 0, 1, I64(9));
  assert_int_equal(rt.r.value_args, 0u); /* only a shape */
  rt_free(&rt);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_arithmetic),
      cmocka_unit_test(test_division_truncates),
      cmocka_unit_test(test_min_max_clamp),
      cmocka_unit_test(test_compare_select),
      cmocka_unit_test(test_convert_wraps),
      cmocka_unit_test(test_bitwise_and_unary),
      cmocka_unit_test(test_dimension_size_and_layout),
      cmocka_unit_test(test_division_by_zero_is_unknown),
      cmocka_unit_test(test_value_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
