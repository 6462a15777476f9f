/* Internals shared by the files of src/ffi (not for other folders). */
#ifndef SHLOC_FFI_FFI_IMPL_H
#define SHLOC_FFI_FFI_IMPL_H

#include <pthread.h>

#include "ffi/ffi.h"

/* Accepted handler API versions: [0.1, XLA_FFI_API_MAJOR.XLA_FFI_API_MINOR]
 * (XLA's rule: same major, not newer than the runtime). */
#define FFI_MIN_MAJOR 0
#define FFI_MIN_MINOR 1

/* State_Set/Get argument layouts of older API versions (stage: instantiate). */
typedef struct {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_ExecutionContext *ctx;
  XLA_FFI_TypeId *type_id;
  void *state;
  void (*deleter)(void *state); /* State_Set only */
} ffi_state_args_v01;

typedef struct {
  size_t struct_size;
  XLA_FFI_Extension_Base *extension_start;
  XLA_FFI_ExecutionContext *ctx;
  XLA_FFI_TypeId *type_id;
  void *state;
} ffi_state_args_v02;
enum { FFI_STATE_ARGS_V02_SIZE = SHLOC_FFI_SIZE_THROUGH(ffi_state_args_v02, state) };

/* ---- errors (api_table.c) ---- */

struct XLA_FFI_Error {
  XLA_FFI_Error_Code code;
  char *message; /* owned, NUL-terminated */
};

