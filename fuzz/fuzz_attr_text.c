/* libFuzzer target for the builder's attribute-text validator.  The input is
 * "NAME\nVALUE"; it is tried as an mlir_attributes pair and as a
 * backend_config pair of a custom call, and the whole input as the value of a
 * fixed name.  Either the call is rejected and the module is unchanged, or
 * the op carries exactly the one attribute asked for: printed in pretty and
 * generic form and parsed back, the op has the same attributes, the caller's
 * equal to what was built.  Any injected or lost attribute aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "shloc/builder.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static shloc_context *ctx;

static void die(const char *what, const char *name, const char *value, const char *text) {
  fprintf(stderr, "fuzz_attr_text: %s\nname: %s\nvalue: %s\n--- module ---\n%s\n", what, name, value,
          text ? text : "");
  abort();
}

static char *print(shloc_module *m, unsigned flags) {
  char *out = NULL;
  shloc_status st = shloc_module_print(m, flags, &out, NULL);
  shloc_status_free(st); /* out of memory: out stays NULL */
  return out;
}

static const shl_op *last_op(const shloc_module *m) {
  const shl_op *f = m->top->regions[0].blocks[0]->first;
  return func_body(f)->last;
}

/* The built op and its reparsed twin carry the same attributes. */
static void same_attrs(const shl_op *a, const shl_op *b, const char *name, const char *value, const char *text) {
  if (!b || a->n_attrs != b->n_attrs) die("attribute count changed through print/parse", name, value, text);
  for (uint32_t i = 0; i < a->n_attrs; i++)
    if (!str_eq(a->attrs[i].name, b->attrs[i].name) || !attr_eq(a->attrs[i].attr, b->attrs[i].attr))
      die("attribute changed through print/parse", name, value, text);
}

static void try_pair(const char *name, const char *value, bool in_backend_config) {
  shloc_module *m = NULL;
  shloc_func *f;
  shloc_status st = shloc_module_create(ctx, &m);
  if (!st) st = shloc_func_create(m, "main", 0, NULL, 0, NULL, 0, &f);
  if (st) {
    shloc_status_free(st);
    shloc_module_destroy(m);
    return;
  }
  shloc_attr_pair pair = {name, value};
  shloc_custom_call_spec spec = {.call_target_name = "t", .has_side_effect = true};
  if (in_backend_config) {
    spec.n_backend_config_pairs = 1;
    spec.backend_config_pairs = &pair;
  } else {
    spec.n_mlir_attributes = 1;
    spec.mlir_attributes = &pair;
  }
  char *before = print(m, SHLOC_PRINT_GENERIC);
  shloc_op *op;
  st = shloc_build_custom_call(shloc_func_body(f), &spec, &op);
  if (st) {
    shloc_status_free(st);
    char *after = print(m, SHLOC_PRINT_GENERIC);
    if (before && after && strcmp(before, after) != 0) die("a rejected call changed the module", name, value, after);
    free(after);
  } else {
    const shl_op *built = last_op(m);
    /* call_target_name, api_version, has_side_effect and the one pair (or backend_config). */
    if (built->n_attrs != 4) die("the op does not have exactly one extra attribute", name, value, before);
    for (unsigned flags = 0; flags <= SHLOC_PRINT_GENERIC; flags += SHLOC_PRINT_GENERIC) {
      char *text = print(m, flags);
      if (!text) continue;
      shloc_module *m2 = NULL;
      st = shloc_module_parse(ctx, "printed.mlir", text, strlen(text), 1, &m2);
      if (st) die("the printed module does not parse", name, value, text);
      same_attrs(built, last_op(m2), name, value, text);
      shloc_module_destroy(m2);
      free(text);
    }
  }
  free(before);
  shloc_module_destroy(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!ctx) {
    if (!(ctx = shloc_context_create())) return 0;
    shloc_context_limits(ctx)->max_attr_text_bytes = 8192;
    shloc_context_limits(ctx)->max_nesting = 64;
  }
  char *all = malloc(size + 1);
  if (!all) return 0;
  memcpy(all, data, size);
  all[size] = 0;
  char *nl = memchr(all, '\n', size);
  if (nl) {
    *nl = 0;
    try_pair(all, nl + 1, false);
    try_pair(all, nl + 1, true);
    *nl = '\n';
  }
  try_pair("sdy.value", all, false);
  free(all);
  return 0;
}
