/* Typed FFI calls: registry, version negotiation, call frames and buffers,
 * instantiate state, handler errors, futures and the API table. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "cc_harness.h"
#include "ffi/ffi.h"

static XLA_FFI_Handler_Bundle execute_only(XLA_FFI_Handler *fn) {
  return (XLA_FFI_Handler_Bundle){NULL, NULL, NULL, fn};
}

/* ---- handlers ---------------------------------------------------------- */

static XLA_FFI_Error *noop(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  return NULL;
}

/* Reports whatever version the test asks for. */
static int reported_major, reported_minor;
static XLA_FFI_Error *versioned(XLA_FFI_CallFrame *cf) {
  if (shloc_ffi_is_metadata_query(cf)) {
    XLA_FFI_Metadata_Extension *ext = (XLA_FFI_Metadata_Extension *)cf->extension_start;
    ext->metadata->api_version.major_version = reported_major;
    ext->metadata->api_version.minor_version = reported_minor;
    return NULL;
  }
  return NULL;
}

static XLA_FFI_Error *meta_fail(XLA_FFI_CallFrame *cf) {
  return shloc_ffi_errorf(cf->api, XLA_FFI_Error_Code_UNAVAILABLE, "no metadata today");
}

/* Answers nothing (a handler written without the metadata protocol). */
static XLA_FFI_Error *silent(XLA_FFI_CallFrame *cf) {
  (void)cf;
  return NULL;
}

/* out[i] = in0[i] + in1[i] over f32; records the buffer shapes it saw. */
static XLA_FFI_Buffer seen_args[4], seen_rets[4];
static int64_t seen_dims[8][4];
static int64_t seen_nargs, seen_nrets;
static int add_calls;
static XLA_FFI_Error *add_f32(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  add_calls++;
  seen_nargs = cf->args.size;
  seen_nrets = cf->rets.size;
  for (int64_t i = 0; i < cf->args.size && i < 4; i++) {
    seen_args[i] = *shloc_ffi_arg(cf, i);
    for (int64_t d = 0; d < seen_args[i].rank && d < 4; d++) seen_dims[i][d] = seen_args[i].dims[d];
  }
  for (int64_t i = 0; i < cf->rets.size && i < 4; i++) seen_rets[i] = *shloc_ffi_ret(cf, i);
  XLA_FFI_Buffer *a = shloc_ffi_arg(cf, 0), *b = shloc_ffi_arg(cf, 1), *o = shloc_ffi_ret(cf, 0);
  if (!a || !b || !o || a->dtype != XLA_FFI_DataType_F32)
    return shloc_ffi_errorf(cf->api, XLA_FFI_Error_Code_INVALID_ARGUMENT, "add_f32: bad buffers");
  int64_t n = shloc_ffi_buffer_elements(a);
  for (int64_t i = 0; i < n; i++) ((float *)o->data)[i] = ((float *)a->data)[i] + ((float *)b->data)[i];
  return NULL;
}

static XLA_FFI_Error *fail_with(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  return shloc_ffi_errorf(cf->api, XLA_FFI_Error_Code_INVALID_ARGUMENT, "bad thing %d", 42);
}

static XLA_FFI_Error *fail_ok_code(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  return shloc_ffi_errorf(cf->api, XLA_FFI_Error_Code_OK, "not really an error");
}

/* ---- registry ----------------------------------------------------------- */

static void test_register_list_and_duplicates(void **state) {
  (void)state;
  ffi_registry *r = new_registry();
  XLA_FFI_Handler_Bundle b = execute_only(noop);
  assert_ok(ffi_registry_add_handler(r, "zeta", NULL, &b, 0));
  assert_ok(ffi_registry_add_handler(r, "alpha", "Host", &b, 0));
  assert_ok(ffi_registry_add_legacy(r, "mid", "CPU", (shloc_legacy_fn)noop));
  assert_ok(ffi_registry_add_handler(r, "alpha", "cuda", &b, 0));
  expect_error(ffi_registry_add_handler(r, "zeta", "cpu", &b, 0), SHLOC_ERR_ALREADY_EXISTS,
               "custom call target 'zeta' is already registered for platform 'cpu'");
  expect_error(ffi_registry_add_legacy(r, "alpha", "HOST", (shloc_legacy_fn)noop), SHLOC_ERR_ALREADY_EXISTS,
               "already registered");
  expect_error(ffi_registry_add_handler(r, "", NULL, &b, 0), SHLOC_ERR_INVALID_ARG, "empty");
  XLA_FFI_Handler_Bundle none = {0};
  expect_error(ffi_registry_add_handler(r, "x", NULL, &none, 0), SHLOC_ERR_INVALID_ARG, "no execute function");

  assert_int_equal(ffi_registry_count(r), 4);
  static const char *const want[][2] = {{"alpha", "cpu"}, {"alpha", "cuda"}, {"mid", "cpu"}, {"zeta", "cpu"}};
  for (size_t i = 0; i < 4; i++) {
    ffi_target_info info;
    assert_true(ffi_registry_entry(r, i, &info));
    assert_string_equal(info.target, want[i][0]);
    assert_string_equal(info.platform, want[i][1]);
    assert_null(info.origin);
  }
  ffi_target_info info;
  assert_false(ffi_registry_entry(r, 4, &info));
  assert_true(ffi_registry_entry(r, 2, &info));
  assert_int_equal(info.kind, FFI_KIND_LEGACY);
  ffi_registry_destroy(r);
}

