/* Test envelopes: encodes an Exported table (jax-ml/jax
 * jax/_src/export/serialization.fbs) the way JAX's serializer of each
 * serialization version lays it out, with fb_build.h.  Field ids and enum
 * values are written out here from the schema, independently of the reader. */
#ifndef SHLOC_TESTS_JAX_ENVELOPE_BUILD_H
#define SHLOC_TESTS_JAX_ENVELOPE_BUILD_H

#include <stdbool.h>

#include "fb_build.h"

/* DType values of the schema used by the tests. */
enum { JT_BOOL = 0, JT_I32 = 3, JT_F32 = 10, JT_BF16 = 14, JT_F0 = 22, JT_KEY_FRY = 27 };

typedef struct {
  uint8_t dtype;
  int rank;
  const char *dims[4];
} tb_aval;

typedef struct {
  unsigned version; /* serialization version whose writer to imitate (1..12) */
  const char *fun_name;
  int n_in, n_out;
  tb_aval in[6], out[4];
  int n_platforms;
  const char *platforms[4];
  int n_ordered, n_unordered;
  const char *ordered[2], *unordered[2];
  bool check_platform;
  const char *check_custom_call; /* a disabled custom_call check, or NULL */
  unsigned ccv;                  /* calling convention version */
  int n_kept;
  uint16_t kept[6];
  bool global_constants;
  uint32_t nr_devices;
  const char *module; /* the embedded module bytes */
  size_t module_len;
  bool vjp;           /* add a vjp Exported (a copy of this one without vjp) */
  const char *jax_version; /* v12 */
} tb_export;

/* Exported field ids. */
enum {
  TB_SER_VERSION, TB_FUN_NAME, TB_IN_TREE, TB_IN_AVALS, TB_OUT_TREE, TB_OUT_AVALS, TB_NR_DEVICES_SHORT,
  TB_IN_SHARDINGS, TB_OUT_SHARDINGS, TB_PLATFORMS, TB_ORDERED, TB_UNORDERED, TB_CHECKS, TB_MODULE, TB_CCV,
  TB_KEPT, TB_GLOBAL_CONSTANTS, TB_VJP, TB_NR_DEVICES, TB_UNIQUE_AVALS, TB_UNIQUE_MESHES, TB_UNIQUE_SHARDINGS,
  TB_IN_AVALS_IDXS, TB_OUT_AVALS_IDXS, TB_IN_SHARDINGS_IDXS, TB_OUT_SHARDINGS_IDXS, TB_JAX_VERSION,
};

/* PyTreeDef: kind 0 leaf, 2 tuple, 4 dict. */
static inline uint32_t tb_leaves(fbb *b, int n) {
  uint32_t kids[8];
  for (int i = 0; i < n; i++) {
    fbb_start(b);
    fbb_add_scalar(b, 0, 0, 1);
    kids[i] = fbb_end(b);
  }
  return fbb_refs(b, kids, (size_t)n);
}
/* ((*, ..., *), {}) for the arguments. */
static inline uint32_t tb_in_tree(fbb *b, int n) {
  uint32_t args_kids = tb_leaves(b, n);
  fbb_start(b);
  fbb_add_scalar(b, 0, 2, 1);
  fbb_add_ref(b, 1, args_kids);
  uint32_t args = fbb_end(b);
  fbb_start(b);
  fbb_add_scalar(b, 0, 4, 1);
  uint32_t kwargs = fbb_end(b);
  uint32_t both[2] = {args, kwargs};
  uint32_t kids = fbb_refs(b, both, 2);
  fbb_start(b);
  fbb_add_scalar(b, 0, 2, 1);
  fbb_add_ref(b, 1, kids);
  return fbb_end(b);
}
/* {'y': *} */
static inline uint32_t tb_out_tree(fbb *b) {
  uint32_t kids = tb_leaves(b, 1);
  uint32_t name = fbb_string(b, "y");
  uint32_t names = fbb_refs(b, &name, 1);
  fbb_start(b);
  fbb_add_scalar(b, 0, 4, 1);
  fbb_add_ref(b, 1, kids);
  fbb_add_ref(b, 2, names);
  return fbb_end(b);
}

