/* A bounds-checked reader of FlatBuffers binary data (untrusted input).
 *
 * Layout facts (flatbuffers.dev, "Internals"): little-endian; the buffer
 * starts with a uoffset (u32) to the root table; a table starts with a soffset
 * (i32) back to its vtable (vtable = table - soffset); a vtable is u16 words
 * [vtable bytes, table bytes, field 0 offset, field 1 offset, ...] where 0
 * means "absent, use the default"; a reference field holds a uoffset relative
 * to its own position; a vector is a u32 count followed by its elements; a
 * string is a vector of bytes followed by a NUL; a union field `u` of id k
 * is stored as `u_type` (u8) at id k and the table reference at id k + 1.
 *
 * Every read is checked against the buffer.  Because uoffsets are unsigned
 * and measured from the referring field, references only point forward, so
 * there are no reference cycles; sharing (several offsets to one object) is
 * allowed by the format and can make a small buffer describe an exponentially
 * large tree, so each fb_buf carries a budget of objects a reader may visit
 * (fb_visit) and callers charge every table and vector element they decode.
 * Errors name the byte offset. */
#ifndef SHLOC_BYTECODE_FLATBUF_H
#define SHLOC_BYTECODE_FLATBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "support/status.h"
#include "support/strview.h"

typedef struct {
  const uint8_t *p;
  size_t n;            /* < 2^31: offsets are 32-bit */
  const char *file;    /* for diagnostics (may be NULL) */
  const char *what;    /* "jax.export envelope": names the format in errors */
  uint64_t budget;     /* objects left to visit */
} fb_buf;

typedef struct {
  fb_buf *b;
  uint32_t pos;    /* the table's start (its soffset) */
  uint32_t vt;     /* its vtable */
  uint16_t vt_len; /* vtable bytes */
  uint16_t size;   /* table bytes (inline part) */
} fb_table;

typedef struct {
  fb_buf *b;
  uint32_t pos; /* first element */
  uint32_t n;   /* element count */
  uint32_t elem;/* element bytes */
} fb_vec;

/* Sets up a reader over p[0..n); the visit budget allows one object per byte
 * plus slack, which no well-formed buffer without sharing exceeds. */
shl_status fb_init(fb_buf *b, const void *p, size_t n, const char *file, const char *what);
/* An error "FILE: error: WHAT at byte OFF: message". */
shl_status fb_error(const fb_buf *b, size_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Charges n objects to the budget; an error once it is spent. */
shl_status fb_visit(fb_buf *b, uint64_t n, size_t off);

/* The root table (buffer offset 0 holds its uoffset). */
shl_status fb_root(fb_buf *b, fb_table *out);
/* The table at absolute position pos, with its vtable validated. */
shl_status fb_table_at(fb_buf *b, size_t pos, fb_table *out);

/* Field `id` present (non-zero vtable entry)? */
bool fb_has(const fb_table *t, unsigned id);
/* An unsigned little-endian scalar of `size` bytes (1, 2, 4 or 8); `dflt`
 * when absent.  Signed fields: cast the result. */
shl_status fb_scalar(const fb_table *t, unsigned id, unsigned size, uint64_t dflt, uint64_t *out);
/* Reference fields; *present = false (and out zeroed) when absent. */
shl_status fb_table_field(const fb_table *t, unsigned id, fb_table *out, bool *present);
shl_status fb_string_field(const fb_table *t, unsigned id, shl_str *out, bool *present);
/* A vector of elem-byte elements; an absent vector reads as empty. */
shl_status fb_vector_field(const fb_table *t, unsigned id, unsigned elem, fb_vec *out, bool *present);
/* A union: *type = 0 (NONE) when absent, else the table it refers to. */
shl_status fb_union_field(const fb_table *t, unsigned id, uint8_t *type, fb_table *out);

/* Elements of a vector (index checked). */
shl_status fb_vec_table(const fb_vec *v, uint32_t i, fb_table *out);
shl_status fb_vec_string(const fb_vec *v, uint32_t i, shl_str *out);
uint64_t fb_vec_scalar(const fb_vec *v, uint32_t i); /* v->elem of 1, 2, 4, 8; i < v->n */
static inline const uint8_t *fb_vec_data(const fb_vec *v) { return v->b->p + v->pos; }

#endif
