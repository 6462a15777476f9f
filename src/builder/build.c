/* Builder core: every op is checked in full before it is linked into its
 * block, so a failed call leaves the module's IR as it was. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "builder_impl.h"
#include "verify/verify.h"

static const verify_fn rules[OP_COUNT] = {
#define OP(id, name, traits, syn, ver, ker) [OP_##id] = verify_##ver,
#include "ir/ops.def"
#undef OP
};

static const shl_srcpos builder_pos = {"<builder>", 0, 0};

shl_status bld_error(shloc_code code, const char *op_name, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (!op_name) return st_error(code, &builder_pos, NULL, "%s", msg);
  return st_error(code, &builder_pos, op_name, "'%s' %s", op_name, msg);
}

shl_status bld_values(const char *op_name, const char *what, uint32_t n, shloc_value *const *in, shl_value ***out,
                      shl_arena *a) {
  *out = NULL;
  if (n && !in) return bld_error(SHLOC_ERR_INVALID_ARG, op_name, "%u %ss announced but none given", n, what);
  shl_value **v = ARENA_ARRAY(a, shl_value *, n ? n : 1);
  if (!v) return st_oom();
  for (uint32_t i = 0; i < n; i++) {
    if (!in[i]) return bld_error(SHLOC_ERR_INVALID_ARG, op_name, "%s #%u is NULL", what, i);
    v[i] = val_in(in[i]);
  }
  *out = v;
  return NULL;
}

/* ------------------------------------------------------------------ scopes */

/* The block whose values are visible in b besides its own, or NULL: the block
 * holding the op that owns b's region (the region's future op, for a region
 * still under construction), stopping at isolated ops (func.func). */
static const shl_block *enclosing_block(const shl_block *b) {
  const shl_region *r = b->region;
  if (!r) return NULL;
  if (!r->parent) {
    const shloc_region *w = (const shloc_region *)(const void *)((const char *)r - offsetof(shloc_region, r));
    return w->enclosing;
  }
  if (r->parent->def->traits & T_ISO) return NULL;
  return r->parent->block;
}

static bool visible_in(const shl_block *b, const shl_value *v) {
  const shl_block *vb = v->def ? v->def->block : v->block;
  if (!vb) return false;
  for (; b; b = enclosing_block(b))
    if (b == vb) return true;
  return false;
}

/* ------------------------------------------------------------------ ops */

static shl_status check_block(shloc_block *b, const char *name) {
  if (!b || !b->blk) return bld_error(SHLOC_ERR_INVALID_ARG, name, "block is NULL");
  const shl_op *last = b->blk->last;
  if (last && (last->def->traits & T_TERM))
    return bld_error(SHLOC_ERR_INVALID_ARG, name, "block already ends with its terminator '%s'", op_name_cstr(last));
  return NULL;
}

static shl_status check_regions(shloc_block *b, const bld_spec *s, const char *name) {
  if (s->n_regions && !s->regions) return bld_error(SHLOC_ERR_INVALID_ARG, name, "regions announced but none given");
  for (uint32_t i = 0; i < s->n_regions; i++) {
    const shloc_region *r = s->regions[i];
    if (!r) return bld_error(SHLOC_ERR_INVALID_ARG, name, "region #%u is NULL", i);
    if (r->consumed) return bld_error(SHLOC_ERR_INVALID_ARG, name, "region #%u already belongs to another op", i);
    if (r->enclosing != b->blk || r->body.m != b->m)
      return bld_error(SHLOC_ERR_INVALID_ARG, name, "region #%u was created for another block", i);
    for (uint32_t j = 0; j < i; j++)
      if (s->regions[j] == r) return bld_error(SHLOC_ERR_INVALID_ARG, name, "region #%u is given twice", i);
  }
  return NULL;
}

static void point_blocks(shl_region *r, shl_region *to) {
  for (uint32_t i = 0; i < r->n_blocks; i++) r->blocks[i]->region = to;
}

/* stablehlo.return is checked by its parent op's rule; inside a region that
 * has no op yet there is nothing to check it against. */
static bool rule_applies(const shl_op *op, const shl_block *b) {
  return !(op_is(op, OP_RETURN) && b->region && !b->region->parent);
}

