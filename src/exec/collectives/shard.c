/* Tile layouts from HLO sharding strings and Shardy shardings, and copying
 * a device's tile out of (or into) a global array. */
#include <stdlib.h>
#include <string.h>

#include "shard.h"
#include "exec/kernels/strided.h"

#define HLO_MAX_DIMS 24
#define SHARD_MAX_DEVICES (1u << 20)

static shl_status bad(const char *fmt, const char *detail) {
  return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, fmt, detail);
}

/* The run device's id in a sharding over m devices (see shard.h). */
static shl_status sharding_device(uint32_t m, uint32_t n_rep, uint32_t n_part, uint32_t d, uint32_t *s) {
  if (m == n_part)
    *s = d % n_part;
  else if (m == n_rep * n_part)
    *s = d;
  else
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL,
                    "the sharding spans %u devices; the run has %u replicas x %u partitions", m, n_rep, n_part);
  return NULL;
}

static shl_status layout_init(shard_layout *l, int32_t rank, uint32_t n_rep, uint32_t n_part) {
  memset(l, 0, sizeof *l);
  if (rank < 0 || rank > SHARD_MAX_RANK) return bad("%s", "arrays of rank above 16 are not split");
  l->rank = rank;
  l->n_dev = n_rep * n_part;
  l->span = n_part;
  for (int32_t i = 0; i < rank; i++) l->tiles[i] = 1;
  l->coord = calloc((size_t)l->n_dev * (rank ? rank : 1), sizeof *l->coord);
  return l->coord ? NULL : st_oom();
}

void shard_layout_free(shard_layout *l) {
  free(l->coord);
  l->coord = NULL;
}

/* ---- HLO sharding text ---- */

typedef struct {
  const char *p, *end;
} cursor;

static void skip_ws(cursor *c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t')) c->p++;
}

static bool eat(cursor *c, const char *s) {
  skip_ws(c);
  size_t n = strlen(s);
  if ((size_t)(c->end - c->p) < n || memcmp(c->p, s, n)) return false;
  c->p += n;
  return true;
}

static bool number(cursor *c, int64_t *v) {
  skip_ws(c);
  const char *q = c->p;
  int64_t x = 0;
  while (c->p < c->end && *c->p >= '0' && *c->p <= '9' && x < SHARD_MAX_DEVICES) x = x * 10 + (*c->p++ - '0');
  *v = x;
  return c->p > q && x < SHARD_MAX_DEVICES;
}

/* "[a,b,...]" into v (at most HLO_MAX_DIMS). */
static bool dim_list(cursor *c, int64_t *v, uint32_t *n) {
  *n = 0;
  if (!eat(c, "[")) return false;
  do {
    if (*n == HLO_MAX_DIMS || !number(c, &v[(*n)++])) return false;
  } while (eat(c, ","));
  return eat(c, "]");
}

/* The device list of a tile assignment of m devices: "<=[dims]" with an
 * optional "T(perm)" (iota reshaped to dims, transposed), or ids listed. */
