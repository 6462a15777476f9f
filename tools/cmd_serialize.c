/* shloc serialize FILE [--target=VERSION] [--strip-debuginfo] [-o OUT]:
 * writes a StableHLO portable artifact (stablehlo-translate --serialize). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "shloc/artifact.h"

static void help(void) {
  printf("usage: shloc serialize FILE [--target=VERSION] [--strip-debuginfo] [--inline-chlo] [-o OUT]\n"
         "       shloc serialize --min-version FILE|DIR...\n"
         "       shloc serialize --roundtrip FILE|DIR...\n\n"
         "Writes FILE (text, artifact or jax.export envelope) as a StableHLO portable artifact:\n"
         "MLIR bytecode of the VHLO dialect of VERSION, as stablehlo-translate --serialize does.\n"
         "VERSION is X.Y.Z (%s to %s), 'current' (the default) or 'oldest' (the oldest\n"
         "version whose VHLO expresses every op, attribute and type of the module).\n"
         "--strip-debuginfo writes every location as unknown; -o writes OUT atomically\n"
         "(default stdout).\n"
         "--min-version prints each file's oldest version instead.\n"
         "--roundtrip checks, for --target=current and --target=oldest --inline-chlo, that each\n"
         "module (each '// -----' chunk) read back from its artifact prints like the module\n"
         "itself (after the CHLO decomposition, for a module with CHLO ops); it ends with\n"
         "'N passed (C after CHLO decomposition), M failed, K refused, T with check ops'\n"
         "(refused: ops VHLO cannot express; check ops: check-dialect test ops, which\n"
         "no artifact can hold).\n"
         "\n"
         "CHLO ops are decomposed into StableHLO first, as XLA's serializer does: from target\n"
         "0.19.0 on, acos, acosh, asin, asinh, atanh, cosh, sinh, erf, erfc, mulhi and top_k\n"
         "become stablehlo.composite \"chlo.X\" ops whose decomposition @chlo.X.impl holds the\n"
         "decomposed op (--inline-chlo: decomposed in place instead; see shloc fmt\n"
         "--legalize-chlo).  check.* test ops and other dialects are refused.\n",
         shloc_vhlo_minimum_version(), shloc_vhlo_current_version());
}

/* Worst first: a file counts under the worst result of its chunks. */
typedef enum { RT_PASS, RT_CHECK_OPS, RT_REFUSED, RT_FAIL } rt_result;

/* Text -> artifact -> text equals text -> text, for one module and target. */
static rt_result roundtrip_one(shloc_context *ctx, shloc_module *m, const char *path, const char *target,
                               unsigned flags, const char *printed, size_t plen, const char *src, size_t src_len) {
  void *bytes = NULL;
  size_t len = 0;
  shloc_module *back = NULL;
  char *text = NULL;
  size_t tlen = 0;
  rt_result r = RT_PASS;
  shloc_status st = shloc_module_serialize(m, target, SHLOC_SERIALIZE_STRIP_DEBUGINFO | flags, &bytes, &len);
  if (st && shloc_status_code(st) == SHLOC_ERR_UNSUPPORTED && strstr(shloc_status_message(st), "cannot be expressed in VHLO")) {
    const char *op = shloc_status_op(st);
    r = op && !strncmp(op, "check.", 6) ? RT_CHECK_OPS : RT_REFUSED;
  }
  if (!st) st = shloc_module_parse(ctx, path, bytes, len, 1, &back);
  if (!st) st = shloc_module_print(back, 0, &text, &tlen);
  if (st && (r == RT_REFUSED || r == RT_CHECK_OPS)) {
    const char *file;
    int line, col;
    shloc_status_location(st, &file, &line, &col);
    fprintf(stderr, "%s:%d:%d: %s: %s\n", path, line, col, r == RT_REFUSED ? "refused" : "check op",
            shloc_status_message(st));
    shloc_status_free(st);
  } else if (st) {
    fprintf(stderr, "%s: --target=%s:\n", path, target);
    r = RT_FAIL;
    cli_report(st, src, src_len);
  } else if (tlen != plen || memcmp(text, printed, plen) != 0) {
    size_t line = 1;
    for (size_t i = 0; i < tlen && i < plen && text[i] == printed[i]; i++) line += printed[i] == '\n';
    fprintf(stderr, "%s: error: --target=%s: the artifact reads back differently (from line %zu of the printed module)\n",
            path, target, line);
    r = RT_FAIL;
  }
  free(bytes);
  free(text);
  shloc_module_destroy(back);
  return r;
}

