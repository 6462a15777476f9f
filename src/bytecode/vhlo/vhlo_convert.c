/* VHLO ops -> StableHLO/func ops of shloc's IR, for every VHLO version.
 *
 * Attributes arrive already in StableHLO's spelling (vhlo_attrs.c), so most
 * pass through.  What remains is per op (as StableHLO's VHLO legalization does
 * it, openxla/stablehlo stablehlo/transforms/VhloLegalizeToStablehlo.cpp):
 *   - defaults that StableHLO leaves out are dropped;
 *   - split fields are joined into one structured attribute (gather, scatter,
 *     convolution and dot dimension numbers, dot algorithm, channel handles);
 *   - some integer tensors become dense arrays, strings become symbol refs.
 * An attribute that an older version of the op lacks is treated as its
 * default, which is what upstream's version upgrades insert. */
#include <stdlib.h>

#include "builder/builder_impl.h"
#include "vhlo.h"

#define V(a, b, c) {a, b, c}
#define UNPAREN(...) __VA_ARGS__
#define VHLO_OP(tag, name, min, max, target, attrs) static const char *const attrs_##tag[] = {UNPAREN attrs NULL};
#include "vhlo_ops.def"
#undef VHLO_OP

typedef struct {
  const char *name;
  uint32_t min[3], max[3];
  const char *target;
  const char *const *attrs;
  uint32_t n_attrs;
} vhlo_row;

