/* libFuzzer target for the bytecode (portable artifact) reader.  Inputs
 * without the MLIR bytecode magic get it prepended, so mutations explore the
 * format rather than the magic check.  Any input must read or fail cleanly;
 * a module that reads is verified and printed (both must not crash). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shloc/shloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static shloc_context *ctx;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!ctx && !(ctx = shloc_context_create())) return 0;
  uint8_t *buf = malloc(size + 4);
  if (!buf) return 0;
  size_t len = size;
  if (size >= 4 && memcmp(data, "ML\xEFR", 4) == 0) {
    memcpy(buf, data, size);
  } else {
    memcpy(buf, "ML\xEFR", 4);
    memcpy(buf + 4, data, size);
    len += 4;
  }
  shloc_module *m = NULL;
  shloc_status st = shloc_module_parse(ctx, "fuzz.mlir.bc", (const char *)buf, len, 1, &m);
  free(buf);
  if (st) {
    shloc_status_free(st);
    return 0;
  }
  st = shloc_module_verify(m);
  unsigned flags = SHLOC_PRINT_DEBUGINFO | (st ? SHLOC_PRINT_GENERIC : 0);
  shloc_status_free(st);
  char *out = NULL;
  size_t out_len = 0;
  st = shloc_module_print(m, flags, &out, &out_len);
  shloc_status_free(st);
  free(out);
  shloc_module_destroy(m);
  return 0;
}
