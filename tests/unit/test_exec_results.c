/* Results written into caller buffers (shloc_executable_run_into): reused
 * across runs, and correct when a result is an argument, a constant, the
 * same value twice, a loop's result, or lives in an argument's memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "shloc/executable.h"
#include "shloc/shloc.h"
#include "ok.h"

typedef struct {
  shloc_context *ctx;
  shloc_module *m;
  shloc_executable *x;
} fixture;

static void load(fixture *f, const char *text) {
  f->ctx = shloc_context_create();
  assert_non_null(f->ctx);
  OK(shloc_module_parse(f->ctx, "t.mlir", text, strlen(text), 1, &f->m));
  OK(shloc_module_verify(f->m));
  OK(shloc_executable_create(f->m, "main", NULL, &f->x));
}

static void unload(fixture *f) {
  shloc_executable_destroy(f->x);
  shloc_module_destroy(f->m);
  shloc_context_destroy(f->ctx);
}

static const int64_t dims4[] = {4};

static shloc_tensor f32x4(float *data) { return (shloc_tensor){XLA_FFI_DataType_F32, 1, dims4, data, 4 * sizeof(float)}; }

static void expect(const float *got, float a, float b, float c, float d) {
  const float want[4] = {a, b, c, d};
  for (int i = 0; i < 4; i++) assert_true(got[i] == want[i]);
}

/* sum, the argument, a constant, sum again, and a loop's result. */
static const char mixed[] =
    "func.func @main(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {\n"
    "  %c = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>\n"
    "  %s = stablehlo.add %a, %c : tensor<4xf32>\n"
    "  %i0 = stablehlo.constant dense<0> : tensor<i32>\n"
    "  %w:2 = stablehlo.while(%i = %i0, %v = %a) : tensor<i32>, tensor<4xf32>\n"
    "    cond {\n"
    "      %n = stablehlo.constant dense<3> : tensor<i32>\n"
    "      %p = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
    "      stablehlo.return %p : tensor<i1>\n"
    "    } do {\n"
    "      %one = stablehlo.constant dense<1> : tensor<i32>\n"
    "      %i2 = stablehlo.add %i, %one : tensor<i32>\n"
    "      %v2 = stablehlo.add %v, %v : tensor<4xf32>\n"
    "      stablehlo.return %i2, %v2 : tensor<i32>, tensor<4xf32>\n"
    "    }\n"
    "  return %s, %a, %c, %s, %w#1 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>\n"
    "}\n";

static void test_reused_buffers(void **state) {
  (void)state;
  fixture f;
  load(&f, mixed);
  float out[5][4];
  shloc_tensor res[5];
  for (int round = 0; round < 3; round++) {
    float in[4] = {10.0f * (float)round, 1.0f, -1.0f, 0.5f};
    shloc_tensor arg = f32x4(in);
    memset(out, 0xff, sizeof out);
    for (int i = 0; i < 5; i++) res[i] = f32x4(out[i]);
    OK(shloc_executable_run_into(f.x, &arg, 1, res, 5));
    for (int i = 0; i < 5; i++) {
      assert_ptr_equal(res[i].data, out[i]);
      assert_int_equal(res[i].nbytes, sizeof out[i]);
    }
    expect(out[0], in[0] + 1, 3, 2, 4.5f);
    expect(out[1], in[0], 1, -1, 0.5f);
    expect(out[2], 1, 2, 3, 4);
    expect(out[3], in[0] + 1, 3, 2, 4.5f);
    expect(out[4], 8 * in[0], 8, -8, 4);
  }
  /* Malloc'd results after runs into caller buffers: fresh, independent memory. */
  float in[4] = {1, 2, 3, 4};
  shloc_tensor arg = f32x4(in);
  shloc_tensor r1[5], r2[5];
  OK(shloc_executable_run(f.x, &arg, 1, r1, 5));
  OK(shloc_executable_run(f.x, &arg, 1, r2, 5));
  for (int i = 0; i < 5; i++) {
    assert_ptr_not_equal(r1[i].data, r2[i].data);
    assert_ptr_not_equal(r1[i].data, in);
  }
  assert_ptr_not_equal(r1[0].data, r1[3].data);
  expect(r1[0].data, 2, 4, 6, 8);
  expect(r1[3].data, 2, 4, 6, 8);
  ((float *)r1[0].data)[0] = 99;
  expect(r2[0].data, 2, 4, 6, 8);
  expect(r1[3].data, 2, 4, 6, 8);
  expect(r2[2].data, 1, 2, 3, 4);
  for (int i = 0; i < 5; i++) {
    free(r1[i].data);
    free(r2[i].data);
  }
  unload(&f);
}

/* A result buffer that is the argument's memory: the reverse must read the
 * argument as it was, not the partly written result. */