static int roundtrip(shloc_context *ctx, cli_paths *paths) {
  int counts[RT_FAIL + 1] = {0}, decomposed = 0;
  for (size_t f = 0; f < paths->n; f++) {
    const char *path = paths->v[f];
    cli_input in;
    if (!cli_input_open(path, &in)) {
      counts[RT_FAIL]++;
      continue;
    }
    cli_chunk *chunks;
    size_t n = cli_split(in.text, in.len, memmem(in.text, in.len, "\n// -----", 9) != NULL, &chunks);
    rt_result worst = RT_PASS;
    size_t replaced_in_file = 0;
    for (size_t c = 0; c < n; c++) {
      /* --target=current with XLA's composites for the preserved CHLO ops,
       * --target=oldest without (which also reaches versions before 0.19.0).
       * What an artifact holds is the decomposed module: compare with that. */
      static const char *const targets[] = {"current", "oldest"};
      static const unsigned legalize[] = {SHLOC_LEGALIZE_CHLO_COMPOSITES, 0};
      static const unsigned serialize[] = {0, SHLOC_SERIALIZE_INLINE_CHLO};
      for (int t = 0; t < 2; t++) {
        shloc_module *m = NULL;
        char *printed = NULL;
        size_t plen = 0, replaced = 0;
        shloc_status st =
            shloc_module_parse_borrowed(ctx, path, chunks[c].text, chunks[c].len, chunks[c].first_line, &m);
        if (!st) st = shloc_module_verify(m);
        if (!st) st = shloc_module_legalize_chlo(m, legalize[t], &replaced);
        replaced_in_file += replaced;
        if (!st) st = shloc_module_print(m, SHLOC_PRINT_ASSUME_VERIFIED, &printed, &plen);
        rt_result r = RT_FAIL;
        if (st) cli_report(st, in.text, in.len);
        else r = roundtrip_one(ctx, m, path, targets[t], serialize[t], printed, plen, in.text, in.len);
        free(printed);
        shloc_module_destroy(m);
        if (r > worst) worst = r;
        if (r != RT_PASS) break;
      }
    }
    counts[worst]++;
    if (worst == RT_PASS && replaced_in_file) decomposed++;
    free(chunks);
    cli_input_close(&in);
  }
  printf("%d passed (%d after CHLO decomposition), %d failed, %d refused, %d with check ops\n", counts[RT_PASS],
         decomposed, counts[RT_FAIL], counts[RT_REFUSED], counts[RT_CHECK_OPS]);
  return counts[RT_FAIL] ? 1 : 0;
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
  bool min_version = false, rt = false;
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
    else if (!strcmp(argv[i], "--inline-chlo")) flags |= SHLOC_SERIALIZE_INLINE_CHLO;
    else if (!strcmp(argv[i], "--min-version")) min_version = true;
    else if (!strcmp(argv[i], "--roundtrip")) rt = true;
    else if (!strcmp(argv[i], "-o") && i + 1 < argc) out = argv[++i];
    else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "shloc serialize: unknown option '%s'\n", argv[i]);
      cli_paths_free(&paths);
      return 2;
    } else cli_paths_add(&paths, argv[i]);
  }
  if (!paths.n || (!min_version && !rt && paths.n != 1)) {
    fprintf(stderr, "shloc serialize: %s (see shloc serialize --help)\n", paths.n ? "one FILE expected" : "missing FILE");
    cli_paths_free(&paths);
    return 2;
  }
  shloc_context *ctx = shloc_context_create();
  int rc = ctx ? 0 : 1;
  if (ctx && rt) {
    rc = roundtrip(ctx, &paths);
    shloc_context_destroy(ctx);
    cli_paths_free(&paths);
    return rc;
  }
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
