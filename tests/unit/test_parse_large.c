/* The fast paths for large inputs: hex constants validated while lexing and
 * decoded on demand (printed back verbatim), borrowed unterminated input,
 * streamed printing, and array-backed numbered SSA names. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "group_ctx.h"
#include "ir/ir.h"
#include "print_ok.h"
#include "shloc/shloc.h"

/* ---- helpers ---------------------------------------------------------- */

/* Parses from an exact-size heap copy (no NUL after the text), borrowed, so
 * that ASan catches any read past the end.  *buf must be freed after the module. */
static shloc_status parse_borrowed(const char *text, shloc_module **m, char **buf) {
  size_t n = strlen(text);
  *buf = malloc(n ? n : 1);
  assert_non_null(*buf);
  memcpy(*buf, text, n);
  return shloc_module_parse_borrowed(ctx, "t.mlir", *buf, n, 1, m);
}

static shloc_module *parse_ok(const char *text) {
  shloc_module *m = NULL;
  shloc_status st = shloc_module_parse(ctx, "t.mlir", text, strlen(text), 1, &m);
  if (st) fail_msg("unexpected parse error: %s", shloc_status_message(st));
  assert_null(shloc_module_verify(m));
  return m;
}

static void expect_error(const char *text, const char *needle, int line, int col) {
  shloc_module *m = NULL;
  char *buf;
  shloc_status st = parse_borrowed(text, &m, &buf);
  if (!st) fail_msg("expected an error containing '%s'", needle);
  if (!strstr(shloc_status_message(st), needle))
    fail_msg("got '%s', expected '%s'", shloc_status_message(st), needle);
  const char *file;
  int l, c;
  shloc_status_location(st, &file, &l, &c);
  if (line && (l != line || c != col)) fail_msg("'%s' at %d:%d, expected %d:%d", shloc_status_message(st), l, c, line, col);
  shloc_status_free(st);
  free(buf);
}

/* First op named `name` in program order (depth first). */
static const shl_op *find_op(const shl_op *op, const char *name) {
  if (str_eq_c(op->name, name)) return op;
  for (uint32_t r = 0; r < op->n_regions; r++)
    for (uint32_t b = 0; b < op->regions[r].n_blocks; b++)
      for (const shl_op *o = op->regions[r].blocks[b]->first; o; o = o->next) {
        const shl_op *f = find_op(o, name);
        if (f) return f;
      }
  return NULL;
}

static const shl_attr *const_value(shloc_module *m) {
  const shl_op *c = find_op(m->top, "stablehlo.constant");
  assert_non_null(c);
  const shl_attr *v = op_attr(c, "value");
  assert_non_null(v);
  assert_int_equal(v->kind, AT_DENSE);
  return v;
}

/* `n` pseudo-random bytes and their hex spelling (upper or lower case). */
static void make_blob(uint8_t *bytes, char *hex, size_t n, bool upper, unsigned seed) {
  const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; i++) {
    x = x * 1103515245u + 12345u;
    bytes[i] = (uint8_t)(x >> 16);
    hex[2 * i] = digits[bytes[i] >> 4];
    hex[2 * i + 1] = digits[bytes[i] & 15];
  }
  hex[2 * n] = 0;
}

/* A function returning a constant of `count` f32 elements written as hex. */
static char *const_module(const char *hex, size_t count) {
  size_t cap = strlen(hex) + 512;
  char *s = malloc(cap);
  assert_non_null(s);
  snprintf(s, cap,
           "func.func @main() -> tensor<%zuxf32> {\n"
           "  %%c = \"stablehlo.constant\"() <{value = dense<\"0x%s\"> : tensor<%zuxf32>}> : () -> tensor<%zuxf32>\n"
           "  return %%c : tensor<%zuxf32>\n}\n",
           count, hex, count, count, count);
  return s;
}

enum { N_ELEMS = 4096, N_BYTES = N_ELEMS * 4 };

/* ---- hex constants ------------------------------------------------------ */

