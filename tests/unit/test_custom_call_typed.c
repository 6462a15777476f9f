/* Typed FFI custom calls through MLIR text -> executable -> handler:
 * buffers, layouts, aliasing, side-effect ordering, instantiate state, errors,
 * several results, tokens and zero-sized buffers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "cc_harness.h"

#define ERR(cf, code, ...) shloc_ffi_errorf((cf)->api, XLA_FFI_Error_Code_##code, __VA_ARGS__)

/* ---- handlers ---- */

/* ret0 = 10 * arg0 over f32, element by element in memory order; records the
 * operand's bytes as the handler saw them. */
static float seen_data[64];
static int64_t seen_dims[8], seen_rank;
static XLA_FFI_Error *times10(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  XLA_FFI_Buffer *x = shloc_ffi_arg(cf, 0), *y = shloc_ffi_ret(cf, 0);
  if (!x || !y || x->dtype != XLA_FFI_DataType_F32) return ERR(cf, INVALID_ARGUMENT, "times10: bad buffers");
  int64_t n = shloc_ffi_buffer_elements(x);
  seen_rank = x->rank;
  for (int64_t d = 0; d < x->rank && d < 8; d++) seen_dims[d] = x->dims[d];
  for (int64_t i = 0; i < n && i < 64; i++) seen_data[i] = ((float *)x->data)[i];
  for (int64_t i = 0; i < n; i++) ((float *)y->data)[i] = 10 * ((float *)x->data)[i];
  return NULL;
}

/* In-place: ret0 += 1 (i32), requiring ret0 to be the very buffer of arg0. */
static int same_pointer;
static XLA_FFI_Error *inplace_inc(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  int64_t k;
  if (!shloc_ffi_attr_get_i64(&cf->attrs, "arg", &k)) k = 0;
  XLA_FFI_Buffer *x = shloc_ffi_arg(cf, k), *y = shloc_ffi_ret(cf, cf->rets.size - 1);
  same_pointer = x->data == y->data;
  if (!same_pointer) return ERR(cf, FAILED_PRECONDITION, "inplace_inc: result is not the operand's buffer");
  for (int64_t i = 0; i < shloc_ffi_buffer_elements(y); i++) ((int32_t *)y->data)[i] += 1;
  for (int64_t r = 0; r + 1 < cf->rets.size; r++) {
    XLA_FFI_Buffer *o = shloc_ffi_ret(cf, r);
    memset(o->data, 0, (size_t)shloc_ffi_buffer_elements(o) * shloc_ffi_dtype_bytes(o->dtype));
  }
  return NULL;
}

/* ret0 (i32 scalar) = how many times it ran before. */
static int32_t counter;
static XLA_FFI_Error *count(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  XLA_FFI_Buffer *y = shloc_ffi_ret(cf, 0);
  if (y) *(int32_t *)y->data = counter;
  counter++;
  return NULL;
}

/* Stateful: instantiate makes an int64 starting at attribute `start`;
 * execute returns it and increments it. */
static XLA_FFI_TypeId acc_type;
static int instantiated, deleted;
static void acc_delete(void *p) {
  deleted++;
  free(p);
}
static XLA_FFI_Error *acc_instantiate(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_INSTANTIATE);
  int64_t start;
  if (!shloc_ffi_attr_get_i64(&cf->attrs, "start", &start)) return ERR(cf, INVALID_ARGUMENT, "acc: no start");
  if (start < 0) return ERR(cf, OUT_OF_RANGE, "acc: negative start %lld", (long long)start);
  if (cf->args.size || cf->rets.size) return ERR(cf, INTERNAL, "acc: instantiate saw buffers");
  int64_t *s = malloc(sizeof *s);
  *s = start;
  instantiated++;
  return shloc_ffi_state_set(cf, &acc_type, s);
}
static XLA_FFI_Error *acc_execute(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  void *p;
  XLA_FFI_Error *e = shloc_ffi_state_get(cf, XLA_FFI_ExecutionStage_INSTANTIATE, &acc_type, &p);
  if (e) return e;
  *(int64_t *)shloc_ffi_ret(cf, 0)->data = (*(int64_t *)p)++;
  return NULL;
}

static XLA_FFI_Error *fail_widgets(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  return ERR(cf, RESOURCE_EXHAUSTED, "out of %s", "widgets");
}

