/* Native properties (bytecode >= 5) of registered ops outside VHLO.  An op's
 * properties are its inherent attributes in the order ODS sorts them (by
 * name); a required one is an attribute index, an optional one an index with
 * a presence flag.  Layouts that changed between MLIR releases are listed
 * once per release shape; the one that consumes exactly the op's bytes wins. */
#include "bc_reader.h"

static const struct {
  const char *op;
  const char *layout; /* names in order; '?' marks an optional attribute */
} layouts[] = {
    {"builtin.module", "?sym_name ?sym_visibility"},
    {"func.func", "?arg_attrs function_type ?res_attrs sym_name ?sym_visibility"},
    {"func.func", "?arg_attrs function_type ?no_inline ?res_attrs sym_name ?sym_visibility"},
    {"func.call", "callee"},
    {"func.call", "callee ?no_inline"},
    {"func.call", "?arg_attrs callee ?no_inline ?res_attrs"},
};

/* Reads `layout` from blob; false (nothing added) when it does not fit. */
static bool try_layout(bc_reader *r, const char *layout, const uint8_t *p, size_t n, shl_named_attr *out, uint32_t *cnt,
                       uint32_t cap) {
  bc_cur c = {r, p, p + n};
  uint32_t k = *cnt;
  const char *s = layout;
  while (*s) {
    bool opt = *s == '?';
    if (opt) s++;
    const char *e = strchr(s, ' ');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    uint64_t idx;
    bool present = true;
    shl_status st = opt ? bc_varint_flag(&c, &idx, &present) : bc_varint(&c, &idx);
    if (st) {
      shloc_status_free(st);
      return false;
    }
    if (present) {
      if (idx >= r->n_attrs || k == cap) return false;
      out[k++] = (shl_named_attr){(shl_str){s, len}, NULL, true};
      out[k - 1].attr = (const shl_attr *)(uintptr_t)(idx + 1); /* resolved below */
    }
    s += len;
    while (*s == ' ') s++;
  }
  if (!bc_done(&c)) return false;
  *cnt = k;
  return true;
}

shl_status bc_native_properties(bc_reader *r, const uint8_t *at, shl_str op, const uint8_t *p, size_t n,
                                shl_named_attr *out, uint32_t *cnt, uint32_t cap) {
  bool known = false;
  for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
    if (!str_eq_c(op, layouts[i].op)) continue;
    known = true;
    uint32_t start = *cnt;
    if (!try_layout(r, layouts[i].layout, p, n, out, cnt, cap)) continue;
    for (uint32_t k = start; k < *cnt; k++)
      ST_TRY(bc_attr_at(r, (uint64_t)(uintptr_t)out[k].attr - 1, p, &out[k].attr));
    return NULL;
  }
  if (known) return bc_error(r, at, "the properties of op '%.*s' have a layout shloc does not know", (int)op.n, op.p);
  return bc_error(r, at, "cannot read the properties of op '%.*s'", (int)op.n, op.p);
}
