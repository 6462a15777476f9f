/* Custom calls through the registry: everything about a call site is decided
 * at plan time (ABI version, attributes, buffer descriptions, layout
 * conversions, aliasing), and the site is prepared once, which runs the
 * handler's instantiate stage; the state lives until the executable goes.
 *
 * Layouts: the executor keeps row-major data.  An operand whose
 * operand_layouts entry is not row-major is copied into a scratch buffer in
 * that layout before the call; a result likewise comes back through scratch.
 * Aliases: a result aliasing an operand gets the operand's bytes first, and
 * the handler sees the same pointer as that operand and that result (the
 * result's buffer, or its scratch when it has a layout), so it can update in
 * place; the operand's own buffer is never written.
 * Tuples: the planner passes a tuple operand or result as its leaves, and
 * the handler sees one buffer per leaf, depth first, as XLA:CPU passes them
 * (legacy ABIs: `out` is then a table of leaf pointers). */
#include <stdlib.h>

#include "exec/plan.h"
#include "ffi_call.h"
#include "strided.h"
#include "targets/builtin_targets.h"
#include "text/parse_fragment.h"

typedef enum {
  PASS_DIRECT, /* the executor's buffer as is */
  PASS_TOKEN,  /* TOKEN buffer: data NULL */
  PASS_LAYOUT, /* scratch in the handler's layout */
  PASS_ALIAS,  /* operand only: the buffer of result `alias` */
} pass_mode;

typedef struct {
  pass_mode mode;
  int alias;             /* operand: aliased result, or -1; result: source operand, or -1 */
  strided_box *to_phys;  /* PASS_LAYOUT, and results with a layout: row-major -> handler layout */
  strided_box *to_rows;  /* handler layout -> row-major */
  void *scratch;         /* malloc'd, in the handler's layout */
  size_t nbytes, esz;
} pass_info;

typedef struct {
  ffi_site *site;
  int n_args, n_rets;
  bool simple; /* every operand and result PASS_DIRECT */
  ffi_buffer *args, *rets;
  pass_info *in, *out;
} ffi_call;

static void ffi_call_release(void *p) {
  ffi_call *c = p;
  ffi_site_destroy(c->site);
  for (int i = 0; i < c->n_args; i++) free(c->in[i].scratch);
  for (int i = 0; i < c->n_rets; i++) free(c->out[i].scratch);
}

/* ---- configuration ---- */

shl_status ffi_call_config_decode(shloc_module *m, const shl_attr *api, const shl_attr *cfg, const shl_attr *mhlo,
                                  ffi_call_config *cc) {
  int64_t v = 1;
  if (api && !attr_as_int(api, &v)) return st_error(SHLOC_ERR_VERIFY, NULL, NULL, "api_version must be an integer");
  *cc = (ffi_call_config){.api_version = (int)v, .opaque = {"", 0}};
  if (v < 1 || v > 4)
    return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL, "unsupported api_version %lld for a custom call (1..3: legacy, "
                    "4: typed FFI)", (long long)v);
  bool cfg_empty = !cfg || (cfg->kind == AT_STRING && cfg->u.str.n == 0);
  if (mhlo) {
    if (mhlo->kind != AT_DICT)
      return st_error(SHLOC_ERR_VERIFY, NULL, NULL, "mhlo.backend_config must be a dictionary");
    if (!cfg_empty)
      return st_error(SHLOC_ERR_VERIFY, NULL, NULL,
                      "mhlo.backend_config requires backend_config to be absent or empty");
    if (v != 1 && v != 4)
      return st_error(SHLOC_ERR_VERIFY, NULL, NULL,
                      "mhlo.backend_config requires api_version 4 (typed FFI), got %lld", (long long)v);
    cc->api_version = 4;
    cc->dict = mhlo;
    return NULL;
  }
  if (cfg && cfg->kind == AT_DICT) {
    if (v != 4)
      return st_error(SHLOC_ERR_VERIFY, NULL, NULL, "a dictionary backend_config requires api_version 4, got %lld",
                      (long long)v);
    cc->dict = cfg;
    return NULL;
  }
  if (cfg && cfg->kind != AT_STRING)
    return st_error(SHLOC_ERR_VERIFY, NULL, NULL, "backend_config must be a string or a dictionary");
  if (v == 4 && !cfg_empty && !str_eq_c(cfg->u.str, "{}")) {
    /* XLA reads "" and "{}" as no attributes, anything else as a dictionary
     * written as MLIR text. */
    const shl_attr *d;
    shl_status st = text_parse_attr(m, cfg->u.str.p, cfg->u.str.n, &d);
    if (st) return st_annotate(st, "backend_config string of an api_version 4 custom call");
    if (d->kind != AT_DICT)
      return st_error(SHLOC_ERR_VERIFY, NULL, NULL,
                      "the backend_config string of an api_version 4 custom call must hold a dictionary");
    cc->dict = d;
    return NULL;
  }
  if (v != 4 && cfg) cc->opaque = cfg->u.str;
  return NULL;
}

