/* Locations as MLIR's builtin location attributes: the "loc(...)" text the
 * parser keeps for an op or block argument (and the reader produces from an
 * artifact) is encoded as upstream writes the Location it stands for
 * (llvm-project mlir/include/mlir/IR/BuiltinDialectBytecode.td):
 *   unknown                   UnknownLoc
 *   "file":line:col           FileLineColLoc (a range "... to ..." keeps its start)
 *   "name" / "name"(child)    NameLoc (child unknown when absent)
 *   callsite(callee at caller) CallSiteLoc
 *   fused[a, b] / fused<m>[...] FusedLoc (metadata dropped, as the reader drops it)
 *   #loc3                     the module's "#loc3 = loc(...)" definition
 * Anything else is not understood: the caller writes the op's position. */
#include <stdlib.h>
#include <string.h>

#include "text/lexer.h"
#include "vhlo_write.h"

enum { LOC_CALLSITE = 10, LOC_FILE_LINE_COL = 11, LOC_FUSED = 12, LOC_NAME = 14, LOC_MAX_DEPTH = 64 };

typedef struct {
  vx_ctx *x;
  shl_str defs;    /* the module's "#name = loc(...)" lines */
  const char *p, *end;
  int depth;
} lc;

static const bw_node *loc(lc *c);

static void ws(lc *c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\n' || *c->p == '\t' || *c->p == '\r')) c->p++;
}

static bool eat(lc *c, const char *s) {
  ws(c);
  size_t n = strlen(s);
  if ((size_t)(c->end - c->p) < n || memcmp(c->p, s, n)) return false;
  c->p += n;
  return true;
}

static bool uint_of(lc *c, uint64_t *v) {
  ws(c);
  if (c->p >= c->end || *c->p < '0' || *c->p > '9') return false;
  *v = 0;
  while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
    if (*v > UINT32_MAX) return false;
    *v = *v * 10 + (uint64_t)(*c->p++ - '0');
  }
  return true;
}

/* A quoted string, decoded into the writer's arena. */
static bool string_of(lc *c, shl_str *out) {
  ws(c);
  if (c->p >= c->end || *c->p != '"') return false;
  const char *q = c->p + 1;
  while (q < c->end && *q != '"') q += *q == '\\' && q + 1 < c->end ? 2 : 1;
  if (q >= c->end) return false;
  shl_str quoted = {c->p, (size_t)(q + 1 - c->p)};
  char *buf = arena_alloc(&c->x->w->arena, quoted.n);
  if (!buf) return false;
  long n = lexer_decode_string(quoted, buf);
  if (n < 0) return false;
  *out = (shl_str){buf, (size_t)n};
  c->p = q + 1;
  return true;
}

static const bw_node *file_loc(lc *c, shl_str file) {
  uint64_t line, col;
  if (!eat(c, ":") || !uint_of(c, &line) || !eat(c, ":") || !uint_of(c, &col)) return NULL;
  /* A range (MLIR 20's FileLineColRange) keeps its start. */
  if (eat(c, "to")) {
    uint64_t a, b;
    if (eat(c, ":")) {
      if (!uint_of(c, &a)) return NULL;
    } else if (!uint_of(c, &a) || !eat(c, ":") || !uint_of(c, &b)) {
      return NULL;
    }
  }
  bw_enc e;
  bw_enc_begin(c->x->w, &e);
  bw_varint(&e, LOC_FILE_LINE_COL);
  bw_attr(&e, bx_string(c->x, file));
  bw_varint(&e, line);
  bw_varint(&e, col);
  return bw_enc_attr(&e, c->x->d_builtin);
}

/* The definition of alias `name` ("#loc3") in the module's location aliases. */
static const bw_node *alias(lc *c, shl_str name) {
  const char *s = c->defs.p, *end = c->defs.p + c->defs.n;
  while (s < end) {
    const char *eol = memchr(s, '\n', (size_t)(end - s));
    if (!eol) eol = end;
    if ((size_t)(eol - s) > name.n && !memcmp(s, name.p, name.n) && (s[name.n] == ' ' || s[name.n] == '=')) {
      lc sub = {.x = c->x, .defs = c->defs, .p = s + name.n, .end = eol, .depth = c->depth};
      if (!eat(&sub, "=") || !eat(&sub, "loc(")) return NULL;
      const bw_node *n = loc(&sub);
      return n && eat(&sub, ")") ? n : NULL;
    }
    s = eol + 1;
  }
  return NULL;
}

static const bw_node *loc(lc *c) {
  if (++c->depth > LOC_MAX_DEPTH) return NULL;
  const bw_node *out = NULL;
  ws(c);
  shl_str s;
  if (eat(c, "loc(")) {
    out = loc(c);
    if (out && !eat(c, ")")) out = NULL;
  } else if (eat(c, "unknown")) {
    out = bx_unknown_loc(c->x);
  } else if (c->p < c->end && *c->p == '#') {
    const char *q = c->p + 1;
    while (q < c->end && (*q == '_' || *q == '$' || *q == '.' || (*q >= '0' && *q <= '9') ||
                          ((*q | 32) >= 'a' && (*q | 32) <= 'z')))
      q++;
    shl_str name = {c->p, (size_t)(q - c->p)};
    c->p = q;
    out = alias(c, name);
  } else if (eat(c, "callsite(")) {
    const bw_node *callee = loc(c), *caller = callee && eat(c, "at") ? loc(c) : NULL;
    if (caller && eat(c, ")")) {
      bw_enc e;
      bw_enc_begin(c->x->w, &e);
      bw_varint(&e, LOC_CALLSITE);
      bw_attr(&e, callee);
      bw_attr(&e, caller);
      out = bw_enc_attr(&e, c->x->d_builtin);
    }
  } else if (eat(c, "fused")) {
    if (eat(c, "<")) { /* metadata: skip the balanced <...> */
      int level = 1;
      while (c->p < c->end && level) level += *c->p == '<' ? 1 : *c->p == '>' ? -1 : 0, c->p++;
    }
    const bw_node *items[64];
    size_t n = 0;
    bool ok = eat(c, "[");
    if (ok && !eat(c, "]")) {
      do {
        if (n == sizeof items / sizeof *items || !(items[n] = loc(c))) ok = false;
        else n++;
      } while (ok && eat(c, ","));
      ok = ok && eat(c, "]");
    }
    if (ok) {
      bw_enc e;
      bw_enc_begin(c->x->w, &e);
      bw_varint(&e, LOC_FUSED);
      bw_varint(&e, n);
      for (size_t i = 0; i < n; i++) bw_attr(&e, items[i]);
      out = bw_enc_attr(&e, c->x->d_builtin);
    }
  } else if (string_of(c, &s)) {
    ws(c);
    if (c->p < c->end && *c->p == ':') {
      out = file_loc(c, s);
    } else {
      const bw_node *child = bx_unknown_loc(c->x);
      if (eat(c, "(")) child = loc(c), child = child && eat(c, ")") ? child : NULL;
      if (child) {
        bw_enc e;
        bw_enc_begin(c->x->w, &e);
        bw_varint(&e, LOC_NAME);
        bw_attr(&e, bx_string(c->x, s));
        bw_attr(&e, child);
        out = bw_enc_attr(&e, c->x->d_builtin);
      }
    }
  }
  c->depth--;
  return out;
}

const bw_node *bx_loc_text(vx_ctx *x, shl_str loc_defs, shl_str text) {
  lc c = {.x = x, .defs = loc_defs, .p = text.p, .end = text.p + text.n};
  const bw_node *n = loc(&c);
  ws(&c);
  return n && c.p == c.end ? n : NULL;
}
