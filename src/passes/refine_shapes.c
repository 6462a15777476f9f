/* Shape refinement, the driver: copies the entry function into a new module
 * op by op, refining types on the way (refine_rules.c), folding integer
 * shape computations (refine_fold.c), replacing dynamic ops
 * (refine_dynamic.c) and specialising callees and control flow
 * (refine_calls.c); then drops the shape computations nothing reads any
 * more. */
#include "refine_impl.h"

#include <stdlib.h>

shl_op *rf_clone(rf_ctx *c, const shl_op *old, shl_value *const *ops, const shl_type *const *rtypes) {
  const shl_type **rt = NULL;
  if (!rtypes && old->n_results) {
    if (!(rt = ARENA_ARRAY(c->a, const shl_type *, old->n_results))) return NULL;
    for (uint32_t i = 0; i < old->n_results; i++) rt[i] = old->results[i].type;
    rtypes = rt;
  }
  shl_op *op = op_create(c->a, old->def, old->name, old->n_operands, ops, old->n_results, rtypes, old->n_attrs,
                         old->attrs, old->n_regions);
  if (!op) return NULL;
  op->loc = old->loc;
  op->pos = old->pos;
  return op;
}

shl_op *rf_new_op(rf_ctx *c, const shl_op *old, shl_opid id, uint32_t n, shl_value *const *ops, uint32_t n_results,
                  const shl_type *const *rtypes, uint32_t n_attrs, const shl_named_attr *attrs) {
  const shl_opdef *def = &shl_op_table[id];
  shl_op *op = op_create(c->a, def, str_of(def->name), n, ops, n_results, rtypes, n_attrs, attrs, 0);
  if (!op) return NULL;
  op->loc = old->loc;
  op->pos = old->pos;
  return op;
}

static shl_status rf_op(rf_scope *s, const shl_op *old, shl_block *nb) {
  rf_ctx *c = s->c;
  shl_value **ops = ARENA_ARRAY(c->a, shl_value *, old->n_operands + 1);
  if (!ops) return st_oom();
  for (uint32_t i = 0; i < old->n_operands; i++)
    if (!(ops[i] = ptrmap_get(&s->vmap, old->operands[i])))
      return op_error(old, SHLOC_ERR_VERIFY, "operand #%u is not defined before its use", i);
  shl_op *nop = NULL;
  switch (op_id(old)) {
    case OP_FUNC_CALL:
    case OP_COMPOSITE:
      ST_TRY(rf_call(s, old, ops, nb, &nop));
      if (!nop) return NULL; /* inlined */
      break;
    case OP_WHILE:
    case OP_IF:
    case OP_CASE:
      ST_TRY(rf_control(s, old, ops, &nop));
      break;
    case OP_CUSTOM_CALL:
      ST_TRY(rf_custom_call(s, old, ops, nb, &nop));
      if (!nop) return NULL; /* a shape assertion that holds */
      break;
    default:
      if (rf_is_dynamic_op(old)) {
        ST_TRY(rf_dynamic(s, old, ops, nb, &nop));
        break;
      }
      if (!(nop = rf_clone(c, old, ops, NULL))) return st_oom();
      for (uint32_t r = 0; r < old->n_regions; r++) ST_TRY(rf_region(s, old, nop, r, NULL, NULL));
      ST_TRY(rf_infer(c, nop));
  }
  block_append(nb, nop);
  ST_TRY(rf_fold(c, nop));
  for (uint32_t i = 0; i < old->n_results; i++)
    if (!ptrmap_put(&s->vmap, &old->results[i], &nop->results[i])) return st_oom();
  return NULL;
}

shl_status rf_block(rf_scope *s, const shl_block *old, shl_block *nb) {
  for (const shl_op *op = old->first; op; op = op->next) ST_TRY(rf_op(s, op, nb));
  return NULL;
}

shl_status rf_block_body(rf_scope *s, const shl_block *old, shl_block *nb) {
  for (const shl_op *op = old->first; op && op != old->last; op = op->next) ST_TRY(rf_op(s, op, nb));
  return NULL;
}

