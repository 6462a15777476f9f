/* Single attributes and types from text, for the builder API: the same
 * parser functions as for whole modules, on a private copy of the text in the
 * module's arena (attributes kept verbatim are slices of it). */
#include "parse_fragment.h"

#include "parser.h"

typedef struct {
  const char *what; /* "attribute" / "type", for messages */
  const char *file; /* diagnostics point into the fragment: "<attribute>:1:7" */
  shl_status (*parse)(shl_parser *p, const void **out);
} fragment_kind;

static shl_status attr_fn(shl_parser *p, const void **out) {
  const shl_attr *a;
  ST_TRY(p_attr(p, &a));
  *out = a;
  return NULL;
}

static shl_status type_fn(shl_parser *p, const void **out) {
  const shl_type *t;
  ST_TRY(p_type(p, &t));
  *out = t;
  return NULL;
}

static const fragment_kind attr_kind = {"attribute", "<attribute>", attr_fn};
static const fragment_kind type_kind = {"type", "<type>", type_fn};

static shl_status parse_fragment(shloc_module *m, const fragment_kind *k, const char *text, size_t len,
                                 bool limit_length, const void **out) {
  *out = NULL;
  const shloc_limits *lim = &m->ctx->limits;
  if (!text) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "%s text is NULL", k->what);
  if (limit_length && len > lim->max_attr_text_bytes)
    return st_error(SHLOC_ERR_LIMIT, NULL, NULL, "%s text is %zu bytes, more than the limit of %zu", k->what, len,
                    lim->max_attr_text_bytes);
  char *copy = arena_strndup(&m->arena, text, len);
  if (!copy) return st_oom();
  shl_parser p;
  memset(&p, 0, sizeof p);
  p.m = m;
  p.a = &m->arena;
  p.limits = lim;
  strmap_init(&p.attr_aliases, &m->arena);
  strmap_init(&p.type_aliases, &m->arena);
  lexer_init(&p.lx, k->file, copy, len, 1);
  const void *v = NULL;
  shl_status st;
  if (p_tok(&p)->kind == TK_EOF)
    st = st_error(SHLOC_ERR_PARSE, NULL, NULL, "empty %s text", k->what);
  else if (!(st = k->parse(&p, &v)) && p_tok(&p)->kind != TK_EOF)
    st = parse_error(&p, "unexpected text after the %s (exactly one %s expected)", k->what, k->what);
  arena_free(&p.scratch);
  if (!st) *out = v;
  return st;
}

shl_status text_parse_attr(shloc_module *m, const char *text, size_t len, const shl_attr **out) {
  const void *v;
  shl_status st = parse_fragment(m, &attr_kind, text, len, true, &v);
  *out = v;
  return st;
}

shl_status text_parse_attr_unbounded(shloc_module *m, const char *text, size_t len, const shl_attr **out) {
  const void *v;
  shl_status st = parse_fragment(m, &attr_kind, text, len, false, &v);
  *out = v;
  return st;
}

shl_status text_parse_type(shloc_module *m, const char *text, size_t len, const shl_type **out) {
  const void *v;
  shl_status st = parse_fragment(m, &type_kind, text, len, true, &v);
  *out = v;
  return st;
}
