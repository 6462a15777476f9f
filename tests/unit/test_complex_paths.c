/* Complex multiplication has one definition (support/scalar.h, XLA:CPU's
 * FMA-contracted product): stablehlo.multiply and a scatter whose update
 * computation multiplies give the same bits, and both give the value worked
 * out by hand for operands where the fused and unfused products differ. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "shloc/executable.h"
#include "shloc/shloc.h"
#include "ok.h"

#define T "tensor<2xcomplex<f32>>"
static const char program[] =
    "func.func @main(%x: " T ", %y: " T ") -> (" T ", " T ") {\n"
    "  %m = stablehlo.multiply %x, %y : " T "\n"
    "  %i = stablehlo.constant dense<[[0], [1]]> : tensor<2x1xi32>\n"
    "  %s = \"stablehlo.scatter\"(%x, %i, %y) <{scatter_dimension_numbers = #stablehlo.scatter<"
    "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({\n"
    "  ^bb0(%a: tensor<complex<f32>>, %b: tensor<complex<f32>>):\n"
    "    %p = stablehlo.multiply %a, %b : tensor<complex<f32>>\n"
    "    stablehlo.return %p : tensor<complex<f32>>\n"
    "  }) : (" T ", tensor<2x1xi32>, " T ") -> " T "\n"
    "  return %m, %s : " T ", " T "\n"
    "}\n";

static void test_multiply_and_scatter_agree(void **state) {
  (void)state;
  shloc_context *ctx = shloc_context_create();
  shloc_module *m;
  shloc_executable *x;
  OK(shloc_module_parse(ctx, "c.mlir", program, sizeof program - 1, 1, &m));
  OK(shloc_module_verify(m));
  OK(shloc_executable_create(m, "main", NULL, &x));
  /* a = c = e = 1 + 2^-12, b = d = 1: ac = 1 + 2^-11 + 2^-24 exactly, which
   * f32 rounds to 1 + 2^-11; ac - bd is 2^-11 unfused, 2^-11 + 2^-24 fused. */
  const float e = 1.0f + 0x1p-12f;
  float xs[4] = {e, 1, 2, -3}, ys[4] = {e, 1, 0.5f, 0.25f};
  const int64_t d[1] = {2};
  shloc_tensor args[2] = {{XLA_FFI_DataType_C64, 1, d, xs, sizeof xs}, {XLA_FFI_DataType_C64, 1, d, ys, sizeof ys}};
  float mul[4], sca[4];
  shloc_tensor res[2] = {{.data = mul, .nbytes = sizeof mul}, {.data = sca, .nbytes = sizeof sca}};
  OK(shloc_executable_run_into(x, args, 2, res, 2));
  const float want[4] = {/* (e + i)(e + i) = (e^2 - 1) + 2ei, the real part fused */
                         0x1p-11f + 0x1p-24f, 2.0f + 0x1p-11f,
                         /* (2 - 3i)(0.5 + 0.25i) = (1 + 0.75) + (0.5 - 1.5)i */
                         1.75f, -1.0f};
  assert_memory_equal(mul, want, sizeof want);
  assert_memory_equal(sca, mul, sizeof mul);
  shloc_executable_destroy(x);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_multiply_and_scatter_agree)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
