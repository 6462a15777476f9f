/* Shardy (sdy): attributes printed in Shardy's canonical form, verification
 * errors at the right place, and single-device execution of a module in the
 * form JAX exports with Shardy (mesh of size 1, sharded arguments,
 * sharding_constraint, a manual_computation with a body).  Expected numbers
 * are computed here from the program's arithmetic, not by shloc. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/plan.h"
#include "harness.h"
#include "shloc/executable.h"
#include "shloc/shloc.h"
#include "ok.h"
#include "print_ok.h"

/* Parses and verifies; *m receives the module (NULL on failure). */
static shloc_status load(shloc_context *ctx, const char *text, shloc_module **m) {
  *m = NULL;
  shloc_status st = shloc_module_parse(ctx, "t.mlir", text, strlen(text), 1, m);
  if (!st) st = shloc_module_verify(*m);
  return st;
}

/* `text` must fail with `code` at line:col, the message containing `needle`. */
static void expect_error(const char *text, shloc_code code, int line, int col, const char *needle) {
  shloc_context *ctx = shloc_context_create();
  shloc_module *m;
  shloc_status st = load(ctx, text, &m);
  if (!st) fail_msg("accepted: %s", text);
  const char *file;
  int l, c;
  shloc_status_location(st, &file, &l, &c);
  const char *msg = shloc_status_message(st);
  if (shloc_status_code(st) != code || l != line || c != col || !strstr(msg, needle))
    fail_msg("got code %d at %d:%d '%s'; expected code %d at %d:%d containing '%s'", (int)shloc_status_code(st), l, c,
             msg, (int)code, line, col, needle);
  shloc_status_free(st);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
}

/* ------------------------------------------------------------------ printing */

/* Spellings Shardy's printer normalizes (its lit tests' CHECK lines).  An
 * invalid module prints in generic form, so the shardings get a mesh. */
