/* XLA FFI C ABI as implemented by shloc, for custom-call handler authors.
 *
 * Part 1 declares the structs, enums and function-table layout of XLA's FFI C
 * API (xla/ffi/api/c_api.h, API version 0.5, LP64), written independently
 * but binary compatible: a handler compiled against XLA's header (or jaxlib's
 * copy of it, any version from 0.1 on) runs unchanged under shloc, and a
 * handler compiled against this header runs under XLA 0.5 or newer.  Where
 * older versions laid out an argument struct differently (State_Set/Get,
 * TypeId_Register), shloc reads the layout of the caller's version.
 * Part 2 declares the legacy (untyped) custom-call ABI.
 * Part 3 is shloc's own plugin entry point.  Part 4 holds small static inline
 * helpers for handlers written in C; they only use Part 1.
 *
 * The header is standalone (C standard headers only) and plain C11.
 *
 * Conventions of the ABI:
 *  - every argument struct starts with `struct_size` (set it to the matching
 *    NAME_STRUCT_SIZE constant) and `extension_start` (set it to NULL);
 *  - a NULL XLA_FFI_Error* means success.  An error returned by a handler is
 *    owned by the runtime; an error returned by an API function is owned by the
 *    handler, which must release it with XLA_FFI_Error_Destroy;
 *  - attributes arrive sorted by name (byte-wise), so handlers may binary-search. */
#ifndef SHLOC_XLA_FFI_H
#define SHLOC_XLA_FFI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * Part 1: XLA FFI C API
 * ====================================================================== */

/* Size a runtime expects for an argument struct: the end of its declared last
 * field (not sizeof, which may include tail padding or later out-fields). */
#define SHLOC_FFI_SIZE_THROUGH(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))

#define XLA_FFI_API_MAJOR 0
/* Compatibility rule (XLA's): a handler reports its header's version in the
 * metadata query; the runtime accepts it when major matches and 0.1 <=
 * version <= the runtime's.  Within a major version, the API table and the
 * argument structs only grow; `struct_size` tells the callee which fields
 * the caller knows. */
#define XLA_FFI_API_MINOR 5

typedef struct XLA_FFI_Api XLA_FFI_Api;
typedef struct XLA_FFI_InternalApi XLA_FFI_InternalApi;           /* never used by external handlers */
typedef struct XLA_FFI_Error XLA_FFI_Error;                       /* opaque */
typedef struct XLA_FFI_ExecutionContext XLA_FFI_ExecutionContext; /* opaque */
typedef struct XLA_FFI_Future XLA_FFI_Future;                     /* opaque */

/* ---- extensions ---- */

typedef enum {
  XLA_FFI_Extension_Metadata = 1,
} XLA_FFI_Extension_Type;

typedef struct XLA_FFI_Extension_Base {
  size_t struct_size;
  XLA_FFI_Extension_Type type;
  struct XLA_FFI_Extension_Base *next;
} XLA_FFI_Extension_Base;
enum { XLA_FFI_Extension_Base_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_Extension_Base, next) };

/* ---- version ---- */

typedef struct XLA_FFI_Api_Version {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  int major_version; /* out */
  int minor_version; /* out */
} XLA_FFI_Api_Version;
enum { XLA_FFI_Api_Version_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_Api_Version, minor_version) };

/* ---- errors (codes follow absl::StatusCode) ---- */

typedef enum {
  XLA_FFI_Error_Code_OK = 0,
  XLA_FFI_Error_Code_CANCELLED = 1,
  XLA_FFI_Error_Code_UNKNOWN = 2,
  XLA_FFI_Error_Code_INVALID_ARGUMENT = 3,
  XLA_FFI_Error_Code_DEADLINE_EXCEEDED = 4,
  XLA_FFI_Error_Code_NOT_FOUND = 5,
  XLA_FFI_Error_Code_ALREADY_EXISTS = 6,
  XLA_FFI_Error_Code_PERMISSION_DENIED = 7,
  XLA_FFI_Error_Code_RESOURCE_EXHAUSTED = 8,
  XLA_FFI_Error_Code_FAILED_PRECONDITION = 9,
  XLA_FFI_Error_Code_ABORTED = 10,
  XLA_FFI_Error_Code_OUT_OF_RANGE = 11,
  XLA_FFI_Error_Code_UNIMPLEMENTED = 12,
  XLA_FFI_Error_Code_INTERNAL = 13,
  XLA_FFI_Error_Code_UNAVAILABLE = 14,
  XLA_FFI_Error_Code_DATA_LOSS = 15,
  XLA_FFI_Error_Code_UNAUTHENTICATED = 16,
} XLA_FFI_Error_Code;

typedef struct XLA_FFI_Error_Create_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  const char *message; /* copied */
  XLA_FFI_Error_Code errc;
} XLA_FFI_Error_Create_Args;
enum { XLA_FFI_Error_Create_Args_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_Error_Create_Args, errc) };
typedef XLA_FFI_Error *XLA_FFI_Error_Create(XLA_FFI_Error_Create_Args *args);

typedef struct XLA_FFI_Error_GetMessage_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_Error *error;
  const char *message; /* out: NUL-terminated, valid until the error is destroyed */
} XLA_FFI_Error_GetMessage_Args;
enum { XLA_FFI_Error_GetMessage_Args_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_Error_GetMessage_Args, message) };
typedef void XLA_FFI_Error_GetMessage(XLA_FFI_Error_GetMessage_Args *args);