shl_status rf_region(rf_scope *s, const shl_op *old, shl_op *nop, uint32_t r, const shl_type *const *arg_types,
                     const rf_known *const *known) {
  rf_ctx *c = s->c;
  const shl_region *orr = &old->regions[r];
  shl_region *nr = &nop->regions[r];
  for (uint32_t b = 0; b < orr->n_blocks; b++) {
    const shl_block *ob = orr->blocks[b];
    const shl_type **types = ARENA_ARRAY(c->a, const shl_type *, ob->n_args + 1);
    if (!types) return st_oom();
    for (uint32_t i = 0; i < ob->n_args; i++) types[i] = b == 0 && arg_types ? arg_types[i] : ob->args[i].type;
    shl_block *nb = block_create(c->a, ob->n_args, types);
    if (!nb || !region_append_block(c->a, nr, nb)) return st_oom();
    nb->label = ob->label;
    nb->arg_locs = ob->arg_locs;
    for (uint32_t i = 0; i < ob->n_args; i++) {
      if (!ptrmap_put(&s->vmap, &ob->args[i], &nb->args[i])) return st_oom();
      if (b == 0 && known && known[i] && !rf_set_known(c, &nb->args[i], known[i])) return st_oom();
    }
  }
  for (uint32_t b = 0; b < orr->n_blocks; b++) ST_TRY(rf_block(s, orr->blocks[b], nr->blocks[b]));
  return NULL;
}

/* Whether a refined type fits a declared one: same rank (or declared
 * unranked), equal where the declared dimension is static. */
static bool fits(const shl_type *got, const shl_type *declared) {
  if (got->kind != TY_TENSOR || declared->kind != TY_TENSOR) return type_eq(got, declared);
  if (got->dtype != declared->dtype) return false;
  if (declared->rank < 0) return true;
  if (got->rank != declared->rank) return false;
  for (int32_t k = 0; k < got->rank; k++)
    if (declared->dims[k] != SHL_DYN && declared->dims[k] != got->dims[k]) return false;
  return true;
}

static shl_type *function_type(rf_ctx *c, uint32_t n_in, const shl_type *const *in, uint32_t n_out,
                               const shl_type *const *out) {
  shl_type *t = ARENA_NEW(c->a, shl_type);
  if (!t) return NULL;
  t->kind = TY_FUNCTION;
  t->n_in = n_in;
  t->in = in;
  t->n_out = n_out;
  t->out = out;
  return t;
}

shl_op *rf_refine_func(rf_ctx *c, const shl_op *func, const shl_type *const *arg_types, const rf_known *const *known,
                       shl_str name, shl_status *st) {
  *st = NULL;
  const shl_type *ft = func_type(func);
  if (!ft || !func_body(func)) {
    *st = op_error(func, SHLOC_ERR_UNSUPPORTED, "has no body to refine");
    return NULL;
  }
  shl_op *nf = rf_clone(c, func, NULL, NULL);
  rf_scope s = {.c = c};
  ptrmap_init(&s.vmap, c->a);
  if (!nf) {
    *st = st_oom();
    return NULL;
  }
  if ((*st = rf_region(&s, func, nf, 0, arg_types, known))) return NULL;
  const shl_op *ret = func_body(nf)->last;
  if (!ret || !op_is(ret, OP_FUNC_RETURN) || ret->n_operands != ft->n_out) {
    *st = op_error(func, SHLOC_ERR_VERIFY, "must end with a func.return of %u values", ft->n_out);
    return NULL;
  }
  const shl_type **outs = ARENA_ARRAY(c->a, const shl_type *, ft->n_out + 1);
  shl_type *nft = outs ? function_type(c, ft->n_in, arg_types, ft->n_out, outs) : NULL;
  shl_attr *fta = attr_new(c->a, AT_TYPE), *sym = attr_string(c->a, name);
  if (!nft || !fta || !sym) {
    *st = st_oom();
    return NULL;
  }
  for (uint32_t i = 0; i < ft->n_out; i++) {
    outs[i] = ret->operands[i]->type;
    if (!fits(outs[i], ft->out[i])) {
      char got[256], want[256];
      const shl_type *g = outs[i], *w = ft->out[i];
      *st = op_error(ret, SHLOC_ERR_INVALID_ARG, "result #%u has shape %s after refinement; the function declares %s", i,
                     g->kind == TY_TENSOR ? rf_dims_str(g->rank, g->dims, got, sizeof got) : "(not a tensor)",
                     w->kind == TY_TENSOR ? rf_dims_str(w->rank, w->dims, want, sizeof want) : "(not a tensor)");
      return NULL;
    }
  }
  fta->type = nft;
  if (!op_set_attr(c->a, nf, str_of("function_type"), fta, true) || !op_set_attr(c->a, nf, str_of("sym_name"), sym, true)) {
    *st = st_oom();
    return NULL;
  }
  block_append(c->dst->top->regions[0].blocks[0], nf);
  return nf;
}

