/* A minimal FlatBuffers builder for tests, written from the format
 * description (flatbuffers.dev "Internals"), independent of the reader in
 * src/bytecode/flatbuf.c.  Like the official builders it fills the buffer
 * back to front, so that every reference points forward: children are
 * created before the tables that refer to them.  An "offset" here is the
 * object's distance from the end of the buffer. */
#ifndef SHLOC_TESTS_FB_BUILD_H
#define SHLOC_TESTS_FB_BUILD_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FBB_MAX_FIELDS 40

typedef struct {
  uint8_t *buf;
  size_t cap, head; /* data is buf[head..cap) */
  size_t minalign;
  uint32_t fields[FBB_MAX_FIELDS]; /* offset of each field of the open table (0 = absent) */
  int max_field;
  uint32_t obj_end; /* size when the open table started */
  uint32_t vtables[256]; /* offsets of the vtables written so far, for sharing */
  int n_vtables;
} fbb;

static inline void fbb_init(fbb *b) {
  memset(b, 0, sizeof *b);
  b->cap = 1 << 20;
  b->buf = calloc(1, b->cap);
  b->head = b->cap;
  b->minalign = 1;
}
static inline void fbb_free(fbb *b) { free(b->buf); }
static inline uint32_t fbb_size(const fbb *b) { return (uint32_t)(b->cap - b->head); }

static inline void fbb_raw(fbb *b, const void *p, size_t n) {
  if (n > b->head) abort(); /* tests build small buffers */
  b->head -= n;
  memcpy(b->buf + b->head, p, n);
}
static inline void fbb_le(fbb *b, uint64_t v, unsigned size) {
  uint8_t tmp[8];
  for (unsigned i = 0; i < size; i++) tmp[i] = (uint8_t)(v >> (8 * i));
  fbb_raw(b, tmp, size);
}
/* Pads so that after `extra` more bytes the size is a multiple of `align`. */
static inline void fbb_prep(fbb *b, size_t align, size_t extra) {
  if (align > b->minalign) b->minalign = align;
  while ((fbb_size(b) + extra) % align) fbb_le(b, 0, 1);
}
/* A uoffset to `target`, stored at the new front. */
static inline void fbb_uoffset(fbb *b, uint32_t target) {
  fbb_prep(b, 4, 4);
  fbb_le(b, fbb_size(b) + 4 - target, 4);
}

static inline uint32_t fbb_string_n(fbb *b, const char *s, size_t n) {
  fbb_prep(b, 4, n + 1);
  fbb_le(b, 0, 1);
  fbb_raw(b, s, n);
  fbb_le(b, n, 4);
  return fbb_size(b);
}
static inline uint32_t fbb_string(fbb *b, const char *s) { return fbb_string_n(b, s, strlen(s)); }

/* A vector of n scalars of `elem` bytes (values given as uint64). */
static inline uint32_t fbb_scalars(fbb *b, unsigned elem, const uint64_t *v, size_t n) {
  fbb_prep(b, 4, elem * n);
  fbb_prep(b, elem, elem * n);
  for (size_t i = n; i-- > 0;) fbb_le(b, v[i], elem);
  fbb_le(b, n, 4);
  return fbb_size(b);
}
static inline uint32_t fbb_bytes(fbb *b, const void *p, size_t n) {
  fbb_prep(b, 4, n);
  fbb_raw(b, p, n);
  fbb_le(b, n, 4);
  return fbb_size(b);
}
/* A vector of references (tables or strings). */
static inline uint32_t fbb_refs(fbb *b, const uint32_t *targets, size_t n) {
  fbb_prep(b, 4, 4 * n);
  for (size_t i = n; i-- > 0;) fbb_uoffset(b, targets[i]);
  fbb_le(b, n, 4);
  return fbb_size(b);
}

static inline void fbb_start(fbb *b) {
  memset(b->fields, 0, sizeof b->fields);
  b->max_field = -1;
  b->obj_end = fbb_size(b);
}
static inline void fbb_mark(fbb *b, int id) {
  b->fields[id] = fbb_size(b);
  if (id > b->max_field) b->max_field = id;
}
static inline void fbb_add_scalar(fbb *b, int id, uint64_t v, unsigned size) {
  fbb_prep(b, size, size);
  fbb_le(b, v, size);
  fbb_mark(b, id);
}
static inline void fbb_add_ref(fbb *b, int id, uint32_t target) {
  fbb_uoffset(b, target);
  fbb_mark(b, id);
}
/* Closes the table: its soffset, then a vtable placed just before it, or,
 * as the official builders do, an identical vtable written earlier (which
 * lies after the table: a negative soffset). */
static inline uint32_t fbb_end(fbb *b) {
  fbb_prep(b, 4, 4);
  fbb_le(b, 0, 4); /* patched below */
  uint32_t table = fbb_size(b);
  uint16_t n = (uint16_t)(b->max_field + 1);
  uint8_t vtab[4 + 2 * FBB_MAX_FIELDS];
  uint16_t words[2 + FBB_MAX_FIELDS];
  words[0] = (uint16_t)(4 + 2 * n);
  words[1] = (uint16_t)(table - b->obj_end);
  for (int id = 0; id < n; id++) words[2 + id] = (uint16_t)(b->fields[id] ? table - b->fields[id] : 0);
  for (int i = 0; i < 2 + n; i++) vtab[2 * i] = (uint8_t)words[i], vtab[2 * i + 1] = (uint8_t)(words[i] >> 8);
  uint32_t vt = 0;
  for (int k = 0; k < b->n_vtables && !vt; k++) {
    /* Compare only with vtables of the same size: a shorter one may end the buffer. */
    const uint8_t *old = b->buf + b->cap - b->vtables[k];
    if ((uint16_t)(old[0] | old[1] << 8) == words[0] && memcmp(old, vtab, words[0]) == 0) vt = b->vtables[k];
  }
  if (!vt) {
    fbb_raw(b, vtab, words[0]);
    vt = fbb_size(b);
    if (b->n_vtables < 256) b->vtables[b->n_vtables++] = vt;
  }
  /* vtable = table - soffset, in buffer positions: soffset = vt - table. */
  int32_t so = (int32_t)(vt - table);
  size_t at = b->cap - table;
  for (int i = 0; i < 4; i++) b->buf[at + i] = (uint8_t)((uint32_t)so >> (8 * i));
  return table;
}
/* Finishes with `root`; returns the buffer (valid until fbb_free). */
static inline const uint8_t *fbb_finish(fbb *b, uint32_t root, size_t *len) {
  fbb_prep(b, b->minalign > 4 ? b->minalign : 4, 4);
  fbb_uoffset(b, root);
  *len = fbb_size(b);
  return b->buf + b->head;
}

#endif