/* Since 0.5 (slot 18 of the API table; check api->struct_size first). */
typedef struct XLA_FFI_Error_GetCode_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_Error *error;
  XLA_FFI_Error_Code errc; /* out */
} XLA_FFI_Error_GetCode_Args;
enum { XLA_FFI_Error_GetCode_Args_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_Error_GetCode_Args, errc) };
typedef void XLA_FFI_Error_GetCode(XLA_FFI_Error_GetCode_Args *args);

typedef struct XLA_FFI_Error_Destroy_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_Error *error;
} XLA_FFI_Error_Destroy_Args;
enum { XLA_FFI_Error_Destroy_Args_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_Error_Destroy_Args, error) };
typedef void XLA_FFI_Error_Destroy(XLA_FFI_Error_Destroy_Args *args);

/* ---- element types (numbering of xla::PrimitiveType) ---- */

typedef enum {
  XLA_FFI_DataType_INVALID = 0,
  XLA_FFI_DataType_PRED = 1, /* one byte per element, 0 or 1 */
  XLA_FFI_DataType_S8 = 2,
  XLA_FFI_DataType_S16 = 3,
  XLA_FFI_DataType_S32 = 4,
  XLA_FFI_DataType_S64 = 5,
  XLA_FFI_DataType_U8 = 6,
  XLA_FFI_DataType_U16 = 7,
  XLA_FFI_DataType_U32 = 8,
  XLA_FFI_DataType_U64 = 9,
  XLA_FFI_DataType_F16 = 10,
  XLA_FFI_DataType_F32 = 11,
  XLA_FFI_DataType_F64 = 12,
  XLA_FFI_DataType_C64 = 15,
  XLA_FFI_DataType_BF16 = 16,
  XLA_FFI_DataType_TOKEN = 17, /* no data: data NULL, rank 0 */
  XLA_FFI_DataType_C128 = 18,
  XLA_FFI_DataType_F8E5M2 = 19,
  XLA_FFI_DataType_F8E4M3FN = 20,
  XLA_FFI_DataType_S4 = 21, /* sub-byte types: one element per byte in shloc buffers */
  XLA_FFI_DataType_U4 = 22,
  XLA_FFI_DataType_F8E4M3B11FNUZ = 23,
  XLA_FFI_DataType_F8E5M2FNUZ = 24,
  XLA_FFI_DataType_F8E4M3FNUZ = 25,
  XLA_FFI_DataType_S2 = 26,
  XLA_FFI_DataType_U2 = 27,
  XLA_FFI_DataType_F8E4M3 = 28,
  XLA_FFI_DataType_F8E3M4 = 29,
  XLA_FFI_DataType_S1 = 30,
  XLA_FFI_DataType_U1 = 31,
  XLA_FFI_DataType_F4E2M1FN = 32,
  XLA_FFI_DataType_F8E8M0FNU = 33,
} XLA_FFI_DataType;

/* ---- buffers, arguments, results, attributes ---- */

typedef struct XLA_FFI_Buffer {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_DataType dtype;
  void *data;
  int64_t rank;
  int64_t *dims; /* `rank` logical dimensions, major to minor */
} XLA_FFI_Buffer;
enum { XLA_FFI_Buffer_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_Buffer, dims) };

typedef enum {
  XLA_FFI_ArgType_BUFFER = 1,
} XLA_FFI_ArgType;

typedef enum {
  XLA_FFI_RetType_BUFFER = 1,
} XLA_FFI_RetType;

typedef enum {
  XLA_FFI_AttrType_ARRAY = 1,
  XLA_FFI_AttrType_DICTIONARY = 2,
  XLA_FFI_AttrType_SCALAR = 3,
  XLA_FFI_AttrType_STRING = 4,
} XLA_FFI_AttrType;

/* Unique id of a user type (state, user data).  0 means "not registered". */
typedef struct XLA_FFI_TypeId {
  int64_t type_id;
} XLA_FFI_TypeId;

/* A string that is not NUL-terminated. */
typedef struct XLA_FFI_ByteSpan {
  const char *ptr;
  size_t len;
} XLA_FFI_ByteSpan;

/* SCALAR attribute payload: `value` points to one element of `dtype`. */
typedef struct XLA_FFI_Scalar {
  XLA_FFI_DataType dtype;
  void *value;
} XLA_FFI_Scalar;

/* ARRAY attribute payload: `size` elements of `dtype`, contiguous. */
typedef struct XLA_FFI_Array {
  XLA_FFI_DataType dtype;
  size_t size;
  void *data;
} XLA_FFI_Array;

/* ---- futures (asynchronous completion of a handler) ---- */

typedef struct XLA_FFI_Future_Create_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_Future *future; /* out */
} XLA_FFI_Future_Create_Args;
/* XLA declares the size through extension_start (the out-field is not counted). */
enum { XLA_FFI_Future_Create_Args_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_Future_Create_Args, extension_start) };
typedef XLA_FFI_Error *XLA_FFI_Future_Create(XLA_FFI_Future_Create_Args *args);

typedef struct XLA_FFI_Future_SetAvailable_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_Future *future;
} XLA_FFI_Future_SetAvailable_Args;
enum {
  XLA_FFI_Future_SetAvailable_Args_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_Future_SetAvailable_Args, future)
};
typedef XLA_FFI_Error *XLA_FFI_Future_SetAvailable(XLA_FFI_Future_SetAvailable_Args *args);

