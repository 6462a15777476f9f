/* JAX's stablehlo.dynamic_* custom calls in their static-shape case give
 * what the static op computes: each module runs both and compares them
 * exactly with check.expect_eq; bad operands give errors naming the target. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "harness.h"

static void test_top_k(void **state) {
  (void)state;
  run_ok("func.func @main() {\n"
         "  %x = stablehlo.constant dense<[[3.0, 1.0, 4.0, 1.0, 5.0], [9.0, 2.0, 6.0, 5.0, 3.0]]> : tensor<2x5xf32>\n"
         "  %k = stablehlo.constant dense<3> : tensor<i32>\n"
         "  %v, %i = chlo.top_k(%x, k = 3) : tensor<2x5xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)\n"
         "  %0:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%x, %k) {api_version = 2 : i32} : "
         "(tensor<2x5xf32>, tensor<i32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)\n"
         "  stablehlo.custom_call @check.expect_eq(%0#0, %v) : (tensor<2x3xf32>, tensor<2x3xf32>) -> ()\n"
         "  stablehlo.custom_call @check.expect_eq(%0#1, %i) : (tensor<2x3xi32>, tensor<2x3xi32>) -> ()\n"
         "  return\n}\n");
}

static void test_rng_bit_generator(void **state) {
  (void)state;
  run_ok("func.func @main() {\n"
         "  %s = stablehlo.constant dense<[7, 8, 9]> : tensor<3xui64>\n"
         "  %shape = stablehlo.constant dense<[3, 5]> : tensor<2xi64>\n"
         "  %a:2 = \"stablehlo.rng_bit_generator\"(%s) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : "
         "(tensor<3xui64>) -> (tensor<3xui64>, tensor<3x5xui32>)\n"
         "  %b:2 = stablehlo.custom_call @stablehlo.dynamic_rng_bit_generator(%s, %shape) "
         "{rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<3xui64>, tensor<2xi64>) -> (tensor<3xui64>, tensor<3x5xui32>)\n"
         "  stablehlo.custom_call @check.expect_eq(%b#0, %a#0) : (tensor<3xui64>, tensor<3xui64>) -> ()\n"
         "  stablehlo.custom_call @check.expect_eq(%b#1, %a#1) : (tensor<3x5xui32>, tensor<3x5xui32>) -> ()\n"
         "  %c:2 = \"stablehlo.rng_bit_generator\"(%s) {rng_algorithm = #stablehlo<rng_algorithm DEFAULT>} : "
         "(tensor<3xui64>) -> (tensor<3xui64>, tensor<3x5xf32>)\n"
         "  %d:2 = stablehlo.custom_call @stablehlo.dynamic_rng_bit_generator(%s, %shape) "
         "{rng_algorithm = #stablehlo<rng_algorithm DEFAULT>} : (tensor<3xui64>, tensor<2xi64>) -> (tensor<3xui64>, tensor<3x5xf32>)\n"
         "  %cb = stablehlo.bitcast_convert %c#1 : (tensor<3x5xf32>) -> tensor<3x5xui32>\n"
         "  %db = stablehlo.bitcast_convert %d#1 : (tensor<3x5xf32>) -> tensor<3x5xui32>\n"
         "  stablehlo.custom_call @check.expect_eq(%db, %cb) : (tensor<3x5xui32>, tensor<3x5xui32>) -> ()\n"
         "  return\n}\n");
}

static const char rw_module[] =
    "func.func @main() {\n"
    "  %x = stablehlo.iota dim = 1 : tensor<3x6xf32>\n"
    "  %y = stablehlo.iota dim = 0 : tensor<3x6xi32>\n"
    "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
    "  %zi = stablehlo.constant dense<0> : tensor<i32>\n"
    "  %a:2 = \"stablehlo.reduce_window\"(%x, %y, %z, %zi) ({\n"
    "  ^bb0(%p: tensor<f32>, %q: tensor<i32>, %r: tensor<f32>, %s: tensor<i32>):\n"
    "    %m = stablehlo.maximum %p, %r : tensor<f32>\n"
    "    %n = stablehlo.add %q, %s : tensor<i32>\n"
    "    stablehlo.return %m, %n : tensor<f32>, tensor<i32>\n"
    "  }) {window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 1, 2>, base_dilations = array<i64: 1, 1>,"
    " window_dilations = array<i64: 1, 1>, padding = dense<[[1, 0], [0, 1]]> : tensor<2x2xi64>} : "
    "(tensor<3x6xf32>, tensor<3x6xi32>, tensor<f32>, tensor<i32>) -> (tensor<3x3xf32>, tensor<3x3xi32>)\n"
    "  %wd = stablehlo.constant dense<[2, 3]> : tensor<2xi64>\n"
    "  %ws = stablehlo.constant dense<[1, 2]> : tensor<2xi64>\n"
    "  %bd = stablehlo.constant dense<1> : tensor<2xi64>\n"
    "  %wl = stablehlo.constant dense<1> : tensor<2xi64>\n"
    "  %pd = stablehlo.constant dense<[[1, 0], [0, 1]]> : tensor<2x2xi64>\n"
    "  %b:2 = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%x, %y, %z, %zi, %wd, %ws, %bd, %wl, %pd) "
    "{called_computations = [@body]} : (tensor<3x6xf32>, tensor<3x6xi32>, tensor<f32>, tensor<i32>, tensor<2xi64>, "
    "tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2x2xi64>) -> (tensor<3x3xf32>, tensor<3x3xi32>)\n"
    "  stablehlo.custom_call @check.expect_eq(%b#0, %a#0) : (tensor<3x3xf32>, tensor<3x3xf32>) -> ()\n"
    "  stablehlo.custom_call @check.expect_eq(%b#1, %a#1) : (tensor<3x3xi32>, tensor<3x3xi32>) -> ()\n"
    "  return\n}\n"
    "func.func private @body(%p: tensor<f32>, %q: tensor<i32>, %r: tensor<f32>, %s: tensor<i32>) -> (tensor<f32>, tensor<i32>) {\n"
    "  %m = stablehlo.maximum %p, %r : tensor<f32>\n"
    "  %n = stablehlo.add %q, %s : tensor<i32>\n"
    "  return %m, %n : tensor<f32>, tensor<i32>\n}\n";

static void test_reduce_window(void **state) {
  (void)state;
  run_ok(rw_module);
}

/* approx_top_k: max-k of x with iota indices (JAX's form), against sort + slice. */
static void test_approx_top_k(void **state) {
  (void)state;
  run_ok("func.func @main() {\n"
         "  %x = stablehlo.constant dense<[[0.5, 2.0, -1.0, 7.0, 3.0, 3.5], [1.0, 0.0, 8.0, -2.0, 4.0, 9.0]]> : tensor<2x6xf32>\n"
         "  %i = stablehlo.iota dim = 1 : tensor<2x6xi32>\n"
         "  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
         "  %m1 = stablehlo.constant dense<-1> : tensor<i32>\n"
         "  %k = stablehlo.constant dense<3> : tensor<i32>\n"
         "  %0:2 = stablehlo.custom_call @stablehlo.dynamic_approx_top_k(%x, %i, %ninf, %m1, %k) "
         "{called_computations = [@top_k_gt], mhlo.backend_config = {aggregate_to_topk = true, is_fallback = true, "
         "recall_target = 0.95 : f32, reduction_dim = 1 : i64, reduction_input_size_override = -1 : i64}} : "
         "(tensor<2x6xf32>, tensor<2x6xi32>, tensor<f32>, tensor<i32>, tensor<i32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)\n"
         "  %s:2 = \"stablehlo.sort\"(%x, %i) ({\n"
         "  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):\n"
         "    %g = stablehlo.compare GT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
         "    stablehlo.return %g : tensor<i1>\n"
         "  }) {dimension = 1 : i64, is_stable = true} : (tensor<2x6xf32>, tensor<2x6xi32>) -> (tensor<2x6xf32>, tensor<2x6xi32>)\n"
         "  %sv = stablehlo.slice %s#0 [0:2, 0:3] : (tensor<2x6xf32>) -> tensor<2x3xf32>\n"
         "  %si = stablehlo.slice %s#1 [0:2, 0:3] : (tensor<2x6xi32>) -> tensor<2x3xi32>\n"
         "  stablehlo.custom_call @check.expect_eq(%0#0, %sv) : (tensor<2x3xf32>, tensor<2x3xf32>) -> ()\n"
         "  stablehlo.custom_call @check.expect_eq(%0#1, %si) : (tensor<2x3xi32>, tensor<2x3xi32>) -> ()\n"
         "  %want_i = stablehlo.constant dense<[[3, 5, 4], [5, 2, 4]]> : tensor<2x3xi32>\n"
         "  stablehlo.custom_call @check.expect_eq(%0#1, %want_i) : (tensor<2x3xi32>, tensor<2x3xi32>) -> ()\n"
         "  return\n}\n"
         "func.func private @top_k_gt(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>) -> tensor<i1> {\n"
         "  %g = stablehlo.compare GT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
         "  return %g : tensor<i1>\n}\n");
}

