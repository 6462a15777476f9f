/* Tuple-typed custom-call results and operands: the executor passes a tuple
 * as its leaves (depth first), so a typed handler sees one buffer per leaf
 * and a legacy handler gets `out` as a table of leaf pointers, as XLA:CPU
 * does; stablehlo.tuple and get_tuple_element select leaves.  Tuples do not
 * cross region or function boundaries (a clear error). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "cc_harness.h"

/* ---- handlers ---- */

/* Records what it got; result leaf k is filled with (first element of arg 0,
 * as f32) + k in its own element type (f32, s32 or s64). */
static int64_t seen_args, seen_rets;
static XLA_FFI_DataType seen_ret_types[8], seen_arg_types[8];
static void *seen_arg_data[8], *seen_ret_data[8];
static XLA_FFI_Error *leaves(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  seen_args = cf->args.size;
  seen_rets = cf->rets.size;
  float base = 0;
  for (int64_t i = 0; i < cf->args.size && i < 8; i++) {
    XLA_FFI_Buffer *b = shloc_ffi_arg(cf, i);
    seen_arg_types[i] = b->dtype;
    seen_arg_data[i] = b->data;
  }
  if (cf->args.size && shloc_ffi_arg(cf, 0)->dtype == XLA_FFI_DataType_F32) base = *(float *)shloc_ffi_arg(cf, 0)->data;
  for (int64_t k = 0; k < cf->rets.size && k < 8; k++) {
    XLA_FFI_Buffer *r = shloc_ffi_ret(cf, k);
    seen_ret_types[k] = r->dtype;
    seen_ret_data[k] = r->data;
    for (int64_t e = 0; e < shloc_ffi_buffer_elements(r); e++) {
      switch (r->dtype) {
        case XLA_FFI_DataType_F32: ((float *)r->data)[e] = base + (float)k; break;
        case XLA_FFI_DataType_S32: ((int32_t *)r->data)[e] = (int32_t)base + (int32_t)k; break;
        case XLA_FFI_DataType_S64: ((int64_t *)r->data)[e] = (int64_t)base + k; break;
        default: return shloc_ffi_errorf(cf->api, XLA_FFI_Error_Code_INVALID_ARGUMENT, "leaves: dtype %d", r->dtype);
      }
    }
  }
  return NULL;
}

/* Legacy v1 with a tuple result: out[0] (f32 x 3) = 2 * in[0]; out[1] (i32)
 * = 42; with a third leaf (i64) out[2] = in[0][0] as an integer. */
static void *legacy_out;
static void pair_v1(void *out, const void **in) {
  legacy_out = out;
  void **t = out;
  for (int i = 0; i < 3; i++) ((float *)t[0])[i] = 2 * ((const float *)in[0])[i];
  *(int32_t *)t[1] = 42;
}
static void triple_v1(void *out, const void **in) {
  pair_v1(out, in);
  *(int64_t *)((void **)out)[2] = (int64_t)((const float *)in[0])[0];
}

/* Legacy v1 with a one-leaf tuple result: still a table. */
static void one_v1(void *out, const void **in) {
  legacy_out = out;
  *(float *)((void **)out)[0] = *(const float *)in[0] + 1;
}

/* Legacy v1 taking a tuple operand: in[0], in[1] are its leaves; out = in0 + in1 (i32 x 2). */
static void add_leaves_v1(void *out, const void **in) {
  for (int i = 0; i < 2; i++) ((int32_t *)out)[i] = ((const int32_t *)in[0])[i] + ((const int32_t *)in[1])[i];
}

/* Typed, in place on result leaf 1, which must be operand 0's buffer. */
static int same_pointer;
static XLA_FFI_Error *bump_second(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  XLA_FFI_Buffer *x = shloc_ffi_arg(cf, 0), *r0 = shloc_ffi_ret(cf, 0), *r1 = shloc_ffi_ret(cf, 1);
  same_pointer = x->data == r1->data;
  for (int64_t i = 0; i < shloc_ffi_buffer_elements(r1); i++) ((int32_t *)r1->data)[i] += 1;
  *(float *)r0->data = 0.5f;
  return NULL;
}