static void test_version_negotiation(void **state) {
  (void)state;
  ffi_registry *r = new_registry();
  XLA_FFI_Handler_Bundle b = execute_only(versioned);
  reported_major = 0, reported_minor = 1;
  assert_ok(ffi_registry_add_handler(r, "v01", NULL, &b, 0));
  reported_major = 0, reported_minor = 6;
  expect_error(ffi_registry_add_handler(r, "v06", NULL, &b, 0), SHLOC_ERR_UNSUPPORTED,
               "execute handler was built for XLA FFI API 0.6, but shloc supports 0.1 to 0.5");
  reported_major = 1, reported_minor = 0;
  expect_error(ffi_registry_add_handler(r, "v10", NULL, &b, 0), SHLOC_ERR_UNSUPPORTED, "built for XLA FFI API 1.0");
  reported_major = 0, reported_minor = 0;
  expect_error(ffi_registry_add_handler(r, "v00", NULL, &b, 0), SHLOC_ERR_UNSUPPORTED, "did not report");
  XLA_FFI_Handler_Bundle s = execute_only(silent);
  expect_error(ffi_registry_add_handler(r, "silent", NULL, &s, 0), SHLOC_ERR_UNSUPPORTED,
               "custom call 'silent': execute handler did not report its XLA FFI API version");
  /* Every stage function is checked, not only execute. */
  XLA_FFI_Handler_Bundle mixed = {silent, NULL, NULL, noop};
  expect_error(ffi_registry_add_handler(r, "mixed", NULL, &mixed, 0), SHLOC_ERR_UNSUPPORTED, "instantiate handler");
  /* A handler failing the metadata query. */
  XLA_FFI_Handler_Bundle mf = execute_only(meta_fail);
  expect_error(ffi_registry_add_handler(r, "meta_fail", NULL, &mf, 0), SHLOC_ERR_RUNTIME,
               "execute handler: custom call 'meta_fail': metadata query failed: UNAVAILABLE: no metadata today");
  /* Failing only when executed is fine at registration. */
  XLA_FFI_Handler_Bundle f = execute_only(fail_with);
  assert_ok(ffi_registry_add_handler(r, "fails_later", NULL, &f, 0));
  assert_int_equal(ffi_registry_count(r), 2);
  ffi_registry_destroy(r);
}

static void test_lookup_errors(void **state) {
  (void)state;
  ffi_registry *r = new_registry();
  XLA_FFI_Handler_Bundle b = execute_only(noop);
  assert_ok(ffi_registry_add_handler(r, "typed", NULL, &b, 0));
  assert_ok(ffi_registry_add_legacy(r, "legacy", NULL, (shloc_legacy_fn)noop));
  ffi_site *s = NULL;
  ffi_site_desc d = {.target = "nope", .api_version = 4};
  expect_error(ffi_site_prepare(r, &d, &s), SHLOC_ERR_NOT_FOUND,
               "no handler registered for custom call target 'nope' on platform 'cpu'");
  d.target = "typed";
  d.api_version = 2;
  expect_error(ffi_site_prepare(r, &d, &s), SHLOC_ERR_INVALID_ARG, "typed FFI handler; the op needs api_version 4");
  d.target = "legacy";
  d.api_version = 4;
  expect_error(ffi_site_prepare(r, &d, &s), SHLOC_ERR_INVALID_ARG, "legacy handler");
  d.api_version = 0;
  expect_error(ffi_site_prepare(r, &d, &s), SHLOC_ERR_UNSUPPORTED, "unsupported api_version 0");
  d.target = "typed";
  d.api_version = 4;
  d.platform = "cuda";
  expect_error(ffi_site_prepare(r, &d, &s), SHLOC_ERR_NOT_FOUND, "platform 'cuda'");
  d.platform = "HOST";
  assert_ok(ffi_site_prepare(r, &d, &s));
  ffi_site_destroy(s);
  ffi_registry_destroy(r);
}

/* ---- calls -------------------------------------------------------------- */

