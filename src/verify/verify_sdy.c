/* Shardy ops: sdy.mesh, the one-value annotations, sdy.manual_computation
 * and sdy.named_computation (bodies ending in sdy.return).  Sharding and
 * mesh rules themselves are in src/dialects/sdy. */
#include "dialects/sdy/sdy.h"
#include "rules.h"

shl_status verify_sdy_mesh(const verify_ctx *vc, const shl_op *op) {
  ST_TRY(vfy_count(op, 0, 0, 0));
  const shl_op *parent = op->block && op->block->region ? op->block->region->parent : NULL;
  if (!parent || !op_is(parent, OP_MODULE)) return VFY_ERR(op, "must be at the top level of a module");
  const shl_attr *sym = op_attr(op, "sym_name");
  if (!sym || sym->kind != AT_STRING) return VFY_ERR(op, "requires a string attribute 'sym_name'");
  const sdy_mesh *mesh = sdy_attr_mesh(op_attr(op, "mesh"));
  if (!mesh) return VFY_ERR(op, "requires a #sdy.mesh attribute 'mesh'");
  ST_TRY(sdy_verify_mesh(op, mesh));
  if (sdy_module_mesh(vc->m, sym->u.str) != mesh)
    return VFY_ERR(op, "redefinition of mesh @%.*s", (int)sym->u.str.n, sym->u.str.p);
  return NULL;
}

/* One operand and `n_results` results of its type. */
static shl_status one_value(const shl_op *op, uint32_t n_results) {
  ST_TRY(vfy_count(op, 1, 1, n_results));
  if (n_results && !type_eq(vfy_otype(op, 0), vfy_rtype(op, 0)))
    return VFY_ERR(op, "result type %s must equal the operand type %s", vfy_tstr(vfy_rtype(op, 0)),
                   vfy_tstr(vfy_otype(op, 0)));
  return NULL;
}

/* The sharding a value carries: a function argument's sdy.sharding, the
 * sharding of an sdy annotation, or its op's sdy.sharding; NULL if none. */
static const sdy_sharding *value_sharding(const shl_value *v) {
  if (!v->def) {
    const shl_op *f = v->block && v->block->region ? v->block->region->parent : NULL;
    const shl_attr *args = f && op_is(f, OP_FUNC) && v->block == v->block->region->blocks[0] ? op_attr(f, "arg_attrs") : NULL;
    if (!args || args->kind != AT_ARRAY || v->index >= args->u.arr.n || args->u.arr.items[v->index]->kind != AT_DICT)
      return NULL;
    const shl_attr *d = args->u.arr.items[v->index];
    return sdy_attr_sharding(attr_dict_get(d->u.dict.items, d->u.dict.n, "sdy.sharding"));
  }
  if (op_is(v->def, OP_SDY_SHARDING_CONSTRAINT) || op_is(v->def, OP_SDY_RESHARD))
    return sdy_attr_sharding(op_attr(v->def, "sharding"));
  const sdy_sharding_per_value *pv = sdy_attr_per_value(op_attr(v->def, "sdy.sharding"));
  return pv && v->index < pv->n ? pv->v[v->index] : NULL;
}

static bool has_unreduced(const sdy_sharding *s, shl_str axis) {
  for (uint32_t i = 0; s && i < s->n_unreduced; i++)
    if (str_eq(s->unreduced[i].name, axis)) return true;
  return false;
}

static const char *reduction_name(sdy_reduction r) {
  return r == SDY_REDUCE_MAX ? "max" : r == SDY_REDUCE_MIN ? "min" : "sum";
}

/* Unreduced axes kept from the operand keep their reduction; new ones are summed. */
static shl_status check_unreduced(const shl_op *op, const sdy_sharding *in, const sdy_sharding *out) {
  for (uint32_t i = 0; i < out->n_unreduced; i++) {
    bool kept = has_unreduced(in, out->unreduced[i].name);
    if (kept && in->reduction != out->reduction)
      return VFY_ERR(op, "cannot change the reduction operator of kept unreduced axes from %s to %s.",
                     reduction_name(in->reduction), reduction_name(out->reduction));
    if (!kept && out->reduction != SDY_REDUCE_SUM)
      return VFY_ERR(op, "cannot introduce '%s' unreduced axes. Expected 'sum'.", reduction_name(out->reduction));
  }
  return NULL;
}