/* The op's minor-to-major layout for buffer i of `attr` into m2m; *has is
 * false when the op has no such attribute (row-major then). */
static shl_status layout_of(const shl_op *op, const char *attr, uint32_t i, int32_t rank, int64_t *m2m, bool *has) {
  const shl_attr *a = op_attr(op, attr);
  *has = false;
  if (!a) return NULL;
  size_t n = 0;
  if (a->kind != AT_ARRAY || i >= a->u.arr.n || !attr_as_ints(a->u.arr.items[i], m2m, STRIDED_MAX_RANK, &n) ||
      n != (size_t)rank)
    return op_error(op, SHLOC_ERR_VERIFY, "%s #%u is not a layout of rank %d", attr, i, (int)rank);
  uint64_t seen = 0;
  for (int32_t k = 0; k < rank; k++) {
    if (m2m[k] < 0 || m2m[k] >= rank || (seen >> m2m[k]) & 1)
      return op_error(op, SHLOC_ERR_VERIFY, "%s #%u is not a permutation of [0, %d)", attr, i, (int)rank);
    seen |= 1ull << m2m[k];
  }
  *has = true;
  return NULL;
}

/* Fills the descriptor of one buffer (leaf #leaf, of type t) and, when the
 * op gives it a non-row-major layout, the conversion boxes.  `top` is the
 * operand or result index the layout attribute is indexed by, or -1 for a
 * leaf of a tuple value (which layout attributes cannot describe). */
static shl_status describe(plan_ctx *pc, const shl_op *op, const shl_type *t, const char *layouts, int64_t top,
                           uint32_t leaf, bool typed, ffi_buffer *b, pass_info *pi) {
  const char *role = layouts[0] == 'o' ? "operand" : "result";
  *pi = (pass_info){.mode = PASS_DIRECT, .alias = -1};
  if (t->kind == TY_TOKEN) {
    *b = (ffi_buffer){FFI_DT_TOKEN, NULL, 0, NULL};
    pi->mode = PASS_TOKEN;
    return NULL;
  }
  if (t->kind != TY_TENSOR)
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "%s buffer #%u has a type the executor cannot pass", role, leaf);
  if (!type_is_static(t)) return op_error(op, SHLOC_ERR_UNSUPPORTED, "%s buffer #%u has a dynamic shape", role, leaf);
  if (t->rank > STRIDED_MAX_RANK)
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "%s buffer #%u has a too large rank", role, leaf);
  shl_dtype dt = type_storage_dtype(t);
  if (typed && ffi_dtype_to_xla(dt) == XLA_FFI_DataType_INVALID)
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "%s buffer #%u has element type %s, which the XLA FFI cannot carry",
                    role, leaf, dtype_name(dt));
  *b = (ffi_buffer){dt, NULL, t->rank, t->dims};
  if (top < 0) {
    if (op_attr(op, layouts))
      return op_error(op, SHLOC_ERR_UNSUPPORTED, "%s cannot give layouts to the leaves of a tuple %s", layouts, role);
    return NULL;
  }
  int64_t m2m[STRIDED_MAX_RANK];
  bool has;
  ST_TRY(layout_of(op, layouts, (uint32_t)top, t->rank, m2m, &has));
  if (!has) return NULL;
  /* Physical strides: m2m[0] varies fastest. */
  int64_t ps[STRIDED_MAX_RANK], rs[STRIDED_MAX_RANK], s = 1;
  for (int32_t k = 0; k < t->rank; k++) {
    ps[m2m[k]] = s;
    s *= t->dims[m2m[k]];
  }
  strided_row_major(t->rank, t->dims, rs);
  bool same = true;
  for (int32_t d = 0; d < t->rank; d++) same = same && (t->dims[d] <= 1 || ps[d] == rs[d]);
  if (same) return NULL;
  pi->mode = PASS_LAYOUT;
  pi->esz = dtype_bytes(dt);
  pi->nbytes = (size_t)type_num_bytes(t);
  pi->to_phys = plan_alloc(pc, sizeof *pi->to_phys);
  pi->to_rows = plan_alloc(pc, sizeof *pi->to_rows);
  if (!pi->to_phys || !pi->to_rows) return st_oom();
  pi->to_phys->rank = pi->to_rows->rank = t->rank;
  for (int32_t d = 0; d < t->rank; d++) {
    pi->to_phys->dims[d] = pi->to_rows->dims[d] = t->dims[d];
    pi->to_phys->ds[d] = pi->to_rows->ss[d] = ps[d];
    pi->to_phys->ss[d] = pi->to_rows->ds[d] = rs[d];
  }
  strided_finish(pi->to_phys, pi->esz);
  strided_finish(pi->to_rows, pi->esz);
  return NULL;
}

