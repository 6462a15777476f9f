/* Grouping for elementwise fusion (see fuse.h).
 *
 * A group grows from a root (the latest ungrouped elementwise op or
 * reduction of the block) towards its producers, latest first, so that all
 * users of an op are decided before the op itself:
 *  - an elementwise producer the group reads element for element joins; it
 *    stays internal when all its users are in the group, and otherwise also
 *    becomes an output, provided its other users come after the root;
 *  - a reduction over trailing dimensions joins when the group reads its
 *    row results broadcast along the rows (and the rows are short enough to
 *    keep in scratch between passes);
 *  - views (broadcast_in_dim, reshapes that only add or drop unit
 *    dimensions) are read through: members index the view's operand.
 * Groups that read one input element for element are then merged when no
 * op between them needs the earlier group's outputs (a row sum and a row
 * max of one matrix share a pass).  A view whose users are all fused (or
 * unused views) is never materialised, nor is a gather of whole matrix rows
 * whose readers are all members of one group: the group copies the rows
 * from the table itself (LOC_ROWS), nor a broadcast of one element that a
 * scatter reads as its input or updates: the scatter takes the element
 * (fuse_operand). */
#include <stdlib.h>

#include "fuse.h"
#include "kernels/kutil.h"
#include "support/ptrmap.h"

enum { FK_OTHER, FK_EW, FK_VIEW, FK_REDUCE };
enum { FUSE_ROW_MAX = 1 << 14 }; /* longest row a later pass may re-read from scratch */
enum { FUSE_MAX_MEMBERS = 256 };   /* bounds a group's scratch and its planning work */
enum { FUSE_L1_BUDGET = 24 << 10 }; /* bytes of a chunk's values meant to stay in L1 */

typedef struct {
  const shl_op *op;
  uint8_t kind;
  bool member, output, dead;
  bool needed; /* views: a member reads the view's own value (a walk stopped at it) */
  bool absorbed; /* a row gather whose only readers are one group's members: a leaf of that group */
  int32_t group; /* members: their group; views: the group that absorbed them */
  uint32_t n_users, cap_users, *users; /* ops reading a result (nested regions count), ascending */
  uint32_t seen, blocked;              /* group stamps: visited by / may not join */
  const shl_type *space;               /* FK_EW/FK_REDUCE: the shape its elements are indexed in */
  void *params;                        /* FK_EW: kernel params */
  ew_eval_fn eval;
  shl_opid binop;                      /* FK_REDUCE */
  int64_t cols;                        /* FK_REDUCE: elements folded per result */
  uint32_t node;                       /* members: node index in the group */
} fop;

typedef struct {
  uint32_t root, anchor;
  int64_t n, cols; /* cols = 0 until a reduction joins */
  uint32_t n_members, cap_members, *members;
  bool gone; /* merged into another group, or dissolved */
  fuse_site site;
} fgroup;

struct fuse_block {
  plan_ctx *pc;
  const shl_block *blk;
  uint32_t n_ops;
  fop *ops;
  uint32_t n_groups, cap_groups;
  fgroup *groups;
  size_t hcap; /* op -> index */
  const shl_op **hkey;
  uint32_t *hval;
  uint32_t *heap, n_heap, cap_heap;
};

/* A map from a group's elements to a value's elements: `ident` for the
 * same linear order, else per value dimension the group dimension that
 * indexes it (-1: always 0). */
typedef struct {
  bool ident;
  int32_t rank;
  int32_t src[KU_MAX_RANK];
} fmap;

static uint32_t index_of(const fuse_block *fb, const shl_op *op) {
  size_t j = ptrmap_hash(op) & (fb->hcap - 1);
  while (fb->hkey[j] != op) j = (j + 1) & (fb->hcap - 1);
  return fb->hval[j];
}

/* The index of the op of this block defining v, or UINT32_MAX. */
static uint32_t def_index(const fuse_block *fb, const shl_value *v) {
  return v->def && v->def->block == fb->blk ? index_of(fb, v->def) : UINT32_MAX;
}

static bool push_u32(uint32_t **a, uint32_t *n, uint32_t *cap, uint32_t v) {
  if (*n == *cap) {
    uint32_t nc = *cap ? *cap * 2 : 4;
    uint32_t *na = realloc(*a, nc * sizeof *na);
    if (!na) return false;
    *a = na;
    *cap = nc;
  }
  (*a)[(*n)++] = v;
  return true;
}

/* Max-heap of op indices. */
static bool heap_push(fuse_block *fb, uint32_t v) {
  if (!push_u32(&fb->heap, &fb->n_heap, &fb->cap_heap, v)) return false;
  for (uint32_t i = fb->n_heap - 1; i && fb->heap[(i - 1) / 2] < fb->heap[i]; i = (i - 1) / 2) {
    uint32_t t = fb->heap[i];
    fb->heap[i] = fb->heap[(i - 1) / 2];
    fb->heap[(i - 1) / 2] = t;
  }
  return true;
}

static uint32_t heap_pop(fuse_block *fb) {
  uint32_t top = fb->heap[0], *h = fb->heap, n = --fb->n_heap;
  h[0] = h[n];
  for (uint32_t i = 0;;) {
    uint32_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < n && h[l] > h[m]) m = l;
    if (r < n && h[r] > h[m]) m = r;
    if (m == i) break;
    uint32_t t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
  return top;
}

static bool static_tensor(const shl_type *t) {
  return t && t->kind == TY_TENSOR && type_is_static(t) && t->rank <= KU_MAX_RANK && t->dtype != DT_QUANT;
}

static bool same_dims(const shl_type *a, const shl_type *b) {
  if (a->rank != b->rank) return false;
  for (int32_t d = 0; d < a->rank; d++)
    if (a->dims[d] != b->dims[d]) return false;
  return true;
}

/* ---- classification ---- */

static ew_eval_fn eval_of(const shl_kernel *k) {
  if (k == &kernel_ew_unary) return ew_unary_eval;
  if (k == &kernel_ew_binary) return ew_binary_eval;
  if (k == &kernel_compare) return ew_compare_eval;
  if (k == &kernel_select) return ew_select_eval;
  if (k == &kernel_clamp) return ew_clamp_eval;
  return NULL;
}

