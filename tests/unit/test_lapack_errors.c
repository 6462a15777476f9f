/* Bad input to the built-in JAX LAPACK targets: wrong attribute types,
 * missing attributes, characters outside the routine's set, unimplemented
 * modes (gesdd 'O', gees sort 'S'), shapes that do not fit together, rank <
 * 2, wrong element types and counts.  Each gives the handler's error, with
 * the XLA error code and the custom call's position (lapack.mlir:2:3), and
 * never a crash.  Also: the targets resolve with or without a registry, a
 * handler the user registers under the same name wins (no ALREADY_EXISTS),
 * and the exported symbols can be registered under other names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lapack_harness.h"
#include "shloc/jax_targets.h"

/* Runs the module and expects a runtime error at the call containing needle. */
static void expect_call_error(const char *target, const char *config, int n_in, lt_tensor *in, int n_out,
                              lt_tensor *out, const int *alias, const char *needle) {
  for (int i = 0; i < n_in; i++) lt_alloc(&in[i]);
  char *text = lt_module(target, config, n_in, in, n_out, out, alias);
  shloc_status st = lt_run_text(text, NULL, n_in, in, n_out, out);
  if (!st) fail_msg("expected an error containing '%s' from\n%s", needle, text);
  const char *file;
  int line, col;
  shloc_status_location(st, &file, &line, &col);
  if (!strstr(shloc_status_message(st), needle) || !file || strcmp(file, "lapack.mlir") || line != 2 || col != 3)
    fail_msg("got '%s' at %s:%d:%d; expected '%s' at lapack.mlir:2:3", shloc_status_message(st), file ? file : "?",
             line, col, needle);
  shloc_status_free(st);
  free(text);
  lt_free(in, n_in);
}

#define F32 XLA_FFI_DataType_F32
#define S32 XLA_FFI_DataType_S32

static void test_attributes(void **state) {
  lt_tensor a = LT(F32, 2, 2), out[2] = {LT(F32, 2, 2), LT0(S32)};
  int alias[] = {0, -1};
  expect_call_error("lapack_spotrf_ffi", "{}", 1, &a, 2, out, alias,
                    "INVALID_ARGUMENT: missing attribute 'uplo' (a ui8 ASCII code)");
  expect_call_error("lapack_spotrf_ffi", "{uplo = 76 : i32}", 1, &a, 2, out, alias,
                    "INVALID_ARGUMENT: attribute 'uplo' must be a ui8 ASCII code, got a scalar of type S32");
  expect_call_error("lapack_spotrf_ffi", "{uplo = \"L\"}", 1, &a, 2, out, alias,
                    "attribute 'uplo' must be a ui8 ASCII code, got an attribute of another kind");
  expect_call_error("lapack_spotrf_ffi", "{uplo = 88 : ui8}", 1, &a, 2, out, alias,
                    "INVALID_ARGUMENT: attribute 'uplo' = 88 is not one of the characters 'LU'");
  lt_tensor sv[5] = {LT(F32, 2, 2), LT(F32, 2), LT(F32, 2, 2), LT(F32, 2, 2), LT0(S32)};
  expect_call_error("lapack_sgesdd_ffi", "{mode = 79 : ui8}", 1, &a, 5, sv, (int[]){0, -1, -1, -1, -1},
                    "UNIMPLEMENTED: attribute 'mode' = 'O' (79) is not implemented");
  lt_tensor gs[6] = {LT(F32, 2, 2), LT(F32, 2, 2), LT(F32, 2), LT(F32, 2), LT0(S32), LT0(S32)};
  expect_call_error("lapack_sgees_ffi", "{mode = 86 : ui8, sort = 83 : ui8}", 1, &a, 6, gs,
                    (int[]){0, -1, -1, -1, -1, -1}, "UNIMPLEMENTED: attribute 'sort' = 'S' (83) is not implemented");
  lt_tensor hr[3] = {LT(F32, 2, 2), LT(F32, 1), LT0(S32)};
  expect_call_error("lapack_sgehrd_ffi", "{high = 2 : i64, low = 1 : i32}", 1, &a, 3, hr, (int[]){0, -1, -1},
                    "attribute 'high' must be an i32, got a scalar of type S64");
  expect_call_error("lapack_sgehrd_ffi", "{high = 3 : i32, low = 1 : i32}", 1, &a, 3, hr, (int[]){0, -1, -1},
                    "attributes low = 1, high = 3 are not 1 <= low <= high <= 2");
  lt_tensor c = LT(F32, 2, 2), res = LT(F32, 2, 2);
  lt_tensor om[3] = {LT(F32, 2, 2), LT(F32, 2), c};
  expect_call_error("lapack_sormqr_ffi", "{left = 1 : i8, transpose = false}", 3, om, 1, &res, (int[]){2},
                    "attribute 'left' must be a bool, got a scalar of type S8");
}

