/* Open-addressing map from string slices to pointers, allocated in an arena
 * (so it lives and dies with its module or plan; nothing process-global).
 * Keys are not copied: they must outlive the map. */
#ifndef SHLOC_SUPPORT_STRMAP_H
#define SHLOC_SUPPORT_STRMAP_H

#include <stdint.h>

#include "arena.h"
#include "strview.h"

typedef struct {
  shl_str key;   /* key.p == NULL: empty slot */
  uint64_t head; /* the key's first 8 bytes, zero-padded: short keys (most
                    SSA names) are compared without touching their text */
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
/* Inserts key -> val unless key is present.  Returns the value already
 * there (map unchanged), or NULL after inserting; *oom is set when
 * inserting failed for lack of memory.  One probe instead of get + put. */
void *strmap_put_new(shl_strmap *m, shl_str key, void *val, bool *oom);

#endif
