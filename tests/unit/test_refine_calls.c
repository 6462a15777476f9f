/* Shape refinement, calls and regions: callees copied per argument
 * signature, JAX's newer convention (dimension sizes computed in @main and
 * passed as jax.global_constant arguments) and its shape assertions,
 * while/if/case regions, and the executable's plan cache. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "exec/plan.h"
#include "ok.h"
#include "refine_util.h"
#include "shloc/executable.h"

static const char two_calls[] =
    "func.func @main(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>) {\n"
    "  %0 = call @f(%a) : (tensor<?x4xf32>) -> tensor<?x4xf32>\n"
    "  %1 = call @f(%b) : (tensor<?x4xf32>) -> tensor<?x4xf32>\n"
    "  %2 = call @f(%a) : (tensor<?x4xf32>) -> tensor<?x4xf32>\n"
    "  return %0, %1, %2 : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>\n}\n"
    "func.func private @f(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {\n"
    "  %y = stablehlo.add %x, %x : tensor<?x4xf32>\n"
    "  return %y : tensor<?x4xf32>\n}\n";

static void test_callee_per_signature(void **state) {
  (void)state;
  rt_case rt;
  rt_arg args[2] = {{DT_F32, 2, {3, 4}, NULL}, {DT_F32, 2, {5, 4}, NULL}};
  rt_refine(&rt, two_calls, 2, args);
  rt_result(&rt, 0, 2, I64(3), I64(4));
  rt_result(&rt, 1, 2, I64(5), I64(4));
  rt_result(&rt, 2, 2, I64(3), I64(4));
  assert_int_equal(rt_num_funcs(&rt), 3); /* main and two copies of @f */
  rt_valid(&rt);
  rt_free(&rt);
  args[1].dims[0] = 3;
  rt_refine(&rt, two_calls, 2, args);
  assert_int_equal(rt_num_funcs(&rt), 2); /* one signature, one copy */
  rt_free(&rt);
}

/* JAX's newer convention, with the shape assertion jax.export emits. */
static const char wrapped[] =
    "func.func public @main(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {\n"
    "  %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>\n"
    "  %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>\n"
    "  %c = stablehlo.constant dense<2> : tensor<i64>\n"
    "  %p = stablehlo.compare GE, %1, %c, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
    "  stablehlo.custom_call @shape_assertion(%p, %1) {error_message = \"Expected value >= 2 for dimension variable 'b', got 'b' = {0}\", has_side_effect = true} : (tensor<i1>, tensor<i64>) -> ()\n"
    "  %2 = call @_wrapped_jax_export_main(%1, %arg0) : (tensor<i64>, tensor<?x4xf32>) -> tensor<?x4xf32>\n"
    "  return %2 : tensor<?x4xf32>\n}\n"
    "func.func private @_wrapped_jax_export_main(%arg0: tensor<i64> {jax.global_constant = \"b\"}, %arg1: tensor<?x4xf32>) -> tensor<?x4xf32> {\n"
    "  %0 = stablehlo.convert %arg0 : (tensor<i64>) -> tensor<i32>\n"
    "  %1 = stablehlo.reshape %0 : (tensor<i32>) -> tensor<1xi32>\n"
    "  %2 = stablehlo.constant dense<4> : tensor<1xi32>\n"
    "  %3 = stablehlo.concatenate %1, %2, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>\n"
    "  %4 = stablehlo.dynamic_iota %3, dim = 0 : (tensor<2xi32>) -> tensor<?x4xf32>\n"
    "  %5 = stablehlo.add %4, %arg1 : tensor<?x4xf32>\n"
    "  return %5 : tensor<?x4xf32>\n}\n";

static void test_newer_convention(void **state) {
  (void)state;
  rt_case rt;
  rt_arg a = {DT_F32, 2, {6, 4}, NULL};
  rt_refine(&rt, wrapped, 1, &a);
  rt_result(&rt, 0, 2, I64(6), I64(4));
  assert_int_equal(rt_count(&rt, OP_CUSTOM_CALL), 0); /* the assertion held and is gone */
  assert_int_equal(rt_count(&rt, OP_DYNAMIC_IOTA), 0);
  assert_int_equal(rt_num_funcs(&rt), 1); /* the wrapped function, called once, is inlined */
  assert_int_equal(rt_count(&rt, OP_FUNC_CALL), 0);
  assert_int_equal(rt.r.value_args, 0u);
  rt_valid(&rt);
  rt_free(&rt);
  a.dims[0] = 1;
  rt_refine(&rt, wrapped, 1, &a);
  rt_fails(&rt, "Expected value >= 2 for dimension variable 'b', got 'b' = 1", NULL);
  rt_free(&rt);
}

