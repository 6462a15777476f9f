/* Builder: modules, functions, regions and types. */
#include <stdlib.h>

#include "builder_impl.h"
#include "text/parse_fragment.h"

static shl_srcpos builder_pos(const shloc_module *m) { return (shl_srcpos){m->filename, 0, 0}; }

/* ------------------------------------------------------------------ modules */

shl_status shloc_module_create(shloc_context *ctx, shloc_module **out_module) {
  if (!out_module) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "out_module is NULL");
  *out_module = NULL;
  if (!ctx) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "context is NULL");
  shloc_module *m = calloc(1, sizeof *m);
  if (!m) return st_oom();
  m->ctx = ctx;
  arena_init(&m->arena);
  m->filename = arena_strndup(&m->arena, "<builder>", strlen("<builder>"));
  shl_op *top = op_create(&m->arena, &shl_op_table[OP_MODULE], str_of("builtin.module"), 0, NULL, 0, NULL, 0, NULL, 1);
  shl_block *body = block_create(&m->arena, 0, NULL);
  if (!m->filename || !top || !body || !region_append_block(&m->arena, &top->regions[0], body)) {
    shloc_module_destroy(m);
    return st_oom();
  }
  top->pos = builder_pos(m);
  m->top = top;
  *out_module = m;
  return NULL;
}

/* ------------------------------------------------------------------ types */

shl_status bld_dtype(const char *name, shl_dtype *out) {
  if (!name) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "element type name is NULL");
  shl_dtype dt = dtype_from_name(name, strlen(name));
  if (!strcmp(name, "complex<f32>")) dt = DT_C64;
  if (!strcmp(name, "complex<f64>")) dt = DT_C128;
  if (!dt) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "unknown element type '%.64s'", name);
  *out = dt;
  return NULL;
}

const shl_type *bld_tensor_like(shl_arena *a, const shl_type *t, shl_dtype dt) {
  shl_type *r = type_tensor(a, dt, t->rank, t->dims);
  if (r) r->encoding = t->encoding;
  return r;
}

shl_status shloc_type_tensor(shloc_module *m, const char *element_type, uint32_t rank, const int64_t *dims,
                             const shloc_type **out) {
  *out = NULL;
  shl_dtype dt;
  ST_TRY(bld_dtype(element_type, &dt));
  if (rank > INT32_MAX || (rank && !dims))
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "tensor type: bad rank %u or missing dims", rank);
  uint64_t count = 1;
  bool overflow = false;
  for (uint32_t i = 0; i < rank; i++) {
    if (dims[i] == SHLOC_DYN) continue;
    if (dims[i] < 0)
      return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "tensor type: dimension #%u is %lld (use SHLOC_DYN for '?')",
                      i, (long long)dims[i]);
    if (dims[i] && count > UINT64_MAX / (uint64_t)dims[i]) overflow = true;
    else count *= (uint64_t)dims[i];
  }
  if (overflow || count > m->ctx->limits.max_elements)
    return st_error(SHLOC_ERR_LIMIT, NULL, NULL, "tensor type has more than the limit of %llu elements",
                    (unsigned long long)m->ctx->limits.max_elements);
  const shl_type *t = type_tensor(&m->arena, dt, (int32_t)rank, dims);
  if (!t) return st_oom();
  *out = ty_out(t);
  return NULL;
}

shl_status shloc_type_parse(shloc_module *m, const char *text, size_t len, const shloc_type **out) {
  const shl_type *t;
  *out = NULL;
  ST_TRY(text_parse_type(m, text, len, &t));
  *out = ty_out(t);
  return NULL;
}

const shloc_type *shloc_value_type(const shloc_value *v) {
  return v ? ty_out(((const shl_value *)(const void *)v)->type) : NULL;
}

int32_t shloc_type_rank(const shloc_type *t) {
  const shl_type *x = ty_in(t);
  return x && x->kind == TY_TENSOR ? x->rank : -1;
}

