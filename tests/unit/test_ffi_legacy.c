/* Legacy custom calls (api_version 1, 2, 3): pointer tables, the
 * single/multi-result convention, opaque bytes and XlaCustomCallStatus. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ffi/ffi.h"

static void assert_ok(shl_status st) {
  if (st) fail_msg("unexpected error: %s", shloc_status_message(st));
}

static void expect_error(shl_status st, shloc_code code, const char *needle) {
  if (!st) fail_msg("expected an error containing '%s'", needle);
  assert_int_equal(shloc_status_code(st), code);
  if (!strstr(shloc_status_message(st), needle)) fail_msg("message '%s' lacks '%s'", shloc_status_message(st), needle);
  shloc_status_free(st);
}

/* ---- handlers (XLA's CPU signatures) ---- */

/* v1, one result: out is the result's data. out = in0 * in1 (i32 scalars). */
static void mul_v1(void *out, const void **in) { *(int32_t *)out = *(const int32_t *)in[0] * *(const int32_t *)in[1]; }

/* v1, several results: out is a table.  out0 = in0 + 1, out1 = in0 - 1 (f64[2]). */
static void *table_seen;
static void plus_minus_v1(void *out, const void **in) {
  table_seen = out;
  void **outs = out;
  const double *x = in[0];
  for (int i = 0; i < 2; i++) {
    ((double *)outs[0])[i] = x[i] + 1;
    ((double *)outs[1])[i] = x[i] - 1;
  }
}

/* v1 with one tuple-typed result: out is a one-entry table. */
static void tuple_one_v1(void *out, const void **in) { *(int32_t *)((void **)out)[0] = *(const int32_t *)in[0] + 1; }

static int side_effects;
static void effect_v1(void *out, const void **in) {
  (void)out;
  (void)in;
  side_effects++;
}

/* v2: fails when the operand is negative. */
static void checked_v2(void *out, const void **in, XlaCustomCallStatus *status) {
  int32_t x = *(const int32_t *)in[0];
  if (x < 0) {
    XlaCustomCallStatusSetFailure(status, "first failure", 13);
    static const char msg[] = "negative input\0ignored tail";
    XlaCustomCallStatusSetFailure(status, msg, sizeof msg);
    return;
  }
  if (x == 0) {
    XlaCustomCallStatusSetFailure(status, "transient", 9);
    XlaCustomCallStatusSetSuccess(status);
  }
  *(int32_t *)out = x * 2;
}

/* v3: copies the opaque bytes into the result and reports their length. */
static const char *opaque_ptr_seen;
static size_t opaque_len_seen;
static void opaque_v3(void *out, const void **in, const char *opaque, size_t opaque_len, XlaCustomCallStatus *status) {
  (void)in;
  opaque_ptr_seen = opaque;
  opaque_len_seen = opaque_len;
  void **outs = out;
  memcpy(outs[0], opaque, opaque_len);
  *(int64_t *)outs[1] = (int64_t)opaque_len;
  if (opaque_len == 4 && memcmp(opaque, "fail", 4) == 0) XlaCustomCallStatusSetFailure(status, "asked to fail", 13);
}

/* ---- tests ---- */

static ffi_registry *registry(void) {
  ffi_registry *r;
  assert_ok(ffi_registry_create(&r));
  assert_ok(ffi_registry_add_legacy(r, "mul", NULL, (shloc_legacy_fn)mul_v1));
  assert_ok(ffi_registry_add_legacy(r, "plus_minus", NULL, (shloc_legacy_fn)plus_minus_v1));
  assert_ok(ffi_registry_add_legacy(r, "effect", NULL, (shloc_legacy_fn)effect_v1));
  assert_ok(ffi_registry_add_legacy(r, "tuple_one", NULL, (shloc_legacy_fn)tuple_one_v1));
  assert_ok(ffi_registry_add_legacy(r, "checked", NULL, (shloc_legacy_fn)checked_v2));
  assert_ok(ffi_registry_add_legacy(r, "opaque", NULL, (shloc_legacy_fn)opaque_v3));
  return r;
}

