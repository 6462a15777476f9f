/* Open-addressing map from pointers to pointers, allocated in an arena (it
 * lives and dies with the pass or plan that owns it).  NULL keys are not
 * allowed. */
#ifndef SHLOC_SUPPORT_PTRMAP_H
#define SHLOC_SUPPORT_PTRMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "arena.h"

typedef struct {
  shl_arena *arena;
  const void **keys;
  void **vals;
  size_t cap, len;
} shl_ptrmap;

/* The hash of a pointer for open addressing with a power-of-two table (take
 * its low bits): the product's high half is folded in, because the low bits
 * of a product depend only on the low bits of the pointer, which objects
 * laid out at a regular stride in an arena share (clusters of collisions). */
static inline size_t ptrmap_hash(const void *p) {
  uint64_t x = (uint64_t)((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull;
  return (size_t)(x ^ (x >> 32));
}

void ptrmap_init(shl_ptrmap *m, shl_arena *a);
/* The value stored for key, or NULL. */
void *ptrmap_get(const shl_ptrmap *m, const void *key);
/* Inserts or replaces; false when out of memory. */
bool ptrmap_put(shl_ptrmap *m, const void *key, void *val);

#endif
