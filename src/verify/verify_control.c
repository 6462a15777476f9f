/* Rules of the structural and control-flow ops: builtin.module, func.func,
 * func.return / stablehlo.return, func.call, while, if, case, custom_call,
 * composite, tuples, tokens and optimization_barrier. */
#include "rules.h"

#include <stdlib.h>

/* ------------------------------------------------------------------ module, func */

static int cmp_str(const void *x, const void *y) { return str_cmp(*(const shl_str *)x, *(const shl_str *)y); }

shl_status verify_module(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  if (op->n_operands || op->n_results) return VFY_ERR(op, "takes no operands and has no results");
  if (op->n_regions != 1 || op->regions[0].n_blocks > 1) return VFY_ERR(op, "must have one region with one block");
  if (!op->regions[0].n_blocks) return NULL;
  const shl_block *b = op->regions[0].blocks[0];
  if (b->n_args) return VFY_ERR(op, "body must not have arguments");
  /* Symbols (functions) must be unique: sort their names and compare neighbours. */
  size_t n = 0;
  for (const shl_op *o = b->first; o; o = o->next)
    if (op_attr(o, "sym_name")) n++;
  if (n < 2) return NULL;
  shl_str *names = malloc(n * sizeof *names);
  if (!names) return st_oom();
  size_t k = 0;
  for (const shl_op *o = b->first; o; o = o->next) {
    const shl_attr *s = op_attr(o, "sym_name");
    if (s) names[k++] = s->kind == AT_STRING ? s->u.str : (shl_str){"", 0};
  }
  qsort(names, n, sizeof *names, cmp_str);
  shl_status st = NULL;
  for (size_t i = 1; i < n && !st; i++)
    if (str_eq(names[i], names[i - 1]) && names[i].n)
      st = VFY_ERR(op, "redefinition of symbol '%.*s'", (int)(names[i].n > 200 ? 200 : names[i].n), names[i].p);
  free(names);
  return st;
}

static shl_str short_name(shl_str s) { return s.n > 200 ? (shl_str){s.p, 200} : s; }

shl_status verify_func(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  if (op->n_operands || op->n_results) return VFY_ERR(op, "takes no operands and has no results");
  const shl_attr *name = op_attr(op, "sym_name");
  if (!name || name->kind != AT_STRING) return VFY_ERR(op, "requires a string attribute 'sym_name'");
  const shl_type *ft = func_type(op);
  if (!ft || ft->kind != TY_FUNCTION) return VFY_ERR(op, "requires a function type attribute 'function_type'");
  if (op->n_regions != 1) return VFY_ERR(op, "must have one region, got %u", op->n_regions);
  const shl_region *r = &op->regions[0];
  if (!r->n_blocks) {
    const shl_attr *vis = op_attr(op, "sym_visibility");
    if (!vis || vis->kind != AT_STRING || str_eq_c(vis->u.str, "public"))
      return VFY_ERR(op, "symbol declaration cannot have public visibility");
    return NULL;
  }
  if (r->n_blocks != 1) return VFY_ERR(op, "body must have exactly one block, got %u", r->n_blocks);
  const shl_block *b = r->blocks[0];
  shl_str sn = short_name(name->u.str);
  if (b->n_args != ft->n_in)
    return VFY_ERR(op, "@%.*s has %u inputs but its entry block has %u arguments", (int)sn.n, sn.p, ft->n_in,
                   b->n_args);
  for (uint32_t i = 0; i < ft->n_in; i++)
    if (!type_eq(b->args[i].type, ft->in[i]))
      return VFY_ERR(op, "type of entry block argument #%u (%s) must match input #%u of @%.*s (%s)", i,
                     vfy_tstr(b->args[i].type), i, (int)sn.n, sn.p, vfy_tstr(ft->in[i]));
  if (!b->last || !op_is(b->last, OP_FUNC_RETURN))
    return VFY_ERR(op, "body of @%.*s must end with 'func.return'", (int)sn.n, sn.p);
  return NULL;
}

/* The op owning the region that holds `op`, or NULL at the top. */
static const shl_op *parent_op(const shl_op *op) {
  if (!op->block || !op->block->region) return NULL;
  return op->block->region->parent;
}

