/* Legacy (untyped) custom calls, api_version 1, 2 and 3, through MLIR text ->
 * executable -> handler: the out/in pointer conventions (one result vs a
 * result table), the opaque backend_config bytes, the status functions,
 * layouts and aliasing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "cc_harness.h"

/* v1: out = in0 + in1 over 4 i32; in2, when present, is a rank-0 i32 offset. */
static int v1_calls;
static void add_v1(void *out, const void **in) {
  v1_calls++;
  const int32_t *a = in[0], *b = in[1];
  for (int i = 0; i < 4; i++) ((int32_t *)out)[i] = a[i] + b[i];
}

/* v2: out = 2 * in0 (f32 x 3); fails on a negative first element. */
static void twice_v2(void *out, const void **in, XlaCustomCallStatus *status) {
  const float *x = in[0];
  if (x[0] < 0) {
    /* The length counts past the NUL: the message stops at it. */
    XlaCustomCallStatusSetFailure(status, "first element is negative\0garbage", 33);
    return;
  }
  XlaCustomCallStatusSetFailure(status, "transient", 9);
  XlaCustomCallStatusSetSuccess(status);
  for (int i = 0; i < 3; i++) ((float *)out)[i] = 2 * x[i];
}

/* v3: records the opaque bytes; out is a table of two results:
 * out[0] (i64) = opaque length, out[1] (i8 x 2) = first two bytes. */
static char seen_opaque[64];
static size_t seen_len;
static void opaque_v3(void *out, const void **in, const char *opaque, size_t opaque_len, XlaCustomCallStatus *status) {
  (void)in, (void)status;
  seen_len = opaque_len;
  memcpy(seen_opaque, opaque, opaque_len < sizeof seen_opaque ? opaque_len : sizeof seen_opaque);
  void **table = out;
  *(int64_t *)table[0] = (int64_t)opaque_len;
  ((int8_t *)table[1])[0] = opaque_len > 0 ? opaque[0] : 0;
  ((int8_t *)table[1])[1] = opaque_len > 1 ? opaque[1] : 0;
}

/* v3 with no results: counts calls; fails when the opaque says "fail". */
static int effects;
static void effect_v3(void *out, const void **in, const char *opaque, size_t opaque_len, XlaCustomCallStatus *status) {
  (void)out, (void)in;
  effects++;
  if (opaque_len == 4 && memcmp(opaque, "fail", 4) == 0) XlaCustomCallStatusSetFailure(status, "asked to fail", 13);
}

/* v1 in place: requires out == in[0]; negates 2x2 f32 and records the bytes
 * it saw first. */
static int aliased;
static float seen_mat[4];
static void negate_inplace_v1(void *out, const void **in) {
  aliased = out == in[0];
  memcpy(seen_mat, in[0], sizeof seen_mat);
  for (int i = 0; i < 4; i++) ((float *)out)[i] = -((float *)out)[i];
}

static shloc_ffi_registry *reg;

static int setup(void **state) {
  static const cc_target targets[] = {
      {"add", "cpu", .legacy = (shloc_legacy_fn)add_v1},
      {"twice", "cpu", .legacy = (shloc_legacy_fn)twice_v2},
      {"opaque", "cpu", .legacy = (shloc_legacy_fn)opaque_v3},
      {"effect", "cpu", .legacy = (shloc_legacy_fn)effect_v3},
      {"negate", "cpu", .legacy = (shloc_legacy_fn)negate_inplace_v1},
  };
  return cc_setup(state, &reg, targets, sizeof targets / sizeof *targets);
}

static void test_v1_default_version(void **state) {
  (void)state;
  /* No api_version attribute: 1, the original convention. */
  const char *text =
      "func.func @main(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {\n"
      "  %0 = stablehlo.custom_call @add(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>\n"
      "  %1 = stablehlo.custom_call @add(%0, %b) {api_version = 1 : i32} : (tensor<4xi32>, tensor<4xi32>) -> "
      "tensor<4xi32>\n"
      "  return %1 : tensor<4xi32>\n"
      "}\n";
  int32_t a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40};
  void *in[2] = {a, b};
  cc_prog p;
  shloc_tensor res;
  v1_calls = 0;
  cc_build_run(text, reg, in, &res, &p);
  assert_int_equal(v1_calls, 2);
  for (int i = 0; i < 4; i++) assert_int_equal(((int32_t *)res.data)[i], a[i] + 2 * b[i]);
  cc_free_results(&res, 1);
  cc_free(&p);
}

static void test_v2_status(void **state) {
  (void)state;
  const char *text =
      "func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {\n"
      "  %0 = stablehlo.custom_call @twice(%x) {api_version = 2 : i32} : (tensor<3xf32>) -> tensor<3xf32>\n"
      "  return %0 : tensor<3xf32>\n"
      "}\n";
  cc_prog p;
  assert_ok(cc_build(text, reg, &p));
  float x[3] = {1, 2, 3};
  void *in[1] = {x};
  shloc_tensor res;
  assert_ok(cc_run(&p, in, &res));
  for (int i = 0; i < 3; i++) assert_true(((float *)res.data)[i] == 2 * x[i]);
  cc_free_results(&res, 1);
  x[0] = -1;
  shloc_status st = cc_run(&p, in, &res);
  int line;
  assert_non_null(st);
  shloc_status_location(st, NULL, &line, NULL);
  assert_int_equal(line, 2);
  expect_error(st, SHLOC_ERR_RUNTIME, "custom call 'twice': first element is negative");
  cc_free(&p);
}

