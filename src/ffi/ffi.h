/* Custom-call runtime: handler registry, attribute encoding, call sites.
 *
 * Independent of the IR.  The executor describes each stablehlo.custom_call
 * once (ffi_site_prepare: target, api_version, attributes or opaque bytes,
 * operand/result counts) and then runs it any number of times with buffer
 * pointers (ffi_site_call).  Typed handlers (api_version 4) receive an XLA FFI
 * call frame built once per site; legacy handlers (api_version 1..3) receive
 * pointer tables built once per site.
 *
 * Ownership: the caller creates and destroys the registry; every site must be
 * destroyed before its registry.  Registration, lookup and site preparation
 * lock the registry; ffi_site_call may run concurrently on any sites, the
 * same one included (each call builds its own frame). */
#ifndef SHLOC_FFI_FFI_H
#define SHLOC_FFI_FFI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shloc/xla_ffi.h"
#include "support/dtype.h"
#include "support/status.h"

/* ---- element types ---------------------------------------------------- */

/* shl_dtype has no token type; buffers of token type use this value. */
#define FFI_DT_TOKEN ((shl_dtype)DT_COUNT)

/* XLA_FFI_DataType_INVALID when `t` has no FFI equivalent (tf32, f6*, quant). */
XLA_FFI_DataType ffi_dtype_to_xla(shl_dtype t);
/* DT_INVALID when `t` has no shloc equivalent (S1, U1); TOKEN gives FFI_DT_TOKEN. */
shl_dtype ffi_dtype_from_xla(XLA_FFI_DataType t);
/* "F32", "PRED", ...; "INVALID" for unknown values. */
const char *ffi_dtype_xla_name(XLA_FFI_DataType t);
/* "INVALID_ARGUMENT", ...; "UNKNOWN" for unknown values. */
const char *ffi_error_code_name(XLA_FFI_Error_Code c);

/* ---- attributes ------------------------------------------------------- *
 * A neutral description of a custom call's backend_config dictionary, built
 * entry by entry in any order; encoding sorts every dictionary by name.
 * The accepted dtypes are exactly those XLA converts (mlir-attr-to-ffi.md):
 *   scalar: i1 -> PRED; i8..i64 and si8..si64 -> S8..S64; ui8..ui64 -> U8..U64;
 *           f32, f64.  Other integer or float widths are rejected.
 *   array:  i8..i64, si*, ui8..ui64, f32, f64 (flattened dense data).
 * Names and data are copied; `name` need not be NUL-terminated. */

typedef struct ffi_attrs ffi_attrs;

shl_status ffi_attrs_create(ffi_attrs **out);
void ffi_attrs_destroy(ffi_attrs *a);
/* `value` points to one element in shloc storage (i1: one byte, 0 or 1). */
shl_status ffi_attrs_add_scalar(ffi_attrs *a, const char *name, size_t name_len, shl_dtype dtype, const void *value);
/* `data` points to `count` contiguous elements. */
shl_status ffi_attrs_add_array(ffi_attrs *a, const char *name, size_t name_len, shl_dtype dtype, size_t count,
                               const void *data);
shl_status ffi_attrs_add_string(ffi_attrs *a, const char *name, size_t name_len, const char *s, size_t len);
/* Entries added until the matching end_dict belong to the nested dictionary. */
shl_status ffi_attrs_begin_dict(ffi_attrs *a, const char *name, size_t name_len);
shl_status ffi_attrs_end_dict(ffi_attrs *a);

/* ---- registry --------------------------------------------------------- */

typedef struct ffi_registry ffi_registry;

typedef enum {
  FFI_KIND_TYPED = 1, /* XLA FFI handler bundle (api_version 4) */
  FFI_KIND_LEGACY,    /* untyped function (api_version 1, 2 or 3) */
  FFI_KIND_SYMBOL,    /* loaded symbol of either kind: the op's api_version decides */
} ffi_kind;

typedef struct {
  const char *target;
  const char *platform; /* canonical: "cpu", or the lower-cased name given */
  ffi_kind kind;
  XLA_FFI_Handler_Traits traits; /* typed: registered | reported by the handler */
  const char *origin; /* "LIB:SYMBOL" or "plugin PATH"; NULL for the C API */
} ffi_target_info;

