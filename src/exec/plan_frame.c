/* Frame layout: best-fit reuse of the ranges of slots no longer live. */
#include "plan_frame.h"

#include <stdlib.h>
#include <string.h>

#include "fuse.h"

static bool lives_reserve(plan_lives *l, size_t n) {
  if (n <= l->cap) return true;
  size_t ncap = l->cap ? l->cap : 64;
  while (ncap < n) ncap *= 2;
  slot_life *nv = realloc(l->v, ncap * sizeof *nv);
  if (!nv) return false;
  for (size_t k = l->cap; k < ncap; k++) nv[k] = (slot_life){UINT32_MAX, UINT32_MAX};
  l->v = nv;
  l->cap = ncap;
  return true;
}

bool lives_def(plan_lives *l, uint32_t slot, uint32_t at) {
  if (!lives_reserve(l, (size_t)slot + 1)) return false;
  l->v[slot].def = at;
  return true;
}

bool lives_use(plan_lives *l, uint32_t slot, uint32_t at) {
  if (!lives_reserve(l, (size_t)slot + 1)) return false;
  l->v[slot].last = at;
  return true;
}

void lives_free(plan_lives *l) {
  free(l->v);
  *l = (plan_lives){0};
}

static size_t slot_bytes(const plan_slot *sl) {
  int64_t nb = sl->type->kind == TY_TENSOR ? type_num_bytes(sl->type) : 0;
  return plan_align64((size_t)(nb > 0 ? nb : 0));
}

/* The slot whose buffer s uses (following views and in-place updates). */
static uint32_t buffer_of(const exec_plan *p, uint32_t s) {
  while (p->slots[s].share) s = p->slots[s].share - 1;
  return s;
}

/* A softmax group (fuse_softmax.c) or a group of one f32 binary op
 * (fuse_run.c) writes its result over operand sx when nothing reads that
 * buffer later (nor another operand of the group, through the same slot or
 * a view) and the result is not one of the plan's. */
static void share_fused(exec_plan *p, slot_life *life, uint32_t i, uint32_t sx) {
  const plan_op *po = &p->ops[i];
  uint32_t o = po->in_slots[sx], r = po->out_slots[0], root = buffer_of(p, o);
  if (p->slots[o].kind != SLOT_FRAME || life[root].last != i || life[r].last > p->n_ops ||
      slot_bytes(&p->slots[o]) != slot_bytes(&p->slots[r]))
    return;
  for (uint32_t j = 0; j < po->n_in; j++)
    if (j != sx && p->slots[po->in_slots[j]].kind == SLOT_FRAME && buffer_of(p, po->in_slots[j]) == root) return;
  p->slots[r].share = root + 1;
  if (life[r].last > life[root].last) life[root].last = life[r].last;
}

/* Scatter updates its results in place when they share the inputs' buffers:
 * a result takes over input k's buffer when nothing reads that buffer later
 * (nor elsewhere in the op, through the same slot or a view), so the copy of
 * the input disappears.  Fused groups likewise (share_fused). */
static void share_dead_operands(exec_plan *p, slot_life *life) {
  for (uint32_t i = 0; i < p->n_ops; i++) {
    const plan_op *po = &p->ops[i];
    int sx = po->kernel == &kernel_fused ? fuse_softmax_input(po->params) : -1;
    if (po->kernel == &kernel_fused && sx < 0) sx = fuse_inplace_input(po->params);
    if (sx >= 0) share_fused(p, life, i, (uint32_t)sx);
    if (po->kernel != &kernel_scatter) continue;
    for (uint32_t k = 0; k < po->n_out && k < po->n_in; k++) {
      uint32_t o = po->in_slots[k], r = po->out_slots[k];
      plan_slot *so = &p->slots[o], *sr = &p->slots[r];
      uint32_t root = buffer_of(p, o); /* its life covers its views' */
      if (so->kind != SLOT_FRAME || life[root].last != i || slot_bytes(so) != slot_bytes(sr)) continue;
      bool once = true;
      for (uint32_t j = 0; j < po->n_in; j++)
        once &= j == k || p->slots[po->in_slots[j]].kind != SLOT_FRAME || buffer_of(p, po->in_slots[j]) != root;
      for (uint32_t g = 0; g < po->op->n_regions; g++)
        for (uint32_t c = 0; c < po->regions[g]->n_captures; c++) {
          uint32_t ps = po->regions[g]->captures[c].parent_slot;
          once &= p->slots[ps].kind != SLOT_FRAME || buffer_of(p, ps) != root;
        }
      if (!once) continue;
      sr->share = root + 1;
      if (life[r].last > life[root].last) life[root].last = life[r].last;
    }
  }
}

