/* Bounds-checked FlatBuffers reading (see flatbuf.h for the layout). */
#include "flatbuf.h"

#include <stdarg.h>
#include <stdio.h>

static uint32_t rd_u32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint16_t rd_u16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

static uint64_t rd_le(const uint8_t *p, unsigned size) {
  uint64_t v = 0;
  for (unsigned i = size; i-- > 0;) v = v << 8 | p[i];
  return v;
}

shl_status fb_error(const fb_buf *b, size_t off, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  shl_srcpos pos = {b->file ? b->file : "<input>", 0, 0};
  return st_error(SHLOC_ERR_PARSE, &pos, NULL, "%s at byte %zu: %s", b->what ? b->what : "flatbuffer", off, msg);
}

shl_status fb_init(fb_buf *b, const void *p, size_t n, const char *file, const char *what) {
  *b = (fb_buf){.p = p, .n = n, .file = file, .what = what, .budget = (uint64_t)n + 1024};
  if (n >= (size_t)1 << 31) return fb_error(b, 0, "%zu bytes is more than a flatbuffer can address (2 GiB)", n);
  return NULL;
}

shl_status fb_visit(fb_buf *b, uint64_t n, size_t off) {
  if (n > b->budget) return fb_error(b, off, "objects are shared so often that decoding would visit more than %zu", b->n + 1024);
  b->budget -= n;
  return NULL;
}

/* Does [off, off + len) lie inside the buffer? */
static bool in_range(const fb_buf *b, uint64_t off, uint64_t len) { return off <= b->n && len <= b->n - off; }

shl_status fb_table_at(fb_buf *b, size_t pos, fb_table *out) {
  *out = (fb_table){.b = b};
  if (pos % 4 || !in_range(b, pos, 4)) return fb_error(b, pos, "table offset out of bounds or misaligned");
  ST_TRY(fb_visit(b, 1, pos));
  int64_t vt = (int64_t)pos - (int32_t)rd_u32(b->p + pos);
  if (vt < 0 || vt % 2 || !in_range(b, (uint64_t)vt, 4))
    return fb_error(b, pos, "vtable offset %lld out of bounds or misaligned", (long long)vt);
  uint16_t vt_len = rd_u16(b->p + vt), size = rd_u16(b->p + vt + 2);
  if (vt_len < 4 || vt_len % 2 || !in_range(b, (uint64_t)vt, vt_len))
    return fb_error(b, (size_t)vt, "vtable of %u bytes does not fit", vt_len);
  if (size < 4 || !in_range(b, pos, size)) return fb_error(b, pos, "table of %u bytes does not fit", size);
  *out = (fb_table){b, (uint32_t)pos, (uint32_t)vt, vt_len, size};
  return NULL;
}

shl_status fb_root(fb_buf *b, fb_table *out) {
  *out = (fb_table){.b = b};
  if (!in_range(b, 0, 8)) return fb_error(b, 0, "%zu bytes is too short for a flatbuffer", b->n);
  return fb_table_at(b, rd_u32(b->p), out);
}

/* The vtable entry of field `id`: its offset in the table, 0 when absent. */
static uint16_t field_off(const fb_table *t, unsigned id) {
  uint32_t at = 4 + 2 * id;
  return at + 2 <= t->vt_len ? rd_u16(t->b->p + t->vt + at) : 0;
}

bool fb_has(const fb_table *t, unsigned id) { return field_off(t, id) != 0; }

/* Position of field `id` holding `size` bytes inside the table, or 0 when
 * absent; an error when the vtable points outside the table. */
static shl_status field_pos(const fb_table *t, unsigned id, unsigned size, uint32_t *pos) {
  uint16_t off = field_off(t, id);
  *pos = 0;
  if (!off) return NULL;
  if (off < 4 || (uint32_t)off + size > t->size)
    return fb_error(t->b, t->vt, "field %u at offset %u lies outside its %u-byte table", id, off, t->size);
  *pos = t->pos + off;
  return NULL;
}

shl_status fb_scalar(const fb_table *t, unsigned id, unsigned size, uint64_t dflt, uint64_t *out) {
  uint32_t pos;
  *out = dflt;
  ST_TRY(field_pos(t, id, size, &pos));
  if (pos) *out = rd_le(t->b->p + pos, size);
  return NULL;
}

