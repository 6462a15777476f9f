/* The IR section of MLIR bytecode: ops, regions and blocks, read depth first
 * into shloc's IR.  VHLO ops are converted to StableHLO as they are created
 * (vhlo/vhlo_convert.c); other ops keep their names and attributes. */
#include <stdlib.h>

#include "bc_reader.h"
#include "vhlo/vhlo.h"

enum {
  OPM_ATTRS = 0x01,
  OPM_RESULTS = 0x02,
  OPM_OPERANDS = 0x04,
  OPM_SUCCESSORS = 0x08,
  OPM_REGIONS = 0x10,
  OPM_USE_LISTS = 0x20,
  OPM_PROPERTIES = 0x40,
};

/* Values visible from the region being read: each region reserves the
 * number of values it defines; isolated regions start a new scope. */
typedef struct {
  shl_value **v;
  size_t n, cap;
  size_t base; /* first index of the current isolated scope */
} value_stack;

/* A malloc'd array reused op after op: op_create copies what it keeps. */
typedef struct {
  void *p;
  size_t cap; /* elements */
} scratch;

typedef struct {
  bc_reader *r;
  value_stack vs;
  scratch attrs, conv, operands, types;
} ir_reader;

static void *scratch_get(scratch *s, size_t n, size_t size) {
  if (n > s->cap) {
    size_t cap = s->cap ? s->cap : 16;
    while (cap < n) cap *= 2;
    void *np = realloc(s->p, cap * size);
    if (!np) return NULL;
    s->p = np;
    s->cap = cap;
  }
  return s->p;
}

static shl_status reserve(ir_reader *ir, bc_cur *c, uint64_t n, size_t *first) {
  /* Every value takes at least one byte to define (its type). */
  if (n > bc_left(c)) return bc_error(ir->r, c->p, "region declares %llu values, more than its bytes allow", (unsigned long long)n);
  value_stack *s = &ir->vs;
  *first = s->n;
  if (!n) return NULL;
  if (s->n + n > s->cap) {
    size_t cap = s->cap ? s->cap : 64;
    while (cap < s->n + n) cap *= 2;
    shl_value **nv = realloc(s->v, cap * sizeof *nv);
    if (!nv) return st_oom();
    s->v = nv;
    s->cap = cap;
  }
  memset(s->v + s->n, 0, n * sizeof *s->v);
  s->n += n;
  return NULL;
}

typedef struct {
  size_t next, end; /* value slots of the region being read */
} region_slots;

static shl_status define(ir_reader *ir, region_slots *rs, const uint8_t *at, shl_value *v) {
  if (rs->next >= rs->end) return bc_error(ir->r, at, "more values defined than the region declared");
  ir->vs.v[rs->next++] = v;
  return NULL;
}

static shl_status use_lists(bc_cur *c, uint64_t range) {
  uint64_t n = 1;
  if (range > 1) ST_TRY(bc_count(c, 1, &n));
  for (uint64_t i = 0; i < n; i++) {
    uint64_t idx, cnt, x;
    bool pairs;
    if (range > 1) ST_TRY(bc_varint(c, &idx));
    ST_TRY(bc_varint_flag(c, &cnt, &pairs));
    if (cnt > bc_left(c)) return bc_eof(c);
    /* The order of uses does not matter to shloc: skipped. */
    for (uint64_t k = 0; k < cnt; k++) ST_TRY(bc_varint(c, &x));
  }
  return NULL;
}

static shl_status read_region(ir_reader *ir, bc_cur *c, shl_region *reg, shl_op *parent);

/* Attributes of an op in properties: for VHLO ops one attribute per name of
 * the op's table row (sorted order); for unregistered ops one dictionary. */
