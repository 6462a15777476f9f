/* Shardy attributes: access to the parsed forms, meshes of a module. */
#include "sdy.h"

static const void *parsed_of(const shl_attr *a, sdy_kind k) {
  if (!a || a->kind != AT_OPAQUE || !a->u.opq.parsed || !str_starts(a->u.opq.text, "#sdy")) return NULL;
  const sdy_kind *pk = a->u.opq.parsed;
  return *pk == k ? a->u.opq.parsed : NULL;
}

const sdy_mesh *sdy_attr_mesh(const shl_attr *a) { return parsed_of(a, SDY_MESH); }
const sdy_sharding *sdy_attr_sharding(const shl_attr *a) { return parsed_of(a, SDY_SHARDING); }
const sdy_sharding_per_value *sdy_attr_per_value(const shl_attr *a) { return parsed_of(a, SDY_SHARDING_PER_VALUE); }
const sdy_manual_axes *sdy_attr_manual_axes(const shl_attr *a) { return parsed_of(a, SDY_MANUAL_AXES); }

shl_str sdy_attr_stripped(const shl_attr *a) {
  static const struct {
    sdy_kind kind;
    const char *prefix, *suffix; /* around the stripped text */
  } forms[] = {{SDY_MESH, "#sdy.mesh", ""},
               {SDY_SHARDING, "#sdy.sharding", ""},
               {SDY_SHARDING_PER_VALUE, "#sdy.sharding_per_value<", ">"},
               {SDY_MANUAL_AXES, "#sdy<manual_axes", ">"}};
  shl_str t = a->u.opq.text;
  for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
    if (!parsed_of(a, forms[i].kind)) continue;
    size_t pre = strlen(forms[i].prefix), suf = strlen(forms[i].suffix);
    return (shl_str){t.p + pre, t.n - pre - suf};
  }
  return t;
}

int64_t sdy_mesh_axis_size(const sdy_mesh *m, shl_str name) {
  for (uint32_t i = 0; i < m->n_axes; i++)
    if (str_eq(m->axes[i].name, name)) return m->axes[i].size;
  return -1;
}

int64_t sdy_mesh_devices(const sdy_mesh *m) {
  int64_t n = 1;
  for (uint32_t i = 0; i < m->n_axes; i++) {
    if (m->axes[i].size <= 0 || n > INT64_MAX / m->axes[i].size) return -1;
    n *= m->axes[i].size;
  }
  return n;
}

const sdy_mesh *sdy_module_mesh(const shloc_module *m, shl_str name) {
  if (!m->top || !m->top->n_regions || !m->top->regions[0].n_blocks) return NULL;
  for (const shl_op *op = m->top->regions[0].blocks[0]->first; op; op = op->next) {
    if (!op_is(op, OP_SDY_MESH)) continue;
    const shl_attr *sym = op_attr(op, "sym_name");
    if (sym && sym->kind == AT_STRING && str_eq(sym->u.str, name)) return sdy_attr_mesh(op_attr(op, "mesh"));
  }
  return NULL;
}
