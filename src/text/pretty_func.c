/* Pretty forms of builtin.module, func.func, func.return / stablehlo.return
 * and func.call. */
#include "pretty_util.h"

/* ------------------------------------------------------------------ module */

shl_status parse_module(shl_parser *p, op_state *os) {
  if (p_tok(p)->kind == TK_AT_ID) {
    shl_str name;
    ST_TRY(p_symbol_name(p, &name));
    ST_TRY(os_attr_s(p, os, str_of("sym_name"), attr_string(p->a, name), true));
  }
  if (p_kw(p, "attributes")) ST_TRY(p_attr_dict(p, os));
  shl_region *r = os_region(p, os);
  if (!r) return st_oom();
  ST_TRY(p_scope_push(p, true));
  ST_TRY(p_region(p, r, NULL));
  p_scope_pop(p);
  if (!r->n_blocks) {
    shl_block *b = block_create(p->a, 0, NULL);
    if (!b || !region_append_block(p->a, r, b)) return st_oom();
  }
  return NULL;
}

static const char *const module_elide[] = {"sym_name", "sym_visibility", NULL};

void print_module(shl_printer *pr, const shl_op *op) {
  pr_puts(pr, "module");
  const shl_attr *name = op_attr(op, "sym_name");
  if (name && name->kind == AT_STRING) {
    pr_puts(pr, " ");
    pr_symbol_name(pr, name->u.str);
  }
  bool has_attrs = false;
  for (uint32_t i = 0; i < op->n_attrs; i++)
    if (!str_eq_c(op->attrs[i].name, "sym_name") && !str_eq_c(op->attrs[i].name, "sym_visibility")) has_attrs = true;
  if (has_attrs) {
    pr_puts(pr, " attributes");
    pr_attr_dict(pr, op, module_elide);
  }
  pr_puts(pr, " ");
  pr_region(pr, &op->regions[0], false);
}

/* ------------------------------------------------------------------ func */

/* One `%name: type {attrs} loc(..)` entry of a signature (argument or result). */
typedef struct {
  shl_token name; /* arguments of a function with a body */
  const shl_type *type;
  const shl_attr *attrs;
  shl_str loc;
} sig_item;

typedef struct {
  sig_item *v;
  uint32_t n, cap;
} sig_list;

/* `bare`: a lone result type without parentheses, which takes no attributes
 * (the function body's '{' follows it). */
static shl_status sig_entry(shl_parser *p, sig_list *l, bool named, bool bare) {
  if (l->n == l->cap) {
    uint32_t ncap = l->cap ? l->cap * 2 : 8;
    sig_item *nv = ARENA_ARRAY(p->a, sig_item, ncap);
    if (!nv) return st_oom();
    if (l->n) memcpy(nv, l->v, l->n * sizeof *nv);
    l->v = nv;
    l->cap = ncap;
  }
  sig_item *it = &l->v[l->n];
  *it = (sig_item){0};
  if (named) {
    if (p_tok(p)->kind != TK_PERCENT_ID) return parse_error(p, "expected argument name");
    it->name = *p_tok(p);
    p_next(p);
    ST_TRY(p_expect(p, ':'));
  }
  ST_TRY(p_type(p, &it->type));
  if (!bare) {
    if (tok_punct(p_tok(p), '{')) ST_TRY(p_attr(p, &it->attrs));
    ST_TRY(p_loc(p, &it->loc));
  }
  l->n++;
  return NULL;
}

/* The types of a signature list, as the function type holds them. */
static const shl_type **sig_types(shl_parser *p, const sig_list *l) {
  const shl_type **t = ARENA_ARRAY(p->a, const shl_type *, l->n ? l->n : 1);
  if (t)
    for (uint32_t i = 0; i < l->n; i++) t[i] = l->v[i].type;
  return t;
}

/* Builds arg_attrs / res_attrs when any entry has attributes. */
static shl_status attrs_array(shl_parser *p, op_state *os, const char *name, const sig_list *l) {
  bool any = false;
  for (uint32_t i = 0; i < l->n; i++)
    if (l->v[i].attrs && l->v[i].attrs->u.dict.n) any = true;
  if (!any) return NULL;
  shl_attr *arr = attr_new(p->a, AT_ARRAY);
  const shl_attr **items = ARENA_ARRAY(p->a, const shl_attr *, l->n);
  if (!arr || !items) return st_oom();
  for (uint32_t i = 0; i < l->n; i++) {
    if (l->v[i].attrs) {
      items[i] = l->v[i].attrs;
    } else {
      shl_attr *e = attr_new(p->a, AT_DICT);
      if (!e) return st_oom();
      items[i] = e;
    }
  }
  arr->u.arr.n = l->n;
  arr->u.arr.items = items;
  return os_attr_s(p, os, str_of(name), arr, true);
}

