#include "arena.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* A block's memory is either malloc'd (small blocks, reused memory, must be
 * zeroed by hand) or mmap'd (large blocks: the kernel hands out zero pages,
 * so zeroing is free, and huge pages cut the page-fault count 512-fold). */
struct arena_block {
  arena_block *next;
  char *data;     /* 16-byte aligned; right behind the header unless mapped */
  size_t size;    /* usable bytes at data */
  size_t map_len; /* length of the mapping at data, 0 when malloc'd */
};

#define HUGE_PAGE ((size_t)2 << 20)
enum {
  ARENA_BLOCK = 64 * 1024, /* first bump block (malloc'd: small modules stay cheap) */
  ARENA_BLOCK_MAX = 8 << 20, /* later bump blocks double up to this (from 1 MiB one huge page, which is
                                resident in full once touched: a small plan should not pay 2 MiB) */
  ARENA_MAP_MIN = 1 << 20, /* blocks at least this large are mmap'd */
};

void arena_init(shl_arena *a) { memset(a, 0, sizeof *a); }

void arena_unmap_pages(void *p, size_t map_len) {
  if (p) munmap(p, map_len);
}

static void block_release(arena_block *b) {
  if (b->map_len) arena_unmap_pages(b->data, b->map_len);
  free(b);
}

void arena_free(shl_arena *a) {
  arena_block *b = a->head;
  while (b) {
    arena_block *next = b->next;
    block_release(b);
    b = next;
  }
  memset(a, 0, sizeof *a);
}

void *arena_map_pages(size_t len, size_t *map_len) {
  if (len < HUGE_PAGE / 2) {
    len = (len + 4095) & ~(size_t)4095;
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    *map_len = len;
    return p;
  }
  len = (len + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
  if (len + HUGE_PAGE < len) return NULL;
  char *raw = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return NULL;
  char *p = (char *)(((uintptr_t)raw + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
  if (p > raw) munmap(raw, (size_t)(p - raw));
  size_t tail = (size_t)(raw + len + HUGE_PAGE - (p + len));
  if (tail) munmap(p + len, tail);
#ifdef MADV_HUGEPAGE
  madvise(p, len, MADV_HUGEPAGE);
#endif
  *map_len = len;
  return p;
}

/* A block with at least `size` usable bytes; *zeroed tells whether they are
 * known to be zero. */
static arena_block *block_new(shl_arena *a, size_t size, bool *zeroed) {
  enum { HDR = (sizeof(arena_block) + 15) & ~(size_t)15 };
  arena_block *b;
  if (size >= ARENA_MAP_MIN) {
    /* The header lives apart so that the data starts on a huge page and a
     * 2 MiB request takes exactly one. */
    b = malloc(sizeof *b);
    if (!b) return NULL;
    b->data = arena_map_pages(size, &b->map_len);
    if (!b->data) {
      free(b);
      return NULL;
    }
    b->size = b->map_len;
    *zeroed = true;
  } else {
    b = malloc(HDR + size);
    if (!b) return NULL;
    b->data = (char *)b + HDR;
    b->size = size;
    b->map_len = 0;
    *zeroed = false;
  }
  a->bytes_reserved += b->map_len ? b->map_len : HDR + size;
  return b;
}

static void *alloc(shl_arena *a, size_t n, bool zero) {
  size_t need = (n + 15) & ~(size_t)15;
  if (need < n) return NULL;
  if (need == 0) need = 16;
  if ((size_t)(a->end - a->cur) >= need && a->cur) {
    void *p = a->cur;
    a->cur += need;
    if (zero && !a->cur_zeroed) memset(p, 0, n);
    return p;
  }
  bool zeroed;
  /* Bump blocks grow with the arena, so big modules make few large
   * (mapped, huge-page) blocks and small ones stay small. */
  size_t bump = a->next_block ? a->next_block : ARENA_BLOCK;
  if (need > bump / 4) {
    /* Big allocation: own block, linked behind the current one so the bump
     * block stays in use. */
    arena_block *b = block_new(a, need, &zeroed);
    if (!b) return NULL;
    if (a->head) {
      b->next = a->head->next;
      a->head->next = b;
    } else {
      b->next = NULL;
      a->head = b;
    }
    if (zero && !zeroed) memset(b->data, 0, n);
    return b->data;
  }
  arena_block *b = block_new(a, bump, &zeroed);
  if (!b) return NULL;
  a->next_block = bump < HUGE_PAGE / 4 ? bump * 2 : bump < HUGE_PAGE ? HUGE_PAGE : bump < ARENA_BLOCK_MAX ? bump * 2 : bump;
  b->next = a->head;
  a->head = b;
  a->cur = b->data + need;
  a->end = b->data + b->size;
  a->cur_zeroed = zeroed;
  if (zero && !zeroed) memset(b->data, 0, n);
  return b->data;
}

void *arena_alloc(shl_arena *a, size_t n) { return alloc(a, n, true); }

void *arena_alloc_uninit(shl_arena *a, size_t n) { return alloc(a, n, false); }

void *arena_array(shl_arena *a, size_t n, size_t size) {
  if (size && n > SIZE_MAX / size) return NULL;
  return arena_alloc(a, n * size);
}

char *arena_strndup(shl_arena *a, const char *s, size_t n) {
  if (n == SIZE_MAX) return NULL;
  char *d = arena_alloc_uninit(a, n + 1);
  if (!d) return NULL;
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}

void *arena_memdup(shl_arena *a, const void *p, size_t n) {
  void *d = arena_alloc_uninit(a, n ? n : 1);
  if (d && n) memcpy(d, p, n);
  return d;
}
