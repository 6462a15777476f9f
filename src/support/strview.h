/* Non-owning string slices (into the source text or an arena). */
#ifndef SHLOC_SUPPORT_STRVIEW_H
#define SHLOC_SUPPORT_STRVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

typedef struct {
  const char *p;
  size_t n;
} shl_str;

#define STR_LIT(s) ((shl_str){(s), sizeof(s) - 1})

static inline shl_str str_of(const char *s) { return (shl_str){s, s ? strlen(s) : 0}; }
static inline bool str_eq(shl_str a, shl_str b) { return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0); }
static inline bool str_eq_c(shl_str a, const char *b) { return str_eq(a, str_of(b)); }
static inline int str_cmp(shl_str a, shl_str b) {
  size_t n = a.n < b.n ? a.n : b.n;
  int c = n ? memcmp(a.p, b.p, n) : 0;
  return c ? c : (a.n < b.n ? -1 : a.n > b.n);
}
static inline bool str_starts(shl_str a, const char *prefix) {
  size_t n = strlen(prefix);
  return a.n >= n && memcmp(a.p, prefix, n) == 0;
}
/* 8 bytes at a time with a multiply-xorshift mix: names are short, so the
 * per-byte loop of simpler hashes dominated symbol-table lookups. */
static inline unsigned long long str_hash(shl_str s) {
  const unsigned long long k = 0x9E3779B97F4A7C15ull;
  unsigned long long h = (unsigned long long)s.n * k;
  const char *p = s.p;
  size_t n = s.n;
  for (; n >= 8; n -= 8, p += 8) {
    unsigned long long w;
    memcpy(&w, p, 8);
    h = (h ^ w) * k;
    h ^= h >> 29;
  }
  if (n) {
    unsigned long long w = 0;
    memcpy(&w, p, n);
    h = (h ^ w) * k;
    h ^= h >> 29;
  }
  h *= 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 31);
}

#endif