/* A reduce of one input with a plain binop body over the trailing dimensions. */
static bool reduce_ok(fop *o) {
  const shl_op *op = o->op;
  if (op->n_operands != 2 || op->n_regions != 1) return false;
  const shl_type *it = op->operands[0]->type;
  shl_dtype dt = type_storage_dtype(it);
  shl_opid b = ku_body_binop(&op->regions[0]);
  if (!ew_fold_ok(b, dt) || type_storage_dtype(op->results[0].type) != dt ||
      type_storage_dtype(op->operands[1]->type) != dt || type_num_elements(op->operands[1]->type) != 1)
    return false;
  int64_t dims[KU_MAX_RANK];
  size_t nd;
  if (!ku_ints(op, "dimensions", dims, KU_MAX_RANK, &nd) || nd == 0) return false;
  bool seen[KU_MAX_RANK] = {false};
  int64_t cols = 1;
  for (size_t i = 0; i < nd; i++) {
    if (dims[i] < it->rank - (int64_t)nd || dims[i] >= it->rank || seen[dims[i]]) return false;
    seen[dims[i]] = true;
    cols *= it->dims[dims[i]];
  }
  if (op->results[0].type->rank != it->rank - (int32_t)nd || cols == 0) return false;
  o->binop = b;
  o->cols = cols;
  o->space = it;
  return true;
}

static uint8_t classify(plan_ctx *pc, fop *o) {
  const shl_op *op = o->op;
  if (op->n_results != 1 || !static_tensor(op->results[0].type)) return FK_OTHER;
  for (uint32_t k = 0; k < op->n_operands; k++)
    if (!static_tensor(op->operands[k]->type)) return FK_OTHER;
  if (op_is(op, OP_BROADCAST_IN_DIM) || op_is(op, OP_RESHAPE))
    return op->n_operands == 1 && op->n_regions == 0 ? FK_VIEW : FK_OTHER;
  if (op_is(op, OP_REDUCE)) return reduce_ok(o) ? FK_REDUCE : FK_OTHER;
  const shl_kernel *k = plan_kernel_of(op);
  ew_eval_fn ev = eval_of(k);
  if (!ev || op->n_regions || op->n_operands == 0 || op->n_operands > 3) return FK_OTHER;
  int64_t n = type_num_elements(op->results[0].type);
  for (uint32_t i = 0; i < op->n_operands; i++) {
    int64_t m = type_num_elements(op->operands[i]->type);
    if (m != n && m != 1) return FK_OTHER;
  }
  /* Unsupported types are reported when the planner prepares the op itself. */
  shl_status st = k->prepare ? k->prepare(pc, op, &o->params) : NULL;
  if (st) {
    shloc_status_free(st);
    return FK_OTHER;
  }
  o->eval = ev;
  o->space = op->results[0].type;
  return FK_EW;
}

/* ---- maps through views ---- */

static void map_start(fmap *m, const shl_type *t, const shl_type *space) {
  m->rank = t->rank;
  m->ident = false;
  if (type_num_elements(t) != type_num_elements(space)) {
    for (int32_t j = 0; j < t->rank; j++) m->src[j] = -1;
  } else if (same_dims(t, space)) {
    for (int32_t j = 0; j < t->rank; j++) m->src[j] = j;
  } else {
    m->ident = true;
  }
}

static bool map_is_identity(const fmap *m, const shl_type *t, const shl_type *space) {
  if (m->ident) return true;
  if (!same_dims(t, space) || m->rank != t->rank) return false;
  for (int32_t j = 0; j < m->rank; j++)
    if (m->src[j] != j) return false;
  return true;
}

/* m maps the group to v = reshape(w) with the same non-unit dimensions:
 * rewrite it for w. */
static bool map_unit_reshape(fmap *m, const shl_type *vt, const shl_type *wt) {
  fmap r = {.rank = wt->rank};
  int32_t j = 0;
  for (int32_t k = 0; k < wt->rank; k++) {
    r.src[k] = -1;
    if (wt->dims[k] == 1) continue;
    while (j < vt->rank && vt->dims[j] == 1) j++;
    if (j == vt->rank || vt->dims[j] != wt->dims[k]) return false;
    r.src[k] = m->src[j++];
  }
  while (j < vt->rank && vt->dims[j] == 1) j++;
  if (j != vt->rank) return false;
  *m = r;
  return true;
}

/* Follows views from v (read by a member of a group of shape `space`
 * through map m) to the value the group reads; pushes the views on the heap
 * when `push`.  Returns NULL when out of memory. */
static const shl_value *walk(fuse_block *fb, const shl_type *space, const shl_value *v, fmap *m, bool push) {
  for (;;) {
    uint32_t j = def_index(fb, v);
    if (j == UINT32_MAX || fb->ops[j].kind != FK_VIEW) return v;
    const shl_op *op = fb->ops[j].op;
    const shl_type *vt = v->type, *wt = op->operands[0]->type;
    if (op_is(op, OP_BROADCAST_IN_DIM)) {
      if (m->ident) {
        if (!same_dims(vt, space)) return v;
        map_start(m, vt, space);
      }
      int64_t bd[KU_MAX_RANK];
      size_t nb;
      if (!ku_ints(op, "broadcast_dimensions", bd, KU_MAX_RANK, &nb) || nb != (size_t)wt->rank) return v;
      fmap w = {.rank = wt->rank};
      for (int32_t k = 0; k < wt->rank; k++) {
        if (bd[k] < 0 || bd[k] >= vt->rank || (wt->dims[k] != 1 && wt->dims[k] != vt->dims[bd[k]])) return v;
        w.src[k] = wt->dims[k] == 1 ? -1 : m->src[bd[k]];
      }
      *m = w;
    } else if (!m->ident && !map_unit_reshape(m, vt, wt)) {
      if (!map_is_identity(m, vt, space)) return v;
      m->ident = true;
    }
    if (push && !heap_push(fb, j)) return NULL;
    v = op->operands[0];
  }
}

/* Whether a member indexed in `space` reads reduction s's row results
 * broadcast along its rows. */
static bool map_is_rowbcast(const fmap *m, const fop *s, const fgroup *g, const shl_type *space) {
  const shl_type *it = s->op->operands[0]->type;
  int32_t lead = s->op->results[0].type->rank;
  if (m->ident || m->rank != lead || !same_dims(it, space) || (g->cols && g->cols != s->cols)) return false;
  for (int32_t j = 0; j < lead; j++)
    if (m->src[j] != j) return false;
  return true;
}

/* ---- group formation ---- */

static bool users_in(const fuse_block *fb, const fop *o, int32_t g, bool *any) {
  bool all = true;
  *any = false;
  for (uint32_t k = 0; k < o->n_users; k++) {
    const fop *u = &fb->ops[o->users[k]];
    bool in = u->group == g && (u->member || u->kind == FK_VIEW);
    *any |= in;
    all &= in;
  }
  return all;
}

