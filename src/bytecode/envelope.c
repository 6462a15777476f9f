/* Decoding jax.export envelopes: the Exported table of jax-ml/jax
 * jax/_src/export/serialization.fbs, every serialization version (1..12).
 *
 * Field ids never changed across versions (fields were only appended or
 * renamed), so one reader serves all; what differs is where a value lives:
 * avals inline (in_avals) or deduplicated (unique_avals + in_avals_idxs,
 * v10), shardings as OpSharding protos (v1..8), inline NamedShardings (v6..9)
 * or 1-based indices into unique_named_shardings (v10), the device count in
 * the 16-bit nr_devices_short (v1..4) or the 32-bit nr_devices (v5).  As
 * JAX's reader does, the newer location wins when present. */
#include "envelope.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flatbuf.h"

/* Field ids of table Exported. */
enum {
  EX_SERIALIZATION_VERSION,
  EX_FUNCTION_NAME,
  EX_IN_TREE,
  EX_IN_AVALS,
  EX_OUT_TREE,
  EX_OUT_AVALS,
  EX_NR_DEVICES_SHORT,
  EX_IN_SHARDINGS,
  EX_OUT_SHARDINGS,
  EX_PLATFORMS,
  EX_ORDERED_EFFECTS,
  EX_UNORDERED_EFFECTS,
  EX_DISABLED_CHECKS,
  EX_MLIR_MODULE_SERIALIZED,
  EX_CALLING_CONVENTION_VERSION,
  EX_MODULE_KEPT_VAR_IDX,
  EX_USES_GLOBAL_CONSTANTS,
  EX_VJP,
  EX_NR_DEVICES,
  EX_UNIQUE_AVALS,
  EX_UNIQUE_ABSTRACT_MESHES,
  EX_UNIQUE_NAMED_SHARDINGS,
  EX_IN_AVALS_IDXS,
  EX_OUT_AVALS_IDXS,
  EX_IN_SHARDINGS_IDXS,
  EX_OUT_SHARDINGS_IDXS,
  EX_JAX_VERSION,
};

/* enum DType, by value (serialization.fbs), with the version that added it. */
static const struct {
  const char *name;
  unsigned since;
} dtypes[] = {
    {"bool", 1},          {"i8", 1},          {"i16", 1},         {"i32", 1},           {"i64", 1},
    {"ui8", 1},           {"ui16", 1},        {"ui32", 1},        {"ui64", 1},          {"f16", 1},
    {"f32", 1},           {"f64", 1},         {"c64", 1},         {"c128", 1},          {"bf16", 1},
    {"i4", 1},            {"ui4", 1},         {"f8_e4m3b11fnuz", 1}, {"f8_e4m3fn", 1},  {"f8_e4m3fnuz", 1},
    {"f8_e5m2", 1},       {"f8_e5m2fnuz", 1}, {"f0", 2},          {"f8_e4m3", 3},       {"f8_e3m4", 3},
    {"f8_e8m0fnu", 3},    {"f4_e2m1fn", 3},   {"key<fry>", 4},    {"key<rbg>", 4},      {"key<unsafe_rbg>", 4},
};
static const char *const memory_spaces[] = {NULL, "device", "host", "any"};
static const char *const axis_types[] = {"Missing", "Auto", "Explicit", "Manual"};

#define MAX_TREE_DEPTH 128 /* pytree nesting; Python's own recursion limit is ~1000 */
#define MAX_VJP_DEPTH 16   /* vjp of vjp of ...: JAX writes as many as vjp_order */

typedef struct {
  fb_buf b;
  shl_arena *a;
  size_t text_left; /* bytes of copied and rendered text still allowed */
  unsigned schema;  /* oldest schema version with every field seen */
} dec;

/* Text rendered for the readable fields (pytrees, shardings). */
typedef struct {
  char *p;
  size_t n, cap;
  bool oom;
} sbuf;

static void sb_put(sbuf *s, const char *p, size_t n) {
  if (s->oom) return;
  if (s->n + n + 1 > s->cap) {
    size_t cap = s->cap ? s->cap : 64;
    while (cap < s->n + n + 1) cap *= 2;
    char *np = realloc(s->p, cap);
    if (!np) {
      s->oom = true;
      return;
    }
    s->p = np;
    s->cap = cap;
  }
  memcpy(s->p + s->n, p, n);
  s->n += n;
  s->p[s->n] = 0;
}
static void sb_str(sbuf *s, const char *p) { sb_put(s, p, strlen(p)); }
static void sb_printf(sbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *s, const char *fmt, ...) {
  char tmp[64];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n > 0) sb_put(s, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}
/* A Python-style quoted string: 'x' with ' and \ and non-printables escaped. */
static void sb_quoted(sbuf *s, shl_str v) {
  sb_put(s, "'", 1);
  for (size_t i = 0; i < v.n; i++) {
    unsigned char c = (unsigned char)v.p[i];
    if (c == '\'' || c == '\\') sb_printf(s, "\\%c", c);
    else if (c < 0x20 || c == 0x7f) sb_printf(s, "\\x%02x", c);
    else sb_put(s, (const char *)&c, 1);
  }
  sb_put(s, "'", 1);
}

