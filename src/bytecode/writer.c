/* MLIR bytecode writer: interning, numbering and emission (see writer.h). */
#include <stdlib.h>

#include "bc_reader.h"
#include "writer.h"

struct bw_node {
  uint32_t dialect;
  bool is_type, custom;
  uint32_t n_items;
  const bw_item *items;
  const char *text; /* !custom: the text, without its NUL */
  size_t text_n;
  /* numbering */
  bool seen;
  uint32_t refcount, number;
};

struct bw_opname {
  shl_str name; /* without the dialect */
  uint32_t dialect;
  bool registered, seen;
  uint32_t refcount, number;
};

/* ---- byte buffers ---- */

typedef struct {
  uint8_t *p;
  size_t n, cap;
  bool oom;
} bbuf;

static void bb_put(bbuf *b, const void *p, size_t n) {
  if (b->oom || !n) return;
  if (b->n + n > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + n) cap *= 2;
    uint8_t *np = realloc(b->p, cap);
    if (!np) {
      b->oom = true;
      return;
    }
    b->p = np;
    b->cap = cap;
  }
  memcpy(b->p + b->n, p, n);
  b->n += n;
}

static void bb_byte(bbuf *b, uint8_t v) { bb_put(b, &v, 1); }

/* MLIR's prefix varint: the count of trailing zero bits of the first byte
 * is the number of extra bytes; 0x00 announces 8 raw bytes. */
static void bb_varint(bbuf *b, uint64_t v) {
  uint8_t buf[9];
  for (unsigned n = 1; n <= 8; n++) {
    if (n < 8 ? v >> (7 * n) == 0 : v >> 56 == 0) {
      uint64_t enc = ((v << 1) | 1) << (n - 1);
      for (unsigned i = 0; i < n; i++) buf[i] = (uint8_t)(enc >> (8 * i));
      bb_put(b, buf, n);
      return;
    }
  }
  buf[0] = 0;
  for (unsigned i = 0; i < 8; i++) buf[1 + i] = (uint8_t)(v >> (8 * i));
  bb_put(b, buf, 9);
}

static void bb_varint_flag(bbuf *b, uint64_t v, bool flag) { bb_varint(b, (v << 1) | (flag ? 1 : 0)); }
static void bb_svarint(bbuf *b, uint64_t v) { bb_varint(b, (v << 1) ^ (uint64_t)((int64_t)v >> 63)); }

static void bb_section(bbuf *out, uint8_t id, const bbuf *data) {
  bb_byte(out, id);
  bb_varint(out, data->n);
  if (data->oom) out->oom = true;
  bb_put(out, data->p, data->n);
}

/* ---- setup ---- */

void bw_init(bw_writer *w, int64_t version, const char *producer) {
  memset(w, 0, sizeof *w);
  arena_init(&w->arena);
  w->version = version;
  w->producer = producer;
  strmap_init(&w->interned, &w->arena);
  strmap_init(&w->opname_ids, &w->arena);
}

void bw_free(bw_writer *w) {
  free(w->opnames);
  arena_free(&w->arena);
}

uint32_t bw_dialect(bw_writer *w, const char *name, size_t n) {
  for (uint32_t i = 0; i < w->n_dialects; i++)
    if (w->dialects[i].n == n && memcmp(w->dialects[i].p, name, n) == 0) return i;
  if (w->n_dialects == sizeof w->dialects / sizeof w->dialects[0]) return UINT32_MAX;
  char *copy = arena_strndup(&w->arena, name, n);
  if (!copy) {
    w->oom = true;
    return UINT32_MAX;
  }
  w->dialects[w->n_dialects] = (shl_str){copy, n};
  return w->n_dialects++;
}

shl_status bw_opname(bw_writer *w, shl_str full, bool registered, uint32_t *out) {
  void *got = strmap_get(&w->opname_ids, full);
  if (got) {
    *out = (uint32_t)((uintptr_t)got - 1);
    return NULL;
  }
  const char *dot = memchr(full.p, '.', full.n);
  if (!dot) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "op name '%.*s' has no dialect", (int)full.n, full.p);
  uint32_t d = bw_dialect(w, full.p, (size_t)(dot - full.p));
  if (d == UINT32_MAX) return w->oom ? st_oom() : st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL, "too many dialects");
  if (w->n_opnames == w->cap_opnames) {
    uint32_t cap = w->cap_opnames ? w->cap_opnames * 2 : 64;
    struct bw_opname *np = realloc(w->opnames, cap * sizeof *np);
    if (!np) return st_oom();
    w->opnames = np;
    w->cap_opnames = cap;
  }
  char *key = arena_strndup(&w->arena, full.p, full.n);
  if (!key) return st_oom();
  size_t skip = (size_t)(dot - full.p) + 1;
  w->opnames[w->n_opnames] = (struct bw_opname){{key + skip, full.n - skip}, d, registered, false, 0, 0};
  if (!strmap_put(&w->opname_ids, (shl_str){key, full.n}, (void *)(uintptr_t)(w->n_opnames + 1))) return st_oom();
  *out = w->n_opnames++;
  return NULL;
}

/* ---- encodings ---- */

void bw_enc_begin(bw_writer *w, bw_enc *e) { *e = (bw_enc){.w = w}; }