static bool others_after(const fuse_block *fb, const fop *o, int32_t g, uint32_t pos) {
  for (uint32_t k = 0; k < o->n_users; k++) {
    const fop *u = &fb->ops[o->users[k]];
    if (!(u->group == g && (u->member || u->kind == FK_VIEW)) && o->users[k] <= pos) return false;
  }
  return true;
}

/* Queues the producers member i reads. */
static bool push_operands(fuse_block *fb, fgroup *g, uint32_t gid, uint32_t i) {
  const shl_op *op = fb->ops[i].op;
  const shl_type *space = fb->ops[i].space;
  for (uint32_t k = 0; k < op->n_operands; k++) {
    fmap m;
    map_start(&m, op->operands[k]->type, space);
    const shl_value *v = walk(fb, space, op->operands[k], &m, true);
    if (!v) return false;
    uint32_t j = def_index(fb, v);
    if (j == UINT32_MAX) continue;
    fop *s = &fb->ops[j];
    if (s->kind == FK_VIEW) s->needed = true;
    if ((s->kind != FK_EW && s->kind != FK_REDUCE) || s->group >= 0) continue;
    bool ok = s->kind == FK_EW ? map_is_identity(&m, v->type, space) : map_is_rowbcast(&m, s, g, space);
    if (!ok) s->blocked = gid + 1;
    if (!heap_push(fb, j)) return false;
  }
  return true;
}

static bool add_member(fgroup *g, uint32_t i) { return push_u32(&g->members, &g->n_members, &g->cap_members, i); }

static shl_status form(fuse_block *fb, uint32_t root) {
  if (fb->n_groups == fb->cap_groups) {
    uint32_t nc = fb->cap_groups ? fb->cap_groups * 2 : 8;
    fgroup *ng = realloc(fb->groups, nc * sizeof *ng);
    if (!ng) return st_oom();
    fb->groups = ng;
    fb->cap_groups = nc;
  }
  uint32_t gid = fb->n_groups++;
  fgroup *g = &fb->groups[gid];
  fop *r = &fb->ops[root];
  *g = (fgroup){.root = root, .anchor = root};
  g->n = type_num_elements(r->space);
  g->cols = r->kind == FK_REDUCE ? r->cols : 0;
  if (!heap_push(fb, root)) return st_oom();
  while (fb->n_heap) {
    uint32_t i = heap_pop(fb);
    fop *o = &fb->ops[i];
    if (o->seen == gid + 1) continue;
    o->seen = gid + 1;
    bool any, internal = users_in(fb, o, (int32_t)gid, &any);
    if (o->kind == FK_VIEW) {
      if (internal) o->group = (int32_t)gid;
      continue;
    }
    if (i != root) {
      if (o->group >= 0 || o->blocked == gid + 1 || g->n_members >= FUSE_MAX_MEMBERS) continue;
      if (!internal && !others_after(fb, o, (int32_t)gid, root)) continue;
      if (o->kind == FK_REDUCE) {
        if ((g->cols && g->cols != o->cols) || (any && o->cols > FUSE_ROW_MAX)) continue;
        g->cols = o->cols;
      }
    }
    o->member = true;
    o->output = i == root || !internal;
    o->group = (int32_t)gid;
    if (!add_member(g, i) || !push_operands(fb, g, gid, i)) return st_oom();
  }
  return NULL;
}

/* ---- sibling merge ---- */

/* Values group g reads element for element (not its own members). */
static shl_status identity_sources(fuse_block *fb, const fgroup *g, const shl_value ***out, uint32_t *n) {
  uint32_t cap = 0;
  *out = NULL;
  *n = 0;
  for (uint32_t k = 0; k < g->n_members; k++) {
    const fop *o = &fb->ops[g->members[k]];
    for (uint32_t a = 0; a < o->op->n_operands; a++) {
      fmap m;
      map_start(&m, o->op->operands[a]->type, o->space);
      const shl_value *v = walk(fb, o->space, o->op->operands[a], &m, false);
      uint32_t j = def_index(fb, v);
      if ((j != UINT32_MAX && fb->ops[j].member && fb->ops[j].group == o->group) ||
          !map_is_identity(&m, v->type, o->space))
        continue;
      if (*n == cap) {
        cap = cap ? cap * 2 : 8;
        const shl_value **nv = realloc(*out, cap * sizeof *nv);
        if (!nv) return st_oom();
        *out = nv;
      }
      (*out)[(*n)++] = v;
    }
  }
  return NULL;
}

/* Merges group a into group b (a's anchor first) when b's anchor may compute a's outputs. */
static bool try_merge(fuse_block *fb, uint32_t ai, uint32_t bi) {
  fgroup *a = &fb->groups[ai], *b = &fb->groups[bi];
  if (a->anchor > b->anchor) return try_merge(fb, bi, ai);
  if (a->n != b->n || (a->cols && b->cols && a->cols != b->cols) || a->n_members + b->n_members > FUSE_MAX_MEMBERS)
    return false;
  for (uint32_t k = 0; k < a->n_members; k++) {
    const fop *o = &fb->ops[a->members[k]];
    if (o->output && !others_after(fb, o, (int32_t)ai, b->anchor)) return false;
  }
  uint32_t need = b->n_members + a->n_members;
  if (need > b->cap_members) {
    uint32_t *nm = realloc(b->members, need * sizeof *nm);
    if (!nm) return false;
    b->members = nm;
    b->cap_members = need;
  }
  for (uint32_t k = 0; k < a->n_members; k++) {
    fb->ops[a->members[k]].group = (int32_t)bi;
    b->members[b->n_members++] = a->members[k];
  }
  if (!b->cols) b->cols = a->cols;
  a->gone = true;
  a->n_members = 0;
  return true;
}

typedef struct {
  const shl_value *v;
  uint32_t group, anchor;
} src_use;

static int by_value_anchor(const void *x, const void *y) {
  const src_use *a = x, *b = y;
  if (a->v != b->v) return (uintptr_t)a->v < (uintptr_t)b->v ? -1 : 1;
  return a->anchor < b->anchor ? -1 : a->anchor > b->anchor;
}

