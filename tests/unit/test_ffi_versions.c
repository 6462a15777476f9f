/* XLA FFI API version negotiation and the version-dependent parts of the
 * API: handlers reporting 0.1 through 0.5 are accepted (newer minors and
 * other majors are not), and each one's State_Set/State_Get and type
 * registration calls are read in the layout of its own header:
 *   0.1  TypeId_Register {name, type_id}; State_Set {ctx, type_id, state,
 *        deleter} (48 bytes); State_Get {ctx, type_id, state} (40 bytes)
 *   0.2  Type_Register adds type_info (the deleter); State_Set/Get
 *        {ctx, type_id, state} (40 bytes)
 *   0.5  State_Set/Get {ctx, stage, type_id, state} (48 bytes), states per
 *        stage; Error_GetCode in API slot 18. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cc_harness.h"
#include "ffi/ffi.h"

/* Argument structs as the 0.1 and 0.2 headers declared them. */
typedef struct {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_ByteSpan name;
  XLA_FFI_TypeId *type_id;
} type_register_v01;

typedef struct {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_ExecutionContext *ctx;
  XLA_FFI_TypeId *type_id;
  void *state;
  void (*deleter)(void *);
} state_set_v01;

typedef struct {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_ExecutionContext *ctx;
  XLA_FFI_TypeId *type_id;
  void *state;
} state_v02; /* also 0.1's State_Get */

/* Answers the metadata query with version 0.`minor`, writing only the
 * fields an old header knew (its Metadata ended at traits). */
static int report_minor(XLA_FFI_CallFrame *cf, int major, int minor) {
  if (!shloc_ffi_is_metadata_query(cf)) return 0;
  XLA_FFI_Metadata *m = ((XLA_FFI_Metadata_Extension *)cf->extension_start)->metadata;
  m->api_version.struct_size = XLA_FFI_Api_Version_STRUCT_SIZE;
  m->api_version.major_version = major;
  m->api_version.minor_version = minor;
  m->traits = 0;
  return 1;
}

static int deleted;
static void del_i64(void *p) {
  deleted++;
  free(p);
}

static int64_t *new_state(int64_t v) {
  int64_t *p = malloc(sizeof *p);
  *p = v;
  return p;
}

/* Execute: ret0 = the instantiate state, incremented. */
static XLA_FFI_Error *bump(XLA_FFI_CallFrame *cf, int64_t *st) {
  *(int64_t *)shloc_ffi_ret(cf, 0)->data = ++*st;
  return NULL;
}

/* ---- a 0.1 handler ---- */

static XLA_FFI_TypeId type_v01;
static XLA_FFI_Error *inst_v01(XLA_FFI_CallFrame *cf) {
  if (report_minor(cf, 0, 1)) return NULL;
  if (type_v01.type_id == 0) {
    type_register_v01 a = {sizeof a, NULL, {"test.v01", 8}, &type_v01};
    XLA_FFI_Error *e = cf->api->XLA_FFI_Type_Register((XLA_FFI_Type_Register_Args *)&a);
    if (e) return e;
  }
  state_set_v01 a = {sizeof a, NULL, cf->ctx, &type_v01, new_state(100), del_i64};
  return cf->api->XLA_FFI_State_Set((XLA_FFI_State_Set_Args *)&a);
}
static XLA_FFI_Error *exec_v01(XLA_FFI_CallFrame *cf) {
  if (report_minor(cf, 0, 1)) return NULL;
  state_v02 a = {sizeof a, NULL, cf->ctx, &type_v01, NULL};
  XLA_FFI_Error *e = cf->api->XLA_FFI_State_Get((XLA_FFI_State_Get_Args *)&a);
  return e ? e : bump(cf, a.state);
}

/* ---- a 0.2 handler: the deleter comes with the type ---- */

static XLA_FFI_TypeId type_v02;
static XLA_FFI_Error *inst_v02(XLA_FFI_CallFrame *cf) {
  if (report_minor(cf, 0, 2)) return NULL;
  if (type_v02.type_id == 0) {
    XLA_FFI_Error *e = shloc_ffi_type_register(cf->api, "test.v02", &type_v02, del_i64);
    if (e) return e;
  }
  state_v02 a = {sizeof a, NULL, cf->ctx, &type_v02, new_state(200)};
  return cf->api->XLA_FFI_State_Set((XLA_FFI_State_Set_Args *)&a);
}
static XLA_FFI_Error *exec_v02(XLA_FFI_CallFrame *cf) {
  if (report_minor(cf, 0, 2)) return NULL;
  state_v02 a = {sizeof a, NULL, cf->ctx, &type_v02, NULL};
  XLA_FFI_Error *e = cf->api->XLA_FFI_State_Get((XLA_FFI_State_Get_Args *)&a);
  return e ? e : bump(cf, a.state);
}

