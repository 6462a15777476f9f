/* Shardy's round-trip export form: string attributes parsed on demand. */
#include "sdy_roundtrip.h"

#include <stdlib.h>

#include "text/parse_fragment.h"

/* Strings nested one level deeper in the export (older XLA) escape their
 * quotes once more: `\"a\"` stands for `"a"`. */
static char *unescape(shl_str s, size_t *n) {
  char *t = malloc(s.n + 1);
  if (!t) return NULL;
  size_t j = 0;
  for (size_t i = 0; i < s.n; i++) {
    if (s.p[i] == '\\' && i + 1 < s.n && (s.p[i + 1] == '"' || s.p[i + 1] == '\\')) i++;
    t[j++] = s.p[i];
  }
  t[j] = 0;
  *n = j;
  return t;
}

/* Parses the string `text` as one attribute; errors at op, naming key. */
static shl_status parse_string_once(shloc_module *m, const shl_op *op, const char *key, shl_str text, const shl_attr **out) {
  size_t n;
  char *t = unescape(text, &n);
  if (!t) return st_oom();
  shl_status st = text_parse_attr(m, t, n, out);
  free(t);
  if (!st) return NULL;
  shl_status e = st->line == 1 && st->col > 0
                     ? op_error(op, SHLOC_ERR_VERIFY, "frontend attribute %s, at character %d of its string: %s", key,
                                st->col, shloc_status_message(st))
                     : op_error(op, SHLOC_ERR_VERIFY, "frontend attribute %s: %s", key, shloc_status_message(st));
  shloc_status_free(st);
  return e;
}

/* Each string is parsed once per module (ir.h, parsed_strings). */
static shl_status parse_string(shloc_module *m, const shl_op *op, const char *key, shl_str text, const shl_attr **out) {
  if (!text.p) return parse_string_once(m, op, key, text, out);
  if (!m->parsed_strings.arena) ptrmap_init(&m->parsed_strings, &m->arena);
  if ((*out = ptrmap_get(&m->parsed_strings, text.p))) return NULL;
  ST_TRY(parse_string_once(m, op, key, text, out));
  return ptrmap_put(&m->parsed_strings, text.p, (void *)*out) ? NULL : st_oom();
}

static const char *kind_name(sdy_kind k) {
  switch (k) {
    case SDY_MESH: return "#sdy.mesh<...>";
    case SDY_SHARDING: return "#sdy.sharding<...>";
    case SDY_SHARDING_PER_VALUE: return "#sdy.sharding_per_value<...>";
    case SDY_MANUAL_AXES: return "#sdy<manual_axes{...}>";
  }
  return "an sdy attribute";
}

static bool is_kind(const shl_attr *a, sdy_kind want) {
  switch (want) {
    case SDY_MESH: return sdy_attr_mesh(a) != NULL;
    case SDY_SHARDING: return sdy_attr_sharding(a) != NULL;
    case SDY_SHARDING_PER_VALUE: return sdy_attr_per_value(a) != NULL;
    case SDY_MANUAL_AXES: return sdy_attr_manual_axes(a) != NULL;
  }
  return false;
}

shl_status sdy_rt_parse(shloc_module *m, const shl_op *op, const shl_attr *attrs, const char *key, sdy_kind want,
                        const shl_attr **out) {
  *out = NULL;
  if (!attrs || attrs->kind != AT_DICT) return NULL;
  const shl_attr *s = attr_dict_get(attrs->u.dict.items, attrs->u.dict.n, key);
  if (!s) return NULL;
  if (s->kind != AT_STRING) return op_error(op, SHLOC_ERR_VERIFY, "frontend attribute %s must be a string", key);
  const shl_attr *a;
  ST_TRY(parse_string(m, op, key, s->u.str, &a));
  if (!is_kind(a, want))
    return op_error(op, SHLOC_ERR_VERIFY, "frontend attribute %s must hold %s, not '%.*s'", key, kind_name(want),
                    (int)(s->u.str.n > 80 ? 80 : s->u.str.n), s->u.str.p);
  *out = a;
  return NULL;
}

shl_status sdy_rt_op_attr(shloc_module *m, const shl_op *op, const char *key, sdy_kind want, const shl_attr **out) {
  return sdy_rt_parse(m, op, op_attr(op, "mhlo.frontend_attributes"), key, want, out);
}

/* Mesh `name` of the module's xla.sdy.meshes, a string holding a dictionary
 * from names to meshes; *out = NULL when it has none of that name. */
static shl_status meshes_entry(shloc_module *m, const shl_op *op, shl_str name, const sdy_mesh **out) {
  *out = NULL;
  const shl_attr *fa = op_attr(m->top, "mhlo.frontend_attributes");
  const shl_attr *s = fa && fa->kind == AT_DICT ? attr_dict_get(fa->u.dict.items, fa->u.dict.n, "xla.sdy.meshes") : NULL;
  if (!s) return NULL;
  const shl_attr *d = NULL;
  if (s->kind == AT_STRING) ST_TRY(parse_string(m, op, "xla.sdy.meshes (on the module)", s->u.str, &d));
  if (!d || d->kind != AT_DICT)
    return op_error(op, SHLOC_ERR_VERIFY, "the module's frontend attribute xla.sdy.meshes must be a string holding "
                                          "{name = #sdy.mesh<...>, ...}");
  for (uint32_t i = 0; i < d->u.dict.n; i++) {
    if (!str_eq(d->u.dict.items[i].name, name)) continue;
    const shl_attr *v = d->u.dict.items[i].attr;
    if (v->kind == AT_STRING) /* older form: each mesh a string of its own */
      ST_TRY(parse_string(m, op, "xla.sdy.meshes (on the module)", v->u.str, &v));
    if (!sdy_attr_mesh(v))
      return op_error(op, SHLOC_ERR_VERIFY, "xla.sdy.meshes: entry '%.*s' is not a #sdy.mesh<...>", (int)name.n,
                      name.p);
    *out = sdy_attr_mesh(v);
    return sdy_verify_mesh(op, *out);
  }
  return NULL;
}

shl_status sdy_rt_sharding_mesh(shloc_module *m, const shl_op *op, const char *what, const sdy_sharding *s,
                                const sdy_mesh **out) {
  if (!s->mesh && !sdy_module_mesh(m, s->mesh_name)) {
    ST_TRY(meshes_entry(m, op, s->mesh_name, out));
    if (*out) return NULL;
  }
  return sdy_sharding_mesh(m, op, what, s, out);
}
