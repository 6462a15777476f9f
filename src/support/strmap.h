/* Open-addressing map from string slices to pointers, allocated in an arena
 * (so it lives and dies with its module or plan; nothing process-global). */
#ifndef SHLOC_SUPPORT_STRMAP_H
#define SHLOC_SUPPORT_STRMAP_H

#include "arena.h"
#include "strview.h"

typedef struct {
  shl_str key;
  void *val;
} strmap_slot;

typedef struct {
  shl_arena *arena;
  strmap_slot *slots;
  size_t cap, len;
} shl_strmap;

void strmap_init(shl_strmap *m, shl_arena *a);
void *strmap_get(const shl_strmap *m, shl_str key);
/* Inserts or replaces; returns false when out of memory. */
bool strmap_put(shl_strmap *m, shl_str key, void *val);

#endif
