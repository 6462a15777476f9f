/* The one XLA_FFI_Api table, its error objects and the per-call context
 * functions (state, user data, thread pool, run id, device ordinal, host
 * "device" memory).  Every function checks the caller's struct_size first and
 * reads no field beyond it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ffi/ffi_impl.h"

/* The layout facts XLA-built handlers depend on (LP64). */
_Static_assert(sizeof(void *) == 8 && sizeof(size_t) == 8, "shloc's FFI ABI is LP64 only");
_Static_assert(XLA_FFI_CallFrame_STRUCT_SIZE == 168, "CallFrame size checked for equality by handlers");
_Static_assert(sizeof(XLA_FFI_CallFrame) == 176, "CallFrame with the future out-field");
_Static_assert(offsetof(XLA_FFI_CallFrame, stage) == 32 && offsetof(XLA_FFI_CallFrame, args) == 40 &&
                   offsetof(XLA_FFI_CallFrame, rets) == 80 && offsetof(XLA_FFI_CallFrame, attrs) == 120 &&
                   offsetof(XLA_FFI_CallFrame, future) == 168,
               "CallFrame field offsets");
_Static_assert(XLA_FFI_Args_STRUCT_SIZE == 40 && XLA_FFI_Rets_STRUCT_SIZE == 40 && XLA_FFI_Attrs_STRUCT_SIZE == 48,
               "Args/Rets/Attrs sizes");
_Static_assert(XLA_FFI_Buffer_STRUCT_SIZE == 48 && offsetof(XLA_FFI_Buffer, dtype) == 16 &&
                   offsetof(XLA_FFI_Buffer, data) == 24 && offsetof(XLA_FFI_Buffer, rank) == 32,
               "Buffer layout");
_Static_assert(sizeof(XLA_FFI_Scalar) == 16 && offsetof(XLA_FFI_Scalar, value) == 8, "Scalar layout");
_Static_assert(sizeof(XLA_FFI_Array) == 24 && offsetof(XLA_FFI_Array, size) == 8 && offsetof(XLA_FFI_Array, data) == 16,
               "Array layout");
_Static_assert(sizeof(XLA_FFI_ByteSpan) == 16 && sizeof(XLA_FFI_TypeId) == 8, "ByteSpan/TypeId");
_Static_assert(XLA_FFI_Api_Version_STRUCT_SIZE == 24 && XLA_FFI_Extension_Base_STRUCT_SIZE == 24, "version/ext");
_Static_assert(XLA_FFI_Metadata_STRUCT_SIZE == 48 && offsetof(XLA_FFI_Metadata, traits) == 32 &&
                   offsetof(XLA_FFI_Metadata, state_type_id) == 40 && XLA_FFI_Metadata_Extension_STRUCT_SIZE == 32,
               "Metadata layout");
_Static_assert(sizeof(XLA_FFI_Handler_Bundle) == 32 && XLA_FFI_Handler_Register_Args_STRUCT_SIZE == 84,
               "registration layout");
_Static_assert(offsetof(XLA_FFI_Handler_Register_Args, name) == 16 &&
                   offsetof(XLA_FFI_Handler_Register_Args, platform) == 32 &&
                   offsetof(XLA_FFI_Handler_Register_Args, bundle) == 48 &&
                   offsetof(XLA_FFI_Handler_Register_Args, traits) == 80,
               "registration field offsets");
_Static_assert(offsetof(XLA_FFI_Api, api_version) == 16 && offsetof(XLA_FFI_Api, internal_api) == 40,
               "API table header");
_Static_assert(offsetof(XLA_FFI_Api, XLA_FFI_Error_Create) == 48 &&
                   offsetof(XLA_FFI_Api, XLA_FFI_Type_Register) == 48 + 5 * 8 &&
                   offsetof(XLA_FFI_Api, XLA_FFI_State_Set) == 48 + 7 * 8 &&
                   offsetof(XLA_FFI_Api, XLA_FFI_Future_Create) == 48 + 13 * 8 &&
                   offsetof(XLA_FFI_Api, XLA_FFI_DeviceOrdinal_Get) == 48 + 17 * 8 &&
                   offsetof(XLA_FFI_Api, XLA_FFI_Error_GetCode) == 48 + 18 * 8 && XLA_FFI_Api_STRUCT_SIZE == 200,
               "API table slots (0.5)");
