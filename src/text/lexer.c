#include "lexer.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "support/hex.h"

void lexer_init(shl_lexer *lx, const char *file, const char *text, size_t len, int first_line) {
  lx->begin = lx->p = lx->line_start = text;
  lx->end = text + len;
  lx->line = first_line;
  lx->file = file;
  lx->error = NULL;
  lexer_next(lx);
}

void lexer_seek(shl_lexer *lx, const char *p, int line, const char *line_start) {
  lx->p = p;
  lx->line = line;
  lx->line_start = line_start;
  lexer_next(lx);
}

/* ASCII classes by arithmetic: the ctype functions go through the locale. */
static bool is_alpha(unsigned char c) { return (unsigned)((c | 0x20) - 'a') < 26; }
static bool is_digit(unsigned char c) { return (unsigned)(c - '0') < 10; }
static bool is_xdigit(unsigned char c) { return is_digit(c) || (unsigned)((c | 0x20) - 'a') < 6; }
static bool is_id_start(unsigned char c) { return is_alpha(c) || c == '_'; }
static bool is_id_char(unsigned char c) { return is_alpha(c) || is_digit(c) || c == '_' || c == '$' || c == '.'; }
static bool is_suffix_char(unsigned char c) { return is_id_char(c) || c == '-'; }

static void skip_space(shl_lexer *lx) {
  const char *p = lx->p, *end = lx->end;
  while (p < end) {
    char c = *p;
    if (c == '\n') {
      lx->line++;
      lx->line_start = ++p;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      p++;
    } else if (c == '/' && p + 1 < end && p[1] == '/') {
      while (p < end && *p != '\n') p++;
    } else {
      break;
    }
  }
  lx->p = p;
}

static void make(shl_lexer *lx, shl_token_kind k, const char *start) {
  lx->tok.kind = k;
  lx->tok.text = (shl_str){start, (size_t)(lx->p - start)};
}

static void fail(shl_lexer *lx, const char *start, const char *msg) {
  lx->error = msg;
  make(lx, TK_ERROR, start);
}

/* Position of the first '"', '\\' or newline in [p, end), or end. */
static const char *find_special(const char *p, const char *end) {
#ifdef __SSE2__
  const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), nl = _mm_set1_epi8('\n');
  for (; end - p >= 16; p += 16) {
    __m128i c = _mm_loadu_si128((const __m128i *)p);
    __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(c, q), _mm_cmpeq_epi8(c, bs)), _mm_cmpeq_epi8(c, nl));
    unsigned m = (unsigned)_mm_movemask_epi8(hit);
    if (m) return p + __builtin_ctz(m);
  }
#endif
  while (p < end && *p != '"' && *p != '\\' && *p != '\n') p++;
  return p;
}

/* Scans a string literal starting at the opening quote.  Newlines inside are
 * rejected (MLIR does the same), which keeps line tracking exact.  A "0x..."
 * string of uppercase hex digits (a dense constant as MLIR prints it) is
 * recognised in the same pass, so the parser need not validate it again. */
static bool scan_string(shl_lexer *lx) {
  const char *p = lx->p + 1, *end = lx->end;
  if (end - p >= 2 && p[0] == '0' && p[1] == 'x') {
    p += 2 + hex_upper_span(p + 2, (size_t)(end - p - 2));
    if (p < end && *p == '"') {
      lx->p = p + 1;
      lx->tok.hex_upper = true;
      return true;
    }
  }
  for (;;) {
    const char *q = find_special(p, end);
    if (q == end || *q == '\n') return false;
    if (*q == '"') {
      lx->p = q + 1;
      return true;
    }
    /* A backslash escapes the next character, which must be on the line. */
    if (q + 1 == end || q[1] == '\n') return false;
    p = q + 2;
  }
}