int64_t shloc_type_dim(const shloc_type *t, uint32_t i) {
  const shl_type *x = ty_in(t);
  if (!x || x->kind != TY_TENSOR || x->rank < 0 || i >= (uint32_t)x->rank) return 0;
  return x->dims[i];
}

const char *shloc_type_element(const shloc_type *t) {
  const shl_type *x = ty_in(t);
  if (!x || x->kind != TY_TENSOR) return NULL;
  return dtype_name(type_storage_dtype(x));
}

/* ------------------------------------------------------------------ functions */

static shl_type *function_type(shl_arena *a, uint32_t n_in, const shl_type *const *in, uint32_t n_out,
                               const shl_type *const *out) {
  shl_type *ft = ARENA_NEW(a, shl_type);
  const shl_type **iv = ARENA_ARRAY(a, const shl_type *, n_in ? n_in : 1);
  const shl_type **ov = ARENA_ARRAY(a, const shl_type *, n_out ? n_out : 1);
  if (!ft || !iv || !ov) return NULL;
  if (n_in) memcpy(iv, in, n_in * sizeof *iv);
  if (n_out) memcpy(ov, out, n_out * sizeof *ov);
  ft->kind = TY_FUNCTION;
  ft->n_in = n_in;
  ft->in = iv;
  ft->n_out = n_out;
  ft->out = ov;
  return ft;
}

static shl_status check_types(const char *what, uint32_t n, const shloc_type *const *types) {
  if (n && !types) return st_error(SHLOC_ERR_INVALID_ARG, NULL, "func.func", "%s: %u types announced, none given", what, n);
  for (uint32_t i = 0; i < n; i++)
    if (!types[i]) return st_error(SHLOC_ERR_INVALID_ARG, NULL, "func.func", "%s #%u is NULL", what, i);
  return NULL;
}

shl_status shloc_func_create(shloc_module *m, const char *name, uint32_t n_args, const shloc_type *const *arg_types,
                             uint32_t n_results, const shloc_type *const *result_types, unsigned flags,
                             shloc_func **out_func) {
  *out_func = NULL;
  if (!name || !*name) return st_error(SHLOC_ERR_INVALID_ARG, NULL, "func.func", "function name is empty");
  size_t name_len = strlen(name);
  if (name_len > m->ctx->limits.max_attr_text_bytes)
    return st_error(SHLOC_ERR_LIMIT, NULL, "func.func", "function name is longer than the limit of %zu bytes",
                    m->ctx->limits.max_attr_text_bytes);
  if (flags & ~(unsigned)SHLOC_FUNC_PRIVATE)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, "func.func", "unknown flags 0x%x", flags);
  ST_TRY(check_types("argument type", n_args, arg_types));
  ST_TRY(check_types("result type", result_types ? n_results : 0, result_types));
  shl_str sname = {name, name_len};
  if (module_find_func(m, sname))
    return st_error(SHLOC_ERR_ALREADY_EXISTS, NULL, "func.func", "a function named '%.64s' already exists", name);
  shl_arena *a = &m->arena;
  const shl_type *const *in = (const shl_type *const *)(const void *)arg_types;
  const shl_type *const *res = (const shl_type *const *)(const void *)result_types;
  shl_type *ft = function_type(a, n_args, in, result_types ? n_results : 0, res);
  shl_attr *fta = attr_new(a, AT_TYPE);
  shl_attr *sym = attr_string(a, sname);
  shl_attr *vis = attr_string(a, str_of("private"));
  shloc_func *f = ARENA_NEW(a, shloc_func);
  shl_block *body = block_create(a, n_args, in);
  if (!ft || !fta || !sym || !vis || !f || !body) return st_oom();
  fta->type = ft;
  shl_named_attr attrs[3] = {{STR_LIT("function_type"), fta, true}, {STR_LIT("sym_name"), sym, true},
                             {STR_LIT("sym_visibility"), vis, true}};
  uint32_t n_attrs = (flags & SHLOC_FUNC_PRIVATE) ? 3 : 2;
  shl_op *op = op_create(a, &shl_op_table[OP_FUNC], str_of("func.func"), 0, NULL, 0, NULL, n_attrs, attrs, 1);
  if (!op || !region_append_block(a, &op->regions[0], body)) return st_oom();
  op->pos = builder_pos(m);
  for (uint32_t i = 0; i < n_args; i++) body->args[i].pos = op->pos;
  f->op = op;
  f->body = (shloc_block){body, m};
  f->declared_results = result_types != NULL;
  block_append(m->top->regions[0].blocks[0], op);
  *out_func = f;
  return NULL;
}

