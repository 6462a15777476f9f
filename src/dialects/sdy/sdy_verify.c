/* Shardy verification: meshes, shardings against their mesh and the type
 * they annotate, and the sdy.* attributes any op or function may carry.
 * The rules are Shardy's (verifiers.cc); messages name the op and the
 * annotated value. */
#include <stdio.h>
#include <stdlib.h>

#include "sdy.h"

#define ERR(op, ...) op_error((op), SHLOC_ERR_VERIFY, __VA_ARGS__)

shl_status sdy_verify_mesh(const shl_op *op, const sdy_mesh *mesh) {
  for (uint32_t i = 0; i < mesh->n_axes; i++) {
    if (mesh->axes[i].size < 1)
      return ERR(op, "mesh axis \"%.*s\": axis size must be at least 1, got: %lld", (int)mesh->axes[i].name.n,
                 mesh->axes[i].name.p, (long long)mesh->axes[i].size);
    for (uint32_t j = 0; j < i; j++)
      if (str_eq(mesh->axes[i].name, mesh->axes[j].name))
        return ERR(op, "duplicate axis name: \"%.*s\"", (int)mesh->axes[i].name.n, mesh->axes[i].name.p);
  }
  for (uint32_t i = 0; i < mesh->n_device_ids; i++)
    if (mesh->device_ids[i] < 0)
      return ERR(op, "device id must be non-negative, got: %lld", (long long)mesh->device_ids[i]);
  if (!mesh->n_axes) {
    if (mesh->n_device_ids > 1) return ERR(op, "axes is empty and device_ids has more than one element (%u)", mesh->n_device_ids);
    return NULL;
  }
  int64_t total = sdy_mesh_devices(mesh);
  if (total < 0) return ERR(op, "the product of the mesh axis sizes overflows");
  if (!mesh->n_device_ids) return NULL;
  if ((int64_t)mesh->n_device_ids != total)
    return ERR(op, "total product of axis sizes must match total number of device ids, got: %lld != %u", (long long)total,
               mesh->n_device_ids);
  /* The sorted ids must be iota(total): each id in range, none twice. */
  uint8_t *seen = calloc((size_t)total, 1);
  if (!seen) return st_oom();
  shl_status st = NULL;
  for (uint32_t i = 0; i < mesh->n_device_ids && !st; i++) {
    int64_t d = mesh->device_ids[i];
    if (d >= total || seen[d]) st = ERR(op, "sorted device ids must be iota(product(axes)) = 0..%lld", (long long)(total - 1));
    else seen[d] = 1;
  }
  free(seen);
  return st;
}

shl_status sdy_sharding_mesh(const shloc_module *m, const shl_op *op, const char *what, const sdy_sharding *s,
                             const sdy_mesh **out) {
  *out = s->mesh ? s->mesh : sdy_module_mesh(m, s->mesh_name);
  if (!*out) return ERR(op, "%s: unknown mesh: @%.*s", what, (int)s->mesh_name.n, s->mesh_name.p);
  if (s->mesh) return sdy_verify_mesh(op, s->mesh);
  /* The sdy.mesh op has its own rule, which may run later (symbols can be
   * used before their definition); the sizes products below rely on this. */
  if (sdy_mesh_devices(*out) < 0)
    return ERR(op, "%s: mesh @%.*s has an axis size below 1 or too many devices", what, (int)s->mesh_name.n,
               s->mesh_name.p);
  return NULL;
}

/* Size of an axis reference in `mesh` (checks the name and the sub-axis). */
static shl_status axis_size(const shl_op *op, const char *what, const sdy_mesh *mesh, const sdy_axis_ref *r,
                            int64_t *size) {
  int64_t full = sdy_mesh_axis_size(mesh, r->name);
  if (full < 0) return ERR(op, "%s: unknown axis name: \"%.*s\"", what, (int)r->name.n, r->name.p);
  if (!r->size) {
    *size = full;
    return NULL;
  }
  if (r->pre_size < 1 || r->size <= 1 || r->size >= full || full % r->pre_size || (full / r->pre_size) % r->size)
    return ERR(op, "%s: invalid sub-axis \"%.*s\":(%lld)%lld of an axis of size %lld", what, (int)r->name.n, r->name.p,
               (long long)r->pre_size, (long long)r->size, (long long)full);
  *size = r->size;
  return NULL;
}

/* Two references to the same axis: equal, full and sub-axis, or
 * overlapping sub-axes ([pre, pre * size) intervals of the axis). */