static void test_result_in_argument(void **state) {
  (void)state;
  fixture f;
  load(&f,
       "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
       "  %r = stablehlo.reverse %a, dims = [0] : tensor<4xf32>\n"
       "  %s = stablehlo.add %r, %a : tensor<4xf32>\n"
       "  %t = stablehlo.multiply %s, %r : tensor<4xf32>\n"
       "  return %t : tensor<4xf32>\n"
       "}\n");
  for (int round = 0; round < 2; round++) {
    float in[4] = {1, 2, 3, 4};
    shloc_tensor arg = f32x4(in), res = f32x4(in);
    OK(shloc_executable_run_into(f.x, &arg, 1, &res, 1));
    expect(in, 20, 15, 10, 5);
  }
  unload(&f);
}

/* Scatter into a computed operand: in place when the operand is dead (the
 * operand is then computed in the result buffer), a copy when it is read
 * later (here: also returned). */
static void test_scatter_in_place(void **state) {
  (void)state;
  fixture f;
  load(&f,
       "func.func @main(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {\n"
       "  %i = stablehlo.constant dense<[[1], [3], [1]]> : tensor<3x1xi32>\n"
       "  %u = stablehlo.constant dense<[1.0, 2.0, 4.0]> : tensor<3xf32>\n"
       "  %x = stablehlo.add %a, %a : tensor<4xf32>\n"
       "  %y = stablehlo.multiply %a, %a : tensor<4xf32>\n"
       "  %s = \"stablehlo.scatter\"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [], "
       "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({\n"
       "  ^bb0(%p: tensor<f32>, %q: tensor<f32>):\n"
       "    %r = stablehlo.add %p, %q : tensor<f32>\n"
       "    stablehlo.return %r : tensor<f32>\n"
       "  }) : (tensor<4xf32>, tensor<3x1xi32>, tensor<3xf32>) -> tensor<4xf32>\n"
       "  %t = \"stablehlo.scatter\"(%y, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [], "
       "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({\n"
       "  ^bb0(%p: tensor<f32>, %q: tensor<f32>):\n"
       "    stablehlo.return %q : tensor<f32>\n"
       "  }) : (tensor<4xf32>, tensor<3x1xi32>, tensor<3xf32>) -> tensor<4xf32>\n"
       "  %z = stablehlo.add %s, %s : tensor<4xf32>\n"
       "  return %s, %t, %y : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>\n"
       "}\n");
  float out[3][4];
  for (int round = 0; round < 3; round++) {
    float in[4] = {1, 2, 3, (float)round};
    shloc_tensor arg = f32x4(in), res[3] = {f32x4(out[0]), f32x4(out[1]), f32x4(out[2])};
    OK(shloc_executable_run_into(f.x, &arg, 1, res, 3));
    expect(out[0], 2, 9, 6, 2 * (float)round + 2);
    expect(out[1], 1, 4, 9, 2);
    expect(out[2], 1, 4, 9, (float)(round * round));
  }
  unload(&f);
}

/* The sort's scratch is kept from run to run. */
static void test_sort_twice(void **state) {
  (void)state;
  fixture f;
  load(&f,
       "func.func @main(%a: tensor<100xf32>) -> tensor<100xf32> {\n"
       "  %s = \"stablehlo.sort\"(%a) <{dimension = 0 : i64}> ({\n"
       "  ^bb0(%p: tensor<f32>, %q: tensor<f32>):\n"
       "    %c = stablehlo.compare LT, %p, %q, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
       "    stablehlo.return %c : tensor<i1>\n"
       "  }) : (tensor<100xf32>) -> tensor<100xf32>\n"
       "  return %s : tensor<100xf32>\n"
       "}\n");
  static const int64_t d100[] = {100};
  for (int round = 0; round < 3; round++) {
    float in[100], out[100];
    for (int i = 0; i < 100; i++) in[i] = (float)((i * 37 + round * 11) % 100) - 50.0f;
    shloc_tensor arg = {XLA_FFI_DataType_F32, 1, d100, in, sizeof in}, res = {XLA_FFI_DataType_F32, 1, d100, out, sizeof out};
    OK(shloc_executable_run_into(f.x, &arg, 1, &res, 1));
    for (int i = 0; i < 100; i++) assert_true(out[i] == (float)i - 50.0f);
  }
  unload(&f);
}

/* A missing or too small result buffer is an error, not a crash. */
static void test_missing_buffer(void **state) {
  (void)state;
  fixture f;
  load(&f, "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  return %a : tensor<4xf32>\n}\n");
  float in[4] = {1, 2, 3, 4};
  shloc_tensor arg = f32x4(in), res = f32x4(NULL);
  shloc_status st = shloc_executable_run_into(f.x, &arg, 1, &res, 1);
  assert_non_null(st);
  shloc_status_free(st);
  /* So is one too small for the result. */
  float small[4];
  res = f32x4(small);
  res.nbytes = 3 * sizeof(float);
  st = shloc_executable_run_into(f.x, &arg, 1, &res, 1);
  assert_non_null(st);
  assert_non_null(strstr(shloc_status_message(st), "needs a buffer of 16 bytes, got one of 12 bytes"));
  shloc_status_free(st);
  unload(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reused_buffers),
      cmocka_unit_test(test_result_in_argument),
      cmocka_unit_test(test_scatter_in_place),
      cmocka_unit_test(test_sort_twice),
      cmocka_unit_test(test_missing_buffer),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