/* Describes every leaf of a value of type t, depth first, from leaf *leaf on. */
static shl_status describe_value(plan_ctx *pc, const shl_op *op, const shl_type *t, const char *layouts, int64_t top,
                                 bool typed, ffi_call *c, bool result, uint32_t *leaf) {
  if (t->kind == TY_TUPLE) {
    for (uint32_t e = 0; e < t->n_in; e++)
      ST_TRY(describe_value(pc, op, t->in[e], layouts, -1, typed, c, result, leaf));
    return NULL;
  }
  uint32_t k = (*leaf)++;
  return result ? describe(pc, op, t, layouts, top, k, typed, &c->rets[k], &c->out[k])
                : describe(pc, op, t, layouts, top, k, typed, &c->args[k], &c->in[k]);
}

static bool same_layout(const pass_info *a, const pass_info *b) {
  if ((a->mode == PASS_LAYOUT) != (b->mode == PASS_LAYOUT)) return false;
  return a->mode != PASS_LAYOUT || memcmp(a->to_phys, b->to_phys, sizeof *a->to_phys) == 0;
}

/* Follows a tuple index path from a value of type t to one of its leaves:
 * adds the leaves before it to *leaf and returns its type (NULL when the
 * path does not end at a leaf). */
static const shl_type *leaf_at(const shl_type *t, const int64_t *path, size_t n, uint32_t *leaf) {
  for (size_t k = 0; k < n; k++) {
    if (t->kind != TY_TUPLE || path[k] < 0 || path[k] >= t->n_in) return NULL;
    for (int64_t e = 0; e < path[k]; e++) *leaf += plan_leaf_count(t->in[e]);
    t = t->in[path[k]];
  }
  return t->kind == TY_TUPLE ? NULL : t;
}

#define ALIAS_MAX_DEPTH 16

/* output_operand_aliases: result leaf o takes operand leaf i's bytes and
 * both are passed as one buffer.  As in XLA, output_tuple_indices index the
 * op's results when it has several (or none), else the single result. */