_Static_assert(XLA_FFI_Error_Create_Args_STRUCT_SIZE == 28 && XLA_FFI_Error_GetMessage_Args_STRUCT_SIZE == 32 &&
                   XLA_FFI_ExecutionContext_Get_Args_STRUCT_SIZE == 40 &&
                   XLA_FFI_DeviceMemory_Allocate_Args_STRUCT_SIZE == 48 &&
                   XLA_FFI_ThreadPool_Schedule_Args_STRUCT_SIZE == 40 && XLA_FFI_Future_SetError_Args_STRUCT_SIZE == 32,
               "more argument struct sizes");
/* 0.5 layouts, and the older State_Set/Get layouts the runtime still reads. */
_Static_assert(XLA_FFI_Type_Register_Args_STRUCT_SIZE == 40 && sizeof(XLA_FFI_Type_Register_Args) == 48 &&
                   offsetof(XLA_FFI_Type_Register_Args, type_info) == 40 && XLA_FFI_TypeInfo_STRUCT_SIZE == 24 &&
                   XLA_FFI_Error_GetCode_Args_STRUCT_SIZE == 28 && offsetof(XLA_FFI_Error_GetCode_Args, errc) == 24,
               "Type_Register/TypeInfo/Error_GetCode layout");
_Static_assert(offsetof(XLA_FFI_State_Set_Args, ctx) == 16 && offsetof(XLA_FFI_State_Set_Args, stage) == 24 &&
                   offsetof(XLA_FFI_State_Set_Args, type_id) == 32 && offsetof(XLA_FFI_State_Set_Args, state) == 40 &&
                   offsetof(XLA_FFI_State_Get_Args, stage) == 24 && offsetof(XLA_FFI_State_Get_Args, state) == 40,
               "State_Set/Get layout (0.5)");
_Static_assert(offsetof(ffi_state_args_v01, ctx) == 16 && offsetof(ffi_state_args_v01, type_id) == 24 &&
                   offsetof(ffi_state_args_v01, state) == 32 && offsetof(ffi_state_args_v01, deleter) == 40 &&
                   FFI_STATE_ARGS_V02_SIZE == 40,
               "State_Set/Get layouts of 0.1 (48 bytes with a deleter) and 0.2 (40 bytes)");
_Static_assert(XLA_FFI_Future_Create_Args_STRUCT_SIZE == 16 &&
                   XLA_FFI_State_Set_Args_STRUCT_SIZE == 48 && XLA_FFI_State_Get_Args_STRUCT_SIZE == 48 &&
                   XLA_FFI_ThreadPool_NumThreads_Args_STRUCT_SIZE == 32 && XLA_FFI_RunId_Get_Args_STRUCT_SIZE == 32 &&
                   XLA_FFI_DeviceOrdinal_Get_Args_STRUCT_SIZE == 28,
               "argument struct sizes");

/* ---- errors ---------------------------------------------------------- */

/* Returned when allocating an error fails, and by the unimplemented slots:
 * never freed, so handing it out cannot leak or double-free. */
static XLA_FFI_Error oom_error = {XLA_FFI_Error_Code_RESOURCE_EXHAUSTED, "out of memory"};
static XLA_FFI_Error unimplemented_error = {XLA_FFI_Error_Code_UNIMPLEMENTED,
                                            "this XLA FFI API function is newer than shloc's API table (0.5)"};

char *ffi_strndup(const char *s, size_t len) {
  char *d = malloc(len + 1);
  if (!d) return NULL;
  if (len) memcpy(d, s, len);
  d[len] = '\0';
  return d;
}

