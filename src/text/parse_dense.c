/* dense<...> : tensor<...> literals: nested lists, splats, hex blobs,
 * complex pairs, booleans.  Elements are stored at their dtype's storage
 * width; all-equal data is stored as a splat, as MLIR canonicalizes it. */
#include <stdlib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "parser.h"

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

/* Nibble value + 1 of a hex digit, 0 for anything else. */
static const uint8_t hex_tbl[256] = {
    ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
    ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16};

/* Scalar hex decoding; validity is accumulated and checked once at the end
 * to keep the loop branch-free. */
static bool hex_decode_scalar(const unsigned char *u, size_t nbytes, uint8_t *out) {
  unsigned bad = 0;
  for (size_t i = 0; i < nbytes; i++) {
    unsigned h = hex_tbl[u[2 * i]], l = hex_tbl[u[2 * i + 1]];
    bad |= (h - 1) | (l - 1); /* a 0 entry wraps around to set high bits */
    out[i] = (uint8_t)((h - 1) << 4 | (l - 1));
  }
  return bad <= 15;
}

#ifdef __SSE2__
/* 16 hex digits -> 16 nibble values; *ok is cleared on a non-digit. */
static inline __m128i hex_nibbles(__m128i c, int *ok) {
  __m128i d = _mm_sub_epi8(c, _mm_set1_epi8('0'));
  __m128i l = _mm_sub_epi8(_mm_or_si128(c, _mm_set1_epi8(0x20)), _mm_set1_epi8('a')); /* folds A-F to a-f */
  __m128i is_d = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);                 /* d <= 9 unsigned */
  __m128i is_l = _mm_cmpeq_epi8(_mm_min_epu8(l, _mm_set1_epi8(5)), l);
  *ok &= _mm_movemask_epi8(_mm_or_si128(is_d, is_l)) == 0xFFFF;
  return _mm_or_si128(_mm_and_si128(is_d, d), _mm_and_si128(is_l, _mm_add_epi8(l, _mm_set1_epi8(10))));
}

/* Nibble pairs (high first) -> bytes, as 16-bit lanes {hi, lo}. */
static inline __m128i hex_pairs(__m128i v) {
  return _mm_or_si128(_mm_and_si128(_mm_slli_epi16(v, 4), _mm_set1_epi16(0xF0)), _mm_srli_epi16(v, 8));
}
#endif

/* Decodes 2 * nbytes hex digits into bytes; returns false on a bad digit.
 * This is the hot loop for large constants, hence the SSE2 path. */
static bool hex_decode(const char *s, size_t nbytes, uint8_t *out) {
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0;
#ifdef __SSE2__
  int ok = 1;
  for (; i + 16 <= nbytes; i += 16) {
    __m128i a = hex_nibbles(_mm_loadu_si128((const __m128i *)(u + 2 * i)), &ok);
    __m128i b = hex_nibbles(_mm_loadu_si128((const __m128i *)(u + 2 * i + 16)), &ok);
    _mm_storeu_si128((__m128i *)(out + i), _mm_packus_epi16(hex_pairs(a), hex_pairs(b)));
  }
  if (!ok) return false;
#endif
  return hex_decode_scalar(u + 2 * i, nbytes - i, out + i);
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
  a->u.dense.data = data;
  a->u.dense.nbytes = count * sz;
  a->u.dense.splat = count == 1;
  *out = a;
  return NULL;
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
  size_t nbytes = (s.n - 2) / 2;
  size_t want = dt == DT_I1 ? count / 8 + (count % 8 != 0) : sz * count;
  /* i1 blobs come bit-packed (what MLIR prints) or one byte per element. */
  bool i1_bytes = dt == DT_I1 && nbytes == count && nbytes != want;
  if ((s.n - 2) % 2 || (nbytes != want && nbytes != sz && !i1_bytes))
    return parse_error_at(p, hex, "hex data has %zu bytes; the type needs %zu (or %zu for a splat)", nbytes, want, sz);
  uint8_t *raw = arena_alloc_uninit(p->a, nbytes ? nbytes : 1);
  if (!raw) return st_oom();
  if (!hex_decode(s.p + 2, nbytes, raw)) return parse_error_at(p, hex, "invalid hex digit in dense literal");
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
  unsigned w = dtype_bits(dt);
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
