/* shloc inspect FILE: what a module file is and how to call it.  For a
 * jax.export envelope, every envelope field; for every form, the module's
 * attributes (mhlo.num_replicas, mhlo.num_partitions, ...) and the entry
 * function's signature with argument and result attributes.  One
 * "key: value" per line; lists indented by two spaces. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ir/ir.h"
#include "text/print_value.h"

static const char usage_text[] =
    "usage: shloc inspect FILE [--entry NAME]\n"
    "\n"
    "Prints what FILE holds ('-' = stdin): MLIR text, a StableHLO portable artifact\n"
    "(MLIR bytecode) or a jax.export envelope (what Exported.serialize() returns).\n"
    "For an envelope, every field it stores (function name, avals with symbolic\n"
    "dimensions, shardings, platforms, calling convention version, effects, disabled\n"
    "safety checks, kept inputs, device count, vjp) and how @main takes its arguments;\n"
    "for every form the module attributes (mhlo.num_replicas, mhlo.num_partitions, ...)\n"
    "and the entry function's arguments and results with their attributes; last,\n"
    "whether the module verifies ('verify: ok' or the error).  Exit status 1 when FILE\n"
    "does not parse.\n";

static void put_list(const char *key, const char *const *v, size_t n) {
  printf("%s:", key);
  if (!n) printf(" none");
  for (size_t i = 0; i < n; i++) printf("%s %s", i ? "," : "", v[i]);
  printf("\n");
}

static void put_aval(const shloc_jax_aval *a) {
  printf("%s[", a->dtype);
  for (size_t d = 0; d < a->rank; d++) printf("%s%s", d ? ", " : "", a->dims[d]);
  printf("]");
  if (a->memory_space) printf(" memory_space=%s", a->memory_space);
}

static bool is_kept(const shloc_jax_export *e, size_t i) {
  for (size_t k = 0; k < e->n_kept; k++)
    if (e->module_kept_var_idx[k] == i) return true;
  return false;
}

static void put_avals(const char *key, const shloc_jax_aval *a, size_t n, const shloc_jax_sharding *sh, size_t n_sh,
                      const shloc_jax_export *e, bool inputs) {
  printf("%s: %zu\n", key, n);
  for (size_t i = 0; i < n; i++) {
    printf("  %zu: ", i);
    put_aval(&a[i]);
    printf(" sharding=%s", i < n_sh ? sh[i].text : "none");
    if (inputs && !is_kept(e, i)) printf(" (not kept: the module does not take it)");
    printf("\n");
  }
}

static void put_envelope(const shloc_jax_export *e, const char *indent) {
  printf("%sfunction_name: %s\n", indent, e->function_name);
  printf("%sserialization_version: %u (fields of schema version %u)\n", indent, e->serialization_version,
         e->schema_version);
  if (e->jax_version) printf("%sjax_version: %s\n", indent, e->jax_version);
  printf("%scalling_convention_version: %u\n", indent, e->calling_convention_version);
  if (*indent) return; /* a vjp: the rest is printed for the primal only */
  put_list("platforms", e->platforms, e->n_platforms);
  printf("nr_devices: %u\n", e->nr_devices);
  printf("uses_global_constants: %s\n", e->uses_global_constants ? "true" : "false");
  printf("in_tree: %s\n", e->in_tree);
  printf("out_tree: %s\n", e->out_tree);
  put_avals("in_avals", e->in_avals, e->n_in, e->in_shardings, e->n_in_shardings, e, true);
  put_avals("out_avals", e->out_avals, e->n_out, e->out_shardings, e->n_out_shardings, e, false);
  printf("module_kept_var_idx:");
  if (!e->n_kept) printf(" none");
  for (size_t i = 0; i < e->n_kept; i++) printf("%s %u", i ? "," : "", e->module_kept_var_idx[i]);
  printf("\n");
  put_list("ordered_effects", e->ordered_effects, e->n_ordered_effects);
  put_list("unordered_effects", e->unordered_effects, e->n_unordered_effects);
  put_list("disabled_checks", e->disabled_checks, e->n_disabled_checks);
}

