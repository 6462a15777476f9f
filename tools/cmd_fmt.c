/* shloc fmt FILE [--generic] [-o OUT]: parse, verify, print. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cmd_fmt(int argc, char **argv) {
  const char *path = NULL, *out = "-";
  unsigned flags = 0;
  bool split = false, verify = true;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      printf("usage: shloc fmt FILE [--generic] [--debuginfo] [--no-verify] [--split-input-file] [-o OUT]\n\n"
             "Prints FILE in canonical pretty form (or the generic form with --generic).\n"
             "--debuginfo keeps loc(...) annotations; -o writes OUT atomically (default stdout).\n");
      return 0;
    }
    if (strcmp(argv[i], "--generic") == 0) flags |= SHLOC_PRINT_GENERIC;
    else if (strcmp(argv[i], "--debuginfo") == 0) flags |= SHLOC_PRINT_DEBUGINFO;
    else if (strcmp(argv[i], "--no-verify") == 0) verify = false;
    else if (strcmp(argv[i], "--split-input-file") == 0) split = true;
    else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) out = argv[++i];
    else if (!path) path = argv[i];
    else {
      fprintf(stderr, "shloc fmt: unexpected argument '%s'\n", argv[i]);
      return 2;
    }
  }
  if (!path) {
    fprintf(stderr, "shloc fmt: missing FILE (see shloc fmt --help)\n");
    return 2;
  }
  char *text;
  size_t len;
  if (!cli_read_file(path, &text, &len)) return 1;
  shloc_context *ctx = shloc_context_create();
  cli_chunk *chunks;
  size_t n = cli_split(text, len, split, &chunks);
  char *all = NULL;
  size_t all_len = 0;
  int rc = 0;
  for (size_t c = 0; c < n && rc == 0; c++) {
    shloc_module *m;
    shloc_status st = shloc_module_parse(ctx, path, chunks[c].text, chunks[c].len, chunks[c].first_line, &m);
    if (!st && verify) st = shloc_module_verify(m);
    char *s = NULL;
    size_t sl = 0;
    if (!st) st = shloc_module_print(m, flags, &s, &sl);
    if (st) {
      cli_report(st, text, len);
      rc = 1;
    } else {
      const char *sep = c ? "// -----\n" : "";
      char *na = realloc(all, all_len + sl + strlen(sep) + 1);
      if (na) {
        all = na;
        memcpy(all + all_len, sep, strlen(sep));
        all_len += strlen(sep);
        memcpy(all + all_len, s, sl);
        all_len += sl;
      } else {
        rc = 1;
      }
    }
    free(s);
    shloc_module_destroy(m);
  }
  if (rc == 0 && !cli_write_file(out, all ? all : "", all_len)) rc = 1;
  free(all);
  free(chunks);
  shloc_context_destroy(ctx);
  free(text);
  return rc;
}
