/* C shim generator (see shim.h).  One pass decodes every declaration into a
 * shim_call (validating what the runtime would reject), a second writes C. */
#include "shim.h"

#include <stdlib.h>

#include "exec/kernels/ffi_call.h"
#include "ffi/ffi.h"
#include "passes/lower_custom_calls.h"
#include "targets/builtin_targets.h"
#include "text/parse_fragment.h"
#include "text/printer.h"

#define SHIM_MAX_RANK 64

typedef struct {
  const shl_op *decl;
  shl_str sym, target, handler;
  const shl_type *ft;
  int api;                   /* 1..4 */
  const shl_attr *dict;      /* typed: the backend_config dictionary, or NULL */
  shl_str opaque;            /* legacy: backend_config bytes */
  const int64_t **layout[2]; /* per operand / result: minor-to-major order, NULL = row-major */
  int32_t *alias;            /* per result: aliased operand or -1; NULL when none */
} shim_call;

bool shim_is_c_identifier(shl_str s) {
  if (!s.n || (s.p[0] >= '0' && s.p[0] <= '9')) return false;
  for (size_t i = 0; i < s.n; i++) {
    char c = s.p[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

static shl_status decl_error(const shim_call *c, shloc_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static shl_status decl_error(const shim_call *c, shloc_code code, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return st_error(code, &c->decl->pos, "func.func", "external function @%.*s (custom call '%.*s'): %s", (int)c->sym.n,
                  c->sym.p, (int)c->target.n, c->target.p, msg);
}

static const shl_attr *cfg_get(const shl_attr *cfg, const char *name) {
  return attr_dict_get(cfg->u.dict.items, cfg->u.dict.n, name);
}

/* Field of an output_operand_aliases entry (a dictionary, as the pass
 * writes #stablehlo.output_operand_alias). */
static const shl_attr *alias_field(const shl_attr *e, const char *name) {
  return e && e->kind == AT_DICT ? cfg_get(e, name) : NULL;
}

/* ---- decoding ---- */

/* api_version and the handler-visible configuration, by the executor's
 * rules (ffi_call_config_decode). */
static shl_status decode_config(shloc_module *m, shim_call *c, const shl_attr *cfg) {
  ffi_call_config cc;
  shl_status st = ffi_call_config_decode(m, cfg_get(cfg, "api_version"), cfg_get(cfg, "backend_config"),
                                         cfg_get(cfg, "mhlo.backend_config"), &cc);
  if (st)
    return st_at(st_annotate(st, "external function @%.*s (custom call '%.*s')", (int)c->sym.n, c->sym.p,
                             (int)c->target.n, c->target.p),
                 &c->decl->pos, "func.func");
  c->api = cc.api_version;
  c->dict = cc.dict;
  c->opaque = cc.opaque;
  if (!c->dict || !c->dict->u.dict.n) {
    c->dict = NULL;
    return NULL;
  }
  /* The conversion the runtime applies at first use: reject now what it would. */
  ffi_attrs *attrs;
  ST_TRY(ffi_attrs_create(&attrs));
  st = ffi_attrs_from_dict(attrs, c->dict);
  ffi_attrs_destroy(attrs);
  return st ? st_annotate(st, "external function @%.*s", (int)c->sym.n, c->sym.p) : NULL;
}

static const shl_type *buf_type(const shim_call *c, int role, uint32_t i) {
  return role == 0 ? c->ft->in[i] : c->ft->out[i];
}

/* The layouts of operand_layouts (role 0) or result_layouts (role 1); a
 * row-major entry is stored as NULL. */
static shl_status decode_layouts(shl_arena *ar, shim_call *c, int role, const shl_attr *a) {
  uint32_t n = role == 0 ? c->ft->n_in : c->ft->n_out;
  const char *what = role == 0 ? "operand_layouts" : "result_layouts";
  c->layout[role] = ARENA_ARRAY(ar, const int64_t *, n + 1);
  if (!c->layout[role]) return st_oom();
  if (!a) return NULL;
  if (a->kind != AT_ARRAY || a->u.arr.n != n)
    return decl_error(c, SHLOC_ERR_VERIFY, "%s must be an array of %u layouts", what, n);
  for (uint32_t i = 0; i < n; i++) {
    const shl_type *t = buf_type(c, role, i);
    int64_t *m2m = ARENA_ARRAY(ar, int64_t, (size_t)t->rank + 1);
    size_t got = 0;
    if (!m2m) return st_oom();
    if (!attr_as_ints(a->u.arr.items[i], m2m, (size_t)t->rank, &got) || got != (size_t)t->rank)
      return decl_error(c, SHLOC_ERR_VERIFY, "%s #%u is not a layout of rank %d", what, i, (int)t->rank);
    uint64_t seen = 0;
    bool row_major = true;
    for (int32_t k = 0; k < t->rank; k++) {
      if (m2m[k] < 0 || m2m[k] >= t->rank || (seen >> m2m[k]) & 1)
        return decl_error(c, SHLOC_ERR_VERIFY, "%s #%u is not a permutation of [0, %d)", what, i, (int)t->rank);
      seen |= 1ull << m2m[k];
      row_major = row_major && m2m[k] == t->rank - 1 - k;
    }
    c->layout[role][i] = row_major ? NULL : m2m;
  }
  return NULL;
}

static shl_status check_buffers(const shim_call *c) {
  for (int role = 0; role < 2; role++) {
    uint32_t n = role == 0 ? c->ft->n_in : c->ft->n_out;
    const char *what = role == 0 ? "operand" : "result";
    for (uint32_t i = 0; i < n; i++) {
      const shl_type *t = buf_type(c, role, i);
      if (t->kind != TY_TENSOR || t->rank < 0)
        return decl_error(c, SHLOC_ERR_UNSUPPORTED, "%s #%u is not a ranked tensor", what, i);
      if (t->rank > SHIM_MAX_RANK) return decl_error(c, SHLOC_ERR_UNSUPPORTED, "%s #%u has a too large rank", what, i);
      if (role == 1 && !type_is_static(t))
        return decl_error(c, SHLOC_ERR_UNSUPPORTED, "result #%u has a dynamic shape; the shim allocates results "
                          "before the call and needs static shapes", i);
      shl_dtype dt = type_storage_dtype(t);
      XLA_FFI_DataType x = ffi_dtype_to_xla(dt);
      if (x == XLA_FFI_DataType_INVALID || x == XLA_FFI_DataType_TOKEN)
        return decl_error(c, SHLOC_ERR_UNSUPPORTED, "%s #%u has element type %s, which the XLA FFI cannot carry", what,
                          i, dtype_name(dt));
    }
  }
  return NULL;
}

static bool same_layout(const shim_call *c, uint32_t in, uint32_t out) {
  const int64_t *a = c->layout[0][in], *b = c->layout[1][out];
  if (!a || !b) return a == b;
  return memcmp(a, b, (size_t)c->ft->in[in]->rank * sizeof *a) == 0;
}

/* output_operand_aliases: result o starts as a copy of operand i and the
 * handler gets one buffer for both. */
static shl_status decode_aliases(shl_arena *a, shim_call *c, const shl_attr *al) {
  if (!al) return NULL;
  if (al->kind != AT_ARRAY) return decl_error(c, SHLOC_ERR_VERIFY, "output_operand_aliases must be an array");
  if (!al->u.arr.n) return NULL;
  c->alias = ARENA_ARRAY(a, int32_t, c->ft->n_out + 1);
  if (!c->alias) return st_oom();
  for (uint32_t o = 0; o < c->ft->n_out; o++) c->alias[o] = -1;
  for (uint32_t k = 0; k < al->u.arr.n; k++) {
    const shl_attr *e = al->u.arr.items[k];
    int64_t out_path[2], in_path[1], idx;
    size_t n_out = 0, n_in = 0;
    if (!attr_as_ints(alias_field(e, "output_tuple_indices"), out_path, 2, &n_out) ||
        !attr_as_ints(alias_field(e, "operand_tuple_indices"), in_path, 1, &n_in) ||
        !attr_as_int(alias_field(e, "operand_index"), &idx))
      return decl_error(c, SHLOC_ERR_VERIFY, "output_operand_aliases entry #%u is malformed", k);
    if (n_in || n_out > 1 || (n_out == 0 && c->ft->n_out != 1))
      return decl_error(c, SHLOC_ERR_UNSUPPORTED, "output_operand_aliases entry #%u uses nested tuple indices", k);
    int64_t o = n_out ? out_path[0] : 0;
    if (idx < 0 || idx >= c->ft->n_in || o < 0 || o >= c->ft->n_out)
      return decl_error(c, SHLOC_ERR_VERIFY, "output_operand_aliases entry #%u is out of range", k);
    if (c->alias[o] >= 0) return decl_error(c, SHLOC_ERR_VERIFY, "result %lld is aliased twice", (long long)o);
    for (uint32_t p = 0; p < c->ft->n_out; p++)
      if (c->alias[p] == idx) return decl_error(c, SHLOC_ERR_VERIFY, "operand %lld is aliased twice", (long long)idx);
    if (!type_eq(c->ft->in[idx], c->ft->out[o]))
      return decl_error(c, SHLOC_ERR_VERIFY, "output_operand_aliases entry #%u joins values of different types", k);
    if (!same_layout(c, (uint32_t)idx, (uint32_t)o))
      return decl_error(c, SHLOC_ERR_UNSUPPORTED,
                        "output_operand_aliases entry #%u joins an operand and a result with different layouts", k);
    c->alias[o] = (int32_t)idx;
  }
  return NULL;
}

static shl_str handler_for(shl_arena *a, const shim_options *o, shl_str target, bool *used) {
  for (size_t i = 0; o && i < o->n_ffi; i++)
    if (str_eq_c(target, o->ffi[i].target)) {
      used[i] = true;
      return str_of(o->ffi[i].symbol);
    }
  /* libshloc exports the handlers of its built-in targets. */
  const builtin_target *b = builtin_target_find(target.p, target.n);
  if (b) return str_of(b->symbol);
  return pass_sanitize_symbol(a, target);
}

static shl_status decode(shloc_module *m, const shl_op *decl, const shim_options *o, bool *used, shim_call *c) {
  const shl_attr *cfg = op_attr(decl, PASS_CUSTOM_CALL_ATTR);
  *c = (shim_call){.decl = decl, .sym = func_sym_name(decl), .ft = func_type(decl)};
  const shl_attr *ta = cfg->kind == AT_DICT ? cfg_get(cfg, "call_target_name") : NULL;
  if (cfg->kind != AT_DICT || !ta || ta->kind != AT_STRING || !c->ft)
    return st_error(SHLOC_ERR_VERIFY, &decl->pos, "func.func",
                    "external function @%.*s: " PASS_CUSTOM_CALL_ATTR " must be a dictionary with a call_target_name",
                    (int)c->sym.n, c->sym.p);
  c->target = ta->u.str;
  if (!shim_is_c_identifier(c->sym))
    return decl_error(c, SHLOC_ERR_INVALID_ARG, "the symbol is not a C identifier");
  c->handler = handler_for(&m->arena, o, c->target, used);
  if (!c->handler.p) return st_oom();
  if (!shim_is_c_identifier(c->handler))
    return decl_error(c, SHLOC_ERR_INVALID_ARG, "handler symbol '%.*s' is not a C identifier (name one with --ffi)",
                      (int)c->handler.n, c->handler.p);
  /* The shim's own names start with these. */
  if (str_starts(c->handler, "shim_") || str_starts(c->handler, "_mlir_ciface_"))
    return decl_error(c, SHLOC_ERR_INVALID_ARG, "handler symbol '%.*s' uses a prefix the shim reserves (shim_, "
                      "_mlir_ciface_); name another one with --ffi", (int)c->handler.n, c->handler.p);
  ST_TRY(decode_config(m, c, cfg));
  ST_TRY(check_buffers(c));
  ST_TRY(decode_layouts(&m->arena, c, 0, cfg_get(cfg, "operand_layouts")));
  ST_TRY(decode_layouts(&m->arena, c, 1, cfg_get(cfg, "result_layouts")));
  return decode_aliases(&m->arena, c, cfg_get(cfg, "output_operand_aliases"));
}

/* ---- writing C ---- */

static void c_string(shl_printer *pr, shl_str s) {
  pr_puts(pr, "\"");
  for (size_t i = 0; i < s.n; i++) {
    unsigned char ch = (unsigned char)s.p[i];
    if (ch == '"' || ch == '\\') pr_printf(pr, "\\%c", ch);
    else if (ch < 0x20 || ch >= 0x7f || ch == '?') pr_printf(pr, "\\%03o", ch);
    else pr_putn(pr, (const char *)&ch, 1);
  }
  pr_puts(pr, "\"");
}

static void memref_type(shl_printer *pr, int32_t rank) { pr_printf(pr, "shim_memref%d", (int)rank); }

static void ints(shl_printer *pr, const int64_t *v, int32_t n) {
  pr_puts(pr, "{");
  for (int32_t k = 0; k < n; k++) pr_printf(pr, "%s%lld", k ? ", " : "", (long long)v[k]);
  pr_puts(pr, "}");
}

static void emit_prologue(shl_printer *pr, const shim_options *o, const shim_call *calls, uint32_t n) {
  pr_puts(pr, "/* Generated by `shloc lower-custom-calls --shim`");
  if (o && o->source) pr_printf(pr, " from %s", o->source);
  pr_puts(pr, ". Do not edit.\n"
              " *\n"
              " * Defines the external functions the lowered module calls, in upstream MLIR's C\n"
              " * interface (_mlir_ciface_NAME, memref descriptors passed by pointer).  Each one\n"
              " * runs its custom-call handler through libshloc's XLA FFI runtime\n"
              " * (shloc/ffi_shim.h).  Results are fresh row-major buffers from aligned_alloc,\n"
              " * owned by the caller (free the descriptor's `allocated` pointer).\n"
              " *\n"
              " * Build: cc -c THIS.c -I<shloc>/include, then link with <shloc build>/libshloc.a\n"
              " * -lm -ldl -lpthread and the libraries defining the handlers.\n"
              " *\n"
              " * Errors: code compiled by upstream MLIR cannot receive an error from a call, so\n"
              " * a failing call (handler error, bad configuration) prints the error on stderr\n"
              " * and aborts the process rather than return uninitialized results. */\n"
              "#include <stdio.h>\n#include <stdlib.h>\n\n#include \"shloc/ffi_shim.h\"\n\n");
  if (!n) {
    pr_puts(pr, "/* No custom call was lowered: nothing to define. */\n");
    return;
  }
  pr_puts(pr, "static void shim_check(shloc_status st) {\n"
              "  if (!st) return;\n"
              "  fprintf(stderr, \"error: %s\\n\", shloc_status_message(st));\n"
              "  shloc_status_free(st);\n"
              "  abort();\n"
              "}\n");
  /* One descriptor struct per rank in use (element types do not matter). */
  uint64_t ranks[(SHIM_MAX_RANK + 64) / 64] = {0};
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t k = 0; k < calls[i].ft->n_in + calls[i].ft->n_out; k++) {
      const shl_type *t = k < calls[i].ft->n_in ? calls[i].ft->in[k] : calls[i].ft->out[k - calls[i].ft->n_in];
      ranks[t->rank / 64] |= 1ull << (t->rank % 64);
    }
  pr_puts(pr, "\n/* MLIR's ranked memref descriptors. */\n");
  for (int32_t r = 0; r <= SHIM_MAX_RANK; r++) {
    if (!((ranks[r / 64] >> (r % 64)) & 1)) continue;
    pr_puts(pr, "typedef struct {\n  void *allocated, *aligned;\n  int64_t offset");
    if (r) pr_printf(pr, ", sizes[%d], strides[%d]", (int)r, (int)r);
    pr_puts(pr, ";\n} ");
    memref_type(pr, r);
    pr_puts(pr, ";\n");
  }
  /* Handler prototypes, once per symbol. */
  pr_puts(pr, "\n/* Handlers (resolved when linking). */\n");
  for (uint32_t i = 0; i < n; i++) {
    bool seen = false;
    for (uint32_t j = 0; j < i; j++) seen = seen || str_eq(calls[j].handler, calls[i].handler);
    if (seen) continue;
    if (calls[i].api == 4) pr_puts(pr, "XLA_FFI_Handler ");
    else pr_printf(pr, "shloc_custom_call_v%d ", calls[i].api);
    pr_str(pr, calls[i].handler);
    pr_puts(pr, ";\n");
  }
}

static void emit_buffers(shl_printer *pr, const shim_call *c, int role) {
  uint32_t n = role == 0 ? c->ft->n_in : c->ft->n_out;
  const char *tag = role == 0 ? "arg" : "ret";
  if (!n) return;
  for (uint32_t i = 0; i < n; i++) {
    const shl_type *t = buf_type(c, role, i);
    if (c->layout[role][i]) {
      pr_printf(pr, "static const int64_t shim_%.*s_%s%u_layout[] = ", (int)c->sym.n, c->sym.p, tag, i);
      ints(pr, c->layout[role][i], t->rank);
      pr_puts(pr, ";\n");
    }
    if (role == 1 && t->rank) {
      pr_printf(pr, "static const int64_t shim_%.*s_%s%u_dims[] = ", (int)c->sym.n, c->sym.p, tag, i);
      ints(pr, t->dims, t->rank);
      pr_puts(pr, ";\n");
    }
  }
  pr_printf(pr, "static const shloc_shim_buffer shim_%.*s_%ss[] = {\n", (int)c->sym.n, c->sym.p, tag);
  for (uint32_t i = 0; i < n; i++) {
    const shl_type *t = buf_type(c, role, i);
    pr_printf(pr, "    {XLA_FFI_DataType_%s, %d, ", ffi_dtype_xla_name(ffi_dtype_to_xla(type_storage_dtype(t))),
              (int)t->rank);
    if (role == 1 && t->rank) pr_printf(pr, "shim_%.*s_%s%u_dims, ", (int)c->sym.n, c->sym.p, tag, i);
    else pr_puts(pr, "NULL, ");
    if (c->layout[role][i]) pr_printf(pr, "shim_%.*s_%s%u_layout},\n", (int)c->sym.n, c->sym.p, tag, i);
    else pr_puts(pr, "NULL},\n");
  }
  pr_puts(pr, "};\n");
}

/* One shloc_shim_memref initializer for the descriptor whose fields are
 * reached as `<prefix>allocated`, ... */
static void emit_memref(shl_printer *pr, const char *prefix, int32_t rank, bool result) {
  if (result) pr_puts(pr, "{NULL, NULL, 0, ");
  else pr_printf(pr, "{%sallocated, %saligned, %soffset, ", prefix, prefix, prefix);
  if (rank) pr_printf(pr, "%ssizes, %sstrides}", prefix, prefix);
  else pr_puts(pr, "NULL, NULL}");
}

static void emit_call(shl_printer *pr, const shim_call *c) {
  int S = (int)c->sym.n;
  const char *s = c->sym.p;
  const shl_type *ft = c->ft;
  pr_printf(pr, "\n/* @%.*s: stablehlo.custom_call @", S, s);
  pr_str(pr, c->target);
  if (c->api == 4) pr_puts(pr, ", typed XLA FFI (api_version 4)");
  else pr_printf(pr, ", legacy api_version %d", c->api);
  pr_puts(pr, ", handler ");
  pr_str(pr, c->handler);
  pr_puts(pr, ".\n *   (");
  for (uint32_t i = 0; i < ft->n_in; i++) {
    if (i) pr_puts(pr, ", ");
    pr_type(pr, ft->in[i]);
  }
  pr_puts(pr, ") -> (");
  for (uint32_t i = 0; i < ft->n_out; i++) {
    if (i) pr_puts(pr, ", ");
    pr_type(pr, ft->out[i]);
  }
  pr_puts(pr, ") */\n");
  emit_buffers(pr, c, 0);
  emit_buffers(pr, c, 1);
  if (c->alias) {
    pr_printf(pr, "static const int32_t shim_%.*s_ret_alias[] = {", S, s);
    for (uint32_t o = 0; o < ft->n_out; o++) pr_printf(pr, "%s%d", o ? ", " : "", (int)c->alias[o]);
    pr_puts(pr, "};\n");
  }
  /* The configuration: the dictionary as MLIR text, or the opaque bytes. */
  shl_printer cfg = {0};
  if (c->dict) pr_attr(&cfg, c->dict);
  else if (c->api != 4) pr_str(&cfg, c->opaque);
  if (cfg.oom) pr->oom = true;
  shl_str cfg_text = {cfg.buf ? cfg.buf : "", cfg.len};
  pr_printf(pr, "static const shloc_shim_call_desc shim_%.*s_desc = {\n", S, s);
  pr_printf(pr, "    .symbol = \"%.*s\",\n    .target = ", S, s);
  c_string(pr, c->target);
  pr_printf(pr, ",\n    .api_version = %d,\n    .config = ", c->api);
  c_string(pr, cfg_text);
  pr_printf(pr, ",\n    .config_len = %zu,\n", cfg_text.n);
  free(cfg.buf);
  if (c->api == 4) pr_printf(pr, "    .handler = %.*s,\n", (int)c->handler.n, c->handler.p);
  else pr_printf(pr, "    .legacy = (shloc_legacy_fn)%.*s,\n", (int)c->handler.n, c->handler.p);
  pr_printf(pr, "    .n_args = %u,\n    .n_rets = %u,\n", ft->n_in, ft->n_out);
  if (ft->n_in) pr_printf(pr, "    .args = shim_%.*s_args,\n", S, s);
  if (ft->n_out) pr_printf(pr, "    .rets = shim_%.*s_rets,\n", S, s);
  if (c->alias) pr_printf(pr, "    .ret_alias = shim_%.*s_ret_alias,\n", S, s);
  pr_printf(pr, "};\nstatic shloc_shim_site *shim_%.*s_site;\n\n", S, s);

  if (ft->n_out > 1) {
    pr_puts(pr, "typedef struct {\n");
    for (uint32_t o = 0; o < ft->n_out; o++) {
      pr_puts(pr, "  ");
      memref_type(pr, ft->out[o]->rank);
      pr_printf(pr, " r%u;\n", o);
    }
    pr_printf(pr, "} shim_%.*s_results;\n\n", S, s);
  }
  /* Prototype, then definition. */
  for (int def = 0; def < 2; def++) {
    pr_printf(pr, "void _mlir_ciface_%.*s(", S, s);
    bool first = true;
    if (ft->n_out == 1) {
      memref_type(pr, ft->out[0]->rank);
      pr_puts(pr, " *result");
      first = false;
    } else if (ft->n_out > 1) {
      pr_printf(pr, "shim_%.*s_results *results", S, s);
      first = false;
    }
    for (uint32_t i = 0; i < ft->n_in; i++) {
      if (!first) pr_puts(pr, ", ");
      first = false;
      memref_type(pr, ft->in[i]->rank);
      pr_printf(pr, " *arg%u", i);
    }
    if (first) pr_puts(pr, "void");
    pr_puts(pr, def ? ") {\n" : ");\n");
  }
  char expr[64];
  if (ft->n_in) {
    pr_printf(pr, "  shloc_shim_memref args[%u] = {\n", ft->n_in);
    for (uint32_t i = 0; i < ft->n_in; i++) {
      snprintf(expr, sizeof expr, "arg%u->", i);
      pr_puts(pr, "      ");
      emit_memref(pr, expr, ft->in[i]->rank, false);
      pr_puts(pr, ",\n");
    }
    pr_puts(pr, "  };\n");
  }
  if (ft->n_out) {
    pr_printf(pr, "  shloc_shim_memref rets[%u] = {\n", ft->n_out);
    for (uint32_t o = 0; o < ft->n_out; o++) {
      if (ft->n_out == 1) snprintf(expr, sizeof expr, "result->");
      else snprintf(expr, sizeof expr, "results->r%u.", o);
      pr_puts(pr, "      ");
      emit_memref(pr, expr, ft->out[o]->rank, true);
      pr_puts(pr, ",\n");
    }
    pr_puts(pr, "  };\n");
  }
  pr_printf(pr, "  shim_check(shloc_shim_call(&shim_%.*s_desc, &shim_%.*s_site, %s, %s));\n", S, s, S, s,
            ft->n_in ? "args" : "NULL", ft->n_out ? "rets" : "NULL");
  for (uint32_t o = 0; o < ft->n_out; o++) {
    if (ft->n_out == 1) snprintf(expr, sizeof expr, "result->");
    else snprintf(expr, sizeof expr, "results->r%u.", o);
    pr_printf(pr, "  %sallocated = rets[%u].allocated;\n", expr, o);
    pr_printf(pr, "  %saligned = rets[%u].aligned;\n", expr, o);
    pr_printf(pr, "  %soffset = rets[%u].offset;\n", expr, o);
  }
  pr_puts(pr, "}\n");
}

/* Handlers shared by several declarations must agree on their kind (the C
 * prototype depends on it). */
static shl_status check_handler_kinds(const shim_call *calls, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t j = 0; j < i; j++)
      if (str_eq(calls[i].handler, calls[j].handler) && calls[i].api != calls[j].api)
        return decl_error(&calls[i], SHLOC_ERR_INVALID_ARG,
                          "handler '%.*s' is also used with api_version %d by @%.*s; one C function cannot have both "
                          "calling conventions",
                          (int)calls[i].handler.n, calls[i].handler.p, calls[j].api, (int)calls[j].sym.n,
                          calls[j].sym.p);
  return NULL;
}

shl_status shim_emit(shloc_module *m, const shim_options *opts, char **out, size_t *out_len) {
  *out = NULL;
  if (out_len) *out_len = 0;
  shl_block *top = m->top->regions[0].blocks[0];
  uint32_t n = 0;
  for (shl_op *op = top->first; op; op = op->next)
    if (op_is(op, OP_FUNC) && op_attr(op, PASS_CUSTOM_CALL_ATTR)) n++;
  shim_call *calls = calloc(n + 1, sizeof *calls);
  bool *used = calloc((opts ? opts->n_ffi : 0) + 1, sizeof *used);
  shl_status st = calls && used ? NULL : st_oom();
  uint32_t k = 0;
  for (shl_op *op = top->first; op && !st; op = op->next)
    if (op_is(op, OP_FUNC) && op_attr(op, PASS_CUSTOM_CALL_ATTR)) st = decode(m, op, opts, used, &calls[k++]);
  if (!st) st = check_handler_kinds(calls, n);
  for (size_t i = 0; !st && opts && i < opts->n_ffi; i++)
    if (!used[i])
      st = st_error(SHLOC_ERR_NOT_FOUND, NULL, NULL, "--ffi %s=%s: no lowered custom call has target '%s'",
                    opts->ffi[i].target, opts->ffi[i].symbol, opts->ffi[i].target);
  shl_printer pr = {0};
  if (!st) {
    emit_prologue(&pr, opts, calls, n);
    for (uint32_t i = 0; i < n; i++) emit_call(&pr, &calls[i]);
    if (pr.oom) st = st_oom();
  }
  free(calls);
  free(used);
  if (st) {
    free(pr.buf);
    return st;
  }
  *out = pr.buf;
  if (out_len) *out_len = pr.len;
  return NULL;
}