static void test_buffers_and_many_calls(void **state) {
  (void)state;
  ffi_registry *r = new_registry();
  XLA_FFI_Handler_Bundle b = execute_only(add_f32);
  assert_ok(ffi_registry_add_handler(r, "add", NULL, &b, 0));
  ffi_site *s;
  ffi_site_desc d = {.target = "add", .api_version = 4, .n_args = 2, .n_rets = 1};
  assert_ok(ffi_site_prepare(r, &d, &s));
  float x[6] = {1, 2, 3, 4, 5, 6}, y[6] = {10, 20, 30, 40, 50, 60}, o[6];
  int64_t dims[2] = {2, 3};
  add_calls = 0;
  for (int k = 0; k < 1000; k++) {
    x[0] = (float)k;
    ffi_buffer args[2] = {{DT_F32, x, 2, dims}, {DT_F32, y, 2, dims}};
    ffi_buffer rets[1] = {{DT_F32, o, 2, dims}};
    assert_ok(ffi_site_call(s, NULL, args, rets));
    assert_true(o[0] == (float)k + 10.0f);
  }
  assert_int_equal(add_calls, 1000);
  assert_true(o[5] == 66.0f);
  assert_int_equal(seen_nargs, 2);
  assert_int_equal(seen_nrets, 1);
  assert_int_equal(seen_args[1].struct_size, XLA_FFI_Buffer_STRUCT_SIZE);
  assert_int_equal(seen_args[1].dtype, XLA_FFI_DataType_F32);
  assert_int_equal(seen_args[1].rank, 2);
  assert_ptr_equal(seen_args[1].data, y);
  assert_int_equal(seen_dims[1][0], 2);
  assert_int_equal(seen_dims[1][1], 3);
  assert_ptr_equal(seen_rets[0].data, o);
  ffi_site_destroy(s);
  ffi_registry_destroy(r);
}

/* Zero-sized buffers, tokens, rank 0 and every storage dtype pass through. */
static XLA_FFI_Buffer shapes_seen[8];
static int64_t shapes_elems[8];
static XLA_FFI_Error *shapes(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  for (int64_t i = 0; i < cf->args.size; i++) {
    shapes_seen[i] = *shloc_ffi_arg(cf, i);
    shapes_elems[i] = shloc_ffi_buffer_elements(&shapes_seen[i]);
  }
  return NULL;
}

static void test_zero_sized_token_scalar(void **state) {
  (void)state;
  ffi_registry *r = new_registry();
  XLA_FFI_Handler_Bundle b = execute_only(shapes);
  assert_ok(ffi_registry_add_handler(r, "shapes", NULL, &b, 0));
  ffi_site *s;
  ffi_site_desc d = {.target = "shapes", .api_version = 4, .n_args = 5, .n_rets = 0};
  assert_ok(ffi_site_prepare(r, &d, &s));
  int64_t zero_dims[2] = {0, 3};
  int64_t one[1] = {4};
  uint8_t preds[4] = {1, 0, 1, 1};
  double scalar = 3.5;
  double cplx[2] = {1, 2};
  ffi_buffer args[5] = {
      {DT_F32, NULL, 2, zero_dims}, {FFI_DT_TOKEN, NULL, 0, NULL}, {DT_I1, preds, 1, one},
      {DT_F64, &scalar, 0, NULL},   {DT_C64, cplx, 0, NULL},
  };
  assert_ok(ffi_site_call(s, NULL, args, NULL));
  assert_int_equal(shapes_seen[0].dtype, XLA_FFI_DataType_F32);
  assert_null(shapes_seen[0].data);
  assert_int_equal(shapes_elems[0], 0);
  assert_int_equal(shapes_seen[1].dtype, XLA_FFI_DataType_TOKEN);
  assert_int_equal(shapes_seen[1].rank, 0);
  assert_int_equal(shapes_seen[2].dtype, XLA_FFI_DataType_PRED);
  assert_int_equal(shapes_elems[2], 4);
  assert_int_equal(shapes_seen[3].rank, 0);
  assert_int_equal(shapes_elems[3], 1);
  assert_true(*(double *)shapes_seen[3].data == 3.5);
  assert_int_equal(shapes_seen[4].dtype, XLA_FFI_DataType_C64);

  ffi_buffer bad[5] = {{DT_TF32, NULL, 0, NULL}};
  memcpy(&bad[1], &args[1], 4 * sizeof bad[0]);
  expect_error(ffi_site_call(s, NULL, bad, NULL), SHLOC_ERR_UNSUPPORTED, "operand 0 has a type the XLA FFI cannot");
  ffi_site_destroy(s);
  ffi_registry_destroy(r);
}

static void test_handler_errors(void **state) {
  (void)state;
  ffi_registry *r = new_registry();
  XLA_FFI_Handler_Bundle f = execute_only(fail_with), ok = execute_only(fail_ok_code);
  assert_ok(ffi_registry_add_handler(r, "err", NULL, &f, 0));
  assert_ok(ffi_registry_add_handler(r, "okcode", NULL, &ok, 0));
  ffi_site *s;
  ffi_site_desc d = {.target = "err", .api_version = 4};
  assert_ok(ffi_site_prepare(r, &d, &s));
  for (int i = 0; i < 3; i++)
    expect_error(ffi_site_call(s, NULL, NULL, NULL), SHLOC_ERR_RUNTIME,
                 "custom call 'err': INVALID_ARGUMENT: bad thing 42");
  ffi_site_destroy(s);
  /* XLA treats an error object with code OK as success. */
  d.target = "okcode";
  assert_ok(ffi_site_prepare(r, &d, &s));
  assert_ok(ffi_site_call(s, NULL, NULL, NULL));
  ffi_site_destroy(s);
  ffi_registry_destroy(r);
}