shl_status verify_return(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  if (op->n_results) return VFY_ERR(op, "has no results");
  const shl_op *p = parent_op(op);
  if (op_is(op, OP_RETURN)) {
    /* Operand types are checked by the parent's rule. */
    if (!p || op_is(p, OP_FUNC) || op_is(p, OP_MODULE))
      return VFY_ERR(op, "must be inside the region of a stablehlo op (use func.return in functions)");
    return NULL;
  }
  if (!p || !op_is(p, OP_FUNC)) return VFY_ERR(op, "must be inside a func.func");
  const shl_type *ft = func_type(p);
  if (!ft || ft->kind != TY_FUNCTION) return NULL; /* reported by the func's own rule */
  if (op->n_operands != ft->n_out)
    return VFY_ERR(op, "has %u operands, but the enclosing function returns %u values", op->n_operands, ft->n_out);
  for (uint32_t i = 0; i < ft->n_out; i++)
    if (!type_eq(vfy_otype(op, i), ft->out[i]))
      return VFY_ERR(op, "type of operand #%u (%s) does not match the function result type %s", i,
                     vfy_tstr(vfy_otype(op, i)), vfy_tstr(ft->out[i]));
  return NULL;
}

/* Operand and result types of `op` equal the inputs and outputs of `ft`. */
static shl_status match_signature(const shl_op *op, const shl_type *ft, const char *callee) {
  if (op->n_operands != ft->n_in)
    return VFY_ERR(op, "passes %u operands, but %s takes %u", op->n_operands, callee, ft->n_in);
  if (op->n_results != ft->n_out)
    return VFY_ERR(op, "has %u results, but %s returns %u", op->n_results, callee, ft->n_out);
  for (uint32_t i = 0; i < ft->n_in; i++)
    if (!type_eq(vfy_otype(op, i), ft->in[i]))
      return VFY_ERR(op, "operand #%u type %s does not match input type %s of %s", i, vfy_tstr(vfy_otype(op, i)),
                     vfy_tstr(ft->in[i]), callee);
  for (uint32_t i = 0; i < ft->n_out; i++)
    if (!type_eq(vfy_rtype(op, i), ft->out[i]))
      return VFY_ERR(op, "result #%u type %s does not match result type %s of %s", i, vfy_tstr(vfy_rtype(op, i)),
                     vfy_tstr(ft->out[i]), callee);
  return NULL;
}

/* The function a symbol attribute names, with its type. */
static shl_status resolve(const verify_ctx *vc, const shl_op *op, const char *attr, const shl_type **ft,
                          const char **label) {
  const shl_attr *sym = op_attr(op, attr);
  if (!sym || sym->kind != AT_SYMREF) return VFY_ERR(op, "requires a symbol attribute '%s'", attr);
  shl_str s = short_name(sym->u.sym.text);
  *label = vfy_fmt("%.*s", (int)s.n, s.p);
  const shl_op *f = vfy_lookup_func(vc, sym);
  if (!f) return VFY_ERR(op, "'%s' %s does not refer to a function in this module", attr, *label);
  *ft = func_type(f);
  if (!*ft || (*ft)->kind != TY_FUNCTION) return VFY_ERR(op, "%s has no valid function type", *label);
  return NULL;
}

shl_status verify_call(const verify_ctx *vc, const shl_op *op) {
  const shl_type *ft;
  const char *label;
  ST_TRY(resolve(vc, op, "callee", &ft, &label));
  return match_signature(op, ft, label);
}

shl_status verify_composite(const verify_ctx *vc, const shl_op *op) {
  const shl_attr *name = op_attr(op, "name");
  if (!name || name->kind != AT_STRING) return VFY_ERR(op, "requires a string attribute 'name'");
  const shl_attr *ca = op_attr(op, "composite_attributes");
  if (ca && ca->kind != AT_DICT) return VFY_ERR(op, "attribute 'composite_attributes' must be a dictionary");
  int64_t version;
  ST_TRY(vfy_int_attr(op, "version", true, 0, &version));
  if (version < 0) return VFY_ERR(op, "version must be non-negative, got %lld", (long long)version);
  const shl_type *ft;
  const char *label;
  ST_TRY(resolve(vc, op, "decomposition", &ft, &label));
  return match_signature(op, ft, label);
}

/* ------------------------------------------------------------------ while, if, case */

/* The values a region's terminator returns are compatible with the op's
 * results. */
static shl_status returns_match(const shl_op *op, const char *region, const shl_op *term) {
  if (term->n_operands != op->n_results)
    return VFY_ERR(op, "%s returns %u values, but the op has %u results", region, term->n_operands, op->n_results);
  for (uint32_t i = 0; i < op->n_results; i++)
    ST_TRY(vfy_expect_compat(op, vfy_fmt("%s result #%u", region, i), vfy_otype(term, i), vfy_fmt("result #%u", i),
                             vfy_rtype(op, i)));
  return NULL;
}

