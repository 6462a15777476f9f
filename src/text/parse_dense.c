/* dense<...> : tensor<...> literals: nested lists, splats, hex blobs,
 * complex pairs, booleans.  Elements are stored at their dtype's storage
 * width; all-equal data is stored as a splat, as MLIR canonicalizes it. */
#include <stdlib.h>

#include "parser.h"
#include "support/hex.h"

shl_status literal_to_bits(shl_parser *p, const shl_token *t, bool neg, shl_dtype dt, uint64_t *bits);
void store_bits(void *dst, shl_dtype dt, uint64_t bits);

typedef struct {
  shl_token tok;
  bool neg;
} elem_tok;

typedef struct {
  elem_tok *v; /* scalars; a complex element contributes two */
  size_t n, cap;
  size_t n_elems;    /* elements (scalars or (re, im) pairs) */
  int64_t shape[64]; /* sizes seen per nesting level, -1 = unknown yet */
  int depth_max;     /* nesting depth of scalars (-1 = unset) */
} dense_lit;

static shl_status push(shl_parser *p, dense_lit *d, const shl_token *t, bool neg) {
  if (d->n == d->cap) {
    size_t ncap = d->cap ? d->cap * 2 : 64;
    elem_tok *nv = realloc(d->v, ncap * sizeof *nv);
    if (!nv) return st_oom();
    d->v = nv;
    d->cap = ncap;
  }
  if (d->n >= p->limits->max_elements * 2 + 2) return parse_error(p, "dense literal has too many elements");
  d->v[d->n++] = (elem_tok){*t, neg};
  return NULL;
}

static bool is_scalar_tok(const shl_token *t) {
  return t->kind == TK_INT || t->kind == TK_FLOAT ||
         (t->kind == TK_BARE_ID && (str_eq_c(t->text, "true") || str_eq_c(t->text, "false") ||
                                    str_eq_c(t->text, "inf") || str_eq_c(t->text, "nan")));
}

static shl_status scalar(shl_parser *p, dense_lit *d) {
  bool neg = p_punct(p, '-');
  shl_token t = *p_tok(p);
  if (!is_scalar_tok(&t)) return parse_error(p, "expected element literal");
  p_next(p);
  return push(p, d, &t, neg);
}

/* One element: scalar or (re, im). */
static shl_status element(shl_parser *p, dense_lit *d) {
  d->n_elems++;
  if (p_punct(p, '(')) {
    ST_TRY(scalar(p, d));
    ST_TRY(p_expect(p, ','));
    ST_TRY(scalar(p, d));
    return p_expect(p, ')');
  }
  return scalar(p, d);
}

static shl_status list(shl_parser *p, dense_lit *d, int level) {
  if (level >= 64) return parse_error(p, "dense literal nested too deeply");
  ST_TRY(p_nest_enter(p));
  ST_TRY(p_expect(p, '['));
  int64_t count = 0;
  if (!p_punct(p, ']')) {
    for (;;) {
      if (tok_punct(p_tok(p), '[')) {
        if (d->depth_max >= 0 && d->depth_max <= level) return parse_error(p, "inconsistent nesting in dense literal");
        ST_TRY(list(p, d, level + 1));
      } else {
        if (d->depth_max < 0) d->depth_max = level + 1;
        else if (d->depth_max != level + 1) return parse_error(p, "inconsistent nesting in dense literal");
        ST_TRY(element(p, d));
      }
      count++;
      if (p_punct(p, ',')) continue;
      ST_TRY(p_expect(p, ']'));
      break;
    }
  }
  if (d->shape[level] < 0) d->shape[level] = count;
  else if (d->shape[level] != count) return parse_error(p, "dense literal rows have different lengths");
  if (count == 0 && d->depth_max < 0) d->depth_max = level + 1;
  p_nest_leave(p);
  return NULL;
}

static bool all_equal(const uint8_t *data, size_t n, size_t sz) {
  /* Equal elements <=> the bytes are periodic with period sz. */
  return n < 2 || memcmp(data, data + sz, (n - 1) * sz) == 0;
}