static void test_v3_opaque_and_result_table(void **state) {
  (void)state;
  const char *text =
      "func.func @main(%x: tensor<2xf32>) -> (tensor<i64>, tensor<2xi8>) {\n"
      "  %0:2 = stablehlo.custom_call @opaque(%x) {api_version = 3 : i32, backend_config = \"k\\22v\\00z\"} : "
      "(tensor<2xf32>) -> (tensor<i64>, tensor<2xi8>)\n"
      "  return %0#0, %0#1 : tensor<i64>, tensor<2xi8>\n"
      "}\n";
  float x[2] = {0, 0};
  void *in[1] = {x};
  cc_prog p;
  shloc_tensor res[2];
  cc_build_run(text, reg, in, res, &p);
  /* Escapes decoded; the embedded NUL is part of the bytes. */
  assert_int_equal(seen_len, 5);
  assert_memory_equal(seen_opaque, "k\"v\0z", 5);
  assert_int_equal(*(int64_t *)res[0].data, 5);
  assert_int_equal(((int8_t *)res[1].data)[0], 'k');
  assert_int_equal(((int8_t *)res[1].data)[1], '"');
  cc_free_results(res, 2);
  cc_free(&p);

  /* No backend_config: an empty opaque. */
  text =
      "func.func @main(%x: tensor<2xf32>) -> (tensor<i64>, tensor<2xi8>) {\n"
      "  %0:2 = stablehlo.custom_call @opaque(%x) {api_version = 3 : i32} : (tensor<2xf32>) -> (tensor<i64>, "
      "tensor<2xi8>)\n"
      "  return %0#0, %0#1 : tensor<i64>, tensor<2xi8>\n"
      "}\n";
  cc_build_run(text, reg, in, res, &p);
  assert_int_equal(seen_len, 0);
  assert_int_equal(*(int64_t *)res[0].data, 0);
  cc_free_results(res, 2);
  cc_free(&p);
}

static void test_v3_no_results_and_failure(void **state) {
  (void)state;
  const char *text =
      "func.func @main() {\n"
      "  stablehlo.custom_call @effect() {api_version = 3 : i32, backend_config = \"ok\", has_side_effect = true} : "
      "() -> ()\n"
      "  stablehlo.custom_call @effect() {api_version = 3 : i32, backend_config = \"fail\", has_side_effect = true} : "
      "() -> ()\n"
      "  stablehlo.custom_call @effect() {api_version = 3 : i32, has_side_effect = true} : () -> ()\n"
      "  return\n"
      "}\n";
  cc_prog p;
  assert_ok(cc_build(text, reg, &p));
  effects = 0;
  shloc_status st = cc_run(&p, NULL, NULL);
  /* Stops at the failing call: the third never runs. */
  assert_int_equal(effects, 2);
  int line;
  assert_non_null(st);
  shloc_status_location(st, NULL, &line, NULL);
  assert_int_equal(line, 3);
  expect_error(st, SHLOC_ERR_RUNTIME, "custom call 'effect': asked to fail");
  cc_free(&p);
}

static void test_alias_and_layout(void **state) {
  (void)state;
  const char *text =
      "func.func @main(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {\n"
      "  %0 = stablehlo.custom_call @negate(%x) {operand_layouts = [dense<[0, 1]> : tensor<2xindex>], "
      "result_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = "
      "[#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>]} "
      ": (tensor<2x2xf32>) -> tensor<2x2xf32>\n"
      "  return %0, %x : tensor<2x2xf32>, tensor<2x2xf32>\n"
      "}\n";
  float x[4] = {1, 2, 3, 4};
  void *in[1] = {x};
  cc_prog p;
  shloc_tensor res[2];
  aliased = 0;
  cc_build_run(text, reg, in, res, &p);
  assert_true(aliased);
  static const float col_major[4] = {1, 3, 2, 4};
  for (int i = 0; i < 4; i++) {
    assert_true(seen_mat[i] == col_major[i]);
    assert_true(((float *)res[0].data)[i] == -x[i]);
    assert_true(((float *)res[1].data)[i] == x[i]);
  }
  cc_free_results(res, 2);
  cc_free(&p);
}

static void test_version_errors(void **state) {
  (void)state;
  cc_prog p;
  const char *text =
      "func.func @main() {\n"
      "  stablehlo.custom_call @effect() {api_version = 0 : i32, has_side_effect = true} : () -> ()\n"
      "  return\n"
      "}\n";
  expect_error(cc_build(text, reg, &p), SHLOC_ERR_UNSUPPORTED, "unsupported api_version 0");
  /* A legacy function named by a typed-FFI op is refused when planned. */
  text =
      "func.func @main() {\n"
      "  stablehlo.custom_call @effect() {mhlo.backend_config = {}, has_side_effect = true} : () -> ()\n"
      "  return\n"
      "}\n";
  expect_error(cc_build(text, reg, &p), SHLOC_ERR_INVALID_ARG, "legacy");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_v1_default_version),
      cmocka_unit_test(test_v2_status),
      cmocka_unit_test(test_v3_opaque_and_result_table),
      cmocka_unit_test(test_v3_no_results_and_failure),
      cmocka_unit_test(test_alias_and_layout),
      cmocka_unit_test(test_version_errors),
  };
  return cmocka_run_group_tests(tests, setup, cc_teardown);
}
