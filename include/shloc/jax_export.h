/* jax.export envelopes: what `jax.export.Exported.serialize()` returns.
 *
 * The envelope is a FlatBuffers table (schema: jax-ml/jax
 * jax/_src/export/serialization.fbs, root type Exported, no file identifier)
 * holding the module as a StableHLO portable artifact plus the calling
 * convention JAX needs to call it.  shloc_module_parse recognises one by
 * content and parses the embedded module; the module keeps the metadata
 * below.  Serialization versions 1 to 12 are read (the fields only ever
 * grew; older names are noted).  All strings are NUL-terminated copies owned
 * by the module (or by the object shloc_jax_export_read returned). */
#ifndef SHLOC_JAX_EXPORT_H
#define SHLOC_JAX_EXPORT_H

#include "shloc/shloc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An abstract value: dtype and shape of one flat argument or result. */
typedef struct {
  const char *dtype;        /* schema name: "f32", "bf16", "i4", "f0", "key<fry>", ... */
  size_t rank;
  const char *const *dims;  /* each dimension as JAX wrote it: "3", "b", "2*b + 1" */
  const char *memory_space; /* "device", "host", "any", or NULL when not recorded (before v5) */
} shloc_jax_aval;

typedef enum {
  SHLOC_JAX_SHARDING_UNSPECIFIED = 0,
  SHLOC_JAX_SHARDING_HLO,   /* an xla.OpSharding protobuf (versions 1 to 8) */
  SHLOC_JAX_SHARDING_NAMED, /* a NamedSharding: abstract mesh + partition spec (version 6 on) */
} shloc_jax_sharding_kind;

typedef struct {
  shloc_jax_sharding_kind kind;
  const uint8_t *hlo_proto; /* HLO: the OpSharding bytes as stored */
  size_t hlo_proto_len;
  /* Readable form: HLO shardings as XLA prints them ("{replicated}",
   * "{devices=[2,1]0,1}", ...; "{proto: N bytes}" for what is not decoded),
   * named ones as JAX prints them
   * ("NamedSharding(mesh=AbstractMesh('x': 2, axis_types=(Explicit,)), spec=P('x', None))");
   * "unspecified" otherwise. */
  const char *text;
} shloc_jax_sharding;

typedef struct shloc_jax_export shloc_jax_export;
struct shloc_jax_export {
  /* As stored, which is not the schema version: JAX's writers stored 1, then
   * 2 (Jan 2024 to Nov 2025, versions 2 to 4), then 3 (versions 5 to 11),
   * and the actual number only from July 2026 (11, 12). */
  unsigned serialization_version;
  unsigned schema_version; /* the oldest version whose schema has every field present (1..12) */
  const char *function_name;
  const char *jax_version;        /* version 12 on; NULL before */
  const char *in_tree, *out_tree; /* the pytree structures, e.g. "((*, *), {})"; "" when absent */
  size_t n_in, n_out;
  const shloc_jax_aval *in_avals, *out_avals; /* every flat argument and result of the function */
  size_t n_in_shardings, n_out_shardings;     /* n_in / n_out, or 0 when none were stored */
  const shloc_jax_sharding *in_shardings, *out_shardings;
  size_t n_platforms;
  const char *const *platforms; /* lowering platforms: "cpu", "cuda", "rocm", "tpu" (v1: lowering_platforms) */
  size_t n_ordered_effects, n_unordered_effects;
  const char *const *ordered_effects;   /* effect type names */
  const char *const *unordered_effects;
  size_t n_disabled_checks;
  const char *const *disabled_checks;   /* "platform", "custom_call:TARGET", "shape_assertions" */
  unsigned calling_convention_version;  /* v1: mlir_module_serialization_version */
  size_t n_kept;
  const uint32_t *module_kept_var_idx;  /* sorted indices into in_avals the module takes */
  bool uses_global_constants;           /* v1: uses_shape_polymorphism */
  uint32_t nr_devices;                  /* nr_devices, or the 16-bit field of versions before 5 */
  size_t module_offset, module_len;     /* mlir_module_serialized: where it lies in the envelope */
  const shloc_jax_export *vjp;          /* the serialized VJP function, or NULL */
};

/* The envelope `m` was read from, or NULL for a module read from text or
 * from a bare portable artifact.  Owned by the module. */
SHLOC_API const shloc_jax_export *shloc_module_jax_export(const shloc_module *m);

/* Decodes an envelope without parsing its module (`filename` names it in
 * errors).  Free with shloc_jax_export_free. */
SHLOC_API shloc_status shloc_jax_export_read(const void *data, size_t len, const char *filename,
                                             shloc_jax_export **out);
SHLOC_API void shloc_jax_export_free(shloc_jax_export *e);

/* The calling convention of the module's @main (docs.jax.dev, export
 * "Module calling convention"): an i32/i64 platform index first when
 * n_platforms > 1, then one !stablehlo.token per ordered effect (calling
 * convention 9 on), then the kept arrays; results start with one token per
 * ordered effect (9 on). */
SHLOC_API size_t shloc_jax_export_num_platform_args(const shloc_jax_export *e);
SHLOC_API size_t shloc_jax_export_num_token_args(const shloc_jax_export *e);

/* How a function (the module's @main) takes the exported function's
 * arguments: [platform index] [one token per ordered effect] [kept arrays];
 * results: [one token per ordered effect] [arrays]. */
typedef struct {
  uint32_t n_platform, n_tokens, n_kept;
  /* Index of "cpu" among the platforms (0 when the platform check is
   * disabled, as JAX then runs branch 0), or -1. */
  int platform_index;
} shloc_jax_layout;
/* Fills *out and checks `main_fn` against it: argument and result counts,
 * an i32/i64 scalar platform index, tokens where the effects go.  An error
 * is located at the function. */
SHLOC_API shloc_status shloc_jax_export_layout(const shloc_jax_export *e, const shloc_func *main_fn,
                                               shloc_jax_layout *out);

#ifdef __cplusplus
}
#endif
#endif
