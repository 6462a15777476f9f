/* Loading handlers from shared libraries: "LIB:SYMBOL" specs and plugins
 * (shloc_plugin_register, or XLA-style registration from static
 * initialisers through XLA_FFI_GetApi()). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ffi/ffi_impl.h"

/* dlopen with RTLD_NOW so a library with unresolved imports fails here, with
 * the loader's message, rather than at its first call. */
static shl_status open_library(const char *path, void **out) {
  dlerror();
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *why = dlerror();
    return st_error(SHLOC_ERR_IO, NULL, NULL, "cannot load handler library '%s': %s", path,
                    why ? why : "unknown dlopen error");
  }
  *out = h;
  return NULL;
}

shl_status ffi_registry_add_symbol(ffi_registry *r, const char *target, const char *spec, ffi_kind kind) {
  const char *colon = spec ? strrchr(spec, ':') : NULL;
  if (!colon || colon == spec || colon[1] == '\0')
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "custom call '%s': expected LIB:SYMBOL, got '%s'",
                    target ? target : "", spec ? spec : "");
  char *path = ffi_strndup(spec, (size_t)(colon - spec));
  if (!path) return st_oom();
  const char *symbol = colon + 1;
  void *h = NULL;
  shl_status st = open_library(path, &h);
  void *fn = NULL;
  if (!st) {
    dlerror();
    fn = dlsym(h, symbol);
    if (!fn) {
      const char *why = dlerror();
      st = st_error(SHLOC_ERR_NOT_FOUND, NULL, NULL, "custom call '%s': symbol '%s' not found in '%s'%s%s",
                    target ? target : "", symbol, path, why ? ": " : "", why ? why : "");
    }
  }
  /* Once kept, the handle stays open until the registry goes away, even if
   * registering fails below (entries never outlive their library). */
  shl_status kept = st ? st : ffi_registry_keep_library(r, h);
  if (kept && h) dlclose(h);
  st = kept;
  if (!st) {
    ffi_entry proto = {.kind = kind, .legacy = (shloc_legacy_fn)fn, .origin = (char *)spec};
    if (kind == FFI_KIND_TYPED) {
      proto.bundle.execute = (XLA_FFI_Handler *)fn;
      st = ffi_handler_check(target ? target : "", "execute", proto.bundle.execute, &proto.traits, &proto.api_minor);
    }
    if (!st) st = ffi_registry_insert(r, target, target ? strlen(target) : 0, NULL, 0, &proto);
  }
  free(path);
  return st;
}

/* ---- plugins --------------------------------------------------------- */

/* A status from the registry as an XLA error for the plugin. */
static XLA_FFI_Error *status_to_error(shl_status st) {
  if (!st) return NULL;
  XLA_FFI_Error_Code code = shloc_status_code(st) == SHLOC_ERR_ALREADY_EXISTS ? XLA_FFI_Error_Code_ALREADY_EXISTS
                            : shloc_status_code(st) == SHLOC_ERR_OOM          ? XLA_FFI_Error_Code_RESOURCE_EXHAUSTED
                                                                              : XLA_FFI_Error_Code_INVALID_ARGUMENT;
  XLA_FFI_Error *e = ffi_error_new(code, "%s", shloc_status_message(st));
  shloc_status_free(st);
  return e;
}

static XLA_FFI_Error *host_register_handler(void *self, const char *target, const char *platform,
                                            const XLA_FFI_Handler_Bundle *bundle, XLA_FFI_Handler_Traits traits) {
  return status_to_error(ffi_registry_add_handler(self, target, platform, bundle, traits));
}

static XLA_FFI_Error *host_register_legacy(void *self, const char *target, const char *platform, shloc_legacy_fn fn) {
  return status_to_error(ffi_registry_add_legacy(self, target, platform, fn));
}

shl_status ffi_registry_load_plugin(ffi_registry *r, const char *path) {
  ffi_registry_lock(r);
  size_t before = ffi_registry_count(r);
  char origin[512];
  snprintf(origin, sizeof origin, "plugin %s", path);
  /* Tag entries with the id the library will get, so a failure can remove them. */
  int load_id = ffi_registry_library_count(r);
  ffi_registry_set_load_tag(r, load_id, origin);
  ffi_registry *prev = ffi_set_loading_registry(r);
  void *h = NULL;
  shl_status st = open_library(path, &h);
  if (!st) {
    dlerror();
    shloc_plugin_register_fn *entry = (shloc_plugin_register_fn *)dlsym(h, SHLOC_PLUGIN_ENTRY_SYMBOL);
    if (entry) {
      shloc_plugin_host host = {
          .struct_size = sizeof host,
          .abi_version = SHLOC_PLUGIN_ABI_VERSION,
          .self = r,
          .api = ffi_api(),
          .register_handler = host_register_handler,
          .register_legacy = host_register_legacy,
      };
      XLA_FFI_Error *err = entry(&host);
      if (err && err->code != XLA_FFI_Error_Code_OK)
        st = st_error(SHLOC_ERR_RUNTIME, NULL, NULL, "plugin '%s': %s failed: %s: %s", path, SHLOC_PLUGIN_ENTRY_SYMBOL,
                      ffi_error_code_name(err->code), err->message);
      ffi_error_free(err);
    } else if (ffi_registry_count(r) == before) {
      st = st_error(SHLOC_ERR_NOT_FOUND, NULL, NULL,
                    "plugin '%s' exports no '%s' and registered no XLA FFI handlers while loading", path,
                    SHLOC_PLUGIN_ENTRY_SYMBOL);
    }
  }
  ffi_set_loading_registry(prev);
  ffi_registry_set_load_tag(r, -1, NULL);
  if (!st) st = ffi_registry_keep_library(r, h);
  if (st) {
    ffi_registry_forget(r, load_id);
    if (h) dlclose(h);
  }
  ffi_registry_unlock(r);
  return st;
}