static bw_item *enc_push(bw_enc *e, uint8_t kind) {
  if (e->oom) return NULL;
  if (!e->cap) {
    e->items = e->local;
    e->cap = sizeof e->local / sizeof e->local[0];
  }
  if (e->n == e->cap) {
    /* In the writer's arena, so that an encoding abandoned half way (an
     * error while converting a nested attribute) needs no cleanup. */
    size_t cap = e->cap * 2;
    bw_item *np = arena_alloc_uninit(&e->w->arena, cap * sizeof *np);
    if (!np) {
      e->oom = true;
      return NULL;
    }
    if (e->n) memcpy(np, e->items, e->n * sizeof *np);
    e->items = np;
    e->cap = cap;
  }
  bw_item *it = &e->items[e->n++];
  memset(it, 0, sizeof *it);
  it->kind = kind;
  return it;
}

void bw_varint(bw_enc *e, uint64_t v) {
  bw_item *it = enc_push(e, BWI_VARINT);
  if (it) it->v = v;
}
void bw_svarint(bw_enc *e, int64_t v) {
  bw_item *it = enc_push(e, BWI_SVARINT);
  if (it) it->v = (uint64_t)v;
}
void bw_byte(bw_enc *e, uint8_t v) {
  bw_item *it = enc_push(e, BWI_BYTE);
  if (it) it->v = v;
}
void bw_attr(bw_enc *e, const bw_node *a) {
  if (!a) e->oom = true;
  bw_item *it = enc_push(e, BWI_ATTR);
  if (it) it->ref = a;
}
void bw_opt_attr(bw_enc *e, const bw_node *a) {
  bw_item *it = enc_push(e, BWI_OPT_ATTR);
  if (it) it->ref = a;
}
void bw_type(bw_enc *e, const bw_node *t) {
  if (!t) e->oom = true;
  bw_item *it = enc_push(e, BWI_TYPE);
  if (it) it->ref = t;
}

static void enc_bytes(bw_enc *e, uint8_t kind, const void *p, size_t n) {
  bw_item *it = enc_push(e, kind);
  if (!it) return;
  uint8_t *copy = arena_alloc_uninit(&e->w->arena, n ? n : 1);
  if (!copy) {
    e->oom = true;
    return;
  }
  if (n) memcpy(copy, p, n);
  it->p = copy;
  it->n = n;
}
void bw_string(bw_enc *e, const char *s, size_t n) { enc_bytes(e, BWI_STRING, s, n); }

/* Large blobs (dense constants) are borrowed, not copied: see writer.h. */
enum { BLOB_COPY_MAX = 256 };

void bw_blob(bw_enc *e, const void *p, size_t n) {
  if (n <= BLOB_COPY_MAX) {
    enc_bytes(e, BWI_BLOB, p, n);
    return;
  }
  bw_item *it = enc_push(e, BWI_BLOB);
  if (!it) return;
  it->p = p;
  it->n = n;
}

static bool items_equal(const bw_item *a, const bw_item *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (a[i].kind != b[i].kind || a[i].v != b[i].v || a[i].ref != b[i].ref || a[i].n != b[i].n ||
        (a[i].n && a[i].p != b[i].p && memcmp(a[i].p, b[i].p, a[i].n)))
      return false;
  return true;
}

/* The interning key: kind, dialect, then every item (child nodes by identity). */
static const bw_node *intern(bw_writer *w, bool is_type, bool custom, uint32_t dialect, const bw_item *items,
                             size_t n_items, const char *text, size_t text_n) {
  bbuf k = {0};
  uint8_t hdr[6] = {is_type, custom, (uint8_t)dialect, (uint8_t)(dialect >> 8), 0, 0};
  bb_put(&k, hdr, sizeof hdr);
  for (size_t i = 0; i < n_items; i++) {
    const bw_item *it = &items[i];
    bb_byte(&k, it->kind);
    bb_put(&k, &it->v, sizeof it->v);
    bb_put(&k, &it->ref, sizeof it->ref);
    bb_put(&k, &it->n, sizeof it->n);
    if (it->n > BLOB_COPY_MAX) {
      /* A large blob enters the key as a hash; equal keys are compared in full below. */
      unsigned long long h = str_hash((shl_str){(const char *)it->p, it->n});
      bb_put(&k, &h, sizeof h);
    } else if (it->n) {
      bb_put(&k, it->p, it->n);
    }
  }
  if (text) bb_put(&k, text, text_n);
  uint8_t salt = 0;
retry:
  if (k.oom) {
    free(k.p);
    return NULL;
  }
  const bw_node *found = strmap_get(&w->interned, (shl_str){(const char *)k.p, k.n});
  if (found && found->n_items == n_items && items_equal(found->items, items, n_items)) {
    free(k.p);
    return found;
  }
  if (found) { /* a hash collision between different large blobs */
    bb_byte(&k, ++salt);
    goto retry;
  }
  char *key = arena_memdup(&w->arena, k.p, k.n ? k.n : 1);
  bw_node *node = ARENA_NEW(&w->arena, bw_node);
  bw_item *copy = n_items ? arena_memdup(&w->arena, items, n_items * sizeof *items) : NULL;
  free(k.p);
  if (!key || !node || (n_items && !copy)) return NULL;
  node->dialect = dialect;
  node->is_type = is_type;
  node->custom = custom;
  node->items = copy;
  node->n_items = (uint32_t)n_items;
  if (text) {
    char *t = arena_strndup(&w->arena, text, text_n);
    if (!t) return NULL;
    node->text = t;
    node->text_n = text_n;
  }
  if (!strmap_put(&w->interned, (shl_str){key, k.n}, node)) return NULL;
  return node;
}