typedef struct XLA_FFI_Future_SetError_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_Future *future;
  XLA_FFI_Error *error; /* must be a non-OK error; ownership moves to the runtime */
} XLA_FFI_Future_SetError_Args;
enum { XLA_FFI_Future_SetError_Args_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_Future_SetError_Args, error) };
typedef XLA_FFI_Error *XLA_FFI_Future_SetError(XLA_FFI_Future_SetError_Args *args);

/* ---- call frame ---- */

/* INSTANTIATE runs once per call site (attributes only; the place to create
 * state with XLA_FFI_State_Set).  PREPARE and INITIALIZE run before EXECUTE on
 * every execution when the bundle provides them.  EXECUTE does the work. */
typedef enum {
  XLA_FFI_ExecutionStage_INSTANTIATE = 0,
  XLA_FFI_ExecutionStage_PREPARE = 1,
  XLA_FFI_ExecutionStage_INITIALIZE = 2,
  XLA_FFI_ExecutionStage_EXECUTE = 3,
} XLA_FFI_ExecutionStage;

typedef struct XLA_FFI_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  int64_t size;
  XLA_FFI_ArgType *types; /* [size] */
  void **args;            /* [size]; XLA_FFI_Buffer* for BUFFER */
} XLA_FFI_Args;
enum { XLA_FFI_Args_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_Args, args) };

typedef struct XLA_FFI_Rets {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  int64_t size;
  XLA_FFI_RetType *types; /* [size] */
  void **rets;            /* [size]; XLA_FFI_Buffer* for BUFFER */
} XLA_FFI_Rets;
enum { XLA_FFI_Rets_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_Rets, rets) };

/* Sorted by name.  attrs[i] points to XLA_FFI_Scalar, XLA_FFI_Array,
 * XLA_FFI_ByteSpan or a nested XLA_FFI_Attrs according to types[i]. */
typedef struct XLA_FFI_Attrs {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  int64_t size;
  XLA_FFI_AttrType *types;  /* [size] */
  XLA_FFI_ByteSpan **names; /* [size] */
  void **attrs;             /* [size] */
} XLA_FFI_Attrs;
enum { XLA_FFI_Attrs_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_Attrs, attrs) };

typedef struct XLA_FFI_CallFrame {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start; /* non-NULL only for the metadata query */
  const XLA_FFI_Api *api;
  XLA_FFI_ExecutionContext *ctx;
  XLA_FFI_ExecutionStage stage;
  XLA_FFI_Args args;
  XLA_FFI_Rets rets;
  XLA_FFI_Attrs attrs;
  XLA_FFI_Future *future; /* out: set by an asynchronous handler */
} XLA_FFI_CallFrame;
/* 168: XLA's handlers compare call_frame->struct_size with this for equality,
 * and the constant deliberately stops before `future`. */
enum { XLA_FFI_CallFrame_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_CallFrame, attrs) };

/* ---- handlers ---- */

typedef XLA_FFI_Error *XLA_FFI_Handler(XLA_FFI_CallFrame *call_frame);

typedef struct XLA_FFI_Handler_Bundle {
  XLA_FFI_Handler *instantiate; /* optional */
  XLA_FFI_Handler *prepare;     /* optional */
  XLA_FFI_Handler *initialize;  /* optional */
  XLA_FFI_Handler *execute;     /* required */
} XLA_FFI_Handler_Bundle;

enum XLA_FFI_Handler_TraitsBits {
  XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE = 1u << 0, /* GPU only; ignored on CPU */
  XLA_FFI_HANDLER_TRAITS_USES_DEVICE_COMMUNICATION = 1u << 1, /* GPU only; ignored on CPU */
};
typedef uint32_t XLA_FFI_Handler_Traits;

typedef struct XLA_FFI_Handler_Register_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_ByteSpan name;
  XLA_FFI_ByteSpan platform; /* case-insensitive; "cpu" and "host" are the same */
  XLA_FFI_Handler_Bundle bundle;
  XLA_FFI_Handler_Traits traits;
} XLA_FFI_Handler_Register_Args;
enum { XLA_FFI_Handler_Register_Args_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_Handler_Register_Args, traits) };
typedef XLA_FFI_Error *XLA_FFI_Handler_Register(XLA_FFI_Handler_Register_Args *args);

/* ---- type ids ---- */

/* How the runtime handles values of a registered type (0.2 on): the deleter
 * destroys a state set with XLA_FFI_State_Set when its call site goes away. */
typedef struct XLA_FFI_TypeInfo {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  void (*deleter)(void *object);
} XLA_FFI_TypeInfo;
enum { XLA_FFI_TypeInfo_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_TypeInfo, deleter) };

/* Slot 5 of the API table (XLA_FFI_TypeId_Register in 0.1, without
 * type_info).  XLA's STRUCT_SIZE stops at type_id, so a caller's struct_size
 * cannot tell whether type_info is there: shloc reads type_info only when
 * struct_size >= sizeof (48), which shloc_ffi_type_register sends.  A
 * deleter registered otherwise is not known to shloc (the state leaks). */
typedef struct XLA_FFI_Type_Register_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_ByteSpan name;
  XLA_FFI_TypeId *type_id;           /* in/out: 0 = assign a fresh id; otherwise claim this id for `name` */
  const XLA_FFI_TypeInfo *type_info; /* may be NULL */
} XLA_FFI_Type_Register_Args;
enum { XLA_FFI_Type_Register_Args_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_Type_Register_Args, type_id) };
typedef XLA_FFI_Error *XLA_FFI_Type_Register(XLA_FFI_Type_Register_Args *args);

/* ---- execution context ---- */