static shl_status finish(shl_parser *p, const shl_type *ty, uint8_t *data, size_t count, size_t sz,
                         const shl_attr **out) {
  shl_attr *a = attr_new(p->a, AT_DENSE);
  if (!a) return st_oom();
  a->type = ty;
  if (count > 1 && all_equal(data, count, sz)) count = 1;
  a->u.dense.storage = data;
  a->u.dense.nbytes = count * sz;
  a->u.dense.splat = count == 1;
  *out = a;
  return NULL;
}

/* Hex constants at least this large (in bytes) are decoded on demand. */
enum { LAZY_HEX_MIN = 4096 };

/* An error at the `off`-th character of a string token (strings hold no
 * newlines, so that is on the token's line). */
static shl_status error_in_string(shl_parser *p, const shl_token *t, size_t off, const char *fmt, char c) {
  shl_token at = *t;
  if (off < (size_t)INT32_MAX - (size_t)at.col) at.col += (int)off;
  return parse_error_at(p, &at, fmt, c);
}

/* dense<"0x..."> : the raw little-endian storage of all elements, or of one
 * element for a splat.  As in MLIR, i1 data is bit-packed (least significant
 * bit first) and an i1 splat is the single byte 00 or FF. */
static shl_status hex_literal(shl_parser *p, const shl_token *hex, const shl_type *ty, size_t count,
                              const shl_attr **out) {
  shl_dtype dt = type_storage_dtype(ty);
  size_t sz = dtype_bytes(dt);
  shl_str s = {hex->text.p + 1, hex->text.n - 2};
  if (s.n < 2 || s.p[0] != '0' || (s.p[1] != 'x' && s.p[1] != 'X'))
    return parse_error_at(p, hex, "dense string literal must be hexadecimal \"0x...\"");
  const char *dig = s.p + 2;
  size_t ndig = s.n - 2;
  /* The lexer already checked uppercase digits; others are checked here so
   * that the error points at the offending character. */
  if (!hex->hex_upper) {
    size_t bad = hex_first_bad(dig, ndig);
    if (bad < ndig)
      return error_in_string(p, hex, 3 + bad, "invalid hex digit '%c' in dense literal", dig[bad]);
  }
  if (ndig % 2) return parse_error_at(p, hex, "hex data has an odd number of digits (%zu)", ndig);
  size_t nbytes = ndig / 2;
  size_t want = dt == DT_I1 ? count / 8 + (count % 8 != 0) : sz * count;
  /* i1 blobs come bit-packed (what MLIR prints) or one byte per element. */
  bool i1_bytes = dt == DT_I1 && nbytes == count && nbytes != want;
  if (nbytes != want && nbytes != sz && !i1_bytes)
    return parse_error_at(p, hex, "hex data has %zu bytes; the type needs %zu (or %zu for a splat)", nbytes, want, sz);
  unsigned w = dtype_bits(dt);
  if (hex->hex_upper && w >= 8 && nbytes == want && nbytes >= LAZY_HEX_MIN && count > 1) {
    /* Canonical digits map one-to-one to bytes, so equal elements are equal
     * digit groups: a splat is found on the text, anything else is decoded
     * only if its bytes are ever read. */
    size_t period = 2 * sz;
    if (memcmp(dig, dig + period, ndig - period) != 0) {
      shl_attr *a = attr_dense_lazy(p->a, ty, dig, nbytes);
      if (!a) return st_oom();
      *out = a;
      return NULL;
    }
    nbytes = sz;
  }
  uint8_t *raw = arena_alloc_uninit(p->a, nbytes ? nbytes : 1);
  if (!raw) return st_oom();
  if (!hex_decode(dig, nbytes, raw)) return parse_error_at(p, hex, "invalid hex digit in dense literal");
  if (i1_bytes) {
    for (size_t i = 0; i < count; i++) raw[i] = raw[i] != 0;
    return finish(p, ty, raw, count, 1, out);
  }
  if (dt == DT_I1) {
    if (nbytes != want) {
      if (raw[0] != 0 && raw[0] != 0xFF) return parse_error_at(p, hex, "an i1 splat must be 0x00 or 0xFF");
      raw[0] &= 1;
      return finish(p, ty, raw, 1, 1, out);
    }
    uint8_t *bools = arena_alloc(p->a, count ? count : 1);
    if (!bools) return st_oom();
    for (size_t i = 0; i < count; i++) bools[i] = (raw[i / 8] >> (i % 8)) & 1;
    return finish(p, ty, bools, count, 1, out);
  }
  if (w < 8) {
    /* Sub-byte elements: only the low w bits are data; store them the way
     * list literals are stored (sign-extended for signed types). */
    for (size_t i = 0; i < nbytes; i++) {
      uint64_t bits = raw[i] & ((1u << w) - 1);
      store_bits(raw + i, dt, bits);
    }
  }
  return finish(p, ty, raw, nbytes / sz, sz, out);
}

