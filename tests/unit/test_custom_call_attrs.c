/* backend_config dictionaries -> FFI attributes, through MLIR text: every
 * scalar kind and width, strings, dense arrays, dense elements (shapes
 * flattened, splats expanded), nested dictionaries, byte-wise name order,
 * the three spellings of typed-FFI configuration, and the attribute kinds
 * XLA rejects. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cc_harness.h"

/* Records the attributes of the last execute call: the frame is the call's,
 * but the arrays it points to stay valid while the executable lives. */
static XLA_FFI_Attrs seen_attrs;
static const XLA_FFI_Attrs *seen;
static XLA_FFI_Error *probe(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  seen_attrs = cf->attrs;
  seen = &seen_attrs;
  return NULL;
}

static shloc_ffi_registry *reg;

static int setup(void **state) {
  static const cc_target targets[] = {{"probe", "cpu", .typed = probe}};
  return cc_setup(state, &reg, targets, 1);
}

/* Runs a no-operand probe call with the given op attributes. */
static void run_probe(const char *op_attrs, cc_prog *p) {
  char text[4096];
  snprintf(text, sizeof text,
           "func.func @main() {\n"
           "  stablehlo.custom_call @probe() {has_side_effect = true, %s} : () -> ()\n"
           "  return\n"
           "}\n",
           op_attrs);
  seen = NULL;
  cc_build_run(text, reg, NULL, NULL, p);
  assert_non_null(seen);
}

static void expect_create_error(const char *op_attrs, shloc_code code, const char *needle) {
  char text[4096];
  snprintf(text, sizeof text,
           "func.func @main() {\n"
           "  stablehlo.custom_call @probe() {has_side_effect = true, %s} : () -> ()\n"
           "  return\n"
           "}\n",
           op_attrs);
  cc_prog p;
  expect_error(cc_build(text, reg, &p), code, needle);
}

static const XLA_FFI_Scalar *scalar(const XLA_FFI_Attrs *a, const char *name, XLA_FFI_DataType dt) {
  const XLA_FFI_Scalar *s = shloc_ffi_attr_scalar(a, name, dt);
  if (!s) fail_msg("no scalar '%s' of dtype %d", name, (int)dt);
  return s;
}

static const XLA_FFI_Array *array(const XLA_FFI_Attrs *a, const char *name, XLA_FFI_DataType dt, size_t n) {
  const XLA_FFI_Array *arr = shloc_ffi_attr_array(a, name, dt);
  if (!arr) fail_msg("no array '%s' of dtype %d", name, (int)dt);
  assert_int_equal(arr->size, n);
  return arr;
}

static void test_integer_scalars(void **state) {
  (void)state;
  cc_prog p;
  run_probe("mhlo.backend_config = {s8 = -5 : i8, s16 = -300 : i16, s32 = -70000 : i32, s64 = -5000000000 : i64, "
            "plain = 7, si = -2 : si16, u8 = 255 : ui8, u16 = 65535 : ui16, u32 = 4294967295 : ui32, "
            "u64 = 18446744073709551615 : ui64}",
            &p);
  assert_int_equal(seen->size, 10);
  assert_int_equal(*(int8_t *)scalar(seen, "s8", XLA_FFI_DataType_S8)->value, -5);
  assert_int_equal(*(int16_t *)scalar(seen, "s16", XLA_FFI_DataType_S16)->value, -300);
  assert_int_equal(*(int32_t *)scalar(seen, "s32", XLA_FFI_DataType_S32)->value, -70000);
  assert_true(*(int64_t *)scalar(seen, "s64", XLA_FFI_DataType_S64)->value == -5000000000ll);
  /* An integer without a type is i64 in MLIR. */
  assert_int_equal(*(int64_t *)scalar(seen, "plain", XLA_FFI_DataType_S64)->value, 7);
  assert_int_equal(*(int16_t *)scalar(seen, "si", XLA_FFI_DataType_S16)->value, -2);
  assert_int_equal(*(uint8_t *)scalar(seen, "u8", XLA_FFI_DataType_U8)->value, 255);
  assert_int_equal(*(uint16_t *)scalar(seen, "u16", XLA_FFI_DataType_U16)->value, 65535);
  assert_true(*(uint32_t *)scalar(seen, "u32", XLA_FFI_DataType_U32)->value == 4294967295u);
  assert_true(*(uint64_t *)scalar(seen, "u64", XLA_FFI_DataType_U64)->value == UINT64_MAX);
  cc_free(&p);
}

