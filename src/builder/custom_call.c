/* stablehlo.custom_call from a spec: target, api_version, backend_config
 * (handler-visible: a dictionary built or from {name, text} pairs, or a
 * legacy string), operands with optional element-type converts, results,
 * the compiler-visible fields (has_side_effect, layouts, aliases, called
 * computations) and caller mlir_attributes emitted at the operation level.
 *
 * Everything is validated and prepared before anything is linked: the
 * converts and the call enter the block together or not at all. */
#include <stdlib.h>

#include "builder_impl.h"

#define CC "stablehlo.custom_call"
#define CC_ERR(...) bld_error(SHLOC_ERR_INVALID_ARG, CC, __VA_ARGS__)

/* Names mlir_attributes can never set: the call's identity and its
 * handler-visible configuration. */
static const char *const reserved[] = {"call_target_name", "api_version", "backend_config", "mhlo.backend_config",
                                       NULL};

/* Collected op attributes (at most 8 from the spec, plus the caller's). */
typedef struct {
  shl_named_attr *v;
  uint32_t n;
} attr_list;

static void add(attr_list *l, const char *name, const shl_attr *a) {
  shl_str s = str_of(name);
  l->v[l->n++] = (shl_named_attr){s, a, bld_is_prop(s)};
}

static int shown(size_t n) { return (int)(n < 64 ? n : 64); }

/* ------------------------------------------------------------------ backend_config */

static shl_status backend_config(shloc_module *m, const shloc_custom_call_spec *sp, int *api, const shl_attr **out) {
  *out = NULL;
  *api = 0;
  bool typed = sp->backend_config != NULL, pairs = sp->n_backend_config_pairs > 0,
       legacy = sp->legacy_backend_config != NULL;
  if (typed + pairs + legacy > 1)
    return CC_ERR("backend_config is given in more than one form (dictionary, pairs, legacy string)");
  *api = sp->api_version ? sp->api_version : legacy ? 1 : 4;
  if (*api < 1 || *api > 4) return CC_ERR("api_version must be 1..4 (or 0 for the default), got %d", sp->api_version);
  if (legacy) {
    if (*api == 4) return CC_ERR("a legacy string backend_config needs api_version 1..3, got 4");
    *out = attr_string(&m->arena, (shl_str){sp->legacy_backend_config, sp->legacy_backend_config_len});
    return *out ? NULL : st_oom();
  }
  if (!typed && !pairs) return NULL;
  if (*api != 4) return CC_ERR("a dictionary backend_config needs api_version 4, got %d", *api);
  if (typed) {
    if (at_in(sp->backend_config)->kind != AT_DICT) return CC_ERR("backend_config must be a dictionary attribute");
    *out = at_in(sp->backend_config);
    return NULL;
  }
  shl_named_attr *items;
  shl_status st = bld_attr_pairs(m, "backend_config", sp->backend_config_pairs, sp->n_backend_config_pairs, &items);
  if (st) return st_at(st, NULL, CC);
  ST_TRY(st_at(bld_sort_unique("backend_config", items, sp->n_backend_config_pairs), NULL, CC));
  shl_attr *d = attr_new(&m->arena, AT_DICT);
  if (!d) return st_oom();
  for (uint32_t i = 0; i < sp->n_backend_config_pairs; i++) items[i].is_prop = false;
  d->u.dict.n = sp->n_backend_config_pairs;
  d->u.dict.items = items;
  *out = d;
  return NULL;
}

/* ------------------------------------------------------------------ operands */

/* Operands, converted to the requested element types by prepared (not yet
 * linked) stablehlo.convert ops collected in `converts`. */
static shl_status operands(shloc_block *b, const shloc_custom_call_spec *sp, shl_value ***out, shl_op **converts,
                           uint32_t *n_converts) {
  shloc_module *m = b->m;
  ST_TRY(bld_values(CC, "operand", sp->n_operands, sp->operands, out, &m->arena));
  *n_converts = 0;
  if (!sp->operand_element_types) return NULL;
  for (uint32_t i = 0; i < sp->n_operands; i++) {
    const char *want = sp->operand_element_types[i];
    if (!want) continue;
    shl_dtype dt;
    shl_status st = bld_dtype(want, &dt);
    if (st) return st_annotate(st_at(st, NULL, CC), "operand_element_types[%u]", i);
    const shl_type *t = (*out)[i]->type;
    if (t->kind != TY_TENSOR) return CC_ERR("operand_element_types[%u]: operand #%u is not a tensor", i, i);
    if (t->dtype == dt && !t->quant) continue;
    const shl_type *rt = bld_tensor_like(&m->arena, t, dt);
    if (!rt) return st_oom();
    bld_spec cs = {.def = &shl_op_table[OP_CONVERT], .name = STR_LIT("stablehlo.convert"), .n_operands = 1,
                   .operands = &(*out)[i], .n_results = 1, .result_types = &rt};
    shl_op *cv;
    ST_TRY(bld_prepare(b, &cs, &cv));
    converts[(*n_converts)++] = cv;
    (*out)[i] = &cv->results[0];
  }
  return NULL;
}