static const bw_node *enc_finish(bw_enc *e, uint32_t dialect, bool is_type) {
  const bw_node *n = e->oom || dialect == UINT32_MAX ? NULL : intern(e->w, is_type, true, dialect, e->items, e->n, NULL, 0);
  if (!n) e->w->oom = true;
  *e = (bw_enc){.w = e->w};
  return n;
}

const bw_node *bw_enc_attr(bw_enc *e, uint32_t dialect) { return enc_finish(e, dialect, false); }
const bw_node *bw_enc_type(bw_enc *e, uint32_t dialect) { return enc_finish(e, dialect, true); }

const bw_node *bw_text_attr(bw_writer *w, uint32_t dialect, const char *text, size_t n) {
  const bw_node *node = dialect == UINT32_MAX ? NULL : intern(w, false, false, dialect, NULL, 0, text, n);
  if (!node) w->oom = true;
  return node;
}

const bw_item *bw_enc_items(bw_enc *e, uint32_t *n) {
  const bw_item *items = NULL;
  if (!e->oom && e->n) items = arena_memdup(&e->w->arena, e->items, e->n * sizeof *e->items);
  if (e->oom || (e->n && !items)) e->w->oom = true;
  *n = items ? (uint32_t)e->n : 0;
  *e = (bw_enc){.w = e->w};
  return items;
}

/* ---- numbering ---- */

typedef struct {
  bw_node **v;
  size_t n, cap;
} node_list;

typedef struct {
  bw_region *r;
  uint32_t first_id;
} region_work;

typedef struct {
  bw_writer *w;
  node_list attrs, types;
  uint32_t *opname_order; /* op name ids in discovery order */
  uint32_t n_order;
  int32_t dialect_number[16];
  uint32_t n_dialect_numbers;
  uint32_t dialect_order[16];
  shl_ptrmap values; /* key -> value slot */
  region_work *work;
  size_t n_work, cap_work;
  uint32_t next_id;
  bool oom;
} numbering;

typedef struct {
  uint32_t id;
  int32_t depth; /* index of the enclosing op (stack) whose region defines it */
  uint64_t *uses; /* use list, front first: owner op id << 32 | operand index */
  uint32_t n_uses, cap_uses;
} value_slot;

static void discover_dialect(numbering *nb, uint32_t d) {
  if (nb->dialect_number[d] < 0) {
    nb->dialect_number[d] = (int32_t)nb->n_dialect_numbers;
    nb->dialect_order[nb->n_dialect_numbers++] = d;
  }
}

static void list_push(numbering *nb, node_list *l, bw_node *n) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 64;
    bw_node **np = realloc(l->v, cap * sizeof *np);
    if (!np) {
      nb->oom = true;
      return;
    }
    l->v = np;
    l->cap = cap;
  }
  l->v[l->n++] = n;
}

static void number_node(numbering *nb, const bw_node *cn) {
  if (!cn) return;
  bw_node *n = (bw_node *)cn; /* numbering fields are the writer's scratch */
  if (n->seen) {
    n->refcount++;
    return;
  }
  n->seen = true;
  n->refcount = 1;
  list_push(nb, n->is_type ? &nb->types : &nb->attrs, n);
  discover_dialect(nb, n->dialect);
  for (uint32_t i = 0; i < n->n_items; i++)
    if (n->items[i].kind == BWI_ATTR || n->items[i].kind == BWI_OPT_ATTR || n->items[i].kind == BWI_TYPE)
      number_node(nb, n->items[i].ref);
}

/* After the isolation walk, value keys are their slots. */
static void number_value(numbering *nb, const void *key) {
  value_slot *s = (value_slot *)key;
  if (s) s->id = nb->next_id++;
}

static void number_op(numbering *nb, bw_op *op) {
  bw_writer *w = nb->w;
  struct bw_opname *on = &w->opnames[op->name];
  if (on->seen) {
    on->refcount++;
  } else {
    on->seen = true;
    on->refcount = 1;
    nb->opname_order[nb->n_order++] = op->name;
    discover_dialect(nb, on->dialect);
  }
  for (uint32_t i = 0; i < op->n_results; i++) {
    number_value(nb, op->result_keys[i]);
    number_node(nb, op->result_types[i]);
  }
  if (op->attrs) number_node(nb, op->attrs);
  if (w->version >= BC_V_NATIVE_PROPERTIES && op->has_props)
    for (uint32_t i = 0; i < op->n_props; i++)
      if (op->props[i].kind == BWI_ATTR || op->props[i].kind == BWI_OPT_ATTR || op->props[i].kind == BWI_TYPE)
        number_node(nb, op->props[i].ref);
  number_node(nb, op->loc);
}

static void push_work(numbering *nb, bw_region *r, uint32_t first) {
  if (nb->n_work == nb->cap_work) {
    size_t cap = nb->cap_work ? nb->cap_work * 2 : 32;
    region_work *np = realloc(nb->work, cap * sizeof *np);
    if (!np) {
      nb->oom = true;
      return;
    }
    nb->work = np;
    nb->cap_work = cap;
  }
  nb->work[nb->n_work++] = (region_work){r, first};
}

static void number_region(numbering *nb, bw_region *r) {
  uint32_t first = nb->next_id;
  for (uint32_t b = 0; b < r->n_blocks; b++) {
    bw_block *blk = r->blocks[b];
    for (uint32_t i = 0; i < blk->n_args; i++) {
      number_value(nb, blk->arg_keys[i]);
      number_node(nb, blk->arg_locs[i]);
      number_node(nb, blk->arg_types[i]);
    }
    for (bw_op *op = blk->first; op; op = op->next) number_op(nb, op);
  }
  r->n_values = nb->next_id - first;
}

