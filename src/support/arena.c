#include "arena.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct arena_block {
  arena_block *next;
  size_t size;
  _Alignas(16) char data[];
};

enum { ARENA_BLOCK = 64 * 1024 };

void arena_init(shl_arena *a) { memset(a, 0, sizeof *a); }

void arena_free(shl_arena *a) {
  arena_block *b = a->head;
  while (b) {
    arena_block *next = b->next;
    free(b);
    b = next;
  }
  memset(a, 0, sizeof *a);
}

static arena_block *block_new(shl_arena *a, size_t size) {
  arena_block *b = malloc(sizeof *b + size);
  if (!b) return NULL;
  b->size = size;
  a->bytes_reserved += sizeof *b + size;
  return b;
}

static void *alloc(shl_arena *a, size_t n, bool zero) {
  size_t need = (n + 15) & ~(size_t)15;
  if (need < n) return NULL;
  if (need == 0) need = 16;
  if ((size_t)(a->end - a->cur) >= need && a->cur) {
    void *p = a->cur;
    a->cur += need;
    if (zero) memset(p, 0, n);
    return p;
  }
  if (need > ARENA_BLOCK / 4) {
    /* Big allocation: own block, linked behind the current one so the bump
     * block stays in use. */
    arena_block *b = block_new(a, need);
    if (!b) return NULL;
    if (a->head) {
      b->next = a->head->next;
      a->head->next = b;
    } else {
      b->next = NULL;
      a->head = b;
    }
    if (zero) memset(b->data, 0, n);
    return b->data;
  }
  arena_block *b = block_new(a, ARENA_BLOCK);
  if (!b) return NULL;
  b->next = a->head;
  a->head = b;
  a->cur = b->data + need;
  a->end = b->data + ARENA_BLOCK;
  if (zero) memset(b->data, 0, n);
  return b->data;
}

void *arena_alloc(shl_arena *a, size_t n) { return alloc(a, n, true); }

void *arena_alloc_uninit(shl_arena *a, size_t n) { return alloc(a, n, false); }

void *arena_array(shl_arena *a, size_t n, size_t size) {
  if (size && n > SIZE_MAX / size) return NULL;
  return arena_alloc(a, n * size);
}

char *arena_strndup(shl_arena *a, const char *s, size_t n) {
  char *d = arena_alloc(a, n + 1);
  if (!d) return NULL;
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}

void *arena_memdup(shl_arena *a, const void *p, size_t n) {
  void *d = arena_alloc(a, n);
  if (d && n) memcpy(d, p, n);
  return d;
}
