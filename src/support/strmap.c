#include "strmap.h"

void strmap_init(shl_strmap *m, shl_arena *a) {
  m->arena = a;
  m->slots = NULL;
  m->cap = m->len = 0;
}

static strmap_slot *find(strmap_slot *slots, size_t cap, shl_str key) {
  size_t i = (size_t)str_hash(key) & (cap - 1);
  for (;;) {
    strmap_slot *s = &slots[i];
    if (!s->key.p || str_eq(s->key, key)) return s;
    i = (i + 1) & (cap - 1);
  }
}

void *strmap_get(const shl_strmap *m, shl_str key) {
  if (!m->cap) return NULL;
  strmap_slot *s = find(m->slots, m->cap, key);
  return s->key.p ? s->val : NULL;
}

bool strmap_put(shl_strmap *m, shl_str key, void *val) {
  if ((m->len + 1) * 4 >= m->cap * 3) {
    size_t ncap = m->cap ? m->cap * 2 : 16;
    strmap_slot *ns = ARENA_ARRAY(m->arena, strmap_slot, ncap);
    if (!ns) return false;
    for (size_t i = 0; i < m->cap; i++)
      if (m->slots[i].key.p) *find(ns, ncap, m->slots[i].key) = m->slots[i];
    m->slots = ns;
    m->cap = ncap;
  }
  strmap_slot *s = find(m->slots, m->cap, key);
  if (!s->key.p) {
    m->len++;
    s->key = key.p ? key : (shl_str){"", 0};
  }
  s->val = val;
  return true;
}
