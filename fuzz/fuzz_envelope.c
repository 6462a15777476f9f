/* libFuzzer target for jax.export envelopes: any input must decode or fail
 * cleanly, both through shloc_jax_export_read and through
 * shloc_module_parse (which also parses the embedded module).  A decoded
 * envelope's fields are walked so that every pointer is touched.  Seeds in
 * fuzz/seeds/fuzz_envelope/ are envelopes of several serialization versions
 * written by the unit test's encoder (tests/unit/jax_envelope_build.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shloc/jax_export.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t walk(const shloc_jax_export *e) {
  size_t n = strlen(e->function_name) + strlen(e->in_tree) + strlen(e->out_tree);
  for (size_t i = 0; i < e->n_in + e->n_out; i++) {
    const shloc_jax_aval *a = i < e->n_in ? &e->in_avals[i] : &e->out_avals[i - e->n_in];
    n += strlen(a->dtype);
    for (size_t d = 0; d < a->rank; d++) n += strlen(a->dims[d]);
  }
  for (size_t i = 0; i < e->n_in_shardings; i++) n += strlen(e->in_shardings[i].text) + e->in_shardings[i].hlo_proto_len;
  for (size_t i = 0; i < e->n_out_shardings; i++) n += strlen(e->out_shardings[i].text);
  for (size_t i = 0; i < e->n_platforms; i++) n += strlen(e->platforms[i]);
  for (size_t i = 0; i < e->n_ordered_effects; i++) n += strlen(e->ordered_effects[i]);
  for (size_t i = 0; i < e->n_disabled_checks; i++) n += strlen(e->disabled_checks[i]);
  for (size_t i = 0; i < e->n_kept; i++) n += e->module_kept_var_idx[i];
  if (e->module_offset + e->module_len > (size_t)-1 / 2) abort();
  return n + (e->vjp ? walk(e->vjp) : 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static shloc_context *ctx;
  if (!ctx) ctx = shloc_context_create();
  shloc_jax_export *e = NULL;
  shloc_status st = shloc_jax_export_read(data, size, "fuzz", &e);
  if (!st) {
    if (e->module_offset + e->module_len > size) abort();
    volatile size_t sink = walk(e);
    (void)sink;
  }
  shloc_status_free(st);
  shloc_jax_export_free(e);
  shloc_module *m = NULL;
  st = shloc_module_parse(ctx, "fuzz", (const char *)data, size, 1, &m);
  shloc_status_free(st);
  shloc_module_destroy(m);
  return 0;
}