/* Follows the uoffset stored at `at` (inside the buffer). */
static shl_status follow(const fb_buf *b, uint32_t at, uint32_t *target) {
  uint64_t to = (uint64_t)at + rd_u32(b->p + at);
  if (!in_range(b, to, 4)) return fb_error(b, at, "offset points past the end (to byte %llu of %zu)", (unsigned long long)to, b->n);
  *target = (uint32_t)to;
  return NULL;
}

/* The target of reference field `id`, or 0 when absent. */
static shl_status ref_field(const fb_table *t, unsigned id, uint32_t *target) {
  uint32_t pos;
  *target = 0;
  ST_TRY(field_pos(t, id, 4, &pos));
  return pos ? follow(t->b, pos, target) : NULL;
}

shl_status fb_table_field(const fb_table *t, unsigned id, fb_table *out, bool *present) {
  uint32_t to;
  *out = (fb_table){.b = t->b};
  ST_TRY(ref_field(t, id, &to));
  if (present) *present = to != 0;
  return to ? fb_table_at(t->b, to, out) : NULL;
}

/* The vector whose u32 count is at `at`. */
static shl_status vector_at(fb_buf *b, uint32_t at, unsigned elem, fb_vec *out) {
  if (at % 4) return fb_error(b, at, "vector misaligned");
  uint32_t n = rd_u32(b->p + at);
  /* The count is checked against the bytes that remain before anything is
   * sized from it. */
  if ((uint64_t)n * elem > b->n - at - 4)
    return fb_error(b, at, "vector of %u %u-byte elements does not fit in the %zu bytes that follow", n, elem,
                    b->n - at - 4);
  *out = (fb_vec){b, at + 4, n, elem};
  return NULL;
}

shl_status fb_vector_field(const fb_table *t, unsigned id, unsigned elem, fb_vec *out, bool *present) {
  uint32_t to;
  *out = (fb_vec){.b = t->b, .elem = elem};
  ST_TRY(ref_field(t, id, &to));
  if (present) *present = to != 0;
  return to ? vector_at(t->b, to, elem, out) : NULL;
}

static shl_status string_at(fb_buf *b, uint32_t at, shl_str *out) {
  fb_vec v;
  ST_TRY(vector_at(b, at, 1, &v));
  if (v.pos + v.n >= b->n || b->p[v.pos + v.n] != 0) return fb_error(b, at, "string of %u bytes lacks its NUL terminator", v.n);
  *out = (shl_str){(const char *)b->p + v.pos, v.n};
  return NULL;
}

shl_status fb_string_field(const fb_table *t, unsigned id, shl_str *out, bool *present) {
  uint32_t to;
  *out = (shl_str){"", 0};
  ST_TRY(ref_field(t, id, &to));
  if (present) *present = to != 0;
  return to ? string_at(t->b, to, out) : NULL;
}

shl_status fb_union_field(const fb_table *t, unsigned id, uint8_t *type, fb_table *out) {
  uint64_t ty;
  bool present = false;
  *type = 0;
  ST_TRY(fb_scalar(t, id, 1, 0, &ty));
  ST_TRY(fb_table_field(t, id + 1, out, &present));
  if (ty && !present) return fb_error(t->b, t->pos, "union field %u has type %u but no value", id, (unsigned)ty);
  *type = present ? (uint8_t)ty : 0;
  return NULL;
}

shl_status fb_vec_table(const fb_vec *v, uint32_t i, fb_table *out) {
  uint32_t to;
  *out = (fb_table){.b = v->b};
  if (i >= v->n || v->elem != 4) return fb_error(v->b, v->pos, "element %u of a %u-element vector", i, v->n);
  ST_TRY(follow(v->b, v->pos + 4 * i, &to));
  return fb_table_at(v->b, to, out);
}

shl_status fb_vec_string(const fb_vec *v, uint32_t i, shl_str *out) {
  uint32_t to;
  *out = (shl_str){"", 0};
  if (i >= v->n || v->elem != 4) return fb_error(v->b, v->pos, "element %u of a %u-element vector", i, v->n);
  ST_TRY(fb_visit(v->b, 1, v->pos + 4 * i));
  ST_TRY(follow(v->b, v->pos + 4 * i, &to));
  return string_at(v->b, to, out);
}

uint64_t fb_vec_scalar(const fb_vec *v, uint32_t i) { return rd_le(v->b->p + v->pos + (size_t)i * v->elem, v->elem); }