static void test_lazy_hex(void **state) {
  (void)state;
  static uint8_t bytes[N_BYTES];
  static char hex[2 * N_BYTES + 1];
  make_blob(bytes, hex, N_BYTES, true, 1);
  char *text = const_module(hex, N_ELEMS);
  for (int borrow = 0; borrow < 2; borrow++) {
    shloc_module *m = NULL;
    char *buf = NULL;
    shloc_status st = borrow ? parse_borrowed(text, &m, &buf) : shloc_module_parse(ctx, "t.mlir", text, strlen(text), 1, &m);
    assert_null(st);
    assert_null(shloc_module_verify(m));
    const shl_attr *v = const_value(m);
    /* Kept as text until read; the bytes are right when read. */
    assert_non_null(attr_dense_hex(v));
    assert_false(v->u.dense.splat);
    assert_int_equal(v->u.dense.nbytes, N_BYTES);
    assert_memory_equal(attr_dense_data(v), bytes, N_BYTES);
    assert_memory_equal(attr_dense_data(v), bytes, N_BYTES); /* second read: already decoded */
    /* Printed verbatim in both forms, and the output parses back. */
    for (unsigned flags = 0; flags <= SHLOC_PRINT_GENERIC; flags += SHLOC_PRINT_GENERIC) {
      char *out = print(m, flags);
      assert_non_null(strstr(out, hex));
      shloc_module *m2 = parse_ok(out);
      assert_true(attr_eq(const_value(m2), v));
      shloc_module_destroy(m2);
      free(out);
    }
    shloc_module_destroy(m);
    free(buf);
  }
  free(text);
}

/* Lowercase digits are valid too, but not canonical: decoded while parsing,
 * printed in uppercase. */
static void test_lowercase_hex(void **state) {
  (void)state;
  static uint8_t bytes[N_BYTES];
  static char hex[2 * N_BYTES + 1], upper[2 * N_BYTES + 1];
  make_blob(bytes, hex, N_BYTES, false, 2);
  make_blob(bytes, upper, N_BYTES, true, 2);
  char *text = const_module(hex, N_ELEMS);
  shloc_module *m = parse_ok(text);
  const shl_attr *v = const_value(m);
  assert_null(attr_dense_hex(v));
  assert_memory_equal(attr_dense_data(v), bytes, N_BYTES);
  char *out = print(m, SHLOC_PRINT_GENERIC);
  assert_non_null(strstr(out, upper));
  free(out);
  shloc_module_destroy(m);
  free(text);
}

/* Equal elements make a splat, found on the text without decoding it all. */
static void test_large_splat(void **state) {
  (void)state;
  static char hex[2 * N_BYTES + 1];
  for (size_t i = 0; i < N_ELEMS; i++) memcpy(hex + 8 * i, "0000803F", 8); /* 1.0f */
  hex[2 * N_BYTES] = 0;
  char *text = const_module(hex, N_ELEMS);
  shloc_module *m = parse_ok(text);
  const shl_attr *v = const_value(m);
  assert_true(v->u.dense.splat);
  assert_int_equal(v->u.dense.nbytes, 4);
  float f;
  memcpy(&f, attr_dense_data(v), 4);
  assert_true(f == 1.0f);
  char *out = print(m, SHLOC_PRINT_GENERIC);
  assert_non_null(strstr(out, "dense<1.000000e+00> : tensor<4096xf32>"));
  free(out);
  shloc_module_destroy(m);
  free(text);
}

/* Several threads reading one deferred constant at once all see its bytes. */
typedef struct {
  const shl_attr *v;
  const uint8_t *want;
  bool ok;
} reader;

static void *read_dense(void *arg) {
  reader *r = arg;
  r->ok = memcmp(attr_dense_data(r->v), r->want, N_BYTES) == 0;
  return NULL;
}

static void test_lazy_hex_threads(void **state) {
  (void)state;
  static uint8_t bytes[N_BYTES];
  static char hex[2 * N_BYTES + 1];
  make_blob(bytes, hex, N_BYTES, true, 3);
  char *text = const_module(hex, N_ELEMS);
  shloc_module *m = parse_ok(text);
  const shl_attr *v = const_value(m);
  assert_non_null(attr_dense_hex(v));
  enum { T = 4 };
  pthread_t th[T];
  reader r[T];
  for (int i = 0; i < T; i++) {
    r[i] = (reader){v, bytes, false};
    assert_int_equal(pthread_create(&th[i], NULL, read_dense, &r[i]), 0);
  }
  for (int i = 0; i < T; i++) {
    pthread_join(th[i], NULL);
    assert_true(r[i].ok);
  }
  shloc_module_destroy(m);
  free(text);
}

