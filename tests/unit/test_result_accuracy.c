/* result_accuracy on transcendental ops: checked against the spec when the
 * module is verified (tolerances non-negative, and zero unless mode is
 * TOLERANCE); DEFAULT runs the usual kernels; HIGHEST and TOLERANCE, which
 * shloc does not guarantee, are refused when the executable is built
 * instead of being ignored. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "shloc/executable.h"
#include "shloc/shloc.h"
#include "ok.h"

/* The status of verify (stage 0) or executable creation (stage 1). */
static shloc_code outcome(const char *op, const char *ra, int *stage, char *msg, size_t cap) {
  char text[1024];
  snprintf(text, sizeof text,
           "func.func @main(%%a: tensor<2xf32>) -> tensor<2xf32> {\n"
           "  %%0 = \"%s\"(%%a) {result_accuracy = #stablehlo.result_accuracy<%s>} : (tensor<2xf32>) -> tensor<2xf32>\n"
           "  return %%0 : tensor<2xf32>\n}\n",
           op, ra);
  shloc_context *ctx = shloc_context_create();
  shloc_module *m;
  shloc_executable *x = NULL;
  OK(shloc_module_parse(ctx, "ra.mlir", text, strlen(text), 1, &m));
  *stage = 0;
  shloc_status st = shloc_module_verify(m);
  if (!st) {
    *stage = 1;
    st = shloc_executable_create(m, "main", NULL, &x);
  }
  shloc_code c = st ? shloc_status_code(st) : SHLOC_OK;
  snprintf(msg, cap, "%s", st ? shloc_status_message(st) : "");
  shloc_status_free(st);
  if (x) shloc_executable_destroy(x);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
  return c;
}

#define MODE(m) "mode = #stablehlo.result_accuracy_mode<" m ">"

static void test_default_runs(void **s) {
  (void)s;
  int stage;
  char msg[512];
  assert_int_equal(outcome("stablehlo.exponential", MODE("DEFAULT"), &stage, msg, sizeof msg), SHLOC_OK);
  assert_int_equal(outcome("stablehlo.tanh", "atol = 0.0, rtol = 0.0, ulps = 0, " MODE("DEFAULT"), &stage, msg, sizeof msg),
                   SHLOC_OK);
}

static void test_refused_at_plan(void **s) {
  (void)s;
  static const char *const ops[] = {"stablehlo.exponential", "stablehlo.log", "stablehlo.tanh", "stablehlo.sine",
                                    "stablehlo.rsqrt", "stablehlo.logistic"};
  int stage;
  char msg[512];
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
    assert_int_equal(outcome(ops[i], MODE("HIGHEST"), &stage, msg, sizeof msg), SHLOC_ERR_UNSUPPORTED);
    assert_int_equal(stage, 1);
    assert_non_null(strstr(msg, "HIGHEST"));
    assert_int_equal(outcome(ops[i], "atol = 1.0e-6, rtol = 0.0, ulps = 1, " MODE("TOLERANCE"), &stage, msg, sizeof msg),
                     SHLOC_ERR_UNSUPPORTED);
    assert_non_null(strstr(msg, "TOLERANCE"));
  }
}

static void test_spec_constraints(void **s) {
  (void)s;
  int stage;
  char msg[512];
  assert_int_equal(outcome("stablehlo.log", "atol = -1.0, " MODE("TOLERANCE"), &stage, msg, sizeof msg), SHLOC_ERR_VERIFY);
  assert_int_equal(stage, 0);
  assert_non_null(strstr(msg, "non-negative"));
  assert_int_equal(outcome("stablehlo.log", "ulps = 2, " MODE("HIGHEST"), &stage, msg, sizeof msg), SHLOC_ERR_VERIFY);
  assert_int_equal(stage, 0);
  assert_non_null(strstr(msg, "unless mode is TOLERANCE"));
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_default_runs), cmocka_unit_test(test_refused_at_plan),
                                     cmocka_unit_test(test_spec_constraints)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