/* Two results of different types: ret0 = sum of arg0 (f64), ret1 = arg0 as i32. */
static XLA_FFI_Error *sum_and_cast(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  if (cf->args.size != 1 || cf->rets.size != 2) return ERR(cf, INVALID_ARGUMENT, "sum_and_cast: arity");
  XLA_FFI_Buffer *x = shloc_ffi_arg(cf, 0), *s = shloc_ffi_ret(cf, 0), *c = shloc_ffi_ret(cf, 1);
  if (x->dtype != XLA_FFI_DataType_F64 || s->dtype != XLA_FFI_DataType_F64 || c->dtype != XLA_FFI_DataType_S32 ||
      s->rank != 0)
    return ERR(cf, INVALID_ARGUMENT, "sum_and_cast: dtypes");
  double sum = 0;
  for (int64_t i = 0; i < shloc_ffi_buffer_elements(x); i++) {
    sum += ((double *)x->data)[i];
    ((int32_t *)c->data)[i] = (int32_t)((double *)x->data)[i];
  }
  *(double *)s->data = sum;
  return NULL;
}

/* Describes what it got: tokens and zero-sized buffers. */
static int shape_calls;
static XLA_FFI_Buffer shape_args[4], shape_rets[4];
static int64_t shape_dims[8][4];
static XLA_FFI_Error *shapes(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  shape_calls++;
  for (int64_t i = 0; i < cf->args.size && i < 4; i++) {
    shape_args[i] = *shloc_ffi_arg(cf, i);
    for (int64_t d = 0; d < shape_args[i].rank && d < 4; d++) shape_dims[i][d] = shape_args[i].dims[d];
  }
  for (int64_t i = 0; i < cf->rets.size && i < 4; i++) shape_rets[i] = *shloc_ffi_ret(cf, i);
  return NULL;
}

static shloc_ffi_registry *reg;

static int setup(void **state) {
  XLA_FFI_Error *e = shloc_ffi_type_register(XLA_FFI_GetApi(), "test.acc_state", &acc_type, acc_delete);
  if (e) return -1;
  static const XLA_FFI_Handler_Bundle acc = {acc_instantiate, NULL, NULL, acc_execute};
  static const cc_target targets[] = {
      {"times10", "cpu", .typed = times10},
      {"inplace_inc", "cpu", .typed = inplace_inc},
      {"count", NULL, .typed = count},
      {"acc", "Host", .bundle = &acc},
      {"fail", "cpu", .typed = fail_widgets},
      {"sum_and_cast", "cpu", .typed = sum_and_cast},
      {"shapes", "cpu", .typed = shapes},
  };
  return cc_setup(state, &reg, targets, sizeof targets / sizeof *targets);
}

/* ---- layouts ---- */

static void run_times10(const char *layout, const float *x, float *out, int rows, int cols) {
  char text[1024];
  snprintf(text, sizeof text,
           "func.func @main(%%x: tensor<%dx%dxf32>) -> tensor<%dx%dxf32> {\n"
           "  %%0 = stablehlo.custom_call @times10(%%x) {mhlo.backend_config = {}, operand_layouts = [%s], "
           "result_layouts = [%s]} : (tensor<%dx%dxf32>) -> tensor<%dx%dxf32>\n"
           "  return %%0 : tensor<%dx%dxf32>\n"
           "}\n",
           rows, cols, rows, cols, layout, layout, rows, cols, rows, cols, rows, cols);
  cc_prog p;
  shloc_tensor res;
  void *in[1] = {(void *)x};
  cc_build_run(text, reg, in, &res, &p);
  memcpy(out, res.data, res.nbytes);
  cc_free_results(&res, 1);
  cc_free(&p);
}

static void test_row_major_layout(void **state) {
  (void)state;
  float x[6] = {0, 1, 2, 3, 4, 5}, y[6];
  run_times10("dense<[1, 0]> : tensor<2xindex>", x, y, 2, 3);
  assert_int_equal(seen_rank, 2);
  assert_int_equal(seen_dims[0], 2);
  assert_int_equal(seen_dims[1], 3);
  for (int i = 0; i < 6; i++) {
    assert_true(seen_data[i] == x[i]);
    assert_true(y[i] == 10 * x[i]);
  }
}

/* A column-major operand arrives as x[0][0], x[1][0], x[0][1], ... and the
 * column-major result comes back row-major. */
