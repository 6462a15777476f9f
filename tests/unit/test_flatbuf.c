/* The generic FlatBuffers reader (src/bytecode/flatbuf.c) on buffers from the
 * test builder (fb_build.h): scalars with defaults, strings, vectors, nested
 * tables, unions, shared vtables, and the errors for out-of-range fields. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bytecode/flatbuf.h"
#include "fb_build.h"
#include "ok.h"

/* table Leaf { v: int32; }  union U { Leaf }
 * table Root { a: uint8 = 7; b: int16; name: string; list: [Leaf]; bytes: [ubyte];
 *              u_type: U (id 5); u: U (id 6); big: uint64; } */
static const uint8_t *build(fbb *b, size_t *len) {
  uint32_t leaves[3];
  for (int i = 0; i < 3; i++) {
    fbb_start(b);
    fbb_add_scalar(b, 0, (uint64_t)(int64_t)(i - 1), 4); /* -1, 0 (stored anyway), 1: one shared vtable */
    leaves[i] = fbb_end(b);
  }
  fbb_start(b);
  fbb_add_scalar(b, 0, 42, 4);
  uint32_t member = fbb_end(b);
  uint32_t list = fbb_refs(b, leaves, 3);
  uint32_t name = fbb_string(b, "root");
  static const uint8_t raw[] = {9, 8, 7};
  uint32_t bytes = fbb_bytes(b, raw, sizeof raw);
  fbb_start(b);
  fbb_add_scalar(b, 1, (uint16_t)-5, 2);
  fbb_add_ref(b, 2, name);
  fbb_add_ref(b, 3, list);
  fbb_add_ref(b, 4, bytes);
  fbb_add_scalar(b, 5, 1, 1);
  fbb_add_ref(b, 6, member);
  fbb_add_scalar(b, 7, 0x0102030405060708ull, 8);
  uint32_t root = fbb_end(b);
  return fbb_finish(b, root, len);
}

static void test_fields(void **state) {
  (void)state;
  fbb b;
  fbb_init(&b);
  size_t len;
  const uint8_t *p = build(&b, &len);
  fb_buf buf;
  fb_table root, t;
  fb_vec v;
  shl_str s;
  uint64_t x;
  bool present;
  OK(fb_init(&buf, p, len, "t", "test buffer"));
  OK(fb_root(&buf, &root));
  OK(fb_scalar(&root, 0, 1, 7, &x)); /* absent: the default */
  assert_int_equal(x, 7);
  assert_false(fb_has(&root, 0));
  OK(fb_scalar(&root, 1, 2, 0, &x));
  assert_int_equal((int16_t)x, -5);
  OK(fb_string_field(&root, 2, &s, &present));
  assert_true(present);
  assert_true(str_eq_c(s, "root"));
  OK(fb_vector_field(&root, 3, 4, &v, NULL));
  assert_int_equal(v.n, 3);
  for (uint32_t i = 0; i < 3; i++) {
    OK(fb_vec_table(&v, i, &t));
    OK(fb_scalar(&t, 0, 4, 0, &x));
    assert_int_equal((int32_t)x, (int32_t)i - 1);
  }
  shl_status oob = fb_vec_table(&v, 3, &t); /* index out of range */
  assert_non_null(oob);
  shloc_status_free(oob);
  OK(fb_vector_field(&root, 4, 1, &v, NULL));
  assert_int_equal(v.n, 3);
  assert_int_equal(fb_vec_scalar(&v, 2), 7);
  uint8_t type;
  OK(fb_union_field(&root, 5, &type, &t));
  assert_int_equal(type, 1);
  OK(fb_scalar(&t, 0, 4, 0, &x));
  assert_int_equal(x, 42);
  OK(fb_scalar(&root, 7, 8, 0, &x));
  assert_true(x == 0x0102030405060708ull);
  /* Fields past the vtable read as absent. */
  OK(fb_string_field(&root, 30, &s, &present));
  assert_false(present);
  fbb_free(&b);
}

/* A union whose type is set but whose value is missing. */
static void test_union_without_value(void **state) {
  (void)state;
  fbb b;
  fbb_init(&b);
  fbb_start(&b);
  fbb_add_scalar(&b, 0, 3, 1);
  uint32_t root = fbb_end(&b);
  size_t len;
  const uint8_t *p = fbb_finish(&b, root, &len);
  fb_buf buf;
  fb_table t, u;
  uint8_t type;
  OK(fb_init(&buf, p, len, "t", "test buffer"));
  OK(fb_root(&buf, &t));
  shloc_status st = fb_union_field(&t, 0, &type, &u);
  assert_non_null(st);
  assert_non_null(strstr(shloc_status_message(st), "no value"));
  shloc_status_free(st);
  fbb_free(&b);
}

/* A vtable entry pointing past the table's end. */
static void test_field_outside_table(void **state) {
  (void)state;
  fbb b;
  fbb_init(&b);
  fbb_start(&b);
  fbb_add_scalar(&b, 0, 5, 4);
  uint32_t root = fbb_end(&b);
  size_t len;
  const uint8_t *p = fbb_finish(&b, root, &len);
  uint8_t *c = malloc(len);
  memcpy(c, p, len);
  uint32_t at = (uint32_t)c[0] | (uint32_t)c[1] << 8;
  int32_t so = (int32_t)((uint32_t)c[at] | (uint32_t)c[at + 1] << 8 | (uint32_t)c[at + 2] << 16 | (uint32_t)c[at + 3] << 24);
  uint32_t vt = (uint32_t)((int64_t)at - so);
  c[vt + 4] = 200; /* field 0 at offset 200 */
  fb_buf buf;
  fb_table t;
  uint64_t x;
  OK(fb_init(&buf, c, len, "t", "test buffer"));
  OK(fb_root(&buf, &t));
  shloc_status st = fb_scalar(&t, 0, 4, 0, &x);
  assert_non_null(st);
  assert_non_null(strstr(shloc_status_message(st), "outside"));
  assert_non_null(strstr(shloc_status_message(st), "test buffer at byte"));
  shloc_status_free(st);
  free(c);
  fbb_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fields),
      cmocka_unit_test(test_union_without_value),
      cmocka_unit_test(test_field_outside_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