shl_status verify_sdy_sharded_value(const verify_ctx *vc, const shl_op *op) {
  ST_TRY(one_value(op, 1));
  const sdy_sharding *s = sdy_attr_sharding(op_attr(op, "sharding"));
  if (!s) return VFY_ERR(op, "requires a #sdy.sharding attribute 'sharding'");
  ST_TRY(sdy_verify_sharding(vc->m, op, "sharding", s, vfy_otype(op, 0)));
  return check_unreduced(op, value_sharding(op->operands[0]), s);
}

shl_status verify_sdy_propagation_barrier(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(one_value(op, 1));
  ST_TRY(vfy_tensor(op, vfy_otype(op, 0), "operand", 0));
  static const char *const dirs[] = {"NONE", "FORWARD", "BACKWARD", "BOTH", NULL};
  int dir;
  ST_TRY(vfy_enum_attr(op, "allowed_direction", false, dirs, &dir));
  if (dir == 3) return VFY_ERR(op, "cannot specify `BOTH` as the direction (it would not block propagation)");
  return NULL;
}

shl_status verify_sdy_sharding_group(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(one_value(op, 0));
  ST_TRY(vfy_tensor(op, vfy_otype(op, 0), "operand", 0));
  int64_t id;
  return vfy_int_attr(op, "group_id", false, 0, &id);
}

shl_status verify_sdy_return(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  const shl_op *p = op->block && op->block->region ? op->block->region->parent : NULL;
  if (op->n_results) return VFY_ERR(op, "has no results");
  if (!p || !(op_is(p, OP_SDY_MANUAL_COMPUTATION) || op_is(p, OP_SDY_NAMED_COMPUTATION)))
    return VFY_ERR(op, "must end the body of an sdy.manual_computation or sdy.named_computation");
  return NULL; /* operand types are checked by the parent's rule */
}

/* Shardings per value: `n` of them, each valid for types[i] (NULL = absent and optional). */
static shl_status check_shardings(const verify_ctx *vc, const shl_op *op, const char *name, bool optional,
                                  uint32_t n, shl_value *const *values, const shl_value *results,
                                  const sdy_sharding_per_value **out) {
  const shl_attr *a = op_attr(op, name);
  *out = NULL;
  if (!a && optional) return NULL;
  const sdy_sharding_per_value *pv = sdy_attr_per_value(a);
  if (!pv) return VFY_ERR(op, "requires a #sdy.sharding_per_value attribute '%s'", name);
  if (pv->n != n) return VFY_ERR(op, "%s has %u shardings for %u values", name, pv->n, n);
  for (uint32_t i = 0; i < n; i++) {
    const shl_type *t = values ? values[i]->type : results[i].type;
    ST_TRY(sdy_verify_sharding(vc->m, op, vfy_fmt("%s[%u]", name, i), pv->v[i], t));
  }
  *out = pv;
  return NULL;
}

/* Whether value v is defined inside region r (the computations are isolated
 * from above; they are not T_ISO in ops.def because the printer numbers
 * their values on from the enclosing function's, as MLIR does). */
static bool defined_in(const shl_value *v, const shl_region *r) {
  const shl_block *b = v->def ? v->def->block : v->block;
  while (b && b->region) {
    if (b->region == r) return true;
    const shl_op *parent = b->region->parent;
    b = parent ? parent->block : NULL;
  }
  return false;
}

static shl_status check_isolated(const shl_op *op, const shl_region *r) {
  for (uint32_t k = 0; k < r->n_blocks; k++)
    for (const shl_op *o = r->blocks[k]->first; o; o = o->next) {
      for (uint32_t i = 0; i < o->n_operands; i++)
        if (!defined_in(o->operands[i], &op->regions[0]))
          return op_error(o, SHLOC_ERR_VERIFY, "uses a value defined outside the region of its %s (isolated from above)",
                          op_name_cstr(op));
      for (uint32_t g = 0; g < o->n_regions; g++) ST_TRY(check_isolated(op, &o->regions[g]));
    }
  return NULL;
}