static shl_status device_list(cursor *c, uint32_t m, int64_t *ids) {
  if (!eat(c, "<=")) {
    for (uint32_t i = 0; i < m; i++)
      if ((i && !eat(c, ",")) || !number(c, &ids[i])) return bad("%s", "expects the tile assignment's device ids");
    return NULL;
  }
  int64_t rd[HLO_MAX_DIMS], perm[HLO_MAX_DIMS];
  uint32_t nr, np = 0;
  if (!dim_list(c, rd, &nr)) return bad("%s", "expects <=[dims] in the tile assignment");
  int64_t total = 1;
  for (uint32_t i = 0; i < nr; i++) total *= rd[i];
  if (total != m) return bad("%s", "the iota's dims do not multiply to the tile assignment's device count");
  if (eat(c, "T(")) {
    do {
      if (np == HLO_MAX_DIMS || !number(c, &perm[np++])) return bad("%s", "expects T(permutation)");
    } while (eat(c, ","));
    if (!eat(c, ")") || np != nr) return bad("%s", "expects T(permutation) of the iota's dims");
  } else {
    for (np = 0; np < nr; np++) perm[np] = np;
  }
  bool seen[HLO_MAX_DIMS] = {0};
  for (uint32_t i = 0; i < nr; i++) {
    if (perm[i] >= nr || seen[perm[i]]) return bad("%s", "T(...) is not a permutation");
    seen[perm[i]] = true;
  }
  /* Element f of the transposed array: walk its coordinates in row-major order. */
  int64_t stride[HLO_MAX_DIMS], idx[HLO_MAX_DIMS] = {0};
  for (int64_t i = (int64_t)nr - 1, s = 1; i >= 0; i--) {
    stride[i] = s;
    s *= rd[i];
  }
  for (uint32_t f = 0; f < m; f++) {
    int64_t v = 0;
    for (uint32_t i = 0; i < nr; i++) v += idx[i] * stride[perm[i]];
    ids[f] = v;
    for (int64_t i = (int64_t)nr - 1; i >= 0; i--) {
      if (++idx[i] < rd[perm[i]]) break;
      idx[i] = 0;
    }
  }
  return NULL;
}

static shl_status tiled(cursor *c, shard_layout *l, uint32_t n_rep, uint32_t n_part) {
  int64_t ad[HLO_MAX_DIMS];
  uint32_t na;
  if (!dim_list(c, ad, &na)) return bad("%s", "expects devices=[dims]");
  uint64_t m = 1;
  for (uint32_t i = 0; i < na; i++) {
    m *= (uint64_t)(ad[i] ? ad[i] : 1);
    if (!ad[i] || m > SHARD_MAX_DEVICES) return bad("%s", "has a tile assignment of no or too many devices");
  }
  if ((int32_t)na < l->rank) return bad("%s", "has fewer tile dimensions than the array");
  int64_t *ids = malloc(m * sizeof *ids), *pos = malloc(m * sizeof *pos);
  shl_status st = ids && pos ? device_list(c, (uint32_t)m, ids) : st_oom();
  for (uint32_t i = 0; !st && i < m; i++) pos[i] = -1;
  for (uint32_t f = 0; !st && f < m; f++) {
    if (ids[f] < 0 || (uint64_t)ids[f] >= m || pos[ids[f]] >= 0)
      st = bad("%s", "device ids are not a permutation of 0..n-1");
    else
      pos[ids[f]] = f;
  }
  /* What follows the data dims: replication (last_tile_dim_replicate, last_tile_dims={...}). */
  if (!st && (int32_t)na > l->rank && !eat(c, "last_tile_dim_replicate") && !eat(c, "last_tile_dims="))
    st = bad("%s", "has more tile dimensions than the array without last_tile_dim_replicate");
  for (int32_t i = 0; !st && i < l->rank; i++) l->tiles[i] = ad[i];
  if (m == l->n_dev) l->span = l->n_dev;
  for (uint32_t d = 0; !st && d < l->n_dev; d++) {
    uint32_t s = 0;
    if (m > 1) st = sharding_device((uint32_t)m, n_rep, n_part, d, &s);
    int64_t f = st ? 0 : pos[s];
    for (int64_t i = (int64_t)na - 1; !st && i >= 0; i--) {
      if (i < l->rank) l->coord[(size_t)d * l->rank + i] = f % ad[i];
      f /= ad[i];
    }
  }
  free(ids);
  free(pos);
  return st;
}