/* ---- instantiate state -------------------------------------------------- */

typedef struct {
  int64_t counter;
} counter_state;

static XLA_FFI_TypeId counter_type = {0};
static int deleted;
static int instantiate_calls;
static int64_t instantiate_args_seen = -1;

static void counter_delete(void *p) {
  deleted++;
  free(p);
}

static XLA_FFI_Error *counter_instantiate(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_INSTANTIATE);
  instantiate_calls++;
  instantiate_args_seen = cf->args.size + cf->rets.size;
  if (counter_type.type_id == 0) {
    XLA_FFI_Error *err = shloc_ffi_type_register(cf->api, "test.counter_state", &counter_type, counter_delete);
    if (err) return err;
  }
  int64_t start = 0;
  if (!shloc_ffi_attr_get_i64(&cf->attrs, "start", &start))
    return shloc_ffi_errorf(cf->api, XLA_FFI_Error_Code_INVALID_ARGUMENT, "missing attribute 'start'");
  counter_state *st = malloc(sizeof *st);
  st->counter = start;
  XLA_FFI_Error *err = shloc_ffi_state_set(cf, &counter_type, st);
  if (err) free(st);
  return err;
}

static XLA_FFI_Error *counter_execute(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  void *p;
  XLA_FFI_Error *err = shloc_ffi_state_get(cf, XLA_FFI_ExecutionStage_INSTANTIATE, &counter_type, &p);
  if (err) return err;
  counter_state *st = p;
  *(int64_t *)shloc_ffi_ret(cf, 0)->data = ++st->counter;
  /* The execute stage has no state of its own to set. */
  XLA_FFI_Error *again = shloc_ffi_state_set(cf, &counter_type, st);
  if (!again) return shloc_ffi_errorf(cf->api, XLA_FFI_Error_Code_INTERNAL, "state set twice");
  shloc_ffi_error_destroy(cf->api, again);
  return NULL;
}

static void test_stateful_handler(void **state) {
  (void)state;
  ffi_registry *r = new_registry();
  XLA_FFI_Handler_Bundle b = {counter_instantiate, NULL, NULL, counter_execute};
  assert_ok(ffi_registry_add_handler(r, "counter", NULL, &b, 0));
  ffi_attrs *a1, *a2;
  int64_t start1 = 100, start2 = -5;
  assert_ok(ffi_attrs_create(&a1));
  assert_ok(ffi_attrs_add_scalar(a1, "start", 5, DT_I64, &start1));
  assert_ok(ffi_attrs_create(&a2));
  assert_ok(ffi_attrs_add_scalar(a2, "start", 5, DT_I64, &start2));
  ffi_site *s1, *s2;
  ffi_site_desc d = {.target = "counter", .api_version = 4, .attrs = a1, .n_rets = 1};
  instantiate_calls = 0;
  deleted = 0;
  assert_ok(ffi_site_prepare(r, &d, &s1));
  d.attrs = a2;
  assert_ok(ffi_site_prepare(r, &d, &s2));
  assert_int_equal(instantiate_calls, 2);
  assert_int_equal(instantiate_args_seen, 0);
  int64_t out;
  ffi_buffer ret = {DT_I64, &out, 0, NULL};
  assert_ok(ffi_site_call(s1, NULL, NULL, &ret));
  assert_int_equal(out, 101);
  assert_ok(ffi_site_call(s1, NULL, NULL, &ret));
  assert_int_equal(out, 102);
  assert_ok(ffi_site_call(s2, NULL, NULL, &ret));
  assert_int_equal(out, -4);
  assert_int_equal(instantiate_calls, 2);
  int64_t id;
  assert_ok(ffi_type_lookup("test.counter_state", 18, &id));
  assert_int_equal(id, counter_type.type_id);
  ffi_site_destroy(s1);
  assert_int_equal(deleted, 1);
  ffi_site_destroy(s2);
  assert_int_equal(deleted, 2);

  /* Instantiate failing: prepare fails and reports the stage. */
  ffi_attrs *none;
  assert_ok(ffi_attrs_create(&none));
  d.attrs = none;
  ffi_site *s3 = NULL;
  expect_error(ffi_site_prepare(r, &d, &s3), SHLOC_ERR_RUNTIME,
               "custom call 'counter': instantiate: INVALID_ARGUMENT: missing attribute 'start'");
  assert_null(s3);
  ffi_attrs_destroy(none);
  ffi_attrs_destroy(a1);
  ffi_attrs_destroy(a2);
  ffi_registry_destroy(r);
}

