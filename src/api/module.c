/* Public entry points for contexts and modules. */
#include <stdlib.h>

#include "bytecode/bytecode.h"
#include "bytecode/envelope.h"
#include "ir/ir.h"
#include "text/parser.h"

shl_status parse_module_text(shl_parser *p, shloc_module *m);

shloc_context *shloc_context_create(void) {
  shloc_context *ctx = calloc(1, sizeof *ctx);
  if (!ctx) return NULL;
  ctx->limits.max_file_bytes = (size_t)4 << 30;
  ctx->limits.max_nesting = 256;
  ctx->limits.max_elements = (uint64_t)1 << 36;
  ctx->limits.max_attr_text_bytes = (size_t)1 << 20;
  return ctx;
}

void shloc_context_destroy(shloc_context *ctx) { free(ctx); }

shloc_limits *shloc_context_limits(shloc_context *ctx) { return &ctx->limits; }

static shl_status parse(shloc_context *ctx, const char *filename, const char *text, size_t len, int first_line,
                        bool borrow, bool envelope, shloc_module **out_module);

/* A jax.export envelope: the embedded module goes through the normal path
 * (which recognises its form), then the module keeps the envelope's fields. */
static shl_status parse_envelope(shloc_context *ctx, const char *filename, const char *data, size_t len, size_t off,
                                 size_t n, bool borrow, shloc_module **out_module) {
  shloc_module *m;
  shl_status st = parse(ctx, filename, data + off, n, 1, borrow, false, &m);
  if (st && st != st_oom()) {
    /* A line:col (embedded text) is not one of the envelope's lines: it goes
     * into the message so that renderers show no wrong source line. */
    int line = st->line, col = st->col;
    st->line = st->col = 0;
    if (line > 0) st = st_annotate(st, "line %d, column %d", line, col);
    st = st_annotate(st, "in mlir_module_serialized (bytes %zu..%zu of the jax.export envelope; positions are within it)",
                     off, off + n);
  }
  if (st) return st;
  shloc_jax_export *e;
  st = envelope_decode(&m->arena, data, len, filename, &e);
  if (st) {
    shloc_module_destroy(m);
    return st;
  }
  m->jax_export = e;
  *out_module = m;
  return NULL;
}

/* `envelope`: whether a jax.export envelope is accepted (not inside one). */
static shl_status parse(shloc_context *ctx, const char *filename, const char *text, size_t len, int first_line,
                        bool borrow, bool envelope, shloc_module **out_module) {
  *out_module = NULL;
  if (!filename) filename = "<input>";
  if (len > ctx->limits.max_file_bytes)
    return st_error(SHLOC_ERR_LIMIT, &(shl_srcpos){filename, 0, 0}, NULL,
                    "input is %zu bytes, more than the limit of %zu", len, ctx->limits.max_file_bytes);
  size_t mod_off = 0, mod_len = 0;
  shl_status why;
  switch (envelope ? envelope_sniff(text, len, filename, &mod_off, &mod_len, &why) : ENVELOPE_NO) {
    case ENVELOPE_YES: return parse_envelope(ctx, filename, text, len, mod_off, mod_len, borrow, out_module);
    case ENVELOPE_BROKEN: return why;
    case ENVELOPE_NO: break;
  }
  shloc_module *m = calloc(1, sizeof *m);
  if (!m) return st_oom();
  m->ctx = ctx;
  arena_init(&m->arena);
  /* Names and opaque attributes are slices into the text, so the module
   * keeps a private copy unless the caller lends it for the module's life. */
  const char *src = text;
  char *fname = arena_strndup(&m->arena, filename, strlen(filename));
  if (fname && bytecode_is(text, len)) {
    /* A portable artifact (MLIR bytecode), recognised by its content. */
    m->filename = fname;
    shl_status st = bytecode_read(m, (const uint8_t *)text, len, borrow);
    if (st) {
      shloc_module_destroy(m);
      return st;
    }
    *out_module = m;
    return NULL;
  }
  if (!borrow) {
    char *copy = arena_alloc_uninit(&m->arena, len + 1);
    if (copy) memcpy(copy, text, len);
    src = copy;
  }
  if (!src || !fname) {
    shloc_module_destroy(m);
    return st_oom();
  }
  m->filename = fname;
  shl_parser p;
  memset(&p, 0, sizeof p);
  p.m = m;
  p.a = &m->arena;
  p.limits = &ctx->limits;
  strmap_init(&p.attr_aliases, &m->arena);
  strmap_init(&p.type_aliases, &m->arena);
  lexer_init(&p.lx, fname, src, len, first_line > 0 ? first_line : 1);
  shl_status st = parse_module_text(&p, m);
  if (st) {
    shloc_module_destroy(m);
    return st;
  }
  *out_module = m;
  return NULL;
}

shl_status shloc_module_parse(shloc_context *ctx, const char *filename, const char *text, size_t len, int first_line,
                              shloc_module **out_module) {
  return parse(ctx, filename, text, len, first_line, false, true, out_module);
}

shl_status shloc_module_parse_borrowed(shloc_context *ctx, const char *filename, const char *text, size_t len,
                                       int first_line, shloc_module **out_module) {
  return parse(ctx, filename, text, len, first_line, true, true, out_module);
}

void shloc_module_destroy(shloc_module *m) {
  if (!m) return;
  arena_free(&m->arena);
  free(m);
}