static shloc_ffi_registry *reg;

static int setup(void **state) {
  static const cc_target targets[] = {
      {"leaves", "cpu", .typed = leaves},
      {"bump_second", "cpu", .typed = bump_second},
      {"pair", "cpu", .legacy = (shloc_legacy_fn)pair_v1},
      {"triple", "cpu", .legacy = (shloc_legacy_fn)triple_v1},
      {"one", "cpu", .legacy = (shloc_legacy_fn)one_v1},
      {"add_leaves", "cpu", .legacy = (shloc_legacy_fn)add_leaves_v1},
  };
  return cc_setup(state, &reg, targets, sizeof targets / sizeof *targets);
}

/* ---- typed ---- */

static void test_typed_tuple_result(void **state) {
  (void)state;
  const char *text =
      "func.func @main(%x: tensor<4xf32>) -> (tensor<2xi32>, tensor<4xf32>) {\n"
      "  %0 = stablehlo.custom_call @leaves(%x) {api_version = 4 : i32} : (tensor<4xf32>) -> "
      "tuple<tensor<4xf32>, tensor<2xi32>>\n"
      "  %1 = stablehlo.get_tuple_element %0[1] : (tuple<tensor<4xf32>, tensor<2xi32>>) -> tensor<2xi32>\n"
      "  %2 = stablehlo.get_tuple_element %0[0] : (tuple<tensor<4xf32>, tensor<2xi32>>) -> tensor<4xf32>\n"
      "  return %1, %2 : tensor<2xi32>, tensor<4xf32>\n"
      "}\n";
  float x[4] = {5, 0, 0, 0};
  void *in[1] = {x};
  cc_prog p;
  shloc_tensor res[2];
  cc_build_run(text, reg, in, res, &p);
  assert_int_equal(seen_args, 1);
  assert_int_equal(seen_rets, 2);
  assert_int_equal(seen_ret_types[0], XLA_FFI_DataType_F32);
  assert_int_equal(seen_ret_types[1], XLA_FFI_DataType_S32);
  for (int i = 0; i < 2; i++) assert_int_equal(((int32_t *)res[0].data)[i], 6);
  for (int i = 0; i < 4; i++) assert_true(((float *)res[1].data)[i] == 5);
  cc_free_results(res, 2);
  cc_free(&p);
}

/* tuple<f32, tuple<i32[2], i64>>: three leaves, depth first; a nested
 * get_tuple_element chain reaches the innermost one. */
static void test_typed_nested_tuple_result(void **state) {
  (void)state;
  const char *text =
      "func.func @main(%x: tensor<f32>) -> (tensor<f32>, tensor<2xi32>, tensor<i64>) {\n"
      "  %0 = stablehlo.custom_call @leaves(%x) {api_version = 4 : i32} : (tensor<f32>) -> "
      "tuple<tensor<f32>, tuple<tensor<2xi32>, tensor<i64>>>\n"
      "  %1 = stablehlo.get_tuple_element %0[1] : (tuple<tensor<f32>, tuple<tensor<2xi32>, tensor<i64>>>) -> "
      "tuple<tensor<2xi32>, tensor<i64>>\n"
      "  %2 = stablehlo.get_tuple_element %1[1] : (tuple<tensor<2xi32>, tensor<i64>>) -> tensor<i64>\n"
      "  %3 = stablehlo.get_tuple_element %1[0] : (tuple<tensor<2xi32>, tensor<i64>>) -> tensor<2xi32>\n"
      "  %4 = stablehlo.get_tuple_element %0[0] : (tuple<tensor<f32>, tuple<tensor<2xi32>, tensor<i64>>>) -> "
      "tensor<f32>\n"
      "  return %4, %3, %2 : tensor<f32>, tensor<2xi32>, tensor<i64>\n"
      "}\n";
  float x = 10;
  void *in[1] = {&x};
  cc_prog p;
  shloc_tensor res[3];
  cc_build_run(text, reg, in, res, &p);
  assert_int_equal(seen_rets, 3);
  assert_int_equal(seen_ret_types[2], XLA_FFI_DataType_S64);
  assert_true(*(float *)res[0].data == 10);
  assert_int_equal(((int32_t *)res[1].data)[1], 11);
  assert_int_equal(*(int64_t *)res[2].data, 12);
  cc_free_results(res, 3);
  cc_free(&p);
}