static shl_status merge_siblings(fuse_block *fb) {
  src_use *uses = NULL;
  size_t n = 0, cap = 0;
  shl_status st = NULL;
  for (uint32_t gi = 0; gi < fb->n_groups && !st; gi++) {
    const shl_value **vs;
    uint32_t nv;
    if ((st = identity_sources(fb, &fb->groups[gi], &vs, &nv))) break;
    for (uint32_t k = 0; k < nv; k++) {
      if (n == cap) {
        cap = cap ? cap * 2 : 16;
        src_use *nu = realloc(uses, cap * sizeof *nu);
        if (!nu) {
          st = st_oom();
          break;
        }
        uses = nu;
      }
      uses[n++] = (src_use){vs[k], gi, fb->groups[gi].anchor};
    }
    free(vs);
  }
  if (!st && n) {
    qsort(uses, n, sizeof *uses, by_value_anchor);
    for (size_t k = 1; k < n; k++) {
      if (uses[k].v != uses[k - 1].v) continue;
      /* Follow earlier merges to the groups that hold them now. */
      uint32_t a = uses[k - 1].group, b = uses[k].group;
      a = (uint32_t)fb->ops[fb->groups[a].root].group;
      b = (uint32_t)fb->ops[fb->groups[b].root].group;
      if (a != b) try_merge(fb, a, b);
    }
  }
  free(uses);
  return st;
}

/* ---- row gathers ---- */

static bool ints_are(const shl_attr *dn, const char *name, const int64_t *want, size_t n) {
  int64_t v[KU_MAX_RANK];
  size_t got = 0;
  const shl_attr *a = attr_struct_field(dn, name);
  if (!a) return n == 0;
  if (!attr_as_ints(a, v, KU_MAX_RANK, &got) || got != n) return false;
  for (size_t i = 0; i < n; i++)
    if (v[i] != want[i]) return false;
  return true;
}

/* The value of a chain of views that keep the row-major order (reshapes,
 * broadcasts adding unit dimensions), down to the first that changes it. */
static const shl_value *order_source(const fuse_block *fb, const shl_value *v) {
  for (;;) {
    uint32_t j = def_index(fb, v);
    if (j == UINT32_MAX || fb->ops[j].kind != FK_VIEW) return v;
    const shl_op *op = fb->ops[j].op;
    const shl_type *wt = op->operands[0]->type;
    if (type_num_elements(wt) != type_num_elements(v->type)) return v;
    if (op_is(op, OP_BROADCAST_IN_DIM)) {
      int64_t bd[KU_MAX_RANK];
      size_t nb;
      if (!ku_ints(op, "broadcast_dimensions", bd, KU_MAX_RANK, &nb) || nb != (size_t)wt->rank) return v;
      for (size_t k = 1; k < nb; k++)
        if (bd[k] <= bd[k - 1]) return v;
    }
    v = op->operands[0];
  }
}

/* A gather of whole rows of a matrix, one row per index (jnp.take along
 * axis 0): result element e is table[clamp(idx[e / C])][e % C].  *idx gets
 * the index values in row-major order (through order-keeping views). */
static bool row_gather(const fuse_block *fb, const shl_op *op, const shl_value **idx) {
  if (!op_is(op, OP_GATHER) || op->n_operands != 2 || op->n_results != 1) return false;
  const shl_type *tt = op->operands[0]->type, *it = op->operands[1]->type, *rt = op->results[0].type;
  if (!static_tensor(tt) || !static_tensor(it) || !static_tensor(rt) || tt->rank != 2 || rt->rank < 1 ||
      !dtype_is_int(type_storage_dtype(it)) || type_storage_dtype(rt) != type_storage_dtype(tt) ||
      rt->dims[rt->rank - 1] != tt->dims[1] || tt->dims[0] < 1)
    return false;
  const shl_attr *dn = op_attr(op, "dimension_numbers");
  int64_t sizes[2], ivd = 0;
  size_t ns;
  const int64_t zero = 0, last = rt->rank - 1;
  if (!dn || dn->kind != AT_STRUCT || !ku_ints(op, "slice_sizes", sizes, 2, &ns) || ns != 2 || sizes[0] != 1 ||
      sizes[1] != tt->dims[1] || !ints_are(dn, "offset_dims", &last, 1) || !ints_are(dn, "collapsed_slice_dims", &zero, 1) ||
      !ints_are(dn, "start_index_map", &zero, 1) || !ints_are(dn, "operand_batching_dims", NULL, 0) ||
      !ints_are(dn, "start_indices_batching_dims", NULL, 0))
    return false;
  attr_as_int(attr_struct_field(dn, "index_vector_dim"), &ivd);
  /* one index per row of the result, in order */
  if (ivd != it->rank && !(ivd == it->rank - 1 && it->dims[ivd] == 1)) return false;
  if (type_num_elements(it) * tt->dims[1] != type_num_elements(rt)) return false;
  *idx = order_source(fb, op->operands[1]);
  return true;
}

/* Row gathers read only by members of one group become leaves of it. */
static void absorb_gathers(fuse_block *fb) {
  for (uint32_t k = 0; k < fb->n_ops; k++) {
    fop *o = &fb->ops[k];
    const shl_value *idx;
    if (o->kind != FK_OTHER || !o->n_users || !row_gather(fb, o->op, &idx)) continue;
    int32_t g = fb->ops[o->users[0]].group;
    bool ok = g >= 0 && !fb->groups[g].gone;
    for (uint32_t u = 0; u < o->n_users && ok; u++) {
      const fop *w = &fb->ops[o->users[u]];
      ok = w->member && w->group == g && w->kind == FK_EW && type_num_elements(w->space) == fb->groups[g].n;
    }
    if (!ok) continue;
    o->absorbed = true;
    /* the index value is read by the group, through no view of its own */
    uint32_t j = def_index(fb, idx);
    if (j != UINT32_MAX && fb->ops[j].kind == FK_VIEW) fb->ops[j].needed = true;
  }
}

/* ---- descriptors ---- */

typedef struct {
  fuse_block *fb;
  fgroup *g;
  fnode *nodes;
  uint32_t n_nodes, cap_nodes;
  const shl_value **in;
  uint32_t n_in, cap_in;
  int64_t cols; /* row length (n without reductions) */
} builder;

static uint32_t ext_index(builder *b, const shl_value *v) {
  for (uint32_t k = 0; k < b->n_in; k++)
    if (b->in[k] == v) return k;
  if (b->n_in == b->cap_in) {
    uint32_t nc = b->cap_in ? b->cap_in * 2 : 8;
    const shl_value **ni = realloc(b->in, nc * sizeof *ni);
    if (!ni) return UINT32_MAX;
    b->in = ni;
    b->cap_in = nc;
  }
  b->in[b->n_in] = v;
  return b->n_in++;
}