static void need(dec *d, unsigned version) {
  if (version > d->schema) d->schema = version;
}

/* Charges text to the budget: shared strings could otherwise expand a small
 * buffer into gigabytes of copies. */
static shl_status charge_text(dec *d, size_t n, size_t off) {
  if (n > d->text_left) return fb_error(&d->b, off, "decoded text would exceed %zu bytes (shared strings?)", 4 * d->b.n + 65536);
  d->text_left -= n;
  return NULL;
}

static shl_status copy_str(dec *d, shl_str s, const char **out) {
  ST_TRY(charge_text(d, s.n + 1, (size_t)((const uint8_t *)s.p - d->b.p)));
  char *c = arena_strndup(d->a, s.p, s.n);
  if (!c) return st_oom();
  *out = c;
  return NULL;
}

/* Moves rendered text into the arena. */
static shl_status keep_text(dec *d, sbuf *s, size_t off, const char **out) {
  shl_status st = s->oom ? st_oom() : charge_text(d, s->n + 1, off);
  if (!st) {
    char *c = arena_strndup(d->a, s->p ? s->p : "", s->n);
    if (c) *out = c;
    else st = st_oom();
  }
  free(s->p);
  *s = (sbuf){0};
  return st;
}

static shl_status field_u(const fb_table *t, unsigned id, unsigned size, uint64_t *v) {
  return fb_scalar(t, id, size, 0, v);
}

/* A vector of strings copied into a NULL-free array. */
static shl_status string_vec(dec *d, const fb_table *t, unsigned id, size_t *n, const char *const **out) {
  fb_vec v;
  ST_TRY(fb_vector_field(t, id, 4, &v, NULL));
  const char **arr = ARENA_ARRAY(d->a, const char *, v.n ? v.n : 1);
  if (!arr) return st_oom();
  for (uint32_t i = 0; i < v.n; i++) {
    shl_str s;
    ST_TRY(fb_vec_string(&v, i, &s));
    ST_TRY(copy_str(d, s, &arr[i]));
  }
  *n = v.n;
  *out = arr;
  return NULL;
}

/* ---- pytrees ---------------------------------------------------------- */

/* PyTreeDef { kind, children, children_names, custom_name, custom_auxdata }
 * rendered like JAX's PyTreeDef repr without the wrapper: * for a leaf. */
static shl_status render_tree(dec *d, const fb_table *t, unsigned depth, sbuf *s) {
  if (depth > MAX_TREE_DEPTH) return fb_error(&d->b, t->pos, "pytree nested deeper than %d", MAX_TREE_DEPTH);
  uint64_t kind;
  fb_vec kids, names;
  ST_TRY(field_u(t, 0, 1, &kind));
  ST_TRY(fb_vector_field(t, 1, 4, &kids, NULL));
  ST_TRY(fb_vector_field(t, 2, 4, &names, NULL));
  if (s->n > d->text_left) return fb_error(&d->b, t->pos, "pytree text would exceed %zu bytes", 4 * d->b.n + 65536);
  const char *open = "(", *close = ")";
  switch (kind) {
    case 0: sb_str(s, "*"); return NULL;
    case 1: sb_str(s, "None"); return NULL;
    case 2: break;
    case 3: open = "["; close = "]"; break;
    case 4:
      if (names.n != kids.n)
        return fb_error(&d->b, t->pos, "dict pytree has %u children but %u names", kids.n, names.n);
      open = "{"; close = "}";
      break;
    case 5: {
      shl_str name;
      fb_vec aux;
      ST_TRY(fb_string_field(t, 3, &name, NULL));
      ST_TRY(fb_vector_field(t, 4, 1, &aux, NULL));
      need(d, 3);
      sb_str(s, "CustomNode(");
      sb_put(s, name.p, name.n);
      sb_printf(s, "[%u bytes], [", aux.n);
      close = "])";
      open = "";
      break;
    }
    default: return fb_error(&d->b, t->pos, "unknown pytree kind %u", (unsigned)kind);
  }
  sb_str(s, open);
  for (uint32_t i = 0; i < kids.n; i++) {
    fb_table kid;
    if (i) sb_str(s, ", ");
    if (kind == 4) {
      shl_str key;
      ST_TRY(fb_vec_string(&names, i, &key));
      sb_quoted(s, key);
      sb_str(s, ": ");
    }
    ST_TRY(fb_vec_table(&kids, i, &kid));
    ST_TRY(render_tree(d, &kid, depth + 1, s));
  }
  if (kind == 2 && kids.n == 1) sb_str(s, ",");
  sb_str(s, close);
  return NULL;
}

static shl_status tree_field(dec *d, const fb_table *ex, unsigned id, const char **out) {
  fb_table t;
  bool present;
  *out = "";
  ST_TRY(fb_table_field(ex, id, &t, &present));
  if (!present) return NULL;
  sbuf s = {0};
  shl_status st = render_tree(d, &t, 0, &s);
  if (st) {
    free(s.p);
    return st;
  }
  return keep_text(d, &s, t.pos, out);
}

