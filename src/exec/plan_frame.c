/* Frame layout: best-fit reuse of the ranges of slots no longer live. */
#include "plan_frame.h"

#include <stdlib.h>

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

static uint32_t root_of(const exec_plan *p, uint32_t s) { return p->slots[s].share ? p->slots[s].share - 1 : s; }

/* Result r takes over the buffer of operand slot o: the root's life grows to
 * cover r's. */
static void share_with(exec_plan *p, slot_life *life, uint32_t o, uint32_t r) {
  uint32_t root = root_of(p, o);
  p->slots[r].share = root + 1;
  if (life[r].last > life[root].last) life[root].last = life[r].last;
}

/* Buffers shared between slots (ops in order, so a root's life covers every
 * earlier sharer's):
 * - a reshape's result is its operand's bytes: it takes the operand's buffer
 *   (neither is written again) unless either is a result of the plan;
 * - scatter updates its results in place: a result takes over input k's
 *   buffer when nothing reads that buffer later (under any slot sharing it,
 *   nor elsewhere in the op), so the copy of the input disappears;
 * - a softmax group likewise writes its result over its operand. */
static void share_buffers(exec_plan *p, slot_life *life) {
  for (uint32_t i = 0; i < p->n_ops; i++) {
    const plan_op *po = &p->ops[i];
    int sx = po->kernel == &kernel_fused ? fuse_softmax_input(po->params) : -1;
    if (sx >= 0) {
      uint32_t o = po->in_slots[sx], r = po->out_slots[0], root = root_of(p, o);
      bool once = p->slots[o].kind == SLOT_FRAME && life[root].last == i && life[r].last <= p->n_ops &&
                  slot_bytes(&p->slots[o]) == slot_bytes(&p->slots[r]);
      for (uint32_t j = 0; once && j < po->n_in; j++)
        once = j == (uint32_t)sx || p->slots[po->in_slots[j]].kind != SLOT_FRAME || root_of(p, po->in_slots[j]) != root;
      if (once) share_with(p, life, o, r);
      continue;
    }
    if (po->kernel == &kernel_reshape && po->n_in == 1 && po->n_out == 1) {
      uint32_t o = po->in_slots[0], r = po->out_slots[0];
      if (p->slots[o].kind == SLOT_FRAME && p->slots[r].kind == SLOT_FRAME && !p->slots[r].share &&
          life[root_of(p, o)].last <= p->n_ops && life[r].last <= p->n_ops && slot_bytes(&p->slots[o]) == slot_bytes(&p->slots[r]))
        share_with(p, life, o, r);
      continue;
    }
    if (po->kernel != &kernel_scatter) continue;
    for (uint32_t k = 0; k < po->n_out && k < po->n_in; k++) {
      uint32_t o = po->in_slots[k], r = po->out_slots[k], root = root_of(p, o);
      plan_slot *so = &p->slots[o], *sr = &p->slots[r];
      if (so->kind != SLOT_FRAME || life[root].last != i || slot_bytes(so) != slot_bytes(sr)) continue;
      bool once = true;
      for (uint32_t j = 0; j < po->n_in; j++)
        once &= j == k || p->slots[po->in_slots[j]].kind != SLOT_FRAME || root_of(p, po->in_slots[j]) != root;
      for (uint32_t g = 0; g < po->op->n_regions; g++)
        for (uint32_t c = 0; c < po->regions[g]->n_captures; c++)
          once &= p->slots[po->regions[g]->captures[c].parent_slot].kind != SLOT_FRAME ||
                  root_of(p, po->regions[g]->captures[c].parent_slot) != root;
      if (once) share_with(p, life, o, r);
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

/* Gives slot `sl` the smallest free range that holds it, or the top of the frame. */
static void place(plan_slot *sl, range *free_list, size_t n_free, size_t *top) {
  size_t need = slot_bytes(sl), best = SIZE_MAX;
  for (size_t k = 0; k < n_free; k++)
    if (free_list[k].size >= need && (best == SIZE_MAX || free_list[k].size < free_list[best].size)) best = k;
  if (best == SIZE_MAX) {
    sl->offset = *top;
    *top += need;
    return;
  }
  sl->offset = free_list[best].off;
  free_list[best].off += need;
  free_list[best].size -= need;
}

shl_status plan_frame_layout(exec_plan *p, plan_lives *l) {
  if (!lives_reserve(l, (size_t)p->n_slots + 1)) return st_oom();
  slot_life *life = l->v;
  /* Results never read (unused) still need memory until their op ends. */
  for (uint32_t s = 0; s < p->n_slots; s++)
    if (p->slots[s].kind == SLOT_FRAME && life[s].last == UINT32_MAX) life[s].last = life[s].def;
  share_buffers(p, life);
  uint32_t *by_def = malloc((p->n_slots + 1) * sizeof *by_def), *by_last = malloc((p->n_slots + 1) * sizeof *by_last);
  range *free_list = NULL;
  size_t n_free = 0, cap_free = 0, top = 0, nf = 0;
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
    for (; d < nf && life[by_def[d]].def == i; d++) place(&p->slots[by_def[d]], free_list, n_free, &top);
    for (; e < nf && life[by_last[e]].last == i; e++) {
      if (n_free == cap_free) {
        size_t ncap = cap_free ? cap_free * 2 : 16;
        range *nfl = realloc(free_list, ncap * sizeof *nfl);
        if (!nfl) {
          st = st_oom();
          goto out;
        }
        free_list = nfl;
        cap_free = ncap;
      }
      const plan_slot *sl = &p->slots[by_last[e]];
      free_list[n_free++] = (range){sl->offset, slot_bytes(sl)};
    }
  }
  p->frame_bytes = top;
  for (uint32_t s = 0; s < p->n_slots; s++)
    if (p->slots[s].share) p->slots[s].offset = p->slots[p->slots[s].share - 1].offset;
out:
  free(by_def);
  free(by_last);
  free(free_list);
  return st;
}