static shl_status decode_aliases(const shl_op *op, ffi_call *c) {
  const shl_attr *a = op_attr(op, "output_operand_aliases");
  if (!a) return NULL;
  if (a->kind != AT_ARRAY) return op_error(op, SHLOC_ERR_VERIFY, "output_operand_aliases must be an array");
  for (uint32_t k = 0; k < a->u.arr.n; k++) {
    const shl_attr *al = a->u.arr.items[k];
    int64_t out_path[ALIAS_MAX_DEPTH], in_path[ALIAS_MAX_DEPTH], idx;
    size_t n_out = 0, n_in = 0;
    if (!al || al->kind != AT_STRUCT ||
        !attr_as_ints(attr_struct_field(al, "output_tuple_indices"), out_path, ALIAS_MAX_DEPTH, &n_out) ||
        !attr_as_ints(attr_struct_field(al, "operand_tuple_indices"), in_path, ALIAS_MAX_DEPTH, &n_in) ||
        !attr_as_int(attr_struct_field(al, "operand_index"), &idx))
      return op_error(op, SHLOC_ERR_VERIFY, "output_operand_aliases entry #%u is malformed", k);
    uint32_t li = 0, lo = 0;
    const shl_type *ti = NULL, *to = NULL;
    if (idx >= 0 && idx < op->n_operands) {
      for (int64_t e = 0; e < idx; e++) li += plan_leaf_count(op->operands[e]->type);
      ti = leaf_at(op->operands[idx]->type, in_path, n_in, &li);
    }
    if (op->n_results == 1) {
      to = leaf_at(op->results[0].type, out_path, n_out, &lo);
    } else if (n_out && out_path[0] >= 0 && out_path[0] < op->n_results) {
      for (int64_t e = 0; e < out_path[0]; e++) lo += plan_leaf_count(op->results[e].type);
      to = leaf_at(op->results[out_path[0]].type, out_path + 1, n_out - 1, &lo);
    }
    if (!ti || !to)
      return op_error(op, SHLOC_ERR_VERIFY, "output_operand_aliases entry #%u does not name an operand and a result "
                      "buffer", k);
    pass_info *in = &c->in[li], *out = &c->out[lo];
    if (in->alias >= 0 || out->alias >= 0)
      return op_error(op, SHLOC_ERR_VERIFY, "output_operand_aliases: operand buffer %u or result buffer %u is aliased "
                      "twice", li, lo);
    if (!type_eq(ti, to))
      return op_error(op, SHLOC_ERR_VERIFY, "output_operand_aliases entry #%u joins values of different types", k);
    if (in->mode == PASS_TOKEN) continue;
    if (!same_layout(in, out))
      return op_error(op, SHLOC_ERR_UNSUPPORTED,
                      "output_operand_aliases entry #%u joins an operand and a result with different layouts", k);
    in->alias = (int)lo;
    out->alias = (int)li;
    in->mode = PASS_ALIAS;
  }
  return NULL;
}

/* Registered in r, or built in. */
static bool registry_has(const ffi_registry *r, const char *target) {
  if (builtin_target_find(target, strlen(target))) return true;
  ffi_target_info info;
  for (size_t i = 0; r && ffi_registry_entry(r, i, &info); i++)
    if (strcmp(info.target, target) == 0 && strcmp(info.platform, "cpu") == 0) return true;
  return false;
}

static shl_status alloc_scratch(pass_info *pi) {
  if (pi->mode != PASS_LAYOUT) return NULL;
  pi->scratch = malloc(pi->nbytes ? pi->nbytes : 1);
  return pi->scratch ? NULL : st_oom();
}