XLA_FFI_Error *ffi_error_new(XLA_FFI_Error_Code code, const char *fmt, ...) {
  XLA_FFI_Error *e = malloc(sizeof *e);
  if (!e) return &oom_error;
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  e->message = malloc((size_t)(n < 0 ? 0 : n) + 1);
  if (!e->message) {
    va_end(ap);
    free(e);
    return &oom_error;
  }
  vsnprintf(e->message, (size_t)(n < 0 ? 0 : n) + 1, fmt, ap);
  va_end(ap);
  e->code = code;
  return e;
}

void ffi_error_free(XLA_FFI_Error *e) {
  if (!e || e == &oom_error || e == &unimplemented_error) return;
  free(e->message);
  free(e);
}

shl_status ffi_error_take(XLA_FFI_Error *e, const char *target, const char *what) {
  if (!e) return NULL;
  if (e->code == XLA_FFI_Error_Code_OK) {
    ffi_error_free(e);
    return NULL;
  }
  shl_status st = st_error(SHLOC_ERR_RUNTIME, NULL, NULL, "custom call '%s': %s%s%s: %s", target, what ? what : "",
                           what ? ": " : "", ffi_error_code_name(e->code), e->message);
  ffi_error_free(e);
  return st;
}

XLA_FFI_Error *ffi_check_size(const char *fn, size_t got, size_t want) {
  if (got >= want) return NULL;
  return ffi_error_new(XLA_FFI_Error_Code_INVALID_ARGUMENT,
                       "%s: argument struct_size %zu is smaller than %zu (handler built against an older API?)", fn,
                       got, want);
}

