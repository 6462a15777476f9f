/* Bump-pointer arena: everything belonging to one module (or one plan) is
 * allocated here and freed in one step.  Large requests get their own block.
 * Blocks grow geometrically; blocks of 1 MiB and more are anonymous mappings
 * (2 MiB aligned, transparent huge pages advised), whose pages are zero and
 * cost nothing until touched: an uninitialised allocation that is never
 * written costs only address space. */
#ifndef SHLOC_SUPPORT_ARENA_H
#define SHLOC_SUPPORT_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct arena_block arena_block;

typedef struct {
  arena_block *head;
  char *cur, *end;
  bool cur_zeroed;       /* [cur, end) is known to be zero (fresh mapping) */
  size_t next_block;     /* size of the next bump block (grows geometrically) */
  size_t bytes_reserved; /* total bytes obtained from malloc/mmap, for limits and tests */
} shl_arena;

void arena_init(shl_arena *a);
void arena_free(shl_arena *a);
/* 16-byte aligned, zero-filled; NULL when out of memory. */
void *arena_alloc(shl_arena *a, size_t n);
/* Not zero-filled: for buffers the caller overwrites entirely (source text,
 * decoded constants), where zeroing would be a wasted pass over memory. */
void *arena_alloc_uninit(shl_arena *a, size_t n);
/* Overflow-checked n * size. */
void *arena_array(shl_arena *a, size_t n, size_t size);
char *arena_strndup(shl_arena *a, const char *s, size_t n);
void *arena_memdup(shl_arena *a, const void *p, size_t n);

/* Fresh zero pages straight from the kernel: at least `len` bytes, 2 MiB
 * aligned with transparent huge pages advised from 1 MiB on (in this kind
 * of VM a 4 KiB page fault costs microseconds; a huge page replaces 512 of
 * them).  *map_len receives the length to pass to arena_unmap_pages. */
void *arena_map_pages(size_t len, size_t *map_len);
void arena_unmap_pages(void *p, size_t map_len);

#define ARENA_NEW(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define ARENA_ARRAY(a, T, n) ((T *)arena_array((a), (n), sizeof(T)))

#endif