typedef struct XLA_FFI_ExecutionContext_Get_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_ExecutionContext *ctx;
  XLA_FFI_TypeId *type_id;
  void *data; /* out: user data the embedder attached under type_id */
} XLA_FFI_ExecutionContext_Get_Args;
enum {
  XLA_FFI_ExecutionContext_Get_Args_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_ExecutionContext_Get_Args, data)
};
typedef XLA_FFI_Error *XLA_FFI_ExecutionContext_Get(XLA_FFI_ExecutionContext_Get_Args *args);

/* ---- per-call-site state ----
 * One state per stage that sets it (instantiate, prepare, initialize; the
 * execute stage has none and reads the instantiate state).  Instantiate
 * state lives as long as the call site; prepare and initialize state for one
 * execution.  Older layouts, still accepted from handlers of those versions:
 * 0.1 {ctx, type_id, state, deleter} (48 bytes), 0.2 {ctx, type_id, state}
 * (40 bytes), both meaning the instantiate stage. */

typedef struct XLA_FFI_State_Set_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_ExecutionContext *ctx;
  XLA_FFI_ExecutionStage stage;
  XLA_FFI_TypeId *type_id; /* the deleter comes from the type's XLA_FFI_TypeInfo */
  void *state;
} XLA_FFI_State_Set_Args;
enum { XLA_FFI_State_Set_Args_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_State_Set_Args, state) };
typedef XLA_FFI_Error *XLA_FFI_State_Set(XLA_FFI_State_Set_Args *args);

typedef struct XLA_FFI_State_Get_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_ExecutionContext *ctx;
  XLA_FFI_ExecutionStage stage; /* the stage that set the state */
  XLA_FFI_TypeId *type_id;
  void *state; /* out */
} XLA_FFI_State_Get_Args;
enum { XLA_FFI_State_Get_Args_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_State_Get_Args, state) };
typedef XLA_FFI_Error *XLA_FFI_State_Get(XLA_FFI_State_Get_Args *args);

/* ---- stream (GPU only: shloc returns UNIMPLEMENTED) ---- */

typedef struct XLA_FFI_Stream_Get_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_ExecutionContext *ctx;
  void *stream; /* out */
} XLA_FFI_Stream_Get_Args;
enum { XLA_FFI_Stream_Get_Args_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_Stream_Get_Args, stream) };
typedef XLA_FFI_Error *XLA_FFI_Stream_Get(XLA_FFI_Stream_Get_Args *args);

/* ---- device memory (host memory under shloc) ---- */

typedef struct XLA_FFI_DeviceMemory_Allocate_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_ExecutionContext *ctx;
  size_t size;
  size_t alignment; /* power of two */
  void *data;       /* out */
} XLA_FFI_DeviceMemory_Allocate_Args;
enum {
  XLA_FFI_DeviceMemory_Allocate_Args_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_DeviceMemory_Allocate_Args, data)
};
typedef XLA_FFI_Error *XLA_FFI_DeviceMemory_Allocate(XLA_FFI_DeviceMemory_Allocate_Args *args);

typedef struct XLA_FFI_DeviceMemory_Free_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_ExecutionContext *ctx;
  size_t size;
  void *data;
} XLA_FFI_DeviceMemory_Free_Args;
enum { XLA_FFI_DeviceMemory_Free_Args_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_DeviceMemory_Free_Args, data) };
typedef XLA_FFI_Error *XLA_FFI_DeviceMemory_Free(XLA_FFI_DeviceMemory_Free_Args *args);

/* ---- thread pool ---- */

typedef void XLA_FFI_Task(void *data);

typedef struct XLA_FFI_ThreadPool_Schedule_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_ExecutionContext *ctx;
  XLA_FFI_Task *task;
  void *data;
} XLA_FFI_ThreadPool_Schedule_Args;
enum { XLA_FFI_ThreadPool_Schedule_Args_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_ThreadPool_Schedule_Args, data) };
typedef XLA_FFI_Error *XLA_FFI_ThreadPool_Schedule(XLA_FFI_ThreadPool_Schedule_Args *args);

typedef struct XLA_FFI_ThreadPool_NumThreads_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_ExecutionContext *ctx;
  int64_t *num_threads; /* out (through the pointer) */
} XLA_FFI_ThreadPool_NumThreads_Args;
enum {
  XLA_FFI_ThreadPool_NumThreads_Args_STRUCT_SIZE =
      SHLOC_FFI_SIZE_THROUGH(XLA_FFI_ThreadPool_NumThreads_Args, num_threads)
};
typedef XLA_FFI_Error *XLA_FFI_ThreadPool_NumThreads(XLA_FFI_ThreadPool_NumThreads_Args *args);

/* ---- run id, device ordinal ---- */

typedef struct XLA_FFI_RunId_Get_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_ExecutionContext *ctx;
  int64_t run_id; /* out */
} XLA_FFI_RunId_Get_Args;
enum { XLA_FFI_RunId_Get_Args_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_RunId_Get_Args, run_id) };
typedef XLA_FFI_Error *XLA_FFI_RunId_Get(XLA_FFI_RunId_Get_Args *args);

typedef struct XLA_FFI_DeviceOrdinal_Get_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_ExecutionContext *ctx;
  int32_t device_ordinal; /* out */
} XLA_FFI_DeviceOrdinal_Get_Args;
enum {
  XLA_FFI_DeviceOrdinal_Get_Args_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_DeviceOrdinal_Get_Args, device_ordinal)
};
typedef XLA_FFI_Error *XLA_FFI_DeviceOrdinal_Get(XLA_FFI_DeviceOrdinal_Get_Args *args);