static void test_v1_single_result(void **state) {
  (void)state;
  ffi_registry *r = registry();
  ffi_site *s;
  ffi_site_desc d = {.target = "mul", .api_version = 1, .n_args = 2, .n_rets = 1};
  assert_ok(ffi_site_prepare(r, &d, &s));
  int32_t a = 6, b = 7, out = 0;
  for (int i = 0; i < 100; i++) {
    a = i;
    ffi_buffer args[2] = {{DT_I32, &a, 0, NULL}, {DT_I32, &b, 0, NULL}};
    ffi_buffer ret = {DT_I32, &out, 0, NULL};
    assert_ok(ffi_site_call(s, NULL, args, &ret));
    assert_int_equal(out, i * 7);
  }
  ffi_site_destroy(s);
  ffi_registry_destroy(r);
}

static void test_v1_multi_result_table(void **state) {
  (void)state;
  ffi_registry *r = registry();
  ffi_site *s;
  ffi_site_desc d = {.target = "plus_minus", .api_version = 1, .n_args = 1, .n_rets = 2};
  assert_ok(ffi_site_prepare(r, &d, &s));
  double x[2] = {1.5, -2}, p[2], m[2];
  int64_t dims[1] = {2};
  ffi_buffer arg = {DT_F64, x, 1, dims};
  ffi_buffer rets[2] = {{DT_F64, p, 1, dims}, {DT_F64, m, 1, dims}};
  assert_ok(ffi_site_call(s, NULL, &arg, rets));
  assert_true(p[0] == 2.5 && p[1] == -1 && m[0] == 0.5 && m[1] == -3);
  assert_true(table_seen != (void *)p);
  ffi_site_destroy(s);
  ffi_registry_destroy(r);
}

static void test_single_tuple_result_and_no_results(void **state) {
  (void)state;
  ffi_registry *r = registry();
  ffi_site *s;
  /* One result of tuple type: still a table. */
  ffi_site_desc d = {.target = "tuple_one", .api_version = 1, .n_args = 1, .n_rets = 1, .tuple_result = true};
  assert_ok(ffi_site_prepare(r, &d, &s));
  int32_t x = 41, y = 0;
  ffi_buffer arg = {DT_I32, &x, 0, NULL}, ret = {DT_I32, &y, 0, NULL};
  assert_ok(ffi_site_call(s, NULL, &arg, &ret));
  assert_int_equal(y, 42);
  ffi_site_destroy(s);

  /* No results: a (non-NULL) empty table the handler must not touch. */
  d = (ffi_site_desc){.target = "effect", .api_version = 1, .n_rets = 0};
  assert_ok(ffi_site_prepare(r, &d, &s));
  side_effects = 0;
  assert_ok(ffi_site_call(s, NULL, NULL, NULL));
  assert_ok(ffi_site_call(s, NULL, NULL, NULL));
  assert_int_equal(side_effects, 2);
  ffi_site_destroy(s);
  ffi_registry_destroy(r);
}

static void test_v2_status(void **state) {
  (void)state;
  ffi_registry *r = registry();
  ffi_site *s;
  ffi_site_desc d = {.target = "checked", .api_version = 2, .n_args = 1, .n_rets = 1};
  assert_ok(ffi_site_prepare(r, &d, &s));
  int32_t x = 21, out = 0;
  ffi_buffer arg = {DT_I32, &x, 0, NULL}, ret = {DT_I32, &out, 0, NULL};
  assert_ok(ffi_site_call(s, NULL, &arg, &ret));
  assert_int_equal(out, 42);
  /* Last failure wins; the copy stops at the message's NUL. */
  x = -1;
  expect_error(ffi_site_call(s, NULL, &arg, &ret), SHLOC_ERR_RUNTIME, "custom call 'checked': negative input");
  x = -1;
  shl_status st = ffi_site_call(s, NULL, &arg, &ret);
  assert_non_null(st);
  assert_null(strstr(shloc_status_message(st), "ignored tail"));
  assert_null(strstr(shloc_status_message(st), "first failure"));
  shloc_status_free(st);
  /* SetSuccess after SetFailure clears it. */
  x = 0;
  assert_ok(ffi_site_call(s, NULL, &arg, &ret));
  ffi_site_destroy(s);
  ffi_registry_destroy(r);
}

