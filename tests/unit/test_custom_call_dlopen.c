/* The rms_norm example handler, built as a shared library (see
 * cmake/custom_call_tests.cmake), loaded by "LIB:SYMBOL" as `shloc run --ffi`
 * does, and run on the exported module in examples/rms_norm (f32) and on an
 * f64 variant; compared against RMS norm computed here. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "cc_harness.h"

#if !defined(SHLOC_RMS_NORM_LIB) || !defined(SHLOC_RMS_NORM_MLIR)
#error "built without cmake/custom_call_tests.cmake: SHLOC_RMS_NORM_LIB/_MLIR name the handler to load"
#endif

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (!s || fread(s, 1, (size_t)n, f) != (size_t)n) fail_msg("cannot read %s", path);
  s[n] = '\0';
  fclose(f);
  return s;
}

static shloc_ffi_registry *load(void) {
  shloc_ffi_registry *reg = cc_registry();
  assert_ok(shloc_ffi_register_symbol(reg, "rms_norm", SHLOC_RMS_NORM_LIB ":rms_norm", SHLOC_FFI_ANY));
  shloc_ffi_target t;
  assert_true(shloc_ffi_target_get(reg, 0, &t));
  assert_string_equal(t.target, "rms_norm");
  assert_non_null(t.origin);
  assert_non_null(strstr(t.origin, ":rms_norm"));
  return reg;
}

static void test_exported_module_f32(void **state) {
  (void)state;
  shloc_ffi_registry *reg = load();
  char *text = read_file(SHLOC_RMS_NORM_MLIR);
  cc_prog p;
  assert_ok(cc_build(text, reg, &p));
  float x[100];
  for (int i = 0; i < 100; i++) x[i] = (float)sin(0.37 * i) * 3.0f;
  void *in[1] = {x};
  shloc_tensor res;
  assert_ok(cc_run(&p, in, &res));
  const float *y = res.data;
  for (int r = 0; r < 10; r++) {
    double ss = 0;
    for (int j = 0; j < 10; j++) ss += (double)x[r * 10 + j] * x[r * 10 + j];
    double scale = 1.0 / sqrt(ss / 10 + 1e-5);
    for (int j = 0; j < 10; j++) assert_true(fabs(y[r * 10 + j] - x[r * 10 + j] * scale) <= 1e-5);
  }
  cc_free_results(&res, 1);
  cc_free(&p);
  free(text);
  shloc_ffi_registry_destroy(reg);
}

static void test_f64_and_errors(void **state) {
  (void)state;
  shloc_ffi_registry *reg = load();
  const char *text =
      "func.func @main(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {\n"
      "  %0 = stablehlo.custom_call @rms_norm(%x) {mhlo.backend_config = {eps = 0.0 : f64}} : (tensor<2x3xf64>) -> "
      "tensor<2x3xf64>\n"
      "  return %0 : tensor<2x3xf64>\n"
      "}\n";
  double x[6] = {3, 4, 0, 1, 1, 1};
  void *in[1] = {x};
  cc_prog p;
  shloc_tensor res;
  cc_build_run(text, reg, in, &res, &p);
  /* Every element against RMS norm per row of 3, eps = 0: rows {3,4,0} and {1,1,1}. */
  const double *y = res.data;
  for (int r = 0; r < 2; r++) {
    double ss = 0;
    for (int j = 0; j < 3; j++) ss += x[r * 3 + j] * x[r * 3 + j];
    for (int j = 0; j < 3; j++) assert_true(fabs(y[r * 3 + j] - x[r * 3 + j] / sqrt(ss / 3)) < 1e-12);
  }
  assert_true(fabs(y[1] - 4 / sqrt(25.0 / 3)) < 1e-12); /* the formula itself, by hand */
  cc_free_results(&res, 1);
  cc_free(&p);

  /* Without eps the handler reports an error, located at the op. */
  text =
      "func.func @main(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {\n"
      "  %0 = stablehlo.custom_call @rms_norm(%x) {mhlo.backend_config = {}} : (tensor<2x3xf64>) -> tensor<2x3xf64>\n"
      "  return %0 : tensor<2x3xf64>\n"
      "}\n";
  assert_ok(cc_build(text, reg, &p));
  shloc_status st = cc_run(&p, in, &res);
  assert_non_null(st);
  int line;
  shloc_status_location(st, NULL, &line, NULL);
  assert_int_equal(line, 2);
  expect_error(st, SHLOC_ERR_RUNTIME, "custom call 'rms_norm': INVALID_ARGUMENT: rms_norm needs an f32 or f64");
  cc_free(&p);

  expect_error(shloc_ffi_register_symbol(reg, "other", SHLOC_RMS_NORM_LIB ":no_such_symbol", SHLOC_FFI_TYPED),
               SHLOC_ERR_NOT_FOUND, "no_such_symbol");
  shloc_ffi_registry_destroy(reg);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exported_module_f32),
      cmocka_unit_test(test_f64_and_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

