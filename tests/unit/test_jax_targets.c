/* JAX's annotation targets on one device: identities (aliased, no kernel
 * runs), errors for per-device shapes, dce_sink, AllocateBuffer, and
 * shape_assertion with llvm::formatv messages.  Expected messages follow
 * llvm::formatv's documented rules ({N}, {N,width}, {N,-width}, {{), not
 * shloc's output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/plan.h"
#include "shloc/executable.h"
#include "shloc/shloc.h"
#include "ok.h"
#include "targets/jax/annotations.h"

/* ------------------------------------------------------------------ formatv */

static void expect_format(const char *fmt, const int64_t *vals, size_t n, const char *want) {
  char *got;
  OK(jax_format_message(str_of(fmt), vals, n, &got));
  if (strcmp(got, want)) fail_msg("format '%s': got '%s', expected '%s'", fmt, got, want);
  free(got);
}

static void test_format(void **state) {
  (void)state;
  const int64_t v[] = {5, -7, 123};
  expect_format("b = {0}, c = {1}", v, 2, "b = 5, c = -7");
  expect_format("{1}{0}{1}", v, 2, "-75-7");
  expect_format("[{0,4}] [{0,-4}] [{2,=7}] [{1,*+5}]", v, 3, "[   5] [5   ] [  123  ] [***-7]");
  expect_format("{{0} stays, {2:x} has a style", v, 3, "{0} stays, 123 has a style");
  expect_format("no close {0", v, 1, "no close {0");
  expect_format("not an index {a} {}", v, 1, "not an index {a} {}");
  /* Without inputs the message is not formatted at all (as XLA does). */
  expect_format("{0} and {{", NULL, 0, "{0} and {{");
  expect_format("", v, 1, "");
}

/* ------------------------------------------------------------------ running */

typedef struct {
  shloc_context *ctx;
  shloc_module *m;
  shloc_executable *x;
} fixture;

static shloc_status load(fixture *f, const char *text) {
  memset(f, 0, sizeof *f);
  f->ctx = shloc_context_create();
  shloc_status st = shloc_module_parse(f->ctx, "t.mlir", text, strlen(text), 1, &f->m);
  if (!st) st = shloc_module_verify(f->m);
  if (!st) st = shloc_executable_create(f->m, "main", NULL, &f->x);
  return st;
}

static void unload(fixture *f) {
  shloc_executable_destroy(f->x);
  shloc_module_destroy(f->m);
  shloc_context_destroy(f->ctx);
}

static const char *const identities[] = {"Sharding",
                                         "SPMDFullToShardShape",
                                         "SPMDShardToFullShape",
                                         "annotate_device_placement",
                                         "xla.sdy.GlobalToLocalShape",
                                         "xla.sdy.LocalToGlobalShape",
                                         "xla.sdy.FuncResultSharding",
                                         "MoveToHost",
                                         "MoveToDevice",
                                         "LayoutConstraint"};

/* Each identity target passes its operand through; only the multiply runs. */
static void test_identities(void **state) {
  (void)state;
  for (size_t k = 0; k < sizeof identities / sizeof identities[0]; k++) {
    /* Names with dots are quoted symbols: @"xla.sdy.GlobalToLocalShape". */
    char sym[64], text[1024];
    snprintf(sym, sizeof sym, strchr(identities[k], '.') ? "@\"%s\"" : "@%s", identities[k]);
    snprintf(text, sizeof text,
             "func.func @main(%%a: tensor<2x3xf32> {mhlo.sharding = \"{replicated}\"}) -> (tensor<2x3xf32> "
             "{jax.result_info = \"\"}) {\n"
             "  %%0 = stablehlo.custom_call %s(%%a) {has_side_effect = true, mhlo.frontend_attributes = "
             "{_xla_buffer_placement = \"pinned_host\"}, mhlo.sharding = \"{replicated}\"} : (tensor<2x3xf32>) -> "
             "tensor<2x3xf32>\n"
             "  %%1 = stablehlo.multiply %%0, %%0 : tensor<2x3xf32>\n"
             "  return %%1 : tensor<2x3xf32>\n}",
             sym);
    fixture f;
    OK(load(&f, text));
    assert_int_equal(f.x->main->n_ops, 1);
    float a[6] = {1, -2, 3, 0.5f, -0.25f, 8};
    int64_t d[] = {2, 3};
    shloc_tensor in = {XLA_FFI_DataType_F32, 2, d, a, sizeof a}, out;
    OK(shloc_executable_run(f.x, &in, 1, &out, 1));
    const float *r = out.data;
    for (int i = 0; i < 6; i++) assert_true(r[i] == a[i] * a[i]);
    free(out.data);
    unload(&f);
  }
}