static void test_hex_errors(void **state) {
  (void)state;
  static char hex[2 * N_BYTES + 2];
  static uint8_t bytes[N_BYTES];
  make_blob(bytes, hex, N_BYTES, true, 4);
  /* The dense string starts at column 47 of line 2; its digits at 50. */
  const int col = 47;
  /* A bad digit deep inside a large canonical blob, reported where it is. */
  hex[5000] = 'G';
  char *text = const_module(hex, N_ELEMS);
  expect_error(text, "invalid hex digit 'G'", 2, col + 3 + 5000);
  free(text);
  hex[5000] = 'g'; /* lowercase: the non-canonical path */
  text = const_module(hex, N_ELEMS);
  expect_error(text, "invalid hex digit 'g'", 2, col + 3 + 5000);
  free(text);
  hex[5000] = 'A';
  /* Odd number of digits. */
  hex[2 * N_BYTES] = 'A';
  hex[2 * N_BYTES + 1] = 0;
  text = const_module(hex, N_ELEMS);
  expect_error(text, "odd number of digits", 2, col);
  free(text);
  /* One byte short. */
  hex[2 * N_BYTES - 2] = 0;
  text = const_module(hex, N_ELEMS);
  expect_error(text, "hex data has 16383 bytes; the type needs 16384", 2, col);
  free(text);
  /* Input ending inside the string, with nothing after it in memory. */
  expect_error("\"t.op\"() {v = dense<\"0xABCD", "unterminated string", 1, 21);
  expect_error("\"t.op\"() {v = dense<\"0xAB\\", "unterminated string", 1, 21);
  expect_error("\"t.op\"() {v = dense<\"0xAB\n\"> : tensor<1xi8>} : () -> ()", "unterminated string", 1, 21);
}

/* ---- streamed printing ---------------------------------------------------- */

typedef struct {
  char *buf;
  size_t len, cap, fail_after;
} sink;

static bool sink_write(void *user, const char *data, size_t n) {
  sink *s = user;
  if (s->len + n > s->fail_after) return false;
  if (s->len + n > s->cap) {
    s->cap = (s->len + n) * 2;
    s->buf = realloc(s->buf, s->cap);
    assert_non_null(s->buf);
  }
  memcpy(s->buf + s->len, data, n);
  s->len += n;
  return true;
}

static void test_write_stream(void **state) {
  (void)state;
  /* Several large constants (bigger than the printer's staging buffer) among
   * many small ops, one lowercase so that it is encoded piecewise. */
  enum { N = 24000 };
  static uint8_t bytes[4 * N];
  static char hex[8 * N + 1];
  size_t cap = 4 * sizeof hex + 4096 * 80;
  char *text = malloc(cap);
  assert_non_null(text);
  size_t len = (size_t)snprintf(text, cap, "func.func @main(%%a: tensor<4xf32>) -> tensor<4xf32> {\n");
  for (int k = 0; k < 3; k++) {
    make_blob(bytes, hex, 4 * N, k != 1, 10u + (unsigned)k);
    len += (size_t)snprintf(text + len, cap - len, "  %%k%d = stablehlo.constant dense<\"0x%s\"> : tensor<%dxf32>\n", k,
                            hex, N);
  }
  len += (size_t)snprintf(text + len, cap - len, "  %%v0 = stablehlo.add %%a, %%a : tensor<4xf32>\n");
  for (int i = 1; i < 4000; i++)
    len += (size_t)snprintf(text + len, cap - len, "  %%v%d = stablehlo.multiply %%v%d, %%a : tensor<4xf32>\n", i, i - 1);
  snprintf(text + len, cap - len, "  return %%v3999 : tensor<4xf32>\n}\n");
  shloc_module *m = parse_ok(text);
  for (unsigned flags = 0; flags <= SHLOC_PRINT_GENERIC; flags += SHLOC_PRINT_GENERIC) {
    char *whole = print(m, flags);
    sink s = {NULL, 0, 0, SIZE_MAX};
    assert_null(shloc_module_write(m, flags, sink_write, &s));
    assert_int_equal(s.len, strlen(whole));
    assert_memory_equal(s.buf, whole, s.len);
    /* A refusing writer stops printing with an I/O error. */
    sink f = {NULL, 0, 0, s.len / 2};
    shloc_status st = shloc_module_write(m, flags, sink_write, &f);
    assert_non_null(st);
    assert_int_equal(shloc_status_code(st), SHLOC_ERR_IO);
    assert_true(f.len <= s.len / 2);
    shloc_status_free(st);
    free(f.buf);
    free(s.buf);
    free(whole);
  }
  shloc_module_destroy(m);
  free(text);
}

