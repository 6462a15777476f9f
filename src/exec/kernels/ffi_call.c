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
 * place; the operand's own buffer is never written. */
#include <stdlib.h>

#include "exec/plan.h"
#include "ffi_call.h"
#include "strided.h"
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

typedef struct {
  int api_version;
  const shl_attr *dict; /* typed FFI attributes, or NULL */
  shl_str opaque;       /* legacy backend_config bytes */
} call_config;

/* api_version and backend_config as XLA reads them: a dictionary in
 * `mhlo.backend_config` (JAX's spelling) or `backend_config` means typed FFI;
 * otherwise backend_config is the legacy opaque string. */
static shl_status decode_config(shloc_module *m, const shl_op *op, call_config *cc) {
  const shl_attr *api = op_attr(op, "api_version"), *cfg = op_attr(op, "backend_config"),
                 *mhlo = op_attr(op, "mhlo.backend_config");
  int64_t v = 1;
  if (api && !attr_as_int(api, &v)) return op_error(op, SHLOC_ERR_VERIFY, "api_version must be an integer");
  *cc = (call_config){.api_version = (int)v, .opaque = {"", 0}};
  bool cfg_empty = !cfg || (cfg->kind == AT_STRING && cfg->u.str.n == 0);
  if (mhlo) {
    if (mhlo->kind != AT_DICT) return op_error(op, SHLOC_ERR_VERIFY, "mhlo.backend_config must be a dictionary");
    if (!cfg_empty)
      return op_error(op, SHLOC_ERR_VERIFY, "mhlo.backend_config requires backend_config to be absent or empty");
    if (v != 1 && v != 4)
      return op_error(op, SHLOC_ERR_VERIFY, "mhlo.backend_config requires api_version 4 (typed FFI), got %lld",
                      (long long)v);
    cc->api_version = 4;
    cc->dict = mhlo;
    return NULL;
  }
  if (cfg && cfg->kind == AT_DICT) {
    if (v != 4)
      return op_error(op, SHLOC_ERR_VERIFY, "a dictionary backend_config requires api_version 4, got %lld",
                      (long long)v);
    cc->dict = cfg;
    return NULL;
  }
  if (cfg && cfg->kind != AT_STRING) return op_error(op, SHLOC_ERR_VERIFY, "backend_config must be a string or a dictionary");
  if (v == 4 && !cfg_empty && !str_eq_c(cfg->u.str, "{}")) {
    /* XLA reads "" and "{}" as no attributes, anything else as a dictionary
     * written as MLIR text. */
    const shl_attr *d;
    shl_status st = text_parse_attr(m, cfg->u.str.p, cfg->u.str.n, &d);
    if (st) return st_annotate(st, "backend_config string of an api_version 4 custom call");
    if (d->kind != AT_DICT)
      return op_error(op, SHLOC_ERR_VERIFY, "the backend_config string of an api_version 4 custom call must hold a "
                                            "dictionary");
    cc->dict = d;
    return NULL;
  }
  if (v == 4) return NULL;
  if (cfg) cc->opaque = cfg->u.str;
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

/* Fills the descriptor of one buffer of type t and, when the op gives it a
 * non-row-major layout, the conversion boxes. */
static shl_status describe(plan_ctx *pc, const shl_op *op, const shl_type *t, const char *layouts, uint32_t i,
                           bool typed, ffi_buffer *b, pass_info *pi) {
  const char *role = layouts[0] == 'o' ? "operand" : "result";
  *pi = (pass_info){.mode = PASS_DIRECT, .alias = -1};
  if (t->kind == TY_TOKEN) {
    *b = (ffi_buffer){FFI_DT_TOKEN, NULL, 0, NULL};
    pi->mode = PASS_TOKEN;
    return NULL;
  }
  if (t->kind != TY_TENSOR)
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "%s #%u has type kind the executor cannot pass (tuple results are "
                    "not supported; use several results)", role, i);
  if (!type_is_static(t)) return op_error(op, SHLOC_ERR_UNSUPPORTED, "%s #%u has a dynamic shape", role, i);
  if (t->rank > STRIDED_MAX_RANK) return op_error(op, SHLOC_ERR_UNSUPPORTED, "%s #%u has a too large rank", role, i);
  shl_dtype dt = type_storage_dtype(t);
  if (typed && ffi_dtype_to_xla(dt) == XLA_FFI_DataType_INVALID)
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "%s #%u has element type %s, which the XLA FFI cannot carry", role, i,
                    dtype_name(dt));
  *b = (ffi_buffer){dt, NULL, t->rank, t->dims};
  int64_t m2m[STRIDED_MAX_RANK];
  bool has;
  ST_TRY(layout_of(op, layouts, i, t->rank, m2m, &has));
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

