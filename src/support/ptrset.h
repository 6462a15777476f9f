/* A set of pointers with scoped removal: members added after a mark can be
 * dropped again in time proportional to their number (the verifier's
 * "values visible here" set, entered and left once per region).  malloc'ed;
 * out of memory is sticky in `oom` and reported by the caller. */
#ifndef SHLOC_SUPPORT_PTRSET_H
#define SHLOC_SUPPORT_PTRSET_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
  const void **key; /* open addressing, linear probing; NULL = empty */
  size_t cap, len;
  const void **added; /* members in insertion order (cap / 2 slots), for ptrset_rewind */
  bool oom;
} shl_ptrset;

bool ptrset_has(const shl_ptrset *s, const void *p);
/* Adds p (no effect when present). */
void ptrset_add(shl_ptrset *s, const void *p);
/* A mark for ptrset_rewind: the number of members. */
static inline size_t ptrset_mark(const shl_ptrset *s) { return s->len; }
/* Removes the members added since `mark`. */
void ptrset_rewind(shl_ptrset *s, size_t mark);
void ptrset_free(shl_ptrset *s);

#endif