shl_status bld_prepare(shloc_block *b, const bld_spec *s, shl_op **out) {
  *out = NULL;
  const char *name = s->name.p;
  ST_TRY(check_block(b, name));
  shloc_module *m = b->m;
  shl_arena *a = &m->arena;
  if (s->n_operands && !s->operands) return bld_error(SHLOC_ERR_INVALID_ARG, name, "operands announced but none given");
  for (uint32_t i = 0; i < s->n_operands; i++) {
    if (!s->operands[i]) return bld_error(SHLOC_ERR_INVALID_ARG, name, "operand #%u is NULL", i);
    if (!visible_in(b->blk, s->operands[i]))
      return bld_error(SHLOC_ERR_INVALID_ARG, name,
                       "operand #%u is not visible in this block (it belongs to another function or module, or to "
                       "a region that does not enclose this block)",
                       i);
  }
  ST_TRY(check_regions(b, s, name));
  shl_named_attr *attrs = NULL;
  if (s->n_attrs) {
    attrs = ARENA_ARRAY(a, shl_named_attr, s->n_attrs);
    if (!attrs) return st_oom();
    memcpy(attrs, s->attrs, s->n_attrs * sizeof *attrs);
    shl_status st = bld_sort_unique("attributes", attrs, s->n_attrs);
    if (st) return st_at(st, &builder_pos, name);
  }
  const shl_type *const *types = s->result_types;
  uint32_t n_results = s->n_results;
  if (s->infer_results) {
    const shl_type **inferred;
    ST_TRY(bld_infer(m, s, &inferred, &n_results));
    types = inferred;
  } else if (n_results && !types) {
    return bld_error(SHLOC_ERR_INVALID_ARG, name, "result types announced but none given");
  }
  for (uint32_t i = 0; i < n_results; i++)
    if (!types[i]) return bld_error(SHLOC_ERR_INVALID_ARG, name, "result type #%u is NULL", i);
  /* The op keeps the sorted copy (op_create would copy it once more). */
  shl_op *op = op_create(a, s->def, s->name, s->n_operands, s->operands, n_results, types, 0, NULL, s->n_regions);
  if (!op) return st_oom();
  op->attrs = attrs;
  op->n_attrs = s->n_attrs;
  op->pos = (shl_srcpos){m->filename, 0, 0};
  for (uint32_t i = 0; i < s->n_regions; i++) {
    shl_region *r = &s->regions[i]->r;
    op->regions[i].blocks = r->blocks;
    op->regions[i].n_blocks = r->n_blocks;
    point_blocks(r, &op->regions[i]);
  }
  /* Known to its block (rules look at the parent, later operands at the
   * block), but not in the block's list until bld_commit. */
  op->block = b->blk;
  if (rule_applies(op, b->blk)) {
    verify_ctx vc = {m};
    shl_status st = rules[op_id(op)](&vc, op);
    if (st) {
      for (uint32_t i = 0; i < s->n_regions; i++) point_blocks(&op->regions[i], &s->regions[i]->r);
      return st;
    }
  }
  *out = op;
  return NULL;
}

void bld_commit(shloc_block *b, const bld_spec *s, shl_op *op) {
  for (uint32_t i = 0; i < s->n_regions; i++) s->regions[i]->consumed = true;
  block_append(b->blk, op);
}

shl_status bld_op(shloc_block *b, const bld_spec *s, shl_op **out) {
  ST_TRY(bld_prepare(b, s, out));
  bld_commit(b, s, *out);
  return NULL;
}

shl_status bld_simple(shloc_block *b, shl_opid id, uint32_t n_operands, shl_value *const *operands,
                      const shl_type *result_type, uint32_t n_attrs, const shl_named_attr *attrs, shl_value **out) {
  *out = NULL;
  bld_spec s = {.def = &shl_op_table[id], .name = str_of(shl_op_table[id].name), .n_operands = n_operands,
                .operands = operands, .infer_results = result_type == NULL, .n_results = 1,
                .result_types = &result_type, .n_attrs = n_attrs, .attrs = attrs};
  shl_op *op;
  ST_TRY(bld_op(b, &s, &op));
  if (op->n_results != 1) return bld_error(SHLOC_ERR_INVALID_ARG, shl_op_table[id].name, "expected one result");
  *out = &op->results[0];
  return NULL;
}

/* ------------------------------------------------------------------ any op */

