/* shloc lower --to=linalg (src/passes/lower_linalg.h): ops that cannot be
 * lowered (collectives, tokens, dynamic shapes) are refused with
 * SHLOC_ERR_UNSUPPORTED, a message naming the op and "cannot be lowered to
 * linalg yet", and the op's position; no text is returned.  A covered
 * program gives upstream ops only; ops without a native pattern call
 * shloc_rt_op, and light ops (complex, CHLO, f8, i4, reduce_precision)
 * have one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ir/ir.h"
#include "passes/lower_linalg.h"
#include "shloc/shloc.h"

/* Parses, verifies and lowers; *out gets the text (caller frees) or NULL. */
static shloc_status lower_text(const char *text, char **out) {
  shloc_context *ctx = shloc_context_create();
  assert_non_null(ctx);
  shloc_module *m = NULL;
  shloc_status st = shloc_module_parse(ctx, "case.mlir", text, strlen(text), 1, &m);
  if (!st) st = shloc_module_verify(m);
  if (st) fail_msg("case does not verify: %s", shloc_status_message(st));
  size_t len = 0;
  st = pass_lower_linalg(m, out, &len);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
  return st;
}

static void expect_refused(const char *text, const char *op, int line, int col) {
  char *out = (char *)"unset";
  shloc_status st = lower_text(text, &out);
  assert_non_null(st);
  assert_null(out);
  assert_int_equal(shloc_status_code(st), SHLOC_ERR_UNSUPPORTED);
  const char *msg = shloc_status_message(st);
  if (!strstr(msg, "cannot be lowered to linalg yet")) fail_msg("unexpected message: %s", msg);
  assert_non_null(shloc_status_op(st));
  assert_string_equal(shloc_status_op(st), op);
  const char *file = NULL;
  int l = 0, c = 0;
  shloc_status_location(st, &file, &l, &c);
  assert_int_equal(l, line);
  assert_int_equal(c, col);
  shloc_status_free(st);
}

static void test_unsupported_op(void **state) {
  (void)state;
  /* collectives, the host and tokens are never called out */
  expect_refused("func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                 "  %r = \"stablehlo.all_reduce\"(%x) ({\n"
                 "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
                 "    %s = stablehlo.add %a, %b : tensor<f32>\n"
                 "    stablehlo.return %s : tensor<f32>\n"
                 "  }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4xf32>) -> tensor<4xf32>\n"
                 "  return %r : tensor<4xf32>\n"
                 "}\n",
                 "stablehlo.all_reduce", 2, 3);
  expect_refused("func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                 "  %t = stablehlo.create_token : !stablehlo.token\n"
                 "  return %x : tensor<4xf32>\n"
                 "}\n",
                 "stablehlo.create_token", 2, 3);
}

static void test_unsupported_types(void **state) {
  (void)state;
  /* dynamic shapes must be refined first */
  expect_refused("func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {\n"
                 "  %r = stablehlo.add %x, %x : tensor<?xf32>\n"
                 "  return %r : tensor<?xf32>\n"
                 "}\n",
                 "func.func", 1, 1);
}

/* Ops without a native pattern become shloc_rt_op calls carrying their text. */
static void test_callout(void **state) {
  (void)state;
  char *out = NULL;
  shloc_status st = lower_text("func.func @main(%x: tensor<4xui32>) -> tensor<4xui32> {\n"
                               "  %r = \"stablehlo.sort\"(%x) ({\n"
                               "  ^bb0(%a: tensor<ui32>, %b: tensor<ui32>):\n"
                               "    %c = stablehlo.compare LT, %a, %b, UNSIGNED : (tensor<ui32>, tensor<ui32>) -> tensor<i1>\n"
                               "    stablehlo.return %c : tensor<i1>\n"
                               "  }) {dimension = 0 : i64} : (tensor<4xui32>) -> tensor<4xui32>\n"
                               "  return %r : tensor<4xui32>\n"
                               "}\n",
                               &out);
  if (st) fail_msg("%s", shloc_status_message(st));
  assert_non_null(strstr(out, "func.func @main(%v0: tensor<4xi32>) -> (tensor<4xi32>)"));
  assert_non_null(strstr(out, "func.call @shloc_rt_op("));
  assert_non_null(strstr(out, "func.func private @shloc_rt_op(index, index, i64, index, i64) -> i32"));
  assert_non_null(strstr(out, "memref.global \"private\" @__shloc_op_cache_0 : memref<1xi64> = dense<0>"));
  free(out);
}