/* ---- metadata extension (version negotiation) ----
 * Before a handler is used, the runtime calls it once with a call frame whose
 * extension_start is a Metadata_Extension (type XLA_FFI_Extension_Metadata).
 * The handler must then fill `metadata` and return without doing any work.
 * shloc rejects a handler whose reported version is outside
 * [0.1, XLA_FFI_API_MAJOR.XLA_FFI_API_MINOR], and remembers the version to
 * read the caller's layout of version-dependent argument structs. */

typedef struct XLA_FFI_Metadata {
  size_t struct_size;
  XLA_FFI_Api_Version api_version; /* out */
  XLA_FFI_Handler_Traits traits;   /* out */
  XLA_FFI_TypeId state_type_id;    /* out, newer handlers only: type of the instantiate state */
} XLA_FFI_Metadata;
/* shloc always passes this full size (48); older handlers require only 36. */
enum { XLA_FFI_Metadata_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_Metadata, state_type_id) };

typedef struct XLA_FFI_Metadata_Extension {
  XLA_FFI_Extension_Base extension_base;
  XLA_FFI_Metadata *metadata;
} XLA_FFI_Metadata_Extension;
enum { XLA_FFI_Metadata_Extension_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_Metadata_Extension, metadata) };

/* ---- the API table: one function pointer per slot, in this order ---- */

/* A slot named like its function type.  C++ spells the type with :: because
 * a member may not change the meaning of a name used earlier in its class. */
#ifdef __cplusplus
#define SHLOC_FFI_API_FIELD(fn_type) ::fn_type *fn_type
#else
#define SHLOC_FFI_API_FIELD(fn_type) fn_type *fn_type
#endif

struct XLA_FFI_Api {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_Api_Version api_version;
  XLA_FFI_InternalApi *internal_api; /* NULL under shloc */

  SHLOC_FFI_API_FIELD(XLA_FFI_Error_Create);
  SHLOC_FFI_API_FIELD(XLA_FFI_Error_GetMessage);
  SHLOC_FFI_API_FIELD(XLA_FFI_Error_Destroy);
  SHLOC_FFI_API_FIELD(XLA_FFI_Handler_Register);
  SHLOC_FFI_API_FIELD(XLA_FFI_Stream_Get);
  SHLOC_FFI_API_FIELD(XLA_FFI_Type_Register);
  SHLOC_FFI_API_FIELD(XLA_FFI_ExecutionContext_Get);
  SHLOC_FFI_API_FIELD(XLA_FFI_State_Set);
  SHLOC_FFI_API_FIELD(XLA_FFI_State_Get);
  SHLOC_FFI_API_FIELD(XLA_FFI_DeviceMemory_Allocate);
  SHLOC_FFI_API_FIELD(XLA_FFI_DeviceMemory_Free);
  SHLOC_FFI_API_FIELD(XLA_FFI_ThreadPool_Schedule);
  SHLOC_FFI_API_FIELD(XLA_FFI_ThreadPool_NumThreads);
  SHLOC_FFI_API_FIELD(XLA_FFI_Future_Create);
  SHLOC_FFI_API_FIELD(XLA_FFI_Future_SetAvailable);
  SHLOC_FFI_API_FIELD(XLA_FFI_Future_SetError);
  SHLOC_FFI_API_FIELD(XLA_FFI_RunId_Get);
  SHLOC_FFI_API_FIELD(XLA_FFI_DeviceOrdinal_Get);
  SHLOC_FFI_API_FIELD(XLA_FFI_Error_GetCode); /* 0.5 */
};
enum { XLA_FFI_Api_STRUCT_SIZE = SHLOC_FFI_SIZE_THROUGH(XLA_FFI_Api, XLA_FFI_Error_GetCode) };

/* The process's API table (exported by the shloc executable or libshloc).
 * Libraries that register handlers from static initialisers call it; such
 * registrations reach the shloc registry that is loading the library (see
 * shloc_plugin_register below) and fail with FAILED_PRECONDITION otherwise. */
const XLA_FFI_Api *XLA_FFI_GetApi(void);

/* ======================================================================
 * Part 2: legacy (untyped) custom calls, stablehlo api_version 1..3
 * ====================================================================== */

/* `out` is the result's data pointer when the op has exactly one non-tuple
 * result, otherwise an array of result data pointers.  `in[i]` points to
 * operand i's data. */
typedef struct XlaCustomCallStatus_ XlaCustomCallStatus;
typedef void shloc_custom_call_v1(void *out, const void **in);
typedef void shloc_custom_call_v2(void *out, const void **in, XlaCustomCallStatus *status);
typedef void shloc_custom_call_v3(void *out, const void **in, const char *opaque, size_t opaque_len,
                                  XlaCustomCallStatus *status);

/* Marks the call as successful (the initial state). */
void XlaCustomCallStatusSetSuccess(XlaCustomCallStatus *status);
/* Marks the call as failed with a copy of the first message_len bytes of
 * `message` (stopping early at a NUL).  The last call wins. */
void XlaCustomCallStatusSetFailure(XlaCustomCallStatus *status, const char *message, size_t message_len);

/* ======================================================================
 * Part 3: shloc plugins
 * ======================================================================
 * A plugin is a shared library exporting
 *
 *     XLA_FFI_Error *shloc_plugin_register(const shloc_plugin_host *host);
 *
 * shloc dlopens it, then calls shloc_plugin_register once with a host table.
 * The plugin registers its targets through the table and returns NULL, or an
 * error made with host->api->XLA_FFI_Error_Create (shloc destroys it, and
 * forgets the targets the plugin registered).  Libraries that instead register
 * through XLA_FFI_GetApi() from static initialisers also load as plugins. */