static fnode *new_node(builder *b) {
  if (b->n_nodes == b->cap_nodes) {
    uint32_t nc = b->cap_nodes ? b->cap_nodes * 2 : 16;
    fnode *nn = realloc(b->nodes, nc * sizeof *nn);
    if (!nn) return NULL;
    b->nodes = nn;
    b->cap_nodes = nc;
  }
  fnode *nd = &b->nodes[b->n_nodes++];
  memset(nd, 0, sizeof *nd);
  nd->out = -1;
  nd->code = EWP_NONE;
  return nd;
}

/* A leaf gathering the rows of an absorbed row gather (row_gather). */
static shl_status rows_leaf(builder *b, const shl_op *g, const shl_value *idx, uint32_t *node) {
  uint32_t tab = ext_index(b, g->operands[0]), ie = ext_index(b, idx);
  if (tab == UINT32_MAX || ie == UINT32_MAX) return st_oom();
  for (uint32_t k = 0; k < b->n_nodes; k++) {
    const fnode *o = &b->nodes[k];
    if (o->kind == FN_LEAF && o->loc == LOC_ROWS && o->ext == tab && o->idx_ext == ie) {
      *node = k;
      return NULL;
    }
  }
  fnode *nd = new_node(b);
  if (!nd) return st_oom();
  const shl_type *tt = g->operands[0]->type;
  nd->kind = FN_LEAF;
  nd->loc = LOC_ROWS;
  nd->dt = type_storage_dtype(tt);
  nd->esz = (uint32_t)dtype_bytes(nd->dt);
  nd->ext = tab;
  nd->idx_ext = ie;
  nd->idx_dt = type_storage_dtype(idx->type);
  nd->tab_rows = tt->dims[0];
  nd->row_len = tt->dims[1];
  *node = b->n_nodes - 1;
  return NULL;
}

/* A leaf reading v through map m of a member whose group shape is `space`. */
/* A constant whose elements are all one value (JAX exports full-shape splat
 * constants): read as a scalar, not streamed from its materialised buffer. */
static bool splat_constant(const shl_value *v) {
  if (!v->def || !op_is(v->def, OP_CONSTANT)) return false;
  const shl_attr *a = op_attr(v->def, "value");
  return a && a->kind == AT_DENSE && a->u.dense.splat;
}

static shl_status leaf(builder *b, const shl_value *v, const fmap *m, const shl_type *space, uint32_t *node) {
  plan_ctx *pc = b->fb->pc;
  uint32_t gj = def_index(b->fb, v);
  const shl_value *idx;
  if (gj != UINT32_MAX && b->fb->ops[gj].absorbed && row_gather(b->fb, b->fb->ops[gj].op, &idx))
    return rows_leaf(b, b->fb->ops[gj].op, idx, node);
  uint32_t ext = ext_index(b, v);
  if (ext == UINT32_MAX) return st_oom();
  shl_dtype dt = type_storage_dtype(v->type);
  uint8_t loc;
  int32_t rank = space->rank;
  int64_t stride[KU_MAX_RANK] = {0}, vs[KU_MAX_RANK];
  if (type_num_elements(v->type) == 1 || splat_constant(v)) {
    loc = LOC_SCALAR;
  } else if (map_is_identity(m, v->type, space)) {
    loc = LOC_EXT;
  } else {
    ku_strides(v->type->rank, v->type->dims, vs);
    for (int32_t j = 0; j < m->rank; j++)
      if (m->src[j] >= 0) stride[m->src[j]] += vs[j];
    /* Constant along rows when every dimension inside a row has stride 0. */
    loc = LOC_FILL;
    int64_t suffix = 1;
    for (int32_t d = rank - 1; d >= 0 && b->g->cols; d--) {
      if (stride[d]) break;
      suffix *= space->dims[d];
      if (suffix == b->cols) {
        loc = LOC_ROWVAL;
        break;
      }
    }
  }
  for (uint32_t k = 0; k < b->n_nodes; k++) {
    const fnode *o = &b->nodes[k];
    if (o->kind != FN_LEAF || o->ext != ext || o->loc != loc) continue;
    bool same = loc == LOC_EXT || loc == LOC_SCALAR;
    if (!same && o->rank == rank && o->dims == space->dims) {
      same = true;
      for (int32_t d = 0; d < rank; d++) same &= o->stride[d] == stride[d];
    }
    if (same) {
      *node = k;
      return NULL;
    }
  }
  fnode *nd = new_node(b);
  if (!nd) return st_oom();
  nd->kind = FN_LEAF;
  nd->loc = loc;
  nd->dt = dt;
  nd->esz = (uint32_t)dtype_bytes(dt);
  nd->ext = ext;
  if (loc == LOC_FILL || loc == LOC_ROWVAL) {
    nd->rank = rank;
    nd->dims = space->dims;
    nd->pitch = plan_alloc(pc, (size_t)rank * sizeof(int64_t));
    nd->stride = plan_alloc(pc, (size_t)rank * sizeof(int64_t));
    if (!nd->pitch || !nd->stride) return st_oom();
    ku_strides(rank, space->dims, nd->pitch);
    memcpy(nd->stride, stride, (size_t)rank * sizeof(int64_t));
  }
  *node = b->n_nodes - 1;
  return NULL;
}

/* The node for operand k of member o. */
static shl_status operand_node(builder *b, const fop *o, uint32_t k, uint32_t *node) {
  fmap m;
  map_start(&m, o->op->operands[k]->type, o->space);
  const shl_value *v = walk(b->fb, o->space, o->op->operands[k], &m, false);
  uint32_t j = def_index(b->fb, v);
  if (j != UINT32_MAX && b->fb->ops[j].member && b->fb->ops[j].group == o->group) {
    *node = b->fb->ops[j].node;
    return NULL;
  }
  return leaf(b, v, &m, o->space, node);
}

static int cmp_u32(const void *x, const void *y) {
  uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
  return a < b ? -1 : a > b;
}

/* What the scratch layout tracks per node besides the node itself. */
typedef struct {
  uint32_t last; /* the last node reading it */
  uint32_t tile; /* its scratch tile, UINT32_MAX = none */
} node_use;

/* The nodes a node reads: an elementwise node's operands, a reduction's source. */
static uint32_t node_inputs(const fnode *nd, uint32_t in[3]) {
  if (nd->kind == FN_EW) {
    memcpy(in, nd->in, sizeof nd->in);
    return nd->n_in;
  }
  in[0] = nd->src;
  return nd->kind == FN_REDUCE ? 1 : 0;
}

/* Passes: a node runs in the first pass all its inputs exist in, and a
 * reduction's results exist from the pass after it folds.  Records each
 * node's last reader and the passes that read it. */