static bool is_artifact(const char *p, size_t n) { return n >= 4 && memcmp(p, "ML\xEFR", 4) == 0; }

static const char *form_of(const char *p, size_t n) {
  return is_artifact(p, n) ? "StableHLO portable artifact (MLIR bytecode)" : "MLIR text";
}

/* The bytecode header (llvm-project mlir/docs/BytecodeFormat.md): magic,
 * version as a prefix varint (the first byte's trailing zero bits + 1 give
 * the byte count), then the producer as a NUL-terminated string, which
 * StableHLO writes as "StableHLO_vX.Y.Z". */
static void put_artifact_header(const char *key, const char *p, size_t n) {
  const uint8_t *b = (const uint8_t *)p + 4, *end = (const uint8_t *)p + n;
  if (!is_artifact(p, n) || b >= end || *b == 0) return;
  unsigned len = (unsigned)__builtin_ctz(*b) + 1;
  if ((size_t)(end - b) < len) return;
  uint64_t v = 0;
  for (unsigned i = len; i-- > 0;) v = v << 8 | b[i];
  b += len;
  const uint8_t *nul = memchr(b, 0, (size_t)(end - b));
  printf("%sbytecode_version: %llu\n", key, (unsigned long long)(v >> len));
  if (!nul || nul - b > 256) return;
  printf("%sproducer: ", key);
  for (; b < nul; b++) putchar(*b >= 0x20 && *b < 0x7f ? *b : '?');
  printf("\n");
}

static void put_type(const char *prefix, const shl_type *t) {
  char *s = NULL;
  shloc_status st = print_type_text(t, &s);
  printf("%s%s", prefix, s ? s : "?");
  shloc_status_free(st);
  free(s);
}

static void put_attr(const shl_attr *a) {
  char *s = NULL;
  shloc_status st = print_attr_text(a, &s);
  printf("%s", s ? s : "?");
  shloc_status_free(st);
  free(s);
}

/* "  i: TYPE {attr = value, ...}" for each argument or result. */
static void put_values(const char *key, const shl_type *const *types, uint32_t n, const shl_attr *attrs) {
  printf("%s: %u\n", key, n);
  for (uint32_t i = 0; i < n; i++) {
    printf("  %u: ", i);
    put_type("", types[i]);
    const shl_attr *d = attrs && attrs->kind == AT_ARRAY && i < attrs->u.arr.n ? attrs->u.arr.items[i] : NULL;
    if (d && d->kind == AT_DICT && d->u.dict.n) {
      printf(" ");
      put_attr(d);
    }
    printf("\n");
  }
}

static void put_module(const shloc_module *m, const char *entry) {
  const shl_attr *name = op_attr(m->top, "sym_name");
  if (name && name->kind == AT_STRING) printf("module: @%.*s\n", (int)name->u.str.n, name->u.str.p);
  static const char *const counts[] = {"mhlo.num_replicas", "mhlo.num_partitions"};
  for (int k = 0; k < 2; k++) {
    const shl_attr *a = op_attr(m->top, counts[k]);
    int64_t v;
    if (a && attr_as_int(a, &v)) printf("%s: %lld\n", counts[k], (long long)v);
    else printf("%s: not set\n", counts[k]);
  }
  uint32_t n_attrs = 0;
  for (uint32_t i = 0; i < m->top->n_attrs; i++) n_attrs += !str_eq_c(m->top->attrs[i].name, "sym_name");
  printf("module_attributes: %u\n", n_attrs);
  for (uint32_t i = 0; i < m->top->n_attrs; i++) {
    const shl_named_attr *na = &m->top->attrs[i];
    if (str_eq_c(na->name, "sym_name")) continue;
    printf("  %.*s = ", (int)na->name.n, na->name.p);
    put_attr(na->attr);
    printf("\n");
  }
  printf("functions:");
  for (shl_op *op = m->top->regions[0].blocks[0]->first; op; op = op->next) {
    if (!op_is(op, OP_FUNC)) continue;
    shl_str fname = func_sym_name(op);
    const shl_attr *vis = op_attr(op, "sym_visibility");
    printf(" @%.*s%s", (int)fname.n, fname.p, vis && vis->kind == AT_STRING && str_eq_c(vis->u.str, "private") ? " (private)" : "");
  }
  printf("\n");
  const shl_op *f = cli_entry_func(m, entry);
  if (!f) {
    printf("entry: none (no @main and not exactly one function)\n");
    return;
  }
  shl_str fname = func_sym_name(f);
  printf("entry: @%.*s\n", (int)fname.n, fname.p);
  const shl_type *ft = func_type(f);
  put_values("arguments", ft->in, ft->n_in, op_attr(f, "arg_attrs"));
  put_values("results", ft->out, ft->n_out, op_attr(f, "res_attrs"));
}

