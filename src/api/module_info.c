/* Public read access to what a module holds: its attributes and functions
 * (include/shloc/shloc.h, "what a module holds"). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ir/ir.h"
#include "text/print_value.h"

/* A shloc_func is the func.func op itself, behind an opaque type. */
static const shl_op *op_of(const shloc_func *f) { return (const shl_op *)f; }
static const shloc_func *func_of(const shl_op *op) { return (const shloc_func *)op; }

static const char *view(shl_str s, size_t *len) {
  if (len) *len = s.n;
  return s.p;
}

const char *shloc_module_name(const shloc_module *m, size_t *len) {
  const shl_attr *a = m->top ? op_attr(m->top, "sym_name") : NULL;
  if (!a || a->kind != AT_STRING) return NULL;
  return view(a->u.str, len);
}

/* The module op's attributes without sym_name: index i of the public list. */
static const shl_named_attr *module_attr(const shloc_module *m, size_t i) {
  for (uint32_t k = 0; m->top && k < m->top->n_attrs; k++) {
    const shl_named_attr *na = &m->top->attrs[k];
    if (str_eq_c(na->name, "sym_name")) continue;
    if (i-- == 0) return na;
  }
  return NULL;
}

size_t shloc_module_num_attrs(const shloc_module *m) {
  size_t n = 0;
  for (uint32_t k = 0; m->top && k < m->top->n_attrs; k++) n += !str_eq_c(m->top->attrs[k].name, "sym_name");
  return n;
}

const char *shloc_module_attr_name(const shloc_module *m, size_t i, size_t *len) {
  const shl_named_attr *na = module_attr(m, i);
  return na ? view(na->name, len) : NULL;
}

shloc_status shloc_module_attr_text(const shloc_module *m, size_t i, char **out) {
  *out = NULL;
  const shl_named_attr *na = module_attr(m, i);
  if (!na) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "module attribute index %zu out of range", i);
  return print_attr_text(na->attr, out);
}

bool shloc_module_attr_int(const shloc_module *m, const char *name, int64_t *out) {
  const shl_attr *a = m->top ? op_attr(m->top, name) : NULL;
  return a && attr_as_int(a, out);
}

static shl_op *first_op(const shloc_module *m) {
  if (!m->top || !m->top->n_regions || !m->top->regions[0].n_blocks) return NULL;
  return m->top->regions[0].blocks[0]->first;
}

const shloc_func *shloc_module_next_func(const shloc_module *m, const shloc_func *prev) {
  for (const shl_op *op = prev ? op_of(prev)->next : first_op(m); op; op = op->next)
    if (op_is(op, OP_FUNC)) return func_of(op);
  return NULL;
}

const shloc_func *shloc_module_find_func(const shloc_module *m, const char *name) {
  return func_of(module_find_func(m, str_of(name)));
}

const shloc_func *shloc_module_entry(const shloc_module *m, const char *name) {
  if (name) return shloc_module_find_func(m, name);
  const shloc_func *main_fn = shloc_module_find_func(m, "main");
  if (main_fn) return main_fn;
  const shloc_func *first = shloc_module_next_func(m, NULL);
  return first && !shloc_module_next_func(m, first) ? first : NULL;
}

const char *shloc_func_name(const shloc_func *f, size_t *len) { return view(func_sym_name(op_of(f)), len); }

bool shloc_func_is_private(const shloc_func *f) {
  const shl_attr *vis = op_attr(op_of(f), "sym_visibility");
  return vis && vis->kind == AT_STRING && str_eq_c(vis->u.str, "private");
}

size_t shloc_func_num_args(const shloc_func *f) { return func_type(op_of(f))->n_in; }
size_t shloc_func_num_results(const shloc_func *f) { return func_type(op_of(f))->n_out; }

/* Type and attribute dictionary of argument or result i. */
static shl_status value_text(const shloc_func *f, bool result, size_t i, char **type, char **attrs) {
  if (type) *type = NULL;
  if (attrs) *attrs = NULL;
  const shl_op *op = op_of(f);
  const shl_type *ft = func_type(op);
  uint32_t n = result ? ft->n_out : ft->n_in;
  if (i >= n)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "%s index %zu out of range", result ? "result" : "argument", i);
  if (type) ST_TRY(print_type_text(result ? ft->out[i] : ft->in[i], type));
  const shl_attr *all = op_attr(op, result ? "res_attrs" : "arg_attrs");
  const shl_attr *d = all && all->kind == AT_ARRAY && i < all->u.arr.n ? all->u.arr.items[i] : NULL;
  if (attrs && d && d->kind == AT_DICT && d->u.dict.n) {
    shl_status st = print_attr_text(d, attrs);
    if (st && type) {
      free(*type);
      *type = NULL;
    }
    return st;
  }
  return NULL;
}

shloc_status shloc_func_arg_text(const shloc_func *f, size_t i, char **type, char **attrs) {
  return value_text(f, false, i, type, attrs);
}

shloc_status shloc_func_result_text(const shloc_func *f, size_t i, char **type, char **attrs) {
  return value_text(f, true, i, type, attrs);
}

shloc_status shloc_func_error(const shloc_func *f, shloc_code code, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return op_error(op_of(f), code, "%s", msg);
}
