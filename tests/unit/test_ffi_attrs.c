/* FFI attribute encoding: every kind and width XLA passes, byte-wise name
 * order at every nesting level, and the MLIR attribute types XLA rejects. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ffi/ffi.h"

#define NAME(s) s, sizeof(s) - 1

/* The attributes the probe handler saw on its last execute call; they point
 * into the site's encoded block, valid until the site is destroyed. */
static XLA_FFI_Attrs seen;

static XLA_FFI_Error *probe(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  seen = cf->attrs;
  return NULL;
}

typedef struct {
  ffi_registry *reg;
  ffi_attrs *attrs;
  ffi_site *site;
} fixture;

static int setup(void **state) {
  static fixture f;
  memset(&f, 0, sizeof f);
  XLA_FFI_Handler_Bundle b = {NULL, NULL, NULL, probe};
  if (ffi_registry_create(&f.reg) || ffi_registry_add_handler(f.reg, "probe", NULL, &b, 0) ||
      ffi_attrs_create(&f.attrs))
    return -1;
  *state = &f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  ffi_site_destroy(f->site);
  ffi_attrs_destroy(f->attrs);
  ffi_registry_destroy(f->reg);
  return 0;
}

static void assert_ok(shl_status st) {
  if (st) fail_msg("unexpected error: %s", shloc_status_message(st));
}

/* Prepares a site with the fixture's attributes and runs it once. */
static void run_probe(fixture *f) {
  ffi_site_desc d = {.target = "probe", .api_version = 4, .attrs = f->attrs};
  assert_ok(ffi_site_prepare(f->reg, &d, &f->site));
  memset(&seen, 0, sizeof seen);
  assert_ok(ffi_site_call(f->site, NULL, NULL, NULL));
  assert_int_equal(seen.struct_size, XLA_FFI_Attrs_STRUCT_SIZE);
}

static void expect_error(shl_status st, shloc_code code, const char *needle) {
  assert_non_null(st);
  assert_int_equal(shloc_status_code(st), code);
  if (!strstr(shloc_status_message(st), needle)) fail_msg("message '%s' lacks '%s'", shloc_status_message(st), needle);
  shloc_status_free(st);
}

static void test_no_attributes(void **state) {
  fixture *f = *state;
  run_probe(f);
  assert_int_equal(seen.size, 0);
}