static shl_status check_pair(const shl_op *op, const char *what, const sdy_axis_ref *a, const sdy_axis_ref *b) {
  if (!str_eq(a->name, b->name)) return NULL;
  if (!a->size && !b->size) return ERR(op, "%s: duplicate axis ref: \"%.*s\"", what, (int)a->name.n, a->name.p);
  if (!a->size || !b->size)
    return ERR(op, "%s: both sub-axis and full-axis are used for axis name: \"%.*s\"", what, (int)a->name.n, a->name.p);
  if (a->pre_size < b->pre_size * b->size && b->pre_size < a->pre_size * a->size)
    return ERR(op, "%s: overlapping sub-axes: \"%.*s\":(%lld)%lld, \"%.*s\":(%lld)%lld", what, (int)a->name.n, a->name.p,
               (long long)a->pre_size, (long long)a->size, (int)b->name.n, b->name.p, (long long)b->pre_size,
               (long long)b->size);
  return NULL;
}

/* Position of an axis in the mesh, for ordering replicated and unreduced axes. */
static uint32_t axis_index(const sdy_mesh *mesh, shl_str name) {
  for (uint32_t i = 0; i < mesh->n_axes; i++)
    if (str_eq(mesh->axes[i].name, name)) return i;
  return mesh->n_axes;
}

/* Replicated and unreduced axes are listed in mesh order (sub-axes by pre-size). */
static shl_status check_order(const shl_op *op, const char *what, const char *list, const sdy_mesh *mesh,
                              const sdy_axis_ref *v, uint32_t n) {
  for (uint32_t i = 1; i < n; i++) {
    uint32_t x = axis_index(mesh, v[i - 1].name), y = axis_index(mesh, v[i].name);
    if (x > y || (x == y && v[i - 1].pre_size >= v[i].pre_size))
      return ERR(op, "%s: %s axes are not ordered w.r.t. mesh", what, list);
  }
  return NULL;
}

/* Checks a list of axis refs against the mesh and the refs used before it;
 * *product is the product of their sizes. */
static shl_status check_list(const shl_op *op, const char *what, const sdy_mesh *mesh, const sdy_axis_ref *v,
                             uint32_t n, const sdy_axis_ref **used, uint32_t *n_used, int64_t *product) {
  *product = 1;
  for (uint32_t i = 0; i < n; i++) {
    int64_t size = 1;
    ST_TRY(axis_size(op, what, mesh, &v[i], &size));
    for (uint32_t j = 0; j < *n_used; j++) ST_TRY(check_pair(op, what, used[j], &v[i]));
    used[(*n_used)++] = &v[i];
    *product *= size;
  }
  return NULL;
}

/* An axis that an enclosing sdy.manual_computation is manual on can not be
 * used again inside it. */
static shl_status check_unbound(const shl_op *op, const char *what, const sdy_axis_ref *const *used, uint32_t n) {
  for (const shl_op *p = op->block && op->block->region ? op->block->region->parent : NULL; p;
       p = p->block && p->block->region ? p->block->region->parent : NULL) {
    if (!op_is(p, OP_SDY_MANUAL_COMPUTATION)) continue;
    const sdy_manual_axes *ma = sdy_attr_manual_axes(op_attr(p, "manual_axes"));
    for (uint32_t k = 0; ma && k < ma->n; k++)
      for (uint32_t i = 0; i < n; i++)
        if (str_eq(used[i]->name, ma->names[k]))
          return ERR(op, "%s: operates on axis \"%.*s\" which is already bound by a parent sdy.manual_computation op",
                     what, (int)ma->names[k].n, ma->names[k].p);
  }
  return NULL;
}