XLA_FFI_Error *ffi_error_new(XLA_FFI_Error_Code code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ffi_error_free(XLA_FFI_Error *e);
/* Turns a handler's error into a status "custom call 'T': [what: ]CODE: msg"
 * and frees it.  NULL and OK-coded errors give NULL (XLA treats OK as success). */
shl_status ffi_error_take(XLA_FFI_Error *e, const char *target, const char *what);

/* ---- execution context (api_table.c, site.c) ---- */

typedef struct {
  bool set;
  int64_t type_id;
  void *ptr;
  void (*deleter)(void *);
} ffi_state;

/* States a call site's handler set, by stage (instantiate, prepare,
 * initialize). */
#define FFI_STATE_STAGES 3

struct XLA_FFI_ExecutionContext {
  ffi_state *state;        /* the call site's FFI_STATE_STAGES state slots */
  const ffi_exec_env *env; /* never NULL during a call */
  int api_minor;           /* API minor version the site's handler reported */
};

/* Releases one state slot (runs its deleter). */
void ffi_state_clear(ffi_state *s);

extern const ffi_exec_env ffi_default_env;

/* ---- futures (future.c) ---- */

struct XLA_FFI_Future {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool done;
  XLA_FFI_Error *error;        /* set by SetError */
  struct XLA_FFI_Future *next; /* futures created during one call */
};

/* Futures created on this thread while a call is running are chained here
 * so the site can free the ones a handler created but did not return. */
typedef struct {
  XLA_FFI_Future *created;
} ffi_call_scope;

/* The scope of the call running on this thread (future.c); entering and
 * leaving are inline because they happen on every call. */
extern _Thread_local ffi_call_scope *ffi_current_scope;

static inline ffi_call_scope *ffi_scope_enter(ffi_call_scope *scope) {
  ffi_call_scope *saved = ffi_current_scope;
  scope->created = NULL;
  ffi_current_scope = scope;
  return saved;
}
static inline void ffi_scope_leave(ffi_call_scope *saved) { ffi_current_scope = saved; }
/* Blocks until `f` completes; returns (and takes) its error, if any. */
XLA_FFI_Error *ffi_future_wait(XLA_FFI_Future *f);
/* Frees every future created in the scope, and `returned` (the one the
 * handler handed back, already waited for) if it was created elsewhere. */
void ffi_scope_release(ffi_call_scope *scope, XLA_FFI_Future *returned);

/* ---- API table (api_table.c) ---- */

const XLA_FFI_Api *ffi_api(void);
/* Slots of the table implemented in other files (future.c, type_ids.c). */
XLA_FFI_Future_Create ffi_api_future_create;
XLA_FFI_Future_SetAvailable ffi_api_future_set_available;
XLA_FFI_Future_SetError ffi_api_future_set_error;
XLA_FFI_Type_Register ffi_api_type_register;
/* Deleter registered for a type id through XLA_FFI_TypeInfo, or NULL. */
void (*ffi_type_deleter(int64_t id))(void *);
/* Checks an argument struct's size; returns an INVALID_ARGUMENT error if small. */
XLA_FFI_Error *ffi_check_size(const char *fn, size_t got, size_t want);

/* ---- registry (registry.c) ---- */

/* The registry that receives XLA_FFI_Handler_Register calls made on this
 * thread (set while a plugin library is being loaded), or NULL. */
ffi_registry *ffi_loading_registry(void);
ffi_registry *ffi_set_loading_registry(ffi_registry *r); /* returns the previous one */

typedef struct {
  char *target;
  char *platform;
  ffi_kind kind;
  XLA_FFI_Handler_Bundle bundle; /* TYPED, and SYMBOL once verified */
  XLA_FFI_Handler_Traits traits; /* TYPED: registered | reported by the handler */
  shloc_legacy_fn legacy;        /* LEGACY, SYMBOL */
  bool verified;                 /* SYMBOL: metadata checked as a typed handler */
  int api_minor;                 /* TYPED, verified SYMBOL: minor version the execute function reported */
  char *origin;
  int load_id; /* index of the plugin load that registered it, or -1 */
} ffi_entry;

/* ffi_registry_add_handler with counted strings (XLA_FFI_Handler_Register). */
shl_status ffi_registry_add_handler_n(ffi_registry *r, const char *target, size_t target_len, const char *platform,
                                      size_t platform_len, const XLA_FFI_Handler_Bundle *bundle,
                                      XLA_FFI_Handler_Traits traits);
/* Adds a copy of `proto` under (target, platform); copies proto->origin, or
 * takes the registry's load origin and tag while a plugin loads. */
shl_status ffi_registry_insert(ffi_registry *r, const char *target, size_t target_len, const char *platform,
                               size_t platform_len, const ffi_entry *proto);
/* The entry for (target, platform): the registered one, else a built-in
 * target (targets/builtin_targets.h) described in *builtin; SHLOC_ERR_NOT_FOUND
 * when neither exists.  `r` may be NULL (built-in targets only). */
shl_status ffi_registry_find(ffi_registry *r, const char *target, const char *platform, ffi_entry *builtin,
                             ffi_entry **out);
/* Removes the entries tagged with `load_id` (a failed plugin). */
void ffi_registry_forget(ffi_registry *r, int load_id);
/* Tag and origin text new entries get while a plugin loads (-1, NULL
 * otherwise).  A plugin's tag is the index its library will have. */
void ffi_registry_set_load_tag(ffi_registry *r, int load_id, const char *origin);
/* Keeps a dlopen handle to close at destroy (libraries are indexed in order). */
shl_status ffi_registry_keep_library(ffi_registry *r, void *handle);
int ffi_registry_library_count(const ffi_registry *r);
/* Typed bundle of an entry, verifying a SYMBOL entry's metadata on first use. */
shl_status ffi_entry_bundle(ffi_entry *e, XLA_FFI_Handler_Bundle *out);

/* Asks `fn` for its metadata and checks the API version; ORs the reported
 * traits into *traits and stores the minor version in *minor (each when
 * non-NULL). */
shl_status ffi_handler_check(const char *target, const char *stage, XLA_FFI_Handler *fn,
                             XLA_FFI_Handler_Traits *traits, int *minor);

/* ---- attributes (attr_encode.c) ---- */

/* Encodes `a` (NULL = empty) into one malloc'd block holding every struct the
 * call frame points to; *root is inside *block. */
shl_status ffi_attrs_encode(const ffi_attrs *a, char **block, XLA_FFI_Attrs **root);

/* ---- legacy calls (legacy.c) ---- */

shl_status ffi_legacy_call(int api_version, shloc_legacy_fn fn, void *out, const void **in, const char *opaque,
                           size_t opaque_len, const char *target);

/* Copies [s, s+len) into a new NUL-terminated string (NULL on OOM);
 * api_table.c. */
char *ffi_strndup(const char *s, size_t len);

#endif