/* ---- dead shape computations ---- */

static bool count_uses(shl_ptrmap *uses, const shl_block *b) {
  for (const shl_op *op = b->first; op; op = op->next) {
    for (uint32_t i = 0; i < op->n_operands; i++) {
      uintptr_t n = (uintptr_t)ptrmap_get(uses, op->operands[i]);
      if (!ptrmap_put(uses, op->operands[i], (void *)(n + 1))) return false;
    }
    for (uint32_t r = 0; r < op->n_regions; r++)
      for (uint32_t k = 0; k < op->regions[r].n_blocks; k++)
        if (!count_uses(uses, op->regions[r].blocks[k])) return false;
  }
  return true;
}

static bool removable(const shl_op *op, const shl_ptrmap *uses) {
  if ((op->def->traits & (T_SIDE | T_TERM | T_REGION)) || op_is(op, OP_UNKNOWN) || op_is(op, OP_FUNC_CALL) ||
      !op->n_results)
    return false;
  for (uint32_t i = 0; i < op->n_results; i++)
    if (ptrmap_get(uses, &op->results[i])) return false;
  return true;
}

/* Removes unused ops without side effects, last first, so whole chains of
 * dimension arithmetic go once the dynamic op reading them is static. */
static void drop_dead(shl_ptrmap *uses, shl_block *b) {
  for (shl_op *op = b->last, *prev; op; op = prev) {
    prev = op->prev;
    for (uint32_t r = 0; r < op->n_regions; r++)
      for (uint32_t k = 0; k < op->regions[r].n_blocks; k++) drop_dead(uses, op->regions[r].blocks[k]);
    if (!removable(op, uses)) continue;
    for (uint32_t i = 0; i < op->n_operands; i++) {
      uintptr_t n = (uintptr_t)ptrmap_get(uses, op->operands[i]);
      ptrmap_put(uses, op->operands[i], (void *)(n - 1)); /* present: no allocation */
    }
    block_remove(b, op);
  }
}

/* ---- entry points ---- */

static bool type_dynamic(const shl_type *t) {
  if (t->kind == TY_TENSOR) return !type_is_static(t);
  if (t->kind == TY_TUPLE)
    for (uint32_t i = 0; i < t->n_in; i++)
      if (type_dynamic(t->in[i])) return true;
  return false;
}

static bool block_dynamic(const shl_block *b) {
  for (uint32_t i = 0; i < b->n_args; i++)
    if (type_dynamic(b->args[i].type)) return true;
  for (const shl_op *op = b->first; op; op = op->next) {
    if (rf_is_dynamic_op(op)) return true;
    for (uint32_t i = 0; i < op->n_results; i++)
      if (type_dynamic(op->results[i].type)) return true;
    for (uint32_t r = 0; r < op->n_regions; r++)
      for (uint32_t k = 0; k < op->regions[r].n_blocks; k++)
        if (block_dynamic(op->regions[r].blocks[k])) return true;
  }
  return false;
}

bool refine_needed(const shloc_module *m, const shl_op *func) {
  const shl_type *ft = func_type(func);
  if (ft)
    for (uint32_t i = 0; i < ft->n_in + ft->n_out; i++)
      if (type_dynamic(i < ft->n_in ? ft->in[i] : ft->out[i - ft->n_in])) return true;
  /* Callees: any function of the module (a dynamic one nobody calls only
   * costs a refinement). */
  for (const shl_op *f = m->top->regions[0].n_blocks ? m->top->regions[0].blocks[0]->first : NULL; f; f = f->next)
    if (op_is(f, OP_FUNC) && func_body(f) && block_dynamic(func_body(f))) return true;
  return false;
}