static void test_state_missing(void **state) {
  (void)state;
  ffi_registry *r = new_registry();
  XLA_FFI_Handler_Bundle b = execute_only(counter_execute);
  assert_ok(ffi_registry_add_handler(r, "nostate", NULL, &b, 0));
  ffi_site *s;
  ffi_site_desc d = {.target = "nostate", .api_version = 4, .n_rets = 1};
  assert_ok(ffi_site_prepare(r, &d, &s));
  int64_t out;
  ffi_buffer ret = {DT_I64, &out, 0, NULL};
  expect_error(ffi_site_call(s, NULL, NULL, &ret), SHLOC_ERR_RUNTIME, "NOT_FOUND: XLA_FFI_State_Get: no state set");
  ffi_site_destroy(s);
  ffi_registry_destroy(r);
}

/* ---- stages --------------------------------------------------------------- */

static char stage_log[64];
static XLA_FFI_Error *log_stage(XLA_FFI_CallFrame *cf) {
  if (shloc_ffi_is_metadata_query(cf)) {
    XLA_FFI_TypeId none = {0};
    return shloc_ffi_answer_metadata(cf, 0, none);
  }
  size_t n = strlen(stage_log);
  if (n + 1 < sizeof stage_log) {
    stage_log[n] = (char)('0' + cf->stage);
    stage_log[n + 1] = '\0';
  }
  return NULL;
}

static void test_stage_order(void **state) {
  (void)state;
  ffi_registry *r = new_registry();
  XLA_FFI_Handler_Bundle b = {log_stage, log_stage, log_stage, log_stage};
  assert_ok(ffi_registry_add_handler(r, "stages", NULL, &b, 0));
  stage_log[0] = '\0';
  ffi_site *s;
  ffi_site_desc d = {.target = "stages", .api_version = 4};
  assert_ok(ffi_site_prepare(r, &d, &s));
  assert_ok(ffi_site_call(s, NULL, NULL, NULL));
  assert_ok(ffi_site_call(s, NULL, NULL, NULL));
  assert_string_equal(stage_log, "0123123");
  ffi_site_destroy(s);
  ffi_registry_destroy(r);
}

/* ---- context API ------------------------------------------------------------ */

static XLA_FFI_TypeId user_type = {0};
static int64_t got_run_id, got_threads;
static int32_t got_ordinal;
static void *got_user;
static int task_runs;

static void task(void *data) { task_runs += *(int *)data; }

static XLA_FFI_Error *context_probe(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  const XLA_FFI_Api *api = cf->api;
  XLA_FFI_RunId_Get_Args rid = {XLA_FFI_RunId_Get_Args_STRUCT_SIZE, NULL, cf->ctx, 0};
  XLA_FFI_Error *err = api->XLA_FFI_RunId_Get(&rid);
  if (err) return err;
  got_run_id = rid.run_id;
  XLA_FFI_DeviceOrdinal_Get_Args dev = {XLA_FFI_DeviceOrdinal_Get_Args_STRUCT_SIZE, NULL, cf->ctx, -1};
  if ((err = api->XLA_FFI_DeviceOrdinal_Get(&dev))) return err;
  got_ordinal = dev.device_ordinal;
  XLA_FFI_ThreadPool_NumThreads_Args nt = {XLA_FFI_ThreadPool_NumThreads_Args_STRUCT_SIZE, NULL, cf->ctx, &got_threads};
  if ((err = api->XLA_FFI_ThreadPool_NumThreads(&nt))) return err;
  static int inc = 1;
  XLA_FFI_ThreadPool_Schedule_Args sch = {XLA_FFI_ThreadPool_Schedule_Args_STRUCT_SIZE, NULL, cf->ctx, task, &inc};
  if ((err = api->XLA_FFI_ThreadPool_Schedule(&sch))) return err;
  XLA_FFI_ExecutionContext_Get_Args ud = {XLA_FFI_ExecutionContext_Get_Args_STRUCT_SIZE, NULL, cf->ctx, &user_type,
                                          NULL};
  if ((err = api->XLA_FFI_ExecutionContext_Get(&ud))) return err;
  got_user = ud.data;
  return NULL;
}

static int scheduled;
static void my_schedule(void *pool, XLA_FFI_Task *t, void *data) {
  scheduled += *(int *)pool;
  t(data);
}

static void test_context_api(void **state) {
  (void)state;
  const XLA_FFI_Api *api = XLA_FFI_GetApi();
  if (user_type.type_id == 0) {
    XLA_FFI_Error *err = shloc_ffi_type_register(api, "test.user_data", &user_type, NULL);
    assert_null(err);
  }
  ffi_registry *r = new_registry();
  XLA_FFI_Handler_Bundle b = execute_only(context_probe);
  assert_ok(ffi_registry_add_handler(r, "ctx", NULL, &b, 0));
  ffi_site *s;
  ffi_site_desc d = {.target = "ctx", .api_version = 4};
  assert_ok(ffi_site_prepare(r, &d, &s));

  /* Defaults: no user data -> NOT_FOUND; one thread; tasks inline. */
  task_runs = 0;
  expect_error(ffi_site_call(s, NULL, NULL, NULL), SHLOC_ERR_RUNTIME, "NOT_FOUND: no user data of type id");
  assert_int_equal(got_threads, 1);
  assert_int_equal(task_runs, 1);

  int payload = 7, pool = 10;
  ffi_user_data ud = {user_type.type_id, &payload};
  ffi_exec_env env = {.run_id = 1234,
                      .device_ordinal = 0,
                      .num_threads = 8,
                      .schedule = my_schedule,
                      .pool = &pool,
                      .user_data = &ud,
                      .n_user_data = 1};
  scheduled = 0;
  assert_ok(ffi_site_call(s, &env, NULL, NULL));
  assert_int_equal(got_run_id, 1234);
  assert_int_equal(got_ordinal, 0);
  assert_int_equal(got_threads, 8);
  assert_int_equal(scheduled, 10);
  assert_int_equal(task_runs, 2);
  assert_ptr_equal(got_user, &payload);
  ffi_site_destroy(s);
  ffi_registry_destroy(r);
}

