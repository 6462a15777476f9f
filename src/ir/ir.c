#include "ir.h"

#include <stdio.h>
#include <stdlib.h>

const char *op_name_cstr(const shl_op *op) {
  if (op->def->id != OP_UNKNOWN) return op->def->name;
  /* Unknown ops keep their written name in the source text, which is not
   * NUL-terminated; diagnostics copy it into a small thread-local buffer. */
  static _Thread_local char buf[128];
  size_t n = op->name.n < sizeof buf - 1 ? op->name.n : sizeof buf - 1;
  memcpy(buf, op->name.p, n);
  buf[n] = 0;
  return buf;
}

shl_status op_error(const shl_op *op, shloc_code code, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const char *name = op_name_cstr(op);
  return st_error(code, &op->pos, name, "'%s' %s", name, msg);
}

shl_op *op_create(shl_arena *a, const shl_opdef *def, shl_str name, uint32_t n_operands, shl_value *const *operands,
                  uint32_t n_results, const shl_type *const *result_types, uint32_t n_attrs,
                  const shl_named_attr *attrs, uint32_t n_regions) {
  shl_op *op = ARENA_NEW(a, shl_op);
  if (!op) return NULL;
  op->def = def;
  op->name = name;
  op->n_operands = n_operands;
  op->n_results = n_results;
  op->n_attrs = n_attrs;
  op->n_regions = n_regions;
  if (n_operands) {
    op->operands = ARENA_ARRAY(a, shl_value *, n_operands);
    if (!op->operands) return NULL;
    memcpy(op->operands, operands, n_operands * sizeof *operands);
  }
  if (n_results) {
    op->results = ARENA_ARRAY(a, shl_value, n_results);
    if (!op->results) return NULL;
    for (uint32_t i = 0; i < n_results; i++) {
      op->results[i].type = result_types[i];
      op->results[i].def = op;
      op->results[i].index = i;
    }
  }
  if (n_attrs) {
    op->attrs = ARENA_ARRAY(a, shl_named_attr, n_attrs);
    if (!op->attrs) return NULL;
    memcpy(op->attrs, attrs, n_attrs * sizeof *attrs);
  }
  if (n_regions) {
    op->regions = ARENA_ARRAY(a, shl_region, n_regions);
    if (!op->regions) return NULL;
    for (uint32_t i = 0; i < n_regions; i++) op->regions[i].parent = op;
  }
  return op;
}

shl_block *block_create(shl_arena *a, uint32_t n_args, const shl_type *const *arg_types) {
  shl_block *b = ARENA_NEW(a, shl_block);
  if (!b) return NULL;
  b->n_args = n_args;
  if (n_args) {
    b->args = ARENA_ARRAY(a, shl_value, n_args);
    if (!b->args) return NULL;
    for (uint32_t i = 0; i < n_args; i++) {
      b->args[i].type = arg_types ? arg_types[i] : NULL;
      b->args[i].block = b;
      b->args[i].index = i;
    }
  }
  return b;
}

bool block_set_arg_loc(shl_arena *a, shl_block *b, uint32_t i, shl_str loc) {
  if (!loc.n) return true;
  if (!b->arg_locs && !(b->arg_locs = ARENA_ARRAY(a, shl_str, b->n_args))) return false;
  b->arg_locs[i] = loc;
  return true;
}

void block_append(shl_block *b, shl_op *op) {
  op->block = b;
  op->prev = b->last;
  op->next = NULL;
  if (b->last) b->last->next = op;
  else b->first = op;
  b->last = op;
}

void block_insert_before(shl_block *b, shl_op *before, shl_op *op) {
  if (!before) {
    block_append(b, op);
    return;
  }
  op->block = b;
  op->next = before;
  op->prev = before->prev;
  if (before->prev) before->prev->next = op;
  else b->first = op;
  before->prev = op;
}

void block_remove(shl_block *b, shl_op *op) {
  if (op->prev) op->prev->next = op->next;
  else b->first = op->next;
  if (op->next) op->next->prev = op->prev;
  else b->last = op->prev;
  op->prev = op->next = NULL;
  op->block = NULL;
}

bool region_append_block(shl_arena *a, shl_region *r, shl_block *b) {
  shl_block **nb = ARENA_ARRAY(a, shl_block *, r->n_blocks + 1);
  if (!nb) return false;
  if (r->n_blocks) memcpy(nb, r->blocks, r->n_blocks * sizeof *nb);
  nb[r->n_blocks++] = b;
  r->blocks = nb;
  b->region = r;
  return true;
}

static int cmp_named(const void *x, const void *y) {
  return str_cmp(((const shl_named_attr *)x)->name, ((const shl_named_attr *)y)->name);
}

bool attrs_sort(shl_named_attr *attrs, uint32_t n, uint32_t *dup) {
  if (n > 1) qsort(attrs, n, sizeof *attrs, cmp_named);
  for (uint32_t i = 1; i < n; i++)
    if (str_eq(attrs[i - 1].name, attrs[i].name)) {
      if (dup) *dup = i;
      return false;
    }
  return true;
}

bool op_set_attr(shl_arena *a, shl_op *op, shl_str name, const shl_attr *attr, bool is_prop) {
  for (uint32_t i = 0; i < op->n_attrs; i++)
    if (str_eq(op->attrs[i].name, name)) {
      op->attrs[i].attr = attr;
      op->attrs[i].is_prop = is_prop;
      return true;
    }
  shl_named_attr *na = ARENA_ARRAY(a, shl_named_attr, op->n_attrs + 1);
  if (!na) return false;
  uint32_t j = 0;
  bool placed = false;
  for (uint32_t i = 0; i < op->n_attrs; i++) {
    if (!placed && str_cmp(name, op->attrs[i].name) < 0) {
      na[j++] = (shl_named_attr){name, attr, is_prop};
      placed = true;
    }
    na[j++] = op->attrs[i];
  }
  if (!placed) na[j++] = (shl_named_attr){name, attr, is_prop};
  op->attrs = na;
  op->n_attrs = j;
  return true;
}

shl_op *module_find_func(const shloc_module *m, shl_str name) {
  if (!m->top || !m->top->n_regions || !m->top->regions[0].n_blocks) return NULL;
  for (shl_op *op = m->top->regions[0].blocks[0]->first; op; op = op->next)
    if (op_is(op, OP_FUNC) && str_eq(func_sym_name(op), name)) return op;
  return NULL;
}

shl_block *func_body(const shl_op *func) {
  if (!func->n_regions || !func->regions[0].n_blocks) return NULL;
  return func->regions[0].blocks[0];
}

const shl_type *func_type(const shl_op *func) {
  const shl_attr *t = op_attr(func, "function_type");
  return t && t->kind == AT_TYPE ? t->type : NULL;
}

shl_str func_sym_name(const shl_op *func) {
  const shl_attr *s = op_attr(func, "sym_name");
  return s && s->kind == AT_STRING ? s->u.str : (shl_str){"", 0};
}
