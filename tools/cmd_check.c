/* shloc check FILE...: parse and verify; with --roundtrip also check that
 * printing is a fixed point in both forms, and with --match-source that the
 * pretty output reproduces the source (what `make conformance` runs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Prints m with `flags`, re-parses the text and prints it again in pretty
 * form; *out receives that pretty text. */
static shloc_status reprint(shloc_context *ctx, shloc_module *m, unsigned flags, char **out, size_t *out_len) {
  char *text = NULL;
  size_t len = 0;
  shloc_status st = shloc_module_print(m, flags | SHLOC_PRINT_ASSUME_VERIFIED, &text, &len);
  if (st) return st;
  shloc_module *m2 = NULL;
  st = shloc_module_parse(ctx, flags & SHLOC_PRINT_GENERIC ? "<generic output>" : "<pretty output>", text, len, 1, &m2);
  if (!st) st = shloc_module_verify(m2);
  if (!st) st = shloc_module_print(m2, SHLOC_PRINT_ASSUME_VERIFIED, out, out_len);
  if (st) {
    char *msg = shloc_status_render(st, text, len);
    fprintf(stderr, "re-parsing printed output failed: %s\n", msg ? msg : "");
    free(msg);
  }
  shloc_module_destroy(m2);
  free(text);
  return st;
}

/* src: the chunk m was parsed from, compared with the output when given. */
static shloc_status roundtrip(shloc_context *ctx, shloc_module *m, const char *path, const cli_chunk *src) {
  char *a = NULL, *b = NULL, *g = NULL;
  size_t al = 0, bl = 0, gl = 0;
  shloc_status st = shloc_module_print(m, SHLOC_PRINT_ASSUME_VERIFIED, &a, &al);
  if (!st && src) st = cli_match_source(path, src->text, src->len, src->first_line, a, al);
  if (!st) st = reprint(ctx, m, 0, &b, &bl);
  if (!st) st = reprint(ctx, m, SHLOC_PRINT_GENERIC, &g, &gl);
  if (!st && (al != bl || memcmp(a, b, al) != 0))
    st = shloc_status_error(SHLOC_ERR_VERIFY, path, 0, 0, "pretty output does not print back identically");
  if (!st && (al != gl || memcmp(a, g, al) != 0))
    st = shloc_status_error(SHLOC_ERR_VERIFY, path, 0, 0, "generic output does not parse back to the same module");
  free(a);
  free(b);
  free(g);
  return st;
}

int cmd_check(int argc, char **argv) {
  bool split = false, rt = false, match = false;
  cli_paths paths = {0};
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      printf("usage: shloc check [--split-input-file] [--roundtrip [--match-source]] FILE...|DIR...\n\n"
             "Parses each FILE (pretty or generic MLIR; '-' reads stdin; directories are searched for\n*.mlir) and verifies it; with several files it ends with 'N passed, M failed'.\n"
             "--roundtrip also checks that printing is a fixed point: pretty -> parse -> pretty, and\n"
             "generic -> parse -> pretty give the same text.\n"
             "--match-source also checks that the pretty output reproduces the source: comment lines\n"
             "and surrounding blank lines aside, line for line, with dense<...> literals compared by\n"
             "value (numbers by value; i1 hex one byte per element or bit-packed).  For sources\n"
             "printed by MLIR, such as the conformance corpus.  Exit status 0 when everything is valid,\n"
             "1 otherwise; errors go to stderr as file:line:col: error: ...\n");
      return 0;
    }
    if (strcmp(argv[i], "--split-input-file") == 0) split = true;
    else if (strcmp(argv[i], "--roundtrip") == 0) rt = true;
    else if (strcmp(argv[i], "--match-source") == 0) rt = match = true;
    else cli_paths_add(&paths, argv[i]);
  }
  if (!paths.n) {
    fprintf(stderr, "shloc check: missing FILE (see shloc check --help)\n");
    return 2;
  }
  shloc_context *ctx = shloc_context_create();
  int failed = 0, passed = 0;
  for (size_t i = 0; i < paths.n; i++) {
    const char *path = paths.v[i];
    cli_input in;
    if (!cli_input_open(path, &in)) {
      failed++;
      continue;
    }
    const char *text = in.text;
    size_t len = in.len;
    /* A file holding "// -----" separators is split even without the flag
     * when round-tripping a corpus. */
    bool file_split = split || (rt && memmem(text, len, "\n// -----", 9) != NULL);
    cli_chunk *chunks;
    size_t n = cli_split(text, len, file_split, &chunks);
    bool ok = true;
    for (size_t c = 0; c < n; c++) {
      shloc_module *m = NULL;
      shloc_status st =
          shloc_module_parse_borrowed(ctx, path, chunks[c].text, chunks[c].len, chunks[c].first_line, &m);
      if (!st) st = shloc_module_verify(m);
      if (!st && rt) st = roundtrip(ctx, m, path, match ? &chunks[c] : NULL);
      if (st) {
        cli_report(st, text, len);
        ok = false;
      }
      shloc_module_destroy(m);
    }
    ok ? passed++ : failed++;
    free(chunks);
    cli_input_close(&in);
  }
  if (paths.n > 1) printf("%d passed, %d failed\n", passed, failed);
  cli_paths_free(&paths);
  shloc_context_destroy(ctx);
  return failed ? 1 : 0;
}