static void test_bool_and_float_scalars(void **state) {
  (void)state;
  cc_prog p;
  run_probe("mhlo.backend_config = {t = true, f = false, one = 1 : i1, x = 1.5 : f32, "
            "y = -2.25E+300 : f64, eps = 9.99999974E-6 : f32}",
            &p);
  bool b;
  assert_true(shloc_ffi_attr_get_bool(seen, "t", &b) && b);
  assert_true(shloc_ffi_attr_get_bool(seen, "f", &b) && !b);
  assert_true(shloc_ffi_attr_get_bool(seen, "one", &b) && b);
  assert_int_equal(*(uint8_t *)scalar(seen, "t", XLA_FFI_DataType_PRED)->value, 1);
  float x, eps;
  double y;
  assert_true(shloc_ffi_attr_get_f32(seen, "x", &x) && x == 1.5f);
  assert_true(shloc_ffi_attr_get_f64(seen, "y", &y) && y == -2.25e300);
  assert_true(shloc_ffi_attr_get_f32(seen, "eps", &eps) && eps == 9.99999974E-6f);
  cc_free(&p);
}

static void test_strings(void **state) {
  (void)state;
  cc_prog p;
  run_probe("mhlo.backend_config = {name = \"rms\\22norm\", empty = \"\", nul = \"a\\00b\"}", &p);
  const XLA_FFI_ByteSpan *s = shloc_ffi_attr_string(seen, "name");
  assert_non_null(s);
  assert_int_equal(s->len, 8);
  assert_memory_equal(s->ptr, "rms\"norm", 8);
  s = shloc_ffi_attr_string(seen, "empty");
  assert_non_null(s);
  assert_int_equal(s->len, 0);
  s = shloc_ffi_attr_string(seen, "nul");
  assert_non_null(s);
  assert_int_equal(s->len, 3);
  assert_memory_equal(s->ptr, "a\0b", 3);
  cc_free(&p);
}

static void test_dense_arrays(void **state) {
  (void)state;
  cc_prog p;
  run_probe("mhlo.backend_config = {a8 = array<i8: 1, -2>, a16 = array<i16: -3, 4, 5>, a32 = array<i32: 6>, "
            "a64 = array<i64: -7, 8>, af = array<f32: 0.5, -1.0>, ad = array<f64: 2.5>, empty = array<i64>}",
            &p);
  const XLA_FFI_Array *a = array(seen, "a8", XLA_FFI_DataType_S8, 2);
  assert_int_equal(((int8_t *)a->data)[1], -2);
  a = array(seen, "a16", XLA_FFI_DataType_S16, 3);
  assert_int_equal(((int16_t *)a->data)[0], -3);
  assert_int_equal(((int16_t *)a->data)[2], 5);
  a = array(seen, "a32", XLA_FFI_DataType_S32, 1);
  assert_int_equal(((int32_t *)a->data)[0], 6);
  a = array(seen, "a64", XLA_FFI_DataType_S64, 2);
  assert_int_equal(((int64_t *)a->data)[0], -7);
  a = array(seen, "af", XLA_FFI_DataType_F32, 2);
  assert_true(((float *)a->data)[1] == -1.0f);
  a = array(seen, "ad", XLA_FFI_DataType_F64, 1);
  assert_true(((double *)a->data)[0] == 2.5);
  array(seen, "empty", XLA_FFI_DataType_S64, 0);
  cc_free(&p);
}