/* Isolation as MLIR's writer computes it: an op with regions is isolated
 * when it has the trait or nothing inside uses a value defined outside it. */
typedef struct {
  bw_op **stack;
  size_t n, cap;
  numbering *nb;
} iso_walk;

/* Defines a value: its key is replaced by its slot (one lookup per use). */
static void iso_define(iso_walk *iw, const void **key) {
  value_slot *s = ARENA_NEW(&iw->nb->w->arena, value_slot);
  if (!s || !ptrmap_put(&iw->nb->values, *key, s)) {
    iw->nb->oom = true;
    *key = NULL;
    return;
  }
  s->depth = (int32_t)iw->n - 1;
  *key = s;
}

static void iso_op(iso_walk *iw, bw_op *op) {
  for (uint32_t i = 0; i < op->n_operands; i++) {
    value_slot *s = ptrmap_get(&iw->nb->values, op->operand_keys[i]);
    op->operand_keys[i] = s;
    if (!s) continue;
    for (int32_t k = (int32_t)iw->n - 1; k > s->depth; k--) iw->stack[k]->isolated = false;
  }
  for (uint32_t i = 0; i < op->n_results; i++) iso_define(iw, &op->result_keys[i]);
  if (!op->n_regions) return;
  if (iw->n == iw->cap) {
    size_t cap = iw->cap ? iw->cap * 2 : 16;
    bw_op **np = realloc(iw->stack, cap * sizeof *np);
    if (!np) {
      iw->nb->oom = true;
      return;
    }
    iw->stack = np;
    iw->cap = cap;
  }
  op->isolated = true;
  iw->stack[iw->n++] = op;
  for (uint32_t r = 0; r < op->n_regions; r++)
    for (uint32_t b = 0; b < op->regions[r].n_blocks; b++) {
      bw_block *blk = op->regions[r].blocks[b];
      for (uint32_t i = 0; i < blk->n_args; i++) iso_define(iw, &blk->arg_keys[i]);
      for (bw_op *o = blk->first; o; o = o->next) iso_op(iw, o);
    }
  iw->n--;
  if (op->isolated_trait) op->isolated = true;
}

/* Stable merge sort of nodes or op names (by index) with a comparator. */
typedef bool (*less_fn)(const void *ctx, uint32_t a, uint32_t b);

static void merge_sort(uint32_t *v, uint32_t *tmp, size_t n, less_fn less, const void *ctx) {
  if (n < 2) return;
  size_t h = n / 2;
  merge_sort(v, tmp, h, less, ctx);
  merge_sort(v + h, tmp, n - h, less, ctx);
  size_t i = 0, j = h, k = 0;
  while (i < h && j < n) tmp[k++] = less(ctx, v[j], v[i]) ? v[j++] : v[i++];
  while (i < h) tmp[k++] = v[i++];
  while (j < n) tmp[k++] = v[j++];
  memcpy(v, tmp, n * sizeof *v);
}

typedef struct {
  const uint32_t *refcount, *dialect;
  uint32_t first;
} sort_ctx;

static bool by_refcount(const void *c, uint32_t a, uint32_t b) {
  const sort_ctx *s = c;
  return s->refcount[a] > s->refcount[b];
}

static bool by_dialect(const void *c, uint32_t a, uint32_t b) {
  const sort_ctx *s = c;
  uint32_t da = s->dialect[a], db = s->dialect[b];
  if (da == s->first) return db != s->first;
  if (db == s->first) return false;
  return da < db;
}

/* MLIR's order: by use count, then by dialect within each group of entries
 * whose index takes the same number of varint bytes.  v receives the order. */
static bool order_entries(uint32_t *v, size_t n, const uint32_t *refcount, const uint32_t *dialect) {
  uint32_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
  if (!tmp) return false;
  for (size_t i = 0; i < n; i++) v[i] = (uint32_t)i;
  sort_ctx s = {refcount, dialect, 0};
  merge_sort(v, tmp, n, by_refcount, &s);
  size_t group = 0, start = 0;
  for (unsigned i = 1; i < 9 && start < n; i++) {
    group = ((size_t)1 << (7 * i)) - group;
    size_t len = n - start < group ? n - start : group;
    merge_sort(v + start, tmp, len, by_dialect, &s);
    s.first = dialect[v[start + len - 1]];
    start += len;
  }
  free(tmp);
  return true;
}

static bool finish_list(numbering *nb, node_list *l) {
  size_t n = l->n;
  uint32_t *rc = malloc((n ? n : 1) * sizeof *rc), *dl = malloc((n ? n : 1) * sizeof *dl),
           *order = malloc((n ? n : 1) * sizeof *order);
  bw_node **sorted = malloc((n ? n : 1) * sizeof *sorted);
  bool ok = rc && dl && order && sorted;
  if (ok) {
    for (size_t i = 0; i < n; i++) {
      rc[i] = l->v[i]->refcount;
      dl[i] = (uint32_t)nb->dialect_number[l->v[i]->dialect];
    }
    ok = order_entries(order, n, rc, dl);
  }
  if (ok) {
    for (size_t i = 0; i < n; i++) {
      sorted[i] = l->v[order[i]];
      sorted[i]->number = (uint32_t)i;
    }
    if (n) memcpy(l->v, sorted, n * sizeof *sorted);
  }
  free(rc);
  free(dl);
  free(order);
  free(sorted);
  return ok;
}