#define SHLOC_PLUGIN_ABI_VERSION 1
#define SHLOC_PLUGIN_ENTRY_SYMBOL "shloc_plugin_register"

/* Untyped function pointer for legacy handlers (cast to shloc_custom_call_vN). */
typedef void (*shloc_legacy_fn)(void);

typedef struct shloc_plugin_host {
  size_t struct_size;   /* sizeof(shloc_plugin_host) in the host's build */
  uint32_t abi_version; /* SHLOC_PLUGIN_ABI_VERSION of the host */
  uint32_t reserved0;
  void *self;             /* pass back as the first argument of every callback */
  const XLA_FFI_Api *api; /* the host's API table (for XLA_FFI_Error_Create) */
  /* Registers a typed FFI handler for `target` on `platform` ("cpu").  The
   * bundle's functions must answer the metadata query. */
  XLA_FFI_Error *(*register_handler)(void *self, const char *target, const char *platform,
                                     const XLA_FFI_Handler_Bundle *bundle, XLA_FFI_Handler_Traits traits);
  /* Registers a legacy handler; the op's api_version (1, 2 or 3) decides how it is called. */
  XLA_FFI_Error *(*register_legacy)(void *self, const char *target, const char *platform, shloc_legacy_fn fn);
  void *reserved[6]; /* NULL; room for later callbacks */
} shloc_plugin_host;

typedef XLA_FFI_Error *shloc_plugin_register_fn(const shloc_plugin_host *host);

/* ======================================================================
 * Part 4: helpers for C handler authors (shloc additions; XLA-compatible)
 * ====================================================================== */

/* Bytes per element of `t` (0 for TOKEN and INVALID; sub-byte types take 1). */
static inline size_t shloc_ffi_dtype_bytes(XLA_FFI_DataType t) {
  switch (t) {
    case XLA_FFI_DataType_S16:
    case XLA_FFI_DataType_U16:
    case XLA_FFI_DataType_F16:
    case XLA_FFI_DataType_BF16: return 2;
    case XLA_FFI_DataType_S32:
    case XLA_FFI_DataType_U32:
    case XLA_FFI_DataType_F32: return 4;
    case XLA_FFI_DataType_S64:
    case XLA_FFI_DataType_U64:
    case XLA_FFI_DataType_F64:
    case XLA_FFI_DataType_C64: return 8;
    case XLA_FFI_DataType_C128: return 16;
    case XLA_FFI_DataType_INVALID:
    case XLA_FFI_DataType_TOKEN: return 0;
    default: return 1;
  }
}

