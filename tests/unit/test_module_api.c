/* The public functions the CLI uses (issue #18), through include/shloc only:
 * module attributes and functions, the entry rule, argument texts, statuses
 * made by callers, input files, custom-call lowering's found flags, and an
 * executable with options (interpreter.print, checks run).  Expected values
 * are the MLIR texts written here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "shloc/executable.h"
#include "shloc/lower.h"
#include "shloc/shloc.h"
#include "ok.h"

static shloc_module *parse(shloc_context *ctx, const char *text) {
  shloc_module *m = NULL;
  OK(shloc_module_parse(ctx, "t.mlir", text, strlen(text), 1, &m));
  OK(shloc_module_verify(m));
  return m;
}

/* NAME(call, want): call's (pointer, *len) view equals want. */
#define NAME(call, want)                    \
  do {                                      \
    size_t n_ = 0;                          \
    const char *p_ = (call);                \
    assert_non_null(p_);                    \
    assert_int_equal(n_, strlen(want));     \
    assert_memory_equal(p_, want, n_);      \
  } while (0)

static void test_module_attrs_and_funcs(void **state) {
  (void)state;
  shloc_context *ctx = shloc_context_create();
  shloc_module *m = parse(ctx,
                          "module @mod attributes {mhlo.num_replicas = 2 : i32, x.note = \"hi\"} {\n"
                          "  func.func private @helper(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
                          "    return %a : tensor<2xf32>\n"
                          "  }\n"
                          "  func.func @main(%a: tensor<?x4xf32> {jax.arg_info = \"x\"}, %b: tensor<i32>)\n"
                          "      -> (tensor<?x4xf32>) {\n"
                          "    return %a : tensor<?x4xf32>\n"
                          "  }\n"
                          "}\n");
  size_t n;
  NAME(shloc_module_name(m, &n_), "mod");
  assert_int_equal(shloc_module_num_attrs(m), 2);
  NAME(shloc_module_attr_name(m, 0, &n_), "mhlo.num_replicas");
  NAME(shloc_module_attr_name(m, 1, &n_), "x.note");
  assert_null(shloc_module_attr_name(m, 2, &n));
  char *text;
  OK(shloc_module_attr_text(m, 1, &text));
  assert_string_equal(text, "\"hi\"");
  free(text);
  int64_t v = 0;
  assert_true(shloc_module_attr_int(m, "mhlo.num_replicas", &v));
  assert_int_equal(v, 2);
  assert_false(shloc_module_attr_int(m, "mhlo.num_partitions", &v));
  assert_false(shloc_module_attr_int(m, "x.note", &v));

  const shloc_func *f = shloc_module_next_func(m, NULL);
  assert_non_null(f);
  NAME(shloc_func_name(f, &n_), "helper");
  assert_true(shloc_func_is_private(f));
  const shloc_func *g = shloc_module_next_func(m, f);
  NAME(shloc_func_name(g, &n_), "main");
  assert_false(shloc_func_is_private(g));
  assert_null(shloc_module_next_func(m, g));
  assert_ptr_equal(shloc_module_entry(m, NULL), g);
  assert_ptr_equal(shloc_module_entry(m, "helper"), f);
  assert_null(shloc_module_entry(m, "nope"));
  assert_ptr_equal(shloc_module_find_func(m, "main"), g);

  assert_int_equal(shloc_func_num_args(g), 2);
  assert_int_equal(shloc_func_num_results(g), 1);
  char *type, *attrs;
  OK(shloc_func_arg_text(g, 0, &type, &attrs));
  assert_string_equal(type, "tensor<?x4xf32>");
  assert_string_equal(attrs, "{jax.arg_info = \"x\"}");
  free(type);
  free(attrs);
  OK(shloc_func_arg_text(g, 1, &type, &attrs));
  assert_string_equal(type, "tensor<i32>");
  assert_null(attrs);
  free(type);
  OK(shloc_func_result_text(g, 0, &type, NULL));
  assert_string_equal(type, "tensor<?x4xf32>");
  free(type);
  shloc_status st = shloc_func_result_text(g, 1, &type, &attrs);
  assert_int_equal(shloc_status_code(st), SHLOC_ERR_INVALID_ARG);
  assert_null(type);
  shloc_status_free(st);

  /* Located at the function: t.mlir line 5. */
  st = shloc_func_error(g, SHLOC_ERR_UNSUPPORTED, "takes %d", 2);
  const char *file;
  int line, col;
  shloc_status_location(st, &file, &line, &col);
  assert_string_equal(file, "t.mlir");
  assert_int_equal(line, 5);
  assert_non_null(strstr(shloc_status_message(st), "takes 2"));
  shloc_status_free(st);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
}