static void assign_passes(fused_params *fp, node_use *use) {
  fnode *nodes = fp->nodes;
  uint32_t passes = 1;
  for (uint32_t k = 0; k < fp->n_nodes; k++) {
    nodes[k].first_pass = UINT32_MAX;
    nodes[k].last_pass = 0;
  }
  for (uint32_t k = 0; k < fp->n_nodes; k++) {
    fnode *nd = &nodes[k];
    uint32_t in[3], n_in = node_inputs(nd, in), pass = 0;
    if (nd->kind == FN_EW) {
      for (uint32_t j = 0; j < n_in; j++)
        if (nodes[in[j]].avail > nd->avail) nd->avail = nodes[in[j]].avail;
      pass = nd->avail;
    } else if (nd->kind == FN_REDUCE) {
      pass = nodes[nd->src].avail;
      nd->avail = pass + 1;
    }
    if (pass + 1 > passes) passes = pass + 1;
    for (uint32_t j = 0; j < n_in; j++) {
      fnode *s = &nodes[in[j]];
      use[in[j]].last = k;
      if (nd->kind == FN_EW && s->kind == FN_REDUCE) s->consumed = true;
      if (pass > s->last_pass) s->last_pass = pass;
      if (pass < s->first_pass) s->first_pass = pass;
    }
  }
  fp->n_passes = passes;
}

/* Values computed into tiles live from their node to their last reader
 * within one pass; values read again in later passes keep a row buffer. */
static void assign_locations(fused_params *fp) {
  for (uint32_t k = 0; k < fp->n_nodes; k++) {
    fnode *nd = &fp->nodes[k];
    if (nd->kind == FN_EW)
      nd->loc = nd->out >= 0 ? LOC_OUT : nd->last_pass > nd->avail ? LOC_ROW : LOC_TILE;
    else if (nd->kind == FN_REDUCE)
      nd->loc = LOC_VALUE;
  }
}

/* Scratch tiles: permanent ones for filled leaves and consumed reduction
 * results, reused ones for LOC_TILE values (freed after their last reader).
 * Returns the tile count; *n_streams counts the buffers read or written in place. */
static shl_status assign_tiles(const fused_params *fp, node_use *use, uint32_t *n_tiles, uint32_t *n_streams) {
  const fnode *nodes = fp->nodes;
  uint32_t *free_tiles = malloc((fp->n_nodes + 1) * sizeof *free_tiles), n_free = 0;
  if (!free_tiles) return st_oom();
  *n_tiles = *n_streams = 0;
  for (uint32_t k = 0; k < fp->n_nodes; k++) {
    const fnode *nd = &nodes[k];
    bool permanent = (nd->kind == FN_LEAF && nd->loc != LOC_EXT) || (nd->kind == FN_REDUCE && nd->consumed);
    use[k].tile = UINT32_MAX;
    if (permanent || (nd->kind == FN_EW && nd->loc == LOC_TILE))
      use[k].tile = permanent || !n_free ? (*n_tiles)++ : free_tiles[--n_free];
    *n_streams += nd->loc == LOC_EXT || nd->loc == LOC_OUT;
    uint32_t in[3], n_in = node_inputs(nd, in);
    for (uint32_t j = 0; j < n_in; j++) {
      uint32_t s = in[j];
      if (nodes[s].kind == FN_EW && nodes[s].loc == LOC_TILE && use[s].last == k) {
        bool dup = false;
        for (uint32_t q = 0; q < n_free; q++) dup |= free_tiles[q] == use[s].tile;
        if (!dup) free_tiles[n_free++] = use[s].tile;
      }
    }
  }
  free(free_tiles);
  return NULL;
}

/* Chunks: as long as the tiles and the chunks of the buffers read and
 * written in place fit in L1 with room to spare; several short rows share
 * a chunk. */
static void size_chunks(fused_params *fp, uint32_t n_buffers, size_t max_esz) {
  int64_t tile = FUSE_TILE, cols = fp->cols;
  while (tile > FUSE_TILE / 4 && (size_t)n_buffers * (size_t)tile * max_esz > FUSE_L1_BUDGET) tile /= 2;
  fp->block_rows = 1;
  fp->chunk = cols < tile ? cols : tile;
  if ((fp->rows > 1 || fp->n_passes > 1) && cols < tile) {
    fp->block_rows = cols ? tile / cols : fp->rows;
    if (fp->block_rows > fp->rows) fp->block_rows = fp->rows;
    if (fp->block_rows < 1) fp->block_rows = 1;
    fp->chunk = fp->block_rows * cols;
  }
}

/* Per-thread scratch: pointers | accumulators | tiles | row buffers. */
static void place_scratch(fused_params *fp, const node_use *use, uint32_t n_tiles, size_t max_esz) {
  fnode *nodes = fp->nodes;
  size_t off = plan_align64(fp->n_nodes * sizeof(void *));
  fp->acc_off = off;
  for (uint32_t k = 0; k < fp->n_nodes; k++)
    if (nodes[k].kind == FN_REDUCE) {
      nodes[k].acc = off - fp->acc_off;
      off += plan_align64((size_t)fp->block_rows * 16);
    }
  size_t tile_bytes = plan_align64((size_t)fp->chunk * max_esz);
  for (uint32_t k = 0; k < fp->n_nodes; k++)
    if (use[k].tile != UINT32_MAX) nodes[k].off = off + use[k].tile * tile_bytes;
  off += n_tiles * tile_bytes;
  int64_t row_len = fp->cols > fp->chunk ? fp->cols : fp->chunk;
  for (uint32_t k = 0; k < fp->n_nodes; k++)
    if (nodes[k].kind == FN_EW && nodes[k].loc == LOC_ROW) {
      nodes[k].off = off;
      off += plan_align64((size_t)row_len * nodes[k].esz);
    }
  fp->scratch = plan_align64(off);
}

/* Passes, value locations and the per-thread scratch layout. */
static shl_status scratch_layout(plan_ctx *pc, fused_params *fp) {
  node_use *use = calloc(fp->n_nodes + 1, sizeof *use);
  if (!use) return st_oom();
  size_t max_esz = 1;
  for (uint32_t k = 0; k < fp->n_nodes; k++)
    if (fp->nodes[k].esz > max_esz) max_esz = fp->nodes[k].esz;
  assign_passes(fp, use);
  assign_locations(fp);
  uint32_t n_tiles = 0, n_streams = 0;
  shl_status st = assign_tiles(fp, use, &n_tiles, &n_streams);
  if (!st) {
    size_chunks(fp, n_tiles + n_streams, max_esz);
    place_scratch(fp, use, n_tiles, max_esz);
  }
  free(use);
  return st ? st : fuse_cache_new(pc, fp);
}