shl_status ffi_call_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  const shl_attr *ta = op_attr(op, "call_target_name");
  shl_str tname = ta && ta->kind == AT_STRING ? ta->u.str : (shl_str){"", 0};
  ffi_call_config cc;
  ST_TRY(ffi_call_config_decode(pc->m, op_attr(op, "api_version"), op_attr(op, "backend_config"),
                                op_attr(op, "mhlo.backend_config"), &cc));
  ffi_registry *reg = plan_config(pc)->registry;
  char *target = plan_alloc(pc, tname.n + 1);
  if (!target) return st_oom();
  memcpy(target, tname.p, tname.n);
  target[tname.n] = '\0';
  if (!registry_has(reg, target))
    return st_error(SHLOC_ERR_NOT_FOUND, &op->pos, "stablehlo.custom_call",
                    "no handler registered for custom call target '%s' (api_version %d) at %s:%d:%d; register one "
                    "with --ffi %s=LIB.so:SYMBOL or --plugin LIB.so",
                    target, cc.api_version, op->pos.file ? op->pos.file : "<input>", op->pos.line, op->pos.col,
                    target);
  ffi_call *c = plan_alloc(pc, sizeof *c);
  if (!c) return st_oom();
  uint32_t n_args = 0, n_rets = 0;
  for (uint32_t i = 0; i < op->n_operands; i++) n_args += plan_leaf_count(op->operands[i]->type);
  for (uint32_t i = 0; i < op->n_results; i++) n_rets += plan_leaf_count(op->results[i].type);
  *c = (ffi_call){.n_args = (int)n_args, .n_rets = (int)n_rets};
  c->args = plan_alloc(pc, (n_args + 1) * sizeof *c->args);
  c->rets = plan_alloc(pc, (n_rets + 1) * sizeof *c->rets);
  c->in = plan_alloc(pc, (n_args + 1) * sizeof *c->in);
  c->out = plan_alloc(pc, (n_rets + 1) * sizeof *c->out);
  if (!c->args || !c->rets || !c->in || !c->out) return st_oom();
  bool typed = cc.api_version == 4;
  uint32_t leaf = 0;
  for (uint32_t i = 0; i < op->n_operands; i++)
    ST_TRY(describe_value(pc, op, op->operands[i]->type, "operand_layouts", i, typed, c, false, &leaf));
  leaf = 0;
  for (uint32_t i = 0; i < op->n_results; i++)
    ST_TRY(describe_value(pc, op, op->results[i].type, "result_layouts", i, typed, c, true, &leaf));
  ST_TRY(decode_aliases(op, c));
  c->simple = true;
  for (int i = 0; i < c->n_args; i++) c->simple = c->simple && c->in[i].mode == PASS_DIRECT;
  for (int i = 0; i < c->n_rets; i++) c->simple = c->simple && c->out[i].mode == PASS_DIRECT && c->out[i].alias < 0;

  ffi_attrs *attrs = NULL;
  if (cc.dict) {
    ST_TRY(ffi_attrs_create(&attrs));
    shl_status st = ffi_attrs_from_dict(attrs, cc.dict);
    if (st) {
      ffi_attrs_destroy(attrs);
      return st_annotate(st, "custom call '%s'", target);
    }
  }
  ffi_site_desc d = {
      .target = target,
      .api_version = cc.api_version,
      .attrs = attrs,
      .opaque = cc.opaque.p,
      .opaque_len = cc.opaque.n,
      .n_args = c->n_args,
      .n_rets = c->n_rets,
      .tuple_result = op->n_results == 1 && op->results[0].type->kind == TY_TUPLE,
  };
  shl_status st = ffi_site_prepare(reg, &d, &c->site);
  ffi_attrs_destroy(attrs);
  ST_TRY(st);
  if ((st = plan_on_release(pc, ffi_call_release, c))) {
    ffi_site_destroy(c->site);
    return st;
  }
  for (int i = 0; i < c->n_args; i++) ST_TRY(alloc_scratch(&c->in[i]));
  for (int i = 0; i < c->n_rets; i++) ST_TRY(alloc_scratch(&c->out[i]));
  *params = c;
  return NULL;
}

/* ---- running ---- */

shl_status ffi_call_run(void *params, shl_buf *const *in, shl_buf *const *out) {
  ffi_call *c = params;
  if (c->simple) {
    for (int i = 0; i < c->n_args; i++) c->args[i].data = in[i]->data;
    for (int i = 0; i < c->n_rets; i++) c->rets[i].data = out[i]->data;
    return ffi_site_call(c->site, NULL, c->args, c->rets);
  }
  /* Results first: an aliased operand is passed as its result's buffer. */
  for (int o = 0; o < c->n_rets; o++) {
    pass_info *pi = &c->out[o];
    if (pi->mode == PASS_TOKEN) continue;
    void *buf = pi->mode == PASS_LAYOUT ? pi->scratch : out[o]->data;
    c->rets[o].data = buf;
    if (pi->alias < 0 || !out[o]->nbytes) continue;
    const void *src = in[pi->alias]->data;
    if (pi->mode == PASS_LAYOUT)
      strided_copy(pi->to_phys, buf, src, pi->esz);
    else if (buf != src)
      memcpy(buf, src, out[o]->nbytes);
  }
  for (int i = 0; i < c->n_args; i++) {
    pass_info *pi = &c->in[i];
    switch (pi->mode) {
      case PASS_DIRECT: c->args[i].data = in[i]->data; break;
      case PASS_TOKEN: break;
      case PASS_ALIAS: c->args[i].data = c->rets[pi->alias].data; break;
      case PASS_LAYOUT:
        if (in[i]->nbytes) strided_copy(pi->to_phys, pi->scratch, in[i]->data, pi->esz);
        c->args[i].data = pi->scratch;
        break;
    }
  }
  ST_TRY(ffi_site_call(c->site, NULL, c->args, c->rets));
  for (int o = 0; o < c->n_rets; o++) {
    pass_info *pi = &c->out[o];
    if (pi->mode == PASS_LAYOUT && out[o]->nbytes) strided_copy(pi->to_rows, out[o]->data, pi->scratch, pi->esz);
  }
  return NULL;
}
