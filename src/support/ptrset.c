#include "ptrset.h"

#include <stdint.h>
#include <stdlib.h>

static size_t slot_of(const void *p, size_t cap) {
  /* Fibonacci hashing: the high bits of the product are the well-mixed ones. */
  return (size_t)((((uintptr_t)p >> 3) * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

bool ptrset_has(const shl_ptrset *s, const void *p) {
  if (!s->cap) return false;
  for (size_t j = slot_of(p, s->cap); s->key[j]; j = (j + 1) & (s->cap - 1))
    if (s->key[j] == p) return true;
  return false;
}

static void place(const void **keys, size_t cap, const void *p) {
  size_t j = slot_of(p, cap);
  while (keys[j]) j = (j + 1) & (cap - 1);
  keys[j] = p;
}

void ptrset_add(shl_ptrset *s, const void *p) {
  if (s->oom || ptrset_has(s, p)) return;
  if ((s->len + 1) * 2 > s->cap) {
    size_t ncap = s->cap ? s->cap * 2 : 256;
    const void **nk = calloc(ncap, sizeof *nk);
    const void **na = realloc(s->added, ncap / 2 * sizeof *na);
    if (!nk || !na) {
      free(nk);
      if (na) s->added = na;
      s->oom = true;
      return;
    }
    for (size_t i = 0; i < s->cap; i++)
      if (s->key[i]) place(nk, ncap, s->key[i]);
    free(s->key);
    s->key = nk;
    s->cap = ncap;
    s->added = na;
  }
  place(s->key, s->cap, p);
  s->added[s->len++] = p;
}

/* Deletes p (a member) by moving later members of its probe run back into
 * the hole, so lookups stay correct without tombstones. */
static void remove_member(shl_ptrset *s, const void *p) {
  size_t mask = s->cap - 1, hole = slot_of(p, s->cap);
  while (s->key[hole] != p) hole = (hole + 1) & mask;
  for (size_t j = (hole + 1) & mask; s->key[j]; j = (j + 1) & mask) {
    size_t home = slot_of(s->key[j], s->cap);
    /* The member at j stays unless the hole lies on its way from home to j. */
    bool stays = hole < j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!stays) {
      s->key[hole] = s->key[j];
      hole = j;
    }
  }
  s->key[hole] = NULL;
}

void ptrset_rewind(shl_ptrset *s, size_t mark) {
  while (s->len > mark) remove_member(s, s->added[--s->len]);
}

void ptrset_free(shl_ptrset *s) {
  free(s->key);
  free(s->added);
  *s = (shl_ptrset){0};
}