shl_status sdy_verify_sharding(const shloc_module *m, const shl_op *op, const char *what, const sdy_sharding *s,
                               const shl_type *t) {
  const sdy_mesh *mesh;
  ST_TRY(sdy_sharding_mesh(m, op, what, s, &mesh));
  /* A single-element tuple is sharded like its element. */
  if (t->kind == TY_TUPLE && t->n_in == 1) t = t->in[0];
  bool maximal = !mesh->n_axes && mesh->n_device_ids == 1;
  if ((maximal || t->kind != TY_TENSOR) && (s->rank || s->n_replicated || s->n_unreduced))
    return ERR(op, "%s: %s can only have a sharding of rank 0 without replicated or unreduced axes", what,
               maximal ? "a maximal-sharding mesh" : "a value that is not a tensor");
  if (t->kind != TY_TENSOR) return NULL;
  if (t->rank < 0) return ERR(op, "%s: only ranked tensors can have a sharding", what);
  if ((uint32_t)t->rank != s->rank)
    return ERR(op, "%s: sharding doesn't match tensor rank: %u != %d", what, s->rank, t->rank);
  ST_TRY(check_order(op, what, "replicated", mesh, s->replicated, s->n_replicated));
  ST_TRY(check_order(op, what, "unreduced", mesh, s->unreduced, s->n_unreduced));
  uint32_t total = s->n_replicated + s->n_unreduced, n_used = 0;
  for (uint32_t d = 0; d < s->rank; d++) total += s->dims[d].n_axes;
  const sdy_axis_ref **used = malloc((total + 1) * sizeof *used);
  if (!used) return st_oom();
  shl_status st = NULL;
  int64_t product;
  for (uint32_t d = 0; d < s->rank && !st; d++) {
    const sdy_dim_sharding *ds = &s->dims[d];
    if (ds->priority >= 0 && ds->closed && !ds->n_axes) {
      st = ERR(op, "%s: dim %u is empty and closed but has a priority", what, d);
      break;
    }
    st = check_list(op, what, mesh, ds->axes, ds->n_axes, used, &n_used, &product);
    if (!st && t->dims[d] >= 0 && t->dims[d] % product)
      st = ERR(op, "%s: dim %u with size %lld is not divisible by its sharded size %lld", what, d, (long long)t->dims[d],
               (long long)product);
  }
  if (!st) st = check_list(op, what, mesh, s->replicated, s->n_replicated, used, &n_used, &product);
  if (!st) st = check_list(op, what, mesh, s->unreduced, s->n_unreduced, used, &n_used, &product);
  if (!st) st = check_unbound(op, what, used, n_used);
  free(used);
  return st;
}

/* The type a function argument or result attribute dictionary annotates. */
static shl_status check_value_dict(const shloc_module *m, const shl_op *op, const shl_attr *dict, const shl_type *t,
                                   const char *kind, uint32_t i) {
  if (!dict || dict->kind != AT_DICT) return NULL;
  const shl_attr *a = attr_dict_get(dict->u.dict.items, dict->u.dict.n, "sdy.sharding");
  if (!a) return NULL;
  char what[64];
  snprintf(what, sizeof what, "sdy.sharding of %s #%u", kind, i);
  const sdy_sharding *s = sdy_attr_sharding(a);
  if (!s) return ERR(op, "%s must be a #sdy.sharding attribute", what);
  return sdy_verify_sharding(m, op, what, s, t);
}

shl_status sdy_verify_op_attrs(const shloc_module *m, const shl_op *op) {
  if (op_is(op, OP_FUNC)) {
    const shl_type *ft = func_type(op);
    if (!ft || ft->kind != TY_FUNCTION) return NULL;
    const shl_attr *args = op_attr(op, "arg_attrs"), *res = op_attr(op, "res_attrs");
    for (uint32_t i = 0; args && args->kind == AT_ARRAY && i < args->u.arr.n && i < ft->n_in; i++)
      ST_TRY(check_value_dict(m, op, args->u.arr.items[i], ft->in[i], "argument", i));
    for (uint32_t i = 0; res && res->kind == AT_ARRAY && i < res->u.arr.n && i < ft->n_out; i++)
      ST_TRY(check_value_dict(m, op, res->u.arr.items[i], ft->out[i], "result", i));
    return NULL;
  }
  const shl_attr *a = op_attr(op, "sdy.sharding");
  if (!a) return NULL;
  const sdy_sharding_per_value *pv = sdy_attr_per_value(a);
  if (!pv) return ERR(op, "sdy.sharding must be a #sdy.sharding_per_value attribute");
  /* An op without results may carry one sharding of rank 0 (its placement). */
  if (!op->n_results && pv->n == 1) {
    static const shl_type scalar = {.kind = TY_TENSOR, .rank = 0};
    return sdy_verify_sharding(m, op, "sdy.sharding", pv->v[0], &scalar);
  }
  if (pv->n != op->n_results)
    return ERR(op, "sdy.sharding has %u shardings for %u results", pv->n, op->n_results);
  for (uint32_t i = 0; i < pv->n; i++) {
    char what[64];
    snprintf(what, sizeof what, "sdy.sharding of result #%u", i);
    ST_TRY(sdy_verify_sharding(m, op, what, pv->v[i], op->results[i].type));
  }
  return NULL;
}
