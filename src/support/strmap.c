#include "strmap.h"

void strmap_init(shl_strmap *m, shl_arena *a) {
  m->arena = a;
  m->slots = NULL;
  m->cap = m->len = 0;
}

static uint64_t head_of(shl_str k) {
  uint64_t w = 0;
  memcpy(&w, k.p, k.n < 8 ? k.n : 8);
  return w;
}

/* str_hash of a key of at most 8 bytes depends only on its length and head,
 * which lets rehashing skip the key text. */
static uint64_t slot_hash(const strmap_slot *s) {
  if (s->key.n > 8) return str_hash(s->key);
  unsigned char b[8];
  memcpy(b, &s->head, 8);
  return str_hash((shl_str){(const char *)b, s->key.n});
}

static strmap_slot *find(strmap_slot *slots, size_t cap, shl_str key, uint64_t head, uint64_t h) {
  size_t i = (size_t)h & (cap - 1);
  for (;;) {
    strmap_slot *s = &slots[i];
    if (!s->key.p) return s;
    if (s->head == head && s->key.n == key.n && (key.n <= 8 || memcmp(s->key.p + 8, key.p + 8, key.n - 8) == 0))
      return s;
    i = (i + 1) & (cap - 1);
  }
}

void *strmap_get(const shl_strmap *m, shl_str key) {
  if (!m->cap) return NULL;
  if (!key.p) key = (shl_str){"", 0};
  strmap_slot *s = find(m->slots, m->cap, key, head_of(key), str_hash(key));
  return s->key.p ? s->val : NULL;
}

/* Grows to keep the load factor below 3/4; false when out of memory. */
static bool grow(shl_strmap *m) {
  if ((m->len + 1) * 4 < m->cap * 3) return true;
  size_t ncap = m->cap ? m->cap * 2 : 16;
  strmap_slot *ns = ARENA_ARRAY(m->arena, strmap_slot, ncap);
  if (!ns) return false;
  for (size_t i = 0; i < m->cap; i++) {
    const strmap_slot *o = &m->slots[i];
    if (o->key.p) *find(ns, ncap, o->key, o->head, slot_hash(o)) = *o;
  }
  m->slots = ns;
  m->cap = ncap;
  return true;
}

/* The slot for key (empty when absent); NULL when out of memory. */
static strmap_slot *probe(shl_strmap *m, shl_str *key, uint64_t *head) {
  if (!grow(m)) return NULL;
  if (!key->p) *key = (shl_str){"", 0};
  *head = head_of(*key);
  return find(m->slots, m->cap, *key, *head, str_hash(*key));
}

bool strmap_put(shl_strmap *m, shl_str key, void *val) {
  uint64_t head;
  strmap_slot *s = probe(m, &key, &head);
  if (!s) return false;
  if (!s->key.p) {
    m->len++;
    *s = (strmap_slot){key, head, val};
  }
  s->val = val;
  return true;
}

void *strmap_put_new(shl_strmap *m, shl_str key, void *val, bool *oom) {
  uint64_t head;
  strmap_slot *s = probe(m, &key, &head);
  *oom = !s;
  if (!s) return NULL;
  if (s->key.p) return s->val;
  m->len++;
  *s = (strmap_slot){key, head, val};
  return NULL;
}