/* ---- avals ------------------------------------------------------------ */

/* AbstractValue { kind, shape: [string], dtype, memory_space } */
static shl_status decode_aval(dec *d, const fb_table *t, shloc_jax_aval *out) {
  uint64_t kind, dt, ms;
  ST_TRY(field_u(t, 0, 1, &kind));
  ST_TRY(field_u(t, 2, 1, &dt));
  ST_TRY(field_u(t, 3, 1, &ms));
  if (kind != 0) return fb_error(&d->b, t->pos, "abstract value of kind %u (only shaped arrays are exported)", (unsigned)kind);
  if (dt >= sizeof dtypes / sizeof dtypes[0]) return fb_error(&d->b, t->pos, "unknown dtype %u", (unsigned)dt);
  if (ms >= sizeof memory_spaces / sizeof memory_spaces[0])
    return fb_error(&d->b, t->pos, "unknown memory space %u", (unsigned)ms);
  out->dtype = dtypes[dt].name;
  need(d, dtypes[dt].since);
  out->memory_space = memory_spaces[ms];
  if (fb_has(t, 3)) need(d, 5);
  return string_vec(d, t, 1, &out->rank, &out->dims);
}

static shl_status aval_vec(dec *d, const fb_table *ex, unsigned id, size_t *n, shloc_jax_aval **out) {
  fb_vec v;
  ST_TRY(fb_vector_field(ex, id, 4, &v, NULL));
  shloc_jax_aval *arr = ARENA_ARRAY(d->a, shloc_jax_aval, v.n ? v.n : 1);
  if (!arr) return st_oom();
  for (uint32_t i = 0; i < v.n; i++) {
    fb_table t;
    ST_TRY(fb_vec_table(&v, i, &t));
    ST_TRY(decode_aval(d, &t, &arr[i]));
  }
  *n = v.n;
  *out = arr;
  return NULL;
}

/* Avals by index into unique_avals (v10) when the index vector exists. */
static shl_status avals(dec *d, const fb_table *ex, unsigned inline_id, unsigned idx_id, const shloc_jax_aval *uniq,
                        size_t n_uniq, size_t *n, const shloc_jax_aval **out) {
  fb_vec idx;
  bool has_idx;
  ST_TRY(fb_vector_field(ex, idx_id, 4, &idx, &has_idx));
  if (!has_idx || idx.n == 0) {
    shloc_jax_aval *v;
    ST_TRY(aval_vec(d, ex, inline_id, n, &v));
    *out = v;
    return NULL;
  }
  need(d, 10);
  ST_TRY(fb_visit(&d->b, idx.n, idx.pos));
  shloc_jax_aval *arr = ARENA_ARRAY(d->a, shloc_jax_aval, idx.n);
  if (!arr) return st_oom();
  for (uint32_t i = 0; i < idx.n; i++) {
    uint64_t k = fb_vec_scalar(&idx, i);
    if (k >= n_uniq) return fb_error(&d->b, idx.pos + 4 * i, "aval index %llu out of %zu unique avals", (unsigned long long)k, n_uniq);
    arr[i] = uniq[k];
  }
  *n = idx.n;
  *out = arr;
  return NULL;
}

/* ---- OpSharding protos ------------------------------------------------
 * xla.OpSharding (xla/xla_data.proto): 1 type, 3 tile_assignment_dimensions,
 * 4 tile_assignment_devices, 5 tuple_shardings, 6 replicate_on_last_tile_dim,
 * 8 last_tile_dims, 9 iota_reshape_dims, 10 iota_transpose_perm; rendered as
 * XLA's HloSharding::ToString does.  The proto is kept as stored either way;
 * what does not decode is shown as "{proto: N bytes}". */

typedef struct {
  const uint8_t *p, *end;
} pb;