#define MESH "sdy.mesh @m = <[\"a\"=2, \"b\"=2, \"c\"=4]>\n"
static void test_canonical_text(void **state) {
  (void)state;
  static const struct {
    const char *in, *out;
  } cases[] = {
      {"sdy.mesh @m = <[\"a\"=2,\"b\"=4]>", "sdy.mesh @m = <[\"a\"=2, \"b\"=4]>"},
      {"sdy.mesh @m = <[\"a\"=1], device_ids=[0]>", "sdy.mesh @m = <[\"a\"=1]>"},
      {"sdy.mesh @m = <[\"a\"=2, \"b\"=2], device_ids=[0, 1, 2, 3]>", "sdy.mesh @m = <[\"a\"=2, \"b\"=2]>"},
      {"sdy.mesh @m = <[\"a\"=2], device_ids=[1, 0]>", "sdy.mesh @m = <[\"a\"=2], device_ids=[1, 0]>"},
      {"sdy.mesh @m = <[], device_ids=[0]>", "sdy.mesh @m = <[], device_ids=[0]>"},
      {"sdy.mesh @m = #sdy.mesh<[\"a\"=1]>", "sdy.mesh @m = <[\"a\"=1]>"}, /* the full spelling is read too */
      /* MLIR prints '"' in a string as \22 */
      {"sdy.mesh @\"my mesh\" = <[\"a\\\"b\"=2]>", "sdy.mesh @\"my mesh\" = <[\"a\\22b\"=2]>"},
      {MESH "func.func @f(%a: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{\"a\",?},{ ? }p3], unreduced={\"b\"}, "
       "replicated={\"c\":(1)2}>}) {\n  return\n}",
       "func.func @f(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{\"a\", ?}, {?}p3], "
       "replicated={\"c\":(1)2}, unreduced={\"b\"}>}) {"},
      {MESH "func.func @f(%a: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{?}], unreduced=sum{\"b\"}>}) {\n  return\n}",
       "#sdy.sharding<@m, [{?}], unreduced={\"b\"}>"},
      {MESH "func.func @f(%a: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{?}], unreduced=min{\"b\"}>}) {\n  return\n}",
       "#sdy.sharding<@m, [{?}], unreduced=min{\"b\"}>"},
      {MESH "func.func @f(%a: tensor<8xf32> {sdy.sharding = #sdy.sharding<mesh<[\"x\"=2], device_ids=[0,1]>, [{\"x\"}]>}) {\n"
       "  return\n}",
       "#sdy.sharding<mesh<[\"x\"=2]>, [{\"x\"}]>"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    shloc_context *ctx = shloc_context_create();
    shloc_module *m;
    OK(shloc_module_parse(ctx, "t.mlir", cases[i].in, strlen(cases[i].in), 1, &m));
    char *out = print(m, 0);
    if (!strstr(out, cases[i].out)) fail_msg("case %zu printed\n%s\nwithout '%s'", i, out, cases[i].out);
    free(out);
    shloc_module_destroy(m);
    shloc_context_destroy(ctx);
  }
}

/* ------------------------------------------------------------------ errors */

static void test_errors(void **state) {
  (void)state;
  expect_error("sdy.mesh @m = <[\"a\"=2]>\n"
               "func.func @f(%a: tensor<8xf32> {sdy.sharding = #sdy.sharding<@n, [{\"a\"}]>}) {\n  return\n}",
               SHLOC_ERR_VERIFY, 2, 1, "unknown mesh: @n");
  expect_error("sdy.mesh @m = <[\"a\"=2]>\n"
               "func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {\n"
               "  %0 = sdy.sharding_constraint %a <@m, [{\"z\"}]> : tensor<8xf32>\n"
               "  return %0 : tensor<8xf32>\n}",
               SHLOC_ERR_VERIFY, 3, 3, "unknown axis name: \"z\"");
  expect_error("sdy.mesh @m = <[\"a\"=2]>\n"
               "func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {\n"
               "  %0 = stablehlo.abs %a {sdy.sharding = #sdy.sharding_per_value<[<@m, [{}, {}]>]>} : tensor<8xf32>\n"
               "  return %0 : tensor<8xf32>\n}",
               SHLOC_ERR_VERIFY, 3, 3, "sharding doesn't match tensor rank: 2 != 1");
  expect_error("sdy.mesh @m = <[\"a\"=2]>\n"
               "func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {\n"
               "  %0 = sdy.manual_computation(%a) in_shardings=[<@m, [{\"a\"}]>] out_shardings=[<@m, [{\"a\"}]>] "
               "manual_axes={\"a\"} (%b: tensor<8xf32>) {\n"
               "    sdy.return %b : tensor<8xf32>\n"
               "  } : (tensor<8xf32>) -> tensor<8xf32>\n"
               "  return %0 : tensor<8xf32>\n}",
               SHLOC_ERR_VERIFY, 3, 3, "does not give the local type tensor<8xf32>");
  expect_error("sdy.mesh @m = <[\"a\"=2, \"a\"=2]>", SHLOC_ERR_VERIFY, 1, 1, "duplicate axis name: \"a\"");
  expect_error("sdy.mesh @m = <[\"a\"=2], device_ids=[0, 0]>", SHLOC_ERR_VERIFY, 1, 1, "iota");
  expect_error("sdy.mesh @m = <[\"a\"=2]>\nsdy.mesh @m = <[\"b\"=2]>", SHLOC_ERR_VERIFY, 2, 1, "redefinition of mesh @m");
  /* A mesh defined after its use is checked before its sizes are used. */
  expect_error("func.func @f(%a: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{\"a\"}]>}) {\n  return\n}\n"
               "sdy.mesh @m = <[\"a\"=0]>",
               SHLOC_ERR_VERIFY, 1, 1, "mesh @m has an axis size below 1");
  /* Parse errors point at the token. */
  expect_error("func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
               "  %0 = sdy.sharding_constraint %a #sdy.mesh<[\"a\"=1]> : tensor<2xf32>\n"
               "  return %0 : tensor<2xf32>\n}",
               SHLOC_ERR_PARSE, 2, 35, "expected a sharding");
  expect_error("func.func @f(%a: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{}p01]>}) {\n  return\n}",
               SHLOC_ERR_PARSE, 1, 69, "priority");
  expect_error("func.func @f(%a: tensor<8xf32> {sdy.sharding = #sdy.sharding<@m, [{}], bogus={}>}) {\n  return\n}",
               SHLOC_ERR_PARSE, 1, 72, "replicated");
  expect_error("func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {\n"
               "  %0 = sdy.propagation_barrier %a allowed_direction=SIDEWAYS : tensor<8xf32>\n"
               "  return %0 : tensor<8xf32>\n}",
               SHLOC_ERR_PARSE, 2, 53, "propagation direction");
}

/* ------------------------------------------------------------------ running */

/* The shape JAX exports with Shardy on one device (hand-written after
 * jax.export output): a mesh of size 1, shardings on arguments and results,
 * a sharding constraint and a shard_map body. */
static const char jax_module[] =
    "module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {\n"
    "  sdy.mesh @mesh = <[\"x\"=1]>\n"
    "  func.func public @main(%arg0: tensor<8xf32> {mhlo.layout_mode = \"default\", sdy.sharding = "
    "#sdy.sharding<@mesh, [{\"x\"}]>}, %arg1: tensor<8xf32> {mhlo.memory_kind = \"device\", sdy.sharding = "
    "#sdy.sharding<@mesh, [{}]>}) -> (tensor<8xf32> {jax.result_info = \"result[0]\", sdy.sharding = "
    "#sdy.sharding<@mesh, [{\"x\"}]>}, tensor<f32> {jax.result_info = \"result[1]\"}) {\n"
    "    %0 = sdy.sharding_constraint %arg0 <@mesh, [{\"x\"}]> : tensor<8xf32>\n"
    "    %1:2 = sdy.manual_computation(%0, %arg1) in_shardings=[<@mesh, [{\"x\"}]>, <@mesh, [{}]>] "
    "out_shardings=[<@mesh, [{\"x\"}]>, <@mesh, []>] manual_axes={\"x\"} (%arg2: tensor<8xf32>, %arg3: tensor<8xf32>) {\n"
    "      %2 = stablehlo.multiply %arg2, %arg3 : tensor<8xf32>\n"
    "      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n"
    "      %3 = stablehlo.reduce(%2 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, "
    "tensor<f32>) -> tensor<f32>\n"
    "      sdy.return %2, %3 : tensor<8xf32>, tensor<f32>\n"
    "    } : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<f32>)\n"
    "    %4 = sdy.propagation_barrier %1#0 allowed_direction=FORWARD : tensor<8xf32>\n"
    "    %5 = sdy.named_computation<\"plus_one\">(%4) (%arg2: tensor<8xf32>) {\n"
    "      %6 = sdy.constant dense<1.000000e+00> : tensor<8xf32>\n"
    "      %7 = stablehlo.add %arg2, %6 : tensor<8xf32>\n"
    "      sdy.return %7 : tensor<8xf32>\n"
    "    } : (tensor<8xf32>) -> tensor<8xf32>\n"
    "    sdy.sharding_group %5 group_id=3 : tensor<8xf32>\n"
    "    %8 = sdy.reshard %5 <@mesh, [{}]> : tensor<8xf32>\n"
    "    return %8, %1#1 : tensor<8xf32>, tensor<f32>\n"
    "  }\n"
    "}\n";

static void test_run_jax_form(void **state) {
  (void)state;
  shloc_context *ctx = shloc_context_create();
  shloc_module *m;
  OK(load(ctx, jax_module, &m));
  shloc_executable *x;
  OK(shloc_executable_create(m, "main", NULL, &x));
  float a[8], b[8];
  for (int i = 0; i < 8; i++) a[i] = (float)i - 2.5f, b[i] = 0.5f * (float)i;
  int64_t d8[] = {8};
  shloc_tensor in[2] = {{XLA_FFI_DataType_F32, 1, d8, a, sizeof a}, {XLA_FFI_DataType_F32, 1, d8, b, sizeof b}};
  shloc_tensor out[2];
  OK(shloc_executable_run(x, in, 2, out, 2));
  const float *r0 = out[0].data, *r1 = out[1].data;
  double sum = 0;
  for (int i = 0; i < 8; i++) {
    double prod = (double)a[i] * b[i];
    sum += prod;
    assert_true(r0[i] == (float)(prod + 1.0));
  }
  /* Products of quarter-integers: every partial sum is exact in f32. */
  assert_true(r1[0] == (float)sum);
  free(out[0].data);
  free(out[1].data);
  shloc_executable_destroy(x);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
}

/* Annotations cost nothing: their results are their operands' buffers. */
static void test_annotations_alias(void **state) {
  (void)state;
  const char *text = "sdy.mesh @mesh = <[\"x\"=1]>\n"
                     "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                     "  %0 = sdy.sharding_constraint %a <@mesh, [{\"x\"}]> : tensor<4xf32>\n"
                     "  %1 = sdy.reshard %0 <@mesh, [{}]> : tensor<4xf32>\n"
                     "  %2 = sdy.propagation_barrier %1 allowed_direction=NONE : tensor<4xf32>\n"
                     "  sdy.sharding_group %2 group_id=0 : tensor<4xf32>\n"
                     "  %3 = stablehlo.negate %2 : tensor<4xf32>\n"
                     "  return %3 : tensor<4xf32>\n}";
  shloc_context *ctx = shloc_context_create();
  shloc_module *m;
  OK(load(ctx, text, &m));
  shloc_executable *xe;
  OK(executable_create(m, module_find_func(m, str_of("main")), NULL, &xe));
  assert_int_equal(xe->main->n_ops, 1); /* the negate only */
  float a[4] = {1, -2, 3, -4};
  int64_t d4[] = {4};
  shl_type t4 = {.kind = TY_TENSOR, .dtype = DT_F32, .rank = 1, .dims = d4};
  shl_buf in, res;
  buf_init(&in, &t4, a);
  shl_buf *args[] = {&in};
  OK(executable_run(xe, args, &res));
  const float *r = res.data;
  for (int i = 0; i < 4; i++) assert_true(r[i] == -a[i]);
  free(res.data);
  executable_destroy(xe);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
}

/* Forwarded values feed fused elementwise groups on both sides. */
static void test_forward_and_fusion(void **state) {
  (void)state;
  /* c = [1, -2, 3, -4]; n = -c; (|n| + n) * n = [0, 8, 0, 32] */
  run_ok("sdy.mesh @m = <[\"a\"=1]>\n"
         "func.func @main() {\n"
         "  %c = stablehlo.constant dense<[1.0, -2.0, 3.0, -4.0]> : tensor<4xf32>\n"
         "  %0 = stablehlo.negate %c : tensor<4xf32>\n"
         "  %1 = sdy.sharding_constraint %0 <@m, [{\"a\"}]> : tensor<4xf32>\n"
         "  %2 = stablehlo.abs %1 : tensor<4xf32>\n"
         "  %3 = stablehlo.add %2, %1 : tensor<4xf32>\n"
         "  %4 = stablehlo.custom_call @Sharding(%3) {mhlo.sharding = \"{replicated}\"} : (tensor<4xf32>) -> tensor<4xf32>\n"
         "  %5 = stablehlo.multiply %4, %0 : tensor<4xf32>\n"
         "  check.expect_eq_const %5, dense<[0.0, 8.0, 0.0, 32.0]> : tensor<4xf32>\n"
         "  return\n}");
}

/* A manual computation over an axis of size 2 needs two devices: running
 * it on one reports that at the op. */
static void test_manual_needs_devices(void **state) {
  (void)state;
  const char *text = "sdy.mesh @mesh = <[\"x\"=2, \"y\"=1]>\n"
                     "func.func @main(%a: tensor<8xf32>) -> tensor<8xf32> {\n"
                     "  %0 = sdy.manual_computation(%a) in_shardings=[<@mesh, [{\"x\"}]>] out_shardings=[<@mesh, "
                     "[{\"x\"}]>] manual_axes={\"x\"} (%b: tensor<4xf32>) {\n"
                     "    sdy.return %b : tensor<4xf32>\n"
                     "  } : (tensor<8xf32>) -> tensor<8xf32>\n"
                     "  return %0 : tensor<8xf32>\n}";
  shloc_context *ctx = shloc_context_create();
  shloc_module *m;
  OK(load(ctx, text, &m));
  shloc_executable *x = NULL;
  OK(shloc_executable_create(m, "main", NULL, &x));
  float a[8] = {0};
  int64_t d[] = {8};
  shloc_tensor in = {XLA_FFI_DataType_F32, 1, d, a, sizeof a}, out;
  shloc_status st = shloc_executable_run(x, &in, 1, &out, 1);
  assert_non_null(st);
  assert_int_equal(shloc_status_code(st), SHLOC_ERR_UNSUPPORTED);
  const char *file;
  int line, col;
  shloc_status_location(st, &file, &line, &col);
  assert_int_equal(line, 3);
  assert_int_equal(col, 3);
  assert_non_null(strstr(shloc_status_message(st), "'sdy.manual_computation'"));
  assert_non_null(strstr(shloc_status_message(st), "2 devices"));
  shloc_status_free(st);
  shloc_executable_destroy(x);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_canonical_text),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_run_jax_form),
      cmocka_unit_test(test_annotations_alias),
      cmocka_unit_test(test_forward_and_fusion),
      cmocka_unit_test(test_manual_needs_devices),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