static XLA_FFI_Error *api_misc(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  const XLA_FFI_Api *api = cf->api;
  if (api != XLA_FFI_GetApi() || api->struct_size != XLA_FFI_Api_STRUCT_SIZE ||
      api->api_version.minor_version != XLA_FFI_API_MINOR || api->internal_api != NULL)
    return shloc_ffi_errorf(api, XLA_FFI_Error_Code_INTERNAL, "api table header");
  /* Stream: unimplemented on the CPU. */
  XLA_FFI_Stream_Get_Args sg = {XLA_FFI_Stream_Get_Args_STRUCT_SIZE, NULL, cf->ctx, NULL};
  XLA_FFI_Error *err = api->XLA_FFI_Stream_Get(&sg);
  if (!err || strstr(shloc_ffi_error_message(api, err), "no stream") == NULL)
    return shloc_ffi_errorf(api, XLA_FFI_Error_Code_INTERNAL, "stream");
  shloc_ffi_error_destroy(api, err);
  /* Host memory, aligned as asked. */
  XLA_FFI_DeviceMemory_Allocate_Args al = {
      XLA_FFI_DeviceMemory_Allocate_Args_STRUCT_SIZE, NULL, cf->ctx, 100, 64, NULL};
  if ((err = api->XLA_FFI_DeviceMemory_Allocate(&al))) return err;
  if (!al.data || (uintptr_t)al.data % 64) return shloc_ffi_errorf(api, XLA_FFI_Error_Code_INTERNAL, "alignment");
  memset(al.data, 1, 100);
  XLA_FFI_DeviceMemory_Free_Args fr = {XLA_FFI_DeviceMemory_Free_Args_STRUCT_SIZE, NULL, cf->ctx, 100, al.data};
  if ((err = api->XLA_FFI_DeviceMemory_Free(&fr))) return err;
  al.alignment = 48;
  err = api->XLA_FFI_DeviceMemory_Allocate(&al);
  if (!err) return shloc_ffi_errorf(api, XLA_FFI_Error_Code_INTERNAL, "alignment 48 accepted");
  shloc_ffi_error_destroy(api, err);
  /* A struct older than the runtime's is refused, not read past its end. */
  XLA_FFI_RunId_Get_Args small = {16, NULL, cf->ctx, 0};
  err = api->XLA_FFI_RunId_Get(&small);
  if (!err || !strstr(shloc_ffi_error_message(api, err), "struct_size 16 is smaller than 32"))
    return shloc_ffi_errorf(api, XLA_FFI_Error_Code_INTERNAL, "size check");
  shloc_ffi_error_destroy(api, err);
  /* Slots past the table answer UNIMPLEMENTED (a newer handler's call). */
  typedef XLA_FFI_Error *slot_fn(void *);
  slot_fn *const *slots = (slot_fn *const *)((const char *)api + offsetof(XLA_FFI_Api, XLA_FFI_Error_Create));
  XLA_FFI_Error *spare = slots[19](NULL);
  if (!spare || !strstr(shloc_ffi_error_message(api, spare), "newer than shloc"))
    return shloc_ffi_errorf(api, XLA_FFI_Error_Code_INTERNAL, "spare slot");
  shloc_ffi_error_destroy(api, spare);
  /* Handler_Register outside a plugin load has no registry to go to. */
  XLA_FFI_Handler_Register_Args reg = {
      XLA_FFI_Handler_Register_Args_STRUCT_SIZE, NULL, {"x", 1}, {"cpu", 3}, {NULL, NULL, NULL, noop}, 0};
  err = api->XLA_FFI_Handler_Register(&reg);
  if (!err || !strstr(shloc_ffi_error_message(api, err), "no shloc registry is loading"))
    return shloc_ffi_errorf(api, XLA_FFI_Error_Code_INTERNAL, "register outside load");
  shloc_ffi_error_destroy(api, err);
  return NULL;
}

static void test_api_table_misc(void **state) {
  (void)state;
  ffi_registry *r = new_registry();
  XLA_FFI_Handler_Bundle b = execute_only(api_misc);
  assert_ok(ffi_registry_add_handler(r, "misc", NULL, &b, 0));
  ffi_site *s;
  ffi_site_desc d = {.target = "misc", .api_version = 4};
  assert_ok(ffi_site_prepare(r, &d, &s));
  assert_ok(ffi_site_call(s, NULL, NULL, NULL));
  ffi_site_destroy(s);
  ffi_registry_destroy(r);
}