shl_status ffi_registry_create(ffi_registry **out);
/* Unloads the libraries the registry loaded. */
void ffi_registry_destroy(ffi_registry *r);
/* `platform` NULL means "cpu".  Registering a (target, platform) twice is an
 * error (SHLOC_ERR_ALREADY_EXISTS).  Typed handlers are asked for their
 * metadata here, and rejected unless their API version is supported. */
shl_status ffi_registry_add_handler(ffi_registry *r, const char *target, const char *platform,
                                    const XLA_FFI_Handler_Bundle *bundle, XLA_FFI_Handler_Traits traits);
shl_status ffi_registry_add_legacy(ffi_registry *r, const char *target, const char *platform, shloc_legacy_fn fn);
/* Resolves `spec` = "LIB:SYMBOL" (split at the last ':') with dlopen/dlsym and
 * registers it for `target` on "cpu".  `kind` says what the symbol is; with
 * FFI_KIND_SYMBOL the op's api_version decides at prepare time (XLA's rule),
 * and a typed use first runs the metadata query, so a legacy function used by
 * an api_version 4 op is called once with a call frame: prefer an explicit
 * kind when it is known.  Errors: SHLOC_ERR_IO (dlopen, with the loader's
 * message), SHLOC_ERR_NOT_FOUND (symbol), SHLOC_ERR_INVALID_ARG (spec). */
shl_status ffi_registry_add_symbol(ffi_registry *r, const char *target, const char *spec, ffi_kind kind);
/* Loads a plugin library (see shloc_plugin_register in shloc/xla_ffi.h).
 * XLA_FFI_Handler_Register calls made by the library's static initialisers
 * during the dlopen also land in `r`.  On failure nothing stays registered. */
shl_status ffi_registry_load_plugin(ffi_registry *r, const char *path);
/* Registered targets, sorted by (target, platform). */
size_t ffi_registry_count(const ffi_registry *r);
bool ffi_registry_entry(const ffi_registry *r, size_t i, ffi_target_info *out);

/* Id the process type table holds for a type name (registered by a handler
 * through XLA_FFI_TypeId_Register); SHLOC_ERR_NOT_FOUND if none. */
shl_status ffi_type_lookup(const char *name, size_t len, int64_t *out_id);

/* ---- call sites ------------------------------------------------------- */

/* What handlers can query during a call; NULL means all defaults. */
typedef struct {
  int64_t type_id; /* from ffi_type_lookup */
  void *data;
} ffi_user_data;

typedef struct {
  int64_t run_id;
  int32_t device_ordinal;
  int64_t num_threads; /* reported by ThreadPool_NumThreads; <= 0 reports 1 */
  /* Runs `task(data)` on a worker; NULL runs it inline in the calling thread. */
  void (*schedule)(void *pool, XLA_FFI_Task *task, void *data);
  void *pool;
  const ffi_user_data *user_data; /* ExecutionContext_Get looks here */
  size_t n_user_data;
} ffi_exec_env;

typedef struct {
  const char *target;
  const char *platform;   /* NULL = "cpu" */
  int api_version;        /* 1, 2, 3: legacy; 4: typed FFI */
  const ffi_attrs *attrs; /* api_version 4; NULL = no attributes */
  const char *opaque;     /* api_version 1..3: backend_config bytes */
  size_t opaque_len;
  int n_args, n_rets;
  bool tuple_result;       /* legacy: pass a pointer table even for one result */
  const ffi_exec_env *env; /* seen by the instantiate stage; NULL = defaults */
} ffi_site_desc;

/* One buffer.  dtype FFI_DT_TOKEN: data NULL, rank 0.  dims has `rank`
 * entries and must stay valid during the call. */
typedef struct {
  shl_dtype dtype;
  void *data;
  int rank;
  const int64_t *dims;
} ffi_buffer;

typedef struct ffi_site ffi_site;

/* Looks the target up, encodes attributes, builds the call frame and runs the
 * instantiate stage.  Errors name the target. */
shl_status ffi_site_prepare(ffi_registry *r, const ffi_site_desc *desc, ffi_site **out);
/* Runs the handler with desc.n_args operands and desc.n_rets results.  A
 * handler error becomes SHLOC_ERR_RUNTIME "custom call 'T': CODE: message". */
shl_status ffi_site_call(ffi_site *s, const ffi_exec_env *env, const ffi_buffer *args, const ffi_buffer *rets);
/* Runs the state deleter (if any) and frees the site. */
void ffi_site_destroy(ffi_site *s);

#endif
