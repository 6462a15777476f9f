/* Public custom-call registry API: thin wrappers over src/ffi.  The public
 * shloc_ffi_registry is the internal ffi_registry under another name (the
 * struct tag is never defined, only converted). */
#include "ffi/ffi.h"
#include "shloc/ffi_registry.h"

static ffi_registry *reg(shloc_ffi_registry *r) { return (ffi_registry *)r; }
static const ffi_registry *creg(const shloc_ffi_registry *r) { return (const ffi_registry *)r; }

shloc_status shloc_ffi_registry_create(shloc_ffi_registry **out) {
  ffi_registry *r = NULL;
  shl_status st = ffi_registry_create(&r);
  *out = (shloc_ffi_registry *)r;
  return st;
}

void shloc_ffi_registry_destroy(shloc_ffi_registry *r) { ffi_registry_destroy(reg(r)); }

shloc_status shloc_ffi_register_bundle(shloc_ffi_registry *r, const char *target, const char *platform,
                                       const XLA_FFI_Handler_Bundle *bundle, XLA_FFI_Handler_Traits traits) {
  if (!bundle) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "custom call '%s': NULL handler bundle", target);
  return ffi_registry_add_handler(reg(r), target, platform, bundle, traits);
}

shloc_status shloc_ffi_register_handler(shloc_ffi_registry *r, const char *target, const char *platform,
                                        XLA_FFI_Handler *execute) {
  XLA_FFI_Handler_Bundle b = {NULL, NULL, NULL, execute};
  return ffi_registry_add_handler(reg(r), target, platform, &b, 0);
}

shloc_status shloc_ffi_register_legacy(shloc_ffi_registry *r, const char *target, const char *platform,
                                       shloc_legacy_fn fn) {
  return ffi_registry_add_legacy(reg(r), target, platform, fn);
}

shloc_status shloc_ffi_register_symbol(shloc_ffi_registry *r, const char *target, const char *spec,
                                       shloc_ffi_kind kind) {
  ffi_kind k = kind == SHLOC_FFI_TYPED ? FFI_KIND_TYPED : kind == SHLOC_FFI_LEGACY ? FFI_KIND_LEGACY : FFI_KIND_SYMBOL;
  return ffi_registry_add_symbol(reg(r), target, spec, k);
}

shloc_status shloc_ffi_load_plugin(shloc_ffi_registry *r, const char *path) {
  return ffi_registry_load_plugin(reg(r), path);
}

size_t shloc_ffi_target_count(const shloc_ffi_registry *r) { return ffi_registry_count(creg(r)); }

bool shloc_ffi_target_get(const shloc_ffi_registry *r, size_t i, shloc_ffi_target *out) {
  ffi_target_info info;
  if (!ffi_registry_entry(creg(r), i, &info)) return false;
  *out = (shloc_ffi_target){
      .target = info.target,
      .platform = info.platform,
      .kind = info.kind == FFI_KIND_TYPED    ? SHLOC_FFI_TYPED
              : info.kind == FFI_KIND_LEGACY ? SHLOC_FFI_LEGACY
                                             : SHLOC_FFI_ANY,
      .traits = info.traits,
      .origin = info.origin,
  };
  return true;
}
