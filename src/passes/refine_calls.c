/* Shape refinement, calls and regions: a callee is copied once per distinct
 * signature of refined argument types and known (dimension) argument values,
 * as stablehlo-refine-shapes specialises per call site; while/if/case
 * regions are refined with their operands' types; custom calls check JAX's
 * shape assertions and take result shapes from shape operands. */
#include "refine_impl.h"

#include <stdio.h>
#include <stdlib.h>

#include "targets/jax/annotations.h"

static bool known_eq(const rf_known *a, const rf_known *b) {
  if (!a || !b) return a == b;
  if (a->n != b->n) return false;
  for (int64_t i = 0; i < a->n; i++)
    if (a->v[i] != b->v[i]) return false;
  return true;
}

static rf_spec *spec_find(rf_ctx *c, const shl_op *callee, uint32_t n, shl_value *const *ops) {
  for (rf_spec *sp = c->specs; sp; sp = sp->next) {
    if (sp->callee != callee) continue;
    bool same = true;
    for (uint32_t i = 0; same && i < n; i++)
      same = type_eq(sp->arg_types[i], ops[i]->type) && known_eq(sp->arg_known[i], rf_known_of(c, ops[i]));
    if (same) return sp;
  }
  return NULL;
}

static bool name_taken(rf_ctx *c, shl_str name) { return module_find_func(c->dst, name) || module_find_func(c->src, name); }

/* The callee's own name for its first copy, then name.r1, name.r2, ... */
static shl_str spec_name(rf_ctx *c, shl_str base) {
  if (!module_find_func(c->dst, base)) return base;
  for (uint32_t k = 1;; k++) {
    char buf[32];
    int len = snprintf(buf, sizeof buf, ".r%u", k);
    char *s = arena_alloc(c->a, base.n + (size_t)len + 1);
    if (!s) return (shl_str){NULL, 0};
    memcpy(s, base.p, base.n);
    memcpy(s + base.n, buf, (size_t)len + 1);
    shl_str name = {s, base.n + (size_t)len};
    if (!name_taken(c, name)) return name;
  }
}

static shl_attr *symref(rf_ctx *c, shl_str name) {
  shl_attr *a = attr_new(c->a, AT_SYMREF);
  char *text = arena_alloc(c->a, name.n + 4);
  if (!a || !text) return NULL;
  /* Quoted, so any name prints back as a valid symbol. */
  text[0] = '@';
  text[1] = '"';
  memcpy(text + 2, name.p, name.n);
  text[name.n + 2] = '"';
  a->u.sym.text = (shl_str){text, name.n + 3};
  a->u.sym.root = name;
  return a;
}

static shl_status specialise(rf_ctx *c, const shl_op *old, const shl_op *callee, shl_value *const *ops, rf_spec **out) {
  uint32_t n = old->n_operands;
  const shl_type *ft = func_type(callee);
  if (!ft || ft->n_in != n) return op_error(old, SHLOC_ERR_VERIFY, "passes %u operands to a function of %u arguments", n, ft ? ft->n_in : 0);
  if ((*out = spec_find(c, callee, n, ops))) return NULL;
  if (c->depth >= RF_MAX_DEPTH || c->n_specs >= RF_MAX_SPECS)
    return op_error(old, SHLOC_ERR_LIMIT, "needs more than %u nested calls or %u function copies to refine", RF_MAX_DEPTH,
                    RF_MAX_SPECS);
  rf_spec *sp = ARENA_NEW(c->a, rf_spec);
  const shl_type **types = ARENA_ARRAY(c->a, const shl_type *, n + 1);
  const rf_known **known = ARENA_ARRAY(c->a, const rf_known *, n + 1);
  shl_str name = spec_name(c, func_sym_name(callee));
  if (!sp || !types || !known || !name.p) return st_oom();
  for (uint32_t i = 0; i < n; i++) {
    types[i] = ops[i]->type;
    known[i] = rf_known_of(c, ops[i]);
  }
  c->depth++;
  c->n_specs++;
  shl_status st;
  sp->func = rf_refine_func(c, callee, types, known, name, &st);
  c->depth--;
  if (!sp->func) return st;
  sp->callee = callee;
  sp->arg_types = types;
  sp->arg_known = known;
  /* Values the callee returns that are known stay known at the call. */
  const shl_op *ret = func_body(sp->func)->last;
  if (!(sp->ret_known = ARENA_ARRAY(c->a, const rf_known *, ret->n_operands + 1))) return st_oom();
  for (uint32_t i = 0; i < ret->n_operands; i++) sp->ret_known[i] = rf_known_of(c, ret->operands[i]);
  sp->next = c->specs;
  c->specs = sp;
  *out = sp;
  return NULL;
}