/* With one row per block, a reduction's row result is one value per
 * chunk: f32 arithmetic reading it takes it as a scalar operand (the same
 * results), and when every reader does, its tile holds just that value
 * instead of a copy per element. */
static bool scalar_reader(const fused_params *fp, const fnode *nd, uint32_t r) {
  if (nd->kind != FN_EW || nd->eval != ew_binary_eval || !ew_binary_scalar_ok(nd->params)) return false;
  uint32_t other = nd->in[0] == r ? nd->in[1] : nd->in[0];
  return (nd->in[0] == r) != (nd->in[1] == r) && fp->nodes[other].kind != FN_REDUCE;
}

static void scalar_reads(fused_params *fp) {
  if (fp->block_rows != 1) return;
  for (uint32_t r = 0; r < fp->n_nodes; r++) {
    fnode *red = &fp->nodes[r];
    if (red->kind != FN_REDUCE || !red->consumed) continue;
    bool all = true;
    for (uint32_t k = r + 1; k < fp->n_nodes; k++) {
      const fnode *nd = &fp->nodes[k];
      if (nd->kind == FN_EW && (nd->in[0] == r || (nd->n_in > 1 && nd->in[1] == r) || (nd->n_in > 2 && nd->in[2] == r)))
        all &= scalar_reader(fp, nd, r);
    }
    if (!all) continue;
    red->scalar = true;
    for (uint32_t k = r + 1; k < fp->n_nodes; k++)
      if (scalar_reader(fp, &fp->nodes[k], r)) fp->nodes[k].eval = fp->nodes[k].in[0] == r ? ew_binary_eval_sa : ew_binary_eval_sb;
  }
}

/* The group's kernel params and fused op site from its nodes. */
static shl_status finish_group(fuse_block *fb, fgroup *g, const builder *b, uint32_t n_out) {
  plan_ctx *pc = fb->pc;
  fused_params *fp = plan_alloc(pc, sizeof *fp);
  if (!fp) return st_oom();
  memset(fp, 0, sizeof *fp);
  fp->n_nodes = b->n_nodes;
  fp->n_in = b->n_in;
  fp->n_out = n_out;
  fp->n = g->n;
  fp->cols = b->cols;
  fp->rows = g->cols ? g->n / g->cols : 1;
  fp->nodes = plan_alloc(pc, (b->n_nodes + 1) * sizeof *fp->nodes);
  g->site.in = plan_alloc(pc, (b->n_in + 1) * sizeof *g->site.in);
  g->site.out = plan_alloc(pc, (n_out + 1) * sizeof *g->site.out);
  if (!fp->nodes || !g->site.in || !g->site.out) return st_oom();
  memcpy(fp->nodes, b->nodes, b->n_nodes * sizeof *fp->nodes);
  memcpy(g->site.in, b->in, b->n_in * sizeof *b->in);
  for (uint32_t k = 0; k < g->n_members; k++) {
    const fop *o = &fb->ops[g->members[k]];
    if (o->output) g->site.out[fp->nodes[o->node].out] = &o->op->results[0];
  }
  g->site.params = fp;
  g->site.n_in = b->n_in;
  g->site.n_out = n_out;
  ST_TRY(scratch_layout(pc, fp));
  scalar_reads(fp);
  ST_TRY(fuse_prog_build(pc, fp));
  return fuse_softmax_build(pc, fp);
}

/* The register program code of member o: f32 ops whose own kernels use
 * the vector loops the programs share (see ew_unary_eval, ew_binary_eval). */
static uint8_t prog_code(const fop *o) {
  ew_prog_code c;
  if (o->eval == ew_unary_eval) {
    if (type_storage_dtype(o->op->operands[0]->type) != DT_F32 || type_storage_dtype(o->op->results[0].type) != DT_F32)
      return EWP_NONE;
    c = ew_prog_code_of(op_id(o->op));
    return c < EWP_ADD ? c : EWP_NONE;
  }
  if (o->eval != ew_binary_eval || !ew_binary_scalar_ok(o->params)) return EWP_NONE;
  c = ew_prog_code_of(((const ew_binary_op *)o->params)->id);
  return c >= EWP_ADD ? c : EWP_NONE;
}

static shl_status build_group(fuse_block *fb, fgroup *g) {
  qsort(g->members, g->n_members, sizeof *g->members, cmp_u32);
  g->anchor = g->members[g->n_members - 1];
  builder b = {.fb = fb, .g = g, .cols = g->cols ? g->cols : g->n};
  uint32_t n_out = 0;
  shl_status st = NULL;
  for (uint32_t k = 0; k < g->n_members && !st; k++) {
    fop *o = &fb->ops[g->members[k]];
    uint32_t ins[3] = {0, 0, 0}, n_in = o->kind == FK_EW ? o->op->n_operands : 1;
    for (uint32_t a = 0; a < n_in && !st; a++) st = operand_node(&b, o, a, &ins[a]);
    uint32_t init = 0;
    if (!st && o->kind == FK_REDUCE) {
      fmap m;
      map_start(&m, o->op->operands[1]->type, o->space);
      init = ext_index(&b, walk(fb, o->space, o->op->operands[1], &m, false));
      if (init == UINT32_MAX) st = st_oom();
    }
    fnode *nd = st ? NULL : new_node(&b);
    if (!st && !nd) st = st_oom();
    if (st) break;
    nd->dt = type_storage_dtype(o->op->results[0].type);
    nd->esz = (uint32_t)dtype_bytes(nd->dt);
    if (o->output) nd->out = (int32_t)n_out++;
    if (o->kind == FK_EW) {
      nd->kind = FN_EW;
      nd->eval = o->eval;
      /* f32 arithmetic with one scalar operand reads the scalar itself */
      if (o->eval == ew_binary_eval && ew_binary_scalar_ok(o->params)) {
        bool sa = b.nodes[ins[0]].loc == LOC_SCALAR && b.nodes[ins[0]].kind == FN_LEAF;
        bool sb = b.nodes[ins[1]].loc == LOC_SCALAR && b.nodes[ins[1]].kind == FN_LEAF;
        if (sa != sb) nd->eval = sa ? ew_binary_eval_sa : ew_binary_eval_sb;
      }
      nd->params = o->params;
      nd->code = prog_code(o);
      nd->n_in = n_in;
      memcpy(nd->in, ins, sizeof ins);
    } else {
      nd->kind = FN_REDUCE;
      nd->src = ins[0];
      nd->binop = o->binop;
      nd->ext = init;
    }
    o->node = b.n_nodes - 1;
  }
  if (!st) st = finish_group(fb, g, &b, n_out);
  free(b.nodes);
  free(b.in);
  return st;
}