typedef struct {
  size_t off, size;
} range;

typedef struct {
  const slot_life *life;
  bool by_last;
} life_key;

/* qsort_r (glibc): executables may be planned on several threads at once. */
static int by_life(const void *a, const void *b, void *key) {
  const life_key *k = key;
  const slot_life *x = &k->life[*(const uint32_t *)a], *y = &k->life[*(const uint32_t *)b];
  uint32_t u = k->by_last ? x->last : x->def, v = k->by_last ? y->last : y->def;
  return u < v ? -1 : u > v;
}

/* The frame's free space while slots are placed: ranges below `top`, sorted
 * by offset, never adjacent to each other nor to `top` (freed ranges merge
 * with their neighbours), so the list stays as short as the frame has holes
 * and a slot placed at the top never skips a free range below it. */
typedef struct {
  range *v;
  size_t n, cap;
  size_t top, high; /* end of the used part now, and its largest value (frame_bytes) */
} frame_space;

static void space_remove(frame_space *fs, size_t k) {
  memmove(&fs->v[k], &fs->v[k + 1], (fs->n - k - 1) * sizeof *fs->v);
  fs->n--;
}

/* Gives slot `sl` the smallest free range that holds it, or the top of the frame. */
static void place(plan_slot *sl, frame_space *fs) {
  size_t need = slot_bytes(sl), best = SIZE_MAX;
  for (size_t k = 0; k < fs->n; k++)
    if (fs->v[k].size >= need && (best == SIZE_MAX || fs->v[k].size < fs->v[best].size)) best = k;
  if (best == SIZE_MAX) {
    sl->offset = fs->top;
    fs->top += need;
    if (fs->top > fs->high) fs->high = fs->top;
    return;
  }
  sl->offset = fs->v[best].off;
  fs->v[best].off += need;
  fs->v[best].size -= need;
  if (!fs->v[best].size) space_remove(fs, best);
}

/* Returns [off, off + size) to the free space. */
static bool release(frame_space *fs, size_t off, size_t size) {
  if (!size) return true;
  size_t k = 0, lo = 0, hi = fs->n; /* k: the first range after off */
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (fs->v[mid].off < off) lo = mid + 1;
    else hi = mid;
  }
  k = lo;
  if (k > 0 && fs->v[k - 1].off + fs->v[k - 1].size == off) { /* joins the range before */
    off = fs->v[k - 1].off;
    size += fs->v[k - 1].size;
    space_remove(fs, --k);
  }
  if (k < fs->n && off + size == fs->v[k].off) { /* and the one after */
    size += fs->v[k].size;
    space_remove(fs, k);
  }
  if (off + size == fs->top) {
    fs->top = off;
    return true;
  }
  if (fs->n == fs->cap) {
    size_t ncap = fs->cap ? fs->cap * 2 : 16;
    range *nv = realloc(fs->v, ncap * sizeof *nv);
    if (!nv) return false;
    fs->v = nv;
    fs->cap = ncap;
  }
  memmove(&fs->v[k + 1], &fs->v[k], (fs->n - k) * sizeof *fs->v);
  fs->v[k] = (range){off, size};
  fs->n++;
  return true;
}

/* Up to this many buffers, a frame is also packed offline (pack_by_size,
 * quadratic) and the smaller of the two layouts kept. */
enum { PACK_BY_SIZE_MAX = 2048 };

typedef struct {
  const exec_plan *p;
  const slot_life *life;
} size_key;

static int by_size(const void *a, const void *b, void *key) {
  const size_key *k = key;
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  size_t sx = slot_bytes(&k->p->slots[x]), sy = slot_bytes(&k->p->slots[y]);
  if (sx != sy) return sx > sy ? -1 : 1;
  return k->life[x].def < k->life[y].def ? -1 : k->life[x].def > k->life[y].def;
}

/* Offline packing, largest buffer first: each goes to the lowest offset free
 * of every buffer already placed whose lifetime meets its own.  With all
 * lifetimes known this avoids what the in-order placement cannot: a large
 * buffer defined later finding only holes too small for it (attention's
 * 8 MB score matrices).  off[s] gets each slot's offset; returns the frame
 * size, or SIZE_MAX when out of memory. */