/* Result i of `op` takes type t, checked against what op declares. */
static shl_status take_result(rf_ctx *c, shl_op *op, uint32_t i, const shl_type *t) {
  const shl_type *declared = op->results[i].type;
  if (t->kind != TY_TENSOR || declared->kind != TY_TENSOR) {
    op->results[i].type = t;
    return NULL;
  }
  if (t->dtype != declared->dtype)
    return op_error(op, SHLOC_ERR_VERIFY, "result #%u has element type %s, the value it takes %s", i,
                    dtype_name(declared->dtype), dtype_name(t->dtype));
  char what[32];
  snprintf(what, sizeof what, "result #%u", i);
  return rf_refined_type(c, op, what, declared, t->rank, t->dims, &op->results[i].type);
}

/* References to functions by symbol anywhere in `b` (calls, composites,
 * called_computations, ...): counted per function of the module. */
static bool count_refs(rf_ctx *c, const shl_attr *a) {
  if (!a) return true;
  if (a->kind == AT_SYMREF) {
    const shl_op *f = module_find_func(c->src, a->u.sym.root);
    uintptr_t n = f ? (uintptr_t)ptrmap_get(&c->uses, f) : 0;
    return !f || ptrmap_put(&c->uses, f, (void *)(n ? n + 1 : 2));
  }
  if (a->kind == AT_ARRAY)
    for (uint32_t i = 0; i < a->u.arr.n; i++)
      if (!count_refs(c, a->u.arr.items[i])) return false;
  return true;
}

static bool count_block_refs(rf_ctx *c, const shl_block *b) {
  for (const shl_op *op = b->first; op; op = op->next) {
    for (uint32_t i = 0; i < op->n_attrs; i++)
      if (!op_is(op, OP_FUNC) && !count_refs(c, op->attrs[i].attr)) return false;
    for (uint32_t r = 0; r < op->n_regions; r++)
      for (uint32_t k = 0; k < op->regions[r].n_blocks; k++)
        if (!count_block_refs(c, op->regions[r].blocks[k])) return false;
  }
  return true;
}

/* A func.call is inlined when it is the only reference to a one-block
 * callee (JAX's _wrapped_jax_export_main): the refined program is then the
 * static one, with no call boundary and no copy of its results. */
static shl_status inlinable(rf_ctx *c, const shl_op *call, const shl_op *callee, bool *out) {
  *out = false;
  if (!op_is(call, OP_FUNC_CALL) || callee->n_regions != 1 || callee->regions[0].n_blocks != 1) return NULL;
  if (!c->uses.arena) {
    ptrmap_init(&c->uses, c->a);
    if (!count_block_refs(c, c->src->top->regions[0].blocks[0])) return st_oom();
  }
  *out = (uintptr_t)ptrmap_get(&c->uses, callee) == 2;
  return NULL;
}