static shl_status read_properties(ir_reader *ir, const uint8_t *at, uint64_t idx, const bc_opname *on,
                                  bool registered, shl_named_attr **attrs, uint32_t *n, uint32_t *cap) {
  bc_reader *r = ir->r;
  if (!registered) {
    /* An unregistered op's properties are one attribute (a dictionary),
     * referred to from its entry in the properties section. */
    if (idx >= r->n_props) return bc_error(r, at, "properties index %llu out of range (%u)", (unsigned long long)idx, r->n_props);
    bc_cur pc = {r, r->props[idx], r->props[idx] + r->props_len[idx]};
    const shl_attr *d;
    ST_TRY(bc_attr(&pc, &d));
    if (d->kind != AT_DICT) return bc_error(r, at, "properties of an unregistered op must be a dictionary");
    *cap = *n + d->u.dict.n;
    if (!(*attrs = scratch_get(&ir->attrs, *cap + 1, sizeof **attrs))) return st_oom();
    for (uint32_t i = 0; i < d->u.dict.n; i++) (*attrs)[(*n)++] = d->u.dict.items[i];
    return NULL;
  }
  if (idx >= r->n_props) return bc_error(r, at, "properties index %llu out of range (%u)", (unsigned long long)idx, r->n_props);
  bc_cur pc = {r, r->props[idx], r->props[idx] + r->props_len[idx]};
  if (!on->vhlo) return bc_native_properties(r, at, on->name, pc.p, bc_left(&pc), *attrs, n, *cap);
  const vhlo_opinfo *vi = on->vhlo;
  if (vi->n_attrs > *cap - *n) return bc_error(r, at, "too many attributes");
  for (uint32_t k = 0; k < vi->n_attrs; k++) {
    const shl_attr *a;
    ST_TRY(bc_attr(&pc, &a));
    (*attrs)[(*n)++] = (shl_named_attr){str_of(vi->attrs[k]), a, true};
  }
  if (!bc_done(&pc)) return bc_error(r, pc.p, "%zu bytes left over after the op's properties", bc_left(&pc));
  return NULL;
}

/* The text of a location attribute for op->loc ("" when unknown). */
static shl_str loc_text(bc_reader *r, const shl_attr *loc) {
  if (!loc || loc->kind != AT_OPAQUE || str_eq_c(loc->u.str, "loc(unknown)")) return (shl_str){"", 0};
  (void)r;
  return loc->u.str;
}

