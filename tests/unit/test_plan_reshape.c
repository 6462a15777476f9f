/* A reshape of a frame value is a view of its operand's buffer (plan.c
 * plan_view, plan_frame.c) instead of a copy; an in-place scatter must then
 * not write a buffer that another slot sharing it still reads, and a reshape
 * that is a result of the function still reaches the caller's buffer.  Values
 * are checked by hand-computed expectations over three runs (frames reused),
 * and no reshape of a frame value may run as a copy. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/plan.h"
#include "ok.h"
#include "shloc/executable.h"
#include "shloc/shloc.h"

#define SCATTER(res, op, body)                                                                                  \
  "  " res " = \"stablehlo.scatter\"(" op ", %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<"       \
  "update_window_dims = [], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "                  \
  "index_vector_dim = 1>}> ({\n"                                                                               \
  "  ^bb0(%p: tensor<f32>, %q: tensor<f32>):\n" body "  }) : (tensor<4xf32>, tensor<3x1xi32>, tensor<3xf32>) -> " \
  "tensor<4xf32>\n"

static const char *const text =
    "func.func @main(%a: tensor<4xf32>) -> (tensor<2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {\n"
    "  %i = stablehlo.constant dense<[[1], [3], [1]]> : tensor<3x1xi32>\n"
    "  %u = stablehlo.constant dense<[1.0, 2.0, 4.0]> : tensor<3xf32>\n"
    "  %one = stablehlo.constant dense<1.0> : tensor<4xf32>\n"
    /* x is read after the scatter through two reshapes of it: no update in place */
    "  %x = stablehlo.add %a, %a : tensor<4xf32>\n"
    "  %r = stablehlo.reshape %x : (tensor<4xf32>) -> tensor<2x2xf32>\n"
    "  %r1 = stablehlo.reshape %r : (tensor<2x2xf32>) -> tensor<4xf32>\n"
    SCATTER("%s", "%r1", "    %r2 = stablehlo.add %p, %q : tensor<f32>\n    stablehlo.return %r2 : tensor<f32>\n")
    "  %w = stablehlo.multiply %x, %x : tensor<4xf32>\n"
    /* a reshape returned as a result */
    "  %y = stablehlo.multiply %a, %a : tensor<4xf32>\n"
    "  %q2 = stablehlo.reshape %y : (tensor<4xf32>) -> tensor<2x2xf32>\n"
    /* dead after the scatter under both names: in place through the reshapes */
    "  %v = stablehlo.add %a, %one : tensor<4xf32>\n"
    "  %v2 = stablehlo.reshape %v : (tensor<4xf32>) -> tensor<2x2xf32>\n"
    "  %v1 = stablehlo.reshape %v2 : (tensor<2x2xf32>) -> tensor<4xf32>\n"
    SCATTER("%t", "%v1", "    stablehlo.return %q : tensor<f32>\n")
    "  return %q2, %s, %w, %t : tensor<2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>\n"
    "}\n";

static void expect4(const float *got, float a, float b, float c, float d) {
  const float want[4] = {a, b, c, d};
  for (int k = 0; k < 4; k++)
    if (got[k] != want[k]) fail_msg("element %d: %g, want %g", k, (double)got[k], (double)want[k]);
}

static void test_reshape_shares(void **state) {
  (void)state;
  shloc_context *ctx = shloc_context_create();
  shloc_module *m = NULL;
  shloc_executable *x = NULL;
  OK(shloc_module_parse(ctx, "t.mlir", text, strlen(text), 1, &m));
  OK(shloc_module_verify(m));
  OK(shloc_executable_create(m, "main", NULL, &x));
  uint32_t copies = 0;
  for (uint32_t k = 0; k < x->main->n_ops; k++) copies += x->main->ops[k].kernel == &kernel_reshape;
  assert_int_equal(copies, 0);
  static const int64_t d4[] = {4}, d22[] = {2, 2};
  for (int round = 0; round < 3; round++) {
    float in[4] = {1, 2, 3, (float)round}, q[4], s[4], w[4], t[4];
    shloc_tensor arg = {XLA_FFI_DataType_F32, 1, d4, in, sizeof in};
    shloc_tensor res[4] = {{XLA_FFI_DataType_F32, 2, d22, q, sizeof q},
                           {XLA_FFI_DataType_F32, 1, d4, s, sizeof s},
                           {XLA_FFI_DataType_F32, 1, d4, w, sizeof w},
                           {XLA_FFI_DataType_F32, 1, d4, t, sizeof t}};
    OK(shloc_executable_run_into(x, &arg, 1, res, 4));
    float r = (float)round;
    expect4(q, 1, 4, 9, r * r);
    expect4(s, 2, 9, 6, 2 * r + 2);
    expect4(w, 4, 16, 36, 4 * r * r);
    expect4(t, 2, 4, 4, 2);
  }
  shloc_executable_destroy(x);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_reshape_shares)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