static inline uint32_t tb_aval_table(fbb *b, const tb_aval *a, unsigned version) {
  uint32_t dims[4];
  for (int i = 0; i < a->rank; i++) dims[i] = fbb_string(b, a->dims[i]);
  uint32_t shape = fbb_refs(b, dims, (size_t)a->rank);
  fbb_start(b);
  fbb_add_scalar(b, 0, 0, 1);
  fbb_add_ref(b, 1, shape);
  fbb_add_scalar(b, 2, a->dtype, 1);
  if (version >= 5) fbb_add_scalar(b, 3, 1 /* Device */, 1);
  return fbb_end(b);
}
static inline uint32_t tb_avals(fbb *b, const tb_aval *a, int n, unsigned version) {
  uint32_t t[8];
  for (int i = 0; i < n; i++) t[i] = tb_aval_table(b, &a[i], version);
  return fbb_refs(b, t, (size_t)n);
}

/* AbstractMesh('x': 2, axis_types=(Explicit,)) with, from v8, an
 * AbstractDevice('cpu') that has a platform from v11. */
static inline uint32_t tb_mesh(fbb *b, unsigned version) {
  uint64_t size = 2, type = 2 /* Explicit */;
  uint32_t sizes = fbb_scalars(b, 4, &size, 1);
  uint32_t xname = fbb_string(b, "x");
  uint32_t names = fbb_refs(b, &xname, 1);
  uint32_t types = fbb_scalars(b, 1, &type, 1);
  uint32_t dev = 0;
  if (version >= 8) {
    uint32_t kind = fbb_string(b, "cpu");
    uint32_t platform = version >= 11 ? fbb_string(b, "cpu") : 0;
    fbb_start(b);
    fbb_add_ref(b, 0, kind);
    if (platform) fbb_add_ref(b, 2, platform);
    dev = fbb_end(b);
  }
  fbb_start(b);
  fbb_add_ref(b, 0, sizes);
  fbb_add_ref(b, 1, names);
  fbb_add_ref(b, 2, types);
  if (dev) fbb_add_ref(b, 3, dev);
  return fbb_end(b);
}
/* NamedSharding(mesh, P('x', None)) */
static inline uint32_t tb_named(fbb *b, unsigned version) {
  uint32_t mesh = tb_mesh(b, version);
  uint32_t x = fbb_string(b, "x");
  uint32_t xs = fbb_refs(b, &x, 1);
  fbb_start(b);
  fbb_add_ref(b, 0, xs);
  uint32_t ax0 = fbb_end(b);
  uint32_t none = fbb_refs(b, NULL, 0);
  fbb_start(b);
  fbb_add_ref(b, 0, none);
  uint32_t ax1 = fbb_end(b);
  uint32_t axes[2] = {ax0, ax1};
  uint32_t parts = fbb_refs(b, axes, 2);
  fbb_start(b);
  fbb_add_ref(b, 0, parts);
  uint32_t spec = fbb_end(b);
  fbb_start(b);
  fbb_add_ref(b, 0, mesh);
  fbb_add_ref(b, 1, spec);
  if (version >= 10) fbb_add_scalar(b, 3, 0, 4);
  return fbb_end(b);
}
/* OpSharding{type: REPLICATED} is the empty message; {type: MAXIMAL,
 * tile_assignment_devices: [0]} is 08 01 22 01 00. */
static const uint8_t tb_proto_maximal[] = {0x08, 0x01, 0x22, 0x01, 0x00};

/* Shardings as each version stored them: input 0 sharded (an OpSharding
 * before v6, a NamedSharding from v6 with the proto too until v8), the rest
 * unspecified. */