static shl_status read_op(ir_reader *ir, bc_cur *c, shl_block *blk, region_slots *rs, shl_op *parent) {
  bc_reader *r = ir->r;
  const uint8_t *at = c->p;
  uint64_t name_idx;
  ST_TRY(bc_varint(c, &name_idx));
  if (name_idx >= r->n_opnames) return bc_error(r, at, "op name index %llu out of range (%u)", (unsigned long long)name_idx, r->n_opnames);
  const bc_opname *on = &r->opnames[name_idx];
  r->cur_op = on->name.p;
  uint8_t mask;
  ST_TRY(bc_byte(c, &mask));
  const shl_attr *loc;
  ST_TRY(bc_attr(c, &loc));

  /* Attributes: the dictionary, then (bytecode >= 5) the properties. */
  const shl_attr *dict = NULL;
  const uint8_t *dict_at = c->p;
  if (mask & OPM_ATTRS) {
    ST_TRY(bc_attr(c, &dict));
    if (dict->kind != AT_DICT) return bc_error(r, dict_at, "op attributes are not a dictionary");
  }
  uint64_t prop_idx = 0;
  const uint8_t *prop_at = c->p;
  uint32_t cap = dict ? dict->u.dict.n : 0, n_attrs = 0;
  if (mask & OPM_PROPERTIES) {
    if (r->version < BC_V_NATIVE_PROPERTIES) return bc_error(r, at, "properties in bytecode version %llu", (unsigned long long)r->version);
    ST_TRY(bc_varint(c, &prop_idx));
    if (prop_idx >= r->n_props) return bc_error(r, prop_at, "properties index %llu out of range (%u)", (unsigned long long)prop_idx, r->n_props);
    /* No op has more properties than bytes in its blob. */
    cap += (uint32_t)r->props_len[prop_idx] + 8;
  }
  shl_named_attr *attrs = scratch_get(&ir->attrs, cap + 1, sizeof *attrs);
  if (!attrs) return st_oom();
  if (dict)
    for (uint32_t i = 0; i < dict->u.dict.n; i++) attrs[n_attrs++] = dict->u.dict.items[i];
  /* The registered flag of the op name decides the encoding. */
  if (mask & OPM_PROPERTIES) ST_TRY(read_properties(ir, prop_at, prop_idx, on, on->registered, &attrs, &n_attrs, &cap));

  uint64_t n_results = 0, n_operands = 0;
  const shl_type **rtypes = NULL;
  shl_value **operands = NULL;
  if (mask & OPM_RESULTS) {
    ST_TRY(bc_count(c, 1, &n_results));
    rtypes = scratch_get(&ir->types, n_results + 1, sizeof *rtypes);
    if (!rtypes) return st_oom();
    for (uint64_t i = 0; i < n_results; i++) ST_TRY(bc_type(c, &rtypes[i]));
  }
  if (mask & OPM_OPERANDS) {
    ST_TRY(bc_count(c, 1, &n_operands));
    operands = scratch_get(&ir->operands, n_operands + 1, sizeof *operands);
    if (!operands) return st_oom();
    for (uint64_t i = 0; i < n_operands; i++) {
      const uint8_t *vat = c->p;
      uint64_t vi;
      ST_TRY(bc_varint(c, &vi));
      size_t slot = ir->vs.base + vi;
      if (vi >= ir->vs.n - ir->vs.base) return bc_error(r, vat, "operand %llu refers to value %llu, out of range", (unsigned long long)i, (unsigned long long)vi);
      if (!ir->vs.v[slot]) return bc_error(r, vat, "operand %llu refers to value %llu before its definition (forward references are not supported)", (unsigned long long)i, (unsigned long long)vi);
      operands[i] = ir->vs.v[slot];
    }
  }
  if (mask & OPM_SUCCESSORS) return bc_error(r, at, "ops with successors (branches between blocks) are not supported");
  if ((mask & OPM_USE_LISTS) && r->version >= BC_V_USE_LIST_ORDERING) ST_TRY(use_lists(c, n_results));
  uint64_t n_regions = 0;
  bool isolated = false;
  if (mask & OPM_REGIONS) {
    ST_TRY(bc_varint_flag(c, &n_regions, &isolated));
    if (n_regions > bc_left(c)) return bc_eof(c);
  }

  const shl_opdef *def = on->def;
  shl_str name = on->name;
  if (on->vhlo) {
    vhlo_converted cv;
    shl_named_attr *buf = scratch_get(&ir->conv, n_attrs + 16, sizeof *buf);
    if (!buf) return st_oom();
    ST_TRY(vhlo_convert_op(r, at, on->vhlo, parent ? parent->name : (shl_str){"", 0}, attrs, n_attrs, buf, n_attrs + 16, &cv));
    def = cv.def;
    name = cv.name;
    attrs = cv.attrs;
    n_attrs = cv.n_attrs;
  } else {
    if (r->dialects[on->dialect].kind == BD_VHLO)
      return bc_error(r, at, "unknown VHLO op '%s' (newer than this reader, which knows VHLO up to v%u.%u.%u)", on->name.p,
                      vhlo_current_version()[0], vhlo_current_version()[1], vhlo_current_version()[2]);
    uint32_t dup;
    for (uint32_t i = 0; i < n_attrs; i++) attrs[i].is_prop = memchr(attrs[i].name.p, '.', attrs[i].name.n) == NULL;
    if (!attrs_sort(attrs, n_attrs, &dup)) return bc_error(r, at, "duplicate attribute '%.*s'", (int)attrs[dup].name.n, attrs[dup].name.p);
  }
  if (!def) def = &shl_op_table[OP_UNKNOWN];
  shl_op *op = op_create(r->a, def, name, (uint32_t)n_operands, operands, (uint32_t)n_results, rtypes, n_attrs, attrs,
                         (uint32_t)n_regions);
  if (!op) return st_oom();
  op->pos = (shl_srcpos){r->fname, 0, (int)((size_t)(at - r->data) > INT32_MAX ? INT32_MAX : (at - r->data))};
  op->loc = loc_text(r, loc);
  block_append(blk, op);
  for (uint32_t i = 0; i < op->n_results; i++) ST_TRY(define(ir, rs, at, &op->results[i]));

  if (!n_regions) return NULL;
  bc_cur sub = *c;
  size_t saved_base = ir->vs.base;
  if (isolated) {
    ir->vs.base = ir->vs.n;
    if (r->version >= BC_V_LAZY_LOADING) {
      uint8_t id;
      const uint8_t *sat = c->p;
      ST_TRY(bc_section(c, &id, &sub));
      if (id != BC_SEC_IR) return bc_error(r, sat, "expected an IR section for the regions of an isolated op");
    }
  }
  if (++r->depth > r->m->ctx->limits.max_nesting) return bc_error(r, at, "regions nested deeper than %u", r->m->ctx->limits.max_nesting);
  for (uint32_t i = 0; i < op->n_regions; i++) ST_TRY(read_region(ir, &sub, &op->regions[i], op));
  r->depth--;
  if (isolated) {
    ir->vs.n = ir->vs.base;
    ir->vs.base = saved_base;
    if (r->version < BC_V_LAZY_LOADING) *c = sub;
  } else {
    *c = sub;
  }
  r->cur_op = NULL;
  return NULL;
}