/* ---- use lists ----
 * MLIR keeps each value's uses in a list that a parser fills front first,
 * so text read back has its uses in descending (op, operand) order and the
 * writer records nothing.  An op that a later pass recreated (a VHLO
 * downgrade) put its uses at the front when it was created: those lists
 * are recorded, as MLIR's writer does, to be rebuilt in that order. */

static bool add_use(numbering *nb, value_slot *s, uint64_t use) {
  if (s->n_uses == s->cap_uses) {
    uint32_t cap = s->cap_uses ? s->cap_uses * 2 : 4;
    uint64_t *nu = arena_alloc_uninit(&nb->w->arena, cap * sizeof *nu);
    if (!nu) return false;
    if (s->n_uses) memcpy(nu, s->uses, s->n_uses * sizeof *nu);
    s->uses = nu;
    s->cap_uses = cap;
  }
  s->uses[s->n_uses++] = use;
  return true;
}

typedef struct {
  value_slot **slots;
  size_t n, cap;
  bw_op **recreated;
  size_t n_rec, cap_rec;
  uint32_t next_op;
} use_walk;

static bool grow(void **p, size_t *cap, size_t n, size_t size) {
  if (n < *cap) return true;
  size_t c = *cap ? *cap * 2 : 64;
  void *np = realloc(*p, c * size);
  if (!np) return false;
  *p = np;
  *cap = c;
  return true;
}

static void collect_uses(numbering *nb, use_walk *uw, bw_op *op) {
  op->id = uw->next_op++;
  if (op->recreated) {
    if (!grow((void **)&uw->recreated, &uw->cap_rec, uw->n_rec, sizeof *uw->recreated)) nb->oom = true;
    else uw->recreated[uw->n_rec++] = op;
  }
  for (uint32_t i = 0; i < op->n_operands && !nb->oom; i++) {
    value_slot *s = (value_slot *)op->operand_keys[i];
    if (!s) continue;
    if (!s->n_uses && !grow((void **)&uw->slots, &uw->cap, uw->n, sizeof *uw->slots)) nb->oom = true;
    if (!s->n_uses && !nb->oom) uw->slots[uw->n++] = s;
    if (!nb->oom && !add_use(nb, s, (uint64_t)op->id << 32 | i)) nb->oom = true;
  }
  for (uint32_t r = 0; r < op->n_regions; r++)
    for (uint32_t b = 0; b < op->regions[r].n_blocks; b++)
      for (bw_op *o = op->regions[r].blocks[b]->first; o; o = o->next) collect_uses(nb, uw, o);
}

static int by_rank(const void *a, const void *b) {
  uint32_t x = (*(bw_op *const *)a)->recreated, y = (*(bw_op *const *)b)->recreated;
  return x < y ? -1 : x > y;
}

static void order_uses(numbering *nb, bw_op *root) {
  use_walk uw = {0};
  collect_uses(nb, &uw, root);
  for (size_t i = 0; i < uw.n; i++) { /* parse order: descending */
    value_slot *s = uw.slots[i];
    for (uint32_t a = 0, z = s->n_uses - 1; a < z; a++, z--) {
      uint64_t t = s->uses[a];
      s->uses[a] = s->uses[z];
      s->uses[z] = t;
    }
  }
  if (uw.n_rec) qsort(uw.recreated, uw.n_rec, sizeof *uw.recreated, by_rank);
  for (size_t k = 0; k < uw.n_rec; k++) {
    bw_op *op = uw.recreated[k];
    /* The new op's uses go to the front, last operand first. */
    for (uint32_t i = 0; i < op->n_operands; i++) {
      value_slot *s = (value_slot *)op->operand_keys[i];
      if (!s) continue;
      uint64_t use = (uint64_t)op->id << 32 | i;
      uint32_t at = 0;
      while (at < s->n_uses && s->uses[at] != use) at++;
      if (at == s->n_uses) continue;
      memmove(s->uses + 1, s->uses, at * sizeof *s->uses);
      s->uses[0] = use;
    }
    /* Replacing the old op's results moved their uses one by one: reversed. */
    for (uint32_t i = 0; i < op->n_results; i++) {
      value_slot *s = (value_slot *)op->result_keys[i];
      for (uint32_t a = 0, z = s && s->n_uses ? s->n_uses - 1 : 0; s && a < z; a++, z--) {
        uint64_t t = s->uses[a];
        s->uses[a] = s->uses[z];
        s->uses[z] = t;
      }
    }
  }
  free(uw.slots);
  free(uw.recreated);
}