static void test_column_major_layout(void **state) {
  (void)state;
  float x[6] = {0, 1, 2, 3, 4, 5}, y[6];
  run_times10("dense<[0, 1]> : tensor<2xindex>", x, y, 2, 3);
  static const float col_major[6] = {0, 3, 1, 4, 2, 5};
  assert_int_equal(seen_dims[0], 2);
  assert_int_equal(seen_dims[1], 3);
  for (int i = 0; i < 6; i++) assert_true(seen_data[i] == col_major[i]);
  for (int i = 0; i < 6; i++) assert_true(y[i] == 10 * x[i]);
  /* A 1xN matrix is the same in both layouts. */
  run_times10("dense<[0, 1]> : tensor<2xindex>", x, y, 1, 6);
  for (int i = 0; i < 6; i++) assert_true(seen_data[i] == x[i] && y[i] == 10 * x[i]);
}

/* JAX's batched column-major layout [1, 2, 0]: each matrix of the batch is
 * contiguous and column-major. */
static void test_batched_layout(void **state) {
  (void)state;
  const char *text =
      "func.func @main(%x: tensor<2x2x3xf32>) -> tensor<2x2x3xf32> {\n"
      "  %0 = stablehlo.custom_call @times10(%x) {mhlo.backend_config = {}, "
      "operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], result_layouts = [dense<[2, 1, 0]> : tensor<3xindex>]} "
      ": (tensor<2x2x3xf32>) -> tensor<2x2x3xf32>\n"
      "  return %0 : tensor<2x2x3xf32>\n"
      "}\n";
  float x[12];
  for (int i = 0; i < 12; i++) x[i] = (float)i;
  cc_prog p;
  shloc_tensor res;
  void *in[1] = {x};
  cc_build_run(text, reg, in, &res, &p);
  static const float want_seen[12] = {0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11};
  for (int i = 0; i < 12; i++) assert_true(seen_data[i] == want_seen[i]);
  /* The result layout is row-major: the handler's memory-order output comes
   * back unchanged, i.e. 10 * the column-major sequence. */
  for (int i = 0; i < 12; i++) assert_true(((float *)res.data)[i] == 10 * want_seen[i]);
  cc_free_results(&res, 1);
  cc_free(&p);
}

/* ---- aliasing ---- */

static void test_alias_single_result(void **state) {
  (void)state;
  const char *text =
      "func.func @main(%x: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>) {\n"
      "  %0 = stablehlo.custom_call @inplace_inc(%x) {mhlo.backend_config = {}, output_operand_aliases = "
      "[#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>]} "
      ": (tensor<3xi32>) -> tensor<3xi32>\n"
      "  return %0, %x : tensor<3xi32>, tensor<3xi32>\n"
      "}\n";
  int32_t x[3] = {1, 2, 3};
  cc_prog p;
  shloc_tensor res[2];
  void *in[1] = {x};
  same_pointer = 0;
  cc_build_run(text, reg, in, res, &p);
  assert_true(same_pointer);
  for (int i = 0; i < 3; i++) {
    assert_int_equal(((int32_t *)res[0].data)[i], x[i] + 1);
    /* The operand value itself is unchanged for its other uses. */
    assert_int_equal(((int32_t *)res[1].data)[i], x[i]);
  }
  cc_free_results(res, 2);
  cc_free(&p);
}

static void test_alias_in_tuple_with_layout(void **state) {
  (void)state;
  /* Result 1 aliases operand 1; both column-major. */
  const char *text =
      "func.func @main(%a: tensor<2xf32>, %x: tensor<2x2xi32>) -> (tensor<2xf32>, tensor<2x2xi32>) {\n"
      "  %0:2 = stablehlo.custom_call @inplace_inc(%a, %x) {mhlo.backend_config = {arg = 1 : i64}, "
      "operand_layouts = [dense<[0]> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>], "
      "result_layouts = [dense<[0]> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>], "
      "output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [1], operand_index = 1, "
      "operand_tuple_indices = []>]} : (tensor<2xf32>, tensor<2x2xi32>) -> (tensor<2xf32>, tensor<2x2xi32>)\n"
      "  return %0#0, %0#1 : tensor<2xf32>, tensor<2x2xi32>\n"
      "}\n";
  float a[2] = {1, 2};
  int32_t x[4] = {10, 20, 30, 40};
  cc_prog p;
  shloc_tensor res[2];
  void *in[2] = {a, x};
  same_pointer = 0;
  /* Planned without the verifier, which does not accept output_tuple_indices
   * on multi-result ops yet. */
  assert_ok(cc_build_opt(text, reg, false, &p));
  assert_ok(cc_run(&p, in, res));
  assert_true(same_pointer);
  for (int i = 0; i < 4; i++) assert_int_equal(((int32_t *)res[1].data)[i], x[i] + 1);
  assert_true(((float *)res[0].data)[0] == 0 && ((float *)res[0].data)[1] == 0);
  cc_free_results(res, 2);
  cc_free(&p);
}