#define CHECK_SIZE(fn, args, T)                                                                                        \
  do {                                                                                                                 \
    XLA_FFI_Error *size_err_ = ffi_check_size(fn, (args)->struct_size, T##_STRUCT_SIZE);                               \
    if (size_err_) return size_err_;                                                                                   \
  } while (0)

#define CHECK_CTX(fn, args)                                                                                            \
  do {                                                                                                                 \
    if (!(args)->ctx)                                                                                                  \
      return ffi_error_new(XLA_FFI_Error_Code_INVALID_ARGUMENT, "%s: no execution context (metadata query?)", fn);     \
  } while (0)

static XLA_FFI_Error *api_error_create(XLA_FFI_Error_Create_Args *args) {
  CHECK_SIZE("XLA_FFI_Error_Create", args, XLA_FFI_Error_Create_Args);
  return ffi_error_new(args->errc, "%s", args->message ? args->message : "");
}

static void api_error_get_message(XLA_FFI_Error_GetMessage_Args *args) {
  if (args->struct_size < XLA_FFI_Error_GetMessage_Args_STRUCT_SIZE) return;
  args->message = args->error ? args->error->message : "";
}

static void api_error_get_code(XLA_FFI_Error_GetCode_Args *args) {
  if (args->struct_size < XLA_FFI_Error_GetCode_Args_STRUCT_SIZE) return;
  args->errc = args->error ? args->error->code : XLA_FFI_Error_Code_OK;
}

static void api_error_destroy(XLA_FFI_Error_Destroy_Args *args) {
  if (args->struct_size < XLA_FFI_Error_Destroy_Args_STRUCT_SIZE) return;
  ffi_error_free(args->error);
}

/* ---- context functions ----------------------------------------------- */

const ffi_exec_env ffi_default_env = {0, 0, 1, NULL, NULL, NULL, 0};

static XLA_FFI_Error *api_stream_get(XLA_FFI_Stream_Get_Args *args) {
  CHECK_SIZE("XLA_FFI_Stream_Get", args, XLA_FFI_Stream_Get_Args);
  return ffi_error_new(XLA_FFI_Error_Code_UNIMPLEMENTED, "XLA_FFI_Stream_Get: shloc runs on the CPU; no stream");
}

static XLA_FFI_Error *api_execution_context_get(XLA_FFI_ExecutionContext_Get_Args *args) {
  CHECK_SIZE("XLA_FFI_ExecutionContext_Get", args, XLA_FFI_ExecutionContext_Get_Args);
  CHECK_CTX("XLA_FFI_ExecutionContext_Get", args);
  int64_t id = args->type_id ? args->type_id->type_id : 0;
  const ffi_exec_env *env = args->ctx->env;
  for (size_t i = 0; i < env->n_user_data; i++) {
    if (env->user_data[i].type_id == id) {
      args->data = env->user_data[i].data;
      return NULL;
    }
  }
  return ffi_error_new(XLA_FFI_Error_Code_NOT_FOUND, "no user data of type id %lld in the execution context",
                       (long long)id);
}

/* A State_Set/Get request in whichever layout the caller's API version
 * uses: 0.2 sends 40 bytes {ctx, type_id, state}, 0.1 the same plus a
 * deleter for Set (48 bytes), later versions (0.5 at the latest) {ctx,
 * stage, type_id, state} (48 bytes, told apart from 0.1 by the version the
 * site's handler reported). */
typedef struct {
  XLA_FFI_ExecutionContext *ctx;
  int stage;
  int64_t type_id;
  void **state;                 /* the caller's state field */
  void (*const *deleter)(void *); /* 0.1 Set: the caller's deleter field, else NULL */
} state_req;

static XLA_FFI_Error *state_request(const char *fn, void *args, state_req *r) {
  size_t size = *(const size_t *)args;
  XLA_FFI_Error *err = ffi_check_size(fn, size, FFI_STATE_ARGS_V02_SIZE);
  if (err) return err;
  ffi_state_args_v02 *old = args;
  if (!old->ctx) return ffi_error_new(XLA_FFI_Error_Code_INVALID_ARGUMENT, "%s: no execution context", fn);
  *r = (state_req){.ctx = old->ctx, .stage = XLA_FFI_ExecutionStage_INSTANTIATE};
  XLA_FFI_TypeId *id;
  if (size == FFI_STATE_ARGS_V02_SIZE || old->ctx->api_minor <= 1) {
    id = old->type_id;
    r->state = &old->state;
    if (size > FFI_STATE_ARGS_V02_SIZE) r->deleter = &((ffi_state_args_v01 *)args)->deleter;
  } else {
    XLA_FFI_State_Set_Args *cur = args; /* State_Get_Args has the same layout */
    r->stage = (int)cur->stage;
    id = cur->type_id;
    r->state = &cur->state;
  }
  if (r->stage < 0 || r->stage >= FFI_STATE_STAGES)
    return ffi_error_new(XLA_FFI_Error_Code_INVALID_ARGUMENT, "%s: stage %d has no state (the execute stage reads "
                         "the instantiate state)", fn, r->stage);
  r->type_id = id ? id->type_id : 0;
  return NULL;
}

static XLA_FFI_Error *api_state_set(XLA_FFI_State_Set_Args *args) {
  state_req r;
  XLA_FFI_Error *err = state_request("XLA_FFI_State_Set", args, &r);
  if (err) return err;
  if (r.type_id == 0)
    return ffi_error_new(XLA_FFI_Error_Code_INVALID_ARGUMENT, "XLA_FFI_State_Set: type id is not registered");
  ffi_state *s = &r.ctx->state[r.stage];
  if (s->set)
    return ffi_error_new(XLA_FFI_Error_Code_ALREADY_EXISTS,
                         "XLA_FFI_State_Set: state of type id %lld is already set for this call site and stage",
                         (long long)s->type_id);
  *s = (ffi_state){true, r.type_id, *r.state, r.deleter ? *r.deleter : ffi_type_deleter(r.type_id)};
  return NULL;
}

static XLA_FFI_Error *api_state_get(XLA_FFI_State_Get_Args *args) {
  state_req r;
  XLA_FFI_Error *err = state_request("XLA_FFI_State_Get", args, &r);
  if (err) return err;
  const ffi_state *s = &r.ctx->state[r.stage];
  if (!s->set)
    return ffi_error_new(XLA_FFI_Error_Code_NOT_FOUND, "XLA_FFI_State_Get: no state set for this call site by stage %d",
                         r.stage);
  if (s->type_id != r.type_id)
    return ffi_error_new(XLA_FFI_Error_Code_INVALID_ARGUMENT,
                         "XLA_FFI_State_Get: state has type id %lld, requested %lld", (long long)s->type_id,
                         (long long)r.type_id);
  *r.state = s->ptr;
  return NULL;
}

static XLA_FFI_Error *api_device_memory_allocate(XLA_FFI_DeviceMemory_Allocate_Args *args) {
  CHECK_SIZE("XLA_FFI_DeviceMemory_Allocate", args, XLA_FFI_DeviceMemory_Allocate_Args);
  size_t align = args->alignment < sizeof(void *) ? sizeof(void *) : args->alignment;
  if (align & (align - 1))
    return ffi_error_new(XLA_FFI_Error_Code_INVALID_ARGUMENT, "XLA_FFI_DeviceMemory_Allocate: alignment %zu",
                         args->alignment);
  void *p = NULL;
  if (posix_memalign(&p, align, args->size ? args->size : 1) != 0)
    return ffi_error_new(XLA_FFI_Error_Code_RESOURCE_EXHAUSTED, "XLA_FFI_DeviceMemory_Allocate: %zu bytes", args->size);
  args->data = p;
  return NULL;
}

static XLA_FFI_Error *api_device_memory_free(XLA_FFI_DeviceMemory_Free_Args *args) {
  CHECK_SIZE("XLA_FFI_DeviceMemory_Free", args, XLA_FFI_DeviceMemory_Free_Args);
  free(args->data);
  return NULL;
}

static XLA_FFI_Error *api_thread_pool_schedule(XLA_FFI_ThreadPool_Schedule_Args *args) {
  CHECK_SIZE("XLA_FFI_ThreadPool_Schedule", args, XLA_FFI_ThreadPool_Schedule_Args);
  CHECK_CTX("XLA_FFI_ThreadPool_Schedule", args);
  const ffi_exec_env *env = args->ctx->env;
  if (env->schedule)
    env->schedule(env->pool, args->task, args->data);
  else
    args->task(args->data);
  return NULL;
}

static XLA_FFI_Error *api_thread_pool_num_threads(XLA_FFI_ThreadPool_NumThreads_Args *args) {
  CHECK_SIZE("XLA_FFI_ThreadPool_NumThreads", args, XLA_FFI_ThreadPool_NumThreads_Args);
  CHECK_CTX("XLA_FFI_ThreadPool_NumThreads", args);
  int64_t n = args->ctx->env->num_threads;
  *args->num_threads = n > 0 ? n : 1;
  return NULL;
}

static XLA_FFI_Error *api_run_id_get(XLA_FFI_RunId_Get_Args *args) {
  CHECK_SIZE("XLA_FFI_RunId_Get", args, XLA_FFI_RunId_Get_Args);
  CHECK_CTX("XLA_FFI_RunId_Get", args);
  args->run_id = args->ctx->env->run_id;
  return NULL;
}

static XLA_FFI_Error *api_device_ordinal_get(XLA_FFI_DeviceOrdinal_Get_Args *args) {
  CHECK_SIZE("XLA_FFI_DeviceOrdinal_Get", args, XLA_FFI_DeviceOrdinal_Get_Args);
  CHECK_CTX("XLA_FFI_DeviceOrdinal_Get", args);
  args->device_ordinal = args->ctx->env->device_ordinal;
  return NULL;
}

static XLA_FFI_Error *api_handler_register(XLA_FFI_Handler_Register_Args *args) {
  CHECK_SIZE("XLA_FFI_Handler_Register", args, XLA_FFI_Handler_Register_Args);
  ffi_registry *r = ffi_loading_registry();
  if (!r)
    return ffi_error_new(XLA_FFI_Error_Code_FAILED_PRECONDITION,
                         "XLA_FFI_Handler_Register: no shloc registry is loading a library on this thread "
                         "(load the library with ffi_registry_load_plugin / --ffi-plugin)");
  shl_status st = ffi_registry_add_handler_n(r, args->name.ptr, args->name.len, args->platform.ptr, args->platform.len,
                                             &args->bundle, args->traits);
  if (!st) return NULL;
  XLA_FFI_Error_Code code = shloc_status_code(st) == SHLOC_ERR_ALREADY_EXISTS ? XLA_FFI_Error_Code_ALREADY_EXISTS
                            : shloc_status_code(st) == SHLOC_ERR_OOM          ? XLA_FFI_Error_Code_RESOURCE_EXHAUSTED
                                                                              : XLA_FFI_Error_Code_INVALID_ARGUMENT;
  XLA_FFI_Error *e = ffi_error_new(code, "%s", shloc_status_message(st));
  shloc_status_free(st);
  return e;
}

/* ---- the table ------------------------------------------------------- */

/* Handlers from newer XLA headers that skip the struct_size check may call
 * slots past the end; they get an UNIMPLEMENTED error instead of a jump into
 * whatever follows the table.  Every API function takes one pointer. */
static XLA_FFI_Error *api_unimplemented(void *args) {
  (void)args;
  return &unimplemented_error;
}

#define FFI_SPARE_SLOTS 32
#define SPARE4 api_unimplemented, api_unimplemented, api_unimplemented, api_unimplemented
#define SPARE32 SPARE4, SPARE4, SPARE4, SPARE4, SPARE4, SPARE4, SPARE4, SPARE4

typedef struct {
  XLA_FFI_Api api;
  XLA_FFI_Error *(*spare[FFI_SPARE_SLOTS])(void *);
} padded_api;

_Static_assert(offsetof(padded_api, spare) == sizeof(XLA_FFI_Api), "spare slots follow the table");

static const padded_api api_table = {
    .api =
        {
            .struct_size = XLA_FFI_Api_STRUCT_SIZE,
            .extension_start = NULL,
            .api_version = {XLA_FFI_Api_Version_STRUCT_SIZE, NULL, XLA_FFI_API_MAJOR, XLA_FFI_API_MINOR},
            .internal_api = NULL,
            .XLA_FFI_Error_Create = api_error_create,
            .XLA_FFI_Error_GetMessage = api_error_get_message,
            .XLA_FFI_Error_Destroy = api_error_destroy,
            .XLA_FFI_Handler_Register = api_handler_register,
            .XLA_FFI_Stream_Get = api_stream_get,
            .XLA_FFI_Type_Register = ffi_api_type_register,
            .XLA_FFI_ExecutionContext_Get = api_execution_context_get,
            .XLA_FFI_State_Set = api_state_set,
            .XLA_FFI_State_Get = api_state_get,
            .XLA_FFI_DeviceMemory_Allocate = api_device_memory_allocate,
            .XLA_FFI_DeviceMemory_Free = api_device_memory_free,
            .XLA_FFI_ThreadPool_Schedule = api_thread_pool_schedule,
            .XLA_FFI_ThreadPool_NumThreads = api_thread_pool_num_threads,
            .XLA_FFI_Future_Create = ffi_api_future_create,
            .XLA_FFI_Future_SetAvailable = ffi_api_future_set_available,
            .XLA_FFI_Future_SetError = ffi_api_future_set_error,
            .XLA_FFI_RunId_Get = api_run_id_get,
            .XLA_FFI_DeviceOrdinal_Get = api_device_ordinal_get,
            .XLA_FFI_Error_GetCode = api_error_get_code,
        },
    .spare = {SPARE32},
};

const XLA_FFI_Api *ffi_api(void) { return &api_table.api; }

SHLOC_API const XLA_FFI_Api *XLA_FFI_GetApi(void) { return &api_table.api; }