shl_status shard_from_hlo(shl_str text, int32_t rank, uint32_t n_rep, uint32_t n_part, shard_layout *out) {
  ST_TRY(layout_init(out, rank, n_rep, n_part));
  cursor c = {text.p, text.p + text.n};
  shl_status st = NULL;
  int64_t k;
  if (!eat(&c, "{"))
    st = bad("%s", "expects '{'");
  else if (eat(&c, "replicated"))
    st = NULL;
  else if (eat(&c, "maximal")) {
    if (!eat(&c, "device=") || !number(&c, &k) || (uint64_t)k >= out->n_dev)
      st = bad("%s", "expects {maximal device=K} with K a device of the run");
    out->span = out->n_dev;
    for (uint32_t d = 0; !st && d < out->n_dev; d++)
      if ((int64_t)d != k)
        for (int32_t i = 0; i < rank; i++) out->coord[(size_t)d * rank + i] = -1;
  } else if (eat(&c, "devices="))
    st = tiled(&c, out, n_rep, n_part);
  else
    st = bad("%s", "has no tile layout ({manual}, tuple and unknown shardings are per-device values)");
  if (st) shard_layout_free(out);
  return st;
}

/* ---- Shardy ---- */

static int64_t axis_index(const sdy_mesh *m, shl_str name) {
  for (uint32_t k = 0; k < m->n_axes; k++)
    if (str_eq(m->axes[k].name, name)) return k;
  return -1;
}

static bool is_manual(const sdy_manual_axes *ma, shl_str name) {
  if (!ma) return true;
  for (uint32_t i = 0; i < ma->n; i++)
    if (str_eq(ma->names[i], name)) return true;
  return false;
}

shl_status shard_from_sdy(const sdy_sharding *s, const sdy_mesh *mesh, const sdy_manual_axes *manual, int32_t rank,
                          uint32_t n_rep, uint32_t n_part, shard_layout *out) {
  if ((int32_t)s->rank != rank) return bad("%s", "sharding rank differs from the array's");
  int64_t m = sdy_mesh_devices(mesh);
  if (m < 1 || m > SHARD_MAX_DEVICES) return bad("%s", "mesh of no or too many devices");
  ST_TRY(layout_init(out, rank, n_rep, n_part));
  shl_status st = NULL;
  bool maximal = !mesh->n_axes && mesh->n_device_ids == 1;
  if (maximal || m == out->n_dev) out->span = out->n_dev;
  for (uint32_t d = 0; !st && d < out->n_dev; d++) {
    if (maximal) {
      if ((int64_t)d != mesh->device_ids[0])
        for (int32_t i = 0; i < rank; i++) out->coord[(size_t)d * rank + i] = -1;
      continue;
    }
    uint32_t sd = 0;
    if (m > 1) st = sharding_device((uint32_t)m, n_rep, n_part, d, &sd);
    int64_t pos = sd;
    for (uint32_t j = 0; !st && j < mesh->n_device_ids; j++)
      if (mesh->device_ids[j] == sd) pos = j;
    for (int32_t i = 0; !st && i < rank; i++) {
      int64_t tiles = 1, c = 0;
      for (uint32_t a = 0; !st && a < s->dims[i].n_axes; a++) {
        const sdy_axis_ref *r = &s->dims[i].axes[a];
        int64_t k = axis_index(mesh, r->name);
        if (k < 0) st = bad("%s", "sharding names an axis the mesh lacks");
        if (st || !is_manual(manual, r->name)) continue;
        int64_t stride = 1;
        for (uint32_t q = (uint32_t)k + 1; q < mesh->n_axes; q++) stride *= mesh->axes[q].size;
        int64_t ck = (pos / stride) % mesh->axes[k].size, size = mesh->axes[k].size;
        if (r->size > 0) {
          ck = (ck / (r->pre_size ? r->pre_size : 1)) % r->size;
          size = r->size;
        }
        c = c * size + ck;
        tiles *= size;
      }
      out->tiles[i] = tiles;
      out->coord[(size_t)d * rank + i] = c;
    }
  }
  if (st) shard_layout_free(out);
  return st;
}

/* ---- tiles ---- */

