/* Writing portable artifacts (shloc_module_serialize).  Expected values do
 * not come from the writer: the smallest artifact is compared with bytes
 * derived by hand from mlir/docs/BytecodeFormat.md, and every other module
 * must read back (bytecode reader + text printer) as the module it was
 * written from, for the current version, the oldest version its ops allow
 * and 0.9.0 where that is possible.  Refusals name the op, its position and
 * the first version that has what the module uses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "shloc/artifact.h"
#include "shloc/shloc.h"
#include "ok.h"
#include "print_ok.h"

static shloc_module *parse(shloc_context *ctx, const char *text) {
  shloc_module *m = NULL;
  OK(shloc_module_parse(ctx, "t.mlir", text, strlen(text), 1, &m));
  OK(shloc_module_verify(m));
  return m;
}

/* `module {}` at 1.20.0: header, then sections in MLIR's writing order
 * (dialects, attribute offsets, attributes, IR, resource offsets,
 * resources, strings, properties).  Varints are (v << 1) | 1 in one byte. */
static void test_empty_module_bytes(void **state) {
  (void)state;
  static const uint8_t want[] = {
      'M', 'L', 0xEF, 'R', 0x0D, /* bytecode version 6 */
      'S', 't', 'a', 'b', 'l', 'e', 'H', 'L', 'O', '_', 'v', '1', '.', '2', '0', '.', '0', 0,
      /* dialects: 1 (builtin, string 0, no version); 1 op name: dialect 0,
       * count 1, "module" = string 1, registered */
      0x01, 0x0D, 0x03, 0x01, 0x03, 0x01, 0x03, 0x07,
      /* attribute offsets: 1 attribute, 0 types; builtin group of 1; 1 byte, custom */
      0x03, 0x0B, 0x03, 0x01, 0x01, 0x03, 0x07,
      /* attributes: UnknownLoc (builtin code 15) */
      0x02, 0x03, 0x1F,
      /* IR: a block of 1 op; builtin.module, mask properties|regions, loc
       * 0, properties 0, 1 isolated region in its own section: 1 block, 0
       * values, 0 ops */
      0x04, 0x17, 0x05, 0x01, 0x50, 0x01, 0x01, 0x07, 0x04, 0x07, 0x03, 0x01, 0x01,
      /* resources: no external groups; no data */
      0x06, 0x03, 0x01, 0x05, 0x01,
      /* strings: 2; sizes last first (7, 8); "builtin", "module" */
      0x00, 0x25, 0x05, 0x0F, 0x11, 'b', 'u', 'i', 'l', 't', 'i', 'n', 0, 'm', 'o', 'd', 'u', 'l', 'e', 0,
      /* properties: 1 entry of 2 bytes: sym_name and sym_visibility absent */
      0x08, 0x09, 0x03, 0x05, 0x01, 0x01};
  shloc_context *ctx = shloc_context_create();
  shloc_module *m = parse(ctx, "module {\n}\n");
  void *bytes = NULL;
  size_t len = 0;
  OK(shloc_module_serialize(m, "1.20.0", SHLOC_SERIALIZE_STRIP_DEBUGINFO, &bytes, &len));
  assert_int_equal(len, sizeof want);
  assert_memory_equal(bytes, want, sizeof want);
  free(bytes);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
}