/* ---- side effects and state ---- */

static void test_side_effect_order(void **state) {
  (void)state;
  const char *text =
      "func.func @main() -> (tensor<i32>, tensor<i32>) {\n"
      "  %0 = stablehlo.custom_call @count() {has_side_effect = true, api_version = 4 : i32} : () -> tensor<i32>\n"
      "  %1 = stablehlo.custom_call @count() {has_side_effect = true, api_version = 4 : i32} : () -> tensor<i32>\n"
      "  %2 = stablehlo.custom_call @count() {has_side_effect = true, api_version = 4 : i32} : () -> tensor<i32>\n"
      "  return %0, %1 : tensor<i32>, tensor<i32>\n"
      "}\n";
  counter = 0;
  cc_prog p;
  shloc_tensor res[2];
  cc_build_run(text, reg, NULL, res, &p);
  assert_int_equal(*(int32_t *)res[0].data, 0);
  assert_int_equal(*(int32_t *)res[1].data, 1);
  /* The third call's result is unused; it still ran. */
  assert_int_equal(counter, 3);
  cc_free_results(res, 2);
  assert_ok(cc_run(&p, NULL, res));
  assert_int_equal(*(int32_t *)res[0].data, 3);
  assert_int_equal(*(int32_t *)res[1].data, 4);
  cc_free_results(res, 2);
  cc_free(&p);
}

static void test_instantiate_once_per_site(void **state) {
  (void)state;
  const char *text =
      "func.func @main() -> (tensor<i64>, tensor<i64>, tensor<i64>) {\n"
      "  %0 = stablehlo.custom_call @acc() {mhlo.backend_config = {start = 100 : i64}, has_side_effect = true} : () "
      "-> tensor<i64>\n"
      "  %1 = stablehlo.custom_call @acc() {mhlo.backend_config = {start = 7 : i64}, has_side_effect = true} : () -> "
      "tensor<i64>\n"
      "  %c0 = stablehlo.constant dense<0> : tensor<i64>\n"
      "  %c3 = stablehlo.constant dense<3> : tensor<i64>\n"
      "  %c1 = stablehlo.constant dense<1> : tensor<i64>\n"
      "  %w:2 = stablehlo.while(%i = %c0, %v = %c0) : tensor<i64>, tensor<i64>\n"
      "    cond {\n"
      "      %lt = stablehlo.compare LT, %i, %c3 : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
      "      stablehlo.return %lt : tensor<i1>\n"
      "    } do {\n"
      "      %n = stablehlo.custom_call @acc() {mhlo.backend_config = {start = 50 : i64}, has_side_effect = true} : "
      "() -> tensor<i64>\n"
      "      %j = stablehlo.add %i, %c1 : tensor<i64>\n"
      "      stablehlo.return %j, %n : tensor<i64>, tensor<i64>\n"
      "    }\n"
      "  return %0, %1, %w#1 : tensor<i64>, tensor<i64>, tensor<i64>\n"
      "}\n";
  instantiated = deleted = 0;
  cc_prog p;
  assert_ok(cc_build(text, reg, &p));
  /* Instantiated when the executable is created, once per call site. */
  assert_int_equal(instantiated, 3);
  shloc_tensor res[3];
  for (int run = 0; run < 3; run++) {
    assert_ok(cc_run(&p, NULL, res));
    assert_int_equal(*(int64_t *)res[0].data, 100 + run);
    assert_int_equal(*(int64_t *)res[1].data, 7 + run);
    assert_int_equal(*(int64_t *)res[2].data, 50 + 3 * run + 2);
    cc_free_results(res, 3);
  }
  assert_int_equal(instantiated, 3);
  assert_int_equal(deleted, 0);
  cc_free(&p);
  assert_int_equal(deleted, 3);
}

/* ---- errors ---- */