static void test_while_if_case(void **state) {
  (void)state;
  rt_case rt;
  rt_arg a = {DT_F32, 1, {5}, NULL};
  rt_refine(&rt,
            "func.func @main(%a: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {\n"
            "  %i0 = stablehlo.constant dense<0> : tensor<i32>\n"
            "  %w:2 = stablehlo.while(%i = %i0, %v = %a) : tensor<i32>, tensor<?xf32>\n"
            "    cond {\n"
            "      %n = stablehlo.constant dense<3> : tensor<i32>\n"
            "      %p = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
            "      stablehlo.return %p : tensor<i1>\n"
            "    } do {\n"
            "      %one = stablehlo.constant dense<1> : tensor<i32>\n"
            "      %i2 = stablehlo.add %i, %one : tensor<i32>\n"
            "      %v2 = stablehlo.add %v, %v : tensor<?xf32>\n"
            "      stablehlo.return %i2, %v2 : tensor<i32>, tensor<?xf32>\n"
            "    }\n"
            "  %t = stablehlo.constant dense<true> : tensor<i1>\n"
            "  %f = \"stablehlo.if\"(%t) ({\n"
            "    %x = stablehlo.negate %a : tensor<?xf32>\n"
            "    stablehlo.return %x : tensor<?xf32>\n"
            "  }, {\n"
            "    stablehlo.return %a : tensor<?xf32>\n"
            "  }) : (tensor<i1>) -> tensor<?xf32>\n"
            "  %k = stablehlo.constant dense<1> : tensor<i32>\n"
            "  %c = \"stablehlo.case\"(%k) ({\n"
            "    stablehlo.return %a : tensor<?xf32>\n"
            "  }, {\n"
            "    %x = stablehlo.abs %a : tensor<?xf32>\n"
            "    stablehlo.return %x : tensor<?xf32>\n"
            "  }) : (tensor<i32>) -> tensor<?xf32>\n"
            "  return %w#1, %f, %c : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>\n}\n",
            1, &a);
  for (uint32_t i = 0; i < 3; i++) rt_result(&rt, i, 1, I64(5));
  rt_valid(&rt);
  rt_free(&rt);
  /* a loop whose carried value grows cannot be static */
  rt_refine(&rt,
            "func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {\n"
            "  %w = stablehlo.while(%v = %a) : tensor<?xf32>\n"
            "    cond {\n"
            "      %p = stablehlo.constant dense<false> : tensor<i1>\n"
            "      stablehlo.return %p : tensor<i1>\n"
            "    } do {\n"
            "      %v2 = stablehlo.concatenate %v, %v, dim = 0 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>\n"
            "      stablehlo.return %v2 : tensor<?xf32>\n"
            "    }\n"
            "  return %w : tensor<?xf32>\n}\n",
            1, &a);
  rt_fails(&rt, "'stablehlo.while'", "loop-carried value #0", "[5]", "[10]", NULL);
  rt_free(&rt);
}

/* ---- the executable: public API and plan cache ---- */

static const char dims_arg[] =
    "func.func @main(%n: tensor<i64>, %a: tensor<?xf32>) -> tensor<?x2xf32> {\n"
    "  %c = stablehlo.convert %n : (tensor<i64>) -> tensor<i32>\n"
    "  %c1 = stablehlo.reshape %c : (tensor<i32>) -> tensor<1xi32>\n"
    "  %two = stablehlo.constant dense<2> : tensor<1xi32>\n"
    "  %s = stablehlo.concatenate %c1, %two, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>\n"
    "  %b = stablehlo.dynamic_broadcast_in_dim %a, %s, dims = [0] : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x2xf32>\n"
    "  return %b : tensor<?x2xf32>\n}\n";

typedef struct {
  shloc_context *ctx;
  shloc_module *m;
  shloc_executable *x;
} exe;

static void exe_load(exe *e, const char *text) {
  e->ctx = shloc_context_create();
  OK(shloc_module_parse(e->ctx, "t.mlir", text, strlen(text), 1, &e->m));
  OK(shloc_module_verify(e->m));
  OK(shloc_executable_create(e->m, NULL, NULL, &e->x));
}

