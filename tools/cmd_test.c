/* shloc test FILE...|DIR...: runs each module's entry function with no
 * arguments; the module checks itself through check.* ops and targets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "exec/exec.h"

/* Runs one chunk; returns NULL on pass. */
static shloc_status test_chunk(shloc_context *ctx, const char *path, const cli_chunk *c, const exec_config *cfg) {
  shloc_module *m = NULL;
  shloc_status st = shloc_module_parse(ctx, path, c->text, c->len, c->first_line, &m);
  if (!st) st = shloc_module_verify(m);
  const shl_op *f = NULL;
  bool any_func = false;
  for (const shl_op *op = st ? NULL : m->top->regions[0].blocks[0]->first; op; op = op->next) any_func |= op_is(op, OP_FUNC);
  if (!st && !any_func) { /* nothing to run: passes, as in the reference interpreter */
    shloc_module_destroy(m);
    return NULL;
  }
  if (!st) {
    f = cli_entry_func(m, NULL);
    if (!f) st = st_error(SHLOC_ERR_NOT_FOUND, &(shl_srcpos){path, c->first_line, 1}, NULL,
                          "no entry function: expected @main or exactly one function");
  }
  if (!st && func_type(f)->n_in)
    st = op_error(f, SHLOC_ERR_INVALID_ARG, "entry function takes arguments; shloc test runs functions without arguments");
  shloc_executable *x = NULL;
  if (!st) st = executable_create(m, f, cfg, &x);
  if (!st) {
    const shl_type *ft = func_type(f);
    shl_buf *res = calloc(ft->n_out + 1, sizeof *res);
    if (!res) st = st_oom();
    else {
      st = executable_run(x, NULL, res);
      if (!st)
        for (uint32_t i = 0; i < ft->n_out; i++) free(res[i].data);
      free(res);
    }
  }
  executable_destroy(x);
  shloc_module_destroy(m);
  return st;
}

int cmd_test(int argc, char **argv) {
  cli_paths paths = {0};
  bool split = false, quiet = false;
  exec_config cfg = {0};
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      printf("usage: shloc test [--split-input-file] [--quiet] [--probe-output-dir DIR] FILE...|DIR...\n\n"
             "Runs each module's entry function (@main, or the only function) with no arguments.\n"
             "--probe-output-dir: interpreter.probe writes probe<K>.npy and index.csv into DIR, and\n"
             "check.expect_serialized_eq reads them back (without it, probes are kept in memory).\n"
             "Programs check themselves with check.* custom calls and check-dialect ops.\n"
             "Prints PASS/FAIL per file (per chunk with --split-input-file), then 'N passed, M failed';\n"
             "exit status 1 if anything failed.  Directories are searched for *.mlir.\n");
      return 0;
    }
    if (strcmp(argv[i], "--split-input-file") == 0) split = true;
    else if (strcmp(argv[i], "--probe-output-dir") == 0 && i + 1 < argc) cfg.probe_dir = argv[++i];
    else if (strcmp(argv[i], "--quiet") == 0) quiet = true;
    else cli_paths_add(&paths, argv[i]);
  }
  if (!paths.n) {
    fprintf(stderr, "shloc test: no input files (see shloc test --help)\n");
    return 2;
  }
  cli_paths_sort(&paths);
  bool tty = isatty(2);
  size_t passed = 0, failed = 0;
  shloc_context *ctx = shloc_context_create();
  for (size_t i = 0; i < paths.n; i++) {
    const char *path = paths.v[i];
    if (tty) fprintf(stderr, "\r[%zu/%zu] %zu failed ", i + 1, paths.n, failed);
    char *text;
    size_t len;
    if (!cli_read_file(path, &text, &len)) {
      failed++;
      continue;
    }
    cli_chunk *chunks;
    size_t n = cli_split(text, len, split, &chunks);
    for (size_t c = 0; c < n; c++) {
      shloc_status st = test_chunk(ctx, path, &chunks[c], &cfg);
      char label[64] = "";
      if (n > 1) snprintf(label, sizeof label, " (chunk %zu at line %d)", c + 1, chunks[c].first_line);
      if (!st) {
        passed++;
        if (!quiet) printf("PASS %s%s\n", path, label);
      } else {
        failed++;
        char *msg = shloc_status_render(st, text, len);
        if (tty) fprintf(stderr, "\r\033[K");
        printf("FAIL %s%s\n  %s\n", path, label, msg ? msg : shloc_status_message(st));
        free(msg);
        shloc_status_free(st);
      }
    }
    free(chunks);
    free(text);
  }
  if (tty) fprintf(stderr, "\r\033[K");
  printf("%zu passed, %zu failed\n", passed, failed);
  shloc_context_destroy(ctx);
  cli_paths_free(&paths);
  return failed ? 1 : 0;
}