static void test_handler_error(void **state) {
  (void)state;
  const char *text =
      "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %0 = stablehlo.custom_call @times10(%x) {mhlo.backend_config = {}} : (tensor<2xf32>) -> tensor<2xf32>\n"
      "  %1 = stablehlo.custom_call @fail(%0) {mhlo.backend_config = {}} : (tensor<2xf32>) -> tensor<2xf32>\n"
      "  return %1 : tensor<2xf32>\n"
      "}\n";
  cc_prog p;
  assert_ok(cc_build(text, reg, &p));
  float x[2] = {1, 2};
  void *in[1] = {x};
  shloc_tensor res;
  shloc_status st = cc_run(&p, in, &res);
  assert_non_null(st);
  const char *file;
  int line, col;
  shloc_status_location(st, &file, &line, &col);
  assert_string_equal(file, "t.mlir");
  assert_int_equal(line, 3);
  assert_int_equal(col, 3);
  expect_error(st, SHLOC_ERR_RUNTIME, "custom call 'fail': RESOURCE_EXHAUSTED: out of widgets");
  cc_free(&p);
}

static void test_unknown_target_and_instantiate_error(void **state) {
  (void)state;
  cc_prog p;
  const char *text =
      "func.func @main() {\n"
      "  stablehlo.custom_call @nope() {has_side_effect = true, mhlo.backend_config = {}} : () -> ()\n"
      "  return\n"
      "}\n";
  expect_error(cc_build(text, reg, &p), SHLOC_ERR_NOT_FOUND,
               "no handler registered for custom call target 'nope' (api_version 4) at t.mlir:2:3; register one "
               "with --ffi nope=LIB.so:SYMBOL or --plugin LIB.so");
  /* Without any registry too. */
  expect_error(cc_build(text, NULL, &p), SHLOC_ERR_NOT_FOUND, "target 'nope' (api_version 4)");
  text =
      "func.func @main() {\n"
      "  stablehlo.custom_call @nope() {has_side_effect = true} : () -> ()\n"
      "  return\n"
      "}\n";
  expect_error(cc_build(text, reg, &p), SHLOC_ERR_NOT_FOUND, "target 'nope' (api_version 1)");
  text =
      "func.func @main() -> tensor<i64> {\n"
      "  %0 = stablehlo.custom_call @acc() {mhlo.backend_config = {start = -1 : i64}} : () -> tensor<i64>\n"
      "  return %0 : tensor<i64>\n"
      "}\n";
  expect_error(cc_build(text, reg, &p), SHLOC_ERR_RUNTIME, "OUT_OF_RANGE: acc: negative start -1");
  /* A typed handler called with a legacy api_version. */
  text =
      "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %0 = stablehlo.custom_call @times10(%x) {api_version = 2 : i32} : (tensor<2xf32>) -> tensor<2xf32>\n"
      "  return %0 : tensor<2xf32>\n"
      "}\n";
  expect_error(cc_build(text, reg, &p), SHLOC_ERR_INVALID_ARG, "needs api_version 4");
}

/* ---- several results, tokens, empty buffers ---- */

static void test_multiple_results(void **state) {
  (void)state;
  const char *text =
      "func.func @main(%x: tensor<3xf64>) -> (tensor<f64>, tensor<3xi32>) {\n"
      "  %0:2 = stablehlo.custom_call @sum_and_cast(%x) {mhlo.backend_config = {}} : (tensor<3xf64>) -> "
      "(tensor<f64>, tensor<3xi32>)\n"
      "  return %0#0, %0#1 : tensor<f64>, tensor<3xi32>\n"
      "}\n";
  double x[3] = {1.5, 2.5, -7.0};
  cc_prog p;
  shloc_tensor res[2];
  void *in[1] = {x};
  cc_build_run(text, reg, in, res, &p);
  assert_true(*(double *)res[0].data == -3.0);
  assert_int_equal(((int32_t *)res[1].data)[0], 1);
  assert_int_equal(((int32_t *)res[1].data)[2], -7);
  cc_free_results(res, 2);
  cc_free(&p);
}

