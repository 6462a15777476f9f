/* Handlers from shared libraries: "LIB:SYMBOL" specs, shloc plugins,
 * XLA-style static registration, and the error messages when loading fails.
 * The libraries are built from tests/unit/ffi_handlers (cmake/ffi_tests.cmake). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cc_harness.h"
#include "ffi/ffi.h"

#ifndef SHLOC_FFI_HANDLER_DIR
#error "SHLOC_FFI_HANDLER_DIR must name the directory of the built test handler libraries"
#endif

#define LIB(name) SHLOC_FFI_HANDLER_DIR "/ffi_test_" name ".so"

/* Runs an (i32) -> i32 site once and returns the result. */
static int32_t run_i32(ffi_registry *r, const char *target, int api_version, const ffi_attrs *attrs, int32_t in,
                       int n_args) {
  ffi_site *s;
  ffi_site_desc d = {.target = target, .api_version = api_version, .attrs = attrs, .n_args = n_args, .n_rets = 1};
  assert_ok(ffi_site_prepare(r, &d, &s));
  int32_t out = -1;
  ffi_buffer arg = {DT_I32, &in, 0, NULL}, ret = {DT_I32, &out, 0, NULL};
  assert_ok(ffi_site_call(s, NULL, &arg, &ret));
  ffi_site_destroy(s);
  return out;
}

static void test_symbol_load_errors(void **state) {
  (void)state;
  ffi_registry *r = new_registry();
  expect_error(ffi_registry_add_symbol(r, "t", SHLOC_FFI_HANDLER_DIR "/no_such_lib.so:sym", FFI_KIND_LEGACY),
               SHLOC_ERR_IO, "cannot load handler library '" SHLOC_FFI_HANDLER_DIR "/no_such_lib.so'");
  shl_status st = ffi_registry_add_symbol(r, "t", "/nonexistent/x.so:sym", FFI_KIND_LEGACY);
  assert_non_null(strstr(shloc_status_message(st), "No such file"));
  shloc_status_free(st);
  expect_error(ffi_registry_add_symbol(r, "t", LIB("basic") ":no_such_symbol", FFI_KIND_LEGACY), SHLOC_ERR_NOT_FOUND,
               "custom call 't': symbol 'no_such_symbol' not found in '" LIB("basic") "'");
  expect_error(ffi_registry_add_symbol(r, "t", "libfoo.so", FFI_KIND_LEGACY), SHLOC_ERR_INVALID_ARG,
               "expected LIB:SYMBOL, got 'libfoo.so'");
  expect_error(ffi_registry_add_symbol(r, "t", "libfoo.so:", FFI_KIND_LEGACY), SHLOC_ERR_INVALID_ARG, "LIB:SYMBOL");
  expect_error(ffi_registry_add_symbol(r, "t", ":sym", FFI_KIND_LEGACY), SHLOC_ERR_INVALID_ARG, "LIB:SYMBOL");
  assert_int_equal(ffi_registry_count(r), 0);
  ffi_registry_destroy(r);
}

static void test_symbol_legacy_and_typed(void **state) {
  (void)state;
  ffi_registry *r = new_registry();
  assert_ok(ffi_registry_add_symbol(r, "triple", LIB("basic") ":basic_triple_v2", FFI_KIND_LEGACY));
  assert_ok(ffi_registry_add_symbol(r, "scale", LIB("basic") ":basic_scale", FFI_KIND_TYPED));
  assert_ok(ffi_registry_add_symbol(r, "scale_auto", LIB("basic") ":basic_scale", FFI_KIND_SYMBOL));
  assert_ok(ffi_registry_add_symbol(r, "triple_auto", LIB("basic") ":basic_triple_v2", FFI_KIND_SYMBOL));
  expect_error(ffi_registry_add_symbol(r, "triple", LIB("basic") ":basic_triple_v2", FFI_KIND_LEGACY),
               SHLOC_ERR_ALREADY_EXISTS, "already registered for platform 'cpu' by " LIB("basic") ":basic_triple_v2");

  ffi_target_info info;
  assert_true(ffi_registry_entry(r, 0, &info));
  assert_string_equal(info.target, "scale");
  assert_string_equal(info.origin, LIB("basic") ":basic_scale");

  /* Legacy v2 through the imported status functions. */
  assert_int_equal(run_i32(r, "triple", 2, NULL, 5, 1), 15);
  assert_int_equal(run_i32(r, "triple_auto", 2, NULL, 6, 1), 18);
  ffi_site *s;
  ffi_site_desc d = {.target = "triple", .api_version = 2, .n_args = 1, .n_rets = 1};
  assert_ok(ffi_site_prepare(r, &d, &s));
  int32_t in = -1, out;
  ffi_buffer arg = {DT_I32, &in, 0, NULL}, ret = {DT_I32, &out, 0, NULL};
  expect_error(ffi_site_call(s, NULL, &arg, &ret), SHLOC_ERR_RUNTIME,
               "custom call 'triple': basic_triple_v2: negative");
  ffi_site_destroy(s);

  /* Typed, with an attribute. */
  ffi_attrs *a;
  assert_ok(ffi_attrs_create(&a));
  float factor = 2.5f;
  assert_ok(ffi_attrs_add_scalar(a, "factor", 6, DT_F32, &factor));
  for (int k = 0; k < 2; k++) {
    d = (ffi_site_desc){.target = k ? "scale_auto" : "scale", .api_version = 4, .attrs = a, .n_args = 1, .n_rets = 1};
    assert_ok(ffi_site_prepare(r, &d, &s));
    float x[3] = {1, 2, 4}, y[3];
    int64_t dims[1] = {3};
    ffi_buffer xb = {DT_F32, x, 1, dims}, yb = {DT_F32, y, 1, dims};
    assert_ok(ffi_site_call(s, NULL, &xb, &yb));
    assert_true(y[0] == 2.5f && y[2] == 10.0f);
    ffi_site_destroy(s);
  }
  ffi_attrs_destroy(a);
  /* Typed handler without its attribute: the handler's own error. */
  d = (ffi_site_desc){.target = "scale", .api_version = 4, .n_args = 1, .n_rets = 1};
  assert_ok(ffi_site_prepare(r, &d, &s));
  float x = 1, y;
  ffi_buffer xb = {DT_F32, &x, 0, NULL}, yb = {DT_F32, &y, 0, NULL};
  expect_error(ffi_site_call(s, NULL, &xb, &yb), SHLOC_ERR_RUNTIME,
               "custom call 'scale': INVALID_ARGUMENT: basic_scale: no f32 attribute 'factor'");
  ffi_site_destroy(s);
  ffi_registry_destroy(r);
}

