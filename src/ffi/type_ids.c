/* The process's table of user type ids and their deleters
 * (XLA_FFI_Type_Register; XLA_FFI_TypeId_Register before API 0.2).
 *
 * It is process-global because the API function has no context argument and
 * handlers keep their ids in static variables.  Only handler code (trusted)
 * adds entries, and the table is capped, so parsed input cannot grow it. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ffi/ffi_impl.h"

#define FFI_MAX_TYPES 4096

typedef struct {
  char *name;
  size_t len;
  int64_t id;
  void (*deleter)(void *); /* from XLA_FFI_TypeInfo, or NULL */
} type_entry;

static pthread_mutex_t types_mu = PTHREAD_MUTEX_INITIALIZER;
static type_entry *types;
static size_t n_types, cap_types;
static int64_t next_id = 1;

static type_entry *find_name(const char *name, size_t len) {
  for (size_t i = 0; i < n_types; i++)
    if (types[i].len == len && memcmp(types[i].name, name, len) == 0) return &types[i];
  return NULL;
}

static type_entry *find_id(int64_t id) {
  for (size_t i = 0; i < n_types; i++)
    if (types[i].id == id) return &types[i];
  return NULL;
}

static XLA_FFI_Error *add_type(const char *name, size_t len, int64_t id, void (*deleter)(void *)) {
  if (n_types == FFI_MAX_TYPES)
    return ffi_error_new(XLA_FFI_Error_Code_RESOURCE_EXHAUSTED, "XLA_FFI_Type_Register: more than %d types",
                         FFI_MAX_TYPES);
  if (n_types == cap_types) {
    size_t cap = cap_types ? 2 * cap_types : 16;
    type_entry *t = realloc(types, cap * sizeof *t);
    if (!t) return ffi_error_new(XLA_FFI_Error_Code_RESOURCE_EXHAUSTED, "XLA_FFI_Type_Register: out of memory");
    types = t;
    cap_types = cap;
  }
  char *copy = ffi_strndup(name, len);
  if (!copy) return ffi_error_new(XLA_FFI_Error_Code_RESOURCE_EXHAUSTED, "XLA_FFI_Type_Register: out of memory");
  types[n_types++] = (type_entry){copy, len, id, deleter};
  if (id >= next_id) next_id = id + 1;
  return NULL;
}

/* Id 0 asks for a fresh id (the name must be new); a non-zero id claims that
 * id for the name (accepted again for the same pair, as XLA does). */
static XLA_FFI_Error *register_locked(const char *name, size_t len, XLA_FFI_TypeId *type_id,
                                      void (*deleter)(void *)) {
  type_entry *by_name = find_name(name, len);
  if (type_id->type_id == 0) {
    if (by_name)
      return ffi_error_new(XLA_FFI_Error_Code_ALREADY_EXISTS, "type '%.*s' is already registered with id %lld",
                           (int)len, name, (long long)by_name->id);
    int64_t id = next_id;
    XLA_FFI_Error *err = add_type(name, len, id, deleter);
    if (!err) type_id->type_id = id;
    return err;
  }
  if (by_name) {
    if (by_name->id == type_id->type_id) {
      if (deleter) by_name->deleter = deleter;
      return NULL;
    }
    return ffi_error_new(XLA_FFI_Error_Code_INVALID_ARGUMENT, "type '%.*s' is registered with id %lld, not %lld",
                         (int)len, name, (long long)by_name->id, (long long)type_id->type_id);
  }
  type_entry *by_id = find_id(type_id->type_id);
  if (by_id)
    return ffi_error_new(XLA_FFI_Error_Code_INVALID_ARGUMENT, "type id %lld already belongs to type '%s'",
                         (long long)type_id->type_id, by_id->name);
  return add_type(name, len, type_id->type_id, deleter);
}

XLA_FFI_Error *ffi_api_type_register(XLA_FFI_Type_Register_Args *args) {
  XLA_FFI_Error *err =
      ffi_check_size("XLA_FFI_Type_Register", args->struct_size, XLA_FFI_Type_Register_Args_STRUCT_SIZE);
  if (err) return err;
  if (!args->type_id || !args->name.ptr || args->name.len == 0)
    return ffi_error_new(XLA_FFI_Error_Code_INVALID_ARGUMENT, "XLA_FFI_Type_Register: empty name or NULL type_id");
  /* XLA's STRUCT_SIZE stops before type_info, and 0.1 callers' structs end
   * there: only a caller that sends the full size has one to read. */
  void (*deleter)(void *) = NULL;
  if (args->struct_size >= sizeof *args && args->type_info) {
    if (args->type_info->struct_size < XLA_FFI_TypeInfo_STRUCT_SIZE)
      return ffi_error_new(XLA_FFI_Error_Code_INVALID_ARGUMENT, "XLA_FFI_Type_Register: type_info struct_size %zu",
                           args->type_info->struct_size);
    deleter = args->type_info->deleter;
  }
  pthread_mutex_lock(&types_mu);
  err = register_locked(args->name.ptr, args->name.len, args->type_id, deleter);
  pthread_mutex_unlock(&types_mu);
  return err;
}

void (*ffi_type_deleter(int64_t id))(void *) {
  pthread_mutex_lock(&types_mu);
  type_entry *t = find_id(id);
  void (*d)(void *) = t ? t->deleter : NULL;
  pthread_mutex_unlock(&types_mu);
  return d;
}

shl_status ffi_type_lookup(const char *name, size_t len, int64_t *out_id) {
  pthread_mutex_lock(&types_mu);
  type_entry *t = find_name(name, len);
  int64_t id = t ? t->id : 0;
  pthread_mutex_unlock(&types_mu);
  if (!t) return st_error(SHLOC_ERR_NOT_FOUND, NULL, NULL, "no FFI type named '%.*s' is registered", (int)len, name);
  *out_id = id;
  return NULL;
}
