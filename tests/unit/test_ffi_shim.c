/* Runtime of the generated C shims (shloc/ffi_shim.h): memref descriptors in
 * and out, backend_config attributes, strided operands, handler layouts,
 * output_operand_aliases, several and no results, legacy functions, errors,
 * and preparing a site once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "shloc/ffi_shim.h"

static void assert_ok(shloc_status st) {
  if (st) fail_msg("unexpected error: %s", shloc_status_message(st));
}

/* A 2x3 memref view. */
typedef struct {
  void *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} memref2;

static shloc_shim_memref unpack(memref2 *m) {
  return (shloc_shim_memref){m->allocated, m->aligned, m->offset, m->sizes, m->strides};
}

static float at(const memref2 *m, int i, int j) {
  return ((const float *)m->aligned)[m->offset + i * m->strides[0] + j * m->strides[1]];
}

/* ---- handlers ---- */

static int metadata_queries, scale_calls;

/* out = in * scale (f32 attribute); counts metadata queries. */
static XLA_FFI_Error *scale(XLA_FFI_CallFrame *cf) {
  if (shloc_ffi_is_metadata_query(cf)) metadata_queries++;
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  scale_calls++;
  float s;
  if (!shloc_ffi_attr_get_f32(&cf->attrs, "scale", &s))
    return shloc_ffi_errorf(cf->api, XLA_FFI_Error_Code_INVALID_ARGUMENT, "no scale");
  const XLA_FFI_Buffer *x = shloc_ffi_arg(cf, 0);
  XLA_FFI_Buffer *y = shloc_ffi_ret(cf, 0);
  for (int64_t i = 0; i < shloc_ffi_buffer_elements(x); i++) ((float *)y->data)[i] = ((const float *)x->data)[i] * s;
  return NULL;
}

/* Copies the operand's bytes to the result as they are (shows layouts). */
static XLA_FFI_Error *copy_bytes(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  const XLA_FFI_Buffer *x = shloc_ffi_arg(cf, 0);
  XLA_FFI_Buffer *y = shloc_ffi_ret(cf, 0);
  memcpy(y->data, x->data, (size_t)shloc_ffi_buffer_elements(x) * sizeof(float));
  return NULL;
}

/* Adds 1 in place; fails unless operand and result share the buffer. */
static XLA_FFI_Error *increment(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  XLA_FFI_Buffer *x = shloc_ffi_arg(cf, 0), *y = shloc_ffi_ret(cf, 0);
  if (x->data != y->data) return shloc_ffi_errorf(cf->api, XLA_FFI_Error_Code_INTERNAL, "not aliased");
  for (int64_t i = 0; i < shloc_ffi_buffer_elements(y); i++) ((float *)y->data)[i] += 1;
  return NULL;
}

/* Two results (sum as f32[2,3] and count as s64 scalar), or none. */
static int64_t last_count;
static XLA_FFI_Error *split(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  const XLA_FFI_Buffer *x = shloc_ffi_arg(cf, 0);
  last_count = shloc_ffi_buffer_elements(x);
  if (cf->rets.size == 0) return NULL;
  XLA_FFI_Buffer *a = shloc_ffi_ret(cf, 0), *n = shloc_ffi_ret(cf, 1);
  memcpy(a->data, x->data, (size_t)last_count * sizeof(float));
  *(int64_t *)n->data = last_count;
  return NULL;
}

static void legacy_negate(void *out, const void **in) {
  for (int i = 0; i < 6; i++) ((float *)out)[i] = -((const float *)in[0])[i];
}

/* ---- descriptions ---- */

static const int64_t dims23[] = {2, 3};
static const int64_t col_major[] = {0, 1};

static shloc_shim_call_desc desc_for(const char *target, XLA_FFI_Handler *h, const shloc_shim_buffer *args,
                                     const shloc_shim_buffer *rets, int32_t n_rets) {
  return (shloc_shim_call_desc){.symbol = target, .target = target, .api_version = 4, .config = "", .handler = h,
                                .n_args = 1, .n_rets = n_rets, .args = args, .rets = rets};
}