/* xla.sdy.* calls take and return several values at once. */
static void test_identity_several(void **state) {
  (void)state;
  fixture f;
  OK(load(&f, "func.func @main(%a: tensor<3xi32>, %b: tensor<f64>) -> (tensor<3xi32>, tensor<f64>) {\n"
              "  %0:2 = stablehlo.custom_call @\"xla.sdy.FuncResultSharding\"(%a, %b) {has_side_effect = true, "
              "mhlo.frontend_attributes = {xla.sdy.sharding = \"#sdy.sharding_per_value<[<@mesh, [{}]>, <@mesh, []>]>\"}} "
              ": (tensor<3xi32>, tensor<f64>) -> (tensor<3xi32>, tensor<f64>)\n"
              "  return %0#0, %0#1 : tensor<3xi32>, tensor<f64>\n}"));
  assert_int_equal(f.x->main->n_ops, 0);
  int32_t a[3] = {7, -8, 9};
  double b = 2.5;
  int64_t d[] = {3};
  shloc_tensor in[2] = {{XLA_FFI_DataType_S32, 1, d, a, sizeof a}, {XLA_FFI_DataType_F64, 0, NULL, &b, sizeof b}};
  shloc_tensor out[2];
  OK(shloc_executable_run(f.x, in, 2, out, 2));
  assert_memory_equal(out[0].data, a, sizeof a);
  assert_memory_equal(out[1].data, &b, sizeof b);
  free(out[0].data);
  free(out[1].data);
  unload(&f);
}

/* A per-device shape cannot be produced on one device: running reports it
 * at the op (several devices run it: tests/interpret/shard_map.mlir). */
static void test_shard_shape_error(void **state) {
  (void)state;
  fixture f;
  OK(load(&f, "func.func @main(%a: tensor<8xf32>) -> tensor<4xf32> {\n"
              "  %0 = stablehlo.custom_call @SPMDFullToShardShape(%a) {mhlo.sharding = \"{devices=[2]<=[2]}\"}"
              " : (tensor<8xf32>) -> tensor<4xf32>\n"
              "  return %0 : tensor<4xf32>\n}"));
  float a[8] = {0};
  int64_t d[] = {8};
  shloc_tensor in = {XLA_FFI_DataType_F32, 1, d, a, sizeof a}, out;
  shloc_status st = shloc_executable_run(f.x, &in, 1, &out, 1);
  assert_non_null(st);
  assert_int_equal(shloc_status_code(st), SHLOC_ERR_UNSUPPORTED);
  const char *file;
  int line, col;
  shloc_status_location(st, &file, &line, &col);
  assert_int_equal(line, 2);
  assert_int_equal(col, 3);
  assert_non_null(strstr(shloc_status_op(st), "stablehlo.custom_call"));
  assert_non_null(strstr(shloc_status_message(st), "several devices"));
  shloc_status_free(st);
  unload(&f);
}

static const char assertion[] =
    "func.func @main(%p: tensor<i1>, %b: tensor<i64>, %c: tensor<i32>) {\n"
    "  stablehlo.custom_call @shape_assertion(%p, %b, %c) {api_version = 2 : i32, error_message = \"Expected value >= 1 "
    "for dimension variable 'b'. Obtained 'b' = {0} from dimension args[0].shape[0] (= {1}); [{0,3}]\", "
    "has_side_effect = true} : (tensor<i1>, tensor<i64>, tensor<i32>) -> ()\n"
    "  return\n}";

static shloc_status run_assertion(fixture *f, bool pred, int64_t b, int32_t c) {
  uint8_t p = pred;
  shloc_tensor in[3] = {{XLA_FFI_DataType_PRED, 0, NULL, &p, 1},
                        {XLA_FFI_DataType_S64, 0, NULL, &b, 8},
                        {XLA_FFI_DataType_S32, 0, NULL, &c, 4}};
  return shloc_executable_run(f->x, in, 3, NULL, 0);
}