bool shard_is_split(const shard_layout *l) {
  for (int32_t i = 0; i < l->rank; i++)
    if (l->tiles[i] > 1) return true;
  for (uint32_t d = 0; d < l->n_dev; d++)
    if (!shard_holds(l, d)) return true;
  return false;
}

bool shard_holds(const shard_layout *l, uint32_t dev) { return !l->rank || l->coord[(size_t)dev * l->rank] >= 0; }

bool shard_same_tile(const shard_layout *l, uint32_t a, uint32_t b) {
  return !l->rank ||
         !memcmp(&l->coord[(size_t)a * l->rank], &l->coord[(size_t)b * l->rank], (size_t)l->rank * sizeof *l->coord);
}

/* Tiles of an uneven dimension are ceil(size / tiles) long, the last ones
 * padded, as XLA shapes the shards of an uneven tiled sharding. */
static int64_t tile_len(int64_t size, int64_t tiles) { return tiles > 1 ? (size + tiles - 1) / tiles : size; }

shl_status shard_tile_dims(const shard_layout *l, const int64_t *global, int64_t *local) {
  for (int32_t i = 0; i < l->rank; i++) local[i] = tile_len(global[i], l->tiles[i]);
  return NULL;
}

/* The box of device dev's tile within the global array (its valid part:
 * short or empty for padded tiles), with global and tile strides; returns
 * the global offset (elements) and sets *padded. */
static int64_t tile_box(const shard_layout *l, uint32_t dev, const int64_t *gdims, strided_box *b, int64_t *gs,
                        int64_t *ls, bool *padded) {
  int64_t tdims[SHARD_MAX_RANK], off = 0;
  b->rank = l->rank;
  *padded = false;
  for (int32_t i = 0; i < l->rank; i++) {
    tdims[i] = tile_len(gdims[i], l->tiles[i]);
    int64_t start = l->coord[(size_t)dev * l->rank + i] * tdims[i];
    int64_t valid = gdims[i] - start < tdims[i] ? gdims[i] - start : tdims[i];
    b->dims[i] = valid > 0 ? valid : 0;
    *padded = *padded || b->dims[i] < tdims[i];
  }
  strided_row_major(l->rank, gdims, gs);
  strided_row_major(l->rank, tdims, ls);
  for (int32_t i = 0; i < l->rank; i++)
    if (b->dims[i]) off += l->coord[(size_t)dev * l->rank + i] * tdims[i] * gs[i];
  return off;
}

void shard_extract(const shard_layout *l, uint32_t dev, const int64_t *gdims, const void *global, void *local,
                   size_t es) {
  strided_box b;
  int64_t gs[SHARD_MAX_RANK], ls[SHARD_MAX_RANK];
  bool padded;
  int64_t off = tile_box(l, dev, gdims, &b, gs, ls, &padded);
  if (padded) { /* the padding is zeros */
    size_t n = es;
    for (int32_t i = 0; i < l->rank; i++) n *= (size_t)tile_len(gdims[i], l->tiles[i]);
    memset(local, 0, n);
  }
  memcpy(b.ss, gs, sizeof gs);
  memcpy(b.ds, ls, sizeof ls);
  if (!strided_count(&b)) return;
  strided_finish(&b, es);
  strided_copy(&b, local, (const uint8_t *)global + off * es, es);
}

void shard_insert(const shard_layout *l, uint32_t dev, const int64_t *gdims, const void *local, void *global,
                  size_t es) {
  strided_box b;
  int64_t gs[SHARD_MAX_RANK], ls[SHARD_MAX_RANK];
  bool padded;
  int64_t off = tile_box(l, dev, gdims, &b, gs, ls, &padded);
  memcpy(b.ds, gs, sizeof gs);
  memcpy(b.ss, ls, sizeof ls);
  if (!strided_count(&b)) return;
  strided_finish(&b, es);
  strided_copy(&b, (uint8_t *)global + off * es, local, es);
}