static void test_typed_with_attributes(void **state) {
  (void)state;
  shloc_shim_buffer arg = {XLA_FFI_DataType_F32, 2, NULL, NULL}, ret = {XLA_FFI_DataType_F32, 2, dims23, NULL};
  shloc_shim_call_desc d = desc_for("scale", scale, &arg, &ret, 1);
  d.config = "{scale = 2.5 : f32}";
  d.config_len = strlen(d.config);
  static shloc_shim_site *site;
  float x[6] = {1, 2, 3, 4, 5, 6};
  memref2 in = {x, x, 0, {2, 3}, {3, 1}};
  metadata_queries = scale_calls = 0;
  for (int round = 0; round < 2; round++) {
    memref2 out = {0};
    shloc_shim_memref a = unpack(&in), r = unpack(&out);
    assert_ok(shloc_shim_call(&d, &site, &a, &r));
    out.allocated = r.allocated;
    out.aligned = r.aligned;
    out.offset = r.offset;
    assert_true(((uintptr_t)out.aligned % 64) == 0);
    assert_int_equal(out.sizes[0], 2);
    assert_int_equal(out.sizes[1], 3);
    assert_int_equal(out.strides[0], 3);
    assert_int_equal(out.strides[1], 1);
    for (int i = 0; i < 6; i++) assert_true(((float *)out.aligned)[i] == x[i] * 2.5f);
    free(out.allocated);
  }
  /* The site is prepared once: one metadata query for two calls. */
  assert_int_equal(metadata_queries, 1);
  assert_int_equal(scale_calls, 2);
}

/* An operand view with an offset and non-unit strides reaches the handler
 * packed in row-major order. */
static void test_strided_operand(void **state) {
  (void)state;
  shloc_shim_buffer arg = {XLA_FFI_DataType_F32, 2, NULL, NULL}, ret = {XLA_FFI_DataType_F32, 2, dims23, NULL};
  shloc_shim_call_desc d = desc_for("copy", copy_bytes, &arg, &ret, 1);
  static shloc_shim_site *site;
  float big[32];
  for (int i = 0; i < 32; i++) big[i] = (float)i;
  memref2 in = {big, big, 1, {2, 3}, {8, 2}}, out = {0};
  shloc_shim_memref a = unpack(&in), r = unpack(&out);
  assert_ok(shloc_shim_call(&d, &site, &a, &r));
  out.aligned = r.aligned;
  out.offset = r.offset;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++) assert_true(at(&out, i, j) == at(&in, i, j));
  free(r.allocated);
}

/* operand_layouts {0, 1}: the handler sees column-major bytes; with the
 * result also column-major the round trip is the identity. */
static void test_layouts(void **state) {
  (void)state;
  float x[6] = {1, 2, 3, 4, 5, 6};
  memref2 in = {x, x, 0, {2, 3}, {3, 1}}, out = {0};
  shloc_shim_buffer arg = {XLA_FFI_DataType_F32, 2, NULL, col_major}, ret = {XLA_FFI_DataType_F32, 2, dims23, NULL};
  shloc_shim_call_desc d = desc_for("copy", copy_bytes, &arg, &ret, 1);
  static shloc_shim_site *site1, *site2;
  shloc_shim_memref a = unpack(&in), r = unpack(&out);
  assert_ok(shloc_shim_call(&d, &site1, &a, &r));
  const float colmajor[6] = {1, 4, 2, 5, 3, 6};
  for (int i = 0; i < 6; i++) assert_true(((float *)r.aligned)[i] == colmajor[i]);
  free(r.allocated);
  ret.layout = col_major;
  r = unpack(&out);
  assert_ok(shloc_shim_call(&d, &site2, &a, &r));
  for (int i = 0; i < 6; i++) assert_true(((float *)r.aligned)[i] == x[i]);
  free(r.allocated);
}

static void test_alias(void **state) {
  (void)state;
  float x[6] = {1, 2, 3, 4, 5, 6};
  memref2 in = {x, x, 0, {2, 3}, {3, 1}}, out = {0};
  shloc_shim_buffer arg = {XLA_FFI_DataType_F32, 2, NULL, NULL}, ret = {XLA_FFI_DataType_F32, 2, dims23, NULL};
  shloc_shim_call_desc d = desc_for("inc", increment, &arg, &ret, 1);
  static const int32_t alias[] = {0};
  d.ret_alias = alias;
  static shloc_shim_site *site;
  shloc_shim_memref a = unpack(&in), r = unpack(&out);
  assert_ok(shloc_shim_call(&d, &site, &a, &r));
  for (int i = 0; i < 6; i++) {
    assert_true(((float *)r.aligned)[i] == x[i] + 1);
    assert_true(x[i] == (float)(i + 1)); /* the operand is never written */
  }
  free(r.allocated);
}