static const vhlo_row vhlo_rows[] = {
#define VHLO_OP(tag, name, min, max, target, attrs) \
  {name, min, max, target, attrs_##tag, sizeof attrs_##tag / sizeof attrs_##tag[0] - 1},
#include "vhlo_ops.def"
#undef VHLO_OP
};
#undef V

enum { N_VHLO_OPS = sizeof vhlo_rows / sizeof vhlo_rows[0] };

static vhlo_opinfo vhlo_infos[N_VHLO_OPS];
static const uint32_t current_version[3] = {1, 20, 0};

const uint32_t *vhlo_current_version(void) { return current_version; }

const vhlo_opinfo *vhlo_op_lookup(shl_str name) {
  for (size_t i = 0; i < N_VHLO_OPS; i++) {
    const vhlo_row *row = &vhlo_rows[i];
    if (!str_eq_c(name, row->name)) continue;
    /* The info records are filled from the const rows; writing the same
     * values from several threads at once is harmless but avoided by
     * building each record fully before publishing its id. */
    vhlo_opinfo *vi = &vhlo_infos[i];
    if (!vi->name) {
      const shl_opdef *d = opdef_lookup(str_of(row->target));
      vi->id = d ? d->id : OP_UNKNOWN;
      memcpy(vi->min, row->min, sizeof vi->min);
      memcpy(vi->max, row->max, sizeof vi->max);
      vi->attrs = row->attrs;
      vi->n_attrs = row->n_attrs;
      __atomic_store_n(&vi->name, row->name, __ATOMIC_RELEASE);
    }
    return vi;
  }
  return NULL;
}

static const char *target_name(const vhlo_opinfo *vi) { return vhlo_rows[vi - vhlo_infos].target; }

size_t vhlo_ops_for(shl_str op, const vhlo_opinfo **out, size_t cap) {
  /* stablehlo.return shares func.return's VHLO op. */
  if (str_eq_c(op, "stablehlo.return")) op = str_of("func.return");
  size_t n = 0;
  for (size_t i = 0; i < N_VHLO_OPS && n < cap; i++)
    if (str_eq_c(op, vhlo_rows[i].target)) out[n++] = vhlo_op_lookup(str_of(vhlo_rows[i].name));
  return n;
}

/* ---- attribute list under conversion ---- */

typedef struct {
  bc_reader *r;
  const uint8_t *at;
  shl_named_attr *v;
  uint32_t n, cap;
} alist;

static const shl_attr *get(alist *l, const char *name) {
  for (uint32_t i = 0; i < l->n; i++)
    if (str_eq_c(l->v[i].name, name)) return l->v[i].attr;
  return NULL;
}

static void erase(alist *l, const char *name) {
  for (uint32_t i = 0; i < l->n; i++)
    if (str_eq_c(l->v[i].name, name)) {
      l->v[i] = l->v[--l->n];
      return;
    }
}

static shl_status put(alist *l, const char *name, const shl_attr *a) {
  erase(l, name);
  if (l->n == l->cap) return bc_error(l->r, l->at, "too many attributes");
  l->v[l->n++] = (shl_named_attr){str_of(name), a, true};
  return NULL;
}

/* ---- default tests (missing counts as default) ---- */

static bool is_bool(const shl_attr *a, bool v) { return !a || (a->kind == AT_BOOL && a->u.b == v); }
static bool is_int(const shl_attr *a, int64_t v) { return !a || (a->kind == AT_INT && a->u.i == v); }
static bool is_empty_array(const shl_attr *a) { return !a || (a->kind == AT_ARRAY && a->u.arr.n == 0); }
static bool is_empty_string(const shl_attr *a) { return !a || (a->kind == AT_STRING && a->u.str.n == 0); }
static bool is_empty_dict(const shl_attr *a) { return !a || (a->kind == AT_DICT && a->u.dict.n == 0); }
static bool is_empty_tensor(const shl_attr *a) { return !a || (a->kind == AT_DENSE && a->u.dense.nbytes == 0); }
static bool is_enum(const shl_attr *a, const char *v) { return !a || (a->kind == AT_ENUM && str_eq_c(a->u.en.value, v)); }

static bool is_splat_int(const shl_attr *a, int64_t v) {
  if (!a) return true;
  if (a->kind != AT_DENSE || !a->u.dense.splat || !a->u.dense.nbytes) return false;
  int64_t x;
  size_t n;
  if (type_storage_dtype(a->type) == DT_I1) return ((const uint8_t *)attr_dense_data(a))[0] == (uint8_t)v;
  return attr_as_ints(a, &x, 1, &n) && n >= 1 && x == v;
}

static bool is_all_default_precision(const shl_attr *a) {
  if (!a) return true;
  if (a->kind != AT_ARRAY) return false;
  for (uint32_t i = 0; i < a->u.arr.n; i++)
    if (!is_enum(a->u.arr.items[i], "DEFAULT")) return false;
  return true;
}

/* ---- building StableHLO attributes ---- */

static shl_status ints_of(alist *l, const char *name, int64_t **v, size_t *n) {
  const shl_attr *a = get(l, name);
  *n = 0;
  *v = NULL;
  if (!a) return NULL; /* an older version without the field: empty */
  size_t cnt;
  if (!attr_as_ints(a, NULL, 0, &cnt)) return bc_error(l->r, l->at, "attribute '%s' is not a list of integers", name);
  *v = ARENA_ARRAY(l->r->a, int64_t, cnt ? cnt : 1);
  if (!*v) return st_oom();
  attr_as_ints(a, *v, cnt, n);
  return NULL;
}

static shl_status int_of(alist *l, const char *name, int64_t *v) {
  const shl_attr *a = get(l, name);
  if (!a || !attr_as_int(a, v)) return bc_error(l->r, l->at, "attribute '%s' is missing or not an integer", name);
  return NULL;
}

static shl_status parse_text(alist *l, bld_text *t, const shl_attr **out) {
  shl_status st = bld_text_attr(l->r->m, t, out);
  if (!st) return NULL;
  shl_status e = bc_error(l->r, l->at, "%s", shloc_status_message(st));
  shloc_status_free(st);
  return e;
}

/* A structured attribute from integer-list fields (empty ones left out, as
 * StableHLO prints them) and an optional integer field. */
static shl_status implode(alist *l, const char *target, const char *const *lists, const char *int_field) {
  int64_t *v[8], x = 0;
  size_t n[8];
  int k = 0;
  for (const char *const *f = lists; *f; f++, k++) ST_TRY(ints_of(l, *f, &v[k], &n[k]));
  if (int_field) ST_TRY(int_of(l, int_field, &x));
  bld_text t = {0};
  bool first = true;
  bld_text_printf(&t, "#stablehlo.%s<", target);
  k = 0;
  for (const char *const *f = lists; *f; f++, k++) {
    if (!n[k]) continue;
    bld_text_printf(&t, "%s%s = ", first ? "" : ", ", *f);
    bld_text_ints(&t, v[k], n[k]);
    first = false;
  }
  /* StableHLO prints the integer field only when it is not 0. */
  if (int_field && x) bld_text_printf(&t, "%s%s = %lld", first ? "" : ", ", int_field, (long long)x);
  bld_text_printf(&t, ">");
  for (const char *const *f = lists; *f; f++) erase(l, *f);
  if (int_field) erase(l, int_field);
  const shl_attr *a;
  ST_TRY(parse_text(l, &t, &a));
  return put(l, !strcmp(target, "scatter") ? "scatter_dimension_numbers" : !strcmp(target, "dot") ? "dot_dimension_numbers" : "dimension_numbers", a);
}

static shl_status conv_dims(alist *l) {
  int64_t ib, ifeat, ko, ki, ob, of;
  int64_t *is, *ks, *os;
  size_t ns, nk, no;
  ST_TRY(int_of(l, "input_batch_dimension", &ib));
  ST_TRY(int_of(l, "input_feature_dimension", &ifeat));
  ST_TRY(int_of(l, "kernel_input_feature_dimension", &ki));
  ST_TRY(int_of(l, "kernel_output_feature_dimension", &ko));
  ST_TRY(int_of(l, "output_batch_dimension", &ob));
  ST_TRY(int_of(l, "output_feature_dimension", &of));
  ST_TRY(ints_of(l, "input_spatial_dimensions", &is, &ns));
  ST_TRY(ints_of(l, "kernel_spatial_dimensions", &ks, &nk));
  ST_TRY(ints_of(l, "output_spatial_dimensions", &os, &no));
  if (nk != ns || no != ns) return bc_error(l->r, l->at, "convolution spatial dimension counts differ");
  bld_text t = {0};
  bld_text_printf(&t, "#stablehlo.conv<");
  const int64_t *sp[3] = {is, ks, os};
  const int64_t a0[3] = {ib, ki, ob}, a1[3] = {ifeat, ko, of};
  const char *l0 = "bib", *l1 = "fof";
  for (int k = 0; k < 3; k++) {
    size_t rank = ns + 2;
    bld_text_printf(&t, "%s[", k == 0 ? "" : k == 1 ? "x" : "->");
    for (size_t d = 0; d < rank; d++) {
      if (d) bld_text_printf(&t, ", ");
      if ((size_t)a0[k] == d) bld_text_printf(&t, "%c", l0[k]);
      else if ((size_t)a1[k] == d) bld_text_printf(&t, "%c", l1[k]);
      else {
        size_t s = 0;
        while (s < ns && (size_t)sp[k][s] != d) s++;
        if (s == ns) {
          free(t.p);
          return bc_error(l->r, l->at, "convolution dimension numbers do not cover dimension %zu", d);
        }
        bld_text_printf(&t, "%zu", s);
      }
    }
    bld_text_printf(&t, "]");
  }
  bld_text_printf(&t, ">");
  static const char *const fields[] = {"input_batch_dimension", "input_feature_dimension", "input_spatial_dimensions",
                                       "kernel_input_feature_dimension", "kernel_output_feature_dimension",
                                       "kernel_spatial_dimensions", "output_batch_dimension",
                                       "output_feature_dimension", "output_spatial_dimensions", NULL};
  for (const char *const *f = fields; *f; f++) erase(l, *f);
  const shl_attr *a;
  ST_TRY(parse_text(l, &t, &a));
  return put(l, "dimension_numbers", a);
}

static bool is_none_type(const shl_attr *a) { return !a || (a->kind == AT_TYPE && a->type->kind == TY_NONE); }

static shl_status dot_algorithm(alist *l) {
  static const char *const fields[] = {"lhs_precision_type", "rhs_precision_type", "accumulation_type",
                                       "lhs_component_count", "rhs_component_count", "num_primitive_operations",
                                       "allow_imprecise_accumulation", NULL};
  bool none = is_none_type(get(l, "lhs_component_count")) || is_none_type(get(l, "lhs_precision_type"));
  if (!none) {
    bld_text t = {0};
    bld_text_printf(&t, "#stablehlo.dot_algorithm<");
    for (int k = 0; fields[k]; k++) {
      const shl_attr *a = get(l, fields[k]);
      bld_text_printf(&t, "%s%s = ", k ? ", " : "", fields[k]);
      if (!a) t.oom = true;
      else if (a->kind == AT_TYPE && a->type->kind == TY_SCALAR) bld_text_printf(&t, "%s", dtype_name(a->type->dtype));
      else if (a->kind == AT_INT) bld_text_printf(&t, "%lld", (long long)a->u.i);
      else if (a->kind == AT_BOOL) bld_text_printf(&t, "%s", a->u.b ? "true" : "false");
      else t.oom = true;
    }
    bld_text_printf(&t, ">");
    const shl_attr *alg;
    if (t.oom) {
      free(t.p);
      return bc_error(l->r, l->at, "invalid dot algorithm");
    }
    ST_TRY(parse_text(l, &t, &alg));
    for (int k = 0; fields[k]; k++) erase(l, fields[k]);
    return put(l, "algorithm", alg);
  }
  for (int k = 0; fields[k]; k++) erase(l, fields[k]);
  return NULL;
}

static shl_status channel_handle(alist *l, bool with_type) {
  const shl_attr *id = get(l, "channel_id");
  int64_t h = 0, ty = 0;
  if (id && !attr_as_int(id, &h)) return bc_error(l->r, l->at, "channel_id is not an integer");
  if (with_type) ST_TRY(int_of(l, "channel_type", &ty));
  erase(l, "channel_id");
  erase(l, "channel_type");
  if (!with_type && h == 0) return NULL; /* the default channel */
  bld_text t = {0};
  bld_text_printf(&t, "#stablehlo.channel_handle<handle = %lld, type = %lld>", (long long)h, (long long)ty);
  const shl_attr *a;
  ST_TRY(parse_text(l, &t, &a));
  return put(l, "channel_handle", a);
}

/* A boolean that StableHLO writes as a unit attribute when true. */
static shl_status flag_to_unit(alist *l, const char *name) {
  const shl_attr *a = get(l, name);
  if (!a) return NULL;
  if (a->kind != AT_BOOL) return bc_error(l->r, l->at, "attribute '%s' is not a boolean", name);
  if (!a->u.b) {
    erase(l, name);
    return NULL;
  }
  shl_attr *u = attr_new(l->r->a, AT_UNIT);
  if (!u) return st_oom();
  return put(l, name, u);
}

static shl_status symbol(alist *l, const shl_attr *s, const shl_attr **out) {
  if (!s || s->kind != AT_STRING) return bc_error(l->r, l->at, "symbol name is not a string");
  bld_text t = {0};
  bld_text_printf(&t, "@");
  bld_text_symbol(&t, s->u.str.p, s->u.str.n);
  return parse_text(l, &t, out);
}

static shl_status to_symbol(alist *l, const char *name) {
  const shl_attr *a = get(l, name);
  if (!a) return NULL;
  const shl_attr *sym;
  ST_TRY(symbol(l, a, &sym));
  return put(l, name, sym);
}

static shl_status to_i64_array(alist *l, const char *name) {
  const shl_attr *a = get(l, name);
  if (!a) return NULL;
  int64_t *v;
  size_t n;
  ST_TRY(ints_of(l, name, &v, &n));
  shl_attr *d = attr_dense_array_i64(l->r->a, v, (int64_t)n);
  if (!d) return st_oom();
  return put(l, name, d);
}

static shl_status to_bool_array(alist *l, const char *name) {
  const shl_attr *a = get(l, name);
  if (!a) return NULL;
  if (a->kind != AT_DENSE || type_storage_dtype(a->type) != DT_I1) return bc_error(l->r, l->at, "attribute '%s' is not a boolean tensor", name);
  int64_t n = type_num_elements(a->type);
  uint8_t *b = arena_alloc(l->r->a, n > 0 ? (size_t)n : 1);
  shl_attr *d = attr_new(l->r->a, AT_DENSE_ARRAY);
  const shl_type *i1 = type_scalar(l->r->a, DT_I1);
  if (!b || !d || !i1) return st_oom();
  const uint8_t *src = attr_dense_data(a);
  for (int64_t i = 0; i < n; i++) b[i] = src[a->u.dense.splat ? 0 : i];
  d->type = i1;
  d->u.darr.n = n;
  d->u.darr.data = b;
  return put(l, name, d);
}

/* ---- per-op rules ---- */

static bool base_is(const char *target, const char *name) { return !strcmp(target + 10, name); } /* after "stablehlo." */

static shl_status convert(alist *l, const char *tg) {
  bool sh = !strncmp(tg, "stablehlo.", 10);
  if (!strcmp(tg, "func.func")) {
    if (is_empty_string(get(l, "sym_visibility"))) erase(l, "sym_visibility");
    if (is_empty_array(get(l, "arg_attrs"))) erase(l, "arg_attrs");
    if (is_empty_array(get(l, "res_attrs"))) erase(l, "res_attrs");
    return NULL;
  }
  if (!strcmp(tg, "func.call")) return to_symbol(l, "callee");
  if (!sh) return NULL;
  const char *b = tg + 10;
  if (base_is(tg, "all_gather") || base_is(tg, "all_reduce") || base_is(tg, "reduce_scatter") ||
      base_is(tg, "all_to_all") || base_is(tg, "collective_permute") || base_is(tg, "collective_broadcast") ||
      base_is(tg, "collective_reduce")) {
    ST_TRY(channel_handle(l, false));
    ST_TRY(flag_to_unit(l, "use_global_device_ids"));
    ST_TRY(flag_to_unit(l, "has_dynamic_root"));
  }
  if (!strcmp(b, "cholesky") && is_bool(get(l, "lower"), false)) erase(l, "lower");
  if (!strcmp(b, "compare") && is_enum(get(l, "compare_type"), "NOTYPE")) erase(l, "compare_type");
  if (!strcmp(b, "composite")) {
    if (is_int(get(l, "version"), 0)) erase(l, "version");
    if (is_empty_dict(get(l, "composite_attributes"))) erase(l, "composite_attributes");
    ST_TRY(to_symbol(l, "decomposition"));
  }
  if (!strcmp(b, "convolution") || !strcmp(b, "dynamic_conv")) {
    ST_TRY(conv_dims(l));
    if (!strcmp(b, "dynamic_conv")) erase(l, "padding"); /* dropped by the v1 -> v2 upgrade */
    if (is_splat_int(get(l, "window_strides"), 1)) erase(l, "window_strides");
    if (!strcmp(b, "convolution") && is_splat_int(get(l, "padding"), 0)) erase(l, "padding");
    if (is_splat_int(get(l, "lhs_dilation"), 1)) erase(l, "lhs_dilation");
    if (is_splat_int(get(l, "rhs_dilation"), 1)) erase(l, "rhs_dilation");
    if (is_splat_int(get(l, "window_reversal"), 0)) erase(l, "window_reversal");
    if (is_all_default_precision(get(l, "precision_config"))) erase(l, "precision_config");
    ST_TRY(to_i64_array(l, "window_strides"));
    ST_TRY(to_i64_array(l, "lhs_dilation"));
    ST_TRY(to_i64_array(l, "rhs_dilation"));
    ST_TRY(to_bool_array(l, "window_reversal"));
  }
  if (!strcmp(b, "custom_call")) {
    if (is_bool(get(l, "has_side_effect"), false)) erase(l, "has_side_effect");
    if (is_empty_string(get(l, "backend_config")) || is_empty_dict(get(l, "backend_config"))) erase(l, "backend_config");
    if (is_int(get(l, "api_version"), 1)) erase(l, "api_version");
    if (is_empty_array(get(l, "called_computations"))) erase(l, "called_computations");
    if (is_empty_array(get(l, "operand_layouts")) && is_empty_array(get(l, "result_layouts"))) {
      erase(l, "operand_layouts");
      erase(l, "result_layouts");
    }
    if (is_empty_array(get(l, "output_operand_aliases"))) erase(l, "output_operand_aliases");
    if (is_empty_array(get(l, "result_tilings"))) erase(l, "result_tilings");
    const shl_attr *cc = get(l, "called_computations");
    if (cc) {
      if (cc->kind != AT_ARRAY) return bc_error(l->r, l->at, "called_computations is not an array");
      const shl_attr **items = ARENA_ARRAY(l->r->a, const shl_attr *, cc->u.arr.n ? cc->u.arr.n : 1);
      shl_attr *arr = attr_new(l->r->a, AT_ARRAY);
      if (!items || !arr) return st_oom();
      for (uint32_t i = 0; i < cc->u.arr.n; i++) ST_TRY(symbol(l, cc->u.arr.items[i], &items[i]));
      arr->u.arr.n = cc->u.arr.n;
      arr->u.arr.items = items;
      ST_TRY(put(l, "called_computations", arr));
    }
  }
  if (!strcmp(b, "dot_general")) {
    static const char *const f[] = {"lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions",
                                    "rhs_contracting_dimensions", NULL};
    ST_TRY(implode(l, "dot", f, NULL));
    ST_TRY(dot_algorithm(l));
  }
  if ((!strcmp(b, "dot_general") || !strcmp(b, "dot")) && is_all_default_precision(get(l, "precision_config")))
    erase(l, "precision_config");
  if (!strcmp(b, "dynamic_broadcast_in_dim")) {
    if (is_empty_tensor(get(l, "known_expanding_dimensions"))) erase(l, "known_expanding_dimensions");
    if (is_empty_tensor(get(l, "known_nonexpanding_dimensions"))) erase(l, "known_nonexpanding_dimensions");
    ST_TRY(to_i64_array(l, "broadcast_dimensions"));
    ST_TRY(to_i64_array(l, "known_expanding_dimensions"));
    ST_TRY(to_i64_array(l, "known_nonexpanding_dimensions"));
  }
  if (!strcmp(b, "gather") || !strcmp(b, "dynamic_gather")) {
    if (is_bool(get(l, "indices_are_sorted"), false)) erase(l, "indices_are_sorted");
    static const char *const f[] = {"offset_dims", "collapsed_slice_dims", "operand_batching_dims",
                                    "start_indices_batching_dims", "start_index_map", NULL};
    ST_TRY(implode(l, "gather", f, "index_vector_dim"));
    if (!strcmp(b, "gather")) ST_TRY(to_i64_array(l, "slice_sizes"));
  }
  if (!strcmp(b, "scatter")) {
    if (is_bool(get(l, "indices_are_sorted"), false)) erase(l, "indices_are_sorted");
    if (is_bool(get(l, "unique_indices"), false)) erase(l, "unique_indices");
    static const char *const f[] = {"update_window_dims", "inserted_window_dims", "input_batching_dims",
                                    "scatter_indices_batching_dims", "scatter_dims_to_operand_dims", NULL};
    ST_TRY(implode(l, "scatter", f, "index_vector_dim"));
  }
  if (!strcmp(b, "infeed")) {
    if (is_empty_string(get(l, "infeed_config"))) erase(l, "infeed_config");
    if (is_empty_array(get(l, "layout"))) erase(l, "layout");
  }
  if (!strcmp(b, "outfeed") && is_empty_string(get(l, "outfeed_config"))) erase(l, "outfeed_config");
  if (!strcmp(b, "recv") || !strcmp(b, "send")) {
    if (is_bool(get(l, "is_host_transfer"), false)) erase(l, "is_host_transfer");
    if (is_empty_tensor(get(l, "source_target_pairs"))) erase(l, "source_target_pairs");
    ST_TRY(channel_handle(l, true));
  }
  if (!strcmp(b, "reduce_window")) {
    if (is_splat_int(get(l, "window_strides"), 1)) erase(l, "window_strides");
    if (is_splat_int(get(l, "base_dilations"), 1)) erase(l, "base_dilations");
    if (is_splat_int(get(l, "window_dilations"), 1)) erase(l, "window_dilations");
    if (is_splat_int(get(l, "padding"), 0)) erase(l, "padding");
    static const char *const f[] = {"window_dimensions", "window_strides", "base_dilations", "window_dilations", NULL};
    for (const char *const *x = f; *x; x++) ST_TRY(to_i64_array(l, *x));
  }
  if (!strcmp(b, "select_and_scatter")) {
    if (is_splat_int(get(l, "window_strides"), 1)) erase(l, "window_strides");
    if (is_splat_int(get(l, "padding"), 0)) erase(l, "padding");
    ST_TRY(to_i64_array(l, "window_dimensions"));
    ST_TRY(to_i64_array(l, "window_strides"));
  }
  if (!strcmp(b, "sort")) {
    if (is_int(get(l, "dimension"), -1)) erase(l, "dimension");
    if (is_bool(get(l, "is_stable"), false)) erase(l, "is_stable");
  }
  if (get(l, "result_accuracy") && attr_is_default_result_accuracy(get(l, "result_accuracy"))) erase(l, "result_accuracy");
  /* Integer tensors that StableHLO keeps as dense i64 arrays. */
  static const struct {
    const char *op, *attr;
  } arrays[] = {
      {"fft", "fft_length"},         {"broadcast", "broadcast_sizes"},     {"dynamic_slice", "slice_sizes"},
      {"reverse", "dimensions"},     {"transpose", "permutation"},         {"pad", "edge_padding_low"},
      {"pad", "edge_padding_high"},  {"pad", "interior_padding"},          {"slice", "start_indices"},
      {"slice", "limit_indices"},    {"slice", "strides"},                 {"broadcast_in_dim", "broadcast_dimensions"},
      {"map", "dimensions"},         {"reduce", "dimensions"},
  };
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
    if (!strcmp(b, arrays[i].op)) ST_TRY(to_i64_array(l, arrays[i].attr));
  return NULL;
}

shl_status vhlo_convert_op(bc_reader *r, const uint8_t *at, const vhlo_opinfo *info, shl_str parent,
                           const shl_named_attr *in, uint32_t n_in, shl_named_attr *buf, uint32_t cap,
                           vhlo_converted *out) {
  if (n_in > cap) return bc_error(r, at, "too many attributes");
  alist l = {r, at, buf, 0, cap};
  if (n_in) memcpy(l.v, in, n_in * sizeof *in);
  l.n = n_in;
  const char *tg = target_name(info);
  if (!strcmp(tg, "func.return") && !str_eq_c(parent, "func.func")) tg = "stablehlo.return";
  ST_TRY(convert(&l, tg));
  const shl_opdef *d = opdef_lookup(str_of(tg));
  /* Inherent attributes are properties; of an op outside shloc's table all
   * are kept as discardable, as the text parser keeps them. */
  for (uint32_t i = 0; i < l.n; i++) l.v[i].is_prop = d && memchr(l.v[i].name.p, '.', l.v[i].name.n) == NULL;
  uint32_t dup;
  if (!attrs_sort(l.v, l.n, &dup)) return bc_error(r, at, "duplicate attribute '%.*s'", (int)l.v[dup].name.n, l.v[dup].name.p);
  out->def = d ? d : &shl_op_table[OP_UNKNOWN];
  out->name = str_of(tg);
  out->attrs = l.v;
  out->n_attrs = l.n;
  return NULL;
}
