/* Attribute names and values given as text by builder callers: validation
 * (names, duplicates, exactly one attribute per value) and the small text
 * formatter the builder uses to construct attributes through the parser. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "builder_impl.h"
#include "text/lexer.h"
#include "text/parse_fragment.h"

/* Names in messages are cut short: they may be up to the text limit long. */
#define NAME_SHOWN 64

static int shown(size_t n) { return (int)(n < NAME_SHOWN ? n : NAME_SHOWN); }

static bool is_id_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_id_char(char c) { return is_id_start(c) || (c >= '0' && c <= '9') || c == '$' || c == '.'; }

static shl_status name_error(const char *list, uint32_t index, const char *name, size_t n, const char *why) {
  return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "%s[%u]: invalid attribute name '%.*s%s': %s", list, index,
                  shown(n), name, n > NAME_SHOWN ? "..." : "", why);
}

shl_status bld_attr_name(shloc_module *m, const char *list, uint32_t index, const char *name, shl_str *out) {
  if (!name) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "%s[%u]: attribute name is NULL", list, index);
  size_t n = strlen(name);
  size_t limit = m->ctx->limits.max_attr_text_bytes;
  if (n > limit)
    return st_error(SHLOC_ERR_LIMIT, NULL, NULL, "%s[%u]: attribute name is %zu bytes, more than the limit of %zu",
                    list, index, n, limit);
  if (n == 0) return name_error(list, index, name, n, "empty");
  if (name[0] != '"') {
    if (!is_id_start(name[0])) return name_error(list, index, name, n, "must start with a letter or '_' (or be quoted)");
    for (size_t i = 1; i < n; i++)
      if (!is_id_char(name[i]))
        return name_error(list, index, name, n, "only letters, digits, '_', '$' and '.' may follow (or quote it)");
    char *copy = arena_strndup(&m->arena, name, n);
    if (!copy) return st_oom();
    *out = (shl_str){copy, n};
    return NULL;
  }
  /* A quoted name: exactly one string literal token. */
  shl_lexer lx;
  lexer_init(&lx, "<name>", name, n, 1);
  if (lx.tok.kind != TK_STRING || lx.tok.text.n != n)
    return name_error(list, index, name, n, "a quoted name must be one complete string literal");
  char *buf = arena_alloc(&m->arena, n);
  if (!buf) return st_oom();
  long len = lexer_decode_string(lx.tok.text, buf);
  if (len < 0) return name_error(list, index, name, n, "invalid escape sequence");
  if (len == 0) return name_error(list, index, name, n, "empty");
  *out = (shl_str){buf, (size_t)len};
  return NULL;
}

shl_status bld_attr_pairs(shloc_module *m, const char *list, const shloc_attr_pair *pairs, uint32_t n,
                          shl_named_attr **out) {
  *out = NULL;
  if (!n) return NULL;
  if (!pairs) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "%s: %u pairs announced but none given", list, n);
  shl_named_attr *v = ARENA_ARRAY(&m->arena, shl_named_attr, n);
  if (!v) return st_oom();
  for (uint32_t i = 0; i < n; i++) {
    ST_TRY(bld_attr_name(m, list, i, pairs[i].name, &v[i].name));
    shl_str nm = v[i].name;
    if (!pairs[i].value)
      return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "%s[%u] '%.*s': value is NULL", list, i, shown(nm.n), nm.p);
    shl_status st = text_parse_attr(m, pairs[i].value, strlen(pairs[i].value), &v[i].attr);
    if (st) return st_annotate(st, "%s[%u] '%.*s': invalid value", list, i, shown(nm.n), nm.p);
    v[i].is_prop = bld_is_prop(nm);
  }
  /* Duplicates are found on a sorted copy: callers report by caller index. */
  shl_named_attr *sorted = ARENA_ARRAY(&m->arena, shl_named_attr, n);
  if (!sorted) return st_oom();
  memcpy(sorted, v, n * sizeof *v);
  ST_TRY(bld_sort_unique(list, sorted, n));
  *out = v;
  return NULL;
}

shl_status bld_sort_unique(const char *list, shl_named_attr *attrs, uint32_t n) {
  uint32_t dup;
  if (attrs_sort(attrs, n, &dup)) return NULL;
  shl_str nm = attrs[dup].name;
  return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "%s: duplicate attribute name '%.*s'", list, shown(nm.n), nm.p);
}

bool bld_is_prop(shl_str name) { return memchr(name.p, '.', name.n) == NULL; }

/* ------------------------------------------------------------------ text */

void bld_text_printf(bld_text *t, const char *fmt, ...) {
  if (t->oom) return;
  va_list ap;
  va_start(ap, fmt);
  int need = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (need < 0) {
    t->oom = true;
    return;
  }
  if (t->n + (size_t)need + 1 > t->cap) {
    size_t ncap = t->cap ? t->cap : 256;
    while (ncap < t->n + (size_t)need + 1) ncap *= 2;
    char *np = realloc(t->p, ncap);
    if (!np) {
      t->oom = true;
      return;
    }
    t->p = np;
    t->cap = ncap;
  }
  va_start(ap, fmt);
  vsnprintf(t->p + t->n, (size_t)need + 1, fmt, ap);
  va_end(ap);
  t->n += (size_t)need;
}

void bld_text_ints(bld_text *t, const int64_t *v, size_t n) {
  bld_text_printf(t, "[");
  for (size_t i = 0; i < n; i++) bld_text_printf(t, i ? ", %lld" : "%lld", (long long)v[i]);
  bld_text_printf(t, "]");
}

void bld_text_string(bld_text *t, const char *s, size_t n) {
  bld_text_printf(t, "\"");
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x7f) bld_text_printf(t, "\\%02X", c);
    else bld_text_printf(t, "%c", c);
  }
  bld_text_printf(t, "\"");
}

void bld_text_symbol(bld_text *t, const char *s, size_t n) {
  /* The printer's rule for a bare symbol name; anything else is quoted. */
  bool plain = n > 0 && is_id_start(s[0]);
  for (size_t i = 1; plain && i < n; i++) plain = is_id_char(s[i]) || s[i] == '-';
  if (plain) bld_text_printf(t, "%.*s", (int)n, s);
  else bld_text_string(t, s, n);
}

shl_status bld_text_attr(shloc_module *m, bld_text *t, const shl_attr **out) {
  shl_status st;
  if (t->oom) {
    st = st_oom();
  } else {
    /* Composed here from validated parts, not caller text: no length limit. */
    st = text_parse_attr_unbounded(m, t->p, t->n, out);
  }
  free(t->p);
  memset(t, 0, sizeof *t);
  return st;
}

shl_status bld_attr_fmt(shloc_module *m, const shl_attr **out, const char *fmt, ...) {
  bld_text t = {0};
  va_list ap;
  va_start(ap, fmt);
  int need = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (need < 0) return st_oom();
  t.p = malloc((size_t)need + 1);
  if (!t.p) return st_oom();
  va_start(ap, fmt);
  vsnprintf(t.p, (size_t)need + 1, fmt, ap);
  va_end(ap);
  t.n = t.cap = (size_t)need;
  return bld_text_attr(m, &t, out);
}