static const char *const kModules[] = {
    /* constants (splat, non-splat, i1 packed), attributes on arguments and results */
    "module @m attributes {mhlo.num_partitions = 1 : i32} {\n"
    "  func.func public @main(%a: tensor<3xf32> {jax.arg_info = \"a\"}, %b: tensor<3xi1>) -> (tensor<3xf32> {jax.result_info = \"\"}) {\n"
    "    %0 = stablehlo.constant dense<[1.5, -2.0, 3.0]> : tensor<3xf32>\n"
    "    %1 = stablehlo.constant dense<2.0> : tensor<3xf32>\n"
    "    %2 = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>\n"
    "    %3 = stablehlo.add %a, %0 : tensor<3xf32>\n"
    "    %4 = stablehlo.multiply %3, %1 : tensor<3xf32>\n"
    "    %5 = stablehlo.and %b, %2 : tensor<3xi1>\n"
    "    %6 = stablehlo.select %5, %4, %a : tensor<3xi1>, tensor<3xf32>\n"
    "    %7 = stablehlo.compare  LT, %6, %a,  FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>\n"
    "    %8 = stablehlo.select %7, %6, %a : tensor<3xi1>, tensor<3xf32>\n"
    "    return %8 : tensor<3xf32>\n"
    "  }\n"
    "}\n",
    /* regions: an isolated reduce body and a while loop that captures a value */
    "func.func @main(%x: tensor<4x5xf32>, %n: tensor<i64>) -> (tensor<4xf32>, tensor<i64>) {\n"
    "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
    "  %one = stablehlo.constant dense<1> : tensor<i64>\n"
    "  %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x5xf32>, tensor<f32>) -> tensor<4xf32>\n"
    "  %w = stablehlo.while(%i = %one) : tensor<i64>\n"
    "   cond {\n"
    "    %c = stablehlo.compare  LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
    "    stablehlo.return %c : tensor<i1>\n"
    "  } do {\n"
    "    %s = stablehlo.add %i, %one : tensor<i64>\n"
    "    stablehlo.return %s : tensor<i64>\n"
    "  }\n"
    "  return %r, %w : tensor<4xf32>, tensor<i64>\n"
    "}\n",
    /* structured attributes split into VHLO fields and joined back */
    "func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %i: tensor<2x1xi32>, %img: tensor<1x8x8x2xf32>, %k: tensor<3x3x2x4xf32>) -> (tensor<2x4xf32>, tensor<2x3xf32>, tensor<1x3x3x4xf32>) {\n"
    "  %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [HIGHEST, DEFAULT] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>\n"
    "  %g = \"stablehlo.gather\"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>} : (tensor<2x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>\n"
    "  %c = stablehlo.convolution(%img, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32>\n"
    "  return %d, %g, %c : tensor<2x4xf32>, tensor<2x3xf32>, tensor<1x3x3x4xf32>\n"
    "}\n",
    /* custom calls, dynamic shapes with bounds, quantized types */
    "func.func @main(%a: tensor<?xf32, #stablehlo.bounds<8>>, %q: tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> (tensor<?xf32, #stablehlo.bounds<8>>, tensor<4xf32>) {\n"
    "  %0 = stablehlo.custom_call @foo(%a) {api_version = 4 : i32, backend_config = {x = 1 : i64}, has_side_effect = true} : (tensor<?xf32, #stablehlo.bounds<8>>) -> tensor<?xf32, #stablehlo.bounds<8>>\n"
    "  %1 = stablehlo.uniform_dequantize %q : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<4xf32>\n"
    "  return %0, %1 : tensor<?xf32, #stablehlo.bounds<8>>, tensor<4xf32>\n"
    "}\n",
};

static void roundtrip(shloc_context *ctx, shloc_module *m, const char *target) {
  void *bytes = NULL;
  size_t len = 0;
  OK(shloc_module_serialize(m, target, SHLOC_SERIALIZE_STRIP_DEBUGINFO, &bytes, &len));
  assert_true(len > 4 && memcmp(bytes, "ML\xEFR", 4) == 0);
  shloc_module *back = NULL;
  OK(shloc_module_parse(ctx, "t.mlir.bc", bytes, len, 1, &back));
  OK(shloc_module_verify(back));
  char *want = print(m, 0), *got = print(back, 0);
  if (strcmp(want, got)) fail_msg("--target=%s reads back as\n%s\ninstead of\n%s", target, got, want);
  free(want);
  free(got);
  free(bytes);
  shloc_module_destroy(back);
}

static void test_roundtrip(void **state) {
  (void)state;
  shloc_context *ctx = shloc_context_create();
  for (size_t i = 0; i < sizeof kModules / sizeof kModules[0]; i++) {
    shloc_module *m = parse(ctx, kModules[i]);
    char oldest[16];
    OK(shloc_module_min_version(m, oldest, sizeof oldest));
    roundtrip(ctx, m, "current");
    roundtrip(ctx, m, "oldest");
    roundtrip(ctx, m, "1.5.3"); /* a patch release: its minor release's VHLO */
    /* All but the typed-FFI custom call (1.3.0) fit the first VHLO. */
    assert_string_equal(oldest, i == 3 ? "1.3.0" : "0.9.0");
    if (i != 3) roundtrip(ctx, m, "0.9.0");
    shloc_module_destroy(m);
  }
  shloc_context_destroy(ctx);
}

/* The error of serializing `text` for `target` contains each of `parts`. */
static void expect_refusal(const char *text, const char *target, const char *const *parts) {
  shloc_context *ctx = shloc_context_create();
  shloc_module *m = parse(ctx, text);
  void *bytes = (void *)1;
  size_t len = 1;
  shloc_status st = shloc_module_serialize(m, target, 0, &bytes, &len);
  assert_non_null(st);
  assert_null(bytes);
  assert_int_equal(len, 0);
  const char *msg = shloc_status_message(st);
  for (; *parts; parts++)
    if (!strstr(msg, *parts)) fail_msg("'%s' not in: %s", *parts, msg);
  shloc_status_free(st);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
}

static const char kTan[] =
    "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
    "  %0 = stablehlo.tan %a : tensor<2xf32>\n"
    "  return %0 : tensor<2xf32>\n"
    "}\n";