static bool pb_varint(pb *r, uint64_t *v) {
  *v = 0;
  for (int shift = 0; shift < 64 && r->p < r->end; shift += 7) {
    uint8_t b = *r->p++;
    *v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

/* Devices per sharding rendered (more shows as an undecoded proto); the five
 * lists of one level stay under malloc's mmap threshold. */
#define PB_MAX_INTS 2048

typedef struct {
  int64_t v[PB_MAX_INTS];
  size_t n;
} pb_ints;

/* A repeated integer field, packed (wire type 2) or not (0). */
static bool pb_ints_add(pb *r, unsigned wire, pb_ints *out) {
  uint64_t v, len;
  if (wire == 0) {
    if (!pb_varint(r, &v) || out->n == PB_MAX_INTS) return false;
    out->v[out->n++] = (int64_t)v;
    return true;
  }
  if (wire != 2 || !pb_varint(r, &len) || len > (uint64_t)(r->end - r->p)) return false;
  pb sub = {r->p, r->p + len};
  r->p += len;
  while (sub.p < sub.end)
    if (!pb_varint(&sub, &v) || out->n == PB_MAX_INTS) return false;
    else out->v[out->n++] = (int64_t)v;
  return true;
}

static bool pb_skip(pb *r, unsigned wire) {
  uint64_t v;
  switch (wire) {
    case 0: return pb_varint(r, &v);
    case 1: return (r->end - r->p >= 8) && (r->p += 8);
    case 2: return pb_varint(r, &v) && v <= (uint64_t)(r->end - r->p) && (r->p += v, true);
    case 5: return (r->end - r->p >= 4) && (r->p += 4);
    default: return false;
  }
}

static void sb_ints(sbuf *s, const pb_ints *v, const char *sep) {
  for (size_t i = 0; i < v->n; i++) sb_printf(s, "%s%lld", i ? sep : "", (long long)v->v[i]);
}

static bool render_op_sharding(sbuf *s, const uint8_t *p, size_t n, int depth) {
  static const char *const types[] = {"replicated", "maximal", "tuple", "other", "manual", "unknown", "unreduced"};
  pb r = {p, p + n};
  uint64_t type = 0, key, v;
  bool last_replicate = false;
  pb_ints *ints = calloc(5, sizeof *ints); /* dims, devices, last_tile_dims, iota dims, perm */
  if (!ints) return false;
  pb_ints *dims = &ints[0], *devs = &ints[1], *last = &ints[2], *iota = &ints[3], *perm = &ints[4];
  sbuf tuple = {0};
  bool ok = depth < 8;
  while (ok && r.p < r.end) {
    ok = pb_varint(&r, &key);
    unsigned field = (unsigned)(key >> 3), wire = (unsigned)(key & 7);
    if (!ok) break;
    if (field == 1 && wire == 0) ok = pb_varint(&r, &type);
    else if (field == 3) ok = pb_ints_add(&r, wire, dims);
    else if (field == 4) ok = pb_ints_add(&r, wire, devs);
    else if (field == 8) ok = pb_ints_add(&r, wire, last);
    else if (field == 9) ok = pb_ints_add(&r, wire, iota);
    else if (field == 10) ok = pb_ints_add(&r, wire, perm);
    else if (field == 6 && wire == 0) ok = pb_varint(&r, &v), last_replicate = v != 0;
    else if (field == 5 && wire == 2) {
      ok = pb_varint(&r, &v) && v <= (uint64_t)(r.end - r.p);
      if (ok) {
        sb_str(&tuple, tuple.n ? ", " : "");
        ok = render_op_sharding(&tuple, r.p, (size_t)v, depth + 1);
        r.p += v;
      }
    } else ok = pb_skip(&r, wire);
  }
  if (ok && type < sizeof types / sizeof types[0]) {
    if (type == 2) {
      sb_str(s, "{");
      if (tuple.p) sb_str(s, tuple.p);
      sb_str(s, "}");
    } else if (type == 1) {
      sb_printf(s, "{maximal device=%lld}", devs->n ? (long long)devs->v[0] : 0LL);
    } else if (type != 3) {
      sb_printf(s, "{%s}", types[type]);
    } else {
      sb_str(s, "{devices=[");
      sb_ints(s, dims, ",");
      sb_str(s, "]");
      if (iota->n) {
        sb_str(s, "<=[");
        sb_ints(s, iota, ",");
        sb_str(s, "]");
        bool identity = true;
        for (size_t i = 0; i < perm->n; i++) identity = identity && perm->v[i] == (int64_t)i;
        if (!identity) {
          sb_str(s, "T(");
          sb_ints(s, perm, ",");
          sb_str(s, ")");
        }
      } else {
        sb_ints(s, devs, ",");
      }
      if (last_replicate) sb_str(s, " last_tile_dim_replicate");
      if (last->n) {
        sb_str(s, " last_tile_dims={");
        for (size_t i = 0; i < last->n; i++)
          sb_printf(s, "%s%s", i ? ", " : "", (uint64_t)last->v[i] < 7 ? types[last->v[i]] : "?");
        sb_str(s, "}");
      }
      sb_str(s, "}");
    }
  }
  free(tuple.p);
  free(ints);
  return ok && type < sizeof types / sizeof types[0];
}

/* ---- shardings -------------------------------------------------------- */

/* AbstractMesh { axis_sizes: [u32], axis_names: [string], axis_types: [AxisType],
 * abstract_device: AbstractDevice { device_kind, num_cores = null, platform } }
 * rendered as AbstractMesh('x': 2, 'y': 4, axis_types=(Explicit, Auto), device_kind='cpu', ...). */
static shl_status render_mesh(dec *d, const fb_table *m, sbuf *s) {
  fb_vec sizes, names, types;
  ST_TRY(fb_vector_field(m, 0, 4, &sizes, NULL));
  ST_TRY(fb_vector_field(m, 1, 4, &names, NULL));
  ST_TRY(fb_vector_field(m, 2, 1, &types, NULL));
  if (sizes.n != names.n || (types.n && types.n != names.n))
    return fb_error(&d->b, m->pos, "mesh has %u axis sizes, %u names and %u types", sizes.n, names.n, types.n);
  ST_TRY(fb_visit(&d->b, sizes.n + types.n, m->pos));
  sb_str(s, "AbstractMesh(");
  for (uint32_t i = 0; i < names.n; i++) {
    shl_str name;
    ST_TRY(fb_vec_string(&names, i, &name));
    if (i) sb_str(s, ", ");
    sb_quoted(s, name);
    sb_printf(s, ": %llu", (unsigned long long)fb_vec_scalar(&sizes, i));
  }
  if (types.n) {
    sb_str(s, names.n ? ", axis_types=(" : "axis_types=(");
    for (uint32_t i = 0; i < types.n; i++) {
      uint64_t ty = fb_vec_scalar(&types, i);
      if (ty >= sizeof axis_types / sizeof axis_types[0]) return fb_error(&d->b, types.pos + i, "unknown axis type %u", (unsigned)ty);
      sb_printf(s, "%s%s", i ? ", " : "", axis_types[ty]);
    }
    sb_str(s, types.n == 1 ? ",)" : ")");
  }
  fb_table dev;
  bool has_dev;
  ST_TRY(fb_table_field(m, 3, &dev, &has_dev));
  if (has_dev) {
    shl_str kind, platform;
    bool has_platform;
    uint64_t cores;
    need(d, 8);
    ST_TRY(fb_string_field(&dev, 0, &kind, NULL));
    ST_TRY(fb_string_field(&dev, 2, &platform, &has_platform));
    ST_TRY(field_u(&dev, 1, 4, &cores));
    sb_str(s, ", device_kind=");
    sb_quoted(s, kind);
    if (fb_has(&dev, 1)) sb_printf(s, ", num_cores=%llu", (unsigned long long)cores);
    if (has_platform) {
      need(d, 11);
      sb_str(s, ", platform=");
      sb_quoted(s, platform);
    }
  }
  sb_str(s, ")");
  return NULL;
}

/* A vector of strings as 'a', 'b'. */
static shl_status render_names(const fb_vec *v, sbuf *s) {
  for (uint32_t i = 0; i < v->n; i++) {
    shl_str x;
    ST_TRY(fb_vec_string(v, i, &x));
    if (i) sb_str(s, ", ");
    sb_quoted(s, x);
  }
  return NULL;
}

/* PartitionSpec { partitions: [PartitionSpecOneAxis { axes: [string] }], reduced, unreduced }
 * rendered as P('x', None, ('x', 'y'), reduced={'z'}). */
static shl_status render_spec(dec *d, const fb_table *p, sbuf *s) {
  fb_vec parts, reduced, unreduced;
  ST_TRY(fb_vector_field(p, 0, 4, &parts, NULL));
  ST_TRY(fb_vector_field(p, 1, 4, &reduced, NULL));
  ST_TRY(fb_vector_field(p, 2, 4, &unreduced, NULL));
  sb_str(s, "P(");
  for (uint32_t i = 0; i < parts.n; i++) {
    fb_table one;
    fb_vec axes;
    ST_TRY(fb_vec_table(&parts, i, &one));
    ST_TRY(fb_vector_field(&one, 0, 4, &axes, NULL));
    if (i) sb_str(s, ", ");
    if (axes.n == 0) sb_str(s, "None");
    if (axes.n > 1) sb_str(s, "(");
    ST_TRY(render_names(&axes, s));
    if (axes.n > 1) sb_str(s, ")");
  }
  const fb_vec *sets[2] = {&reduced, &unreduced};
  for (int k = 0; k < 2; k++) {
    if (!sets[k]->n) continue;
    sb_str(s, parts.n || k ? ", " : "");
    sb_str(s, k ? "unreduced={" : "reduced={");
    ST_TRY(render_names(sets[k], s));
    sb_str(s, "}");
  }
  sb_str(s, ")");
  (void)d;
  return NULL;
}

/* The deduplicated tables of v10: NamedSharding.abstract_mesh_idx refers to
 * the meshes; the shardings' texts are rendered once each and shared. */
typedef struct {
  fb_vec meshes;
  bool present;
  fb_vec shardings;
  const char **texts; /* per unique sharding, NULL until rendered */
} mesh_table;

/* NamedSharding { mesh, spec, memory_kind, abstract_mesh_idx } */
static shl_status render_named(dec *d, const fb_table *ns, const mesh_table *mt, sbuf *s) {
  fb_table mesh, spec;
  bool has_mesh, has_spec, has_kind;
  shl_str kind;
  uint64_t idx;
  need(d, 6);
  ST_TRY(field_u(ns, 3, 4, &idx));
  if (mt->present && mt->meshes.n) {
    if (idx >= mt->meshes.n)
      return fb_error(&d->b, ns->pos, "abstract mesh index %llu out of %u unique meshes", (unsigned long long)idx, mt->meshes.n);
    ST_TRY(fb_vec_table(&mt->meshes, (uint32_t)idx, &mesh));
    has_mesh = true;
  } else {
    ST_TRY(fb_table_field(ns, 0, &mesh, &has_mesh));
  }
  ST_TRY(fb_table_field(ns, 1, &spec, &has_spec));
  ST_TRY(fb_string_field(ns, 2, &kind, &has_kind));
  sb_str(s, "NamedSharding(mesh=");
  if (has_mesh) ST_TRY(render_mesh(d, &mesh, s));
  else sb_str(s, "None");
  sb_str(s, ", spec=");
  if (has_spec) ST_TRY(render_spec(d, &spec, s));
  else sb_str(s, "P()");
  if (has_kind) {
    sb_str(s, ", memory_kind=");
    sb_put(s, kind.p, kind.n);
  }
  sb_str(s, ")");
  return NULL;
}

static shl_status named_sharding(dec *d, const fb_table *ns, const mesh_table *mt, shloc_jax_sharding *out) {
  sbuf s = {0};
  shl_status st = render_named(d, ns, mt, &s);
  if (st) {
    free(s.p);
    return st;
  }
  out->kind = SHLOC_JAX_SHARDING_NAMED;
  return keep_text(d, &s, ns->pos, &out->text);
}

/* Sharding { kind, hlo_sharding_proto: [byte], named_sharding }: a named
 * sharding wins, then a proto, else unspecified (JAX's reader). */
static shl_status decode_sharding(dec *d, const fb_table *t, const mesh_table *mt, shloc_jax_sharding *out) {
  fb_table ns;
  fb_vec proto;
  bool has_ns, has_proto;
  uint64_t kind;
  *out = (shloc_jax_sharding){.kind = SHLOC_JAX_SHARDING_UNSPECIFIED, .text = "unspecified"};
  ST_TRY(field_u(t, 0, 1, &kind));
  ST_TRY(fb_table_field(t, 2, &ns, &has_ns));
  ST_TRY(fb_vector_field(t, 1, 1, &proto, &has_proto));
  if (kind > 2) return fb_error(&d->b, t->pos, "unknown sharding kind %u", (unsigned)kind);
  if (has_ns) return named_sharding(d, &ns, mt, out);
  if (kind != 1 && !has_proto) return NULL;
  ST_TRY(charge_text(d, proto.n, proto.pos));
  /* An empty proto (REPLICATED) may end the buffer: copy nothing then. */
  uint8_t *bytes = proto.n ? arena_memdup(d->a, fb_vec_data(&proto), proto.n) : arena_alloc(d->a, 1);
  if (!bytes) return st_oom();
  *out = (shloc_jax_sharding){SHLOC_JAX_SHARDING_HLO, bytes, proto.n, NULL};
  sbuf text = {0};
  if (!render_op_sharding(&text, bytes, proto.n, 0)) {
    text.n = 0;
    sb_printf(&text, "{proto: %u bytes}", proto.n);
  }
  return keep_text(d, &text, proto.pos, &out->text);
}

/* in_shardings (inline) or, from v10, indices into unique_named_shardings
 * (1-based; 0 = unspecified). */
static shl_status shardings(dec *d, const fb_table *ex, unsigned inline_id, unsigned idx_id, mesh_table *mt,
                            size_t *n, const shloc_jax_sharding **out) {
  const fb_vec *uniq = &mt->shardings;
  fb_vec v, idx;
  bool has_idx;
  ST_TRY(fb_vector_field(ex, idx_id, 4, &idx, &has_idx));
  bool by_idx = has_idx && idx.n;
  if (by_idx) need(d, 10);
  else ST_TRY(fb_vector_field(ex, inline_id, 4, &v, NULL));
  uint32_t count = by_idx ? idx.n : v.n;
  shloc_jax_sharding *arr = ARENA_ARRAY(d->a, shloc_jax_sharding, count ? count : 1);
  if (!arr) return st_oom();
  for (uint32_t i = 0; i < count; i++) {
    fb_table t;
    if (!by_idx) {
      ST_TRY(fb_vec_table(&v, i, &t));
      ST_TRY(decode_sharding(d, &t, mt, &arr[i]));
      continue;
    }
    uint64_t k = fb_vec_scalar(&idx, i);
    arr[i] = (shloc_jax_sharding){.kind = SHLOC_JAX_SHARDING_UNSPECIFIED, .text = "unspecified"};
    ST_TRY(fb_visit(&d->b, 1, idx.pos + 4 * i));
    if (k == 0) continue;
    if (k > uniq->n)
      return fb_error(&d->b, idx.pos + 4 * i, "sharding index %llu out of %u unique shardings", (unsigned long long)k, uniq->n);
    if (!mt->texts && !(mt->texts = ARENA_ARRAY(d->a, const char *, uniq->n))) return st_oom();
    if (!mt->texts[k - 1]) {
      ST_TRY(fb_vec_table(uniq, (uint32_t)(k - 1), &t));
      ST_TRY(named_sharding(d, &t, mt, &arr[i]));
      mt->texts[k - 1] = arr[i].text;
    }
    arr[i] = (shloc_jax_sharding){.kind = SHLOC_JAX_SHARDING_NAMED, .text = mt->texts[k - 1]};
  }
  *n = count;
  *out = arr;
  return NULL;
}

/* ---- effects and checks ----------------------------------------------- */

/* Effect { type_name } */
static shl_status effects(dec *d, const fb_table *ex, unsigned id, size_t *n, const char *const **out) {
  fb_vec v;
  ST_TRY(fb_vector_field(ex, id, 4, &v, NULL));
  const char **arr = ARENA_ARRAY(d->a, const char *, v.n ? v.n : 1);
  if (!arr) return st_oom();
  for (uint32_t i = 0; i < v.n; i++) {
    fb_table t;
    shl_str name;
    ST_TRY(fb_vec_table(&v, i, &t));
    ST_TRY(fb_string_field(&t, 0, &name, NULL));
    ST_TRY(copy_str(d, name, &arr[i]));
  }
  *n = v.n;
  *out = arr;
  return NULL;
}

/* DisabledSafetyCheck { kind: platform | custom_call | shape_assertions, custom_call_target } */
static shl_status checks(dec *d, const fb_table *ex, size_t *n, const char *const **out) {
  static const char *const kinds[] = {"platform", "custom_call", "shape_assertions"};
  fb_vec v;
  ST_TRY(fb_vector_field(ex, EX_DISABLED_CHECKS, 4, &v, NULL));
  const char **arr = ARENA_ARRAY(d->a, const char *, v.n ? v.n : 1);
  if (!arr) return st_oom();
  for (uint32_t i = 0; i < v.n; i++) {
    fb_table t;
    uint64_t kind;
    shl_str target;
    ST_TRY(fb_vec_table(&v, i, &t));
    ST_TRY(field_u(&t, 0, 1, &kind));
    ST_TRY(fb_string_field(&t, 1, &target, NULL));
    if (kind > 2) return fb_error(&d->b, t.pos, "unknown disabled safety check kind %u", (unsigned)kind);
    sbuf s = {0};
    sb_str(&s, kinds[kind]);
    if (kind == 1) {
      sb_str(&s, ":");
      sb_put(&s, target.p, target.n);
    }
    ST_TRY(keep_text(d, &s, t.pos, &arr[i]));
  }
  *n = v.n;
  *out = arr;
  return NULL;
}

/* ---- Exported --------------------------------------------------------- */

static shl_status decode_exported(dec *d, const fb_table *ex, unsigned depth, shloc_jax_export *e) {
  uint64_t v;
  bool has;
  shl_str s;
  unsigned outer = d->schema; /* a vjp has its own schema version */
  d->schema = 1;
  ST_TRY(field_u(ex, EX_SERIALIZATION_VERSION, 2, &v));
  e->serialization_version = (unsigned)v;
  ST_TRY(fb_string_field(ex, EX_FUNCTION_NAME, &s, NULL));
  ST_TRY(copy_str(d, s, &e->function_name));
  ST_TRY(fb_string_field(ex, EX_JAX_VERSION, &s, &has));
  if (has) {
    need(d, 12);
    ST_TRY(copy_str(d, s, &e->jax_version));
  }
  ST_TRY(tree_field(d, ex, EX_IN_TREE, &e->in_tree));
  ST_TRY(tree_field(d, ex, EX_OUT_TREE, &e->out_tree));

  shloc_jax_aval *uniq;
  size_t n_uniq;
  ST_TRY(aval_vec(d, ex, EX_UNIQUE_AVALS, &n_uniq, &uniq));
  ST_TRY(avals(d, ex, EX_IN_AVALS, EX_IN_AVALS_IDXS, uniq, n_uniq, &e->n_in, &e->in_avals));
  ST_TRY(avals(d, ex, EX_OUT_AVALS, EX_OUT_AVALS_IDXS, uniq, n_uniq, &e->n_out, &e->out_avals));

  mesh_table mt = {.texts = NULL};
  ST_TRY(fb_vector_field(ex, EX_UNIQUE_ABSTRACT_MESHES, 4, &mt.meshes, &mt.present));
  ST_TRY(fb_vector_field(ex, EX_UNIQUE_NAMED_SHARDINGS, 4, &mt.shardings, NULL));
  ST_TRY(shardings(d, ex, EX_IN_SHARDINGS, EX_IN_SHARDINGS_IDXS, &mt, &e->n_in_shardings, &e->in_shardings));
  ST_TRY(shardings(d, ex, EX_OUT_SHARDINGS, EX_OUT_SHARDINGS_IDXS, &mt, &e->n_out_shardings, &e->out_shardings));
  if (e->n_in_shardings && e->n_in_shardings != e->n_in)
    return fb_error(&d->b, ex->pos, "%zu input shardings for %zu inputs", e->n_in_shardings, e->n_in);
  if (e->n_out_shardings && e->n_out_shardings != e->n_out)
    return fb_error(&d->b, ex->pos, "%zu output shardings for %zu outputs", e->n_out_shardings, e->n_out);

  ST_TRY(string_vec(d, ex, EX_PLATFORMS, &e->n_platforms, &e->platforms));
  ST_TRY(effects(d, ex, EX_ORDERED_EFFECTS, &e->n_ordered_effects, &e->ordered_effects));
  ST_TRY(effects(d, ex, EX_UNORDERED_EFFECTS, &e->n_unordered_effects, &e->unordered_effects));
  ST_TRY(checks(d, ex, &e->n_disabled_checks, &e->disabled_checks));

  fb_vec mod;
  ST_TRY(fb_vector_field(ex, EX_MLIR_MODULE_SERIALIZED, 1, &mod, &has));
  if (!has) return fb_error(&d->b, ex->pos, "the Exported table has no mlir_module_serialized");
  e->module_offset = mod.pos;
  e->module_len = mod.n;
  ST_TRY(field_u(ex, EX_CALLING_CONVENTION_VERSION, 2, &v));
  e->calling_convention_version = (unsigned)v;

  fb_vec kept;
  ST_TRY(fb_vector_field(ex, EX_MODULE_KEPT_VAR_IDX, 2, &kept, NULL));
  ST_TRY(fb_visit(&d->b, kept.n, kept.pos));
  uint32_t *k = ARENA_ARRAY(d->a, uint32_t, kept.n ? kept.n : 1);
  if (!k) return st_oom();
  for (uint32_t i = 0; i < kept.n; i++) {
    k[i] = (uint32_t)fb_vec_scalar(&kept, i);
    if (k[i] >= e->n_in || (i && k[i] <= k[i - 1]))
      return fb_error(&d->b, kept.pos + 2 * i, "module_kept_var_idx[%u] = %u is not a sorted index into %zu inputs", i,
                      k[i], e->n_in);
  }
  e->n_kept = kept.n;
  e->module_kept_var_idx = k;
  ST_TRY(field_u(ex, EX_USES_GLOBAL_CONSTANTS, 1, &v));
  e->uses_global_constants = v != 0;

  ST_TRY(field_u(ex, EX_NR_DEVICES, 4, &v));
  if (fb_has(ex, EX_NR_DEVICES)) need(d, 5);
  if (!v) {
    uint64_t short_v;
    ST_TRY(field_u(ex, EX_NR_DEVICES_SHORT, 2, &short_v));
    v = (int16_t)short_v < 0 ? 0 : short_v;
  }
  e->nr_devices = (uint32_t)v;

  fb_table vjp;
  ST_TRY(fb_table_field(ex, EX_VJP, &vjp, &has));
  if (has) {
    if (depth >= MAX_VJP_DEPTH) return fb_error(&d->b, vjp.pos, "vjp nested deeper than %d", MAX_VJP_DEPTH);
    shloc_jax_export *sub = ARENA_NEW(d->a, shloc_jax_export);
    if (!sub) return st_oom();
    ST_TRY(decode_exported(d, &vjp, depth + 1, sub));
    e->vjp = sub;
    need(d, sub->schema_version);
  }
  e->schema_version = d->schema;
  need(d, outer);
  return NULL;
}

shl_status envelope_decode(shl_arena *a, const void *data, size_t len, const char *file, shloc_jax_export **out) {
  *out = NULL;
  dec d = {.a = a, .text_left = 4 * len + 65536, .schema = 1};
  fb_table root;
  ST_TRY(fb_init(&d.b, data, len, file, "jax.export envelope"));
  ST_TRY(fb_root(&d.b, &root));
  shloc_jax_export *e = ARENA_NEW(a, shloc_jax_export);
  if (!e) return st_oom();
  ST_TRY(decode_exported(&d, &root, 0, e));
  *out = e;
  return NULL;
}

envelope_kind envelope_sniff(const void *data, size_t len, const char *file, size_t *module_off, size_t *module_len,
                             shl_status *why) {
  const uint8_t *p = data;
  if (why) *why = NULL;
  /* The bytecode magic "ML\xEFR" comes first: artifacts are not envelopes. */
  if (len >= 4 && memcmp(p, "ML\xEFR", 4) == 0) return ENVELOPE_NO;
  bool binary = len >= 4 ? memchr(p, 0, 4) != NULL : len > 0 && memchr(p, 0, len) != NULL;
  fb_buf b;
  fb_table root;
  fb_vec mod;
  bool has = false;
  shl_status st = fb_init(&b, data, len, file, "jax.export envelope");
  if (!st) st = fb_root(&b, &root);
  if (!st) st = fb_vector_field(&root, EX_MLIR_MODULE_SERIALIZED, 1, &mod, &has);
  if (!st && !has) st = fb_error(&b, root.pos, "the root table has no mlir_module_serialized byte vector");
  if (!st) {
    *module_off = mod.pos;
    *module_len = mod.n;
    return ENVELOPE_YES;
  }
  if (binary && why) *why = st;
  else shloc_status_free(st);
  return binary ? ENVELOPE_BROKEN : ENVELOPE_NO;
}
