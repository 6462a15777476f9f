/* libFuzzer target for the text parser.  Any input must parse or fail
 * cleanly.  A module that parses is verified and printed in generic form;
 * when it verifies it is also printed in pretty form (whose printers may rely
 * on verified structure), and each printed form must parse back and print
 * identically, so printer/parser disagreements show up as crashes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shloc/shloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static shloc_context *ctx;

static void die(const char *what, shloc_status st, const char *text, size_t len) {
  char *msg = st ? shloc_status_render(st, text, len) : NULL;
  fprintf(stderr, "fuzz_parse: %s\n%s\n--- printed text ---\n%.*s\n", what, msg ? msg : "", (int)len, text);
  abort();
}

/* Prints m with `flags`; when `check` is set the text must re-parse and
 * print the same way. */
static void print_and_reparse(shloc_module *m, unsigned flags, bool check) {
  char *out = NULL, *again = NULL;
  size_t len = 0, again_len = 0;
  shloc_status st = shloc_module_print(m, flags, &out, &len);
  if (st) {
    shloc_status_free(st); /* out of memory */
    return;
  }
  if (check) {
    shloc_module *m2 = NULL;
    st = shloc_module_parse(ctx, "printed.mlir", out, len, 1, &m2);
    if (st) die("printed module does not parse", st, out, len);
    st = shloc_module_print(m2, flags, &again, &again_len);
    if (!st && (again_len != len || memcmp(again, out, len) != 0))
      die("printing is not a fixed point; second print follows the first", NULL, again, again_len);
    shloc_status_free(st);
    shloc_module_destroy(m2);
  }
  free(again);
  free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!ctx && !(ctx = shloc_context_create())) return 0;
  shloc_module *m = NULL;
  shloc_status st = shloc_module_parse(ctx, "fuzz.mlir", (const char *)data, size, 1, &m);
  if (st) {
    shloc_status_free(st);
    return 0;
  }
  st = shloc_module_verify(m);
  bool valid = st == NULL;
  shloc_status_free(st);
  if (valid) print_and_reparse(m, SHLOC_PRINT_DEBUGINFO, true);
  print_and_reparse(m, SHLOC_PRINT_DEBUGINFO | SHLOC_PRINT_GENERIC, valid);
  shloc_module_destroy(m);
  return 0;
}
