#include "hex.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Nibble value + 1 of a hex digit, 0 for anything else. */
static const uint8_t hex_tbl[256] = {
    ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
    ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16};

static bool is_upper_hex(unsigned char c) { return (unsigned)(c - '0') <= 9 || (unsigned)(c - 'A') <= 5; }

size_t hex_upper_span(const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0;
#ifdef __SSE2__
  /* Unsigned range checks via saturating subtraction: x in [lo, lo+k] iff
   * subs(x - lo, k) == 0 after the wrap-around subtraction. */
  const __m128i c0 = _mm_set1_epi8('0'), cA = _mm_set1_epi8('A'), k9 = _mm_set1_epi8(9), k5 = _mm_set1_epi8(5);
  const __m128i zero = _mm_setzero_si128();
  for (; i + 16 <= n; i += 16) {
    __m128i c = _mm_loadu_si128((const __m128i *)(u + i));
    __m128i d = _mm_cmpeq_epi8(_mm_subs_epu8(_mm_sub_epi8(c, c0), k9), zero);
    __m128i l = _mm_cmpeq_epi8(_mm_subs_epu8(_mm_sub_epi8(c, cA), k5), zero);
    unsigned ok = (unsigned)_mm_movemask_epi8(_mm_or_si128(d, l));
    if (ok != 0xFFFF) return i + (size_t)__builtin_ctz(~ok);
  }
#endif
  while (i < n && is_upper_hex(u[i])) i++;
  return i;
}

size_t hex_first_bad(const char *s, size_t n) {
  size_t i = 0;
  while (i < n && hex_tbl[(unsigned char)s[i]]) i++;
  return i;
}

/* Scalar decoding; validity is accumulated and checked once at the end to
 * keep the loop branch-free. */
static bool decode_scalar(const unsigned char *u, size_t nbytes, uint8_t *out) {
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
static inline __m128i nibbles(__m128i c, int *ok) {
  __m128i d = _mm_sub_epi8(c, _mm_set1_epi8('0'));
  __m128i l = _mm_sub_epi8(_mm_or_si128(c, _mm_set1_epi8(0x20)), _mm_set1_epi8('a')); /* folds A-F to a-f */
  __m128i is_d = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);                 /* d <= 9 unsigned */
  __m128i is_l = _mm_cmpeq_epi8(_mm_min_epu8(l, _mm_set1_epi8(5)), l);
  *ok &= _mm_movemask_epi8(_mm_or_si128(is_d, is_l)) == 0xFFFF;
  return _mm_or_si128(_mm_and_si128(is_d, d), _mm_and_si128(is_l, _mm_add_epi8(l, _mm_set1_epi8(10))));
}

/* Nibble pairs (high first) -> bytes, as 16-bit lanes {hi, lo}. */
static inline __m128i pairs(__m128i v) {
  return _mm_or_si128(_mm_and_si128(_mm_slli_epi16(v, 4), _mm_set1_epi16(0xF0)), _mm_srli_epi16(v, 8));
}
#endif

bool hex_decode(const char *s, size_t nbytes, uint8_t *out) {
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0;
#ifdef __SSE2__
  int ok = 1;
  for (; i + 16 <= nbytes; i += 16) {
    __m128i a = nibbles(_mm_loadu_si128((const __m128i *)(u + 2 * i)), &ok);
    __m128i b = nibbles(_mm_loadu_si128((const __m128i *)(u + 2 * i + 16)), &ok);
    _mm_storeu_si128((__m128i *)(out + i), _mm_packus_epi16(pairs(a), pairs(b)));
  }
  if (!ok) return false;
#endif
  return decode_scalar(u + 2 * i, nbytes - i, out + i);
}

void hex_encode(const uint8_t *d, size_t nbytes, unsigned mask, char *o) {
  static const char hx[] = "0123456789ABCDEF";
  size_t i = 0;
#ifdef __SSE2__
  /* 16 bytes -> 32 digits: nibble n becomes '0' + n, plus 7 above 9. */
  const __m128i m = _mm_set1_epi8((char)mask), f = _mm_set1_epi8(0x0F), nine = _mm_set1_epi8(9);
  for (; i + 16 <= nbytes; i += 16) {
    __m128i b = _mm_and_si128(_mm_loadu_si128((const __m128i *)(d + i)), m);
    __m128i hi = _mm_and_si128(_mm_srli_epi16(b, 4), f), lo = _mm_and_si128(b, f);
    hi = _mm_add_epi8(_mm_add_epi8(hi, _mm_set1_epi8('0')), _mm_and_si128(_mm_cmpgt_epi8(hi, nine), _mm_set1_epi8(7)));
    lo = _mm_add_epi8(_mm_add_epi8(lo, _mm_set1_epi8('0')), _mm_and_si128(_mm_cmpgt_epi8(lo, nine), _mm_set1_epi8(7)));
    _mm_storeu_si128((__m128i *)(o + 2 * i), _mm_unpacklo_epi8(hi, lo));
    _mm_storeu_si128((__m128i *)(o + 2 * i + 16), _mm_unpackhi_epi8(hi, lo));
  }
#endif
  for (; i < nbytes; i++) {
    unsigned byte = d[i] & mask;
    o[2 * i] = hx[byte >> 4];
    o[2 * i + 1] = hx[byte & 15];
  }
}