void lexer_next(shl_lexer *lx) {
  skip_space(lx);
  lx->tok.hex_upper = false;
  const char *start = lx->p;
  lx->tok.line = lx->line;
  lx->tok.col = (int)(start - lx->line_start) + 1;
  if (start >= lx->end) {
    make(lx, TK_EOF, start);
    return;
  }
  unsigned char c = (unsigned char)*start;
  const char *end = lx->end;
  if (is_id_start(c)) {
    lx->p++;
    while (lx->p < end && is_id_char((unsigned char)*lx->p)) lx->p++;
    make(lx, TK_BARE_ID, start);
    return;
  }
  if (is_digit(c)) {
    const char *p = start;
    if (c == '0' && p + 2 < end + 1 && p + 1 < end && p[1] == 'x' && p + 2 < end && is_xdigit((unsigned char)p[2])) {
      p += 2;
      while (p < end && is_xdigit((unsigned char)*p)) p++;
      lx->p = p;
      make(lx, TK_INT, start);
      return;
    }
    while (p < end && is_digit((unsigned char)*p)) p++;
    shl_token_kind k = TK_INT;
    if (p < end && *p == '.') {
      k = TK_FLOAT;
      p++;
      while (p < end && is_digit((unsigned char)*p)) p++;
      if (p < end && (*p == 'e' || *p == 'E')) {
        const char *q = p + 1;
        if (q < end && (*q == '+' || *q == '-')) q++;
        if (q < end && is_digit((unsigned char)*q)) {
          while (q < end && is_digit((unsigned char)*q)) q++;
          p = q;
        }
      }
    }
    lx->p = p;
    make(lx, k, start);
    return;
  }
  switch (c) {
    case '%':
    case '^':
    case '!':
    case '#': {
      const char *p = start + 1;
      if (c == '#' && p < end && *p == '-' && p + 1 < end && p[1] == '}') {
        lx->p = p + 2;
        make(lx, TK_META_END, start);
        return;
      }
      while (p < end && is_suffix_char((unsigned char)*p)) p++;
      if (p == start + 1) {
        lx->p = start + 1;
        fail(lx, start, "expected identifier after prefix");
        return;
      }
      lx->p = p;
      make(lx, c == '%' ? TK_PERCENT_ID : c == '^' ? TK_CARET_ID : c == '!' ? TK_BANG_ID : TK_HASH_ID, start);
      return;
    }
    case '@': {
      lx->p = start + 1;
      if (lx->p < end && *lx->p == '"') {
        if (!scan_string(lx)) {
          fail(lx, start, "unterminated string");
          return;
        }
      } else {
        while (lx->p < end && is_suffix_char((unsigned char)*lx->p)) lx->p++;
        if (lx->p == start + 1) {
          fail(lx, start, "expected symbol name after '@'");
          return;
        }
      }
      make(lx, TK_AT_ID, start);
      return;
    }
    case '"':
      if (!scan_string(lx)) {
        lx->p = start + 1;
        fail(lx, start, "unterminated string literal");
        return;
      }
      make(lx, TK_STRING, start);
      return;
    case '-':
      lx->p = start + 1;
      if (lx->p < end && *lx->p == '>') {
        lx->p++;
        make(lx, TK_ARROW, start);
        return;
      }
      make(lx, TK_PUNCT, start);
      return;
    case '{':
      lx->p = start + 1;
      if (end - start >= 3 && start[1] == '-' && start[2] == '#') {
        lx->p = start + 3;
        make(lx, TK_META_BEGIN, start);
        return;
      }
      make(lx, TK_PUNCT, start);
      return;
    case '.':
      if (end - start >= 3 && start[1] == '.' && start[2] == '.') {
        lx->p = start + 3;
        make(lx, TK_ELLIPSIS, start);
        return;
      }
      break;
    case '(': case ')': case '[': case ']': case '}': case '<': case '>':
    case ',': case ':': case '=': case '*': case '?': case '+': case '|':
      lx->p = start + 1;
      make(lx, TK_PUNCT, start);
      return;
    default:
      break;
  }
  lx->p = start + 1;
  fail(lx, start, c >= 0x80 ? "unexpected non-ASCII character" : "unexpected character");
}

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

long lexer_decode_string(shl_str quoted, char *out) {
  const char *p = quoted.p + 1, *end = quoted.p + quoted.n - 1;
  long n = 0;
  while (p < end) {
    char c = *p++;
    if (c != '\\') {
      out[n++] = c;
      continue;
    }
    if (p >= end) return -1;
    c = *p++;
    switch (c) {
      case 'n': out[n++] = '\n'; break;
      case 't': out[n++] = '\t'; break;
      case '"': out[n++] = '"'; break;
      case '\\': out[n++] = '\\'; break;
      default: {
        if (p >= end) return -1;
        int h = hexval(c), l = hexval(*p++);
        if (h < 0 || l < 0) return -1;
        out[n++] = (char)(h * 16 + l);
      }
    }
  }
  return n;
}

bool lexer_int_value(shl_str text, uint64_t *out) {
  const char *p = text.p, *end = text.p + text.n;
  uint64_t v = 0;
  if (text.n > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    for (p += 2; p < end; p++) {
      int h = hexval((unsigned char)*p);
      if (h < 0 || v >> 60) return false;
      v = v << 4 | (uint64_t)h;
    }
  } else {
    /* Decimal, leading zeros included (MLIR has no octal literals). */
    if (p == end) return false;
    for (; p < end; p++) {
      if (*p < '0' || *p > '9') return false;
      uint64_t d = (uint64_t)(*p - '0');
      if (v > (UINT64_MAX - d) / 10) return false;
      v = v * 10 + d;
    }
  }
  *out = v;
  return true;
}
