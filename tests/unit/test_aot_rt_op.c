/* shloc_rt_op (include/shloc/aot_runtime.h): runs one op's text on caller
 * buffers, prepares a site once and keeps it in the caller's slot, and
 * reports bad text or a wrong buffer count as a shloc_code without touching
 * the results. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "shloc/aot_runtime.h"

static const char k_sort_text[] =
    "func.func @main(%in: tensor<4xf32>, %in_0: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {\n"
    "  %0:2 = \"stablehlo.sort\"(%in, %in_0) ({\n"
    "  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):\n"
    "    %1 = \"stablehlo.compare\"(%a, %b) <{comparison_direction = #stablehlo<comparison_direction GT>}> :"
    " (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
    "    \"stablehlo.return\"(%1) : (tensor<i1>) -> ()\n"
    "  }) {dimension = 0 : i64, is_stable = true} : (tensor<4xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>)\n"
    "  \"func.return\"(%0#0, %0#1) : (tensor<4xf32>, tensor<4xi32>) -> ()\n"
    "}\n";

static void test_sort_twice(void **state) {
  (void)state;
  void *cache = NULL;
  float x[4] = {2.0f, -1.0f, 7.5f, 0.25f}, y[4];
  int32_t i[4] = {10, 11, 12, 13}, j[4];
  void *bufs[4] = {x, i, y, j};
  assert_int_equal(shloc_rt_op(&cache, k_sort_text, (int64_t)strlen(k_sort_text), bufs, 4), 0);
  assert_non_null(cache);
  void *first = cache;
  /* descending, the indices carried along (values worked out by hand) */
  const float want_y[4] = {7.5f, 2.0f, 0.25f, -1.0f};
  const int32_t want_j[4] = {12, 10, 13, 11};
  assert_memory_equal(y, want_y, sizeof y);
  assert_memory_equal(j, want_j, sizeof j);
  x[0] = 100.0f;
  assert_int_equal(_mlir_ciface_shloc_rt_op(&cache, k_sort_text, (int64_t)strlen(k_sort_text), bufs, 4), 0);
  assert_ptr_equal(cache, first); /* prepared once */
  assert_true(y[0] == 100.0f && j[0] == 10);
  shloc_rt_op_release(&cache);
  assert_null(cache);
}

static void test_errors(void **state) {
  (void)state;
  void *cache = NULL;
  float x[4] = {0}, y[4] = {1, 2, 3, 4};
  void *bufs[2] = {x, y};
  /* two buffers for an op taking four */
  assert_int_equal(shloc_rt_op(&cache, k_sort_text, (int64_t)strlen(k_sort_text), bufs, 2), SHLOC_ERR_INVALID_ARG);
  assert_true(y[0] == 1 && y[3] == 4);
  shloc_rt_op_release(&cache);
  /* text that does not parse: an error and no prepared site */
  static const char bad[] = "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> { oops }";
  assert_int_not_equal(shloc_rt_op(&cache, bad, (int64_t)strlen(bad), bufs, 2), 0);
  assert_null(cache);
  assert_int_not_equal(shloc_rt_op(&cache, bad, -1, bufs, 2), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sort_twice),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