shloc_block *shloc_func_body(shloc_func *f) { return f ? &f->body : NULL; }

shloc_value *shloc_func_arg(shloc_func *f, uint32_t i) {
  if (!f || i >= f->body.blk->n_args) return NULL;
  return val_out(&f->body.blk->args[i]);
}

shl_status shloc_func_return(shloc_func *f, uint32_t n, shloc_value *const *values) {
  if (!f) return st_error(SHLOC_ERR_INVALID_ARG, NULL, "func.return", "function is NULL");
  shloc_module *m = f->body.m;
  shl_value **vals;
  ST_TRY(bld_values("func.return", "operand", n, values, &vals, &m->arena));
  shl_named_attr *fattr = NULL;
  for (uint32_t i = 0; i < f->op->n_attrs; i++)
    if (str_eq_c(f->op->attrs[i].name, "function_type")) fattr = &f->op->attrs[i];
  if (!fattr) return st_error(SHLOC_ERR_INVALID_ARG, NULL, "func.return", "function has no function_type");
  const shl_attr *old = fattr->attr;
  if (!f->declared_results) {
    /* The returned values declare the results (restored if the return fails). */
    const shl_type **outs = ARENA_ARRAY(&m->arena, const shl_type *, n ? n : 1);
    shl_attr *fta = attr_new(&m->arena, AT_TYPE);
    if (!outs || !fta) return st_oom();
    for (uint32_t i = 0; i < n; i++) outs[i] = vals[i]->type;
    fta->type = function_type(&m->arena, old->type->n_in, old->type->in, n, outs);
    if (!fta->type) return st_oom();
    fattr->attr = fta;
  }
  bld_spec s = {.def = &shl_op_table[OP_FUNC_RETURN], .name = str_of("func.return"), .n_operands = n,
                .operands = vals};
  shl_op *op;
  shl_status st = bld_op(&f->body, &s, &op);
  if (st) {
    fattr->attr = old;
    return st;
  }
  f->declared_results = true;
  return NULL;
}

/* ------------------------------------------------------------------ regions */

shl_status shloc_region_create(shloc_block *parent, uint32_t n_args, const shloc_type *const *arg_types,
                               shloc_region **out_region) {
  *out_region = NULL;
  if (!parent) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "region: parent block is NULL");
  if (n_args && !arg_types) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "region: argument types missing");
  for (uint32_t i = 0; i < n_args; i++)
    if (!arg_types[i]) return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "region: argument type #%u is NULL", i);
  shloc_module *m = parent->m;
  shloc_region *r = ARENA_NEW(&m->arena, shloc_region);
  shl_block *b = block_create(&m->arena, n_args, (const shl_type *const *)(const void *)arg_types);
  if (!r || !b || !region_append_block(&m->arena, &r->r, b)) return st_oom();
  for (uint32_t i = 0; i < n_args; i++) b->args[i].pos = builder_pos(m);
  r->body = (shloc_block){b, m};
  r->enclosing = parent->blk;
  *out_region = r;
  return NULL;
}

shloc_block *shloc_region_body(shloc_region *r) { return r ? &r->body : NULL; }

shloc_value *shloc_region_arg(shloc_region *r, uint32_t i) {
  if (!r || i >= r->body.blk->n_args) return NULL;
  return val_out(&r->body.blk->args[i]);
}