static bool same_layout(const pass_info *a, const pass_info *b) {
  if ((a->mode == PASS_LAYOUT) != (b->mode == PASS_LAYOUT)) return false;
  return a->mode != PASS_LAYOUT || memcmp(a->to_phys, b->to_phys, sizeof *a->to_phys) == 0;
}

/* output_operand_aliases: result o takes operand i's bytes and both are
 * passed as one buffer. */
static shl_status decode_aliases(const shl_op *op, ffi_call *c) {
  const shl_attr *a = op_attr(op, "output_operand_aliases");
  if (!a) return NULL;
  if (a->kind != AT_ARRAY) return op_error(op, SHLOC_ERR_VERIFY, "output_operand_aliases must be an array");
  for (uint32_t k = 0; k < a->u.arr.n; k++) {
    const shl_attr *al = a->u.arr.items[k];
    int64_t out_path[2], in_path[1], idx;
    size_t n_out = 0, n_in = 0;
    if (!al || al->kind != AT_STRUCT ||
        !attr_as_ints(attr_struct_field(al, "output_tuple_indices"), out_path, 2, &n_out) ||
        !attr_as_ints(attr_struct_field(al, "operand_tuple_indices"), in_path, 1, &n_in) ||
        !attr_as_int(attr_struct_field(al, "operand_index"), &idx))
      return op_error(op, SHLOC_ERR_VERIFY, "output_operand_aliases entry #%u is malformed", k);
    if (n_in || n_out > 1 || (n_out == 0 && c->n_rets != 1))
      return op_error(op, SHLOC_ERR_UNSUPPORTED, "output_operand_aliases entry #%u uses nested tuple indices", k);
    int64_t o = n_out ? out_path[0] : 0;
    if (idx < 0 || idx >= c->n_args || o < 0 || o >= c->n_rets)
      return op_error(op, SHLOC_ERR_VERIFY, "output_operand_aliases entry #%u is out of range", k);
    pass_info *in = &c->in[idx], *out = &c->out[o];
    if (in->alias >= 0 || out->alias >= 0)
      return op_error(op, SHLOC_ERR_VERIFY, "output_operand_aliases: operand %lld or result %lld is aliased twice",
                      (long long)idx, (long long)o);
    if (!type_eq(op->operands[idx]->type, op->results[o].type))
      return op_error(op, SHLOC_ERR_VERIFY, "output_operand_aliases entry #%u joins values of different types", k);
    if (in->mode == PASS_TOKEN) continue;
    if (!same_layout(in, out))
      return op_error(op, SHLOC_ERR_UNSUPPORTED,
                      "output_operand_aliases entry #%u joins an operand and a result with different layouts", k);
    in->alias = (int)o;
    out->alias = (int)idx;
    in->mode = PASS_ALIAS;
  }
  return NULL;
}

static bool registry_has(const ffi_registry *r, const char *target) {
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
  call_config cc = {0};
  ST_TRY(decode_config(pc->m, op, &cc));
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
  *c = (ffi_call){.n_args = (int)op->n_operands, .n_rets = (int)op->n_results};
  c->args = plan_alloc(pc, (op->n_operands + 1) * sizeof *c->args);
  c->rets = plan_alloc(pc, (op->n_results + 1) * sizeof *c->rets);
  c->in = plan_alloc(pc, (op->n_operands + 1) * sizeof *c->in);
  c->out = plan_alloc(pc, (op->n_results + 1) * sizeof *c->out);
  if (!c->args || !c->rets || !c->in || !c->out) return st_oom();
  bool typed = cc.api_version == 4;
  for (uint32_t i = 0; i < op->n_operands; i++)
    ST_TRY(describe(pc, op, op->operands[i]->type, "operand_layouts", i, typed, &c->args[i], &c->in[i]));
  for (uint32_t i = 0; i < op->n_results; i++)
    ST_TRY(describe(pc, op, op->results[i].type, "result_layouts", i, typed, &c->rets[i], &c->out[i]));
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