/* A tuple built with stablehlo.tuple (nested, with a plain operand next to
 * it) reaches the handler as its leaves. */
static void test_typed_tuple_operand(void **state) {
  (void)state;
  const char *text =
      "func.func @main(%a: tensor<f32>, %b: tensor<2xi32>, %c: tensor<i64>) -> tensor<i64> {\n"
      "  %i = stablehlo.tuple %b, %c : tuple<tensor<2xi32>, tensor<i64>>\n"
      "  %t = stablehlo.tuple %a, %i : tuple<tensor<f32>, tuple<tensor<2xi32>, tensor<i64>>>\n"
      "  %0 = stablehlo.custom_call @leaves(%a, %t) {api_version = 4 : i32} : (tensor<f32>, "
      "tuple<tensor<f32>, tuple<tensor<2xi32>, tensor<i64>>>) -> tensor<i64>\n"
      "  return %0 : tensor<i64>\n"
      "}\n";
  float a = 3;
  int32_t b[2] = {1, 2};
  int64_t c = 9;
  void *in[3] = {&a, b, &c};
  cc_prog p;
  shloc_tensor res;
  cc_build_run(text, reg, in, &res, &p);
  assert_int_equal(seen_args, 4);
  assert_int_equal(seen_arg_types[0], XLA_FFI_DataType_F32);
  assert_int_equal(seen_arg_types[1], XLA_FFI_DataType_F32);
  assert_int_equal(seen_arg_types[2], XLA_FFI_DataType_S32);
  assert_int_equal(seen_arg_types[3], XLA_FFI_DataType_S64);
  assert_int_equal(((int32_t *)seen_arg_data[2])[1], 2);
  assert_int_equal(*(int64_t *)seen_arg_data[3], 9);
  assert_int_equal(*(int64_t *)res.data, 3);
  cc_free_results(&res, 1);
  cc_free(&p);
}

/* output_tuple_indices = [1] on a single tuple result names its leaf 1. */
static void test_alias_into_tuple_result(void **state) {
  (void)state;
  const char *text =
      "func.func @main(%x: tensor<3xi32>) -> (tensor<3xi32>, tensor<f32>, tensor<3xi32>) {\n"
      "  %0 = stablehlo.custom_call @bump_second(%x) {api_version = 4 : i32, output_operand_aliases = "
      "[#stablehlo.output_operand_alias<output_tuple_indices = [1], operand_index = 0, operand_tuple_indices = []>]} "
      ": (tensor<3xi32>) -> tuple<tensor<f32>, tensor<3xi32>>\n"
      "  %1 = stablehlo.get_tuple_element %0[1] : (tuple<tensor<f32>, tensor<3xi32>>) -> tensor<3xi32>\n"
      "  %2 = stablehlo.get_tuple_element %0[0] : (tuple<tensor<f32>, tensor<3xi32>>) -> tensor<f32>\n"
      "  return %1, %2, %x : tensor<3xi32>, tensor<f32>, tensor<3xi32>\n"
      "}\n";
  int32_t x[3] = {1, 2, 3};
  void *in[1] = {x};
  cc_prog p;
  shloc_tensor res[3];
  same_pointer = 0;
  assert_ok(cc_build_opt(text, reg, false, &p));
  assert_ok(cc_run(&p, in, res));
  assert_true(same_pointer);
  for (int i = 0; i < 3; i++) {
    assert_int_equal(((int32_t *)res[0].data)[i], x[i] + 1);
    assert_int_equal(((int32_t *)res[2].data)[i], x[i]);
  }
  assert_true(*(float *)res[1].data == 0.5f);
  cc_free_results(res, 3);
  cc_free(&p);
}