/* The body's argument and result counts match the op's. */
static shl_status check_body(const shl_op *op, const shl_block **blk, const shl_op **term) {
  ST_TRY(vfy_region(op, 0, OP_SDY_RETURN, blk, term));
  ST_TRY(check_isolated(op, &op->regions[0]));
  if ((*blk)->n_args != op->n_operands)
    return VFY_ERR(op, "the body has %u arguments for %u operands", (*blk)->n_args, op->n_operands);
  if ((*term)->n_operands != op->n_results)
    return VFY_ERR(op, "the body returns %u values for %u results", (*term)->n_operands, op->n_results);
  return NULL;
}

shl_status verify_sdy_named_computation(const verify_ctx *vc, const shl_op *op) {
  const shl_attr *name = op_attr(op, "name");
  if (!name || name->kind != AT_STRING) return VFY_ERR(op, "requires a string attribute 'name'");
  const sdy_sharding_per_value *in, *out;
  ST_TRY(check_shardings(vc, op, "in_shardings", true, op->n_operands, op->operands, NULL, &in));
  ST_TRY(check_shardings(vc, op, "out_shardings", true, op->n_results, NULL, op->results, &out));
  const shl_block *b;
  const shl_op *term;
  ST_TRY(check_body(op, &b, &term));
  for (uint32_t i = 0; i < op->n_operands; i++)
    if (!type_eq(b->args[i].type, vfy_otype(op, i)))
      return VFY_ERR(op, "body argument #%u has type %s, but operand #%u has type %s", i, vfy_tstr(b->args[i].type), i,
                     vfy_tstr(vfy_otype(op, i)));
  for (uint32_t i = 0; i < op->n_results; i++)
    if (!type_eq(vfy_otype(term, i), vfy_rtype(op, i)))
      return VFY_ERR(op, "the body returns %s as value #%u, but result #%u has type %s", vfy_tstr(vfy_otype(term, i)), i,
                     i, vfy_tstr(vfy_rtype(op, i)));
  return NULL;
}

static bool is_manual(const sdy_manual_axes *ma, shl_str axis) {
  for (uint32_t i = 0; i < ma->n; i++)
    if (str_eq(ma->names[i], axis)) return true;
  return false;
}

/* The local (per-device) type of a global value: each dimension divided by
 * the sizes of the manual axes sharding it; other types stay as they are. */
static shl_status check_local(const verify_ctx *vc, const shl_op *op, const char *what, uint32_t i,
                              const sdy_sharding *s, const sdy_manual_axes *ma, const shl_type *global,
                              const shl_type *local) {
  if (global->kind != TY_TENSOR || local->kind != TY_TENSOR || global->rank < 0) {
    if (!type_eq(global, local)) goto mismatch;
    return NULL;
  }
  const sdy_mesh *mesh;
  ST_TRY(sdy_sharding_mesh(vc->m, op, what, s, &mesh));
  if (local->rank != global->rank || local->dtype != global->dtype || (uint32_t)global->rank != s->rank) goto mismatch;
  for (int d = 0; d < global->rank; d++) {
    int64_t div = 1;
    for (uint32_t k = 0; k < s->dims[d].n_axes; k++) {
      const sdy_axis_ref *r = &s->dims[d].axes[k];
      if (is_manual(ma, r->name)) div *= r->size ? r->size : sdy_mesh_axis_size(mesh, r->name);
    }
    int64_t g = global->dims[d], l = local->dims[d];
    if (g < 0 || l < 0) {
      if ((g < 0) != (l < 0)) goto mismatch;
      continue;
    }
    if (div <= 0 || g % div || g / div != l) goto mismatch;
  }
  return NULL;
mismatch:
  return VFY_ERR(op, "%s #%u: global type %s with sharding %s does not give the local type %s", what, i,
                 vfy_tstr(global), s->mesh_name.n ? "on its mesh" : "on its inline mesh", vfy_tstr(local));
}

