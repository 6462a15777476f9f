/* shloc test FILE...|DIR...: runs each module's test functions with no
 * arguments; the module checks itself through check.* ops and targets.
 * A module with @main (or a single function) is one test; a module without
 * @main runs each public function that takes no arguments as its own test,
 * the shape of the StableHLO interpreter's `*_op_test_*` functions merged
 * into one module. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "shloc/executable.h"

typedef struct {
  size_t passed, failed, nocheck;
} test_counts;

/* interpreter.print output goes to stdout. */
static void print_stdout(void *user, const char *text, size_t len) {
  (void)user;
  fwrite(text, 1, len, stdout);
}

/* Runs function f of m; *checks receives how many checks ran. */
static shloc_status run_func(shloc_module *m, const shloc_func *f, const char *probe_dir, uint64_t *checks) {
  *checks = 0;
  if (shloc_func_num_args(f))
    return shloc_func_error(f, SHLOC_ERR_INVALID_ARG,
                            "entry function takes arguments; shloc test runs functions without arguments");
  shloc_executable *x = NULL;
  shloc_executable_options opts = {.print = print_stdout, .probe_dir = probe_dir};
  shloc_status st = shloc_executable_create_func(m, f, &opts, &x);
  if (!st) {
    size_t n_out = shloc_func_num_results(f);
    shloc_tensor *res = calloc(n_out + 1, sizeof *res);
    if (!res) st = shloc_status_error(SHLOC_ERR_OOM, NULL, 0, 0, "out of memory");
    else {
      fflush(stdout);
      st = shloc_executable_run(x, NULL, 0, res, n_out);
      if (!st)
        for (size_t i = 0; i < n_out; i++) free(res[i].data);
      free(res);
    }
    *checks = shloc_executable_checks_run(x);
  }
  shloc_executable_destroy(x);
  return st;
}

/* Prints one test's outcome and counts it. */
static void report(test_counts *n, bool quiet, const char *path, const char *label, shloc_status st, uint64_t checks,
                   const char *text, size_t len) {
  if (st) {
    n->failed++;
    char *msg = shloc_status_render(st, text, len);
    printf("FAIL %s%s\n  %s\n", path, label, msg ? msg : shloc_status_message(st));
    free(msg);
    shloc_status_free(st);
  } else if (!checks) {
    n->nocheck++;
    printf("NOCHECK %s%s (ran, but executed no check)\n", path, label);
  } else {
    n->passed++;
    if (!quiet) printf("PASS %s%s\n", path, label);
  }
}

/* Runs the tests of one chunk. */
static void test_chunk(shloc_context *ctx, const char *path, const cli_chunk *c, const char *chunk_label,
                       const char *text, size_t len, bool quiet, const char *probe_dir, test_counts *n) {
  shloc_module *m = NULL;
  uint64_t checks = 0;
  shloc_status st = shloc_module_parse(ctx, path, c->text, c->len, c->first_line, &m);
  if (!st) st = shloc_module_verify(m);
  const shloc_func *f = NULL;
  if (!st && (f = shloc_module_entry(m, NULL)) != NULL) st = run_func(m, f, probe_dir, &checks);
  if (st || f) {
    report(n, quiet, path, chunk_label, st, checks, text, len);
    shloc_module_destroy(m);
    return;
  }
  size_t ran = 0;
  for (const shloc_func *fn = shloc_module_next_func(m, NULL); fn; fn = shloc_module_next_func(m, fn)) {
    if (shloc_func_is_private(fn) || shloc_func_num_args(fn)) continue;
    char label[256];
    size_t name_len;
    const char *name = shloc_func_name(fn, &name_len);
    snprintf(label, sizeof label, ":@%.*s%s", (int)name_len, name, chunk_label);
    st = run_func(m, fn, probe_dir, &checks);
    report(n, quiet, path, label, st, checks, text, len);
    ran++;
  }
  if (!shloc_module_next_func(m, NULL)) /* a module without functions runs nothing, as in the reference interpreter */
    report(n, quiet, path, chunk_label, NULL, 0, text, len);
  else if (!ran)
    report(n, quiet, path, chunk_label,
           shloc_status_error(SHLOC_ERR_NOT_FOUND, path, c->first_line, 1,
                              "no entry function: expected @main, exactly one function, or public functions without "
                              "arguments"),
           0, text, len);
  shloc_module_destroy(m);
}

int cmd_test(int argc, char **argv) {
  cli_paths paths = {0};
  bool split = false, quiet = false;
  const char *probe_dir = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      printf("usage: shloc test [--split-input-file] [--quiet] [--probe-output-dir DIR] FILE...|DIR...\n\n"
             "Runs each module's entry function (@main, or the only function) with no arguments;\n"
             "a module without @main runs each public function without arguments as a test.\n"
             "Programs check themselves with check.* custom calls and check-dialect ops;\n"
             "interpreter.print writes its operand to stdout.\n"
             "Prints PASS/FAIL per test (FILE, FILE:@func for functions of a module without @main,\n"
             "per chunk with --split-input-file), NOCHECK for a test that ran but executed no\n"
             "check, then 'N passed, M failed, K without checks'; exit status 1 if anything failed.\n"
             "--probe-output-dir: interpreter.probe writes probe<K>.npy and index.csv into DIR and\n"
             "check.expect_serialized_eq reads them back (without it, probes stay in memory).\n"
             "Directories are searched for *.mlir.\n");
      return 0;
    }
    if (strcmp(argv[i], "--split-input-file") == 0) split = true;
    else if (strcmp(argv[i], "--probe-output-dir") == 0 && i + 1 < argc) probe_dir = argv[++i];
    else if (strcmp(argv[i], "--quiet") == 0) quiet = true;
    else cli_paths_add(&paths, argv[i]);
  }
  if (!paths.n) {
    fprintf(stderr, "shloc test: no input files (see shloc test --help)\n");
    return 2;
  }
  cli_paths_sort(&paths);
  bool tty = isatty(2);
  test_counts n = {0};
  shloc_context *ctx = shloc_context_create();
  for (size_t i = 0; i < paths.n; i++) {
    const char *path = paths.v[i];
    if (tty) fprintf(stderr, "\r[%zu/%zu] %zu failed ", i + 1, paths.n, n.failed);
    cli_input in;
    if (!cli_input_open(path, &in)) {
      n.failed++;
      continue;
    }
    const char *text = in.text;
    size_t len = in.len;
    if (tty) fprintf(stderr, "\r\033[K");
    cli_chunk *chunks;
    size_t nc = cli_split(text, len, split, &chunks);
    for (size_t c = 0; c < nc; c++) {
      char label[64] = "";
      if (nc > 1) snprintf(label, sizeof label, " (chunk %zu at line %d)", c + 1, chunks[c].first_line);
      test_chunk(ctx, path, &chunks[c], label, text, len, quiet, probe_dir, &n);
    }
    free(chunks);
    cli_input_close(&in);
  }
  if (tty) fprintf(stderr, "\r\033[K");
  printf("%zu passed, %zu failed, %zu without checks\n", n.passed, n.failed, n.nocheck);
  shloc_context_destroy(ctx);
  cli_paths_free(&paths);
  return n.failed ? 1 : 0;
}