/* A tuple made outside a loop and taken apart inside it (captured leaves),
 * and a tuple-returning call inside the body. */
static void test_tuples_inside_regions(void **state) {
  (void)state;
  const char *text =
      "func.func @main(%x: tensor<f32>) -> tensor<f32> {\n"
      "  %t = stablehlo.tuple %x, %x : tuple<tensor<f32>, tensor<f32>>\n"
      "  %c0 = stablehlo.constant dense<0> : tensor<i64>\n"
      "  %c1 = stablehlo.constant dense<1> : tensor<i64>\n"
      "  %c3 = stablehlo.constant dense<3> : tensor<i64>\n"
      "  %w:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i64>, tensor<f32>\n"
      "    cond {\n"
      "      %lt = stablehlo.compare LT, %i, %c3 : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
      "      stablehlo.return %lt : tensor<i1>\n"
      "    } do {\n"
      "      %e = stablehlo.get_tuple_element %t[1] : (tuple<tensor<f32>, tensor<f32>>) -> tensor<f32>\n"
      "      %s = stablehlo.add %v, %e : tensor<f32>\n"
      "      %r = stablehlo.custom_call @leaves(%s) {api_version = 4 : i32} : (tensor<f32>) -> "
      "tuple<tensor<i64>, tensor<f32>>\n"
      "      %n = stablehlo.get_tuple_element %r[1] : (tuple<tensor<i64>, tensor<f32>>) -> tensor<f32>\n"
      "      %j = stablehlo.add %i, %c1 : tensor<i64>\n"
      "      stablehlo.return %j, %n : tensor<i64>, tensor<f32>\n"
      "    }\n"
      "  return %w#1 : tensor<f32>\n"
      "}\n";
  /* Each iteration: v = (v + x) + 1. */
  float x = 2;
  void *in[1] = {&x};
  cc_prog p;
  shloc_tensor res;
  cc_build_run(text, reg, in, &res, &p);
  assert_true(*(float *)res.data == 2 + 3 * 3);
  cc_free_results(&res, 1);
  cc_free(&p);
}

/* ---- legacy ---- */

static void test_legacy_tuple_result_table(void **state) {
  (void)state;
  const char *text =
      "func.func @main(%x: tensor<3xf32>) -> (tensor<i32>, tensor<3xf32>, tensor<i64>) {\n"
      "  %0 = stablehlo.custom_call @pair(%x) : (tensor<3xf32>) -> tuple<tensor<3xf32>, tensor<i32>>\n"
      "  %1 = stablehlo.get_tuple_element %0[1] : (tuple<tensor<3xf32>, tensor<i32>>) -> tensor<i32>\n"
      "  %2 = stablehlo.get_tuple_element %0[0] : (tuple<tensor<3xf32>, tensor<i32>>) -> tensor<3xf32>\n"
      "  %3 = stablehlo.custom_call @triple(%x) : (tensor<3xf32>) -> "
      "tuple<tuple<tensor<3xf32>, tensor<i32>>, tensor<i64>>\n"
      "  %4 = stablehlo.get_tuple_element %3[1] : (tuple<tuple<tensor<3xf32>, tensor<i32>>, tensor<i64>>) -> "
      "tensor<i64>\n"
      "  return %1, %2, %4 : tensor<i32>, tensor<3xf32>, tensor<i64>\n"
      "}\n";
  float x[3] = {7, 8, 9};
  void *in[1] = {x};
  cc_prog p;
  shloc_tensor res[3];
  cc_build_run(text, reg, in, res, &p);
  assert_int_equal(*(int32_t *)res[0].data, 42);
  for (int i = 0; i < 3; i++) assert_true(((float *)res[1].data)[i] == 2 * x[i]);
  assert_int_equal(*(int64_t *)res[2].data, 7);
  cc_free_results(res, 3);
  cc_free(&p);
}