static inline uint32_t tb_shardings(fbb *b, int n, unsigned version) {
  uint32_t t[8];
  for (int i = 0; i < n; i++) {
    uint32_t proto = 0, named = 0;
    if (i == 0 && version <= 8) proto = fbb_bytes(b, tb_proto_maximal, sizeof tb_proto_maximal);
    if (i == 0 && version >= 6) named = tb_named(b, version);
    fbb_start(b);
    if (version < 9) fbb_add_scalar(b, 0, i == 0 ? (version >= 6 ? 2 : 1) : 0, 1);
    if (proto) fbb_add_ref(b, 1, proto);
    if (named) fbb_add_ref(b, 2, named);
    t[i] = fbb_end(b);
  }
  return fbb_refs(b, t, (size_t)n);
}

static inline uint32_t tb_effects(fbb *b, const char *const *names, int n) {
  uint32_t t[4];
  for (int i = 0; i < n; i++) {
    uint32_t s = fbb_string(b, names[i]);
    fbb_start(b);
    fbb_add_ref(b, 0, s);
    t[i] = fbb_end(b);
  }
  return fbb_refs(b, t, (size_t)n);
}

/* What each writer stored as serialization_version (jax serialization.py
 * history): 1; 2 from Jan 2024 through the writers of versions 3 and 4; 3
 * from Nov 2025 (versions 5 to 11); the actual number from Jul 2026. */
static inline unsigned tb_stored_version(unsigned v) { return v == 1 ? 1 : v <= 4 ? 2 : v <= 11 ? 3 : v; }