static size_t pack_by_size(const exec_plan *p, const slot_life *life, const uint32_t *slots, size_t n, size_t *off) {
  uint32_t *order = malloc((n + 1) * sizeof *order), *placed = malloc((n + 1) * sizeof *placed);
  if (!order || !placed) {
    free(order);
    free(placed);
    return SIZE_MAX;
  }
  memcpy(order, slots, n * sizeof *order);
  qsort_r(order, n, sizeof *order, by_size, &(size_key){p, life});
  size_t high = 0;
  for (size_t k = 0; k < n; k++) {
    uint32_t s = order[k];
    size_t need = slot_bytes(&p->slots[s]), at = 0, ins = 0;
    /* placed is sorted by offset: once one starts past [at, at + need), so do the rest. */
    for (size_t j = 0; j < k && off[placed[j]] < at + need; j++) {
      uint32_t q = placed[j];
      size_t end = off[q] + slot_bytes(&p->slots[q]);
      if (life[q].def <= life[s].last && life[s].def <= life[q].last && end > at) at = end;
    }
    off[s] = at;
    if (at + need > high) high = at + need;
    while (ins < k && off[placed[ins]] <= at) ins++;
    memmove(&placed[ins + 1], &placed[ins], (k - ins) * sizeof *placed);
    placed[ins] = s;
  }
  free(order);
  free(placed);
  return high;
}

shl_status plan_frame_layout(exec_plan *p, plan_lives *l) {
  if (!lives_reserve(l, (size_t)p->n_slots + 1)) return st_oom();
  slot_life *life = l->v;
  /* Results never read (unused) still need memory until their op ends. */
  for (uint32_t s = 0; s < p->n_slots; s++)
    if (p->slots[s].kind == SLOT_FRAME && life[s].last == UINT32_MAX) life[s].last = life[s].def;
  /* A view (a reshape; plan.c) keeps the buffer it shares alive. */
  for (uint32_t s = 0; s < p->n_slots; s++) {
    uint32_t root = p->slots[s].share - 1;
    if (p->slots[s].share && life[s].last > life[root].last) life[root].last = life[s].last;
  }
  share_dead_operands(p, life);
  /* Views of a scatter result share what the result took over. */
  for (uint32_t s = 0; s < p->n_slots; s++)
    if (p->slots[s].share) p->slots[s].share = buffer_of(p, s) + 1;
  uint32_t *by_def = malloc((p->n_slots + 1) * sizeof *by_def), *by_last = malloc((p->n_slots + 1) * sizeof *by_last);
  frame_space fs = {0};
  size_t nf = 0;
  shl_status st = NULL;
  if (!by_def || !by_last) {
    st = st_oom();
    goto out;
  }
  for (uint32_t s = 0; s < p->n_slots; s++)
    if (p->slots[s].kind == SLOT_FRAME && !p->slots[s].share) {
      by_def[nf] = s;
      by_last[nf++] = s;
    }
  qsort_r(by_def, nf, sizeof *by_def, by_life, &(life_key){life, false});
  qsort_r(by_last, nf, sizeof *by_last, by_life, &(life_key){life, true});
  size_t d = 0, e = 0;
  for (uint32_t i = 0; i <= p->n_ops + 1; i++) {
    for (; d < nf && life[by_def[d]].def == i; d++) place(&p->slots[by_def[d]], &fs);
    for (; e < nf && life[by_last[e]].last == i; e++) {
      const plan_slot *sl = &p->slots[by_last[e]];
      if (!release(&fs, sl->offset, slot_bytes(sl))) {
        st = st_oom();
        goto out;
      }
    }
  }
  p->frame_bytes = fs.high;
  if (nf <= PACK_BY_SIZE_MAX) {
    size_t *off = malloc((p->n_slots + 1) * sizeof *off);
    size_t high = off ? pack_by_size(p, life, by_def, nf, off) : SIZE_MAX;
    if (high == SIZE_MAX) st = st_oom();
    else if (high < p->frame_bytes) {
      p->frame_bytes = high;
      for (size_t k = 0; k < nf; k++) p->slots[by_def[k]].offset = off[by_def[k]];
    }
    free(off);
  }
  for (uint32_t s = 0; s < p->n_slots; s++)
    if (p->slots[s].share) p->slots[s].offset = p->slots[p->slots[s].share - 1].offset;
out:
  free(by_def);
  free(by_last);
  free(fs.v);
  return st;
}