static void test_legacy_one_leaf_tuple_and_tuple_operand(void **state) {
  (void)state;
  const char *text =
      "func.func @main(%x: tensor<f32>, %a: tensor<2xi32>, %b: tensor<2xi32>) -> (tensor<f32>, tensor<2xi32>) {\n"
      "  %0 = stablehlo.custom_call @one(%x) : (tensor<f32>) -> tuple<tensor<f32>>\n"
      "  %1 = stablehlo.get_tuple_element %0[0] : (tuple<tensor<f32>>) -> tensor<f32>\n"
      "  %t = stablehlo.tuple %a, %b : tuple<tensor<2xi32>, tensor<2xi32>>\n"
      "  %2 = stablehlo.custom_call @add_leaves(%t) : (tuple<tensor<2xi32>, tensor<2xi32>>) -> tensor<2xi32>\n"
      "  return %1, %2 : tensor<f32>, tensor<2xi32>\n"
      "}\n";
  float x = 1.5f;
  int32_t a[2] = {1, 2}, b[2] = {30, 40};
  void *in[3] = {&x, a, b};
  cc_prog p;
  shloc_tensor res[2];
  cc_build_run(text, reg, in, res, &p);
  assert_true(*(float *)res[0].data == 2.5f);
  assert_int_equal(((int32_t *)res[1].data)[0], 31);
  assert_int_equal(((int32_t *)res[1].data)[1], 42);
  cc_free_results(res, 2);
  cc_free(&p);
}

/* ---- what stays unsupported ---- */

static void test_tuple_boundaries_rejected(void **state) {
  (void)state;
  cc_prog p;
  const char *text =
      "func.func @main(%x: tensor<f32>) -> tuple<tensor<f32>, tensor<i32>> {\n"
      "  %0 = stablehlo.custom_call @leaves(%x) {api_version = 4 : i32} : (tensor<f32>) -> "
      "tuple<tensor<f32>, tensor<i32>>\n"
      "  return %0 : tuple<tensor<f32>, tensor<i32>>\n"
      "}\n";
  /* The public API refuses the signature first; plan it below the API too. */
  expect_error(cc_build(text, reg, &p), SHLOC_ERR_UNSUPPORTED, "result #0");
  text =
      "func.func @main(%x: tensor<f32>) -> tensor<f32> {\n"
      "  %t = stablehlo.tuple %x : tuple<tensor<f32>>\n"
      "  %0 = func.call @f(%t) : (tuple<tensor<f32>>) -> tensor<f32>\n"
      "  return %0 : tensor<f32>\n"
      "}\n"
      "func.func @f(%t: tuple<tensor<f32>>) -> tensor<f32> {\n"
      "  %0 = stablehlo.get_tuple_element %t[0] : (tuple<tensor<f32>>) -> tensor<f32>\n"
      "  return %0 : tensor<f32>\n"
      "}\n";
  expect_error(cc_build(text, reg, &p), SHLOC_ERR_UNSUPPORTED, "operand #0 is a tuple");
  text =
      "func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {\n"
      "  %0 = stablehlo.custom_call @leaves(%x) {api_version = 4 : i32, operand_layouts = [dense<[0, 1]> : "
      "tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>]} : (tensor<2x2xf32>) -> "
      "tuple<tensor<2x2xf32>>\n"
      "  %1 = stablehlo.get_tuple_element %0[0] : (tuple<tensor<2x2xf32>>) -> tensor<2x2xf32>\n"
      "  return %1 : tensor<2x2xf32>\n"
      "}\n";
  expect_error(cc_build_opt(text, reg, false, &p), SHLOC_ERR_UNSUPPORTED, "leaves of a tuple result");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_typed_tuple_result),
      cmocka_unit_test(test_typed_nested_tuple_result),
      cmocka_unit_test(test_typed_tuple_operand),
      cmocka_unit_test(test_alias_into_tuple_result),
      cmocka_unit_test(test_tuples_inside_regions),
      cmocka_unit_test(test_legacy_tuple_result_table),
      cmocka_unit_test(test_legacy_one_leaf_tuple_and_tuple_operand),
      cmocka_unit_test(test_tuple_boundaries_rejected),
  };
  return cmocka_run_group_tests(tests, setup, cc_teardown);
}