static void test_dense_elements(void **state) {
  (void)state;
  cc_prog p;
  run_probe("mhlo.backend_config = {m = dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>, s = dense<7> : tensor<i64>, "
            "splat = dense<5> : tensor<3xui8>, u16 = dense<[1, 65535]> : tensor<2xui16>, "
            "f = dense<[1.5, 2.5]> : tensor<2xf32>, d = dense<-0.5> : tensor<2x2xf64>, "
            "i8 = dense<[-1, 2, -3]> : tensor<3xi8>, u64 = dense<[18446744073709551615]> : tensor<1xui64>}",
            &p);
  /* Shapes are lost: a 2x2 matrix arrives as 4 elements, a 0-d tensor as an array of 1. */
  const XLA_FFI_Array *a = array(seen, "m", XLA_FFI_DataType_S32, 4);
  for (int i = 0; i < 4; i++) assert_int_equal(((int32_t *)a->data)[i], i + 1);
  a = array(seen, "s", XLA_FFI_DataType_S64, 1);
  assert_int_equal(((int64_t *)a->data)[0], 7);
  a = array(seen, "splat", XLA_FFI_DataType_U8, 3);
  for (int i = 0; i < 3; i++) assert_int_equal(((uint8_t *)a->data)[i], 5);
  a = array(seen, "u16", XLA_FFI_DataType_U16, 2);
  assert_int_equal(((uint16_t *)a->data)[1], 65535);
  a = array(seen, "f", XLA_FFI_DataType_F32, 2);
  assert_true(((float *)a->data)[1] == 2.5f);
  a = array(seen, "d", XLA_FFI_DataType_F64, 4);
  for (int i = 0; i < 4; i++) assert_true(((double *)a->data)[i] == -0.5);
  a = array(seen, "i8", XLA_FFI_DataType_S8, 3);
  assert_int_equal(((int8_t *)a->data)[2], -3);
  a = array(seen, "u64", XLA_FFI_DataType_U64, 1);
  assert_true(((uint64_t *)a->data)[0] == UINT64_MAX);
  cc_free(&p);
}

static void test_nested_dictionaries_and_order(void **state) {
  (void)state;
  cc_prog p;
  run_probe("mhlo.backend_config = {b = 1 : i32, a = {z = \"deep\", y = {x = 2.0 : f64}}, B = 3 : i32, aa = 4 : i32, "
            "\"a b\" = 5 : i32}",
            &p);
  /* Byte-wise order: "B" < "a" < "a b" < "aa" < "b". */
  static const char *const order[] = {"B", "a", "a b", "aa", "b"};
  assert_int_equal(seen->size, 5);
  for (int i = 0; i < 5; i++) {
    assert_int_equal(seen->names[i]->len, strlen(order[i]));
    assert_memory_equal(seen->names[i]->ptr, order[i], strlen(order[i]));
  }
  const XLA_FFI_Attrs *a = shloc_ffi_attr_dict(seen, "a");
  assert_non_null(a);
  assert_int_equal(a->struct_size, XLA_FFI_Attrs_STRUCT_SIZE);
  assert_int_equal(a->size, 2);
  const XLA_FFI_ByteSpan *z = shloc_ffi_attr_string(a, "z");
  assert_non_null(z);
  assert_memory_equal(z->ptr, "deep", 4);
  const XLA_FFI_Attrs *y = shloc_ffi_attr_dict(a, "y");
  double x;
  assert_true(y && shloc_ffi_attr_get_f64(y, "x", &x) && x == 2.0);
  cc_free(&p);
}

/* mhlo.backend_config (JAX), backend_config + api_version 4, and a
 * backend_config string with api_version 4 (XLA parses it). */
