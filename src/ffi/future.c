/* XLA_FFI_Future: completion signal of an asynchronous handler.  shloc
 * completes every call synchronously: ffi_site_call waits for the future the
 * handler returned before it returns, whichever thread completes it. */
#include <stdlib.h>

#include "ffi/ffi_impl.h"

/* The call running on this thread, so futures a handler creates but never
 * returns can be freed when the call ends. */
_Thread_local ffi_call_scope *ffi_current_scope;

static void future_free(XLA_FFI_Future *f) {
  pthread_cond_destroy(&f->cv);
  pthread_mutex_destroy(&f->mu);
  ffi_error_free(f->error);
  free(f);
}

XLA_FFI_Error *ffi_future_wait(XLA_FFI_Future *f) {
  pthread_mutex_lock(&f->mu);
  while (!f->done) pthread_cond_wait(&f->cv, &f->mu);
  XLA_FFI_Error *err = f->error;
  f->error = NULL;
  pthread_mutex_unlock(&f->mu);
  return err;
}

void ffi_scope_release(ffi_call_scope *scope, XLA_FFI_Future *returned) {
  bool returned_tracked = false;
  for (XLA_FFI_Future *f = scope->created, *next; f; f = next) {
    next = f->next;
    if (f == returned) returned_tracked = true;
    future_free(f);
  }
  scope->created = NULL;
  if (returned && !returned_tracked) future_free(returned);
}

XLA_FFI_Error *ffi_api_future_create(XLA_FFI_Future_Create_Args *args) {
  XLA_FFI_Error *err =
      ffi_check_size("XLA_FFI_Future_Create", args->struct_size, XLA_FFI_Future_Create_Args_STRUCT_SIZE);
  if (err) return err;
  XLA_FFI_Future *f = calloc(1, sizeof *f);
  if (!f) return ffi_error_new(XLA_FFI_Error_Code_RESOURCE_EXHAUSTED, "XLA_FFI_Future_Create: out of memory");
  pthread_mutex_init(&f->mu, NULL);
  pthread_cond_init(&f->cv, NULL);
  if (ffi_current_scope) {
    f->next = ffi_current_scope->created;
    ffi_current_scope->created = f;
  }
  args->future = f;
  return NULL;
}

/* Marks `f` complete with `error` (NULL = success); fails if already complete. */
static XLA_FFI_Error *future_complete(XLA_FFI_Future *f, XLA_FFI_Error *error, const char *fn) {
  if (!f) return ffi_error_new(XLA_FFI_Error_Code_INVALID_ARGUMENT, "%s: future is NULL", fn);
  pthread_mutex_lock(&f->mu);
  bool was_done = f->done;
  if (!was_done) {
    f->done = true;
    f->error = error;
    pthread_cond_broadcast(&f->cv);
  }
  pthread_mutex_unlock(&f->mu);
  /* `f` may be freed by the waiting call from here on. */
  if (!was_done) return NULL;
  ffi_error_free(error);
  return ffi_error_new(XLA_FFI_Error_Code_FAILED_PRECONDITION, "%s: future is already complete", fn);
}

XLA_FFI_Error *ffi_api_future_set_available(XLA_FFI_Future_SetAvailable_Args *args) {
  XLA_FFI_Error *err =
      ffi_check_size("XLA_FFI_Future_SetAvailable", args->struct_size, XLA_FFI_Future_SetAvailable_Args_STRUCT_SIZE);
  if (err) return err;
  return future_complete(args->future, NULL, "XLA_FFI_Future_SetAvailable");
}

XLA_FFI_Error *ffi_api_future_set_error(XLA_FFI_Future_SetError_Args *args) {
  XLA_FFI_Error *err =
      ffi_check_size("XLA_FFI_Future_SetError", args->struct_size, XLA_FFI_Future_SetError_Args_STRUCT_SIZE);
  if (err) return err;
  if (!args->error || args->error->code == XLA_FFI_Error_Code_OK)
    return ffi_error_new(XLA_FFI_Error_Code_INVALID_ARGUMENT,
                         "XLA_FFI_Future_SetError: error must be non-NULL and not OK");
  return future_complete(args->future, args->error, "XLA_FFI_Future_SetError");
}
