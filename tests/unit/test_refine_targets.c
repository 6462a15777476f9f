/* Shape refinement of JAX's stablehlo.dynamic_* custom calls: results take
 * the shapes their known shape operands give (the spec's top_k,
 * rng_bit_generator and reduce_window shapes, worked out by hand), and those
 * operands become constants for the static cases that run them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "refine_util.h"

/* The refined @main's custom call. */
static const shl_op *the_call(const rt_case *rt) {
  for (const shl_op *op = func_body(rt->r.func)->first; op; op = op->next)
    if (op_is(op, OP_CUSTOM_CALL)) return op;
  fail_msg("no custom call");
  return NULL;
}

static void expect_constant_operands(const shl_op *call, uint32_t from) {
  for (uint32_t i = from; i < call->n_operands; i++) assert_true(op_is(call->operands[i]->def, OP_CONSTANT));
}

static void test_top_k(void **state) {
  (void)state;
  rt_case rt;
  int64_t n = 3;
  rt_arg args[2] = {{DT_I64, 0, {0}, &n}, {DT_F32, 2, {4, 10}, NULL}};
  rt_refine(&rt,
            "func.func @main(%n: tensor<i64>, %x: tensor<?x10xf32>) -> (tensor<?x?xf32>, tensor<?x?xi32>) {\n"
            "  %k = stablehlo.add %n, %n : tensor<i64>\n"
            "  %v:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%x, %k) : (tensor<?x10xf32>, tensor<i64>) -> (tensor<?x?xf32>, tensor<?x?xi32>)\n"
            "  return %v#0, %v#1 : tensor<?x?xf32>, tensor<?x?xi32>\n}\n",
            2, args);
  rt_result(&rt, 0, 2, I64(4), I64(6));
  rt_result(&rt, 1, 2, I64(4), I64(6));
  expect_constant_operands(the_call(&rt), 1);
  rt_free(&rt);
}

static void test_rng_bit_generator(void **state) {
  (void)state;
  rt_case rt;
  int64_t n = 5;
  rt_arg args[2] = {{DT_I64, 0, {0}, &n}, {DT_UI64, 1, {2}, NULL}};
  rt_refine(&rt,
            "func.func @main(%n: tensor<i64>, %s: tensor<2xui64>) -> (tensor<2xui64>, tensor<?x3xui32>) {\n"
            "  %c = stablehlo.convert %n : (tensor<i64>) -> tensor<i32>\n"
            "  %c1 = stablehlo.reshape %c : (tensor<i32>) -> tensor<1xi32>\n"
            "  %three = stablehlo.constant dense<3> : tensor<1xi32>\n"
            "  %sh = stablehlo.concatenate %c1, %three, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>\n"
            "  %r:2 = stablehlo.custom_call @stablehlo.dynamic_rng_bit_generator(%s, %sh) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>, tensor<2xi32>) -> (tensor<2xui64>, tensor<?x3xui32>)\n"
            "  return %r#0, %r#1 : tensor<2xui64>, tensor<?x3xui32>\n}\n",
            2, args);
  rt_result(&rt, 1, 2, I64(5), I64(3));
  expect_constant_operands(the_call(&rt), 1);
  rt_free(&rt);
}

static void test_reduce_window(void **state) {
  (void)state;
  rt_case rt;
  rt_arg a = {DT_F32, 2, {9, 4}, NULL};
  /* rows: (9 - 1) * 1 + 1 + 1 + 1 = 11 padded, window 3 dilated 2 = 5,
   * stride 2: (11 - 5) / 2 + 1 = 4; columns: 4, window 2 stride 1: 3 */
  rt_refine(&rt,
            "func.func @main(%x: tensor<?x4xf32>) -> tensor<?x?xf32> {\n"
            "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
            "  %wd = stablehlo.constant dense<[3, 2]> : tensor<2xi64>\n"
            "  %ws = stablehlo.constant dense<[2, 1]> : tensor<2xi64>\n"
            "  %bd = stablehlo.constant dense<1> : tensor<2xi64>\n"
            "  %wdl = stablehlo.constant dense<[2, 1]> : tensor<2xi64>\n"
            "  %r0 = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>\n"
            "  %one = stablehlo.constant dense<1> : tensor<i32>\n"
            "  %lo = stablehlo.divide %r0, %r0 : tensor<i32>\n"
            "  %p0 = stablehlo.convert %lo : (tensor<i32>) -> tensor<i64>\n"
            "  %p1 = stablehlo.reshape %p0 : (tensor<i64>) -> tensor<1xi64>\n"
            "  %zz = stablehlo.constant dense<0> : tensor<2xi64>\n"
            "  %p2 = stablehlo.concatenate %p1, %p1, %zz, dim = 0 : (tensor<1xi64>, tensor<1xi64>, tensor<2xi64>) -> tensor<4xi64>\n"
            "  %pad = stablehlo.reshape %p2 : (tensor<4xi64>) -> tensor<2x2xi64>\n"
            "  %r = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%x, %z, %wd, %ws, %bd, %wdl, %pad) {called_computations = [@sum]} : (tensor<?x4xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2x2xi64>) -> tensor<?x?xf32>\n"
            "  return %r : tensor<?x?xf32>\n}\n"
            "func.func private @sum(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {\n"
            "  %s = stablehlo.add %a, %b : tensor<f32>\n"
            "  return %s : tensor<f32>\n}\n",
            1, &a);
  rt_result(&rt, 0, 2, I64(4), I64(3));
  expect_constant_operands(the_call(&rt), 2);
  rt_free(&rt);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_top_k),
      cmocka_unit_test(test_rng_bit_generator),
      cmocka_unit_test(test_reduce_window),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