static void test_config_spellings(void **state) {
  (void)state;
  cc_prog p;
  int32_t v;
  run_probe("backend_config = {k = 1 : i32}, api_version = 4 : i32", &p);
  assert_true(shloc_ffi_attr_get_i32(seen, "k", &v) && v == 1);
  cc_free(&p);
  run_probe("backend_config = \"{k = 2 : i32}\", api_version = 4 : i32", &p);
  assert_true(shloc_ffi_attr_get_i32(seen, "k", &v) && v == 2);
  cc_free(&p);
  run_probe("backend_config = \"\", api_version = 4 : i32", &p);
  assert_int_equal(seen->size, 0);
  cc_free(&p);
  run_probe("backend_config = \"{}\", api_version = 4 : i32", &p);
  assert_int_equal(seen->size, 0);
  cc_free(&p);
  run_probe("mhlo.backend_config = {}", &p);
  assert_int_equal(seen->size, 0);
  cc_free(&p);
  /* Op attributes never become handler attributes. */
  run_probe("mhlo.backend_config = {k = 3 : i32}, mhlo.frontend_attributes = {a = \"b\"}, "
            "operand_layouts = [], result_layouts = []",
            &p);
  assert_int_equal(seen->size, 1);
  cc_free(&p);
}

static void test_rejected_attributes(void **state) {
  (void)state;
  expect_create_error("mhlo.backend_config = {h = 1.0 : f16}", SHLOC_ERR_UNSUPPORTED,
                      "Unsupported float attribute bit width");
  expect_create_error("mhlo.backend_config = {h = 1.0 : bf16}", SHLOC_ERR_UNSUPPORTED, "'h'");
  expect_create_error("mhlo.backend_config = {n = 1 : i4}", SHLOC_ERR_UNSUPPORTED,
                      "Unsupported integer attribute bit width");
  expect_create_error("mhlo.backend_config = {n = 1 : index}", SHLOC_ERR_UNSUPPORTED,
                      "Unsupported integer attribute bit width");
  expect_create_error("mhlo.backend_config = {flag}", SHLOC_ERR_UNSUPPORTED,
                      "Unsupported attribute type for attribute: flag");
  expect_create_error("mhlo.backend_config = {l = [1, 2]}", SHLOC_ERR_UNSUPPORTED,
                      "Unsupported attribute type for attribute: l");
  expect_create_error("mhlo.backend_config = {t = f32}", SHLOC_ERR_UNSUPPORTED,
                      "Unsupported attribute type for attribute: t");
  expect_create_error("mhlo.backend_config = {b = array<i1: true>}", SHLOC_ERR_UNSUPPORTED,
                      "Unsupported array element type");
  expect_create_error("mhlo.backend_config = {d = dense<1.0> : tensor<2xbf16>}", SHLOC_ERR_UNSUPPORTED,
                      "Unsupported array element type");
  expect_create_error("mhlo.backend_config = {d = dense<true> : tensor<2xi1>}", SHLOC_ERR_UNSUPPORTED,
                      "Unsupported array element type");
  expect_create_error("mhlo.backend_config = {d = dense<1> : tensor<2xindex>}", SHLOC_ERR_UNSUPPORTED,
                      "Unsupported array element type");
  /* XLA's rules for combining the spellings. */
  expect_create_error("mhlo.backend_config = {}, backend_config = \"x\"", SHLOC_ERR_VERIFY,
                      "requires backend_config to be absent or empty");
  expect_create_error("mhlo.backend_config = {}, api_version = 2 : i32", SHLOC_ERR_VERIFY, "api_version");
  expect_create_error("backend_config = \"[1]\", api_version = 4 : i32", SHLOC_ERR_VERIFY, "must hold a dictionary");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_integer_scalars),
      cmocka_unit_test(test_bool_and_float_scalars),
      cmocka_unit_test(test_strings),
      cmocka_unit_test(test_dense_arrays),
      cmocka_unit_test(test_dense_elements),
      cmocka_unit_test(test_nested_dictionaries_and_order),
      cmocka_unit_test(test_config_spellings),
      cmocka_unit_test(test_rejected_attributes),
  };
  return cmocka_run_group_tests(tests, setup, cc_teardown);
}