/* ---- numbered SSA names ----------------------------------------------------- */

static void test_numbered_names(void **state) {
  (void)state;
  /* %v1 and %v01 are different names; %v007 is not number 7. */
  shloc_module *m = parse_ok("func.func @f(%a: tensor<i32>) -> tensor<i32> {\n"
                             "  %v1 = stablehlo.add %a, %a : tensor<i32>\n"
                             "  %v01 = stablehlo.add %v1, %a : tensor<i32>\n"
                             "  %v007 = stablehlo.add %v01, %v1 : tensor<i32>\n"
                             "  %v7 = stablehlo.add %v007, %v01 : tensor<i32>\n"
                             "  %999999999 = stablehlo.add %v7, %v7 : tensor<i32>\n"
                             "  %0 = stablehlo.add %999999999, %v7 : tensor<i32>\n"
                             "  return %0 : tensor<i32>\n}\n");
  shloc_module_destroy(m);
  expect_error("func.func @f(%a: tensor<i32>) {\n  %v5 = stablehlo.add %a, %a : tensor<i32>\n"
               "  %v5 = stablehlo.add %a, %a : tensor<i32>\n  return\n}\n",
               "redefinition of SSA value '%v5'", 3, 3);
  expect_error("func.func @f(%a: tensor<i32>) {\n  %3 = stablehlo.add %a, %a : tensor<i32>\n"
               "  %4 = stablehlo.add %a, %5 : tensor<i32>\n  return\n}\n",
               "use of undeclared SSA value '%5'", 3, 26);
  /* A name first stored in the hash map (its number was too far ahead of the
   * array) is still found when the array has grown past it. */
  size_t cap = 64 * 2200;
  char *s = malloc(cap);
  assert_non_null(s);
  size_t len = (size_t)snprintf(s, cap, "func.func @f(%%a: tensor<i32>) {\n  %%x2000 = stablehlo.add %%a, %%a : tensor<i32>\n");
  for (int i = 0; i < 1500; i++) len += (size_t)snprintf(s + len, cap - len, "  %%x%d = stablehlo.add %%x2000, %%a : tensor<i32>\n", i);
  size_t ok_len = len;
  snprintf(s + len, cap - len, "  return\n}\n");
  m = parse_ok(s);
  shloc_module_destroy(m);
  snprintf(s + ok_len, cap - ok_len, "  %%x2000 = stablehlo.add %%a, %%a : tensor<i32>\n  return\n}\n");
  expect_error(s, "redefinition of SSA value '%x2000'", 1503, 3);
  /* Regions see the enclosing names; an isolated function does not. */
  m = parse_ok("func.func @f(%arg0: tensor<i32>) -> tensor<i32> {\n"
               "  %0 = stablehlo.add %arg0, %arg0 : tensor<i32>\n"
               "  %1 = \"stablehlo.reduce\"(%0, %arg0) ({\n"
               "  ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):\n"
               "    %2 = stablehlo.add %arg1, %0 : tensor<i32>\n"
               "    stablehlo.return %2 : tensor<i32>\n"
               "  }) {dimensions = array<i64>} : (tensor<i32>, tensor<i32>) -> tensor<i32>\n"
               "  return %1 : tensor<i32>\n}\n");
  shloc_module_destroy(m);
  expect_error("func.func @f(%arg0: tensor<i32>) {\n  return\n}\nfunc.func @g() -> tensor<i32> {\n"
               "  return %arg0 : tensor<i32>\n}\n",
               "use of undeclared SSA value '%arg0'", 5, 10);
  free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lazy_hex),       cmocka_unit_test(test_lowercase_hex), cmocka_unit_test(test_large_splat),
      cmocka_unit_test(test_lazy_hex_threads), cmocka_unit_test(test_hex_errors),  cmocka_unit_test(test_write_stream),
      cmocka_unit_test(test_numbered_names),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
