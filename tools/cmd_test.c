/* shloc test FILE...|DIR...: runs each module's entry function with no
 * arguments; the module checks itself through check.* ops and targets. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "exec/exec.h"

/* The StableHLO interpreter's rule: `main`, or the only function. */
static const shl_op *cli_entry_func(shloc_module *m, const char *entry) {
  if (entry) return module_find_func(m, str_of(entry));
  const shl_op *main_fn = module_find_func(m, str_of("main"));
  if (main_fn) return main_fn;
  const shl_op *only = NULL;
  int n = 0;
  for (shl_op *op = m->top->regions[0].blocks[0]->first; op; op = op->next)
    if (op_is(op, OP_FUNC)) {
      only = op;
      n++;
    }
  return n == 1 ? only : NULL;
}

/* Runs one chunk; returns NULL on pass. */
static shloc_status test_chunk(shloc_context *ctx, const char *path, const cli_chunk *c) {
  shloc_module *m = NULL;
  shloc_status st = shloc_module_parse(ctx, path, c->text, c->len, c->first_line, &m);
  if (!st) st = shloc_module_verify(m);
  const shl_op *f = NULL;
  if (!st) {
    f = cli_entry_func(m, NULL);
    if (!f) st = st_error(SHLOC_ERR_NOT_FOUND, &(shl_srcpos){path, c->first_line, 1}, NULL,
                          "no entry function: expected @main or exactly one function");
  }
  if (!st && func_type(f)->n_in)
    st = op_error(f, SHLOC_ERR_INVALID_ARG, "entry function takes arguments; shloc test runs functions without arguments");
  shloc_executable *x = NULL;
  if (!st) st = executable_create(m, f, &x);
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

typedef struct {
  char **v;
  size_t n, cap;
} path_list;

static void add_path(path_list *l, const char *p) {
  if (l->n == l->cap) {
    size_t ncap = l->cap ? l->cap * 2 : 64;
    char **nv = realloc(l->v, ncap * sizeof *nv);
    if (!nv) return;
    l->v = nv;
    l->cap = ncap;
  }
  l->v[l->n++] = strdup(p);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void collect(path_list *l, const char *path) {
  struct stat sb;
  if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
    add_path(l, path);
    return;
  }
  DIR *d = opendir(path);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char full[4096];
    snprintf(full, sizeof full, "%s/%s", path, e->d_name);
    size_t n = strlen(e->d_name);
    if (stat(full, &sb) == 0 && S_ISDIR(sb.st_mode)) collect(l, full);
    else if (n > 5 && strcmp(e->d_name + n - 5, ".mlir") == 0) add_path(l, full);
  }
  closedir(d);
}

int cmd_test(int argc, char **argv) {
  path_list paths = {0};
  bool split = false, quiet = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      printf("usage: shloc test [--split-input-file] [--quiet] FILE...|DIR...\n\n"
             "Runs each module's entry function (@main, or the only function) with no arguments.\n"
             "Programs check themselves with check.* custom calls and check-dialect ops.\n"
             "Prints PASS/FAIL per file (per chunk with --split-input-file), then 'N passed, M failed';\n"
             "exit status 1 if anything failed.  Directories are searched for *.mlir.\n");
      return 0;
    }
    if (strcmp(argv[i], "--split-input-file") == 0) split = true;
    else if (strcmp(argv[i], "--quiet") == 0) quiet = true;
    else collect(&paths, argv[i]);
  }
  if (!paths.n) {
    fprintf(stderr, "shloc test: no input files (see shloc test --help)\n");
    return 2;
  }
  qsort(paths.v, paths.n, sizeof *paths.v, cmp_str);
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
      shloc_status st = test_chunk(ctx, path, &chunks[c]);
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
  for (size_t i = 0; i < paths.n; i++) free(paths.v[i]);
  free(paths.v);
  return failed ? 1 : 0;
}