static shl_status check_arg(const shl_op *func, uint32_t i, const shl_type *got, const shl_type *declared) {
  if (got->kind == TY_TENSOR && type_is_static(got) && fits(got, declared)) return NULL;
  if (got->kind != TY_TENSOR && type_eq(got, declared)) return NULL;
  char g[256], w[256];
  return op_error(func, SHLOC_ERR_INVALID_ARG, "argument #%u has shape %s, which the declared %s does not allow", i,
                  got->kind == TY_TENSOR ? rf_dims_str(got->rank, got->dims, g, sizeof g) : "(not a tensor)",
                  declared->kind == TY_TENSOR ? rf_dims_str(declared->rank, declared->dims, w, sizeof w) : "type");
}

static shl_status refine_into(rf_ctx *c, const shl_op *func, const refine_arg *args, uint32_t n_args,
                              refine_result *out) {
  const shl_type *ft = func_type(func);
  if (!ft) return op_error(func, SHLOC_ERR_VERIFY, "has no function type");
  if (n_args != ft->n_in)
    return op_error(func, SHLOC_ERR_INVALID_ARG, "takes %u arguments, got %u", ft->n_in, n_args);
  const shl_type **types = ARENA_ARRAY(c->a, const shl_type *, n_args + 1);
  const rf_known **known = ARENA_ARRAY(c->a, const rf_known *, n_args + 1);
  if (!types || !known) return st_oom();
  for (uint32_t i = 0; i < n_args; i++) {
    const shl_type *t = args[i].type;
    ST_TRY(check_arg(func, i, t, ft->in[i]));
    /* The caller's type may be temporary: the refined module keeps a copy. */
    types[i] = t == ft->in[i] || t->kind != TY_TENSOR ? ft->in[i] : rf_type_like(c, ft->in[i], t->rank, t->dims);
    if (!types[i]) return st_oom();
    int64_t n = t->kind == TY_TENSOR ? type_num_elements(t) : -1;
    /* Small integer arguments may be dimension sizes (JAX's older convention). */
    if (args[i].data && n >= 0 && n <= 16 && dtype_is_int(t->dtype)) {
      known[i] = rf_known_from_bytes(c, t->dtype, n, args[i].data, 1ull << (i < 63 ? i : 63));
      if (!known[i]) return st_oom();
    }
  }
  shl_status st;
  shl_op *nf = rf_refine_func(c, func, types, known, func_sym_name(func), &st);
  if (!nf) return st;
  shl_ptrmap uses;
  ptrmap_init(&uses, c->a);
  for (shl_op *f = c->dst->top->regions[0].blocks[0]->first; f; f = f->next)
    for (uint32_t k = 0; k < f->regions[0].n_blocks; k++)
      if (!count_uses(&uses, f->regions[0].blocks[k])) return st_oom();
  for (shl_op *f = c->dst->top->regions[0].blocks[0]->first; f; f = f->next)
    for (uint32_t k = 0; k < f->regions[0].n_blocks; k++) drop_dead(&uses, f->regions[0].blocks[k]);
  out->func = nf;
  out->value_args = c->used;
  return NULL;
}

shl_status refine_shapes(shloc_module *m, const shl_op *func, const refine_arg *args, uint32_t n_args,
                         refine_result *out) {
  *out = (refine_result){0};
  shloc_module *dst = module_shell(m);
  if (!dst) return st_oom();
  rf_ctx c = {.src = m, .dst = dst, .a = &dst->arena};
  ptrmap_init(&c.known, c.a);
  shl_status st = NULL;
  dst->top = op_create(c.a, m->top->def, m->top->name, 0, NULL, 0, NULL, m->top->n_attrs, m->top->attrs, 1);
  shl_block *body = dst->top ? block_create(c.a, 0, NULL) : NULL;
  if (!body || !region_append_block(c.a, &dst->top->regions[0], body)) st = st_oom();
  if (!st) st = refine_into(&c, func, args, n_args, out);
  if (st) {
    shloc_module_destroy(dst);
    *out = (refine_result){0};
    return st;
  }
  out->module = dst;
  return NULL;
}