static void test_scalars_every_width(void **state) {
  fixture *f = *state;
  uint8_t t = 1, fls = 0;
  int8_t s8 = -8;
  int16_t s16 = -1616;
  int32_t s32 = -323232;
  int64_t s64 = -6464646464646464LL;
  uint8_t u8 = 250;
  uint16_t u16 = 65000;
  uint32_t u32 = 4000000000u;
  uint64_t u64 = 18000000000000000000ull;
  float f32 = 1.5f;
  double f64 = -2.25;
  assert_ok(ffi_attrs_add_scalar(f->attrs, NAME("t"), DT_I1, &t));
  assert_ok(ffi_attrs_add_scalar(f->attrs, NAME("f"), DT_I1, &fls));
  assert_ok(ffi_attrs_add_scalar(f->attrs, NAME("s8"), DT_I8, &s8));
  assert_ok(ffi_attrs_add_scalar(f->attrs, NAME("s16"), DT_SI16, &s16));
  assert_ok(ffi_attrs_add_scalar(f->attrs, NAME("s32"), DT_I32, &s32));
  assert_ok(ffi_attrs_add_scalar(f->attrs, NAME("s64"), DT_SI64, &s64));
  assert_ok(ffi_attrs_add_scalar(f->attrs, NAME("u8"), DT_UI8, &u8));
  assert_ok(ffi_attrs_add_scalar(f->attrs, NAME("u16"), DT_UI16, &u16));
  assert_ok(ffi_attrs_add_scalar(f->attrs, NAME("u32"), DT_UI32, &u32));
  assert_ok(ffi_attrs_add_scalar(f->attrs, NAME("u64"), DT_UI64, &u64));
  assert_ok(ffi_attrs_add_scalar(f->attrs, NAME("f32"), DT_F32, &f32));
  assert_ok(ffi_attrs_add_scalar(f->attrs, NAME("f64"), DT_F64, &f64));
  run_probe(f);
  assert_int_equal(seen.size, 12);
  for (int64_t i = 0; i < seen.size; i++) assert_int_equal(seen.types[i], XLA_FFI_AttrType_SCALAR);

  bool b;
  assert_true(shloc_ffi_attr_get_bool(&seen, "t", &b) && b);
  assert_true(shloc_ffi_attr_get_bool(&seen, "f", &b) && !b);
  int8_t g8;
  int16_t g16;
  int32_t g32;
  int64_t g64;
  uint8_t h8;
  uint16_t h16;
  uint32_t h32;
  uint64_t h64;
  float gf;
  double gd;
  assert_true(shloc_ffi_attr_get_i8(&seen, "s8", &g8) && g8 == s8);
  assert_true(shloc_ffi_attr_get_i16(&seen, "s16", &g16) && g16 == s16);
  assert_true(shloc_ffi_attr_get_i32(&seen, "s32", &g32) && g32 == s32);
  assert_true(shloc_ffi_attr_get_i64(&seen, "s64", &g64) && g64 == s64);
  assert_true(shloc_ffi_attr_get_u8(&seen, "u8", &h8) && h8 == u8);
  assert_true(shloc_ffi_attr_get_u16(&seen, "u16", &h16) && h16 == u16);
  assert_true(shloc_ffi_attr_get_u32(&seen, "u32", &h32) && h32 == u32);
  assert_true(shloc_ffi_attr_get_u64(&seen, "u64", &h64) && h64 == u64);
  assert_true(shloc_ffi_attr_get_f32(&seen, "f32", &gf) && gf == f32);
  assert_true(shloc_ffi_attr_get_f64(&seen, "f64", &gd) && gd == f64);
  /* Exact dtype match, as XLA's decoders require: an i32 is not an i64. */
  assert_false(shloc_ffi_attr_get_i64(&seen, "s32", &g64));
  assert_false(shloc_ffi_attr_get_i32(&seen, "missing", &g32));
  /* PRED is one byte. */
  const XLA_FFI_Scalar *pt = shloc_ffi_attr_scalar(&seen, "t", XLA_FFI_DataType_PRED);
  assert_non_null(pt);
  assert_int_equal(*(const uint8_t *)pt->value, 1);
}

static void test_pred_normalised(void **state) {
  fixture *f = *state;
  uint8_t seven = 7;
  assert_ok(ffi_attrs_add_scalar(f->attrs, NAME("p"), DT_I1, &seven));
  run_probe(f);
  const XLA_FFI_Scalar *p = shloc_ffi_attr_scalar(&seen, "p", XLA_FFI_DataType_PRED);
  assert_non_null(p);
  assert_int_equal(*(const uint8_t *)p->value, 1);
}