static void test_shapes(void **state) {
  lt_tensor v = LT(F32, 3), o1[3] = {LT(F32, 3), LT(S32, 1), LT0(S32)};
  expect_call_error("lapack_sgetrf_ffi", "{}", 1, &v, 3, o1, (int[]){0, -1, -1},
                    "operand 0 is F32[3]; expected a F32 matrix of rank >= 2");
  lt_tensor a = LT(F32, 3, 2), o2[3] = {LT(F32, 3, 2), LT(S32, 3), LT0(S32)};
  expect_call_error("lapack_sgetrf_ffi", "{}", 1, &a, 3, o2, (int[]){0, -1, -1},
                    "result 1 is S32[3]; expected S32[2]");
  lt_tensor ab = LT(F32, 4, 3, 2), o3[3] = {LT(F32, 4, 3, 2), LT(S32, 5, 2), LT(S32, 4)};
  expect_call_error("lapack_sgetrf_ffi", "{}", 1, &ab, 3, o3, (int[]){0, -1, -1},
                    "result 1 is S32[5,2]; expected S32[4,2]");
  lt_tensor o4[3] = {LT(F32, 3, 2), LT(S32, 2), LT0(F32)};
  expect_call_error("lapack_sgetrf_ffi", "{}", 1, &a, 3, o4, (int[]){0, -1, -1}, "result 2 is F32[]; expected S32[]");
  lt_tensor o5[2] = {LT(F32, 3, 2), LT(S32, 2)};
  expect_call_error("lapack_sgetrf_ffi", "{}", 1, &a, 2, o5, (int[]){0, -1},
                    "expects 1 operands and 3 results, got 1 and 2");
  lt_tensor d = LT(XLA_FFI_DataType_F64, 3, 3), o6[3] = {LT(XLA_FFI_DataType_F64, 3, 3), LT(S32, 3), LT0(S32)};
  expect_call_error("lapack_sgetrf_ffi", "{}", 1, &d, 3, o6, (int[]){0, -1, -1},
                    "operand 0 is F64[3,3]; expected a F32 matrix");
  lt_tensor p[2] = {LT(F32, 3, 2), LT0(S32)};
  expect_call_error("lapack_spotrf_ffi", "{uplo = 76 : ui8}", 1, &a, 2, p, (int[]){0, -1},
                    "operand 0 is not square (3 x 2)");
  /* trsm: a matches neither y's rows (side L) nor its batch */
  lt_tensor t[2] = {LT(F32, 2, 3, 3), LT(F32, 2, 4, 2)}, ty = LT(F32, 2, 4, 2);
  expect_call_error("lapack_strsm_ffi", "{diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}", 2,
                    t, 1, &ty, (int[]){1}, "operand 0 is F32[2,3,3]; expected F32[2,4,4]");
  lt_tensor q[2] = {LT(F32, 2, 3), LT(F32, 3)}, qo = LT(F32, 2, 3);
  expect_call_error("lapack_sorgqr_ffi", "{}", 2, q, 1, &qo, (int[]){0}, "needs columns <= rows");
  lt_tensor sv[5] = {LT(F32, 3, 2), LT(F32, 2), LT(F32, 3, 2), LT(F32, 3, 2), LT0(S32)};
  expect_call_error("lapack_sgesdd_ffi", "{mode = 65 : ui8}", 1, &a, 5, sv, (int[]){0, -1, -1, -1, -1},
                    "do not fit mode 'A'");
  lt_tensor g[4] = {LT(F32, 3), LT(F32, 4), LT(F32, 3), LT(F32, 3, 1)},
            go[5] = {LT(F32, 3), LT(F32, 4), LT(F32, 3), LT(F32, 3, 1), LT0(S32)};
  expect_call_error("lapack_sgtsv_ffi", "{}", 4, g, 5, go, (int[]){0, 1, 2, 3, -1},
                    "operand 1 is F32[4]; expected F32[3]");
}

/* ---- resolution ---- */

static int calls;
static XLA_FFI_Error *fake_getrf(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  calls++;
  XLA_FFI_Buffer *info = shloc_ffi_ret(cf, 2);
  *(int32_t *)info->data = 42;
  return NULL;
}

/* getrf's info for a 2x2 zero matrix, from the target named by %s. */
static const char *const getrf_format =
    "func.func @main(%%arg0: tensor<2x2xf32>) -> tensor<i32> {\n"
    "  %%0:3 = stablehlo.custom_call @%s(%%arg0) {mhlo.backend_config = {}, operand_layouts = "
    "[dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices "
    "= [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, "
    "dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]} : (tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2xi32>, "
    "tensor<i32>)\n"
    "  return %%0#2 : tensor<i32>\n}\n";

static int32_t run_info(shloc_ffi_registry *reg, const char *target) {
  char text[1024];
  snprintf(text, sizeof text, getrf_format, target);
  float zero[4] = {0, 0, 0, 0};
  lt_tensor in = LT(F32, 2, 2), out = LT0(S32);
  in.data = zero;
  lt_check_ok(lt_run_text(text, reg, 1, &in, 1, &out), text);
  int32_t v = *(int32_t *)out.data;
  free(out.data);
  return v;
}

static void test_resolution(void **state) {
  /* built in: no registry, an empty registry (a zero matrix: info 1) */
  assert_int_equal(run_info(NULL, "lapack_sgetrf_ffi"), 1);
  shloc_ffi_registry *reg;
  lt_check_ok(shloc_ffi_registry_create(&reg), "");
  assert_int_equal(run_info(reg, "lapack_sgetrf_ffi"), 1);
  /* the user's handler wins, and registering it is not a conflict */
  lt_check_ok(shloc_ffi_register_handler(reg, "lapack_sgetrf_ffi", "cpu", fake_getrf), "");
  calls = 0;
  assert_int_equal(run_info(reg, "lapack_sgetrf_ffi"), 42);
  assert_int_equal(calls, 1);
  shloc_ffi_registry_destroy(reg);
  /* the exported symbol under another name */
  lt_check_ok(shloc_ffi_registry_create(&reg), "");
  lt_check_ok(shloc_ffi_register_handler(reg, "my_getrf", NULL, shloc_lapack_sgetrf_ffi), "");
  assert_int_equal(run_info(reg, "my_getrf"), 1);
  shloc_ffi_registry_destroy(reg);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_attributes),
      cmocka_unit_test(test_shapes),
      cmocka_unit_test(test_resolution),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