static void test_several_and_no_results(void **state) {
  (void)state;
  float x[6] = {1, 2, 3, 4, 5, 6};
  memref2 in = {x, x, 0, {2, 3}, {3, 1}}, out0 = {0};
  struct {
    void *allocated, *aligned;
    int64_t offset;
  } out1;
  shloc_shim_buffer arg = {XLA_FFI_DataType_F32, 2, NULL, NULL};
  shloc_shim_buffer rets[2] = {{XLA_FFI_DataType_F32, 2, dims23, NULL}, {XLA_FFI_DataType_S64, 0, NULL, NULL}};
  shloc_shim_call_desc d = desc_for("split", split, &arg, rets, 2);
  static shloc_shim_site *site2, *site0;
  shloc_shim_memref a = unpack(&in), r[2] = {unpack(&out0), {NULL, NULL, 0, NULL, NULL}};
  assert_ok(shloc_shim_call(&d, &site2, &a, r));
  out1.aligned = r[1].aligned;
  assert_int_equal(*(int64_t *)out1.aligned, 6);
  assert_true(((float *)r[0].aligned)[5] == 6);
  free(r[0].allocated);
  free(r[1].allocated);
  last_count = 0;
  d.n_rets = 0;
  d.rets = NULL;
  assert_ok(shloc_shim_call(&d, &site0, &a, NULL));
  assert_int_equal(last_count, 6);
}

static void test_legacy(void **state) {
  (void)state;
  float x[6] = {1, 2, 3, 4, 5, 6};
  memref2 in = {x, x, 0, {2, 3}, {3, 1}}, out = {0};
  shloc_shim_buffer arg = {XLA_FFI_DataType_F32, 2, NULL, NULL}, ret = {XLA_FFI_DataType_F32, 2, dims23, NULL};
  shloc_shim_call_desc d = desc_for("neg", NULL, &arg, &ret, 1);
  d.api_version = 1;
  d.legacy = (shloc_legacy_fn)legacy_negate;
  static shloc_shim_site *site;
  shloc_shim_memref a = unpack(&in), r = unpack(&out);
  assert_ok(shloc_shim_call(&d, &site, &a, &r));
  for (int i = 0; i < 6; i++) assert_true(((float *)r.aligned)[i] == -x[i]);
  free(r.allocated);
}

static void test_errors(void **state) {
  (void)state;
  float x[6] = {0};
  memref2 in = {x, x, 0, {2, 3}, {3, 1}}, out = {0};
  shloc_shim_buffer arg = {XLA_FFI_DataType_F32, 2, NULL, NULL}, ret = {XLA_FFI_DataType_F32, 2, dims23, NULL};
  /* The handler's error, with the symbol and target named. */
  shloc_shim_call_desc d = desc_for("scale", scale, &arg, &ret, 1);
  d.symbol = "scale_1";
  static shloc_shim_site *site, *bad_site;
  shloc_shim_memref a = unpack(&in), r = unpack(&out);
  shloc_status st = shloc_shim_call(&d, &site, &a, &r);
  assert_non_null(st);
  assert_non_null(strstr(shloc_status_message(st), "@scale_1"));
  assert_non_null(strstr(shloc_status_message(st), "custom call 'scale': INVALID_ARGUMENT: no scale"));
  assert_null(r.allocated);
  shloc_status_free(st);
  /* A configuration the FFI cannot carry fails when the site is prepared. */
  d.config = "{flag}";
  d.config_len = strlen(d.config);
  st = shloc_shim_call(&d, &bad_site, &a, &r);
  assert_non_null(st);
  assert_non_null(strstr(shloc_status_message(st), "flag"));
  assert_null(bad_site);
  shloc_status_free(st);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_typed_with_attributes),
      cmocka_unit_test(test_strided_operand),
      cmocka_unit_test(test_layouts),
      cmocka_unit_test(test_alias),
      cmocka_unit_test(test_several_and_no_results),
      cmocka_unit_test(test_legacy),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