shl_status verify_while(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  uint32_t n = op->n_operands;
  if (op->n_results != n) return VFY_ERR(op, "has %u operands but %u results", n, op->n_results);
  if (op->n_regions != 2) return VFY_ERR(op, "expects 2 regions (cond, body), got %u", op->n_regions);
  for (uint32_t i = 0; i < n; i++)
    ST_TRY(vfy_expect_compat(op, vfy_fmt("operand #%u", i), vfy_otype(op, i), vfy_fmt("result #%u", i),
                             vfy_rtype(op, i)));
  static const char *const names[2] = {"cond", "body"};
  for (uint32_t r = 0; r < 2; r++) {
    const shl_block *blk;
    const shl_op *term;
    ST_TRY(vfy_region(op, r, OP_RETURN, &blk, &term));
    if (blk->n_args != n) return VFY_ERR(op, "%s takes %u arguments, but the op has %u operands", names[r], blk->n_args, n);
    for (uint32_t i = 0; i < n; i++)
      ST_TRY(vfy_expect_compat(op, vfy_fmt("operand #%u", i), vfy_otype(op, i), vfy_fmt("%s argument #%u", names[r], i),
                               blk->args[i].type));
    if (r == 0) {
      if (term->n_operands != 1) return VFY_ERR(op, "cond must return a single value, got %u", term->n_operands);
      const shl_type *c = vfy_otype(term, 0);
      if (!vfy_is_tensor(c) || c->rank > 0 || c->dtype != DT_I1)
        return VFY_ERR(op, "cond must return tensor<i1>, got %s", vfy_tstr(c));
    } else {
      ST_TRY(returns_match(op, "body", term));
    }
  }
  return NULL;
}

/* Branch regions of if / case: no arguments, results compatible. */
static shl_status branches(const shl_op *op) {
  for (uint32_t r = 0; r < op->n_regions; r++) {
    const shl_block *blk;
    const shl_op *term;
    ST_TRY(vfy_region(op, r, OP_RETURN, &blk, &term));
    if (blk->n_args) return VFY_ERR(op, "branch #%u must have 0 arguments, got %u", r, blk->n_args);
    ST_TRY(returns_match(op, vfy_fmt("branch #%u", r), term));
  }
  return NULL;
}

shl_status verify_if(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  if (op->n_operands != 1) return VFY_ERR(op, "expects 1 operand, got %u", op->n_operands);
  const shl_type *p = vfy_otype(op, 0);
  if (!vfy_is_tensor(p) || p->rank > 0 || p->dtype != DT_I1)
    return VFY_ERR(op, "predicate must be tensor<i1>, got %s", vfy_tstr(p));
  if (op->n_regions != 2) return VFY_ERR(op, "expects 2 regions, got %u", op->n_regions);
  return branches(op);
}

shl_status verify_case(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  if (op->n_operands != 1) return VFY_ERR(op, "expects 1 operand, got %u", op->n_operands);
  const shl_type *p = vfy_otype(op, 0);
  if (!vfy_is_tensor(p) || p->rank > 0 || p->dtype != DT_I32)
    return VFY_ERR(op, "index must be tensor<i32>, got %s", vfy_tstr(p));
  if (op->n_regions < 1) return VFY_ERR(op, "expects at least one branch");
  return branches(op);
}

/* ------------------------------------------------------------------ custom_call */

/* Layout attribute `name`: one permutation of [0, rank) per type in `types`. */
static shl_status layouts(const shl_op *op, const char *name, const shl_type *const *types, uint32_t n,
                          bool operands) {
  const shl_attr *a = op_attr(op, name);
  if (a->kind != AT_ARRAY) return VFY_ERR(op, "attribute '%s' must be an array", name);
  if (a->u.arr.n != n)
    return VFY_ERR(op, "'%s' has %u entries, but the op has %u %s", name, a->u.arr.n, n, operands ? "operands" : "results");
  for (uint32_t i = 0; i < n; i++) {
    vfy_ints l;
    const char *what = vfy_fmt("%s #%u", name, i);
    /* StableHLO's layout is a rank-1 tensor of index (`dense<[1, 0]> : tensor<2xindex>`). */
    const shl_attr *li = a->u.arr.items[i];
    if (!li || li->kind != AT_DENSE || li->type->rank != 1 || li->type->dtype != DT_INDEX)
      return VFY_ERR(op, "%s must be a rank-1 tensor of index, e.g. dense<[1, 0]> : tensor<2xindex>", what);
    ST_TRY(vfy_ints_of(op, li, what, false, &l));
    const shl_type *t = types[i];
    if (!vfy_is_tensor(t)) {
      if (l.n) return VFY_ERR(op, "%s must be empty for the non-tensor type %s", what, vfy_tstr(t));
      continue;
    }
    if (t->rank < 0) continue;
    if (l.n != (size_t)t->rank)
      return VFY_ERR(op, "%s has %zu entries for %s", what, l.n, vfy_tstr(t));
    ST_TRY(vfy_dims(op, &l, t->rank, false));
  }
  return NULL;
}