static void test_type_ids(void **state) {
  (void)state;
  const XLA_FFI_Api *api = XLA_FFI_GetApi();
  XLA_FFI_TypeId a = {0}, b = {0};
  assert_null(shloc_ffi_type_register(api, "test.type_a", &a, NULL));
  assert_true(a.type_id > 0);
  XLA_FFI_Error *err = shloc_ffi_type_register(api, "test.type_a", &b, NULL);
  assert_non_null(err);
  assert_non_null(strstr(shloc_ffi_error_message(api, err), "already registered"));
  shloc_ffi_error_destroy(api, err);
  /* Claiming an explicit id; re-claiming the same pair is accepted. */
  XLA_FFI_TypeId c = {900001};
  assert_null(shloc_ffi_type_register(api, "test.type_c", &c, NULL));
  assert_null(shloc_ffi_type_register(api, "test.type_c", &c, NULL));
  XLA_FFI_TypeId clash = {900001};
  err = shloc_ffi_type_register(api, "test.type_d", &clash, NULL);
  assert_non_null(err);
  shloc_ffi_error_destroy(api, err);
  XLA_FFI_TypeId fresh = {0};
  assert_null(shloc_ffi_type_register(api, "test.type_e", &fresh, NULL));
  assert_true(fresh.type_id > 900001);
  int64_t id;
  assert_ok(ffi_type_lookup("test.type_c", 11, &id));
  assert_int_equal(id, 900001);
  expect_error(ffi_type_lookup("test.none", 9, &id), SHLOC_ERR_NOT_FOUND, "no FFI type named 'test.none'");
}

/* ---- futures ------------------------------------------------------------ */

static XLA_FFI_Future *make_future(const XLA_FFI_Api *api) {
  XLA_FFI_Future_Create_Args a = {XLA_FFI_Future_Create_Args_STRUCT_SIZE, NULL, NULL};
  XLA_FFI_Error *err = api->XLA_FFI_Future_Create(&a);
  return err ? NULL : a.future;
}

static XLA_FFI_Error *set_available(const XLA_FFI_Api *api, XLA_FFI_Future *f) {
  XLA_FFI_Future_SetAvailable_Args a = {XLA_FFI_Future_SetAvailable_Args_STRUCT_SIZE, NULL, f};
  return api->XLA_FFI_Future_SetAvailable(&a);
}

static XLA_FFI_Error *set_error(const XLA_FFI_Api *api, XLA_FFI_Future *f, XLA_FFI_Error *e) {
  XLA_FFI_Future_SetError_Args a = {XLA_FFI_Future_SetError_Args_STRUCT_SIZE, NULL, f, e};
  return api->XLA_FFI_Future_SetError(&a);
}

static int future_mode;

typedef struct {
  const XLA_FFI_Api *api;
  XLA_FFI_Future *future;
  int *out;
} async_job;

static void *complete_later(void *p) {
  async_job *job = p;
  struct timespec ts = {0, 20 * 1000 * 1000};
  nanosleep(&ts, NULL);
  *job->out = 99;
  XLA_FFI_Error *err = set_available(job->api, job->future);
  if (err) shloc_ffi_error_destroy(job->api, err);
  free(job);
  return NULL;
}

static XLA_FFI_Error *async_handler(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  const XLA_FFI_Api *api = cf->api;
  XLA_FFI_Future *f = make_future(api);
  if (!f) return shloc_ffi_errorf(api, XLA_FFI_Error_Code_INTERNAL, "future create");
  switch (future_mode) {
    case 0: { /* completed before returning */
      XLA_FFI_Error *err = set_available(api, f);
      if (err) return err;
      err = set_available(api, f); /* twice: refused */
      if (!err) return shloc_ffi_errorf(api, XLA_FFI_Error_Code_INTERNAL, "double completion accepted");
      shloc_ffi_error_destroy(api, err);
      break;
    }
    case 1: { /* failed asynchronously */
      XLA_FFI_Error *bad = set_error(api, f, NULL);
      if (!bad) return shloc_ffi_errorf(api, XLA_FFI_Error_Code_INTERNAL, "NULL error accepted");
      shloc_ffi_error_destroy(api, bad);
      XLA_FFI_Error *err = set_error(api, f, shloc_ffi_errorf(api, XLA_FFI_Error_Code_DATA_LOSS, "lost it"));
      if (err) return err;
      break;
    }
    case 2: { /* completed by another thread after the handler returns */
      async_job *job = malloc(sizeof *job);
      *job = (async_job){api, f, (int *)shloc_ffi_ret(cf, 0)->data};
      pthread_t t;
      pthread_create(&t, NULL, complete_later, job);
      pthread_detach(t);
      break;
    }
    case 3: /* a future created but never returned: freed with the call */ return NULL;
  }
  cf->future = f;
  return NULL;
}