static shl_status op_name(shloc_module *m, const char *name, const shl_opdef **def, shl_str *out) {
  if (!name || !*name) return bld_error(SHLOC_ERR_INVALID_ARG, NULL, "op name is empty");
  size_t n = strlen(name);
  if (n > m->ctx->limits.max_attr_text_bytes)
    return bld_error(SHLOC_ERR_LIMIT, NULL, "op name is longer than the limit of %zu bytes",
                     m->ctx->limits.max_attr_text_bytes);
  const shl_opdef *d = opdef_lookup((shl_str){name, n});
  if (d) {
    if (d->id == OP_MODULE || d->id == OP_FUNC)
      return bld_error(SHLOC_ERR_INVALID_ARG, d->name, "is not built as an op: use shloc_func_create");
    *def = d;
    *out = str_of(d->name);
    return NULL;
  }
  if (!memchr(name, '.', n))
    return bld_error(SHLOC_ERR_INVALID_ARG, NULL, "unknown op '%.64s' (ops outside the table are 'dialect.name')", name);
  char *copy = arena_strndup(&m->arena, name, n);
  if (!copy) return st_oom();
  *def = &shl_op_table[OP_UNKNOWN];
  *out = (shl_str){copy, n};
  return NULL;
}

shl_status shloc_build_op(shloc_block *b, const shloc_op_spec *spec, shloc_op **out_op) {
  if (out_op) *out_op = NULL;
  if (!b || !spec) return bld_error(SHLOC_ERR_INVALID_ARG, NULL, "block or op spec is NULL");
  shloc_module *m = b->m;
  shl_arena *a = &m->arena;
  bld_spec s = {0};
  ST_TRY(op_name(m, spec->name, &s.def, &s.name));
  const char *name = s.def->id == OP_UNKNOWN ? spec->name : s.def->name;
  shl_value **operands;
  ST_TRY(bld_values(name, "operand", spec->n_operands, spec->operands, &operands, a));
  shl_named_attr *text_attrs;
  shl_status st = bld_attr_pairs(m, "attrs", spec->attrs, spec->n_attrs, &text_attrs);
  if (st) return st_at(st, &builder_pos, name);
  uint32_t n_attrs = spec->n_attrs + spec->n_typed_attrs;
  if (spec->n_typed_attrs && !spec->typed_attrs)
    return bld_error(SHLOC_ERR_INVALID_ARG, name, "typed attributes announced but none given");
  shl_named_attr *attrs = ARENA_ARRAY(a, shl_named_attr, n_attrs ? n_attrs : 1);
  if (!attrs) return st_oom();
  if (spec->n_attrs) memcpy(attrs, text_attrs, spec->n_attrs * sizeof *attrs);
  for (uint32_t i = 0; i < spec->n_typed_attrs; i++) {
    shl_named_attr *na = &attrs[spec->n_attrs + i];
    st = bld_attr_name(m, "typed_attrs", i, spec->typed_attrs[i].name, &na->name);
    if (st) return st_at(st, &builder_pos, name);
    if (!spec->typed_attrs[i].value)
      return bld_error(SHLOC_ERR_INVALID_ARG, name, "typed_attrs[%u] '%.64s' has no value", i, spec->typed_attrs[i].name);
    na->attr = at_in(spec->typed_attrs[i].value);
    na->is_prop = bld_is_prop(na->name);
  }
  s.n_operands = spec->n_operands;
  s.operands = operands;
  s.n_attrs = n_attrs;
  s.attrs = attrs;
  s.n_regions = spec->n_regions;
  s.regions = spec->regions;
  s.infer_results = spec->n_results == 0 && bld_can_infer(s.def);
  s.n_results = spec->n_results;
  s.result_types = (const shl_type *const *)(const void *)spec->result_types;
  shl_op *op;
  ST_TRY(bld_op(b, &s, &op));
  if (out_op) *out_op = op_out(op);
  return NULL;
}

uint32_t shloc_op_num_results(const shloc_op *op) { return op ? ((const shl_op *)(const void *)op)->n_results : 0; }

shloc_value *shloc_op_result(shloc_op *op, uint32_t i) {
  shl_op *o = op_in(op);
  if (!o || i >= o->n_results) return NULL;
  return val_out(&o->results[i]);
}

shl_status shloc_build_return(shloc_block *b, uint32_t n, shloc_value *const *values) {
  if (!b) return bld_error(SHLOC_ERR_INVALID_ARG, "stablehlo.return", "block is NULL");
  shl_value **v;
  ST_TRY(bld_values("stablehlo.return", "operand", n, values, &v, &b->m->arena));
  bld_spec s = {.def = &shl_op_table[OP_RETURN], .name = str_of("stablehlo.return"), .n_operands = n, .operands = v};
  shl_op *op;
  return bld_op(b, &s, &op);
}