static inline uint32_t tb_exported(fbb *b, const tb_export *e, bool with_vjp) {
  unsigned v = e->version;
  uint32_t name = fbb_string(b, e->fun_name);
  uint32_t in_tree = tb_in_tree(b, e->n_in);
  uint32_t in_avals = tb_avals(b, e->in, e->n_in, v);
  uint32_t out_tree;
  if (v >= 3) {
    out_tree = tb_out_tree(b);
  } else { /* a bare leaf */
    fbb_start(b);
    fbb_add_scalar(b, 0, 0, 1);
    out_tree = fbb_end(b);
  }
  uint32_t out_avals = tb_avals(b, e->out, e->n_out, v);
  uint32_t in_sh = tb_shardings(b, e->n_in, v), out_sh = tb_shardings(b, e->n_out, v);
  uint32_t plat[4];
  for (int i = 0; i < e->n_platforms; i++) plat[i] = fbb_string(b, e->platforms[i]);
  uint32_t platforms = fbb_refs(b, plat, (size_t)e->n_platforms);
  uint32_t ordered = tb_effects(b, e->ordered, e->n_ordered);
  uint32_t unordered = tb_effects(b, e->unordered, e->n_unordered);
  uint32_t chk[2];
  int n_chk = 0;
  if (e->check_platform) {
    fbb_start(b);
    fbb_add_scalar(b, 0, 0, 1);
    chk[n_chk++] = fbb_end(b);
  }
  if (e->check_custom_call) {
    uint32_t target = fbb_string(b, e->check_custom_call);
    fbb_start(b);
    fbb_add_scalar(b, 0, 1, 1);
    fbb_add_ref(b, 1, target);
    chk[n_chk++] = fbb_end(b);
  }
  uint32_t checks = fbb_refs(b, chk, (size_t)n_chk);
  uint32_t module = fbb_bytes(b, e->module, e->module_len);
  uint64_t kept64[6];
  for (int i = 0; i < e->n_kept; i++) kept64[i] = e->kept[i];
  uint32_t kept = fbb_scalars(b, 2, kept64, (size_t)e->n_kept);
  uint32_t vjp = 0;
  if (with_vjp) vjp = tb_exported(b, e, false);
  uint32_t uniq_avals = 0, uniq_meshes = 0, uniq_sh = 0, in_idx = 0, out_idx = 0, in_sh_idx = 0, out_sh_idx = 0;
  if (v >= 10) {
    /* The test's avals are all distinct: unique_avals = in + out. */
    tb_aval all[10];
    for (int i = 0; i < e->n_in; i++) all[i] = e->in[i];
    for (int i = 0; i < e->n_out; i++) all[e->n_in + i] = e->out[i];
    uniq_avals = tb_avals(b, all, e->n_in + e->n_out, v);
    uint32_t mesh = tb_mesh(b, v);
    uniq_meshes = fbb_refs(b, &mesh, 1);
    uint32_t ns = tb_named(b, v);
    uniq_sh = fbb_refs(b, &ns, 1);
    uint64_t ii[6], oi[4], isi[6], osi[4];
    for (int i = 0; i < e->n_in; i++) ii[i] = (uint64_t)i, isi[i] = i == 0 ? 1 : 0;
    for (int i = 0; i < e->n_out; i++) oi[i] = (uint64_t)(e->n_in + i), osi[i] = i == 0 ? 1 : 0;
    in_idx = fbb_scalars(b, 4, ii, (size_t)e->n_in);
    out_idx = fbb_scalars(b, 4, oi, (size_t)e->n_out);
    in_sh_idx = fbb_scalars(b, 4, isi, (size_t)e->n_in);
    out_sh_idx = fbb_scalars(b, 4, osi, (size_t)e->n_out);
  }
  uint32_t jax_version = v >= 12 && e->jax_version ? fbb_string(b, e->jax_version) : 0;

  fbb_start(b);
  fbb_add_scalar(b, TB_SER_VERSION, tb_stored_version(v), 2);
  fbb_add_ref(b, TB_FUN_NAME, name);
  fbb_add_ref(b, TB_IN_TREE, in_tree);
  fbb_add_ref(b, TB_IN_AVALS, in_avals);
  fbb_add_ref(b, TB_OUT_TREE, out_tree);
  fbb_add_ref(b, TB_OUT_AVALS, out_avals);
  if (v <= 5) fbb_add_scalar(b, TB_NR_DEVICES_SHORT, e->nr_devices, 2);
  fbb_add_ref(b, TB_IN_SHARDINGS, in_sh);
  fbb_add_ref(b, TB_OUT_SHARDINGS, out_sh);
  fbb_add_ref(b, TB_PLATFORMS, platforms);
  fbb_add_ref(b, TB_ORDERED, ordered);
  fbb_add_ref(b, TB_UNORDERED, unordered);
  fbb_add_ref(b, TB_CHECKS, checks);
  fbb_add_ref(b, TB_MODULE, module);
  fbb_add_scalar(b, TB_CCV, e->ccv, 2);
  fbb_add_ref(b, TB_KEPT, kept);
  fbb_add_scalar(b, TB_GLOBAL_CONSTANTS, e->global_constants, 1);
  if (vjp) fbb_add_ref(b, TB_VJP, vjp);
  if (v >= 5) fbb_add_scalar(b, TB_NR_DEVICES, e->nr_devices, 4);
  if (v >= 10) {
    fbb_add_ref(b, TB_UNIQUE_AVALS, uniq_avals);
    fbb_add_ref(b, TB_UNIQUE_MESHES, uniq_meshes);
    fbb_add_ref(b, TB_UNIQUE_SHARDINGS, uniq_sh);
    fbb_add_ref(b, TB_IN_AVALS_IDXS, in_idx);
    fbb_add_ref(b, TB_OUT_AVALS_IDXS, out_idx);
    fbb_add_ref(b, TB_IN_SHARDINGS_IDXS, in_sh_idx);
    fbb_add_ref(b, TB_OUT_SHARDINGS_IDXS, out_sh_idx);
  }
  if (jax_version) fbb_add_ref(b, TB_JAX_VERSION, jax_version);
  return fbb_end(b);
}

/* The whole envelope in a malloc'd buffer. */
static inline uint8_t *tb_envelope(const tb_export *e, size_t *len) {
  fbb b;
  fbb_init(&b);
  uint32_t root = tb_exported(&b, e, e->vjp);
  const uint8_t *p = fbb_finish(&b, root, len);
  uint8_t *out = malloc(*len);
  memcpy(out, p, *len);
  fbb_free(&b);
  return out;
}

#endif