static bool number_all(numbering *nb, bw_op *root) {
  bw_writer *w = nb->w;
  for (int i = 0; i < 16; i++) nb->dialect_number[i] = -1;
  ptrmap_init(&nb->values, &w->arena);
  nb->opname_order = malloc((w->n_opnames ? w->n_opnames : 1) * sizeof *nb->opname_order);
  if (!nb->opname_order) return false;
  iso_walk iw = {.nb = nb};
  iso_op(&iw, root);
  free(iw.stack);
  order_uses(nb, root);
  number_op(nb, root);
  for (uint32_t r = 0; r < root->n_regions; r++) push_work(nb, &root->regions[r], 0);
  while (nb->n_work && !nb->oom) {
    region_work rw = nb->work[--nb->n_work];
    nb->next_id = rw.first_id;
    number_region(nb, rw.r);
    uint32_t after = nb->next_id;
    for (uint32_t b = 0; b < rw.r->n_blocks; b++)
      for (bw_op *op = rw.r->blocks[b]->first; op; op = op->next)
        for (uint32_t k = 0; k < op->n_regions; k++) push_work(nb, &op->regions[k], op->isolated ? 0 : after);
  }
  if (nb->oom) return false;
  if (!finish_list(nb, &nb->attrs) || !finish_list(nb, &nb->types)) return false;
  /* op names */
  uint32_t n = nb->n_order;
  uint32_t *rc = malloc((n ? n : 1) * sizeof *rc), *dl = malloc((n ? n : 1) * sizeof *dl),
           *order = malloc((n ? n : 1) * sizeof *order), *sorted = malloc((n ? n : 1) * sizeof *sorted);
  bool ok = rc && dl && order && sorted;
  if (ok) {
    for (uint32_t i = 0; i < n; i++) {
      rc[i] = w->opnames[nb->opname_order[i]].refcount;
      dl[i] = (uint32_t)nb->dialect_number[w->opnames[nb->opname_order[i]].dialect];
    }
    ok = order_entries(order, n, rc, dl);
  }
  if (ok) {
    for (uint32_t i = 0; i < n; i++) {
      sorted[i] = nb->opname_order[order[i]];
      w->opnames[sorted[i]].number = i;
    }
    if (n) memcpy(nb->opname_order, sorted, n * sizeof *sorted);
  }
  free(rc);
  free(dl);
  free(order);
  free(sorted);
  return ok;
}

/* ---- emission ---- */

typedef struct {
  bw_writer *w;
  numbering *nb;
  shl_strmap strings; /* string -> index + 1 */
  shl_str *string_v;
  size_t n_strings, cap_strings;
  shl_strmap props;   /* storage bytes -> index + 1 */
  bbuf props_data;
  uint32_t n_props;
  bool oom;
} emitter;

static uint64_t string_id(emitter *em, const char *s, size_t n) {
  shl_str key = {s, n};
  void *got = strmap_get(&em->strings, key);
  if (got) return (uint64_t)((uintptr_t)got - 1);
  if (em->n_strings == em->cap_strings) {
    size_t cap = em->cap_strings ? em->cap_strings * 2 : 64;
    shl_str *np = realloc(em->string_v, cap * sizeof *np);
    if (!np) {
      em->oom = true;
      return 0;
    }
    em->string_v = np;
    em->cap_strings = cap;
  }
  em->string_v[em->n_strings] = key;
  if (!strmap_put(&em->strings, key, (void *)(uintptr_t)(em->n_strings + 1))) em->oom = true;
  return em->n_strings++;
}

static void emit_items(emitter *em, bbuf *b, const bw_item *items, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const bw_item *it = &items[i];
    switch (it->kind) {
    case BWI_VARINT: bb_varint(b, it->v); break;
    case BWI_SVARINT: bb_svarint(b, it->v); break;
    case BWI_BYTE: bb_byte(b, (uint8_t)it->v); break;
    case BWI_ATTR:
    case BWI_TYPE: bb_varint(b, it->ref->number); break;
    case BWI_OPT_ATTR:
      if (it->ref) bb_varint_flag(b, it->ref->number, true);
      else bb_varint(b, 0);
      break;
    case BWI_STRING: bb_varint(b, string_id(em, (const char *)it->p, it->n)); break;
    case BWI_BLOB:
      bb_varint(b, it->n);
      bb_put(b, it->p, it->n);
      break;
    }
  }
}

static void emit_dialects(emitter *em, bbuf *out) {
  bw_writer *w = em->w;
  numbering *nb = em->nb;
  bbuf s = {0};
  bb_varint(&s, nb->n_dialect_numbers);
  for (uint32_t i = 0; i < nb->n_dialect_numbers; i++) {
    shl_str name = w->dialects[nb->dialect_order[i]];
    uint64_t id = string_id(em, name.p, name.n);
    /* No dialect written here has a version of its own. */
    if (w->version < BC_V_DIALECT_VERSIONING) bb_varint(&s, id);
    else bb_varint_flag(&s, id, false);
  }
  if (w->version >= BC_V_ELIDE_UNKNOWN_BLOCK_ARG_LOC) bb_varint(&s, nb->n_order);
  for (uint32_t i = 0; i < nb->n_order;) {
    uint32_t d = w->opnames[nb->opname_order[i]].dialect, j = i;
    while (j < nb->n_order && w->opnames[nb->opname_order[j]].dialect == d) j++;
    bb_varint(&s, (uint64_t)nb->dialect_number[d]);
    bb_varint(&s, j - i);
    for (; i < j; i++) {
      struct bw_opname *on = &w->opnames[nb->opname_order[i]];
      uint64_t id = string_id(em, on->name.p, on->name.n);
      if (w->version < BC_V_NATIVE_PROPERTIES) bb_varint(&s, id);
      else bb_varint_flag(&s, id, on->registered);
    }
  }
  bb_section(out, BC_SEC_DIALECT, &s);
  free(s.p);
}