static shl_status read_block(ir_reader *ir, bc_cur *c, shl_block **out, region_slots *rs, shl_op *parent, bool top) {
  bc_reader *r = ir->r;
  const uint8_t *at = c->p;
  uint64_t n_ops;
  bool has_args;
  ST_TRY(bc_varint_flag(c, &n_ops, &has_args));
  if (n_ops > bc_left(c) / 2 + 1) return bc_error(r, at, "block declares %llu ops, more than its bytes allow", (unsigned long long)n_ops);
  uint64_t n_args = 0;
  const shl_type **types = NULL;
  const shl_attr **locs = NULL;
  if (has_args) {
    ST_TRY(bc_count(c, 1, &n_args));
    types = ARENA_ARRAY(r->a, const shl_type *, n_args ? n_args : 1);
    locs = ARENA_ARRAY(r->a, const shl_attr *, n_args ? n_args : 1);
    if (!types || !locs) return st_oom();
    for (uint64_t i = 0; i < n_args; i++) {
      const uint8_t *tat = c->p;
      uint64_t ti;
      bool has_loc = true;
      if (r->version >= BC_V_ELIDE_UNKNOWN_BLOCK_ARG_LOC) ST_TRY(bc_varint_flag(c, &ti, &has_loc));
      else ST_TRY(bc_varint(c, &ti));
      ST_TRY(bc_type_at(r, ti, tat, &types[i]));
      locs[i] = NULL;
      if (has_loc) ST_TRY(bc_attr(c, &locs[i]));
    }
  }
  shl_block *b = block_create(r->a, (uint32_t)n_args, types);
  if (!b) return st_oom();
  for (uint32_t i = 0; i < b->n_args; i++) {
    ST_TRY(define(ir, rs, at, &b->args[i]));
    shl_str lt = loc_text(r, locs[i]);
    if (lt.n && !block_set_arg_loc(r->a, b, i, lt)) return st_oom();
  }
  if (has_args && r->version >= BC_V_USE_LIST_ORDERING) {
    uint8_t orders;
    ST_TRY(bc_byte(c, &orders));
    if (orders) ST_TRY(use_lists(c, n_args));
  }
  (void)top;
  *out = b;
  for (uint64_t i = 0; i < n_ops; i++) ST_TRY(read_op(ir, c, b, rs, parent));
  return NULL;
}

static shl_status read_region(ir_reader *ir, bc_cur *c, shl_region *reg, shl_op *parent) {
  bc_reader *r = ir->r;
  const uint8_t *at = c->p;
  uint64_t n_blocks, n_values;
  ST_TRY(bc_count(c, 1, &n_blocks));
  if (!n_blocks) return NULL;
  ST_TRY(bc_varint(c, &n_values));
  region_slots rs;
  ST_TRY(reserve(ir, c, n_values, &rs.next));
  rs.end = rs.next + n_values;
  size_t mark = rs.next;
  for (uint64_t i = 0; i < n_blocks; i++) {
    shl_block *b;
    ST_TRY(read_block(ir, c, &b, &rs, parent, false));
    if (!region_append_block(r->a, reg, b)) return st_oom();
  }
  (void)at;
  ir->vs.n = mark; /* the region's values go out of scope */
  return NULL;
}

shl_status bc_read_ir(bc_reader *r) {
  ir_reader ir = {.r = r};
  bc_cur c = {r, r->sec[BC_SEC_IR], r->sec[BC_SEC_IR] + r->sec_len[BC_SEC_IR]};
  /* The section is one block of top-level ops (no values of its own). */
  shl_block *top;
  region_slots rs = {0, 0};
  shl_status st = read_block(&ir, &c, &top, &rs, NULL, true);
  free(ir.vs.v);
  free(ir.attrs.p);
  free(ir.conv.p);
  free(ir.operands.p);
  free(ir.types.p);
  if (st) return st;
  shloc_module *m = r->m;
  if (top->n_args) return bc_error(r, r->sec[BC_SEC_IR], "the top-level block has arguments");
  if (!top->first || top->first != top->last || !op_is(top->first, OP_MODULE))
    return bc_error(r, r->sec[BC_SEC_IR], "the artifact must hold exactly one builtin.module");
  m->top = top->first;
  m->top->block = NULL;
  return NULL;
}