shl_status p_dense(shl_parser *p, const shl_attr **out) {
  ST_TRY(p_expect(p, '<'));
  dense_lit d = {0};
  for (int i = 0; i < 64; i++) d.shape[i] = -1;
  d.depth_max = -1;
  shl_token hex = {0};
  bool is_list = false, empty = false;
  shl_status st = NULL;
  if (tok_punct(p_tok(p), '>')) {
    empty = true;
  } else if (p_tok(p)->kind == TK_STRING) {
    hex = *p_tok(p);
    p_next(p);
  } else if (tok_punct(p_tok(p), '[')) {
    is_list = true;
    st = list(p, &d, 0);
  } else {
    st = element(p, &d);
  }
  if (!st) st = p_expect(p, '>');
  if (!st) st = p_expect(p, ':');
  shl_token at = *p_tok(p);
  const shl_type *ty = NULL;
  if (!st) st = p_type(p, &ty);
  if (st) goto out;
  if (ty->kind != TY_TENSOR || !type_is_static(ty)) {
    st = parse_error_at(p, &at, "dense literal needs a statically shaped tensor type");
    goto out;
  }
  shl_dtype dt = type_storage_dtype(ty);
  size_t sz = dtype_bytes(dt);
  int64_t count = type_num_elements(ty);
  if (count < 0 || (sz && (uint64_t)count > SIZE_MAX / sz)) {
    st = parse_error_at(p, &at, "dense literal too large");
    goto out;
  }
  if (hex.kind) {
    st = hex_literal(p, &hex, ty, (size_t)count, out);
    goto out;
  }
  if (empty) {
    if (count != 0) {
      st = parse_error_at(p, &at, "empty dense literal for a non-empty type");
      goto out;
    }
    st = finish(p, ty, arena_alloc(p->a, 1), 0, sz, out);
    goto out;
  }
  bool cplx = dtype_is_complex(dt);
  size_t per = cplx ? 2 : 1;
  if (d.n != d.n_elems * per) {
    st = parse_error_at(p, &at, cplx ? "complex tensor needs (re, im) elements" : "complex literal for a non-complex type");
    goto out;
  }
  size_t n_elems = d.n_elems;
  if (is_list) {
    /* The nesting must match the type's shape exactly. */
    int rank = ty->rank;
    /* `[]` stands for any empty shape; otherwise nesting and row lengths
     * must match the type exactly (also when a later dimension is 0). */
    bool ok = d.depth_max == (rank == 0 ? 1 : rank) || (count == 0 && d.n == 0 && d.shape[0] == 0);
    for (int i = 0; ok && i < rank && d.shape[i] >= 0; i++) ok = d.shape[i] == ty->dims[i] || (i == 0 && d.n == 0 && d.shape[0] == 0 && count == 0);
    if (rank == 0) ok = false;
    if (!ok) {
      st = parse_error_at(p, &at, "dense literal shape does not match its type");
      goto out;
    }
  } else if (n_elems != 1) {
    st = parse_error_at(p, &at, "bad dense literal");
    goto out;
  }
  {
    uint8_t *data = arena_alloc(p->a, n_elems * sz > 0 ? n_elems * sz : 1);
    if (!data) {
      st = st_oom();
      goto out;
    }
    shl_dtype edt = dt == DT_C64 ? DT_F32 : dt == DT_C128 ? DT_F64 : dt;
    size_t esz = dtype_bytes(edt);
    for (size_t i = 0; i < d.n; i++) {
      uint64_t bits;
      if ((st = literal_to_bits(p, &d.v[i].tok, d.v[i].neg, edt, &bits))) goto out;
      store_bits(data + i * esz, edt, bits);
    }
    st = finish(p, ty, data, n_elems, sz, out);
  }
out:
  free(d.v);
  return st;
}