/* Manual axes: of the one mesh all shardings use, not manual already in an
 * enclosing manual computation, and before the free axes of every dimension. */
static shl_status check_manual_axes(const verify_ctx *vc, const shl_op *op, const sdy_manual_axes *ma,
                                    const sdy_sharding_per_value *in, const sdy_sharding_per_value *out) {
  const sdy_mesh *mesh = NULL;
  for (uint32_t i = 0; i < in->n + out->n; i++) {
    const sdy_sharding *s = i < in->n ? in->v[i] : out->v[i - in->n];
    const sdy_mesh *m;
    ST_TRY(sdy_sharding_mesh(vc->m, op, i < in->n ? "in_shardings" : "out_shardings", s, &m));
    if (!m->n_axes && !m->n_device_ids) continue; /* the empty mesh goes with any */
    if (mesh && m != mesh) return VFY_ERR(op, "all in and out shardings must be bound to the same mesh or an empty mesh");
    mesh = m;
    for (uint32_t d = 0; d < s->rank; d++)
      for (uint32_t k = 1; k < s->dims[d].n_axes; k++) {
        const sdy_axis_ref *prev = &s->dims[d].axes[k - 1], *cur = &s->dims[d].axes[k];
        if (is_manual(ma, cur->name) && !is_manual(ma, prev->name))
          return VFY_ERR(op, "%s sharding at index %u must have all manual axes come before free axes in its dimension "
                         "sharding at index %u. Saw manual axis \"%.*s\" after free axis \"%.*s\"",
                         i < in->n ? "operand" : "result", i < in->n ? i : i - in->n, d, (int)cur->name.n, cur->name.p,
                         (int)prev->name.n, prev->name.p);
      }
  }
  for (uint32_t k = 0; k < ma->n; k++) {
    if (mesh && sdy_mesh_axis_size(mesh, ma->names[k]) < 0)
      return VFY_ERR(op, "unknown manual axis: \"%.*s\"", (int)ma->names[k].n, ma->names[k].p);
    for (const shl_op *p = op->block && op->block->region ? op->block->region->parent : NULL; p;
         p = p->block && p->block->region ? p->block->region->parent : NULL) {
      const sdy_manual_axes *outer = op_is(p, OP_SDY_MANUAL_COMPUTATION) ? sdy_attr_manual_axes(op_attr(p, "manual_axes")) : NULL;
      if (outer && is_manual(outer, ma->names[k]))
        return VFY_ERR(op, "operates on axis \"%.*s\" which is already bound by a parent sdy.manual_computation op",
                       (int)ma->names[k].n, ma->names[k].p);
    }
  }
  return NULL;
}

shl_status verify_sdy_manual_computation(const verify_ctx *vc, const shl_op *op) {
  const sdy_sharding_per_value *in, *out;
  ST_TRY(check_shardings(vc, op, "in_shardings", false, op->n_operands, op->operands, NULL, &in));
  ST_TRY(check_shardings(vc, op, "out_shardings", false, op->n_results, NULL, op->results, &out));
  const sdy_manual_axes *ma = sdy_attr_manual_axes(op_attr(op, "manual_axes"));
  if (!ma) return VFY_ERR(op, "requires a #sdy<manual_axes> attribute 'manual_axes'");
  const shl_block *b;
  const shl_op *term;
  ST_TRY(check_body(op, &b, &term));
  ST_TRY(check_manual_axes(vc, op, ma, in, out));
  for (uint32_t i = 0; i < op->n_operands; i++)
    ST_TRY(check_local(vc, op, "operand", i, in->v[i], ma, vfy_otype(op, i), b->args[i].type));
  for (uint32_t i = 0; i < op->n_results; i++)
    ST_TRY(check_local(vc, op, "result", i, out->v[i], ma, vfy_rtype(op, i), vfy_otype(term, i)));
  return NULL;
}