static void test_arrays_every_width(void **state) {
  fixture *f = *state;
  int8_t a8[] = {-1, 2, -3};
  int16_t a16[] = {-300, 300};
  int32_t a32[] = {1, 2, 3, 4};
  int64_t a64[] = {INT64_MIN, INT64_MAX};
  uint8_t b8[] = {0, 255};
  uint16_t b16[] = {65535};
  uint32_t b32[] = {7, 8, 9};
  uint64_t b64[] = {UINT64_MAX};
  float af[] = {0.5f, -0.25f};
  double ad[] = {1e300, -1e-300, 0.0};
  assert_ok(ffi_attrs_add_array(f->attrs, NAME("a8"), DT_I8, 3, a8));
  assert_ok(ffi_attrs_add_array(f->attrs, NAME("a16"), DT_I16, 2, a16));
  assert_ok(ffi_attrs_add_array(f->attrs, NAME("a32"), DT_SI32, 4, a32));
  assert_ok(ffi_attrs_add_array(f->attrs, NAME("a64"), DT_I64, 2, a64));
  assert_ok(ffi_attrs_add_array(f->attrs, NAME("b8"), DT_UI8, 2, b8));
  assert_ok(ffi_attrs_add_array(f->attrs, NAME("b16"), DT_UI16, 1, b16));
  assert_ok(ffi_attrs_add_array(f->attrs, NAME("b32"), DT_UI32, 3, b32));
  assert_ok(ffi_attrs_add_array(f->attrs, NAME("b64"), DT_UI64, 1, b64));
  assert_ok(ffi_attrs_add_array(f->attrs, NAME("af"), DT_F32, 2, af));
  assert_ok(ffi_attrs_add_array(f->attrs, NAME("ad"), DT_F64, 3, ad));
  assert_ok(ffi_attrs_add_array(f->attrs, NAME("empty"), DT_I64, 0, NULL));
  run_probe(f);
  assert_int_equal(seen.size, 11);
  const struct {
    const char *name;
    XLA_FFI_DataType dt;
    size_t n;
    const void *want;
    size_t bytes;
  } cases[] = {
      {"a8", XLA_FFI_DataType_S8, 3, a8, sizeof a8},     {"a16", XLA_FFI_DataType_S16, 2, a16, sizeof a16},
      {"a32", XLA_FFI_DataType_S32, 4, a32, sizeof a32}, {"a64", XLA_FFI_DataType_S64, 2, a64, sizeof a64},
      {"b8", XLA_FFI_DataType_U8, 2, b8, sizeof b8},     {"b16", XLA_FFI_DataType_U16, 1, b16, sizeof b16},
      {"b32", XLA_FFI_DataType_U32, 3, b32, sizeof b32}, {"b64", XLA_FFI_DataType_U64, 1, b64, sizeof b64},
      {"af", XLA_FFI_DataType_F32, 2, af, sizeof af},    {"ad", XLA_FFI_DataType_F64, 3, ad, sizeof ad},
      {"empty", XLA_FFI_DataType_S64, 0, NULL, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const XLA_FFI_Array *a = shloc_ffi_attr_array(&seen, cases[i].name, cases[i].dt);
    if (!a) fail_msg("array %s missing or wrong dtype", cases[i].name);
    assert_int_equal(a->size, cases[i].n);
    if (cases[i].bytes) assert_memory_equal(a->data, cases[i].want, cases[i].bytes);
    assert_int_equal((uintptr_t)a->data % 16, 0);
  }
}

static void test_strings(void **state) {
  fixture *f = *state;
  static const char bin[] = {'a', '\0', 'b'};
  assert_ok(ffi_attrs_add_string(f->attrs, NAME("s"), "hello", 5));
  assert_ok(ffi_attrs_add_string(f->attrs, NAME("empty"), "", 0));
  assert_ok(ffi_attrs_add_string(f->attrs, NAME("bin"), bin, 3));
  run_probe(f);
  const XLA_FFI_ByteSpan *s = shloc_ffi_attr_string(&seen, "s");
  assert_non_null(s);
  assert_int_equal(s->len, 5);
  assert_memory_equal(s->ptr, "hello", 5);
  const XLA_FFI_ByteSpan *e = shloc_ffi_attr_string(&seen, "empty");
  assert_non_null(e);
  assert_int_equal(e->len, 0);
  const XLA_FFI_ByteSpan *b = shloc_ffi_attr_string(&seen, "bin");
  assert_non_null(b);
  assert_int_equal(b->len, 3);
  assert_memory_equal(b->ptr, bin, 3);
  assert_null(shloc_ffi_attr_scalar(&seen, "s", XLA_FFI_DataType_S32));
}

static void assert_names(const XLA_FFI_Attrs *a, const char *const *want, int64_t n) {
  assert_int_equal(a->size, n);
  for (int64_t i = 0; i < n; i++) {
    assert_int_equal(a->names[i]->len, strlen(want[i]));
    assert_memory_equal(a->names[i]->ptr, want[i], a->names[i]->len);
  }
}

static void test_sorted_byte_order(void **state) {
  fixture *f = *state;
  static const char *const order[] = {"B", "Z_upper", "a", "ab", "abc", "b", "\xc3\xa9"};
  static const int insert[] = {5, 2, 6, 4, 0, 3, 1};
  for (int i = 0; i < 7; i++) {
    int64_t v = insert[i];
    assert_ok(ffi_attrs_add_scalar(f->attrs, order[insert[i]], strlen(order[insert[i]]), DT_I64, &v));
  }
  run_probe(f);
  assert_names(&seen, order, 7);
  for (int64_t i = 0; i < 7; i++) {
    int64_t v;
    assert_true(shloc_ffi_attr_get_i64(&seen, order[i], &v));
    assert_int_equal(shloc_ffi_attr_find(&seen, order[i]), i);
  }
}

static void test_nested_dictionaries(void **state) {
  fixture *f = *state;
  int32_t one = 1, two = 2;
  int64_t arr[] = {5, 6};
  assert_ok(ffi_attrs_add_scalar(f->attrs, NAME("z"), DT_I32, &one));
  assert_ok(ffi_attrs_begin_dict(f->attrs, NAME("outer")));
  assert_ok(ffi_attrs_add_string(f->attrs, NAME("y"), "why", 3));
  assert_ok(ffi_attrs_begin_dict(f->attrs, NAME("inner")));
  assert_ok(ffi_attrs_add_scalar(f->attrs, NAME("k"), DT_I32, &two));
  assert_ok(ffi_attrs_add_array(f->attrs, NAME("arr"), DT_I64, 2, arr));
  assert_ok(ffi_attrs_end_dict(f->attrs));
  assert_ok(ffi_attrs_begin_dict(f->attrs, NAME("empty")));
  assert_ok(ffi_attrs_end_dict(f->attrs));
  assert_ok(ffi_attrs_end_dict(f->attrs));
  assert_ok(ffi_attrs_add_scalar(f->attrs, NAME("a"), DT_I32, &two));
  /* Same name at another level is fine. */
  run_probe(f);
  static const char *const top[] = {"a", "outer", "z"};
  assert_names(&seen, top, 3);
  const XLA_FFI_Attrs *outer = shloc_ffi_attr_dict(&seen, "outer");
  assert_non_null(outer);
  assert_int_equal(outer->struct_size, XLA_FFI_Attrs_STRUCT_SIZE);
  static const char *const mid[] = {"empty", "inner", "y"};
  assert_names(outer, mid, 3);
  const XLA_FFI_Attrs *inner = shloc_ffi_attr_dict(outer, "inner");
  assert_non_null(inner);
  static const char *const in[] = {"arr", "k"};
  assert_names(inner, in, 2);
  int32_t k;
  assert_true(shloc_ffi_attr_get_i32(inner, "k", &k) && k == 2);
  const XLA_FFI_Array *a = shloc_ffi_attr_array(inner, "arr", XLA_FFI_DataType_S64);
  assert_non_null(a);
  assert_int_equal(((const int64_t *)a->data)[1], 6);
  const XLA_FFI_Attrs *e = shloc_ffi_attr_dict(outer, "empty");
  assert_non_null(e);
  assert_int_equal(e->size, 0);
}

static void test_rejected_types(void **state) {
  fixture *f = *state;
  uint64_t zero = 0;
  expect_error(ffi_attrs_add_scalar(f->attrs, NAME("h"), DT_F16, &zero), SHLOC_ERR_UNSUPPORTED,
               "Unsupported float attribute bit width");
  expect_error(ffi_attrs_add_scalar(f->attrs, NAME("bf"), DT_BF16, &zero), SHLOC_ERR_UNSUPPORTED,
               "Unsupported float attribute bit width");
  expect_error(ffi_attrs_add_scalar(f->attrs, NAME("i4"), DT_I4, &zero), SHLOC_ERR_UNSUPPORTED,
               "Unsupported integer attribute bit width");
  expect_error(ffi_attrs_add_scalar(f->attrs, NAME("ix"), DT_INDEX, &zero), SHLOC_ERR_UNSUPPORTED,
               "Unsupported integer attribute bit width");
  expect_error(ffi_attrs_add_scalar(f->attrs, NAME("c"), DT_C64, &zero), SHLOC_ERR_UNSUPPORTED,
               "Unsupported attribute type");
  expect_error(ffi_attrs_add_array(f->attrs, NAME("bools"), DT_I1, 1, &zero), SHLOC_ERR_UNSUPPORTED,
               "Unsupported array element type i1");
  expect_error(ffi_attrs_add_array(f->attrs, NAME("halfs"), DT_F16, 1, &zero), SHLOC_ERR_UNSUPPORTED, "f16");
  expect_error(ffi_attrs_add_string(f->attrs, "", 0, "x", 1), SHLOC_ERR_INVALID_ARG, "empty name");
  expect_error(ffi_attrs_end_dict(f->attrs), SHLOC_ERR_INVALID_ARG, "without begin_dict");
  /* Nothing was added by the failed calls. */
  run_probe(f);
  assert_int_equal(seen.size, 0);
}

static void test_duplicates_and_unclosed(void **state) {
  fixture *f = *state;
  int32_t v = 0;
  assert_ok(ffi_attrs_add_scalar(f->attrs, NAME("dup"), DT_I32, &v));
  assert_ok(ffi_attrs_add_string(f->attrs, NAME("dup"), "x", 1));
  ffi_site_desc d = {.target = "probe", .api_version = 4, .attrs = f->attrs};
  expect_error(ffi_site_prepare(f->reg, &d, &f->site), SHLOC_ERR_INVALID_ARG, "duplicate custom call attribute 'dup'");
  assert_null(f->site);

  ffi_attrs *open;
  assert_ok(ffi_attrs_create(&open));
  assert_ok(ffi_attrs_begin_dict(open, NAME("unclosed")));
  d.attrs = open;
  expect_error(ffi_site_prepare(f->reg, &d, &f->site), SHLOC_ERR_INVALID_ARG, "'unclosed' is not closed");
  ffi_attrs_destroy(open);
}

static void test_depth_limit(void **state) {
  fixture *f = *state;
  shl_status st = NULL;
  int depth = 0;
  while (!st && depth < 1000) {
    st = ffi_attrs_begin_dict(f->attrs, NAME("d"));
    depth++;
  }
  expect_error(st, SHLOC_ERR_LIMIT, "nested deeper");
  assert_true(depth < 1000);
}

static void test_builder_reusable_and_independent(void **state) {
  fixture *f = *state;
  int32_t v = 41;
  assert_ok(ffi_attrs_add_scalar(f->attrs, NAME("v"), DT_I32, &v));
  ffi_site_desc d = {.target = "probe", .api_version = 4, .attrs = f->attrs};
  ffi_site *other;
  assert_ok(ffi_site_prepare(f->reg, &d, &other));
  /* The site copied the attributes: destroying the builder keeps them valid. */
  ffi_attrs_destroy(f->attrs);
  f->attrs = NULL;
  assert_ok(ffi_site_call(other, NULL, NULL, NULL));
  int32_t got;
  assert_true(shloc_ffi_attr_get_i32(&seen, "v", &got) && got == 41);
  ffi_site_destroy(other);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_no_attributes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_scalars_every_width, setup, teardown),
      cmocka_unit_test_setup_teardown(test_pred_normalised, setup, teardown),
      cmocka_unit_test_setup_teardown(test_arrays_every_width, setup, teardown),
      cmocka_unit_test_setup_teardown(test_strings, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sorted_byte_order, setup, teardown),
      cmocka_unit_test_setup_teardown(test_nested_dictionaries, setup, teardown),
      cmocka_unit_test_setup_teardown(test_rejected_types, setup, teardown),
      cmocka_unit_test_setup_teardown(test_duplicates_and_unclosed, setup, teardown),
      cmocka_unit_test_setup_teardown(test_depth_limit, setup, teardown),
      cmocka_unit_test_setup_teardown(test_builder_reusable_and_independent, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