static void emit_attr_types(emitter *em, bbuf *out) {
  numbering *nb = em->nb;
  bbuf offs = {0}, data = {0};
  bb_varint(&offs, nb->attrs.n);
  bb_varint(&offs, nb->types.n);
  for (int pass = 0; pass < 2; pass++) {
    node_list *l = pass ? &nb->types : &nb->attrs;
    for (size_t i = 0; i < l->n;) {
      uint32_t d = l->v[i]->dialect;
      size_t j = i;
      while (j < l->n && l->v[j]->dialect == d) j++;
      bb_varint(&offs, (uint64_t)nb->dialect_number[d]);
      bb_varint(&offs, j - i);
      for (; i < j; i++) {
        const bw_node *n = l->v[i];
        size_t before = data.n;
        if (n->custom) {
          emit_items(em, &data, n->items, n->n_items);
        } else {
          bb_put(&data, n->text, n->text_n);
          bb_byte(&data, 0);
        }
        bb_varint_flag(&offs, data.n - before, n->custom);
      }
    }
  }
  bb_section(out, BC_SEC_ATTR_TYPE_OFFSET, &offs);
  bb_section(out, BC_SEC_ATTR_TYPE, &data);
  free(offs.p);
  free(data.p);
}

static uint64_t props_id(emitter *em, const bw_item *items, size_t n) {
  bbuf raw = {0}, st = {0};
  emit_items(em, &raw, items, n);
  bb_varint(&st, raw.n);
  bb_put(&st, raw.p, raw.n);
  free(raw.p);
  if (st.oom || raw.oom) {
    em->oom = true;
    free(st.p);
    return 0;
  }
  void *got = strmap_get(&em->props, (shl_str){(const char *)st.p, st.n});
  if (got) {
    free(st.p);
    return (uint64_t)((uintptr_t)got - 1);
  }
  size_t at = em->props_data.n;
  bb_put(&em->props_data, st.p, st.n);
  free(st.p);
  /* The key points into props_data, which may move: keep a stable copy. */
  char *key = arena_memdup(&em->w->arena, em->props_data.p + at, em->props_data.n - at);
  if (em->props_data.oom || !key || !strmap_put(&em->props, (shl_str){key, em->props_data.n - at}, (void *)(uintptr_t)(em->n_props + 1))) {
    em->oom = true;
    return 0;
  }
  return em->n_props++;
}

static void emit_region(emitter *em, bbuf *b, const bw_region *r);

typedef struct {
  uint32_t idx;
  uint32_t *order;
  uint32_t n;
} use_order;

static int by_id_desc(const void *a, const void *b) {
  uint64_t x = ((const uint64_t *)a)[1], y = ((const uint64_t *)b)[1];
  return x < y ? 1 : x > y ? -1 : 0;
}

/* MLIR iterates its map of result index -> order in hash-bucket order. */
static int by_bucket(const void *a, const void *b) {
  uint32_t x = (((const use_order *)a)->idx * 37u) & 63, y = (((const use_order *)b)->idx * 37u) & 63;
  return x < y ? -1 : x > y;
}

/* Use-list orders of values keys[0..n) that the reader's parse order would
 * not rebuild; true when something was written. */
static bool emit_use_lists(emitter *em, bbuf *b, const void *const *keys, uint32_t n) {
  use_order *v = NULL;
  uint32_t cnt = 0;
  for (uint32_t i = 0; i < n; i++) {
    value_slot *s = (value_slot *)keys[i];
    if (!s || s->n_uses < 2) continue;
    bool ordered = true;
    for (uint32_t k = 1; k < s->n_uses; k++)
      if (!(s->uses[k - 1] > s->uses[k])) ordered = false;
    if (ordered) continue;
    uint64_t *pairs = malloc(s->n_uses * 2 * sizeof *pairs);
    uint32_t *order = arena_alloc_uninit(&em->w->arena, s->n_uses * sizeof *order);
    use_order *nv = realloc(v, (cnt + 1) * sizeof *nv);
    if (!pairs || !order || !nv) {
      free(pairs);
      em->oom = true;
      if (nv) v = nv;
      break;
    }
    v = nv;
    for (uint32_t k = 0; k < s->n_uses; k++) {
      pairs[2 * k] = k;
      pairs[2 * k + 1] = s->uses[k];
    }
    qsort(pairs, s->n_uses, 2 * sizeof *pairs, by_id_desc);
    for (uint32_t k = 0; k < s->n_uses; k++) order[k] = (uint32_t)pairs[2 * k];
    free(pairs);
    v[cnt++] = (use_order){i, order, s->n_uses};
  }
  if (!cnt) {
    free(v);
    return false;
  }
  if (n != 1) {
    bb_varint(b, cnt);
    qsort(v, cnt, sizeof *v, by_bucket);
  }
  for (uint32_t e = 0; e < cnt; e++) {
    uint32_t shuffled = 0;
    for (uint32_t k = 0; k < v[e].n; k++) shuffled += v[e].order[k] != k;
    bool pairs = shuffled < v[e].n / 2;
    if (n != 1) bb_varint(b, v[e].idx);
    if (pairs) {
      bb_varint_flag(b, (uint64_t)shuffled * 2, true);
      for (uint32_t k = 0; k < v[e].n; k++)
        if (v[e].order[k] != k) {
          bb_varint(b, v[e].order[k]);
          bb_varint(b, k);
        }
    } else {
      bb_varint_flag(b, v[e].n, false);
      for (uint32_t k = 0; k < v[e].n; k++) bb_varint(b, v[e].order[k]);
    }
  }
  free(v);
  return true;
}