/* The interpreter's rule: @main, else the only function, else none. */
static void test_entry_rule(void **state) {
  (void)state;
  shloc_context *ctx = shloc_context_create();
  shloc_module *one = parse(ctx, "func.func @only() -> tensor<i32> {\n"
                                 "  %c = stablehlo.constant dense<1> : tensor<i32>\n"
                                 "  return %c : tensor<i32>\n}\n");
  NAME(shloc_func_name(shloc_module_entry(one, NULL), &n_), "only");
  shloc_module *two = parse(ctx, "func.func @a() {\n  return\n}\nfunc.func @b() {\n  return\n}\n");
  assert_null(shloc_module_entry(two, NULL));
  assert_non_null(shloc_module_entry(two, "b"));
  shloc_module_destroy(one);
  shloc_module_destroy(two);
  shloc_context_destroy(ctx);
}

static void test_status_error(void **state) {
  (void)state;
  shloc_status st = shloc_status_error(SHLOC_ERR_VERIFY, "f.mlir", 3, 1, "line %d differs", 3);
  st = shloc_status_annotate(st, "in %s", "chunk 2");
  assert_int_equal(shloc_status_code(st), SHLOC_ERR_VERIFY);
  assert_string_equal(shloc_status_message(st), "in chunk 2: line 3 differs");
  const char *file;
  int line, col;
  shloc_status_location(st, &file, &line, &col);
  assert_string_equal(file, "f.mlir");
  assert_int_equal(line, 3);
  assert_int_equal(col, 1);
  shloc_status_free(st);
  st = shloc_status_error(SHLOC_ERR_IO, NULL, 0, 0, "plain");
  shloc_status_location(st, &file, &line, &col);
  assert_null(file);
  shloc_status_free(st);
}

static void test_source_read(void **state) {
  (void)state;
  char path[] = "/tmp/shloc_source_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, "abc\n", 4), 4);
  close(fd);
  shloc_source *s;
  OK(shloc_source_read(path, &s));
  assert_int_equal(shloc_source_len(s), 4);
  assert_memory_equal(shloc_source_text(s), "abc\n", 4);
  shloc_source_free(s);
  unlink(path);
  shloc_status st = shloc_source_read(path, &s);
  assert_int_equal(shloc_status_code(st), SHLOC_ERR_IO);
  assert_null(s);
  assert_string_equal(shloc_status_message(st), "cannot open: No such file or directory");
  const char *file;
  shloc_status_location(st, &file, NULL, NULL);
  assert_string_equal(file, path);
  shloc_status_free(st);
}

static void test_lower_found(void **state) {
  (void)state;
  shloc_context *ctx = shloc_context_create();
  shloc_module *m = parse(ctx, "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                               "  %0 = stablehlo.custom_call @my.op(%x) : (tensor<4xf32>) -> tensor<4xf32>\n"
                               "  return %0 : tensor<4xf32>\n}\n");
  const char *targets[] = {"absent", "my.op"};
  bool found[2] = {true, false};
  OK(shloc_lower_custom_calls(m, targets, 2, found));
  assert_false(found[0]);
  assert_true(found[1]);
  OK(shloc_module_verify(m));
  char *out;
  size_t len;
  OK(shloc_module_print(m, 0, &out, &len));
  assert_non_null(strstr(out, "call @my_op("));
  free(out);
  assert_true(shloc_is_c_identifier("my_op2"));
  assert_false(shloc_is_c_identifier("my.op"));
  assert_false(shloc_is_c_identifier("2x"));
  shloc_shim_binding b = {"other", "sym"};
  shloc_status st = shloc_shim_generate(m, &b, 1, NULL, &out, &len);
  assert_int_equal(shloc_status_code(st), SHLOC_ERR_NOT_FOUND);
  shloc_status_free(st);
  OK(shloc_shim_generate(m, NULL, 0, "t.mlir", &out, &len));
  assert_non_null(strstr(out, "_mlir_ciface_my_op"));
  free(out);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
}

static void capture(void *user, const char *text, size_t len) {
  char *buf = user;
  size_t have = strlen(buf);
  if (have + len < 256) memcpy(buf + have, text, len), buf[have + len] = 0;
}

