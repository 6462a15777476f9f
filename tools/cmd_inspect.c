/* shloc inspect FILE: what a module file is and how to call it.  For a
 * jax.export envelope, every envelope field; for every form, the module's
 * attributes (mhlo.num_replicas, mhlo.num_partitions, ...) and the entry
 * function's signature with argument and result attributes.  One
 * "key: value" per line; lists indented by two spaces. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "shloc/jax_export.h"

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

/* "  i: TYPE {attr = value, ...}" for each argument or result. */
static void put_values(const char *key, const shloc_func *f, size_t n,
                       shloc_status (*text)(const shloc_func *, size_t, char **, char **)) {
  printf("%s: %zu\n", key, n);
  for (size_t i = 0; i < n; i++) {
    char *type = NULL, *attrs = NULL;
    shloc_status_free(text(f, i, &type, &attrs));
    printf("  %zu: %s", i, type ? type : "?");
    if (attrs) printf(" %s", attrs);
    printf("\n");
    free(type);
    free(attrs);
  }
}

static void put_module(const shloc_module *m, const char *entry) {
  size_t len;
  const char *name = shloc_module_name(m, &len);
  if (name) printf("module: @%.*s\n", (int)len, name);
  static const char *const counts[] = {"mhlo.num_replicas", "mhlo.num_partitions"};
  for (int k = 0; k < 2; k++) {
    int64_t v;
    if (shloc_module_attr_int(m, counts[k], &v)) printf("%s: %lld\n", counts[k], (long long)v);
    else printf("%s: not set\n", counts[k]);
  }
  size_t n_attrs = shloc_module_num_attrs(m);
  printf("module_attributes: %zu\n", n_attrs);
  for (size_t i = 0; i < n_attrs; i++) {
    const char *an = shloc_module_attr_name(m, i, &len);
    char *value = NULL;
    shloc_status_free(shloc_module_attr_text(m, i, &value));
    printf("  %.*s = %s\n", (int)len, an, value ? value : "?");
    free(value);
  }
  printf("functions:");
  for (const shloc_func *f = shloc_module_next_func(m, NULL); f; f = shloc_module_next_func(m, f)) {
    const char *fname = shloc_func_name(f, &len);
    printf(" @%.*s%s", (int)len, fname, shloc_func_is_private(f) ? " (private)" : "");
  }
  printf("\n");
  const shloc_func *f = shloc_module_entry(m, entry);
  if (!f) {
    printf("entry: none (no @main and not exactly one function)\n");
    return;
  }
  const char *fname = shloc_func_name(f, &len);
  printf("entry: @%.*s\n", (int)len, fname);
  put_values("arguments", f, shloc_func_num_args(f), shloc_func_arg_text);
  put_values("results", f, shloc_func_num_results(f), shloc_func_result_text);
}

/* How @main takes what the exported function took. */
static void put_calling_convention(const shloc_jax_export *e, const shloc_func *f) {
  shloc_jax_layout l;
  shloc_status st = shloc_jax_export_layout(e, f, &l);
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
      const shloc_func *main_fn = shloc_module_entry(m, entry);
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