static shl_status all_layouts(const shl_op *op) {
  bool has_in = op_attr(op, "operand_layouts"), has_out = op_attr(op, "result_layouts");
  if (has_in != has_out)
    return VFY_ERR(op, "'%s' is given without '%s': layouts must be given for both operands and results, or for neither",
                   has_in ? "operand_layouts" : "result_layouts", has_in ? "result_layouts" : "operand_layouts");
  if (!has_in) return NULL;
  uint32_t n = op->n_operands > op->n_results ? op->n_operands : op->n_results;
  const shl_type *small[16];
  const shl_type **v = n > 16 ? malloc(n * sizeof *v) : small;
  if (!v) return st_oom();
  for (uint32_t i = 0; i < op->n_operands; i++) v[i] = vfy_otype(op, i);
  shl_status st = layouts(op, "operand_layouts", v, op->n_operands, true);
  if (!st) {
    /* A single tuple result has one layout per element. */
    const shl_type *t0 = op->n_results == 1 ? vfy_rtype(op, 0) : NULL;
    if (t0 && t0->kind == TY_TUPLE) {
      st = layouts(op, "result_layouts", t0->in, t0->n_in, false);
    } else {
      for (uint32_t i = 0; i < op->n_results; i++) v[i] = vfy_rtype(op, i);
      st = layouts(op, "result_layouts", v, op->n_results, false);
    }
  }
  if (v != small) free(v);
  return st;
}

/* Follows tuple indices into `t`; NULL when they do not fit. */
static const shl_type *tuple_path(const shl_type *t, const vfy_ints *path, size_t from) {
  for (size_t i = from; t && i < path->n; i++) {
    int64_t k = vfy_int_at(path, i);
    if (t->kind != TY_TUPLE || k < 0 || k >= t->n_in) return NULL;
    t = t->in[k];
  }
  return t;
}

static shl_status aliases(const shl_op *op) {
  const shl_attr *a = op_attr(op, "output_operand_aliases");
  if (!a) return NULL;
  if (a->kind != AT_ARRAY) return VFY_ERR(op, "attribute 'output_operand_aliases' must be an array");
  for (uint32_t i = 0; i < a->u.arr.n; i++) {
    const shl_attr *al = a->u.arr.items[i];
    if (!al || al->kind != AT_STRUCT) return VFY_ERR(op, "output_operand_aliases entry #%u is malformed", i);
    vfy_ints out_path, in_path;
    int64_t idx;
    ST_TRY(vfy_ints_field(op, al, "output_tuple_indices", true, &out_path));
    ST_TRY(vfy_ints_field(op, al, "operand_tuple_indices", true, &in_path));
    ST_TRY(vfy_int_of(op, attr_struct_field(al, "operand_index"), "operand_index", false, 0, &idx));
    if (idx < 0 || idx >= op->n_operands)
      return VFY_ERR(op, "output_operand_aliases entry #%u: operand_index %lld is out of range [0, %u)", i,
                     (long long)idx, op->n_operands);
    /* Several results form a tuple: the first output index picks one. */
    const shl_type *out = NULL;
    if (op->n_results == 1) {
      out = tuple_path(vfy_rtype(op, 0), &out_path, 0);
    } else if (out_path.n) {
      int64_t r = vfy_int_at(&out_path, 0);
      if (r >= 0 && r < op->n_results) out = tuple_path(vfy_rtype(op, (uint32_t)r), &out_path, 1);
    }
    const shl_type *in = tuple_path(vfy_otype(op, (uint32_t)idx), &in_path, 0);
    if (!out || !in) return VFY_ERR(op, "output_operand_aliases entry #%u has invalid tuple indices", i);
    if (!type_eq(out, in))
      return VFY_ERR(op, "output_operand_aliases entry #%u aliases %s with %s of another type", i, vfy_tstr(out),
                     vfy_tstr(in));
  }
  return NULL;
}

