/* shloc public API, part 2: custom-call handlers and executables.
 *
 * A registry maps custom-call target names to handlers: typed XLA FFI
 * handlers (stablehlo.custom_call with api_version 4, or with a dictionary in
 * mhlo.backend_config as JAX emits it) and legacy untyped functions
 * (api_version 1, 2, 3).  An executable is one function of a verified module,
 * planned once with a registry: every custom call site is resolved and its
 * handler instantiated when the executable is created, and the handler state
 * lives until the executable is destroyed.
 *
 * Lifetimes: the module and the registry must outlive every executable made
 * from them.  Registration is not thread-safe; an executable must not run on
 * two threads at once.
 *
 *     shloc_ffi_registry *reg;
 *     shloc_ffi_registry_create(&reg);
 *     shloc_ffi_register_handler(reg, "rms_norm", "cpu", rms_norm);
 *     shloc_executable *x;
 *     shloc_executable_create(module, "main", reg, &x);
 *     shloc_tensor in = {XLA_FFI_DataType_F32, 2, dims, data, nbytes}, out;
 *     shloc_executable_run(x, &in, 1, &out, 1);   ... free(out.data);
 */
#ifndef SHLOC_FFI_REGISTRY_H
#define SHLOC_FFI_REGISTRY_H

#include "shloc/shloc.h"
#include "shloc/xla_ffi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- registry ----------------------------------------------------------- */

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

/* ---- executables -------------------------------------------------------- */

typedef struct shloc_executable shloc_executable;

/* A dense row-major tensor.  dtype uses XLA's numbering (XLA_FFI_DataType);
 * PRED is one byte per element.  nbytes = element size * element count.
 * In a signature (shloc_executable_arg_type/result_type) a '?' dimension is
 * SHLOC_DIM_DYNAMIC and an unranked tensor has rank -1; nbytes is then 0. */
#define SHLOC_DIM_DYNAMIC INT64_MIN
typedef struct {
  XLA_FFI_DataType dtype;
  int32_t rank;
  const int64_t *dims;
  void *data;
  size_t nbytes;
} shloc_tensor;

/* Plans function `func` (NULL = "main") of a verified module.  `registry` may
 * be NULL (built-in targets only).  Unknown custom-call targets and handler
 * instantiation errors are reported here, before anything runs. */
SHLOC_API shloc_status shloc_executable_create(shloc_module *m, const char *func, shloc_ffi_registry *registry,
                                               shloc_executable **out);
SHLOC_API void shloc_executable_destroy(shloc_executable *x);
/* The signature: number of arguments / results, and the type of each as a
 * tensor with data NULL (dims stay valid while the module lives). */
SHLOC_API size_t shloc_executable_num_args(const shloc_executable *x);
SHLOC_API size_t shloc_executable_num_results(const shloc_executable *x);
SHLOC_API shloc_status shloc_executable_arg_type(const shloc_executable *x, size_t i, shloc_tensor *out);
SHLOC_API shloc_status shloc_executable_result_type(const shloc_executable *x, size_t i, shloc_tensor *out);
/* Runs the function.  Each argument must match the signature (dtype and
 * dims); results receive malloc'd data the caller releases with free().
 *
 * Dynamic shapes: an argument may have any size in a '?' dimension (and any
 * shape for an unranked type).  The first call with a new combination of
 * argument shapes (and of the values of the small integer arguments that
 * decide shapes, as JAX's dimension arguments do) refines the program to
 * those shapes and plans it; later calls with the same shapes reuse that
 * plan (up to 16 are kept per executable).  Results come back with their
 * refined dims.  Arguments that contradict each other (a dimension argument
 * that disagrees with the array it describes) are an error naming the op,
 * the dimension and both sizes.  An executable runs one call at a time; use
 * one per thread. */
SHLOC_API shloc_status shloc_executable_run(shloc_executable *x, const shloc_tensor *args, size_t n_args,
                                            shloc_tensor *results, size_t n_results);
/* The same into memory the caller provides: results[i].data points to
 * results[i].nbytes bytes, at least the result's size (for dynamic shapes,
 * the size refined for these arguments)
 * (shloc_executable_result_type's nbytes; a smaller buffer is an error, not
 * an overflow); dtype, rank, dims and nbytes are filled in.  The buffers can be reused from run to
 * run, which spares the page faults of fresh memory, and results are computed
 * straight into them.  They must not overlap each other; one that overlaps an
 * argument is still correct (that result is computed aside, then copied). */
SHLOC_API shloc_status shloc_executable_run_into(shloc_executable *x, const shloc_tensor *args, size_t n_args,
                                                 shloc_tensor *results, size_t n_results);

#ifdef __cplusplus
}
#endif
#endif