/* ------------------------------------------------------------------ compiler-visible fields */

/* Rank a layout for type t must have: tensors their rank, tokens 0. */
static shl_status layout_rank(const char *what, uint32_t i, const shl_type *t, int64_t *rank) {
  if (t->kind == TY_TOKEN) {
    *rank = 0;
    return NULL;
  }
  if (t->kind != TY_TENSOR || t->rank < 0) return CC_ERR("%s[%u]: a layout needs a ranked tensor or a token", what, i);
  *rank = t->rank;
  return NULL;
}

/* Each entry in [0, rank), each once. */
static bool is_permutation(const int64_t *v, size_t n, int64_t rank) {
  if ((int64_t)n != rank) return false;
  for (size_t i = 0; i < n; i++) {
    if (v[i] < 0 || v[i] >= rank) return false;
    for (size_t j = 0; j < i; j++)
      if (v[j] == v[i]) return false;
  }
  return true;
}

/* `[dense<[1, 0]> : tensor<2xindex>, dense<> : tensor<0xindex>, ...]` */
static shl_status layouts(shloc_module *m, const char *what, const int64_t *const *l, uint32_t n,
                          const shl_type *const *types, const shl_attr **out) {
  bld_text t = {0};
  bld_text_printf(&t, "[");
  shl_status st = NULL;
  for (uint32_t i = 0; i < n && !st; i++) {
    int64_t rank = 0;
    if ((st = layout_rank(what, i, types[i], &rank))) break;
    if (rank && !l[i]) {
      st = CC_ERR("%s[%u] is NULL for a value of rank %lld", what, i, (long long)rank);
      break;
    }
    if (!is_permutation(l[i], (size_t)rank, rank)) {
      st = CC_ERR("%s[%u] is not a permutation of [0, %lld)", what, i, (long long)rank);
      break;
    }
    bld_text_printf(&t, "%sdense<", i ? ", " : "");
    if (rank) bld_text_ints(&t, l[i], (size_t)rank);
    bld_text_printf(&t, "> : tensor<%lldxindex>", (long long)rank);
  }
  if (st) {
    free(t.p);
    return st;
  }
  bld_text_printf(&t, "]");
  return bld_text_attr(m, &t, out);
}

static shl_status aliases(shloc_module *m, const shloc_custom_call_spec *sp, const shl_attr **out) {
  bld_text t = {0};
  bld_text_printf(&t, "[");
  for (uint32_t i = 0; i < sp->n_output_operand_aliases; i++) {
    const shloc_output_operand_alias *al = &sp->output_operand_aliases[i];
    if ((al->n_output_tuple_indices && !al->output_tuple_indices) ||
        (al->n_operand_tuple_indices && !al->operand_tuple_indices)) {
      free(t.p);
      return CC_ERR("output_operand_aliases[%u]: tuple indices missing", i);
    }
    bld_text_printf(&t, "%s#stablehlo.output_operand_alias<output_tuple_indices = ", i ? ", " : "");
    bld_text_ints(&t, al->output_tuple_indices, al->n_output_tuple_indices);
    bld_text_printf(&t, ", operand_index = %lld, operand_tuple_indices = ", (long long)al->operand_index);
    bld_text_ints(&t, al->operand_tuple_indices, al->n_operand_tuple_indices);
    bld_text_printf(&t, ">");
  }
  bld_text_printf(&t, "]");
  return bld_text_attr(m, &t, out);
}

