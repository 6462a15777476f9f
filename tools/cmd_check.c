/* shloc check FILE: parse and verify. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cmd_check(int argc, char **argv) {
  const char *path = NULL;
  bool split = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      printf("usage: shloc check FILE [--split-input-file]\n\n"
             "Parses FILE (pretty or generic MLIR; '-' reads stdin) and verifies it.\n"
             "Exit status 0 when valid, 1 otherwise; errors go to stderr as file:line:col: error: ...\n");
      return 0;
    }
    if (strcmp(argv[i], "--split-input-file") == 0) split = true;
    else if (!path) path = argv[i];
    else {
      fprintf(stderr, "shloc check: unexpected argument '%s'\n", argv[i]);
      return 2;
    }
  }
  if (!path) {
    fprintf(stderr, "shloc check: missing FILE (see shloc check --help)\n");
    return 2;
  }
  char *text;
  size_t len;
  if (!cli_read_file(path, &text, &len)) return 1;
  shloc_context *ctx = shloc_context_create();
  cli_chunk *chunks;
  size_t n = cli_split(text, len, split, &chunks);
  int rc = 0;
  for (size_t c = 0; c < n; c++) {
    shloc_module *m;
    shloc_status st = shloc_module_parse(ctx, path, chunks[c].text, chunks[c].len, chunks[c].first_line, &m);
    if (!st) st = shloc_module_verify(m);
    if (st) {
      cli_report(st, text, len);
      rc = 1;
    }
    shloc_module_destroy(m);
  }
  free(chunks);
  shloc_context_destroy(ctx);
  free(text);
  return rc;
}