static void test_op_newer_than_target(void **state) {
  (void)state;
  expect_refusal(kTan, "1.3.0", (const char *const[]){"1.4.0", "1.3.0", NULL});
  shloc_context *ctx = shloc_context_create();
  shloc_module *m = parse(ctx, kTan);
  void *bytes = NULL;
  size_t len = 0;
  shloc_status st = shloc_module_serialize(m, "1.3.0", 0, &bytes, &len);
  const char *file;
  int line, col;
  shloc_status_location(st, &file, &line, &col);
  assert_string_equal(file, "t.mlir");
  assert_int_equal(line, 2);
  assert_int_equal(col, 3);
  shloc_status_free(st);
  char v[16];
  OK(shloc_module_min_version(m, v, sizeof v));
  assert_string_equal(v, "1.4.0");
  roundtrip(ctx, m, "1.4.0");
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
}

static void test_feature_newer_than_target(void **state) {
  (void)state;
  /* gather batching dimensions: vhlo.gather_v2 (1.1.0) */
  static const char kGather[] =
      "func.func @main(%a: tensor<2x3xf32>, %i: tensor<2x1xi32>) -> tensor<2xf32> {\n"
      "  %g = \"stablehlo.gather\"(%a, %i) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>} : (tensor<2x3xf32>, tensor<2x1xi32>) -> tensor<2xf32>\n"
      "  return %g : tensor<2xf32>\n"
      "}\n";
  expect_refusal(kGather, "1.0.0", (const char *const[]){"operand_batching_dims", "1.1.0", "gather_v2", NULL});
  /* a non-default result accuracy: vhlo.exponential_v2 (1.9.0) */
  static const char kExp[] =
      "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %0 = \"stablehlo.exponential\"(%a) {result_accuracy = #stablehlo.result_accuracy<atol = 1.000000e-05, rtol = 0.000000e+00, ulps = 1, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : (tensor<2xf32>) -> tensor<2xf32>\n"
      "  return %0 : tensor<2xf32>\n"
      "}\n";
  expect_refusal(kExp, "1.8.0", (const char *const[]){"result_accuracy", "1.9.0", NULL});
  /* an element type: f8E4M3 (1.7.0) */
  static const char kF8[] =
      "func.func @main(%a: tensor<2xf8E4M3>) -> tensor<2xf8E4M3> {\n"
      "  return %a : tensor<2xf8E4M3>\n"
      "}\n";
  expect_refusal(kF8, "1.6.0", (const char *const[]){"f8E4M3", "1.7.0", NULL});
  /* an op constraint: typed-FFI custom calls (1.3.0) */
  static const char kFfi[] =
      "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %0 = stablehlo.custom_call @f(%a) {api_version = 4 : i32} : (tensor<2xf32>) -> tensor<2xf32>\n"
      "  return %0 : tensor<2xf32>\n"
      "}\n";
  expect_refusal(kFfi, "1.2.0", (const char *const[]){"typed-FFI", "1.3.0", NULL});
  /* reduce with a result element type other than its operand's (0.17.0) */
  static const char kPromote[] =
      "func.func @main(%a: tensor<4xbf16>, %z: tensor<f32>) -> tensor<f32> {\n"
      "  %r = \"stablehlo.reduce\"(%a, %z) ({\n"
      "  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
      "    %s = stablehlo.add %x, %y : tensor<f32>\n"
      "    stablehlo.return %s : tensor<f32>\n"
      "  }) {dimensions = array<i64: 0>} : (tensor<4xbf16>, tensor<f32>) -> tensor<f32>\n"
      "  return %r : tensor<f32>\n"
      "}\n";
  expect_refusal(kPromote, "0.16.0", (const char *const[]){"element types", "0.17.0", NULL});
}

static void test_not_expressible(void **state) {
  (void)state;
  /* Test-harness ops of the check dialect (CHLO ops are decomposed instead). */
  static const char kCheck[] =
      "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  check.expect_eq_const %a, dense<1.0> : tensor<2xf32>\n"
      "  return %a : tensor<2xf32>\n"
      "}\n";
  expect_refusal(kCheck, "current", (const char *const[]){"check.expect_eq_const", "cannot be expressed in VHLO", NULL});
}

static void test_version_range(void **state) {
  (void)state;
  assert_string_equal(shloc_vhlo_minimum_version(), "0.9.0");
  static const char *const bad[] = {"0.8.9", "1.21.0", "2.0.0", "1.2", "x", "1.2.3.4", ""};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    expect_refusal(kTan, bad[i], (const char *const[]){"0.9.0", shloc_vhlo_current_version(), NULL});
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_empty_module_bytes),    cmocka_unit_test(test_roundtrip),
      cmocka_unit_test(test_op_newer_than_target),   cmocka_unit_test(test_feature_newer_than_target),
      cmocka_unit_test(test_not_expressible),        cmocka_unit_test(test_version_range),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