shl_status parse_func(shl_parser *p, op_state *os) {
  if (tok_kw(p_tok(p), "public") || tok_kw(p_tok(p), "private") || tok_kw(p_tok(p), "nested")) {
    ST_TRY(os_attr_s(p, os, str_of("sym_visibility"), attr_string(p->a, p_tok(p)->text), true));
    p_next(p);
  }
  if (p_tok(p)->kind != TK_AT_ID) return parse_error(p, "expected function name");
  shl_str name;
  ST_TRY(p_symbol_name(p, &name));
  ST_TRY(os_attr_s(p, os, str_of("sym_name"), attr_string(p->a, name), true));
  ST_TRY(p_scope_push(p, true));
  ST_TRY(p_expect(p, '('));
  sig_list in = {0}, out = {0};
  bool named = p_tok(p)->kind == TK_PERCENT_ID;
  if (!p_punct(p, ')')) {
    do ST_TRY(sig_entry(p, &in, named, false));
    while (p_punct(p, ','));
    ST_TRY(p_expect(p, ')'));
  }
  if (p_tok(p)->kind == TK_ARROW) {
    p_next(p);
    if (p_punct(p, '(')) {
      if (!p_punct(p, ')')) {
        do ST_TRY(sig_entry(p, &out, false, false));
        while (p_punct(p, ','));
        ST_TRY(p_expect(p, ')'));
      }
    } else {
      ST_TRY(sig_entry(p, &out, false, true));
    }
  }
  shl_type *ft = ARENA_NEW(p->a, shl_type);
  shl_attr *fta = attr_new(p->a, AT_TYPE);
  if (!ft || !fta) return st_oom();
  ft->kind = TY_FUNCTION;
  ft->n_in = in.n;
  ft->in = sig_types(p, &in);
  ft->n_out = out.n;
  ft->out = sig_types(p, &out);
  if (!ft->in || !ft->out) return st_oom();
  fta->type = ft;
  ST_TRY(os_attr_s(p, os, str_of("function_type"), fta, true));
  ST_TRY(attrs_array(p, os, "arg_attrs", &in));
  ST_TRY(attrs_array(p, os, "res_attrs", &out));
  if (p_kw(p, "attributes")) ST_TRY(p_attr_dict(p, os));
  shl_region *r = os_region(p, os);
  if (!r) return st_oom();
  if (tok_punct(p_tok(p), '{')) {
    if (!named && in.n) return parse_error(p, "a function with a body needs named arguments");
    shl_block *entry = block_create(p->a, in.n, ft->in);
    if (!entry) return st_oom();
    for (uint32_t i = 0; i < in.n; i++) {
      entry->args[i].pos = (shl_srcpos){p->lx.file, in.v[i].name.line, in.v[i].name.col};
      if (!block_set_arg_loc(p->a, entry, i, in.v[i].loc)) return st_oom();
      ST_TRY(p_define(p, &in.v[i].name, &entry->args[i]));
    }
    ST_TRY(p_region(p, r, entry));
  }
  p_scope_pop(p);
  return NULL;
}

static const char *const func_elide[] = {"sym_name", "sym_visibility", "function_type", "arg_attrs", "res_attrs", NULL};

static void sig_attrs(shl_printer *pr, const shl_attr *arr, uint32_t i) {
  if (!arr || arr->kind != AT_ARRAY || i >= arr->u.arr.n) return;
  const shl_attr *d = arr->u.arr.items[i];
  if (d->kind != AT_DICT || !d->u.dict.n) return;
  pr_puts(pr, " ");
  pr_attr(pr, d);
}

