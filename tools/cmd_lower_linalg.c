/* shloc lower FILE --to=linalg: a static StableHLO program -> upstream MLIR
 * (func, arith, math, tensor, linalg, scf; shloc_lower_linalg), with custom
 * calls as calls of external functions and optionally the C shim that
 * implements them through the XLA FFI (shloc_shim_generate). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_lower.h"

static const char usage_text[] =
    "usage: shloc lower FILE --to=linalg [-o OUT.mlir] [--shim SHIM.c] [--ffi TARGET=SYMBOL ...]\n"
    "\n"
    "Lowers a static StableHLO program to upstream MLIR dialects (func, arith, math,\n"
    "tensor, linalg, scf) that mlir-opt-22 parses and compiles (README: \"Compiling\n"
    "through upstream MLIR\").  Custom calls become func.call of external functions as\n"
    "in `shloc lower-custom-calls`.  An op that is not covered yet is an error naming\n"
    "the op and its location.\n"
    "\n"
    "  --to=linalg       the target (the only one so far)\n"
    "  -o OUT            write the lowered module to OUT atomically (default stdout)\n"
    "  --shim SHIM.c     also write the C shim defining the custom calls' functions\n"
    "  --ffi T=SYMBOL    the C function implementing target T in the shim (repeatable)\n"
    "\n"
    "Exit status: 0 on success, 1 on any error, 2 on bad usage.\n";

static int lower(const char *path, const char *text, size_t len, const char *out, const char *shim_path,
                 const shloc_shim_binding *ffi, size_t n_ffi) {
  shloc_context *ctx = shloc_context_create();
  shloc_module *m = NULL;
  char *lowered = NULL, *shim = NULL;
  size_t lowered_len = 0, shim_len = 0;
  shloc_status st = ctx ? shloc_module_parse(ctx, path, text, len, 1, &m)
                        : shloc_status_error(SHLOC_ERR_OOM, NULL, 0, 0, "out of memory");
  if (!st) st = shloc_module_verify(m);
  if (!st) st = shloc_lower_linalg(m, &lowered, &lowered_len);
  if (!st && shim_path) {
    const char *base = strrchr(path, '/');
    st = shloc_shim_generate(m, ffi, n_ffi, base ? base + 1 : path, &shim, &shim_len);
  }
  int rc = 0;
  if (st) {
    cli_report(st, text, len);
    rc = 1;
  }
  if (!rc && !cli_write_file(out, lowered, lowered_len)) rc = 1;
  if (!rc && shim_path && !cli_write_file(shim_path, shim, shim_len)) rc = 1;
  free(lowered);
  free(shim);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
  return rc;
}

int cmd_lower_linalg(int argc, char **argv) {
  const char *path = NULL, *out = "-", *shim_path = NULL, *to = NULL;
  char **ffi_specs = calloc((size_t)argc + 1, sizeof *ffi_specs);
  shloc_shim_binding *ffi = calloc((size_t)argc + 1, sizeof *ffi);
  size_t n_ffi = 0;
  int rc = 2;
  if (!ffi_specs || !ffi) {
    fprintf(stderr, "shloc lower: out of memory\n");
    rc = 1;
    goto done;
  }
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool has_value = i + 1 < argc;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage_text, stdout);
      rc = 0;
      goto done;
    }
    if (strcmp(a, "-o") == 0 && has_value) out = argv[++i];
    else if (strncmp(a, "--to=", 5) == 0) to = a + 5;
    else if (strcmp(a, "--to") == 0 && has_value) to = argv[++i];
    else if (strcmp(a, "--shim") == 0 && has_value) shim_path = argv[++i];
    else if (strcmp(a, "--ffi") == 0 && has_value) ffi_specs[n_ffi++] = argv[++i];
    else if (!path && (a[0] != '-' || strcmp(a, "-") == 0)) path = a;
    else {
      fprintf(stderr, "shloc lower: unexpected argument '%s' (see --help)\n", a);
      goto done;
    }
  }
  if (!path) {
    fprintf(stderr, "shloc lower: missing FILE (see --help)\n");
    goto done;
  }
  if (!to || strcmp(to, "linalg") != 0) {
    fprintf(stderr, "shloc lower: --to=linalg is required (the only target so far)\n");
    goto done;
  }
  if (n_ffi && !shim_path) {
    fprintf(stderr, "shloc lower: --ffi only applies with --shim\n");
    goto done;
  }
  if (!cli_parse_ffi_bindings("lower", ffi_specs, n_ffi, ffi)) goto done;
  cli_input in;
  if (!cli_input_open(path, &in)) {
    rc = 1;
  } else {
    rc = lower(path, in.text, in.len, out, shim_path, ffi, n_ffi);
    cli_input_close(&in);
  }
done:
  free(ffi_specs);
  free(ffi);
  return rc;
}
