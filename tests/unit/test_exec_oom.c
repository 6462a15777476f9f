/* A failed allocation while running names what it was for and its size:
 * a result buffer, or the frame of intermediate values, with the function's
 * position.  The sizes (240 GB) are beyond any machine this runs on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "shloc/executable.h"
#include "shloc/shloc.h"
#include "ok.h"

/* Under AddressSanitizer, a failed malloc must return NULL as libc's does. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

static void expect_oom(const char *text, const char *needle) {
  shloc_context *ctx = shloc_context_create();
  shloc_module *m;
  shloc_executable *x;
  OK(shloc_module_parse(ctx, "big.mlir", text, strlen(text), 1, &m));
  OK(shloc_module_verify(m));
  OK(shloc_executable_create(m, "main", NULL, &x));
  float one = 1;
  shloc_tensor arg = {XLA_FFI_DataType_F32, 0, NULL, &one, sizeof one}, res;
  memset(&res, 0, sizeof res);
  shloc_status st = shloc_executable_run(x, &arg, 1, &res, 1);
  assert_non_null(st);
  assert_int_equal(shloc_status_code(st), SHLOC_ERR_OOM);
  if (!strstr(shloc_status_message(st), needle)) fail_msg("'%s' lacks '%s'", shloc_status_message(st), needle);
  const char *file;
  int line, col;
  shloc_status_location(st, &file, &line, &col);
  assert_string_equal(file, "big.mlir");
  assert_int_equal(line, 1);
  assert_string_equal(shloc_status_op(st), "func.func");
  shloc_status_free(st);
  shloc_executable_destroy(x);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
}

static void test_result_buffer(void **state) {
  (void)state;
  expect_oom("func.func @main(%x: tensor<f32>) -> tensor<200000x300000xf32> {\n"
             "  %0 = stablehlo.broadcast_in_dim %x, dims = [] : (tensor<f32>) -> tensor<200000x300000xf32>\n"
             "  return %0 : tensor<200000x300000xf32>\n}\n",
             "out of memory: result #0 needs 240000000000 bytes");
}

static void test_frame(void **state) {
  (void)state;
  /* sort materialises its operand (a fused reduction of a broadcast would not). */
  expect_oom("func.func @main(%x: tensor<f32>) -> tensor<1x1xf32> {\n"
             "  %0 = stablehlo.broadcast_in_dim %x, dims = [] : (tensor<f32>) -> tensor<200000x300000xf32>\n"
             "  %1 = \"stablehlo.sort\"(%0) <{dimension = 1 : i64}> ({\n"
             "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
             "    %c = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
             "    stablehlo.return %c : tensor<i1>\n"
             "  }) : (tensor<200000x300000xf32>) -> tensor<200000x300000xf32>\n"
             "  %2 = stablehlo.slice %1 [0:1, 0:1] : (tensor<200000x300000xf32>) -> tensor<1x1xf32>\n"
             "  return %2 : tensor<1x1xf32>\n}\n",
             "out of memory: the frame of intermediate values needs ");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_result_buffer),
      cmocka_unit_test(test_frame),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