/* ---- scalar operands of scatters ---- */

/* The one-element value below a chain of views ending at v, or NULL. */
static const shl_value *scalar_source(const fuse_block *fb, const shl_value *v) {
  for (uint32_t j; (j = def_index(fb, v)) != UINT32_MAX && fb->ops[j].kind == FK_VIEW;) v = fb->ops[j].op->operands[0];
  return type_num_elements(v->type) == 1 ? v : NULL;
}

/* Whether user reads view only as the input or the updates of a
 * one-result scatter that accepts one element there (scatter.c). */
static bool scatter_scalar_use(const fuse_block *fb, const fop *view, const fop *user) {
  const shl_op *op = user->op;
  const shl_value *v = &view->op->results[0];
  if (!op_is(op, OP_SCATTER) || op->n_results != 1 || op->n_operands != 3 || op->operands[1] == v ||
      type_num_elements(v->type) < 2 || !scalar_source(fb, v))
    return false;
  return op->operands[0] == v || op->operands[2] == v;
}

const shl_value *fuse_operand(const fuse_block *fb, const shl_value *v) {
  uint32_t j = def_index(fb, v);
  if (j == UINT32_MAX || fb->ops[j].kind != FK_VIEW || !fb->ops[j].dead) return v;
  const shl_value *s = scalar_source(fb, v);
  return s ? s : v;
}

/* ---- driver ---- */

static bool note_uses(fuse_block *fb, const shl_op *op, uint32_t u) {
  for (uint32_t k = 0; k < op->n_operands; k++) {
    uint32_t j = def_index(fb, op->operands[k]);
    if (j == UINT32_MAX) continue;
    fop *d = &fb->ops[j];
    if ((!d->n_users || d->users[d->n_users - 1] != u) && !push_u32(&d->users, &d->n_users, &d->cap_users, u))
      return false;
  }
  for (uint32_t r = 0; r < op->n_regions; r++)
    for (uint32_t bi = 0; bi < op->regions[r].n_blocks; bi++)
      for (const shl_op *o = op->regions[r].blocks[bi]->first; o; o = o->next)
        if (!note_uses(fb, o, u)) return false;
  return true;
}

void fuse_free(fuse_block *fb) {
  if (!fb) return;
  for (uint32_t k = 0; k < fb->n_ops; k++) free(fb->ops[k].users);
  for (uint32_t g = 0; g < fb->n_groups; g++) free(fb->groups[g].members);
  free(fb->ops);
  free(fb->groups);
  free(fb->hkey);
  free(fb->hval);
  free(fb->heap);
  free(fb);
}

shl_status fuse_analyze(plan_ctx *pc, const shl_block *blk, fuse_block **out) {
  *out = NULL;
  uint32_t n = 0;
  for (const shl_op *op = blk->first; op; op = op->next) n++;
  fuse_block *fb = calloc(1, sizeof *fb);
  if (!fb) return st_oom();
  fb->pc = pc;
  fb->blk = blk;
  fb->n_ops = n;
  fb->hcap = 16;
  while (fb->hcap < 2 * (size_t)n) fb->hcap *= 2;
  fb->ops = calloc(n + 1, sizeof *fb->ops);
  fb->hkey = calloc(fb->hcap, sizeof *fb->hkey);
  fb->hval = calloc(fb->hcap, sizeof *fb->hval);
  shl_status st = NULL;
  if (!fb->ops || !fb->hkey || !fb->hval) st = st_oom();
  uint32_t i = 0, n_fusible = 0;
  for (const shl_op *op = blk->first; op && !st; op = op->next, i++) {
    size_t j = ptrmap_hash(op) & (fb->hcap - 1);
    while (fb->hkey[j]) j = (j + 1) & (fb->hcap - 1);
    fb->hkey[j] = op;
    fb->hval[j] = i;
    fop *o = &fb->ops[i];
    o->op = op;
    o->group = -1;
    o->kind = classify(pc, o);
    n_fusible += o->kind == FK_EW || o->kind == FK_REDUCE;
    if (!note_uses(fb, op, i)) st = st_oom();
  }
  if (!st && !n_fusible) {
    fuse_free(fb);
    return NULL;
  }
  for (uint32_t k = n; k-- > 0 && !st;)
    if ((fb->ops[k].kind == FK_EW || fb->ops[k].kind == FK_REDUCE) && fb->ops[k].group < 0) st = form(fb, k);
  if (!st) st = merge_siblings(fb);
  /* A lone op on a few elements runs faster as itself (e.g. in the scalar
   * bodies of sorts and reductions, called per element). */
  for (uint32_t g = 0; g < fb->n_groups && !st; g++) {
    fgroup *gr = &fb->groups[g];
    if (gr->gone || gr->n_members != 1 || gr->n >= FUSE_TILE) continue;
    fop *o = &fb->ops[gr->members[0]];
    o->member = false;
    o->group = -1;
    gr->gone = true;
  }
  if (!st) absorb_gathers(fb);
  /* A view is materialised only for readers outside the groups. */
  for (uint32_t k = n; k-- > 0 && !st;) {
    fop *o = &fb->ops[k];
    if (o->kind != FK_VIEW) continue;
    o->dead = !o->needed;
    for (uint32_t u = 0; u < o->n_users; u++) {
      const fop *w = &fb->ops[o->users[u]];
      o->dead &= w->member || w->absorbed || (w->kind == FK_VIEW && w->dead) || scatter_scalar_use(fb, o, w);
    }
  }
  for (uint32_t g = 0; g < fb->n_groups && !st; g++)
    if (!fb->groups[g].gone) st = build_group(fb, &fb->groups[g]);
  if (st) {
    fuse_free(fb);
    return st;
  }
  *out = fb;
  return NULL;
}

fuse_action fuse_action_at(const fuse_block *fb, uint32_t i, const fuse_site **site) {
  const fop *o = &fb->ops[i];
  if (o->kind == FK_VIEW) return o->dead ? FUSE_SKIP : FUSE_KEEP;
  if (o->absorbed) return FUSE_SKIP;
  if (!o->member) return FUSE_KEEP;
  const fgroup *g = &fb->groups[o->group];
  if (g->anchor != i) return FUSE_SKIP;
  *site = &g->site;
  return FUSE_EMIT;
}