static void test_covered_program(void **state) {
  (void)state;
  char *out = NULL;
  /* f64 tanh is math.tanh (f32 is the interpreter's rational approximation) */
  shloc_status st = lower_text("func.func @main(%x: tensor<4xf64>) -> tensor<4xf64> {\n"
                               "  %r = stablehlo.tanh %x : tensor<4xf64>\n"
                               "  return %r : tensor<4xf64>\n"
                               "}\n",
                               &out);
  if (st) fail_msg("%s", shloc_status_message(st));
  assert_non_null(strstr(out, "math.tanh"));
  assert_non_null(strstr(out, "linalg.generic"));
  assert_null(strstr(out, "stablehlo"));
  free(out);
}


/* Light ops on complex, narrow float and sub-byte integer elements, CHLO ops
 * and reduce_precision compile natively: no shloc_rt_op call-out (issue #17). */
static void expect_native(const char *text, const char *must_have) {
  char *out = NULL;
  shloc_status st = lower_text(text, &out);
  if (st) fail_msg("%s", shloc_status_message(st));
  if (strstr(out, "shloc_rt_op")) fail_msg("called out:\n%s", out);
  if (!strstr(out, must_have)) fail_msg("no %s in:\n%s", must_have, out);
  free(out);
}

static void test_light_ops_native(void **state) {
  (void)state;
  /* complex: parts through complex.re/im/create, glibc's functions for exp and division */
  expect_native("func.func @main(%x: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {\n"
                "  %e = stablehlo.exponential %x : tensor<4xcomplex<f32>>\n"
                "  %d = stablehlo.divide %e, %x : tensor<4xcomplex<f32>>\n"
                "  %m = stablehlo.multiply %d, %x : tensor<4xcomplex<f32>>\n"
                "  return %m : tensor<4xcomplex<f32>>\n"
                "}\n",
                "func.call @cexp(");
  expect_native("func.func @main(%x: tensor<4xcomplex<f64>>) -> tensor<4xf64> {\n"
                "  %a = stablehlo.abs %x : (tensor<4xcomplex<f64>>) -> tensor<4xf64>\n"
                "  return %a : tensor<4xf64>\n"
                "}\n",
                "func.call @hypot(");
  expect_native("func.func @main(%x: tensor<2x3xcomplex<f64>>, %y: tensor<3x2xcomplex<f64>>) -> tensor<2x2xcomplex<f64>> {\n"
                "  %p = stablehlo.dot_general %x, %y, contracting_dims = [1] x [0] : (tensor<2x3xcomplex<f64>>, "
                "tensor<3x2xcomplex<f64>>) -> tensor<2x2xcomplex<f64>>\n"
                "  return %p : tensor<2x2xcomplex<f64>>\n"
                "}\n",
                "complex.create");
  /* CHLO: its StableHLO decomposition */
  expect_native("func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                "  %r = chlo.lgamma %x : tensor<4xf32> -> tensor<4xf32>\n"
                "  return %r : tensor<4xf32>\n"
                "}\n",
                "math.log");
  /* f8: decoded to f64, rounded back with integer code */
  expect_native("func.func @main(%x: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {\n"
                "  %r = stablehlo.add %x, %x : tensor<4xf8E4M3FN>\n"
                "  return %r : tensor<4xf8E4M3FN>\n"
                "}\n",
                "math.roundeven");
  /* i4: computed in i8, wrapped */
  expect_native("func.func @main(%x: tensor<4xi4>) -> tensor<4xi4> {\n"
                "  %r = stablehlo.multiply %x, %x : tensor<4xi4>\n"
                "  return %r : tensor<4xi4>\n"
                "}\n",
                "arith.shrsi");
  expect_native("func.func @main(%x: tensor<4xbf16>) -> tensor<4xbf16> {\n"
                "  %r = stablehlo.reduce_precision %x, format = e5m2 : tensor<4xbf16>\n"
                "  return %r : tensor<4xbf16>\n"
                "}\n",
                "arith.bitcast");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_unsupported_op),
      cmocka_unit_test(test_unsupported_types),
      cmocka_unit_test(test_covered_program),
      cmocka_unit_test(test_callout),
      cmocka_unit_test(test_light_ops_native),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
