#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct shloc_status_payload oom_payload = {SHLOC_ERR_OOM, 0, 0, NULL, NULL, "out of memory"};

shl_status st_oom(void) { return &oom_payload; }

static char *dup_or_null(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

shl_status st_verror(shloc_code code, const shl_srcpos *pos, const char *op, const char *fmt, va_list ap) {
  struct shloc_status_payload *st = calloc(1, sizeof *st);
  if (!st) return st_oom();
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  st->message = malloc((size_t)(n < 0 ? 0 : n) + 1);
  if (!st->message) {
    free(st);
    return st_oom();
  }
  vsnprintf(st->message, (size_t)n + 1, fmt, ap);
  st->code = code;
  if (pos) {
    st->file = dup_or_null(pos->file);
    st->line = pos->line;
    st->col = pos->col;
  }
  st->op = dup_or_null(op);
  return st;
}

shl_status st_error(shloc_code code, const shl_srcpos *pos, const char *op, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  shl_status st = st_verror(code, pos, op, fmt, ap);
  va_end(ap);
  return st;
}

shl_status st_annotate(shl_status st, const char *fmt, ...) {
  if (!st || st == st_oom()) return st;
  char prefix[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  size_t n = strlen(prefix) + 2 + strlen(st->message) + 1;
  char *m = malloc(n);
  if (!m) return st;
  snprintf(m, n, "%s: %s", prefix, st->message);
  free(st->message);
  st->message = m;
  return st;
}

shl_status st_oom_size(const char *what, size_t bytes) {
  return st_error(SHLOC_ERR_OOM, NULL, NULL, "out of memory: %s needs %zu bytes", what, bytes);
}

shl_status st_at(shl_status st, const shl_srcpos *pos, const char *op) {
  if (!st) return st;
  /* The preallocated status carries no position: replace it by one that
   * names where memory ran out (when there is memory for that). */
  if (st == st_oom() && (pos || op)) st = st_error(SHLOC_ERR_OOM, NULL, NULL, "out of memory");
  if (st == st_oom()) return st;
  if (!st->file && !st->line && !st->col && pos) {
    st->file = dup_or_null(pos->file);
    st->line = pos->line;
    st->col = pos->col;
  }
  if (!st->op && op) st->op = dup_or_null(op);
  return st;
}

shloc_code shloc_status_code(shloc_status st) { return st ? st->code : SHLOC_OK; }
const char *shloc_status_message(shloc_status st) { return st ? st->message : ""; }
const char *shloc_status_op(shloc_status st) { return st ? st->op : NULL; }

shloc_status shloc_status_error(shloc_code code, const char *file, int line, int col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  shl_srcpos pos = {file, line, col};
  shl_status st = st_verror(code, file || line || col ? &pos : NULL, NULL, fmt, ap);
  va_end(ap);
  return st;
}

shloc_status shloc_status_annotate(shloc_status st, const char *fmt, ...) {
  char prefix[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  return st_annotate(st, "%s", prefix);
}

void shloc_status_location(shloc_status st, const char **file, int *line, int *col) {
  if (file) *file = st ? st->file : NULL;
  if (line) *line = st ? st->line : 0;
  if (col) *col = st ? st->col : 0;
}

void shloc_status_free(shloc_status st) {
  if (!st || st == st_oom()) return;
  free(st->file);
  free(st->op);
  free(st->message);
  free(st);
}

/* Finds line `line` (1-based) of `src`; returns its start and length. */
static const char *find_line(const char *src, size_t len, int line, size_t *out_len) {
  const char *p = src, *end = src + len;
  for (int l = 1; l < line && p < end; l++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) return NULL;
    p = nl + 1;
  }
  if (p >= end) return NULL;
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  *out_len = (size_t)((nl ? nl : end) - p);
  return p;
}

char *shloc_status_render(shloc_status st, const char *source, size_t source_len) {
  if (!st) return dup_or_null("ok");
  const char *file = st->file ? st->file : "<unknown>";
  size_t cap = strlen(file) + strlen(st->message) + (st->op ? strlen(st->op) : 0) + 64;
  size_t line_len = 0;
  const char *line = (source && st->line > 0) ? find_line(source, source_len, st->line, &line_len) : NULL;
  if (line_len > 400) line_len = 400;
  if (line) cap += 2 * line_len + (size_t)(st->col > 0 ? st->col : 0) + 8;
  char *out = malloc(cap);
  if (!out) return NULL;
  int n;
  if (st->line > 0)
    n = snprintf(out, cap, "%s:%d:%d: error: %s", file, st->line, st->col, st->message);
  else if (st->col > 0) /* binary input: a byte offset */
    n = snprintf(out, cap, "%s: error: at byte %d: %s", file, st->col, st->message);
  else
    n = snprintf(out, cap, "%s: error: %s", file, st->message);
  if (line && n >= 0 && (size_t)n < cap) {
    size_t pos = (size_t)n;
    out[pos++] = '\n';
    memcpy(out + pos, line, line_len);
    pos += line_len;
    out[pos++] = '\n';
    for (int c = 1; c < st->col && (size_t)c <= line_len; c++) out[pos++] = line[c - 1] == '\t' ? '\t' : ' ';
    out[pos++] = '^';
    out[pos] = 0;
  }
  return out;
}
