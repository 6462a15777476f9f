/* Open-addressing map from pointers to pointers, allocated in an arena (it
 * lives and dies with the pass or plan that owns it).  NULL keys are not
 * allowed. */
#ifndef SHLOC_SUPPORT_PTRMAP_H
#define SHLOC_SUPPORT_PTRMAP_H

#include <stdbool.h>

#include "arena.h"

typedef struct {
  shl_arena *arena;
  const void **keys;
  void **vals;
  size_t cap, len;
} shl_ptrmap;

void ptrmap_init(shl_ptrmap *m, shl_arena *a);
/* The value stored for key, or NULL. */
void *ptrmap_get(const shl_ptrmap *m, const void *key);
/* Inserts or replaces; false when out of memory. */
bool ptrmap_put(shl_ptrmap *m, const void *key, void *val);

#endif