/* interpreter.print goes to the options' callback; checks are counted. */
static void test_executable_options(void **state) {
  (void)state;
  shloc_context *ctx = shloc_context_create();
  shloc_module *m = parse(ctx, "func.func @t() {\n"
                               "  %c = stablehlo.constant dense<[1, 2]> : tensor<2xi8>\n"
                               "  %p = \"interpreter.print\"(%c) : (tensor<2xi8>) -> tensor<2xi8>\n"
                               "  \"check.expect_eq_const\"(%p) {value = dense<[1, 2]> : tensor<2xi8>}\n"
                               "      : (tensor<2xi8>) -> ()\n"
                               "  return\n}\n");
  char printed[256] = "";
  shloc_executable_options opts = {.print = capture, .print_user = printed};
  shloc_executable *x;
  OK(shloc_executable_create_func(m, shloc_module_entry(m, NULL), &opts, &x));
  assert_int_equal(shloc_executable_checks_run(x), 0);
  OK(shloc_executable_run(x, NULL, 0, NULL, 0));
  assert_int_equal(shloc_executable_checks_run(x), 1);
  assert_non_null(strstr(printed, "tensor<2xi8>"));
  shloc_executable_destroy(x);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
}

/* A .npy file (format 1.0: magic, version, header length, a dict padded
 * with spaces to a multiple of 64 bytes ending in '\n', then the data). */
static void write_npy(const char *path, const char *shape, const float *data, size_t n) {
  char header[128];
  int len = snprintf(header, sizeof header, "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }", shape);
  size_t total = (10 + (size_t)len + 1 + 63) / 64 * 64;
  assert_true(total - 10 <= sizeof header);
  memset(header + len, ' ', total - 10 - (size_t)len - 1);
  header[total - 10 - 1] = '\n';
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(total - 10), 0};
  assert_int_equal(fwrite(pre, 1, 10, f), 10);
  assert_int_equal(fwrite(header, 1, total - 10, f), total - 10);
  assert_int_equal(fwrite(data, sizeof *data, n, f), n);
  fclose(f);
}

static bool append(void *user, const char *text, size_t len) {
  char *buf = user;
  size_t have = strlen(buf);
  if (have + len >= 256) return false;
  memcpy(buf + have, text, len);
  buf[have + len] = 0;
  return true;
}

/* shloc_npy_run_func: .npy in, printed literal and .npy out, timings; a
 * file whose shape does not fit is an error naming the argument. */
static void test_npy_run(void **state) {
  (void)state;
  shloc_context *ctx = shloc_context_create();
  shloc_module *m = parse(ctx, "func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {\n"
                               "  %0 = stablehlo.add %a, %a : tensor<3xf32>\n"
                               "  return %0 : tensor<3xf32>\n}\n");
  char in[] = "/tmp/shloc_npy_in_XXXXXX", out[] = "/tmp/shloc_npy_out_XXXXXX";
  close(mkstemp(in));
  close(mkstemp(out));
  const float x[3] = {1.0f, -2.5f, 3.0f};
  write_npy(in, "(3,)", x, 3);
  const char *ins[] = {in}, *outs[] = {out};
  char printed[256] = "";
  double ms[2] = {-1, -1};
  shloc_npy_run run = {.inputs = ins, .n_inputs = 1, .outputs = outs, .n_outputs = 1, .repeat = 2,
                       .print = append, .print_user = printed, .run_ms = ms};
  OK(shloc_npy_run_func(m, shloc_module_entry(m, NULL), NULL, &run));
  assert_string_equal(printed, "dense<[2.000000e+00, -5.000000e+00, 6.000000e+00]> : tensor<3xf32>");
  assert_true(ms[0] >= 0 && ms[1] >= 0);
  FILE *f = fopen(out, "rb");
  assert_non_null(f);
  unsigned char buf[256];
  size_t got = fread(buf, 1, sizeof buf, f);
  fclose(f);
  size_t header = 10 + (size_t)(buf[8] | buf[9] << 8);
  assert_int_equal(got, header + 3 * sizeof(float));
  assert_non_null(memmem(buf, header, "'descr': '<f4'", 14));
  float y[3];
  memcpy(y, buf + header, sizeof y);
  assert_true(y[0] == 2.0f && y[1] == -5.0f && y[2] == 6.0f);

  write_npy(in, "(2,)", x, 2);
  run = (shloc_npy_run){.inputs = ins, .n_inputs = 1};
  shloc_status st = shloc_npy_run_func(m, shloc_module_entry(m, NULL), NULL, &run);
  assert_int_equal(shloc_status_code(st), SHLOC_ERR_INVALID_ARG);
  assert_non_null(strstr(shloc_status_message(st), "argument #0"));
  assert_non_null(strstr(shloc_status_message(st), "expected tensor<3xf32>, got tensor<2xf32> (<f4)"));
  shloc_status_free(st);
  unlink(in);
  unlink(out);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_module_attrs_and_funcs), cmocka_unit_test(test_entry_rule),
      cmocka_unit_test(test_status_error),           cmocka_unit_test(test_source_read),
      cmocka_unit_test(test_lower_found),            cmocka_unit_test(test_executable_options),
      cmocka_unit_test(test_npy_run),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
