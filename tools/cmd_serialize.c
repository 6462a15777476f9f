/* shloc serialize FILE [--target=VERSION] [--strip-debuginfo] [-o OUT]:
 * writes a StableHLO portable artifact (stablehlo-translate --serialize). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "shloc/artifact.h"

static void help(void) {
  printf("usage: shloc serialize FILE [--target=VERSION] [--strip-debuginfo] [-o OUT]\n"
         "       shloc serialize --min-version FILE...\n\n"
         "Writes FILE (text, artifact or jax.export envelope) as a StableHLO portable artifact:\n"
         "MLIR bytecode of the VHLO dialect of VERSION, as stablehlo-translate --serialize does.\n"
         "VERSION is X.Y.Z (%s to %s), 'current' (the default) or 'oldest' (the oldest\n"
         "version whose VHLO expresses every op, attribute and type of the module).\n"
         "--strip-debuginfo writes every location as unknown; -o writes OUT atomically\n"
         "(default stdout).  --min-version prints each file's oldest version instead.\n",
         shloc_vhlo_minimum_version(), shloc_vhlo_current_version());
}

static shloc_module *load(shloc_context *ctx, const char *path, cli_input *in) {
  if (!cli_input_open(path, in)) return NULL;
  shloc_module *m = NULL;
  shloc_status st = shloc_module_parse_borrowed(ctx, path, in->text, in->len, 1, &m);
  if (!st) st = shloc_module_verify(m);
  if (st) {
    cli_report(st, in->text, in->len);
    shloc_module_destroy(m);
    cli_input_close(in);
    return NULL;
  }
  return m;
}

int cmd_serialize(int argc, char **argv) {
  const char *target = "current", *out = "-";
  unsigned flags = 0;
  bool min_version = false;
  cli_paths paths = {0};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      help();
      cli_paths_free(&paths);
      return 0;
    }
    if (!strncmp(argv[i], "--target=", 9)) target = argv[i] + 9;
    else if (!strcmp(argv[i], "--target") && i + 1 < argc) target = argv[++i];
    else if (!strcmp(argv[i], "--strip-debuginfo")) flags |= SHLOC_SERIALIZE_STRIP_DEBUGINFO;
    else if (!strcmp(argv[i], "--min-version")) min_version = true;
    else if (!strcmp(argv[i], "-o") && i + 1 < argc) out = argv[++i];
    else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "shloc serialize: unknown option '%s'\n", argv[i]);
      cli_paths_free(&paths);
      return 2;
    } else cli_paths_add(&paths, argv[i]);
  }
  if (!paths.n || (!min_version && paths.n != 1)) {
    fprintf(stderr, "shloc serialize: %s (see shloc serialize --help)\n", paths.n ? "one FILE expected" : "missing FILE");
    cli_paths_free(&paths);
    return 2;
  }
  shloc_context *ctx = shloc_context_create();
  int rc = ctx ? 0 : 1;
  for (size_t f = 0; f < paths.n && ctx; f++) {
    cli_input in;
    shloc_module *m = load(ctx, paths.v[f], &in);
    if (!m) {
      rc = 1;
      continue;
    }
    shloc_status st;
    if (min_version) {
      char v[32];
      st = shloc_module_min_version(m, v, sizeof v);
      if (!st) printf("%s %s\n", paths.v[f], v);
    } else {
      void *bytes = NULL;
      size_t len = 0;
      st = shloc_module_serialize(m, target, flags, &bytes, &len);
      if (!st && !cli_write_file(out, bytes, len)) rc = 1;
      free(bytes);
    }
    if (st) {
      cli_report(st, in.text, in.len);
      rc = 1;
    }
    shloc_module_destroy(m);
    cli_input_close(&in);
  }
  shloc_context_destroy(ctx);
  cli_paths_free(&paths);
  return rc;
}
