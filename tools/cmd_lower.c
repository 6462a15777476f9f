/* shloc lower-custom-calls FILE: stablehlo.custom_call -> func.call of
 * external functions (shloc_lower_custom_calls), optionally with the C shim
 * that implements them through the XLA FFI (shloc_shim_generate). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_lower.h"

static const char usage_text[] =
    "usage: shloc lower-custom-calls FILE [-o OUT] [--targets A,B] [--shim SHIM.c]\n"
    "                                [--ffi TARGET=SYMBOL ...] [--generic]\n"
    "\n"
    "Replaces each stablehlo.custom_call @T(...) with `func.call @S(...)` and declares\n"
    "`func.func private @S(...) -> (...)` with llvm.emit_c_interface, so that code compiled\n"
    "by upstream MLIR calls `_mlir_ciface_S`.  S is T with characters other than\n"
    "[A-Za-z0-9_] replaced by '_' (plus '_N' when taken).  The op's attributes\n"
    "(backend_config, api_version, layouts, ...) move to the declaration's\n"
    "shloc.custom_call dictionary.  The output is verified before it is written.\n"
    "\n"
    "  -o OUT            write the lowered module to OUT atomically (default stdout)\n"
    "  --targets A,B     lower only custom calls with these call_target_names (repeatable)\n"
    "  --shim SHIM.c     also write C defining every _mlir_ciface_S: it builds an XLA FFI\n"
    "                    call frame and calls the handler (link with libshloc and the\n"
    "                    handler library); a failing handler is reported on stderr and\n"
    "                    aborts the program\n"
    "  --ffi T=SYMBOL    the C function implementing target T in the shim (repeatable;\n"
    "                    default: a function named like T, sanitized as above)\n"
    "  --generic         print the generic form\n"
    "\n"
    "Exit status: 0 on success, 1 on any error, 2 on bad usage.\n";

typedef struct {
  char **v;
  size_t n;
} str_list;

static bool push(str_list *l, char *s) {
  char **nv = realloc(l->v, (l->n + 1) * sizeof *nv);
  if (!nv) return false;
  nv[l->n++] = s;
  l->v = nv;
  return true;
}

/* Splits a comma-separated --targets value (modifies it in place). */
static bool add_targets(str_list *l, char *value) {
  for (char *tok = strtok(value, ","); tok; tok = strtok(NULL, ","))
    if (!push(l, tok)) return false;
  return true;
}

bool cli_parse_ffi_bindings(const char *cmd, char **specs, size_t n, shloc_shim_binding *out) {
  for (size_t i = 0; i < n; i++) {
    char *eq = strchr(specs[i], '=');
    if (!eq || eq == specs[i] || !shloc_is_c_identifier(eq + 1)) {
      fprintf(stderr, "shloc %s: --ffi '%s': expected TARGET=SYMBOL with SYMBOL a C identifier\n", cmd,
              specs[i]);
      return false;
    }
    *eq = '\0';
    for (size_t j = 0; j < i; j++)
      if (strcmp(out[j].target, specs[i]) == 0) {
        fprintf(stderr, "shloc %s: --ffi names target '%s' twice\n", cmd, specs[i]);
        return false;
      }
    out[i] = (shloc_shim_binding){specs[i], eq + 1};
  }
  return true;
}

/* Lowers, verifies and prints; writes the shim when asked. */
static int lower(const char *path, const char *text, size_t len, const char *out, const char *shim_path,
                 const str_list *targets, const shloc_shim_binding *ffi, size_t n_ffi, unsigned flags) {
  shloc_context *ctx = shloc_context_create();
  shloc_module *m = NULL;
  char *printed = NULL, *shim = NULL;
  size_t printed_len = 0, shim_len = 0;
  bool *found = calloc(targets->n + 1, sizeof *found);
  shloc_status st = ctx && found ? shloc_module_parse(ctx, path, text, len, 1, &m)
                                 : shloc_status_error(SHLOC_ERR_OOM, NULL, 0, 0, "out of memory");
  if (!st) st = shloc_module_verify(m);
  if (!st) st = shloc_lower_custom_calls(m, (const char *const *)targets->v, targets->n, found);
  if (!st) st = shloc_module_verify(m);
  if (!st) st = shloc_module_print(m, flags | SHLOC_PRINT_ASSUME_VERIFIED, &printed, &printed_len);
  if (!st && shim_path) {
    /* The banner names the file without its directory, so shims do not
     * depend on where they were generated. */
    const char *base = strrchr(path, '/');
    st = shloc_shim_generate(m, ffi, n_ffi, base ? base + 1 : path, &shim, &shim_len);
  }
  int rc = 0;
  if (st) {
    cli_report(st, text, len);
    rc = 1;
  }
  for (size_t i = 0; !rc && i < targets->n; i++)
    if (!found[i]) fprintf(stderr, "%s: warning: no custom call with target '%s'\n", path, targets->v[i]);
  if (!rc && !cli_write_file(out, printed, printed_len)) rc = 1;
  if (!rc && shim_path && !cli_write_file(shim_path, shim, shim_len)) rc = 1;
  free(found);
  free(printed);
  free(shim);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
  return rc;
}

int cmd_lower(int argc, char **argv) {
  const char *path = NULL, *out = "-", *shim_path = NULL;
  str_list targets = {0}, ffi_specs = {0};
  unsigned flags = 0;
  int rc = 2;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool has_value = i + 1 < argc;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage_text, stdout);
      rc = 0;
      goto done;
    }
    bool ok = true;
    if (strcmp(a, "-o") == 0 && has_value) out = argv[++i];
    else if (strcmp(a, "--targets") == 0 && has_value) ok = add_targets(&targets, argv[++i]);
    else if (strcmp(a, "--shim") == 0 && has_value) shim_path = argv[++i];
    else if (strcmp(a, "--ffi") == 0 && has_value) ok = push(&ffi_specs, argv[++i]);
    else if (strcmp(a, "--generic") == 0) flags |= SHLOC_PRINT_GENERIC;
    else if (!path && (a[0] != '-' || strcmp(a, "-") == 0)) path = a;
    else {
      fprintf(stderr, "shloc lower-custom-calls: unexpected argument '%s' (see --help)\n", a);
      goto done;
    }
    if (!ok) {
      fprintf(stderr, "shloc lower-custom-calls: out of memory\n");
      rc = 1;
      goto done;
    }
  }
  if (!path) {
    fprintf(stderr, "shloc lower-custom-calls: missing FILE (see --help)\n");
    goto done;
  }
  if (ffi_specs.n && !shim_path) {
    fprintf(stderr, "shloc lower-custom-calls: --ffi only applies with --shim\n");
    goto done;
  }
  shloc_shim_binding *ffi = calloc(ffi_specs.n + 1, sizeof *ffi);
  if (!ffi || !cli_parse_ffi_bindings("lower-custom-calls", ffi_specs.v, ffi_specs.n, ffi)) {
    free(ffi);
    goto done;
  }
  cli_input in;
  if (!cli_input_open(path, &in)) {
    rc = 1;
  } else {
    rc = lower(path, in.text, in.len, out, shim_path, &targets, ffi, ffi_specs.n, flags);
    cli_input_close(&in);
  }
  free(ffi);
done:
  free(targets.v);
  free(ffi_specs.v);
  return rc;
}