static void exe_free(exe *e) {
  shloc_executable_destroy(e->x);
  shloc_module_destroy(e->m);
  shloc_context_destroy(e->ctx);
}

/* Runs dims_arg on n rows; checks the n x 2 broadcast. */
static void run_rows(shloc_executable *x, int64_t n) {
  float a[8];
  for (int i = 0; i < n; i++) a[i] = (float)i + 0.5f;
  int64_t dn[1] = {n};
  shloc_tensor args[2] = {{XLA_FFI_DataType_S64, 0, NULL, &n, 8}, {XLA_FFI_DataType_F32, 1, dn, a, (size_t)n * 4}};
  shloc_tensor res;
  OK(shloc_executable_run(x, args, 2, &res, 1));
  assert_int_equal(res.rank, 2);
  assert_int_equal(res.dims[0], n);
  assert_int_equal(res.dims[1], 2);
  assert_int_equal(res.nbytes, (size_t)n * 2 * 4);
  const float *r = res.data;
  for (int i = 0; i < n; i++) assert_true(r[2 * i] == a[i] && r[2 * i + 1] == a[i]);
  free(res.data);
}

static void test_public_api(void **state) {
  (void)state;
  exe e;
  exe_load(&e, dims_arg);
  shloc_tensor t;
  OK(shloc_executable_arg_type(e.x, 1, &t));
  assert_int_equal(t.rank, 1);
  assert_true(t.dims[0] == SHLOC_DIM_DYNAMIC);
  assert_int_equal(t.nbytes, 0);
  run_rows(e.x, 3);
  run_rows(e.x, 7);
  run_rows(e.x, 3);
  /* the dimension argument disagrees with the array */
  int64_t n = 4, dn[1] = {3};
  float a[3] = {0};
  shloc_tensor args[2] = {{XLA_FFI_DataType_S64, 0, NULL, &n, 8}, {XLA_FFI_DataType_F32, 1, dn, a, sizeof a}};
  shloc_tensor res;
  shloc_status st = shloc_executable_run(e.x, args, 2, &res, 1);
  assert_non_null(st);
  assert_non_null(strstr(shloc_status_message(st), "operand dimension 0 (3)"));
  assert_non_null(strstr(shloc_status_message(st), "result dimension 0 (4)"));
  shloc_status_free(st);
  /* run_into checks the buffer against the refined size */
  float small[4];
  n = 3;
  args[0].data = &n;
  res = (shloc_tensor){.data = small, .nbytes = sizeof small};
  st = shloc_executable_run_into(e.x, args, 2, &res, 1);
  assert_non_null(st);
  assert_non_null(strstr(shloc_status_message(st), "24 bytes"));
  shloc_status_free(st);
  exe_free(&e);
}

/* A second call with the same shapes (and dimension values) reuses the plan. */
static void test_plan_cache(void **state) {
  (void)state;
  exe e;
  exe_load(&e, dims_arg);
  shloc_executable *x = e.x;
  plan_entry *p1, *p2, *p3; /* each lookup holds a reference until plan_cache_unref */
  int64_t n = 3, d3[1] = {3}, d5[1] = {5};
  float a[5] = {0};
  shl_type ta;
  const shl_type *ft0 = func_type(executable_func(x))->in[0], *ft1 = func_type(executable_func(x))->in[1];
  shl_buf b0, b1;
  shl_buf *args[2] = {&b0, &b1};
  buf_init(&b0, ft0, &n);
  buf_init(&b1, exec_arg_type(ft1, 1, d3, &ta), a);
  OK(plan_cache_lookup(x, args, &p1));
  OK(plan_cache_lookup(x, args, &p2));
  assert_ptr_equal(p1, p2);
  plan_cache_unref(x, p2);
  n = 5;
  buf_init(&b1, exec_arg_type(ft1, 1, d5, &ta), a);
  OK(plan_cache_lookup(x, args, &p3));
  assert_ptr_not_equal(p1, p3);
  n = 3;
  buf_init(&b1, exec_arg_type(ft1, 1, d3, &ta), a);
  OK(plan_cache_lookup(x, args, &p2));
  assert_ptr_equal(p1, p2);
  plan_cache_unref(x, p1);
  plan_cache_unref(x, p2);
  plan_cache_unref(x, p3);
  exe_free(&e);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_callee_per_signature),
      cmocka_unit_test(test_newer_convention),
      cmocka_unit_test(test_while_if_case),
      cmocka_unit_test(test_public_api),
      cmocka_unit_test(test_plan_cache),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