static void test_v3_opaque(void **state) {
  (void)state;
  ffi_registry *r = registry();
  ffi_site *s;
  static const char bin[] = {'x', '\0', 'y', '"'};
  ffi_site_desc d = {.target = "opaque", .api_version = 3, .n_rets = 2, .opaque = bin, .opaque_len = 4};
  assert_ok(ffi_site_prepare(r, &d, &s));
  char buf[8] = {0};
  int64_t len = -1;
  ffi_buffer rets[2] = {{DT_UI8, buf, 0, NULL}, {DT_I64, &len, 0, NULL}};
  assert_ok(ffi_site_call(s, NULL, NULL, rets));
  assert_int_equal(len, 4);
  assert_memory_equal(buf, bin, 4);
  assert_int_equal(opaque_ptr_seen[4], '\0'); /* NUL-terminated copy, like XLA's */
  assert_true(opaque_ptr_seen != bin);
  ffi_site_destroy(s);

  /* Empty opaque: length 0, pointer still valid. */
  d.opaque = NULL;
  d.opaque_len = 0;
  assert_ok(ffi_site_prepare(r, &d, &s));
  assert_ok(ffi_site_call(s, NULL, NULL, rets));
  assert_int_equal(opaque_len_seen, 0);
  assert_non_null(opaque_ptr_seen);
  assert_int_equal(opaque_ptr_seen[0], '\0');
  ffi_site_destroy(s);

  d.opaque = "fail";
  d.opaque_len = 4;
  assert_ok(ffi_site_prepare(r, &d, &s));
  expect_error(ffi_site_call(s, NULL, NULL, rets), SHLOC_ERR_RUNTIME, "custom call 'opaque': asked to fail");
  ffi_site_destroy(s);
  ffi_registry_destroy(r);
}

static void test_legacy_rejects_attributes(void **state) {
  (void)state;
  ffi_registry *r = registry();
  ffi_attrs *a;
  assert_ok(ffi_attrs_create(&a));
  ffi_site *s = NULL;
  ffi_site_desc d = {.target = "mul", .api_version = 2, .attrs = a, .n_args = 2, .n_rets = 1};
  expect_error(ffi_site_prepare(r, &d, &s), SHLOC_ERR_INVALID_ARG,
               "takes an opaque string, not an attribute dictionary");
  assert_null(s);
  ffi_attrs_destroy(a);
  ffi_registry_destroy(r);
}

/* Handler libraries import the status functions: they must be visible to the
 * dynamic linker (this binary is linked with -rdynamic, as the CLI is). */
static void test_status_symbols_exported(void **state) {
  (void)state;
  assert_non_null(dlsym(RTLD_DEFAULT, "XlaCustomCallStatusSetSuccess"));
  assert_non_null(dlsym(RTLD_DEFAULT, "XlaCustomCallStatusSetFailure"));
  assert_non_null(dlsym(RTLD_DEFAULT, "XLA_FFI_GetApi"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_v1_single_result),
      cmocka_unit_test(test_v1_multi_result_table),
      cmocka_unit_test(test_single_tuple_result_and_no_results),
      cmocka_unit_test(test_v2_status),
      cmocka_unit_test(test_v3_opaque),
      cmocka_unit_test(test_legacy_rejects_attributes),
      cmocka_unit_test(test_status_symbols_exported),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