static void test_tokens_and_empty_buffers(void **state) {
  (void)state;
  const char *text =
      "func.func @main(%x: tensor<0x3xf32>) -> tensor<3x0xi8> {\n"
      "  %t = stablehlo.create_token : !stablehlo.token\n"
      "  %0:2 = stablehlo.custom_call @shapes(%x, %t) {mhlo.backend_config = {}, "
      "operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], "
      "result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : "
      "(tensor<0x3xf32>, !stablehlo.token) -> (tensor<3x0xi8>, !stablehlo.token)\n"
      "  return %0#0 : tensor<3x0xi8>\n"
      "}\n";
  shape_calls = 0;
  cc_prog p;
  shloc_tensor res;
  void *in[1] = {NULL};
  cc_build_run(text, reg, in, &res, &p);
  assert_int_equal(shape_calls, 1);
  assert_int_equal(shape_args[0].dtype, XLA_FFI_DataType_F32);
  assert_int_equal(shape_args[0].rank, 2);
  assert_int_equal(shape_dims[0][0], 0);
  assert_int_equal(shape_dims[0][1], 3);
  assert_int_equal(shape_args[1].dtype, XLA_FFI_DataType_TOKEN);
  assert_null(shape_args[1].data);
  assert_int_equal(shape_args[1].rank, 0);
  assert_int_equal(shape_rets[0].dtype, XLA_FFI_DataType_S8);
  assert_int_equal(shape_rets[1].dtype, XLA_FFI_DataType_TOKEN);
  assert_int_equal(res.nbytes, 0);
  assert_int_equal(res.rank, 2);
  cc_free_results(&res, 1);
  cc_free(&p);
}

/* ---- public API ---- */

static void test_public_api(void **state) {
  (void)state;
  assert_int_equal(shloc_ffi_target_count(reg), 7);
  shloc_ffi_target t;
  assert_true(shloc_ffi_target_get(reg, 0, &t));
  assert_string_equal(t.target, "acc");
  assert_string_equal(t.platform, "cpu");
  assert_int_equal(t.kind, SHLOC_FFI_TYPED);
  assert_null(t.origin);
  assert_false(shloc_ffi_target_get(reg, 7, &t));
  expect_error(shloc_ffi_register_handler(reg, "count", "CPU", count), SHLOC_ERR_ALREADY_EXISTS,
               "already registered");
  expect_error(shloc_ffi_register_symbol(reg, "x", "/nonexistent/libx.so:f", SHLOC_FFI_ANY), SHLOC_ERR_IO,
               "/nonexistent/libx.so");
  expect_error(shloc_ffi_load_plugin(reg, "/nonexistent/plugin.so"), SHLOC_ERR_IO, "/nonexistent/plugin.so");

  const char *text =
      "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %0 = stablehlo.custom_call @times10(%x) {mhlo.backend_config = {}} : (tensor<2xf32>) -> tensor<2xf32>\n"
      "  return %0 : tensor<2xf32>\n"
      "}\n";
  cc_prog p;
  assert_ok(cc_build(text, reg, &p));
  assert_int_equal(shloc_executable_num_args(p.x), 1);
  assert_int_equal(shloc_executable_num_results(p.x), 1);
  shloc_tensor d;
  assert_ok(shloc_executable_result_type(p.x, 0, &d));
  assert_int_equal(d.dtype, XLA_FFI_DataType_F32);
  assert_int_equal(d.nbytes, 8);
  float x[2] = {1, 2};
  int64_t dims[1] = {3};
  shloc_tensor bad = {XLA_FFI_DataType_F32, 1, dims, x, 12}, res;
  expect_error(shloc_executable_run(p.x, &bad, 1, &res, 1), SHLOC_ERR_INVALID_ARG,
               "argument #0 is F32[3], expected F32[2]");
  expect_error(shloc_executable_run(p.x, &bad, 0, &res, 1), SHLOC_ERR_INVALID_ARG, "takes 1 arguments");
  shloc_executable *x2;
  expect_error(shloc_executable_create(p.m, "nope", reg, &x2), SHLOC_ERR_NOT_FOUND, "no function @nope");
  cc_free(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_row_major_layout),
      cmocka_unit_test(test_column_major_layout),
      cmocka_unit_test(test_batched_layout),
      cmocka_unit_test(test_alias_single_result),
      cmocka_unit_test(test_alias_in_tuple_with_layout),
      cmocka_unit_test(test_side_effect_order),
      cmocka_unit_test(test_instantiate_once_per_site),
      cmocka_unit_test(test_handler_error),
      cmocka_unit_test(test_unknown_target_and_instantiate_error),
      cmocka_unit_test(test_multiple_results),
      cmocka_unit_test(test_tokens_and_empty_buffers),
      cmocka_unit_test(test_public_api),
  };
  return cmocka_run_group_tests(tests, setup, cc_teardown);
}