static shl_status inline_call(rf_scope *s, const shl_op *old, const shl_op *callee, shl_value *const *ops,
                              shl_block *nb) {
  rf_ctx *c = s->c;
  const shl_block *body = func_body(callee);
  if (body->n_args != old->n_operands)
    return op_error(old, SHLOC_ERR_VERIFY, "passes %u operands to a function of %u arguments", old->n_operands, body->n_args);
  if (c->depth >= RF_MAX_DEPTH) return op_error(old, SHLOC_ERR_LIMIT, "nests calls too deeply to refine");
  rf_scope inner = {.c = c};
  ptrmap_init(&inner.vmap, c->a);
  for (uint32_t i = 0; i < body->n_args; i++)
    if (!ptrmap_put(&inner.vmap, &body->args[i], ops[i])) return st_oom();
  c->depth++;
  shl_status st = rf_block_body(&inner, body, nb);
  c->depth--;
  ST_TRY(st);
  const shl_op *ret = body->last;
  if (!ret || !op_is(ret, OP_FUNC_RETURN) || ret->n_operands != old->n_results)
    return op_error(old, SHLOC_ERR_VERIFY, "calls a function that does not return %u values", old->n_results);
  for (uint32_t i = 0; i < ret->n_operands; i++) {
    shl_value *v = ptrmap_get(&inner.vmap, ret->operands[i]);
    const shl_type *t = v ? v->type : NULL, *declared = old->results[i].type;
    if (!v) return op_error(ret, SHLOC_ERR_VERIFY, "returns an undefined value");
    char what[32];
    snprintf(what, sizeof what, "result #%u", i);
    if (t->kind == TY_TENSOR && declared->kind == TY_TENSOR) ST_TRY(rf_refined_type(c, old, what, declared, t->rank, t->dims, &t));
    if (!ptrmap_put(&s->vmap, &old->results[i], v)) return st_oom();
  }
  return NULL;
}

shl_status rf_call(rf_scope *s, const shl_op *old, shl_value *const *ops, shl_block *nb, shl_op **out) {
  rf_ctx *c = s->c;
  *out = NULL;
  const char *attr = op_is(old, OP_COMPOSITE) ? "decomposition" : "callee";
  const shl_attr *sym = op_attr(old, attr);
  const shl_op *callee = sym && sym->kind == AT_SYMREF ? module_find_func(c->src, sym->u.sym.root) : NULL;
  if (!callee) return op_error(old, SHLOC_ERR_VERIFY, "has no %s function", attr);
  bool inl;
  ST_TRY(inlinable(c, old, callee, &inl));
  if (inl) return inline_call(s, old, callee, ops, nb);
  rf_spec *sp;
  ST_TRY(specialise(c, old, callee, ops, &sp));
  const shl_type *ft = func_type(sp->func);
  if (ft->n_out != old->n_results)
    return op_error(old, SHLOC_ERR_VERIFY, "has %u results, its function returns %u", old->n_results, ft->n_out);
  shl_op *nop = rf_clone(c, old, ops, NULL);
  shl_attr *ref = symref(c, func_sym_name(sp->func));
  if (!nop || !ref || !op_set_attr(c->a, nop, str_of(attr), ref, op_is(old, OP_COMPOSITE))) return st_oom();
  for (uint32_t i = 0; i < ft->n_out; i++) {
    ST_TRY(take_result(c, nop, i, ft->out[i]));
    if (sp->ret_known[i] && !rf_set_known(c, &nop->results[i], sp->ret_known[i])) return st_oom();
  }
  *out = nop;
  return NULL;
}

static const shl_op *region_term(const shl_op *op, uint32_t r) {
  const shl_region *rg = &op->regions[r];
  return rg->n_blocks ? rg->blocks[0]->last : NULL;
}

static bool same_types(const shl_type *a, const shl_type *b) { return a == b || type_eq(a, b); }