static void test_shape_assertion(void **state) {
  (void)state;
  fixture f;
  OK(load(&f, assertion));
  OK(run_assertion(&f, true, 0, 4));
  shloc_status st = run_assertion(&f, false, -3, 1);
  assert_non_null(st);
  assert_int_equal(shloc_status_code(st), SHLOC_ERR_RUNTIME);
  const char *want = "Expected value >= 1 for dimension variable 'b'. Obtained 'b' = -3 from dimension args[0].shape[0] "
                     "(= 1); [ -3]";
  if (!strstr(shloc_status_message(st), want)) fail_msg("message: %s", shloc_status_message(st));
  const char *file;
  int line, col;
  shloc_status_location(st, &file, &line, &col);
  assert_int_equal(line, 2);
  shloc_status_free(st);
  OK(run_assertion(&f, true, -3, 1)); /* the same call passes again */
  unload(&f);
}

/* Ill-formed assertions are rejected before running. */
static void test_shape_assertion_invalid(void **state) {
  (void)state;
  static const struct {
    const char *text, *needle;
  } cases[] = {
      {"func.func @main(%p: tensor<i1>, %b: tensor<i64>) {\n"
       "  stablehlo.custom_call @shape_assertion(%p, %b) {error_message = \"{0} {1}\", has_side_effect = true} : "
       "(tensor<i1>, tensor<i64>) -> ()\n  return\n}",
       "refers to input {1}, but has 1 inputs"},
      {"func.func @main(%p: tensor<i32>) {\n"
       "  stablehlo.custom_call @shape_assertion(%p) {error_message = \"x\", has_side_effect = true} : (tensor<i32>) -> ()\n"
       "  return\n}",
       "assert_what"},
      {"func.func @main(%p: tensor<i1>, %b: tensor<2xi64>) {\n"
       "  stablehlo.custom_call @shape_assertion(%p, %b) {error_message = \"x\", has_side_effect = true} : "
       "(tensor<i1>, tensor<2xi64>) -> ()\n  return\n}",
       "operand #1"},
      {"func.func @main(%p: tensor<i1>) {\n"
       "  stablehlo.custom_call @shape_assertion(%p) {has_side_effect = true} : (tensor<i1>) -> ()\n  return\n}",
       "error_message"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    fixture f;
    shloc_status st = load(&f, cases[i].text);
    if (!st) fail_msg("case %zu accepted", i);
    if (!strstr(shloc_status_message(st), cases[i].needle) || shloc_status_code(st) != SHLOC_ERR_VERIFY)
      fail_msg("case %zu: %s", i, shloc_status_message(st));
    const char *file;
    int line, col;
    shloc_status_location(st, &file, &line, &col);
    assert_int_equal(line, 2);
    shloc_status_free(st);
    unload(&f);
  }
}

static void test_sink_and_allocate(void **state) {
  (void)state;
  fixture f;
  OK(load(&f, "func.func @main(%a: tensor<2xf32>) -> tensor<2x2xi16> {\n"
              "  stablehlo.custom_call @dce_sink(%a) {api_version = 4 : i32, has_side_effect = true} : (tensor<2xf32>) -> ()\n"
              "  %0 = stablehlo.custom_call @AllocateBuffer() : () -> tensor<2x2xi16>\n"
              "  return %0 : tensor<2x2xi16>\n}"));
  float a[2] = {1, 2};
  int64_t d[] = {2};
  shloc_tensor in = {XLA_FFI_DataType_F32, 1, d, a, sizeof a}, out;
  OK(shloc_executable_run(f.x, &in, 1, &out, 1));
  static const int16_t zero[4];
  assert_int_equal(out.nbytes, sizeof zero);
  assert_memory_equal(out.data, zero, sizeof zero);
  free(out.data);
  unload(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_format),
      cmocka_unit_test(test_identities),
      cmocka_unit_test(test_identity_several),
      cmocka_unit_test(test_shard_shape_error),
      cmocka_unit_test(test_shape_assertion),
      cmocka_unit_test(test_shape_assertion_invalid),
      cmocka_unit_test(test_sink_and_allocate),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