/* Makes an error with a printf-style message (truncated to 511 bytes). */
#if defined(__GNUC__)
static inline XLA_FFI_Error *shloc_ffi_errorf(const XLA_FFI_Api *api, XLA_FFI_Error_Code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#endif
static inline XLA_FFI_Error *shloc_ffi_errorf(const XLA_FFI_Api *api, XLA_FFI_Error_Code code, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  XLA_FFI_Error_Create_Args a;
  memset(&a, 0, sizeof a);
  a.struct_size = XLA_FFI_Error_Create_Args_STRUCT_SIZE;
  a.message = msg;
  a.errc = code;
  return api->XLA_FFI_Error_Create(&a);
}

/* Message of an error returned by an API function (valid until destroyed). */
static inline const char *shloc_ffi_error_message(const XLA_FFI_Api *api, XLA_FFI_Error *err) {
  XLA_FFI_Error_GetMessage_Args a;
  memset(&a, 0, sizeof a);
  a.struct_size = XLA_FFI_Error_GetMessage_Args_STRUCT_SIZE;
  a.error = err;
  api->XLA_FFI_Error_GetMessage(&a);
  return a.message;
}

/* Releases an error returned by an API function. */
static inline void shloc_ffi_error_destroy(const XLA_FFI_Api *api, XLA_FFI_Error *err) {
  XLA_FFI_Error_Destroy_Args a;
  memset(&a, 0, sizeof a);
  a.struct_size = XLA_FFI_Error_Destroy_Args_STRUCT_SIZE;
  a.error = err;
  api->XLA_FFI_Error_Destroy(&a);
}

/* True when the runtime is asking for metadata instead of calling the handler. */
static inline int shloc_ffi_is_metadata_query(const XLA_FFI_CallFrame *cf) {
  return cf->extension_start != NULL && cf->extension_start->type == XLA_FFI_Extension_Metadata;
}

/* Answers the metadata query: this header's API version, `traits` and (when
 * the runtime's struct has room for it) the type of the instantiate state. */
static inline XLA_FFI_Error *shloc_ffi_answer_metadata(XLA_FFI_CallFrame *cf, XLA_FFI_Handler_Traits traits,
                                                       XLA_FFI_TypeId state_type_id) {
  XLA_FFI_Metadata_Extension *ext = (XLA_FFI_Metadata_Extension *)cf->extension_start;
  if (ext->extension_base.struct_size < XLA_FFI_Metadata_Extension_STRUCT_SIZE || ext->metadata == NULL ||
      ext->metadata->struct_size < SHLOC_FFI_SIZE_THROUGH(XLA_FFI_Metadata, traits))
    return shloc_ffi_errorf(cf->api, XLA_FFI_Error_Code_INVALID_ARGUMENT, "metadata extension too small");
  XLA_FFI_Metadata *m = ext->metadata;
  m->api_version.struct_size = XLA_FFI_Api_Version_STRUCT_SIZE;
  m->api_version.extension_start = NULL;
  m->api_version.major_version = XLA_FFI_API_MAJOR;
  m->api_version.minor_version = XLA_FFI_API_MINOR;
  m->traits = traits;
  if (m->struct_size >= XLA_FFI_Metadata_STRUCT_SIZE) m->state_type_id = state_type_id;
  return NULL;
}

/* First statement of a C handler bound to `bound_stage`: checks the call frame size
 * (as XLA's own handlers do), answers the metadata query, and rejects a call
 * for another stage.  Returns from the enclosing handler when it has answered. */
#define SHLOC_FFI_HANDLER_PROLOGUE(cf, bound_stage)                                                                    \
  do {                                                                                                                 \
    if ((cf)->struct_size != XLA_FFI_CallFrame_STRUCT_SIZE)                                                            \
      return shloc_ffi_errorf((cf)->api, XLA_FFI_Error_Code_INVALID_ARGUMENT, "call frame size %zu, expected %d",      \
                              (cf)->struct_size, (int)XLA_FFI_CallFrame_STRUCT_SIZE);                                  \
    if (shloc_ffi_is_metadata_query(cf)) {                                                                             \
      XLA_FFI_TypeId shloc_no_state_ = {0};                                                                            \
      return shloc_ffi_answer_metadata((cf), 0, shloc_no_state_);                                                      \
    }                                                                                                                  \
    if ((cf)->stage != (bound_stage))                                                                                  \
      return shloc_ffi_errorf((cf)->api, XLA_FFI_Error_Code_INVALID_ARGUMENT, "called for stage %d, bound to %d",      \
                              (int)(cf)->stage, (int)(bound_stage));                                                   \
  } while (0)

/* Argument / result i as a buffer, or NULL when out of range or not a buffer. */
static inline XLA_FFI_Buffer *shloc_ffi_arg(const XLA_FFI_CallFrame *cf, int64_t i) {
  if (i < 0 || i >= cf->args.size || cf->args.types[i] != XLA_FFI_ArgType_BUFFER) return NULL;
  return (XLA_FFI_Buffer *)cf->args.args[i];
}
static inline XLA_FFI_Buffer *shloc_ffi_ret(const XLA_FFI_CallFrame *cf, int64_t i) {
  if (i < 0 || i >= cf->rets.size || cf->rets.types[i] != XLA_FFI_RetType_BUFFER) return NULL;
  return (XLA_FFI_Buffer *)cf->rets.rets[i];
}

/* Number of elements of a buffer (1 for rank 0). */
static inline int64_t shloc_ffi_buffer_elements(const XLA_FFI_Buffer *b) {
  int64_t n = 1;
  for (int64_t i = 0; i < b->rank; i++) n *= b->dims[i];
  return n;
}

/* Index of attribute `name` (NUL-terminated) in `attrs`, or -1.  Binary search:
 * relies on the byte-wise name order every conforming runtime provides. */
static inline int64_t shloc_ffi_attr_find(const XLA_FFI_Attrs *attrs, const char *name) {
  size_t len = strlen(name);
  int64_t lo = 0, hi = attrs->size;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    const XLA_FFI_ByteSpan *n = attrs->names[mid];
    size_t common = n->len < len ? n->len : len;
    int c = memcmp(n->ptr, name, common);
    if (c == 0) c = (n->len > len) - (n->len < len);
    if (c == 0) return mid;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

/* Typed lookups: NULL when the attribute is missing or has another kind
 * (scalars and arrays: or another dtype). */
static inline const XLA_FFI_Scalar *shloc_ffi_attr_scalar(const XLA_FFI_Attrs *attrs, const char *name,
                                                          XLA_FFI_DataType dtype) {
  int64_t i = shloc_ffi_attr_find(attrs, name);
  if (i < 0 || attrs->types[i] != XLA_FFI_AttrType_SCALAR) return NULL;
  const XLA_FFI_Scalar *s = (const XLA_FFI_Scalar *)attrs->attrs[i];
  return s->dtype == dtype ? s : NULL;
}
static inline const XLA_FFI_Array *shloc_ffi_attr_array(const XLA_FFI_Attrs *attrs, const char *name,
                                                        XLA_FFI_DataType dtype) {
  int64_t i = shloc_ffi_attr_find(attrs, name);
  if (i < 0 || attrs->types[i] != XLA_FFI_AttrType_ARRAY) return NULL;
  const XLA_FFI_Array *a = (const XLA_FFI_Array *)attrs->attrs[i];
  return a->dtype == dtype ? a : NULL;
}
static inline const XLA_FFI_ByteSpan *shloc_ffi_attr_string(const XLA_FFI_Attrs *attrs, const char *name) {
  int64_t i = shloc_ffi_attr_find(attrs, name);
  if (i < 0 || attrs->types[i] != XLA_FFI_AttrType_STRING) return NULL;
  return (const XLA_FFI_ByteSpan *)attrs->attrs[i];
}
static inline const XLA_FFI_Attrs *shloc_ffi_attr_dict(const XLA_FFI_Attrs *attrs, const char *name) {
  int64_t i = shloc_ffi_attr_find(attrs, name);
  if (i < 0 || attrs->types[i] != XLA_FFI_AttrType_DICTIONARY) return NULL;
  return (const XLA_FFI_Attrs *)attrs->attrs[i];
}

/* shloc_ffi_attr_get_<T>(attrs, name, &out): 1 and *out set when a scalar of
 * exactly the matching dtype exists, else 0.  (`bool` reads a PRED.) */
#define SHLOC_FFI_SCALAR_GETTER(suffix, ctype, dtype)                                                                  \
  static inline int shloc_ffi_attr_get_##suffix(const XLA_FFI_Attrs *attrs, const char *name, ctype *out) {            \
    const XLA_FFI_Scalar *s = shloc_ffi_attr_scalar(attrs, name, dtype);                                               \
    if (!s) return 0;                                                                                                  \
    memcpy(out, s->value, sizeof *out);                                                                                \
    return 1;                                                                                                          \
  }
SHLOC_FFI_SCALAR_GETTER(i8, int8_t, XLA_FFI_DataType_S8)
SHLOC_FFI_SCALAR_GETTER(i16, int16_t, XLA_FFI_DataType_S16)
SHLOC_FFI_SCALAR_GETTER(i32, int32_t, XLA_FFI_DataType_S32)
SHLOC_FFI_SCALAR_GETTER(i64, int64_t, XLA_FFI_DataType_S64)
SHLOC_FFI_SCALAR_GETTER(u8, uint8_t, XLA_FFI_DataType_U8)
SHLOC_FFI_SCALAR_GETTER(u16, uint16_t, XLA_FFI_DataType_U16)
SHLOC_FFI_SCALAR_GETTER(u32, uint32_t, XLA_FFI_DataType_U32)
SHLOC_FFI_SCALAR_GETTER(u64, uint64_t, XLA_FFI_DataType_U64)
SHLOC_FFI_SCALAR_GETTER(f32, float, XLA_FFI_DataType_F32)
SHLOC_FFI_SCALAR_GETTER(f64, double, XLA_FFI_DataType_F64)
#undef SHLOC_FFI_SCALAR_GETTER
static inline int shloc_ffi_attr_get_bool(const XLA_FFI_Attrs *attrs, const char *name, bool *out) {
  const XLA_FFI_Scalar *s = shloc_ffi_attr_scalar(attrs, name, XLA_FFI_DataType_PRED);
  if (!s) return 0;
  *out = *(const uint8_t *)s->value != 0;
  return 1;
}

/* Registers a user type by name (call once, e.g. on first use); *id receives
 * a fresh id when it is 0.  `deleter` (may be NULL) destroys states of the
 * type. */
static inline XLA_FFI_Error *shloc_ffi_type_register(const XLA_FFI_Api *api, const char *name, XLA_FFI_TypeId *id,
                                                     void (*deleter)(void *)) {
  XLA_FFI_TypeInfo info;
  memset(&info, 0, sizeof info);
  info.struct_size = XLA_FFI_TypeInfo_STRUCT_SIZE;
  info.deleter = deleter;
  XLA_FFI_Type_Register_Args a;
  memset(&a, 0, sizeof a);
  /* The full size: tells shloc that type_info is present (XLA accepts it). */
  a.struct_size = sizeof a;
  a.name.ptr = name;
  a.name.len = strlen(name);
  a.type_id = id;
  a.type_info = &info;
  return api->XLA_FFI_Type_Register(&a);
}

/* Attaches `state` (of registered type *id) to the call site for the
 * frame's stage (typically instantiate); the type's deleter runs when the
 * state goes away. */
static inline XLA_FFI_Error *shloc_ffi_state_set(const XLA_FFI_CallFrame *cf, XLA_FFI_TypeId *id, void *state) {
  XLA_FFI_State_Set_Args a;
  memset(&a, 0, sizeof a);
  a.struct_size = XLA_FFI_State_Set_Args_STRUCT_SIZE;
  a.ctx = cf->ctx;
  a.stage = cf->stage;
  a.type_id = id;
  a.state = state;
  return cf->api->XLA_FFI_State_Set(&a);
}

/* Fetches the state of type *id that stage `stage` set into *out. */
static inline XLA_FFI_Error *shloc_ffi_state_get(const XLA_FFI_CallFrame *cf, XLA_FFI_ExecutionStage stage,
                                                 XLA_FFI_TypeId *id, void **out) {
  XLA_FFI_State_Get_Args a;
  memset(&a, 0, sizeof a);
  a.struct_size = XLA_FFI_State_Get_Args_STRUCT_SIZE;
  a.ctx = cf->ctx;
  a.stage = stage;
  a.type_id = id;
  XLA_FFI_Error *err = cf->api->XLA_FFI_State_Get(&a);
  *out = err ? NULL : a.state;
  return err;
}

/* Code of an error returned by an API function; UNKNOWN when the runtime's
 * table predates XLA_FFI_Error_GetCode (API 0.5). */
static inline XLA_FFI_Error_Code shloc_ffi_error_code(const XLA_FFI_Api *api, XLA_FFI_Error *err) {
  if (api->struct_size < SHLOC_FFI_SIZE_THROUGH(XLA_FFI_Api, XLA_FFI_Error_GetCode) || !api->XLA_FFI_Error_GetCode)
    return XLA_FFI_Error_Code_UNKNOWN;
  XLA_FFI_Error_GetCode_Args a;
  memset(&a, 0, sizeof a);
  a.struct_size = XLA_FFI_Error_GetCode_Args_STRUCT_SIZE;
  a.error = err;
  api->XLA_FFI_Error_GetCode(&a);
  return a.errc;
}

#ifdef __cplusplus
}
#endif
#endif