static void expect_error(const char *text, const char *want) {
  shloc_context *c = shloc_context_create();
  shloc_status st = run_main(c, text, 1, NULL, NULL);
  if (!st) fail_msg("accepted; expected an error containing '%s'", want);
  if (!strstr(shloc_status_message(st), want)) fail_msg("error '%s' lacks '%s'", shloc_status_message(st), want);
  shloc_status_free(st);
  shloc_context_destroy(c);
}

static void test_bad_operands(void **state) {
  (void)state;
  /* k operand disagreeing with the result type */
  expect_error("func.func @main() {\n"
               "  %x = stablehlo.constant dense<[3.0, 1.0, 4.0]> : tensor<3xf32>\n"
               "  %k = stablehlo.constant dense<1> : tensor<i64>\n"
               "  %0:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%x, %k) : (tensor<3xf32>, tensor<i64>) -> "
               "(tensor<2xf32>, tensor<2xi32>)\n"
               "  return\n}\n",
               "k (operand #1) value #0 is 1, but the result type says 2");
  /* k of the wrong rank */
  expect_error("func.func @main() {\n"
               "  %x = stablehlo.constant dense<[3.0, 1.0, 4.0]> : tensor<3xf32>\n"
               "  %k = stablehlo.constant dense<2> : tensor<1xi64>\n"
               "  %0:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%x, %k) : (tensor<3xf32>, tensor<1xi64>) -> "
               "(tensor<2xf32>, tensor<2xi32>)\n"
               "  return\n}\n",
               "target 'stablehlo.dynamic_top_k': expects k (operand #1) to be a 0-dimensional integer tensor");
  /* output shape operand disagreeing with the result */
  expect_error("func.func @main() {\n"
               "  %s = stablehlo.constant dense<[7, 8]> : tensor<2xui64>\n"
               "  %shape = stablehlo.constant dense<[4]> : tensor<1xi32>\n"
               "  %0:2 = stablehlo.custom_call @stablehlo.dynamic_rng_bit_generator(%s, %shape) "
               "{rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>, tensor<1xi32>) -> (tensor<2xui64>, tensor<5xui32>)\n"
               "  return\n}\n",
               "output_shape (operand #1) value #0 is 4, but the result type says 5");
  expect_error("func.func @main() {\n"
               "  %s = stablehlo.constant dense<[7, 8]> : tensor<2xui64>\n"
               "  %shape = stablehlo.constant dense<[5]> : tensor<1xi32>\n"
               "  %0:2 = stablehlo.custom_call @stablehlo.dynamic_rng_bit_generator(%s, %shape) : "
               "(tensor<2xui64>, tensor<1xi32>) -> (tensor<2xui64>, tensor<5xui32>)\n"
               "  return\n}\n",
               "expects a #stablehlo<rng_algorithm ...> rng_algorithm");
  /* window parameters that are not constants */
  expect_error("func.func @main(%w: tensor<1xi64>) -> tensor<2xf32> {\n"
               "  %x = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>\n"
               "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
               "  %one = stablehlo.constant dense<1> : tensor<1xi64>\n"
               "  %pd = stablehlo.constant dense<0> : tensor<1x2xi64>\n"
               "  %0 = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%x, %z, %w, %one, %one, %one, %pd) "
               "{called_computations = [@add]} : (tensor<3xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, "
               "tensor<1xi64>, tensor<1x2xi64>) -> tensor<2xf32>\n"
               "  return %0 : tensor<2xf32>\n}\n"
               "func.func private @add(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {\n"
               "  %s = stablehlo.add %a, %b : tensor<f32>\n  return %s : tensor<f32>\n}\n",
               "window_dimensions (operand #2) must be a constant");
  /* a missing reducer */
  expect_error("func.func @main() -> tensor<2xf32> {\n"
               "  %x = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>\n"
               "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
               "  %two = stablehlo.constant dense<2> : tensor<1xi64>\n"
               "  %one = stablehlo.constant dense<1> : tensor<1xi64>\n"
               "  %pd = stablehlo.constant dense<0> : tensor<1x2xi64>\n"
               "  %0 = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%x, %z, %two, %one, %one, %one, %pd) "
               "{called_computations = [@nowhere]} : (tensor<3xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, "
               "tensor<1xi64>, tensor<1x2xi64>) -> tensor<2xf32>\n"
               "  return %0 : tensor<2xf32>\n}\n",
               "called computation @nowhere is not a function of this module");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_top_k),
      cmocka_unit_test(test_rng_bit_generator),
      cmocka_unit_test(test_reduce_window),
      cmocka_unit_test(test_approx_top_k),
      cmocka_unit_test(test_bad_operands),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
