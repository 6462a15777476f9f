/* `check --match-source`: the pretty output must reproduce the source text.
 *
 * The comparison is the round trip's independent oracle: a parser that
 * misreads something and a printer that prints the misreading consistently
 * pass `pretty -> parse -> pretty`, but not a comparison with the file the
 * upstream MLIR printer wrote.  Rules:
 *   - comment lines (`// RUN: ...`) and blank lines before the first and after
 *     the last line of code are not printed, so they are not compared;
 *   - every other line must be identical, except inside `dense<...>` literals,
 *     which must denote the same values: MLIR's own spelling of them changed
 *     (the conformance corpus was printed by an older MLIR), so
 *       * numbers compare by value and whitespace is insignificant
 *         (`(0.0, 0.0)` and `(0.000000e+00,0.000000e+00)` are one complex zero);
 *       * an i1 hex literal may be one byte (00 or 01) per element, as older
 *         MLIR wrote it, or bit-packed 8 per byte from the least significant
 *         bit with zero padding, as MLIR 22 and shloc write it.
 * Decoding here is deliberately separate from the parser's: it is the check. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct {
  const char *p, *end;
} line_cursor;

static bool blank(const char *s, const char *e) {
  for (; s < e; s++)
    if (*s != ' ' && *s != '\t' && *s != '\r') return false;
  return true;
}

static bool comment(const char *s, const char *e) {
  while (s < e && (*s == ' ' || *s == '\t')) s++;
  return e - s >= 2 && s[0] == '/' && s[1] == '/';
}

/* Next line [*ls, *le) that is not a comment; false at the end.  *lineno
 * counts every line read. */
static bool next_line(line_cursor *c, bool skip_comments, const char **ls, const char **le, int *lineno) {
  while (c->p < c->end) {
    const char *s = c->p, *nl = memchr(s, '\n', (size_t)(c->end - s));
    const char *e = nl ? nl : c->end;
    c->p = nl ? nl + 1 : c->end;
    (*lineno)++;
    if (skip_comments && comment(s, e)) continue;
    *ls = s;
    *le = e;
    return true;
  }
  return false;
}

static int nibble(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  return -1;
}

/* a = 2*na hex digits of one byte (00/01) per element, b = bit-packed. */
static bool i1_bytes_match_packed(const char *a, size_t na, const char *b, size_t nb) {
  if (nb != (na + 7) / 8) return false;
  for (size_t i = 0; i < nb * 8; i++) {
    int hi = nibble(b[2 * (i / 8)]), lo = nibble(b[2 * (i / 8) + 1]);
    if (hi < 0 || lo < 0) return false;
    int bit = (((hi << 4) | lo) >> (i % 8)) & 1;
    int want = 0;
    if (i < na) {
      if (a[2 * i] != '0' || (a[2 * i + 1] != '0' && a[2 * i + 1] != '1')) return false;
      want = a[2 * i + 1] == '1';
    }
    if (bit != want) return false;
  }
  return true;
}

static void skip_ws(const char **s, const char *e) {
  while (*s < e && (**s == ' ' || **s == '\t')) (*s)++;
}

/* A quoted hex string "0x..." at *s: its digits [*d, *d + *n). */
static bool hex_string(const char **s, const char *e, const char **d, size_t *n) {
  const char *p = *s;
  if (e - p < 3 || p[0] != '"' || p[1] != '0' || (p[2] != 'x' && p[2] != 'X')) return false;
  const char *q = p + 3;
  while (q < e && nibble(*q) >= 0) q++;
  if (q >= e || *q != '"' || (q - p - 3) % 2) return false;
  *d = p + 3;
  *n = (size_t)(q - p - 3);
  *s = q + 1;
  return true;
}