void print_func(shl_printer *pr, const shl_op *op) {
  pr_puts(pr, "func.func ");
  const shl_attr *vis = op_attr(op, "sym_visibility");
  if (vis && vis->kind == AT_STRING) {
    pr_str(pr, vis->u.str);
    pr_puts(pr, " ");
  }
  pr_symbol_name(pr, func_sym_name(op));
  const shl_type *ft = func_type(op);
  const shl_attr *arg_attrs = op_attr(op, "arg_attrs"), *res_attrs = op_attr(op, "res_attrs");
  const shl_block *body = func_body(op);
  pr_puts(pr, "(");
  for (uint32_t i = 0; ft && i < ft->n_in; i++) {
    if (i) pr_puts(pr, ", ");
    if (body && i < body->n_args) {
      pr_value(pr, &body->args[i]);
      pr_puts(pr, ": ");
    }
    pr_type(pr, ft->in[i]);
    sig_attrs(pr, arg_attrs, i);
    if (body && i < body->n_args) pr_arg_loc(pr, body, i);
  }
  pr_puts(pr, ")");
  if (ft && ft->n_out) {
    bool parens = ft->n_out > 1 || res_attrs || ft->out[0]->kind == TY_FUNCTION;
    pr_puts(pr, parens ? " -> (" : " -> ");
    for (uint32_t i = 0; i < ft->n_out; i++) {
      if (i) pr_puts(pr, ", ");
      pr_type(pr, ft->out[i]);
      sig_attrs(pr, res_attrs, i);
    }
    if (parens) pr_puts(pr, ")");
  }
  bool has_attrs = false;
  for (uint32_t i = 0; i < op->n_attrs; i++) {
    bool skip = false;
    for (const char *const *e = func_elide; *e; e++)
      if (str_eq_c(op->attrs[i].name, *e)) skip = true;
    if (!skip) has_attrs = true;
  }
  if (has_attrs) {
    pr_puts(pr, " attributes");
    pr_attr_dict(pr, op, func_elide);
  }
  if (body) {
    pr_puts(pr, " ");
    pr_region(pr, &op->regions[0], false);
  }
}

/* ------------------------------------------------------------------ return / call */

/* MLIR drops the `func.` prefix only where func is the default dialect: in
 * blocks directly owned by a func.func. */
static bool in_func_body(const shl_op *op) {
  const shl_block *b = op->block;
  return b && b->region && b->region->parent && op_is(b->region->parent, OP_FUNC);
}

/* func.return, sdy.return and stablehlo.optimization_barrier print
 * `attr-dict operands`, stablehlo.return `operands attr-dict`; either order is read. */
static bool attrs_first(const shl_op *op) {
  return op_is(op, OP_FUNC_RETURN) || op_is(op, OP_SDY_RETURN) || op_is(op, OP_OPTIMIZATION_BARRIER);
}

shl_status parse_return(shl_parser *p, op_state *os) {
  bool leading = tok_punct(p_tok(p), '{');
  if (leading) ST_TRY(p_attr_dict(p, os));
  ST_TRY(p_operands(p, os, true));
  if (!leading) ST_TRY(p_attr_dict(p, os));
  return os->n_operands ? pp_operand_type_list(p, os, false) : NULL;
}

void print_return(shl_printer *pr, const shl_op *op) {
  pr_puts(pr, op_is(op, OP_FUNC_RETURN) && in_func_body(op) ? "return" : op->def->name);
  if (attrs_first(op)) pr_attr_dict(pr, op, NULL);
  if (op->n_operands) {
    pr_puts(pr, " ");
    pr_values(pr, op->operands, op->n_operands);
  }
  if (!attrs_first(op)) pr_attr_dict(pr, op, NULL);
  if (op->n_operands) {
    pr_puts(pr, " : ");
    for (uint32_t i = 0; i < op->n_operands; i++) {
      if (i) pr_puts(pr, ", ");
      pr_type(pr, op->operands[i]->type);
    }
  }
}

shl_status parse_call(shl_parser *p, op_state *os) {
  if (p_tok(p)->kind != TK_AT_ID) return parse_error(p, "expected callee symbol");
  const shl_attr *callee;
  ST_TRY(p_attr(p, &callee));
  ST_TRY(os_attr_s(p, os, str_of("callee"), callee, true));
  return pp_call_tail(p, os);
}

static const char *const call_elide[] = {"callee", NULL};

void print_call(shl_printer *pr, const shl_op *op) {
  pr_puts(pr, in_func_body(op) ? "call " : "func.call ");
  const shl_attr *c = op_attr(op, "callee");
  if (c) pr_attr(pr, c);
  pr_puts(pr, "(");
  pr_values(pr, op->operands, op->n_operands);
  pr_puts(pr, ")");
  pr_attr_dict(pr, op, call_elide);
  pr_puts(pr, " : ");
  pr_functional_type(pr, op);
}
