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
static inline unsigned long long str_hash(shl_str s) {
  unsigned long long h = 1469598103934665603ull; /* FNV-1a */
  for (size_t i = 0; i < s.n; i++) h = (h ^ (unsigned char)s.p[i]) * 1099511628211ull;
  return h;
}

#endif