/* How @main takes what the exported function took. */
static void put_calling_convention(const shloc_jax_export *e, const shl_op *f) {
  cli_jax_layout l;
  shloc_status st = cli_jax_plan(e, f, &l);
  if (st) {
    printf("main_calling_convention: mismatch: %s\n", shloc_status_message(st));
    shloc_status_free(st);
    return;
  }
  printf("main_calling_convention: ");
  if (l.n_platform && l.platform_index >= 0) printf("platform index (cpu = %d), ", l.platform_index);
  else if (l.n_platform) printf("platform index (cpu not among the platforms), ");
  printf("%u token%s, %u kept array%s -> %u token%s, %zu array%s\n", l.n_tokens, l.n_tokens == 1 ? "" : "s", l.n_kept,
         l.n_kept == 1 ? "" : "s", l.n_tokens, l.n_tokens == 1 ? "" : "s", e->n_out, e->n_out == 1 ? "" : "s");
}

int cmd_inspect(int argc, char **argv) {
  const char *path = NULL, *entry = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(usage_text, stdout);
      return 0;
    }
    if (strcmp(argv[i], "--entry") == 0 && i + 1 < argc) entry = argv[++i];
    else if (!path && (argv[i][0] != '-' || !argv[i][1])) path = argv[i];
    else {
      fprintf(stderr, "shloc inspect: unexpected argument '%s' (see shloc inspect --help)\n", argv[i]);
      return 2;
    }
  }
  if (!path) {
    fprintf(stderr, "shloc inspect: missing FILE (see shloc inspect --help)\n");
    return 2;
  }
  cli_input in;
  if (!cli_input_open(path, &in)) return 1;
  shloc_context *ctx = shloc_context_create();
  shloc_module *m = NULL;
  shloc_status st = ctx ? shloc_module_parse_borrowed(ctx, path, in.text, in.len, 1, &m) : NULL;
  int rc = 0;
  if (st || !m) {
    cli_report(st, in.text, in.len);
    rc = 1;
  } else {
    /* What a module holds is worth showing even when it does not verify. */
    shloc_status vst = shloc_module_verify(m);
    const shloc_jax_export *e = shloc_module_jax_export(m);
    if (e) {
      printf("form: jax.export envelope, %zu bytes\n", in.len);
      put_envelope(e, "");
      printf("mlir_module_serialized: %zu bytes at byte %zu, %s\n", e->module_len, e->module_offset,
             form_of(in.text + e->module_offset, e->module_len));
      put_artifact_header("mlir_module_serialized.", in.text + e->module_offset, e->module_len);
      const shl_op *main_fn = cli_entry_func(m, entry);
      if (main_fn) put_calling_convention(e, main_fn);
      printf("vjp: %s\n", e->vjp ? "present" : "none");
      for (const shloc_jax_export *v = e->vjp; v; v = v->vjp) put_envelope(v, "  ");
    } else {
      printf("form: %s, %zu bytes\n", form_of(in.text, in.len), in.len);
      put_artifact_header("", in.text, in.len);
    }
    put_module(m, entry);
    printf("verify: %s\n", vst ? shloc_status_message(vst) : "ok");
    shloc_status_free(vst);
  }
  if (fflush(stdout) != 0) rc = 1;
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
  cli_input_close(&in);
  return rc;
}