/* ---- a 0.5 handler (this header): per-stage state ---- */

static XLA_FFI_TypeId type_v05;
static XLA_FFI_Error *inst_v05(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_INSTANTIATE);
  return shloc_ffi_state_set(cf, &type_v05, new_state(500));
}
/* Prepare sets a per-execution state holding 7. */
static XLA_FFI_Error *prep_v05(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_PREPARE);
  return shloc_ffi_state_set(cf, &type_v05, new_state(7));
}
static XLA_FFI_Error *exec_v05(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  void *inst, *prep;
  XLA_FFI_Error *e = shloc_ffi_state_get(cf, XLA_FFI_ExecutionStage_INSTANTIATE, &type_v05, &inst);
  if (!e) e = shloc_ffi_state_get(cf, XLA_FFI_ExecutionStage_PREPARE, &type_v05, &prep);
  if (e) return e;
  *(int64_t *)inst += *(int64_t *)prep;
  /* The execute stage has no state of its own. */
  XLA_FFI_State_Get_Args g = {XLA_FFI_State_Get_Args_STRUCT_SIZE, NULL, cf->ctx, XLA_FFI_ExecutionStage_EXECUTE,
                              &type_v05, NULL};
  XLA_FFI_Error *none = cf->api->XLA_FFI_State_Get(&g);
  if (!none || shloc_ffi_error_code(cf->api, none) != XLA_FFI_Error_Code_INVALID_ARGUMENT)
    return shloc_ffi_errorf(cf->api, XLA_FFI_Error_Code_INTERNAL, "execute-stage state");
  shloc_ffi_error_destroy(cf->api, none);
  /* Setting the instantiate state again is refused. */
  XLA_FFI_State_Set_Args again = {XLA_FFI_State_Set_Args_STRUCT_SIZE, NULL, cf->ctx,
                                  XLA_FFI_ExecutionStage_INSTANTIATE, &type_v05, inst};
  XLA_FFI_Error *dup = cf->api->XLA_FFI_State_Set(&again);
  if (!dup || shloc_ffi_error_code(cf->api, dup) != XLA_FFI_Error_Code_ALREADY_EXISTS)
    return shloc_ffi_errorf(cf->api, XLA_FFI_Error_Code_INTERNAL, "state set twice");
  shloc_ffi_error_destroy(cf->api, dup);
  *(int64_t *)shloc_ffi_ret(cf, 0)->data = *(int64_t *)inst;
  return NULL;
}

/* Runs a stateful bundle's site `runs` times and checks ret0 each time. */
static void run_stateful(const char *target, const XLA_FFI_Handler_Bundle *b, int64_t first, int64_t step) {
  ffi_registry *r;
  assert_ok(ffi_registry_create(&r));
  assert_ok(ffi_registry_add_handler(r, target, NULL, b, 0));
  ffi_site *s;
  ffi_site_desc d = {.target = target, .api_version = 4, .n_rets = 1};
  assert_ok(ffi_site_prepare(r, &d, &s));
  for (int run = 0; run < 3; run++) {
    int64_t out = 0;
    ffi_buffer ret = {DT_I64, &out, 0, NULL};
    assert_ok(ffi_site_call(s, NULL, NULL, &ret));
    assert_int_equal(out, first + run * step);
  }
  ffi_site_destroy(s);
  ffi_registry_destroy(r);
}

static void test_state_layout_v01(void **state) {
  (void)state;
  deleted = 0;
  XLA_FFI_Handler_Bundle b = {inst_v01, NULL, NULL, exec_v01};
  run_stateful("v01", &b, 101, 1);
  /* The deleter passed to State_Set ran when the site went away. */
  assert_int_equal(deleted, 1);
}

static void test_state_layout_v02(void **state) {
  (void)state;
  deleted = 0;
  XLA_FFI_Handler_Bundle b = {inst_v02, NULL, NULL, exec_v02};
  run_stateful("v02", &b, 201, 1);
  /* The deleter registered with the type ran. */
  assert_int_equal(deleted, 1);
}

