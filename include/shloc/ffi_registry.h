/* shloc public API: custom-call handlers.
 *
 * A registry maps custom-call target names to handlers: typed XLA FFI
 * handlers (stablehlo.custom_call with api_version 4, or with a dictionary in
 * mhlo.backend_config as JAX emits it) and legacy untyped functions
 * (api_version 1, 2, 3).  Executables (shloc/executable.h) are created with
 * a registry: every custom call site is resolved and its handler instantiated
 * then, and the handler state lives until the executable is destroyed.
 *
 * Lifetimes: the registry must outlive every executable made with it.
 * Threads: registration locks the registry and is safe while other threads
 * create and run executables; executables resolved their handlers at
 * creation, and handlers are called concurrently when an executable runs on
 * several threads (they must be thread-safe, as XLA's are).
 *
 *     shloc_ffi_registry *reg;
 *     shloc_ffi_registry_create(&reg);
 *     shloc_ffi_register_handler(reg, "rms_norm", "cpu", rms_norm);
 *     ... shloc_executable_create(module, "main", reg, &x) (shloc/executable.h)
 */
#ifndef SHLOC_FFI_REGISTRY_H
#define SHLOC_FFI_REGISTRY_H

#include "shloc/shloc.h"
#include "shloc/xla_ffi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- registry ----------------------------------------------------------- */

/* Also declared by shloc/executable.h, which takes one. */
typedef struct shloc_ffi_registry shloc_ffi_registry;

SHLOC_API shloc_status shloc_ffi_registry_create(shloc_ffi_registry **out);
/* Unloads the libraries the registry loaded.  Destroy executables first. */
SHLOC_API void shloc_ffi_registry_destroy(shloc_ffi_registry *r);

/* Platform names are case-insensitive; NULL, "cpu" and "host" all mean the
 * CPU platform, the only one shloc runs.  Registering a (target, platform)
 * twice fails with SHLOC_ERR_ALREADY_EXISTS.  Typed handlers are asked for
 * their metadata here and rejected (SHLOC_ERR_UNSUPPORTED) when built against
 * an incompatible XLA FFI API version. */
SHLOC_API shloc_status shloc_ffi_register_bundle(shloc_ffi_registry *r, const char *target, const char *platform,
                                                 const XLA_FFI_Handler_Bundle *bundle, XLA_FFI_Handler_Traits traits);
/* A handler with only an execute stage. */
SHLOC_API shloc_status shloc_ffi_register_handler(shloc_ffi_registry *r, const char *target, const char *platform,
                                                  XLA_FFI_Handler *execute);
/* A legacy function (cast a shloc_custom_call_v1/v2/v3 to shloc_legacy_fn);
 * each op's api_version decides the calling convention. */
SHLOC_API shloc_status shloc_ffi_register_legacy(shloc_ffi_registry *r, const char *target, const char *platform,
                                                 shloc_legacy_fn fn);

typedef enum {
  SHLOC_FFI_TYPED = 1,  /* an XLA_FFI_Handler */
  SHLOC_FFI_LEGACY = 2, /* a shloc_custom_call_vN function */
  SHLOC_FFI_ANY = 3,    /* decided by each op's api_version (what `shloc run --ffi` does) */
} shloc_ffi_kind;

/* Loads `spec` = "LIB.so:SYMBOL" (split at the last ':') with dlopen/dlsym and
 * registers the symbol for `target` on "cpu".  SHLOC_ERR_IO when the library
 * does not load (with the loader's message), SHLOC_ERR_NOT_FOUND when the
 * symbol is missing. */
SHLOC_API shloc_status shloc_ffi_register_symbol(shloc_ffi_registry *r, const char *target, const char *spec,
                                                 shloc_ffi_kind kind);
/* Loads a plugin library: one exporting `shloc_plugin_register` (see
 * shloc/xla_ffi.h, Part 3), or one registering through XLA_FFI_GetApi() from
 * static initialisers.  On failure nothing it registered stays registered. */
SHLOC_API shloc_status shloc_ffi_load_plugin(shloc_ffi_registry *r, const char *path);

typedef struct {
  const char *target;
  const char *platform;          /* canonical: "cpu", or the lower-cased name given */
  shloc_ffi_kind kind;
  XLA_FFI_Handler_Traits traits; /* typed handlers */
  const char *origin;            /* "LIB:SYMBOL" or "plugin PATH"; NULL when registered by a function call */
} shloc_ffi_target;

/* Registered targets, sorted by (target, platform); strings stay valid until
 * the registry changes. */
SHLOC_API size_t shloc_ffi_target_count(const shloc_ffi_registry *r);
SHLOC_API bool shloc_ffi_target_get(const shloc_ffi_registry *r, size_t i, shloc_ffi_target *out);

#ifdef __cplusplus
}
#endif
#endif