shl_status rf_control(rf_scope *s, const shl_op *old, shl_value *const *ops, shl_op **out) {
  rf_ctx *c = s->c;
  shl_op *nop = rf_clone(c, old, ops, NULL);
  if (!nop) return st_oom();
  *out = nop;
  if (op_is(old, OP_WHILE)) {
    const shl_type **types = ARENA_ARRAY(c->a, const shl_type *, old->n_operands + 1);
    if (!types || old->n_regions != 2 || old->n_results != old->n_operands)
      return types ? op_error(old, SHLOC_ERR_VERIFY, "is malformed") : st_oom();
    for (uint32_t i = 0; i < old->n_operands; i++) types[i] = ops[i]->type;
    /* Loop-carried values are not known (they change from iteration to iteration). */
    ST_TRY(rf_region(s, old, nop, 0, types, NULL));
    ST_TRY(rf_region(s, old, nop, 1, types, NULL));
    const shl_op *ret = region_term(nop, 1);
    if (!ret || ret->n_operands != old->n_operands) return op_error(old, SHLOC_ERR_VERIFY, "body returns the wrong number of values");
    for (uint32_t i = 0; i < old->n_operands; i++) {
      if (same_types(ret->operands[i]->type, types[i])) continue;
      char a[256], b[256];
      const shl_type *t = ret->operands[i]->type;
      return op_error(old, SHLOC_ERR_UNSUPPORTED, "loop-carried value #%u changes shape from %s to %s in the body", i,
                      types[i]->kind == TY_TENSOR ? rf_dims_str(types[i]->rank, types[i]->dims, a, sizeof a) : "?",
                      t->kind == TY_TENSOR ? rf_dims_str(t->rank, t->dims, b, sizeof b) : "?");
    }
    for (uint32_t i = 0; i < old->n_results; i++) ST_TRY(take_result(c, nop, i, types[i]));
    return NULL;
  }
  /* if / case: every branch returns the same refined types. */
  const shl_op *first = NULL;
  for (uint32_t r = 0; r < old->n_regions; r++) {
    ST_TRY(rf_region(s, old, nop, r, NULL, NULL));
    const shl_op *ret = region_term(nop, r);
    if (!ret || ret->n_operands != old->n_results) return op_error(old, SHLOC_ERR_VERIFY, "branch #%u returns the wrong number of values", r);
    if (!first) {
      first = ret;
      continue;
    }
    for (uint32_t i = 0; i < old->n_results; i++) {
      if (same_types(ret->operands[i]->type, first->operands[i]->type)) continue;
      const shl_type *x = first->operands[i]->type, *y = ret->operands[i]->type;
      char a[256], b[256];
      return op_error(old, SHLOC_ERR_UNSUPPORTED, "result #%u has shape %s in branch #0 and %s in branch #%u", i,
                      x->kind == TY_TENSOR ? rf_dims_str(x->rank, x->dims, a, sizeof a) : "?",
                      y->kind == TY_TENSOR ? rf_dims_str(y->rank, y->dims, b, sizeof b) : "?", r);
    }
  }
  for (uint32_t i = 0; first && i < old->n_results; i++) ST_TRY(take_result(c, nop, i, first->operands[i]->type));
  return NULL;
}

/* ---- custom calls ---- */

static shl_str target_of(const shl_op *op) {
  const shl_attr *t = op_attr(op, "call_target_name");
  return t && t->kind == AT_STRING ? t->u.str : (shl_str){"", 0};
}

/* JAX's shape_assertion(pred, dim values...) {error_message = "... {0} ..."}:
 * checked now, from the known predicate (and dropped when it holds); the
 * message is formatted as the run-time target formats it (llvm::formatv),
 * with the known dimension values. */