static void test_state_per_stage_v05(void **state) {
  (void)state;
  assert_null(shloc_ffi_type_register(XLA_FFI_GetApi(), "test.v05", &type_v05, del_i64));
  deleted = 0;
  XLA_FFI_Handler_Bundle b = {inst_v05, prep_v05, NULL, exec_v05};
  run_stateful("v05", &b, 507, 7);
  /* Three prepare states (one per execution) and the instantiate state. */
  assert_int_equal(deleted, 4);
}

/* ---- negotiation ---- */

static int rep_major, rep_minor;
static XLA_FFI_Error *reporting(XLA_FFI_CallFrame *cf) {
  report_minor(cf, rep_major, rep_minor);
  return NULL;
}

static void test_negotiation(void **state) {
  (void)state;
  ffi_registry *r;
  assert_ok(ffi_registry_create(&r));
  XLA_FFI_Handler_Bundle b = {NULL, NULL, NULL, reporting};
  char name[16];
  for (int minor = 1; minor <= XLA_FFI_API_MINOR; minor++) {
    rep_major = 0, rep_minor = minor;
    snprintf(name, sizeof name, "ok%d", minor);
    assert_ok(ffi_registry_add_handler(r, name, NULL, &b, 0));
  }
  assert_int_equal(XLA_FFI_API_MINOR, 5);
  rep_major = 0, rep_minor = 6;
  expect_error(ffi_registry_add_handler(r, "v06", NULL, &b, 0), SHLOC_ERR_UNSUPPORTED,
               "built for XLA FFI API 0.6, but shloc supports 0.1 to 0.5");
  rep_major = 1, rep_minor = 1;
  expect_error(ffi_registry_add_handler(r, "v11", NULL, &b, 0), SHLOC_ERR_UNSUPPORTED, "built for XLA FFI API 1.1");
  rep_major = 0, rep_minor = 0;
  expect_error(ffi_registry_add_handler(r, "v00", NULL, &b, 0), SHLOC_ERR_UNSUPPORTED, "did not report");
  assert_int_equal(ffi_registry_count(r), XLA_FFI_API_MINOR);
  ffi_registry_destroy(r);
}

/* ---- the 0.5 API table ---- */

static void test_api_table_v05(void **state) {
  (void)state;
  const XLA_FFI_Api *api = XLA_FFI_GetApi();
  assert_int_equal(api->api_version.major_version, 0);
  assert_int_equal(api->api_version.minor_version, 5);
  assert_int_equal(api->struct_size, 200);
  assert_int_equal(offsetof(XLA_FFI_Api, XLA_FFI_Error_GetCode), 48 + 18 * 8);
  XLA_FFI_Error *e = shloc_ffi_errorf(api, XLA_FFI_Error_Code_DATA_LOSS, "lost %d", 3);
  assert_int_equal(shloc_ffi_error_code(api, e), XLA_FFI_Error_Code_DATA_LOSS);
  /* A caller struct older than the function's leaves errc alone. */
  XLA_FFI_Error_GetCode_Args small = {16, NULL, e, XLA_FFI_Error_Code_ABORTED};
  api->XLA_FFI_Error_GetCode(&small);
  assert_int_equal(small.errc, XLA_FFI_Error_Code_ABORTED);
  shloc_ffi_error_destroy(api, e);
  /* XLA's own Type_Register struct_size (40, before type_info): registered
   * without a deleter, never reading past the caller's struct. */
  XLA_FFI_TypeId id = {0};
  XLA_FFI_Type_Register_Args a = {XLA_FFI_Type_Register_Args_STRUCT_SIZE, NULL, {"test.xla40", 10}, &id,
                                  (const XLA_FFI_TypeInfo *)1};
  assert_null(api->XLA_FFI_Type_Register(&a));
  assert_true(id.type_id > 0);
  /* A TypeInfo too small for a deleter is refused. */
  XLA_FFI_TypeInfo tiny = {8, NULL, NULL};
  XLA_FFI_TypeId id2 = {0};
  XLA_FFI_Type_Register_Args b = {sizeof b, NULL, {"test.tiny", 9}, &id2, &tiny};
  e = api->XLA_FFI_Type_Register(&b);
  assert_non_null(e);
  assert_int_equal(shloc_ffi_error_code(api, e), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  shloc_ffi_error_destroy(api, e);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_state_layout_v01),
      cmocka_unit_test(test_state_layout_v02),
      cmocka_unit_test(test_state_per_stage_v05),
      cmocka_unit_test(test_negotiation),
      cmocka_unit_test(test_api_table_v05),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
