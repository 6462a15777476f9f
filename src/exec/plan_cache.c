/* Executables of functions with dynamic shapes: one refined module and
 * static executable per input-shape signature, so a call with shapes seen
 * before costs a lookup and nothing else.  The signature is every
 * argument's dimensions plus the bytes of the arguments whose values
 * decided a shape (JAX's dimension arguments).  At most PLAN_CACHE_MAX
 * signatures are kept; the least recently used one goes first.
 *
 * Like the plans it holds, the cache is not locked: an executable runs one
 * call at a time (a second thread needs its own executable). */
#include <stdlib.h>
#include <string.h>

#include "passes/refine_shapes.h"
#include "plan.h"

#define PLAN_CACHE_MAX 16

typedef struct plan_entry {
  int64_t *shape;         /* per argument: rank, then its dims */
  size_t shape_len;
  uint64_t value_args;    /* refine_result.value_args */
  unsigned char *values;  /* those arguments' bytes, in order */
  size_t values_len;
  refine_result refined;
  shloc_executable *x;    /* static executable of refined.func */
  uint64_t last_use;
  struct plan_entry *next;
} plan_entry;

struct plan_cache {
  plan_entry *entries;
  uint32_t n;
  uint64_t clock;
};

static bool is_value_arg(uint64_t mask, uint32_t i) { return (mask >> (i < 63 ? i : 63)) & 1; }

static size_t shape_len(shl_buf *const *args, uint32_t n) {
  size_t len = 0;
  for (uint32_t i = 0; i < n; i++) len += 1 + (size_t)(args[i]->rank > 0 ? args[i]->rank : 0);
  return len;
}

static bool shape_matches(const plan_entry *e, shl_buf *const *args, uint32_t n) {
  const int64_t *s = e->shape;
  for (uint32_t i = 0; i < n; i++) {
    int32_t r = args[i]->rank > 0 ? args[i]->rank : 0;
    if (*s++ != args[i]->rank) return false;
    if (r && memcmp(s, args[i]->dims, (size_t)r * sizeof *s)) return false;
    s += r;
  }
  return true;
}

static bool values_match(const plan_entry *e, shl_buf *const *args, uint32_t n) {
  size_t off = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (!is_value_arg(e->value_args, i)) continue;
    if (off + args[i]->nbytes > e->values_len || memcmp(e->values + off, args[i]->data, args[i]->nbytes)) return false;
    off += args[i]->nbytes;
  }
  return off == e->values_len;
}

static void entry_free(plan_entry *e) {
  executable_destroy(e->x);
  shloc_module_destroy(e->refined.module);
  free(e->shape);
  free(e->values);
  free(e);
}

void plan_cache_destroy(plan_cache *pc) {
  if (!pc) return;
  for (plan_entry *e = pc->entries, *next; e; e = next) {
    next = e->next;
    entry_free(e);
  }
  free(pc);
}

static shl_status entry_key(plan_entry *e, shl_buf *const *args, uint32_t n) {
  e->shape_len = shape_len(args, n);
  e->shape = malloc(e->shape_len * sizeof *e->shape + 1);
  if (!e->shape) return st_oom();
  int64_t *s = e->shape;
  for (uint32_t i = 0; i < n; i++) {
    *s++ = args[i]->rank;
    for (int32_t k = 0; k < args[i]->rank; k++) *s++ = args[i]->dims[k];
  }
  for (uint32_t i = 0; i < n; i++)
    if (is_value_arg(e->value_args, i)) e->values_len += args[i]->nbytes;
  e->values = malloc(e->values_len + 1);
  if (!e->values) return st_oom();
  size_t off = 0;
  for (uint32_t i = 0; i < n; i++)
    if (is_value_arg(e->value_args, i)) {
      if (args[i]->nbytes) memcpy(e->values + off, args[i]->data, args[i]->nbytes);
      off += args[i]->nbytes;
    }
  return NULL;
}

/* Refines and plans for these arguments. */
static shl_status entry_create(shloc_executable *x, shl_buf *const *args, uint32_t n, plan_entry **out) {
  plan_entry *e = calloc(1, sizeof *e);
  refine_arg *ra = calloc(n + 1, sizeof *ra);
  shl_status st = e && ra ? NULL : st_oom();
  for (uint32_t i = 0; !st && i < n; i++) ra[i] = (refine_arg){args[i]->type, args[i]->data};
  if (!st) st = refine_shapes(x->m, x->func, ra, n, &e->refined);
  free(ra);
  if (!st) {
    e->value_args = e->refined.value_args;
    st = entry_key(e, args, n);
  }
  if (!st) st = executable_create(e->refined.module, e->refined.func, &x->cfg, &e->x);
  if (!st) e->x->counts_to = x; /* check ops count as the dynamic executable's */
  if (st) {
    if (e) entry_free(e);
    return st;
  }
  *out = e;
  return NULL;
}

shl_status plan_cache_lookup(shloc_executable *x, shl_buf *const *args, shloc_executable **out) {
  uint32_t n = func_type(x->func)->n_in;
  plan_cache *pc = x->cache;
  if (!pc && !(pc = x->cache = calloc(1, sizeof *pc))) return st_oom();
  pc->clock++;
  for (plan_entry *e = pc->entries; e; e = e->next)
    if (shape_matches(e, args, n) && values_match(e, args, n)) {
      e->last_use = pc->clock;
      *out = e->x;
      return NULL;
    }
  plan_entry *e;
  ST_TRY(entry_create(x, args, n, &e));
  if (pc->n >= PLAN_CACHE_MAX) {
    plan_entry **victim = &pc->entries;
    for (plan_entry **p = &pc->entries; *p; p = &(*p)->next)
      if ((*p)->last_use < (*victim)->last_use) victim = p;
    plan_entry *v = *victim;
    *victim = v->next;
    entry_free(v);
    pc->n--;
  }
  e->last_use = pc->clock;
  e->next = pc->entries;
  pc->entries = e;
  pc->n++;
  *out = e->x;
  return NULL;
}
