/* shloc fmt FILE [--generic] [--legalize-chlo] [-o OUT]: parse, verify, print. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "shloc/artifact.h"

int cmd_fmt(int argc, char **argv) {
  const char *path = NULL, *out = "-";
  unsigned flags = 0;
  bool split = false, verify = true, legalize = false;
  unsigned legalize_flags = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      printf("usage: shloc fmt FILE [--generic] [--debuginfo] [--no-verify] [--split-input-file]\n"
             "                 [--legalize-chlo[=composites]] [-o OUT]\n\n"
             "Prints FILE in canonical pretty form (or the generic form with --generic).\n"
             "--legalize-chlo first replaces every CHLO op by StableHLO ops (upstream's\n"
             "chlo-legalize-to-stablehlo); =composites first wraps the ops XLA preserves in\n"
             "stablehlo.composite \"chlo.X\" ops (what shloc serialize writes; see its --help).\n"
             "--debuginfo keeps loc(...) annotations; -o writes OUT atomically (default stdout).\n"
             "--no-verify prints modules that fail verification too, in generic form (as mlir-opt\n"
             "does), instead of reporting the error.\n");
      return 0;
    }
    if (strcmp(argv[i], "--generic") == 0) flags |= SHLOC_PRINT_GENERIC;
    else if (strcmp(argv[i], "--debuginfo") == 0) flags |= SHLOC_PRINT_DEBUGINFO;
    else if (strcmp(argv[i], "--no-verify") == 0) verify = false;
    else if (strcmp(argv[i], "--legalize-chlo") == 0) legalize = true;
    else if (strcmp(argv[i], "--legalize-chlo=composites") == 0) legalize = true, legalize_flags = SHLOC_LEGALIZE_CHLO_COMPOSITES;
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
  cli_input in;
  if (!cli_input_open(path, &in)) return 1;
  shloc_context *ctx = shloc_context_create();
  cli_chunk *chunks = NULL;
  size_t n = ctx ? cli_split(in.text, in.len, split, &chunks) : 0;
  shloc_module **mods = n ? calloc(n, sizeof *mods) : NULL;
  int rc = mods ? 0 : 1;
  /* Everything is parsed and verified before anything is printed, so an
   * error leaves no partial output behind (the input stays mapped and
   * borrowed by the modules until they are printed). */
  for (size_t c = 0; c < n && rc == 0; c++) {
    shloc_status st =
        shloc_module_parse_borrowed(ctx, path, chunks[c].text, chunks[c].len, chunks[c].first_line, &mods[c]);
    if (!st && (verify || legalize)) st = shloc_module_verify(mods[c]);
    if (!st && legalize) st = shloc_module_legalize_chlo(mods[c], legalize_flags, NULL);
    if (st) {
      cli_report(st, in.text, in.len);
      rc = 1;
    }
  }
  cli_output o;
  if (rc == 0 && !cli_output_open(out, &o)) rc = 1;
  if (rc == 0) {
    for (size_t c = 0; c < n && rc == 0; c++) {
      if (c && !cli_output_write(&o, "// -----\n", 9)) rc = 1;
      unsigned f = verify ? flags | SHLOC_PRINT_ASSUME_VERIFIED : flags;
      shloc_status st = rc ? NULL : shloc_module_write(mods[c], f, cli_output_write, &o);
      if (st && shloc_status_code(st) != SHLOC_ERR_IO) cli_report(st, NULL, 0);
      else shloc_status_free(st);
      if (st) rc = 1;
    }
    if (!cli_output_close(&o, rc == 0)) rc = 1;
  }
  for (size_t c = 0; c < n; c++) shloc_module_destroy(mods ? mods[c] : NULL);
  free(mods);
  free(chunks);
  shloc_context_destroy(ctx);
  cli_input_close(&in);
  return rc;
}