static shl_status called(shloc_module *m, const shloc_custom_call_spec *sp, const shl_attr **out) {
  bld_text t = {0};
  bld_text_printf(&t, "[");
  for (uint32_t i = 0; i < sp->n_called_computations; i++) {
    const char *f = sp->called_computations[i];
    if (!f || !*f || !module_find_func(m, str_of(f))) {
      free(t.p);
      return CC_ERR("called_computations[%u]: no function '%.64s' in this module", i, f ? f : "(null)");
    }
    bld_text_printf(&t, "%s@", i ? ", " : "");
    bld_text_symbol(&t, f, strlen(f));
  }
  bld_text_printf(&t, "]");
  return bld_text_attr(m, &t, out);
}

/* A layout attribute given through mlir_attributes: one permutation of the
 * right rank per value (the verifier checks it too; this names the pair). */
static shl_status check_layout_pair(uint32_t idx, const shl_named_attr *na, const shl_type *const *types,
                                    uint32_t n) {
  const shl_attr *a = na->attr;
  shl_str nm = na->name;
  if (a->kind != AT_ARRAY || a->u.arr.n != n)
    return CC_ERR("mlir_attributes[%u] '%.*s': must be an array of %u layouts", idx, shown(nm.n), nm.p, n);
  for (uint32_t i = 0; i < n; i++) {
    int64_t rank = 0, v[64];
    size_t k;
    ST_TRY(st_annotate(layout_rank("mlir_attributes", idx, types[i], &rank), "'%.*s'", shown(nm.n), nm.p));
    const shl_attr *li = a->u.arr.items[i];
    if (!li || li->kind != AT_DENSE || li->type->rank != 1 || li->type->dtype != DT_INDEX)
      return CC_ERR("mlir_attributes[%u] '%.*s': entry #%u must be a rank-1 tensor of index, e.g. dense<[1, 0]> : "
                    "tensor<2xindex>",
                    idx, shown(nm.n), nm.p, i);
    if (!attr_as_ints(li, v, 64, &k) || k > 64 || !is_permutation(v, k, rank))
      return CC_ERR("mlir_attributes[%u] '%.*s': entry #%u is not a permutation of [0, %lld)", idx, shown(nm.n), nm.p,
                    i, (long long)rank);
  }
  return NULL;
}

static shl_status mlir_attributes(shloc_module *m, const shloc_custom_call_spec *sp, const shl_type *const *in_types,
                                  const shl_type *const *out_types, shl_named_attr **out) {
  shl_status st = bld_attr_pairs(m, "mlir_attributes", sp->mlir_attributes, sp->n_mlir_attributes, out);
  if (st) return st_at(st, NULL, CC);
  /* Names a set spec field emits for this op. */
  const struct {
    const char *name;
    bool set;
  } fields[] = {{"has_side_effect", sp->has_side_effect},
                {"operand_layouts", sp->operand_layouts != NULL},
                {"result_layouts", sp->result_layouts != NULL},
                {"output_operand_aliases", sp->n_output_operand_aliases > 0},
                {"called_computations", sp->n_called_computations > 0}};
  for (uint32_t i = 0; i < sp->n_mlir_attributes; i++) {
    const shl_named_attr *na = &(*out)[i];
    shl_str nm = na->name;
    for (const char *const *r = reserved; *r; r++)
      if (str_eq_c(nm, *r))
        return CC_ERR("mlir_attributes[%u] '%s': reserved; the target and its handler-visible configuration are set "
                      "through call_target_name, api_version and backend_config",
                      i, *r);
    for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++)
      if (fields[k].set && str_eq_c(nm, fields[k].name))
        return CC_ERR("mlir_attributes[%u] '%s': conflicts with the spec's %s field, which is set", i, fields[k].name,
                      fields[k].name);
    if (str_eq_c(nm, "operand_layouts")) ST_TRY(check_layout_pair(i, na, in_types, sp->n_operands));
    if (str_eq_c(nm, "result_layouts")) ST_TRY(check_layout_pair(i, na, out_types, sp->n_results));
  }
  /* Layouts come in pairs, whether from the spec's fields or from here. */
  bool has_in = sp->operand_layouts != NULL, has_out = sp->result_layouts != NULL;
  for (uint32_t i = 0; i < sp->n_mlir_attributes; i++) {
    has_in |= str_eq_c((*out)[i].name, "operand_layouts");
    has_out |= str_eq_c((*out)[i].name, "result_layouts");
  }
  if (has_in != has_out)
    return CC_ERR("mlir_attributes: '%s' is given without '%s'; layouts come for both operands and results or for "
                  "neither",
                  has_in ? "operand_layouts" : "result_layouts", has_in ? "result_layouts" : "operand_layouts");
  return NULL;
}