shl_status verify_custom_call(const verify_ctx *vc, const shl_op *op) {
  const shl_attr *target = op_attr(op, "call_target_name");
  if (!target || target->kind != AT_STRING) return VFY_ERR(op, "requires a string attribute 'call_target_name'");
  int64_t api;
  ST_TRY(vfy_int_attr(op, "api_version", true, 1, &api));
  if (api < 0 || api > 4) return VFY_ERR(op, "api_version must be in [0, 4], got %lld", (long long)api);
  bool side;
  ST_TRY(vfy_bool_attr(op, "has_side_effect", false, &side));
  const shl_attr *cfg = op_attr(op, "backend_config");
  if (cfg && cfg->kind != AT_STRING && cfg->kind != AT_DICT)
    return VFY_ERR(op, "attribute 'backend_config' must be a string or a dictionary");
  if (cfg && cfg->kind == AT_DICT && api != 4)
    return VFY_ERR(op, "a dictionary backend_config requires api_version 4 (typed FFI), got %lld", (long long)api);
  const shl_attr *called = op_attr(op, "called_computations");
  if (called) {
    if (called->kind != AT_ARRAY) return VFY_ERR(op, "attribute 'called_computations' must be an array");
    for (uint32_t i = 0; i < called->u.arr.n; i++) {
      const shl_attr *s = called->u.arr.items[i];
      /* Only the form is checked: upstream leaves the references unresolved
       * (stablehlo-opt accepts a missing callee); a target that runs one
       * reports it when it is planned. */
      if (!s || s->kind != AT_SYMREF) return VFY_ERR(op, "called_computations entry #%u must be a symbol", i);
    }
  }
  ST_TRY(all_layouts(op));
  return aliases(op);
}

/* ------------------------------------------------------------------ tuples, tokens */

shl_status verify_tuple(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  if (op->n_results != 1) return VFY_ERR(op, "expects 1 result, got %u", op->n_results);
  const shl_type *t = vfy_rtype(op, 0);
  if (!t || t->kind != TY_TUPLE || t->n_in != op->n_operands)
    return VFY_ERR(op, "result type %s must be a tuple of the %u operand types", vfy_tstr(t), op->n_operands);
  for (uint32_t i = 0; i < op->n_operands; i++)
    if (!type_eq(t->in[i], vfy_otype(op, i)))
      return VFY_ERR(op, "tuple element #%u type %s does not match operand #%u type %s", i, vfy_tstr(t->in[i]), i,
                     vfy_tstr(vfy_otype(op, i)));
  return NULL;
}

shl_status verify_get_tuple_element(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_count(op, 1, 1, 1));
  const shl_type *t = vfy_otype(op, 0);
  if (!t || t->kind != TY_TUPLE) return VFY_ERR(op, "operand must be a tuple, got %s", vfy_tstr(t));
  int64_t idx;
  ST_TRY(vfy_int_attr(op, "index", false, 0, &idx));
  if (idx < 0 || idx >= t->n_in)
    return VFY_ERR(op, "index %lld is out of bounds of a tuple with %u elements", (long long)idx, t->n_in);
  if (!type_eq(t->in[idx], vfy_rtype(op, 0)))
    return VFY_ERR(op, "result type %s does not match tuple element #%lld type %s", vfy_tstr(vfy_rtype(op, 0)),
                   (long long)idx, vfy_tstr(t->in[idx]));
  return NULL;
}

shl_status verify_after_all(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  if (op_is(op, OP_CREATE_TOKEN) && op->n_operands) return VFY_ERR(op, "takes no operands");
  for (uint32_t i = 0; i < op->n_operands; i++)
    if (!vfy_otype(op, i) || vfy_otype(op, i)->kind != TY_TOKEN)
      return VFY_ERR(op, "operand #%u must be a token, got %s", i, vfy_tstr(vfy_otype(op, i)));
  if (op->n_results != 1 || !vfy_rtype(op, 0) || vfy_rtype(op, 0)->kind != TY_TOKEN)
    return VFY_ERR(op, "must have a single token result");
  return NULL;
}

shl_status verify_optimization_barrier(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  if (op->n_results != op->n_operands)
    return VFY_ERR(op, "has %u operands but %u results", op->n_operands, op->n_results);
  for (uint32_t i = 0; i < op->n_operands; i++)
    if (!type_eq(vfy_otype(op, i), vfy_rtype(op, i)))
      return VFY_ERR(op, "operand #%u type %s does not match result #%u type %s", i, vfy_tstr(vfy_otype(op, i)), i,
                     vfy_tstr(vfy_rtype(op, i)));
  return NULL;
}