static shl_status shape_assertion(rf_ctx *c, const shl_op *op) {
  const rf_known *pred;
  if (!op->n_operands) return op_error(op, SHLOC_ERR_VERIFY, "has no predicate operand");
  ST_TRY(rf_shape_operand(c, op, op->operands[0], 0, "the asserted predicate", &pred));
  bool holds = true;
  for (int64_t i = 0; i < pred->n; i++) holds = holds && pred->v[i];
  if (holds) return NULL;
  const shl_attr *m = op_attr(op, "error_message");
  shl_str msg = m && m->kind == AT_STRING ? m->u.str : str_of("shape assertion failed");
  int64_t vals[32];
  size_t n = 0;
  for (uint32_t i = 1; i < op->n_operands && n < 32; i++) {
    const rf_known *k = rf_known_of(c, op->operands[i]);
    if (!k || k->n != 1) break;
    vals[n++] = k->v[0];
  }
  char *text = NULL;
  ST_TRY(jax_format_message(msg, vals, n, &text));
  shl_status st = op_error(op, SHLOC_ERR_INVALID_ARG, "%s", text);
  free(text);
  return st;
}

/* Functions a custom call names in called_computations come along as they
 * are declared (their signatures are the handler's business). */
static shl_status copy_called_computations(rf_ctx *c, const shl_op *op) {
  const shl_attr *cc = op_attr(op, "called_computations");
  if (!cc || cc->kind != AT_ARRAY) return NULL;
  for (uint32_t i = 0; i < cc->u.arr.n; i++) {
    const shl_attr *ref = cc->u.arr.items[i];
    const shl_op *f = ref->kind == AT_SYMREF ? module_find_func(c->src, ref->u.sym.root) : NULL;
    if (!f || module_find_func(c->dst, ref->u.sym.root) || !func_type(f)) continue;
    if (c->depth >= RF_MAX_DEPTH) return op_error(op, SHLOC_ERR_LIMIT, "nests functions too deeply to refine");
    shl_status st;
    c->depth++;
    shl_op *nf = rf_refine_func(c, f, func_type(f)->in, NULL, ref->u.sym.root, &st);
    c->depth--;
    if (!nf) return st;
  }
  return NULL;
}

shl_status rf_custom_call(rf_scope *s, const shl_op *old, shl_value *const *ops, shl_block *nb, shl_op **out) {
  rf_ctx *c = s->c;
  shl_op *nop = rf_clone(c, old, ops, NULL);
  if (!nop) return st_oom();
  for (uint32_t r = 0; r < old->n_regions; r++) ST_TRY(rf_region(s, old, nop, r, NULL, NULL));
  shl_str target = target_of(old);
  if (str_eq_c(target, "shape_assertion")) {
    ST_TRY(shape_assertion(c, nop));
    *out = NULL;
    return NULL;
  }
  if (rf_is_dynamic_target(target)) ST_TRY(rf_dynamic_target(c, nop, nb));
  ST_TRY(copy_called_computations(c, old));
  /* indices_of_shape_operands: result i's shape is the value of that operand. */
  const shl_attr *idx = op_attr(old, "indices_of_shape_operands");
  int64_t v[16];
  size_t n = 0;
  if (idx && attr_as_ints(idx, v, 16, &n) && n <= old->n_results)
    for (size_t i = 0; i < n; i++) {
      const rf_known *k;
      if (v[i] < 0 || v[i] >= (int64_t)old->n_operands) return op_error(old, SHLOC_ERR_VERIFY, "has an invalid shape operand index");
      ST_TRY(rf_shape_operand(c, nop, nop->operands[v[i]], (uint32_t)v[i], "result shape", &k));
      char what[32];
      snprintf(what, sizeof what, "result #%zu", i);
      if (k->n > 64) return op_error(old, SHLOC_ERR_LIMIT, "result shape has more than 64 entries");
      ST_TRY(rf_refined_type(c, nop, what, nop->results[i].type, (int32_t)k->n, k->v, &nop->results[i].type));
    }
  for (uint32_t i = 0; i < nop->n_results; i++) {
    const shl_type *t = nop->results[i].type;
    if (t->kind == TY_TENSOR && !type_is_static(t))
      return op_error(old, SHLOC_ERR_UNSUPPORTED,
                      "result #%u of custom call @%.*s has a dynamic shape that shape refinement cannot infer", i,
                      (int)target.n, target.p);
  }
  *out = nop;
  return NULL;
}