/* ------------------------------------------------------------------ the op */

shl_status shloc_build_custom_call(shloc_block *b, const shloc_custom_call_spec *sp, shloc_op **out_op) {
  if (out_op) *out_op = NULL;
  if (!b || !sp) return CC_ERR("block or spec is NULL");
  shloc_module *m = b->m;
  shl_arena *a = &m->arena;
  const char *target = sp->call_target_name;
  if (!target || !*target) return CC_ERR("call_target_name is empty");
  size_t target_len = strlen(target);
  if (target_len > m->ctx->limits.max_attr_text_bytes)
    return bld_error(SHLOC_ERR_LIMIT, CC, "call_target_name is longer than the limit of %zu bytes",
                     m->ctx->limits.max_attr_text_bytes);
  int api;
  const shl_attr *cfg;
  ST_TRY(backend_config(m, sp, &api, &cfg));

  shl_op **converts = ARENA_ARRAY(a, shl_op *, sp->n_operands ? sp->n_operands : 1);
  if (!converts) return st_oom();
  uint32_t n_converts;
  shl_value **ops;
  ST_TRY(operands(b, sp, &ops, converts, &n_converts));
  const shl_type **in_types = ARENA_ARRAY(a, const shl_type *, sp->n_operands ? sp->n_operands : 1);
  if (!in_types) return st_oom();
  for (uint32_t i = 0; i < sp->n_operands; i++) in_types[i] = ops[i]->type;
  if (sp->n_results && !sp->result_types) return CC_ERR("result types announced but none given");
  const shl_type *const *out_types = (const shl_type *const *)(const void *)sp->result_types;
  for (uint32_t i = 0; i < sp->n_results; i++)
    if (!out_types[i]) return CC_ERR("result type #%u is NULL", i);

  shl_named_attr *user;
  ST_TRY(mlir_attributes(m, sp, in_types, out_types, &user));
  uint32_t n_all = 8 + sp->n_mlir_attributes;
  attr_list l = {ARENA_ARRAY(a, shl_named_attr, n_all), 0};
  if (!l.v) return st_oom();
  const shl_attr *x;
  if (!(x = attr_string(a, (shl_str){target, target_len}))) return st_oom();
  add(&l, "call_target_name", x);
  if (!(x = attr_int(a, type_scalar(a, DT_I32), api)) || !x->type) return st_oom();
  add(&l, "api_version", x);
  if (cfg) add(&l, "backend_config", cfg);
  if (sp->has_side_effect) {
    if (!(x = attr_bool(a, true))) return st_oom();
    add(&l, "has_side_effect", x);
  }
  if (sp->operand_layouts) {
    ST_TRY(layouts(m, "operand_layouts", sp->operand_layouts, sp->n_operands, in_types, &x));
    add(&l, "operand_layouts", x);
  }
  if (sp->result_layouts) {
    ST_TRY(layouts(m, "result_layouts", sp->result_layouts, sp->n_results, out_types, &x));
    add(&l, "result_layouts", x);
  }
  if (sp->n_output_operand_aliases) {
    if (!sp->output_operand_aliases) return CC_ERR("output_operand_aliases announced but none given");
    ST_TRY(aliases(m, sp, &x));
    add(&l, "output_operand_aliases", x);
  }
  if (sp->n_called_computations) {
    if (!sp->called_computations) return CC_ERR("called_computations announced but none given");
    ST_TRY(called(m, sp, &x));
    add(&l, "called_computations", x);
  }
  for (uint32_t i = 0; i < sp->n_mlir_attributes; i++) l.v[l.n++] = user[i];

  bld_spec s = {.def = &shl_op_table[OP_CUSTOM_CALL], .name = STR_LIT(CC), .n_operands = sp->n_operands,
                .operands = ops, .n_results = sp->n_results, .result_types = out_types, .n_attrs = l.n,
                .attrs = l.v};
  shl_op *op;
  ST_TRY(bld_prepare(b, &s, &op));
  bld_spec none = {0};
  for (uint32_t i = 0; i < n_converts; i++) bld_commit(b, &none, converts[i]);
  bld_commit(b, &s, op);
  if (out_op) *out_op = op_out(op);
  return NULL;
}