static void test_futures(void **state) {
  (void)state;
  ffi_registry *r = new_registry();
  XLA_FFI_Handler_Bundle b = execute_only(async_handler);
  assert_ok(ffi_registry_add_handler(r, "async", NULL, &b, 0));
  ffi_site *s;
  ffi_site_desc d = {.target = "async", .api_version = 4, .n_rets = 1};
  assert_ok(ffi_site_prepare(r, &d, &s));
  int out = 0;
  ffi_buffer ret = {DT_I32, &out, 0, NULL};
  future_mode = 0;
  assert_ok(ffi_site_call(s, NULL, NULL, &ret));
  future_mode = 1;
  expect_error(ffi_site_call(s, NULL, NULL, &ret), SHLOC_ERR_RUNTIME, "custom call 'async': DATA_LOSS: lost it");
  future_mode = 2;
  for (int i = 0; i < 3; i++) {
    out = 0;
    assert_ok(ffi_site_call(s, NULL, NULL, &ret));
    assert_int_equal(out, 99); /* the call waited for the other thread */
  }
  future_mode = 3;
  assert_ok(ffi_site_call(s, NULL, NULL, &ret));
  ffi_site_destroy(s);
  ffi_registry_destroy(r);
}

/* ---- element type mapping ------------------------------------------------ */

static void test_dtype_mapping(void **state) {
  (void)state;
  assert_int_equal(ffi_dtype_to_xla(DT_I1), XLA_FFI_DataType_PRED);
  assert_int_equal(ffi_dtype_to_xla(DT_SI32), XLA_FFI_DataType_S32);
  assert_int_equal(ffi_dtype_to_xla(DT_UI4), XLA_FFI_DataType_U4);
  assert_int_equal(ffi_dtype_to_xla(DT_BF16), XLA_FFI_DataType_BF16);
  assert_int_equal(ffi_dtype_to_xla(DT_C128), XLA_FFI_DataType_C128);
  assert_int_equal(ffi_dtype_to_xla(DT_F8E4M3FN), XLA_FFI_DataType_F8E4M3FN);
  assert_int_equal(ffi_dtype_to_xla(DT_F8E8M0FNU), XLA_FFI_DataType_F8E8M0FNU);
  assert_int_equal(ffi_dtype_to_xla(FFI_DT_TOKEN), XLA_FFI_DataType_TOKEN);
  assert_int_equal(ffi_dtype_to_xla(DT_TF32), XLA_FFI_DataType_INVALID);
  assert_int_equal(ffi_dtype_to_xla(DT_QUANT), XLA_FFI_DataType_INVALID);
  /* Every type with an FFI equivalent maps back to a type of the same storage. */
  for (int t = DT_INVALID + 1; t < DT_COUNT; t++) {
    XLA_FFI_DataType x = ffi_dtype_to_xla((shl_dtype)t);
    if (x == XLA_FFI_DataType_INVALID) continue;
    shl_dtype back = ffi_dtype_from_xla(x);
    assert_int_equal(ffi_dtype_to_xla(back), x);
    assert_int_equal(dtype_bytes(back), shloc_ffi_dtype_bytes(x));
  }
  assert_int_equal(ffi_dtype_from_xla(XLA_FFI_DataType_TOKEN), FFI_DT_TOKEN);
  assert_int_equal(ffi_dtype_from_xla(XLA_FFI_DataType_S1), DT_INVALID);
  assert_string_equal(ffi_dtype_xla_name(XLA_FFI_DataType_F8E4M3B11FNUZ), "F8E4M3B11FNUZ");
  assert_string_equal(ffi_error_code_name(XLA_FFI_Error_Code_UNAUTHENTICATED), "UNAUTHENTICATED");
}

static void test_struct_sizes(void **state) {
  (void)state;
  assert_int_equal(XLA_FFI_CallFrame_STRUCT_SIZE, 168);
  assert_int_equal(sizeof(XLA_FFI_CallFrame), 176);
  assert_int_equal(XLA_FFI_Api_STRUCT_SIZE, 200);
  assert_int_equal(XLA_FFI_Buffer_STRUCT_SIZE, 48);
  assert_int_equal(XLA_FFI_Metadata_STRUCT_SIZE, 48);
  assert_int_equal(XLA_FFI_Handler_Register_Args_STRUCT_SIZE, 84);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_struct_sizes),
      cmocka_unit_test(test_register_list_and_duplicates),
      cmocka_unit_test(test_version_negotiation),
      cmocka_unit_test(test_lookup_errors),
      cmocka_unit_test(test_buffers_and_many_calls),
      cmocka_unit_test(test_zero_sized_token_scalar),
      cmocka_unit_test(test_handler_errors),
      cmocka_unit_test(test_stateful_handler),
      cmocka_unit_test(test_state_missing),
      cmocka_unit_test(test_stage_order),
      cmocka_unit_test(test_context_api),
      cmocka_unit_test(test_api_table_misc),
      cmocka_unit_test(test_type_ids),
      cmocka_unit_test(test_futures),
      cmocka_unit_test(test_dtype_mapping),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