/* Compares two literal bodies (between `dense<` and `>`) by value. */
static bool literals_match(const char *a, const char *ae, const char *b, const char *be, bool i1) {
  for (;;) {
    skip_ws(&a, ae);
    skip_ws(&b, be);
    if (a == ae || b == be) return a == ae && b == be;
    const char *da, *db;
    size_t na, nb;
    const char *a0 = a, *b0 = b;
    if (hex_string(&a, ae, &da, &na) && hex_string(&b, be, &db, &nb)) {
      if (na == nb && memcmp(da, db, na) == 0) continue;
      if (i1 && i1_bytes_match_packed(da, na / 2, db, nb / 2)) continue;
      return false;
    }
    a = a0;
    b = b0;
    /* Hex float bit patterns (0x7FC0) compare as text, decimal numbers by value. */
    bool hex_a = ae - a > 2 && a[0] == '0' && a[1] == 'x', hex_b = be - b > 2 && b[0] == '0' && b[1] == 'x';
    if (hex_a || hex_b) {
      size_t la = 2, lb = 2;
      while (a + la < ae && nibble(a[la]) >= 0) la++;
      while (b + lb < be && nibble(b[lb]) >= 0) lb++;
      if (!hex_a || !hex_b || la != lb || memcmp(a, b, la) != 0) return false;
      a += la;
      b += lb;
      continue;
    }
    if ((*a == '-' || (*a >= '0' && *a <= '9')) && (*b == '-' || (*b >= '0' && *b <= '9'))) {
      char ta[64], tb[64];
      size_t la = strcspn(a, " ,)]>"), lb = strcspn(b, " ,)]>");
      if (la >= sizeof ta || lb >= sizeof tb || (long)la > ae - a || (long)lb > be - b) return false;
      memcpy(ta, a, la);
      ta[la] = '\0';
      memcpy(tb, b, lb);
      tb[lb] = '\0';
      char *ea, *eb;
      double va = strtod(ta, &ea), vb = strtod(tb, &eb);
      if (*ea || *eb || va != vb || signbit(va) != signbit(vb)) return false;
      a += la;
      b += lb;
      continue;
    }
    if (*a++ != *b++) return false;
  }
}

/* The element type that follows a literal is i1 (`> : tensor<...xi1>` or `tensor<i1>`). */
static bool i1_suffix(const char *s, const char *e) {
  if (e - s < 11 || memcmp(s, "> : tensor<", 11) != 0) return false;
  const char *close = memchr(s + 11, '>', (size_t)(e - s - 11));
  if (!close || close - s < 13) return false;
  return close[-1] == '1' && close[-2] == 'i' && (close[-3] == 'x' || close[-3] == '<');
}

static bool lines_match(const char *a, const char *ae, const char *b, const char *be) {
  while (a < ae && b < be) {
    if (ae - a >= 6 && be - b >= 6 && memcmp(a, "dense<", 6) == 0 && memcmp(b, "dense<", 6) == 0) {
      const char *ca = memchr(a + 6, '>', (size_t)(ae - a - 6)), *cb = memchr(b + 6, '>', (size_t)(be - b - 6));
      if (!ca || !cb || !literals_match(a + 6, ca, b + 6, cb, i1_suffix(cb, be))) return false;
      a = ca;
      b = cb;
      continue;
    }
    if (*a++ != *b++) return false;
  }
  return a == ae && b == be;
}

static void excerpt(char *out, size_t cap, const char *s, const char *e) {
  size_t n = (size_t)(e - s);
  if (n > 100) snprintf(out, cap, "%.100s...", s);
  else snprintf(out, cap, "%.*s", (int)n, s);
}

shloc_status cli_match_source(const char *path, const char *src, size_t src_len, int first_line,
                              const char *printed, size_t printed_len) {
  line_cursor cs = {src, src + src_len}, cp = {printed, printed + printed_len};
  int ln_s = first_line - 1, ln_p = 0;
  const char *ss, *se, *ps, *pe;
  bool have_s, have_p;
  /* Leading blank lines of the source. */
  do have_s = next_line(&cs, true, &ss, &se, &ln_s);
  while (have_s && blank(ss, se));
  have_p = next_line(&cp, false, &ps, &pe, &ln_p);
  while (have_s && have_p) {
    if (!lines_match(ss, se, ps, pe)) {
      char want[128], got[128];
      excerpt(want, sizeof want, ss, se);
      excerpt(got, sizeof got, ps, pe);
      return shloc_status_error(SHLOC_ERR_VERIFY, path, ln_s, 1,
                                "pretty output differs from the source: line %d prints as '%s', source has '%s'", ln_p,
                                got, want);
    }
    have_s = next_line(&cs, true, &ss, &se, &ln_s);
    have_p = next_line(&cp, false, &ps, &pe, &ln_p);
  }
  /* Whatever remains on either side must be blank. */
  while (have_s && blank(ss, se)) have_s = next_line(&cs, true, &ss, &se, &ln_s);
  while (have_p && blank(ps, pe)) have_p = next_line(&cp, false, &ps, &pe, &ln_p);
  if (have_s) return shloc_status_error(SHLOC_ERR_VERIFY, path, ln_s, 1, "source line not in the pretty output");
  if (have_p)
    return shloc_status_error(SHLOC_ERR_VERIFY, path, first_line, 1, "pretty output has more lines than the source");
  return NULL;
}