static void test_plugin_entry(void **state) {
  (void)state;
  ffi_registry *r = new_registry();
  assert_ok(ffi_registry_load_plugin(r, LIB("plugin_entry")));
  assert_int_equal(ffi_registry_count(r), 2);
  ffi_target_info info;
  assert_true(ffi_registry_entry(r, 0, &info));
  assert_string_equal(info.target, "plugin.legacy");
  assert_int_equal(info.kind, FFI_KIND_LEGACY);
  assert_string_equal(info.origin, "plugin " LIB("plugin_entry"));
  assert_true(ffi_registry_entry(r, 1, &info));
  assert_string_equal(info.target, "plugin.typed");
  assert_int_equal(info.kind, FFI_KIND_TYPED);
  assert_int_equal(run_i32(r, "plugin.typed", 4, NULL, 0, 0), 7);
  assert_int_equal(run_i32(r, "plugin.legacy", 1, NULL, 0, 0), 8);
  /* Loading it again into the same registry: its targets already exist. */
  expect_error(ffi_registry_load_plugin(r, LIB("plugin_entry")), SHLOC_ERR_RUNTIME, "ALREADY_EXISTS");
  assert_int_equal(ffi_registry_count(r), 2);
  /* A second registry is independent. */
  ffi_registry *r2 = new_registry();
  assert_ok(ffi_registry_load_plugin(r2, LIB("plugin_entry")));
  assert_int_equal(run_i32(r2, "plugin.typed", 4, NULL, 0, 0), 7);
  ffi_registry_destroy(r2);
  assert_int_equal(run_i32(r, "plugin.typed", 4, NULL, 0, 0), 7);
  ffi_registry_destroy(r);
}

static void test_plugin_static_registration(void **state) {
  (void)state;
  ffi_registry *r = new_registry();
  assert_ok(ffi_registry_load_plugin(r, LIB("plugin_static")));
  assert_int_equal(ffi_registry_count(r), 1);
  ffi_target_info info;
  assert_true(ffi_registry_entry(r, 0, &info));
  assert_string_equal(info.target, "static.typed");
  assert_string_equal(info.platform, "cpu");
  assert_int_equal(run_i32(r, "static.typed", 4, NULL, 0, 0), 9);
  ffi_registry_destroy(r);
}

static void test_plugin_failures(void **state) {
  (void)state;
  ffi_registry *r = new_registry();
  expect_error(
      ffi_registry_load_plugin(r, LIB("plugin_fail")), SHLOC_ERR_RUNTIME,
      "plugin '" LIB("plugin_fail") "': shloc_plugin_register failed: FAILED_PRECONDITION: plugin refuses to load");
  assert_int_equal(ffi_registry_count(r), 0); /* fail.target was forgotten */
  expect_error(ffi_registry_load_plugin(r, LIB("basic")), SHLOC_ERR_NOT_FOUND,
               "exports no 'shloc_plugin_register' and registered no XLA FFI handlers");
  expect_error(ffi_registry_load_plugin(r, "/nonexistent/plugin.so"), SHLOC_ERR_IO,
               "cannot load handler library '/nonexistent/plugin.so'");
  /* The registry still works after the failures. */
  assert_ok(ffi_registry_load_plugin(r, LIB("plugin_entry")));
  assert_int_equal(ffi_registry_count(r), 2);
  ffi_registry_destroy(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_symbol_load_errors), cmocka_unit_test(test_symbol_legacy_and_typed),
      cmocka_unit_test(test_plugin_entry),       cmocka_unit_test(test_plugin_static_registration),
      cmocka_unit_test(test_plugin_failures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