static void emit_op(emitter *em, bbuf *b, const bw_op *op) {
  bw_writer *w = em->w;
  bb_varint(b, w->opnames[op->name].number);
  size_t mask_at = b->n;
  uint8_t mask = 0;
  bb_byte(b, 0);
  bb_varint(b, op->loc->number);
  if (op->attrs) {
    mask |= 0x01;
    bb_varint(b, op->attrs->number);
  }
  if (w->version >= BC_V_NATIVE_PROPERTIES && op->has_props) {
    mask |= 0x40;
    bb_varint(b, props_id(em, op->props, op->n_props));
  }
  if (op->n_results) {
    mask |= 0x02;
    bb_varint(b, op->n_results);
    for (uint32_t i = 0; i < op->n_results; i++) bb_varint(b, op->result_types[i]->number);
  }
  if (op->n_operands) {
    mask |= 0x04;
    bb_varint(b, op->n_operands);
    for (uint32_t i = 0; i < op->n_operands; i++) {
      const value_slot *s = op->operand_keys[i];
      bb_varint(b, s ? s->id : 0);
    }
  }
  if (w->version >= BC_V_USE_LIST_ORDERING && emit_use_lists(em, b, op->result_keys, op->n_results)) mask |= 0x20;
  if (op->n_regions) mask |= 0x10;
  if (!b->oom) b->p[mask_at] = mask;
  if (!op->n_regions) return;
  bb_varint_flag(b, op->n_regions, op->isolated);
  if (op->isolated && w->version >= BC_V_LAZY_LOADING) {
    bbuf sub = {0};
    for (uint32_t i = 0; i < op->n_regions; i++) emit_region(em, &sub, &op->regions[i]);
    bb_section(b, BC_SEC_IR, &sub);
    free(sub.p);
  } else {
    for (uint32_t i = 0; i < op->n_regions; i++) emit_region(em, b, &op->regions[i]);
  }
}

static void emit_block(emitter *em, bbuf *b, const bw_block *blk) {
  bw_writer *w = em->w;
  bb_varint_flag(b, blk->n_ops, blk->n_args != 0);
  if (blk->n_args) {
    bb_varint(b, blk->n_args);
    for (uint32_t i = 0; i < blk->n_args; i++) {
      bool known = blk->arg_locs[i] != w->unknown_loc;
      if (w->version >= BC_V_ELIDE_UNKNOWN_BLOCK_ARG_LOC) {
        bb_varint_flag(b, blk->arg_types[i]->number, known);
        if (known) bb_varint(b, blk->arg_locs[i]->number);
      } else {
        bb_varint(b, blk->arg_types[i]->number);
        bb_varint(b, blk->arg_locs[i]->number);
      }
    }
    if (w->version >= BC_V_USE_LIST_ORDERING) {
      size_t at = b->n;
      bb_byte(b, 0);
      if (emit_use_lists(em, b, blk->arg_keys, blk->n_args) && !b->oom) b->p[at] = 0x20;
    }
  }
  for (const bw_op *op = blk->first; op; op = op->next) emit_op(em, b, op);
}

static void emit_region(emitter *em, bbuf *b, const bw_region *r) {
  bb_varint(b, r->n_blocks);
  if (!r->n_blocks) return;
  bb_varint(b, r->n_values);
  for (uint32_t i = 0; i < r->n_blocks; i++) emit_block(em, b, r->blocks[i]);
}

shl_status bw_write(bw_writer *w, bw_op *root, uint8_t **out, size_t *len) {
  *out = NULL;
  *len = 0;
  if (w->oom) return st_oom();
  numbering nb = {.w = w};
  emitter em = {.w = w, .nb = &nb};
  strmap_init(&em.strings, &w->arena);
  strmap_init(&em.props, &w->arena);
  bbuf file = {0}, ir = {0}, res = {0}, str = {0}, props = {0};
  bool ok = number_all(&nb, root);
  if (ok) {
    bb_put(&file, "ML\xEFR", 4);
    bb_varint(&file, (uint64_t)w->version);
    bb_put(&file, w->producer, strlen(w->producer) + 1);
    emit_dialects(&em, &file);
    emit_attr_types(&em, &file);
    bb_varint_flag(&ir, 1, false);
    emit_op(&em, &ir, root);
    bb_section(&file, BC_SEC_IR, &ir);
    bb_varint(&res, 0); /* no external resource groups */
    bb_section(&file, BC_SEC_RESOURCE_OFFSET, &res);
    bbuf empty = {0};
    bb_section(&file, BC_SEC_RESOURCE, &empty);
    bb_varint(&str, em.n_strings);
    for (size_t i = em.n_strings; i-- > 0;) bb_varint(&str, em.string_v[i].n + 1);
    for (size_t i = 0; i < em.n_strings; i++) {
      bb_put(&str, em.string_v[i].p, em.string_v[i].n);
      bb_byte(&str, 0);
    }
    bb_section(&file, BC_SEC_STRING, &str);
    if (w->version >= BC_V_NATIVE_PROPERTIES) {
      bb_varint(&props, em.n_props);
      bb_put(&props, em.props_data.p, em.props_data.n);
      if (em.props_data.oom) props.oom = true;
      bb_section(&file, BC_SEC_PROPERTIES, &props);
    }
    ok = !file.oom && !em.oom;
  }
  free(nb.attrs.v);
  free(nb.types.v);
  free(nb.opname_order);
  free(nb.work);
  free(em.string_v);
  free(em.props_data.p);
  free(ir.p);
  free(res.p);
  free(str.p);
  free(props.p);
  if (!ok) {
    free(file.p);
    return st_oom();
  }
  *out = file.p;
  *len = file.n;
  return NULL;
}
