/* Primitive encodings of MLIR bytecode: bytes, prefix varints (the count of
 * trailing zero bits of the first byte says how many bytes follow), zigzag
 * signed varints and sections. */
#include "bc_reader.h"

shl_status bc_eof(bc_cur *c) { return bc_error(c->r, c->p, "unexpected end of data"); }

shl_status bc_byte(bc_cur *c, uint8_t *out) {
  if (c->p >= c->end) return bc_eof(c);
  *out = *c->p++;
  return NULL;
}

shl_status bc_varint(bc_cur *c, uint64_t *out) {
  if (c->p >= c->end) return bc_eof(c);
  uint8_t b = c->p[0];
  if (b & 1) { /* the common one-byte case */
    *out = b >> 1;
    c->p++;
    return NULL;
  }
  unsigned n = b ? (unsigned)__builtin_ctz(b) + 1 : 9; /* total bytes */
  if (bc_left(c) < n) return bc_eof(c);
  uint64_t v = 0;
  if (n == 9) {
    for (int i = 8; i >= 1; i--) v = v << 8 | c->p[i];
  } else {
    for (int i = (int)n - 1; i >= 0; i--) v = v << 8 | c->p[i];
    v >>= n;
  }
  c->p += n;
  *out = v;
  return NULL;
}

shl_status bc_svarint(bc_cur *c, int64_t *out) {
  uint64_t v;
  ST_TRY(bc_varint(c, &v));
  *out = (int64_t)((v >> 1) ^ (~(v & 1) + 1));
  return NULL;
}

shl_status bc_varint_flag(bc_cur *c, uint64_t *out, bool *flag) {
  uint64_t v;
  ST_TRY(bc_varint(c, &v));
  *flag = v & 1;
  *out = v >> 1;
  return NULL;
}

shl_status bc_bytes(bc_cur *c, size_t n, const uint8_t **out) {
  if (bc_left(c) < n) return bc_error(c->r, c->p, "%zu bytes announced, only %zu left", n, bc_left(c));
  *out = c->p;
  c->p += n;
  return NULL;
}

shl_status bc_count(bc_cur *c, size_t min_bytes, uint64_t *out) {
  const uint8_t *at = c->p;
  ST_TRY(bc_varint(c, out));
  if (min_bytes && *out > bc_left(c) / min_bytes)
    return bc_error(c->r, at, "count %llu is larger than the %zu bytes left allow", (unsigned long long)*out,
                    bc_left(c));
  return NULL;
}

shl_status bc_section(bc_cur *c, uint8_t *id, bc_cur *data) {
  const uint8_t *at = c->p;
  uint8_t b = 0;
  uint64_t len = 0;
  ST_TRY(bc_byte(c, &b));
  ST_TRY(bc_varint(c, &len));
  *id = b & 0x7F;
  if (b & 0x80) {
    uint64_t align;
    ST_TRY(bc_varint(c, &align));
    if (!align || (align & (align - 1)) || align > 4096)
      return bc_error(c->r, at, "section alignment %llu is not a power of two up to 4096", (unsigned long long)align);
    /* Padding (0xCB bytes) up to the alignment, measured from the file start. */
    while ((size_t)(c->p - c->r->data) % align) {
      if (c->p >= c->end) return bc_eof(c);
      if (*c->p != 0xCB) return bc_error(c->r, c->p, "invalid section padding byte 0x%02X", *c->p);
      c->p++;
    }
  }
  if (len > bc_left(c))
    return bc_error(c->r, at, "section %u is %llu bytes, only %zu left", *id, (unsigned long long)len, bc_left(c));
  *data = (bc_cur){c->r, c->p, c->p + len};
  c->p += len;
  return NULL;
}
