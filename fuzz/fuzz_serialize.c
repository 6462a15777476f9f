/* libFuzzer target for the artifact writer.  Text that parses and verifies
 * is serialized for the current version and for its oldest version (with
 * and without locations; CHLO ops as XLA's composites and inline); the
 * writer may refuse (clean status) but never crash, and every artifact it
 * writes must read back and verify. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "shloc/artifact.h"
#include "shloc/shloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static shloc_context *ctx;

static void write_and_read(shloc_module *m, const char *target, unsigned flags) {
  void *bytes = NULL;
  size_t len = 0;
  shloc_status st = shloc_module_serialize(m, target, flags, &bytes, &len);
  if (st) {
    shloc_status_free(st);
    return;
  }
  shloc_module *back = NULL;
  st = shloc_module_parse(ctx, "fuzz.mlir.bc", bytes, len, 1, &back);
  if (!st) st = shloc_module_verify(back);
  if (st) {
    fprintf(stderr, "fuzz_serialize: --target=%s wrote an artifact that does not read back: %s\n", target,
            shloc_status_message(st));
    abort();
  }
  shloc_module_destroy(back);
  free(bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!ctx && !(ctx = shloc_context_create())) return 0;
  shloc_module *m = NULL;
  shloc_status st = shloc_module_parse(ctx, "fuzz.mlir", (const char *)data, size, 1, &m);
  if (!st) st = shloc_module_verify(m);
  if (!st) {
    write_and_read(m, "current", SHLOC_SERIALIZE_STRIP_DEBUGINFO);
    write_and_read(m, "oldest", 0);
    write_and_read(m, "current", SHLOC_SERIALIZE_INLINE_CHLO);
  }
  shloc_status_free(st);
  shloc_module_destroy(m);
  return 0;
}
