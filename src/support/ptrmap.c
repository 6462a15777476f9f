#include "ptrmap.h"


void ptrmap_init(shl_ptrmap *m, shl_arena *a) { *m = (shl_ptrmap){.arena = a}; }

void *ptrmap_get(const shl_ptrmap *m, const void *key) {
  if (!m->cap) return NULL;
  for (size_t j = ptrmap_hash(key) & (m->cap - 1); m->keys[j]; j = (j + 1) & (m->cap - 1))
    if (m->keys[j] == key) return m->vals[j];
  return NULL;
}

/* Doubles the table (the old one stays in the arena until it is freed). */
static bool ptrmap_grow(shl_ptrmap *m) {
  size_t ncap = m->cap ? m->cap * 2 : 64;
  const void **nk = ARENA_ARRAY(m->arena, const void *, ncap);
  void **nv = ARENA_ARRAY(m->arena, void *, ncap);
  if (!nk || !nv) return false;
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->keys[i]) continue;
    size_t j = ptrmap_hash(m->keys[i]) & (ncap - 1);
    while (nk[j]) j = (j + 1) & (ncap - 1);
    nk[j] = m->keys[i];
    nv[j] = m->vals[i];
  }
  m->keys = nk;
  m->vals = nv;
  m->cap = ncap;
  return true;
}

bool ptrmap_put(shl_ptrmap *m, const void *key, void *val) {
  if ((m->len + 1) * 2 > m->cap && !ptrmap_grow(m)) return false;
  size_t j = ptrmap_hash(key) & (m->cap - 1);
  while (m->keys[j] && m->keys[j] != key) j = (j + 1) & (m->cap - 1);
  if (!m->keys[j]) m->len++;
  m->keys[j] = key;
  m->vals[j] = val;
  return true;
}
