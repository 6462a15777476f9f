/* StableHLO/func -> VHLO ops of a target version (what openxla/stablehlo's
 * StablehloLegalizeToVhlo and VhloToVersion passes do), built as the
 * bytecode writer's tree:
 *   - every attribute an op leaves out gets StableHLO's default;
 *   - structured attributes are split into VHLO's separate fields;
 *   - each op becomes the newest VHLO op its target has; a newer op's extra
 *     attributes must then hold their defaults (else the op is refused,
 *     naming the first version that can express it). */
#include <stdio.h>
#include <stdlib.h>

#include "vhlo.h"
#include "vhlo_write.h"

enum { MAX_ATTRS = 48, MAX_ROWS = 4 };
enum { VA_CUSTOM_CALL_API_VERSION = 5, VA_PRECISION = 11, VA_COMPARISON_TYPE = 4 };

typedef struct {
  const char *name;
  const bw_node *v;
} vattr;

typedef struct {
  vattr v[MAX_ATTRS];
  uint32_t n;
  vx_ctx *x;
} vlist;

static shl_status put(vlist *l, const char *name, const bw_node *v) {
  if (!v) return st_oom();
  for (uint32_t i = 0; i < l->n; i++)
    if (!strcmp(l->v[i].name, name)) {
      l->v[i].v = v;
      return NULL;
    }
  if (l->n == MAX_ATTRS) return op_error(l->x->op, SHLOC_ERR_UNSUPPORTED, "too many attributes");
  l->v[l->n++] = (vattr){name, v};
  return NULL;
}

static const bw_node *get(const vlist *l, const char *name) {
  for (uint32_t i = 0; i < l->n; i++)
    if (!strcmp(l->v[i].name, name)) return l->v[i].v;
  return NULL;
}

static bool op_is_name(const shl_op *op, const char *name) { return str_eq_c(op->name, name); }
static bool op_in(const shl_op *op, const char *const *names) {
  for (; *names; names++)
    if (op_is_name(op, *names)) return true;
  return false;
}

/* ---- values ---- */

static shl_status ints_node(vx_ctx *x, const shl_attr *a, const bw_node **out) {
  int64_t buf[256];
  size_t n = 0;
  if (a && (!attr_as_ints(a, buf, 256, &n) || n > 256)) return op_error(x->op, SHLOC_ERR_UNSUPPORTED, "dimension list too long or malformed");
  return vx_i64_tensor(x, buf, n, NULL, 1, out);
}

static shl_status filled(vx_ctx *x, int64_t value, size_t n, bool pairs, const bw_node **out) {
  int64_t v[512];
  size_t cnt = pairs ? 2 * n : n;
  if (cnt > 512) return op_error(x->op, SHLOC_ERR_UNSUPPORTED, "too many dimensions");
  for (size_t i = 0; i < cnt; i++) v[i] = value;
  int64_t dims[2] = {(int64_t)n, 2};
  return vx_i64_tensor(x, v, cnt, pairs ? dims : NULL, pairs ? 2 : 1, out);
}

static const bw_node *default_precision(vx_ctx *x) {
  const bw_node *d = vx_enum(x, VA_PRECISION, 0);
  const bw_node *v[2] = {d, d};
  return d ? vx_array(x, v, 2) : NULL;
}

static const bw_node *empty_array(vx_ctx *x) { return vx_array(x, NULL, 0); }

static shl_status struct_int(vx_ctx *x, const shl_attr *st, const char *field, vlist *l, const char *as) {
  int64_t v = 0;
  const shl_attr *f = attr_struct_field(st, field);
  if (f && !attr_as_int(f, &v)) return op_error(x->op, SHLOC_ERR_UNSUPPORTED, "field '%s' is not an integer", field);
  return put(l, as ? as : field, vx_int(x, v));
}

static shl_status struct_ints(vx_ctx *x, const shl_attr *st, const char *field, vlist *l) {
  const bw_node *n;
  ST_TRY(ints_node(x, attr_struct_field(st, field), &n));
  return put(l, field, n);
}

/* ---- defaults and structured attributes (per op) ---- */

static shl_status defaults(vx_ctx *x, const shl_op *op, vlist *l) {
  static const char *const coll_a[] = {"stablehlo.all_gather", "stablehlo.all_reduce", "stablehlo.reduce_scatter",
                                       "stablehlo.collective_reduce", NULL};
  static const char *const coll_b[] = {"stablehlo.all_to_all", "stablehlo.collective_permute",
                                       "stablehlo.collective_broadcast", NULL};
  static const char *const accuracy[] = {"stablehlo.cbrt", "stablehlo.cosine", "stablehlo.exponential",
                                         "stablehlo.exponential_minus_one", "stablehlo.log", "stablehlo.log_plus_one",
                                         "stablehlo.logistic", "stablehlo.rsqrt", "stablehlo.sine", "stablehlo.sqrt",
                                         "stablehlo.tan", "stablehlo.tanh", NULL};
  if (op_is_name(op, "func.func")) {
    ST_TRY(put(l, "sym_visibility", vx_string(x, str_of(""))));
    ST_TRY(put(l, "arg_attrs", empty_array(x)));
    ST_TRY(put(l, "res_attrs", empty_array(x)));
  }
  if (op_in(op, coll_a) || op_in(op, coll_b)) ST_TRY(put(l, "channel_id", vx_int(x, 0)));
  if (op_in(op, coll_a)) ST_TRY(put(l, "use_global_device_ids", vx_bool(x, false)));
  if (op_is_name(op, "stablehlo.collective_broadcast") || op_is_name(op, "stablehlo.collective_reduce"))
    ST_TRY(put(l, "has_dynamic_root", vx_bool(x, false)));
  if (op_is_name(op, "stablehlo.cholesky")) ST_TRY(put(l, "lower", vx_bool(x, false)));
  if (op_is_name(op, "stablehlo.compare")) ST_TRY(put(l, "compare_type", vx_enum(x, VA_COMPARISON_TYPE, 0)));
  if (op_is_name(op, "stablehlo.composite")) {
    ST_TRY(put(l, "version", vx_int(x, 0)));
    shl_attr empty = {.kind = AT_DICT};
    const bw_node *d;
    ST_TRY(vx_attr(x, &empty, "composite_attributes", &d));
    ST_TRY(put(l, "composite_attributes", d));
  }
  if (op_is_name(op, "stablehlo.convolution") || op_is_name(op, "stablehlo.dynamic_conv")) {
    const shl_attr *dn = op_attr(op, "dimension_numbers");
    size_t ns = 0;
    if (!dn || !attr_as_ints(attr_struct_field(dn, "input_spatial_dimensions"), NULL, 0, &ns))
      return op_error(op, SHLOC_ERR_UNSUPPORTED, "convolution without dimension numbers");
    const bw_node *n;
    ST_TRY(filled(x, 1, ns, false, &n));
    ST_TRY(put(l, "window_strides", n));
    ST_TRY(put(l, "lhs_dilation", n));
    ST_TRY(put(l, "rhs_dilation", n));
    if (op_is_name(op, "stablehlo.convolution")) {
      ST_TRY(filled(x, 0, ns, true, &n));
      ST_TRY(put(l, "padding", n));
    }
    uint8_t f[256] = {0};
    if (ns > 256) return op_error(op, SHLOC_ERR_UNSUPPORTED, "too many spatial dimensions");
    ST_TRY(vx_bool_tensor(x, f, ns, &n));
    ST_TRY(put(l, "window_reversal", n));
    ST_TRY(put(l, "precision_config", default_precision(x)));
  }
  if (op_is_name(op, "stablehlo.custom_call")) {
    ST_TRY(put(l, "has_side_effect", vx_bool(x, false)));
    int64_t api = 1;
    attr_as_int(op_attr(op, "api_version"), &api);
    if (api == 4) {
      shl_attr empty = {.kind = AT_DICT};
      const bw_node *d;
      ST_TRY(vx_attr(x, &empty, "backend_config", &d));
      ST_TRY(put(l, "backend_config", d));
    } else {
      ST_TRY(put(l, "backend_config", vx_string(x, str_of(""))));
    }
    ST_TRY(put(l, "api_version", vx_enum(x, VA_CUSTOM_CALL_API_VERSION, 1)));
    static const char *const lists[] = {"called_computations", "operand_layouts", "result_layouts",
                                        "output_operand_aliases", "result_tilings", NULL};
    for (const char *const *s = lists; *s; s++) ST_TRY(put(l, *s, empty_array(x)));
  }
  if (op_is_name(op, "stablehlo.dot_general") || op_is_name(op, "stablehlo.dot"))
    ST_TRY(put(l, "precision_config", default_precision(x)));
  if (op_is_name(op, "stablehlo.dot_general")) {
    static const char *const alg[] = {"lhs_precision_type", "rhs_precision_type", "accumulation_type",
                                      "lhs_component_count", "rhs_component_count", "num_primitive_operations",
                                      "allow_imprecise_accumulation", NULL};
    for (const char *const *s = alg; *s; s++) ST_TRY(put(l, *s, vx_none_type_attr(x)));
  }
  if (op_in(op, accuracy) && !op_attr(op, "result_accuracy")) {
    const bw_node *n;
    ST_TRY(vx_result_accuracy(x, &n));
    ST_TRY(put(l, "result_accuracy", n));
  }
  if (op_is_name(op, "stablehlo.dynamic_broadcast_in_dim")) {
    const bw_node *n;
    ST_TRY(vx_i64_tensor(x, NULL, 0, NULL, 1, &n));
    ST_TRY(put(l, "known_expanding_dimensions", n));
    ST_TRY(put(l, "known_nonexpanding_dimensions", n));
  }
  if (op_is_name(op, "stablehlo.gather") || op_is_name(op, "stablehlo.dynamic_gather") ||
      op_is_name(op, "stablehlo.scatter"))
    ST_TRY(put(l, "indices_are_sorted", vx_bool(x, false)));
  if (op_is_name(op, "stablehlo.scatter")) ST_TRY(put(l, "unique_indices", vx_bool(x, false)));
  if (op_is_name(op, "stablehlo.infeed")) {
    ST_TRY(put(l, "infeed_config", vx_string(x, str_of(""))));
    ST_TRY(put(l, "layout", empty_array(x)));
  }
  if (op_is_name(op, "stablehlo.outfeed")) ST_TRY(put(l, "outfeed_config", vx_string(x, str_of(""))));
  if (op_is_name(op, "stablehlo.recv") || op_is_name(op, "stablehlo.send")) {
    const bw_node *n;
    ST_TRY(put(l, "is_host_transfer", vx_bool(x, false)));
    ST_TRY(vx_i64_tensor(x, NULL, 0, NULL, 1, &n));
    ST_TRY(put(l, "source_target_pairs", n));
  }
  if (op_is_name(op, "stablehlo.reduce_window") || op_is_name(op, "stablehlo.select_and_scatter")) {
    size_t nw = 0;
    if (!attr_as_ints(op_attr(op, "window_dimensions"), NULL, 0, &nw))
      return op_error(op, SHLOC_ERR_UNSUPPORTED, "missing window_dimensions");
    const bw_node *n;
    ST_TRY(filled(x, 1, nw, false, &n));
    ST_TRY(put(l, "window_strides", n));
    if (op_is_name(op, "stablehlo.reduce_window")) {
      ST_TRY(put(l, "base_dilations", n));
      ST_TRY(put(l, "window_dilations", n));
    }
    ST_TRY(filled(x, 0, nw, true, &n));
    ST_TRY(put(l, "padding", n));
  }
  if (op_is_name(op, "stablehlo.sort")) {
    ST_TRY(put(l, "dimension", vx_int(x, -1)));
    ST_TRY(put(l, "is_stable", vx_bool(x, false)));
  }
  return NULL;
}

/* An attribute that VHLO spells differently; false when the generic
 * conversion applies. */
static shl_status special(vx_ctx *x, const shl_op *op, const shl_named_attr *na, vlist *l, bool *handled) {
  static const char *const channel_ops[] = {"stablehlo.all_gather", "stablehlo.all_reduce", "stablehlo.all_to_all",
                                            "stablehlo.collective_permute", "stablehlo.reduce_scatter",
                                            "stablehlo.collective_broadcast", "stablehlo.collective_reduce", NULL};
  const shl_attr *a = na->attr;
  *handled = true;
  if (op_in(op, channel_ops)) {
    if (str_eq_c(na->name, "channel_handle")) return struct_int(x, a, "handle", l, "channel_id");
    if (str_eq_c(na->name, "use_global_device_ids") || str_eq_c(na->name, "has_dynamic_root")) {
      if (a->kind != AT_UNIT) return op_error(op, SHLOC_ERR_UNSUPPORTED, "'%.*s' must be a unit attribute", (int)na->name.n, na->name.p);
      return put(l, str_eq_c(na->name, "has_dynamic_root") ? "has_dynamic_root" : "use_global_device_ids", vx_bool(x, true));
    }
  }
  if ((op_is_name(op, "stablehlo.convolution") || op_is_name(op, "stablehlo.dynamic_conv")) &&
      str_eq_c(na->name, "dimension_numbers")) {
    static const char *const ints[] = {"input_batch_dimension", "input_feature_dimension",
                                       "kernel_input_feature_dimension", "kernel_output_feature_dimension",
                                       "output_batch_dimension", "output_feature_dimension", NULL};
    static const char *const lists[] = {"input_spatial_dimensions", "kernel_spatial_dimensions",
                                        "output_spatial_dimensions", NULL};
    for (const char *const *s = ints; *s; s++) ST_TRY(struct_int(x, a, *s, l, NULL));
    for (const char *const *s = lists; *s; s++) ST_TRY(struct_ints(x, a, *s, l));
    return NULL;
  }
  if (op_is_name(op, "stablehlo.custom_call")) {
    if (str_eq_c(na->name, "api_version")) {
      int64_t v;
      if (!attr_as_int(a, &v) || v < 0 || v > 4) return op_error(op, SHLOC_ERR_UNSUPPORTED, "invalid api_version");
      return put(l, "api_version", vx_enum(x, VA_CUSTOM_CALL_API_VERSION, (uint64_t)v));
    }
    if (str_eq_c(na->name, "called_computations")) {
      if (a->kind != AT_ARRAY) return op_error(op, SHLOC_ERR_UNSUPPORTED, "called_computations is not an array");
      const bw_node *n;
      ST_TRY(vx_attr(x, a, "called_computations", &n));
      return put(l, "called_computations", n);
    }
  }
  if (op_is_name(op, "stablehlo.dot_general")) {
    if (str_eq_c(na->name, "dot_dimension_numbers")) {
      static const char *const f[] = {"lhs_batching_dimensions", "rhs_batching_dimensions",
                                      "lhs_contracting_dimensions", "rhs_contracting_dimensions", NULL};
      for (const char *const *s = f; *s; s++) ST_TRY(struct_ints(x, a, *s, l));
      return NULL;
    }
    if (str_eq_c(na->name, "algorithm")) {
      static const char *const types[] = {"lhs_precision_type", "rhs_precision_type", "accumulation_type", NULL};
      for (const char *const *s = types; *s; s++) {
        const shl_attr *f = attr_struct_field(a, *s);
        if (!f || f->kind != AT_TYPE) return op_error(op, SHLOC_ERR_UNSUPPORTED, "dot algorithm field '%s' is not a type", *s);
        const bw_node *n;
        ST_TRY(vx_attr(x, f, *s, &n));
        ST_TRY(put(l, *s, n));
      }
      ST_TRY(struct_int(x, a, "lhs_component_count", l, NULL));
      ST_TRY(struct_int(x, a, "rhs_component_count", l, NULL));
      ST_TRY(struct_int(x, a, "num_primitive_operations", l, NULL));
      const shl_attr *b = attr_struct_field(a, "allow_imprecise_accumulation");
      shl_attr i1 = {.kind = AT_BOOL};
      i1.u.b = b && b->kind == AT_BOOL && b->u.b;
      const bw_node *n;
      ST_TRY(vx_attr(x, &i1, "allow_imprecise_accumulation", &n));
      return put(l, "allow_imprecise_accumulation", n);
    }
  }
  if ((op_is_name(op, "stablehlo.gather") || op_is_name(op, "stablehlo.dynamic_gather")) &&
      str_eq_c(na->name, "dimension_numbers")) {
    static const char *const f[] = {"offset_dims", "collapsed_slice_dims", "operand_batching_dims",
                                    "start_indices_batching_dims", "start_index_map", NULL};
    for (const char *const *s = f; *s; s++) ST_TRY(struct_ints(x, a, *s, l));
    return struct_int(x, a, "index_vector_dim", l, NULL);
  }
  if (op_is_name(op, "stablehlo.scatter") && str_eq_c(na->name, "scatter_dimension_numbers")) {
    static const char *const f[] = {"update_window_dims", "inserted_window_dims", "input_batching_dims",
                                    "scatter_indices_batching_dims", "scatter_dims_to_operand_dims", NULL};
    for (const char *const *s = f; *s; s++) ST_TRY(struct_ints(x, a, *s, l));
    return struct_int(x, a, "index_vector_dim", l, NULL);
  }
  if ((op_is_name(op, "stablehlo.recv") || op_is_name(op, "stablehlo.send")) && str_eq_c(na->name, "channel_handle")) {
    ST_TRY(struct_int(x, a, "handle", l, "channel_id"));
    return struct_int(x, a, "type", l, "channel_type");
  }
  *handled = false;
  return NULL;
}

/* ---- versions of an op ---- */

static bool ver_le(const uint32_t *a, const uint32_t *b) { return !vx_older(b, a[0], a[1], a[2]); }

/* Extra attributes of a newer VHLO op that an older one may drop when they
 * hold these defaults (VhloToVersion's downgrade patterns). */
static bool droppable(vx_ctx *x, const shl_op *op, const char *name, const bw_node *v) {
  const bw_node *d = NULL, *tmp;
  if (!strcmp(name, "operand_batching_dims") || !strcmp(name, "start_indices_batching_dims") ||
      !strcmp(name, "input_batching_dims") || !strcmp(name, "scatter_indices_batching_dims") ||
      !strcmp(name, "source_target_pairs")) {
    shl_status st = vx_i64_tensor(x, NULL, 0, NULL, 1, &tmp);
    if (st) {
      shloc_status_free(st);
      return false;
    }
    d = tmp;
  } else if (!strcmp(name, "result_tilings")) {
    d = empty_array(x);
  } else if (!strcmp(name, "has_dynamic_root")) {
    d = vx_bool(x, false);
  } else if (!strcmp(name, "result_accuracy")) {
    const shl_attr *a = op_attr(op, "result_accuracy");
    return !a || attr_is_default_result_accuracy(a);
  } else if (!strcmp(name, "lhs_precision_type") || !strcmp(name, "rhs_precision_type") ||
             !strcmp(name, "accumulation_type") || !strcmp(name, "lhs_component_count") ||
             !strcmp(name, "rhs_component_count") || !strcmp(name, "num_primitive_operations") ||
             !strcmp(name, "allow_imprecise_accumulation")) {
    d = vx_none_type_attr(x);
  } else if (!strcmp(name, "padding")) {
    return true; /* dynamic_conv v2 dropped it; v1 gets the default back (see convert_op) */
  }
  return d && d == v;
}

static bool row_has(const vhlo_opinfo *r, const char *name) {
  for (uint32_t i = 0; i < r->n_attrs; i++)
    if (!strcmp(r->attrs[i], name)) return true;
  return false;
}

/* Whether op, with VHLO attributes l (for the newest row), fits row r; if
 * not, *why names what does not fit. */
static bool row_fits(vx_ctx *x, const shl_op *op, const vhlo_opinfo *newest, const vhlo_opinfo *r, const vlist *l,
                     char *why, size_t cap) {
  for (uint32_t i = 0; i < newest->n_attrs; i++)
    if (!row_has(r, newest->attrs[i]) && !droppable(x, op, newest->attrs[i], get(l, newest->attrs[i]))) {
      snprintf(why, cap, "attribute '%s' (with a value other than its default)", newest->attrs[i]);
      return false;
    }
  if (r == newest) return true;
  static const char *const single[] = {"all_gather_v1", "all_to_all_v1", "all_reduce_v1", "collective_broadcast_v1", NULL};
  for (const char *const *s = single; *s; s++)
    if (!strcmp(r->name, *s) && (op->n_operands != 1 || op->n_results != 1)) {
      snprintf(why, cap, "%u operands", op->n_operands);
      return false;
    }
  if (!strcmp(r->name, "composite_v1") && op->n_regions) {
    snprintf(why, cap, "composite regions");
    return false;
  }
  return true;
}

/* The VHLO op for the target (or, probing, the oldest that fits). */
static shl_status pick_row(vx_ctx *x, const shl_op *op, const vhlo_opinfo *const *rows, size_t nr, const vlist *l,
                           const vhlo_opinfo **out) {
  const vhlo_opinfo *newest = rows[nr - 1];
  char why[160];
  if (x->probe) {
    for (size_t i = 0; i < nr; i++)
      if (row_fits(x, op, newest, rows[i], l, why, sizeof why)) {
        *out = rows[i];
        return vx_need(x, rows[i]->min[0], rows[i]->min[1], rows[i]->min[2], "op");
      }
    *out = newest;
    return vx_need(x, newest->min[0], newest->min[1], newest->min[2], "op");
  }
  const uint32_t *t = x->target;
  if (vx_older(t, rows[0]->min[0], rows[0]->min[1], rows[0]->min[2]))
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "op first exists in StableHLO v%u.%u.%u (vhlo.%s); the target is v%u.%u.%u",
                    rows[0]->min[0], rows[0]->min[1], rows[0]->min[2], rows[0]->name, t[0], t[1], t[2]);
  size_t i = nr;
  while (i-- > 0)
    if (ver_le(rows[i]->min, t)) break;
  if (row_fits(x, op, newest, rows[i], l, why, sizeof why)) {
    *out = rows[i];
    return NULL;
  }
  size_t k = i + 1;
  char ignored[160];
  while (k < nr - 1 && !row_fits(x, op, newest, rows[k], l, ignored, sizeof ignored)) k++;
  const uint32_t *v = rows[k]->min;
  return op_error(op, SHLOC_ERR_UNSUPPORTED, "%s first exists in StableHLO v%u.%u.%u (vhlo.%s); the target is v%u.%u.%u",
                  why, v[0], v[1], v[2], rows[k]->name, t[0], t[1], t[2]);
}

/* Constraints of some VHLO ops on versions older than the op itself
 * (VhloOps.cpp, validateConstraint). */
static bool same_element(const shl_type *a, const shl_type *b) {
  if (a->kind != TY_TENSOR || b->kind != TY_TENSOR) return a->kind == b->kind;
  if (a->dtype != b->dtype) return false;
  return a->dtype != DT_QUANT || (a->quant && b->quant && quant_eq(a->quant, b->quant));
}

static shl_status row_constraints(vx_ctx *x, const shl_op *op, const vhlo_opinfo *row) {
  static const char *const promotable[] = {"all_reduce_v1", "reduce_v1", "reduce_scatter_v1", "reduce_window_v1",
                                           "scatter_v1", "select_and_scatter_v1", NULL};
  for (const char *const *s = promotable; *s; s++)
    if (!strcmp(row->name, *s))
      for (uint32_t i = 0; i < op->n_operands && i < op->n_results; i++)
        if (!same_element(op->operands[i]->type, op->results[i].type))
          return vx_need(x, 0, 17, 0, "operand and result element types that differ");
  if (!strcmp(row->name, "custom_call_v1")) {
    const shl_attr *cfg = op_attr(op, "backend_config");
    int64_t api = 1;
    attr_as_int(op_attr(op, "api_version"), &api);
    if ((cfg && cfg->kind == AT_DICT) || api == 4) ST_TRY(vx_need(x, 1, 3, 0, "a typed-FFI custom call (dictionary backend_config)"));
    for (uint32_t i = 0; i < op->n_operands; i++)
      if (op->operands[i]->type->kind == TY_TUPLE && op->operands[i]->type->future)
        ST_TRY(vx_need(x, 1, 17, 0, "a !stablehlo.future operand of a custom call"));
  }
  return NULL;
}

/* ---- ops ---- */

typedef struct {
  vx_ctx *x;
  const shloc_module *m;
} lg;

/* The written loc(...) when there is one (text or artifact input), else the
 * position in the source as MLIR's parser records it. */
static const bw_node *loc_of(lg *g, shl_str text, shl_srcpos pos) {
  if (g->x->strip) return bx_unknown_loc(g->x);
  const bw_node *n = text.n ? bx_loc_text(g->x, g->m->loc_defs, text) : NULL;
  if (n) return n;
  if (pos.line <= 0) return bx_unknown_loc(g->x);
  return bx_file_loc(g->x, g->m->filename, pos.line, pos.col);
}

static shl_status convert_op(lg *g, const shl_op *op, bw_op **out);

static shl_status convert_block(lg *g, const shl_block *b, bw_block **out) {
  bw_writer *w = g->x->w;
  bw_block *bb = ARENA_NEW(&w->arena, bw_block);
  if (!bb) return st_oom();
  bb->n_args = b->n_args;
  if (b->n_args) {
    bb->arg_keys = ARENA_ARRAY(&w->arena, const void *, b->n_args);
    bb->arg_types = ARENA_ARRAY(&w->arena, const bw_node *, b->n_args);
    bb->arg_locs = ARENA_ARRAY(&w->arena, const bw_node *, b->n_args);
    if (!bb->arg_keys || !bb->arg_types || !bb->arg_locs) return st_oom();
  }
  for (uint32_t i = 0; i < b->n_args; i++) {
    bb->arg_keys[i] = &b->args[i];
    ST_TRY(vx_type(g->x, b->args[i].type, &bb->arg_types[i]));
    bb->arg_locs[i] = loc_of(g, b->arg_locs ? b->arg_locs[i] : (shl_str){NULL, 0}, b->args[i].pos);
    if (!bb->arg_locs[i]) return st_oom();
  }
  for (const shl_op *op = b->first; op; op = op->next) {
    bw_op *o;
    ST_TRY(convert_op(g, op, &o));
    if (bb->last) bb->last->next = o;
    else bb->first = o;
    bb->last = o;
    bb->n_ops++;
  }
  *out = bb;
  return NULL;
}

static shl_status convert_regions(lg *g, const shl_op *op, bw_op *o) {
  bw_writer *w = g->x->w;
  o->n_regions = op->n_regions;
  if (!op->n_regions) return NULL;
  o->regions = ARENA_ARRAY(&w->arena, bw_region, op->n_regions);
  if (!o->regions) return st_oom();
  for (uint32_t r = 0; r < op->n_regions; r++) {
    const shl_region *reg = &op->regions[r];
    o->regions[r].n_blocks = reg->n_blocks;
    if (!reg->n_blocks) continue;
    o->regions[r].blocks = ARENA_ARRAY(&w->arena, bw_block *, reg->n_blocks);
    if (!o->regions[r].blocks) return st_oom();
    for (uint32_t b = 0; b < reg->n_blocks; b++) ST_TRY(convert_block(g, reg->blocks[b], &o->regions[r].blocks[b]));
  }
  return NULL;
}

static shl_status common(lg *g, const shl_op *op, bw_op *o) {
  bw_writer *w = g->x->w;
  o->loc = loc_of(g, op->loc, op->pos);
  if (!o->loc) return st_oom();
  o->n_results = op->n_results;
  o->n_operands = op->n_operands;
  if (op->n_results) {
    o->result_keys = ARENA_ARRAY(&w->arena, const void *, op->n_results);
    o->result_types = ARENA_ARRAY(&w->arena, const bw_node *, op->n_results);
    if (!o->result_keys || !o->result_types) return st_oom();
  }
  for (uint32_t i = 0; i < op->n_results; i++) {
    o->result_keys[i] = &op->results[i];
    ST_TRY(vx_type(g->x, op->results[i].type, &o->result_types[i]));
  }
  if (op->n_operands) {
    o->operand_keys = ARENA_ARRAY(&w->arena, const void *, op->n_operands);
    if (!o->operand_keys) return st_oom();
  }
  for (uint32_t i = 0; i < op->n_operands; i++) o->operand_keys[i] = op->operands[i];
  return NULL;
}

/* Sorted (name, value) pairs as a builtin dictionary, or NULL when empty. */
static shl_status attr_dict(vx_ctx *x, vattr *v, uint32_t n, const bw_node **out) {
  *out = NULL;
  if (!n) return NULL;
  for (uint32_t i = 1; i < n; i++)
    for (uint32_t k = i; k > 0 && strcmp(v[k - 1].name, v[k].name) > 0; k--) {
      vattr t = v[k];
      v[k] = v[k - 1];
      v[k - 1] = t;
    }
  shl_str names[MAX_ATTRS];
  const bw_node *vals[MAX_ATTRS];
  for (uint32_t i = 0; i < n; i++) {
    names[i] = str_of(v[i].name);
    vals[i] = v[i].v;
  }
  *out = bx_dict(x, names, vals, n);
  return *out ? NULL : st_oom();
}

static shl_status convert_module(lg *g, const shl_op *op, bw_op *o) {
  vx_ctx *x = g->x;
  bw_writer *w = x->w;
  ST_TRY(bw_opname(w, str_of("builtin.module"), true, &o->name));
  ST_TRY(common(g, op, o));
  o->isolated_trait = true;
  vattr rest[MAX_ATTRS];
  uint32_t n = 0;
  const bw_node *sym = NULL, *vis = NULL;
  for (uint32_t i = 0; i < op->n_attrs; i++) {
    const bw_node *v;
    x->op = op;
    ST_TRY(bx_attr(x, op->attrs[i].attr, &v));
    bool is_sym = str_eq_c(op->attrs[i].name, "sym_name"), is_vis = str_eq_c(op->attrs[i].name, "sym_visibility");
    if (w->version >= 5 && is_sym) {
      sym = v;
    } else if (w->version >= 5 && is_vis) {
      vis = v;
    } else {
      if (n == MAX_ATTRS) return op_error(op, SHLOC_ERR_UNSUPPORTED, "too many module attributes");
      char *name = arena_strndup(&w->arena, op->attrs[i].name.p, op->attrs[i].name.n);
      if (!name) return st_oom();
      rest[n++] = (vattr){name, v};
    }
  }
  ST_TRY(attr_dict(x, rest, n, &o->attrs));
  if (w->version >= 5) {
    bw_enc e;
    bw_enc_begin(w, &e);
    bw_opt_attr(&e, sym);
    bw_opt_attr(&e, vis);
    o->has_props = true;
    o->props = bw_enc_items(&e, &o->n_props);
  }
  return convert_regions(g, op, o);
}

static shl_status convert_op(lg *g, const shl_op *op, bw_op **out) {
  vx_ctx *x = g->x;
  bw_writer *w = x->w;
  bw_op *o = ARENA_NEW(&w->arena, bw_op);
  if (!o) return st_oom();
  *out = o;
  x->op = op;
  if (op_is(op, OP_MODULE)) return convert_module(g, op, o); /* nested modules stay builtin */
  /* The VHLO ops of each op name, looked up once per module. */
  struct op_rows {
    size_t n;
    const vhlo_opinfo *v[MAX_ROWS];
  } *cached = strmap_get(&x->ops_cache, op->name);
  if (!cached) {
    cached = ARENA_NEW(&w->arena, struct op_rows);
    if (!cached) return st_oom();
    cached->n = vhlo_ops_for(op->name, cached->v, MAX_ROWS);
    if (!strmap_put(&x->ops_cache, op->name, cached)) return st_oom();
  }
  const vhlo_opinfo *const *rows = cached->v;
  size_t nr = cached->n;
  if (!nr || !rows[0]) return op_error(op, SHLOC_ERR_UNSUPPORTED, "op cannot be expressed in VHLO (portable artifacts hold StableHLO and func ops only)");
  vlist l = {.x = x};
  ST_TRY(defaults(x, op, &l));
  for (uint32_t i = 0; i < op->n_attrs; i++) {
    const shl_named_attr *na = &op->attrs[i];
    bool handled;
    ST_TRY(special(x, op, na, &l, &handled));
    if (handled) continue;
    char *name = arena_strndup(&w->arena, na->name.p, na->name.n);
    if (!name) return st_oom();
    if (op_is_name(op, "func.call") && !strcmp(name, "callee") && na->attr->kind != AT_SYMREF)
      return op_error(op, SHLOC_ERR_UNSUPPORTED, "callee is not a symbol");
    const bw_node *v;
    ST_TRY(vx_attr(x, na->attr, name, &v));
    ST_TRY(put(&l, name, v));
  }
  const vhlo_opinfo *row = NULL;
  ST_TRY(pick_row(x, op, rows, nr, &l, &row));
  x->op = op;
  ST_TRY(row_constraints(x, op, row));
  if (!strcmp(row->name, "dynamic_conv_v1") && !get(&l, "padding")) {
    /* v2 dropped padding; the v1 op holds the default: zeros, rank-2 rows. */
    const shl_type *lhs = op->n_operands ? op->operands[0]->type : NULL;
    if (!lhs || lhs->kind != TY_TENSOR || lhs->rank < 2) return op_error(op, SHLOC_ERR_UNSUPPORTED, "dynamic_conv needs a ranked lhs");
    const bw_node *n;
    ST_TRY(filled(x, 0, (size_t)lhs->rank - 2, true, &n));
    ST_TRY(put(&l, "padding", n));
  }
  char full[96];
  snprintf(full, sizeof full, "vhlo.%s", row->name);
  ST_TRY(bw_opname(w, str_of(full), true, &o->name));
  ST_TRY(common(g, op, o));
  o->isolated_trait = !strcmp(row->name, "func_v1");
  if (row != rows[nr - 1]) o->recreated = ++x->n_recreated; /* VhloToVersion rebuilt it */
  /* Properties: the row's attributes in order; the rest are discardable. */
  const vhlo_opinfo *newest = rows[nr - 1];
  vattr all[MAX_ATTRS];
  uint32_t n_all = 0, n_disc = 0;
  vattr disc[MAX_ATTRS];
  for (uint32_t i = 0; i < l.n; i++) {
    bool inherent = row_has(row, l.v[i].name);
    if (!inherent && (row_has(newest, l.v[i].name) || !strcmp(l.v[i].name, "padding"))) continue; /* dropped */
    if (inherent) all[n_all++] = l.v[i];
    else disc[n_disc++] = l.v[i];
  }
  bw_enc e;
  bw_enc_begin(w, &e);
  for (uint32_t k = 0; k < row->n_attrs; k++) {
    const bw_node *v = get(&l, row->attrs[k]);
    if (!v)
      return op_error(op, SHLOC_ERR_UNSUPPORTED, "op '%.*s' lacks attribute '%s' that vhlo.%s requires", (int)op->name.n,
                      op->name.p, row->attrs[k], row->name);
    bw_attr(&e, v);
  }
  if (w->version >= 5) {
    if (row->n_attrs) {
      o->has_props = true;
      o->props = bw_enc_items(&e, &o->n_props);
    }
    ST_TRY(attr_dict(x, disc, n_disc, &o->attrs));
  } else {
    for (uint32_t i = 0; i < n_disc; i++) all[n_all++] = disc[i];
    ST_TRY(attr_dict(x, all, n_all, &o->attrs));
  }
  return convert_regions(g, op, o);
}

shl_status vhlo_write_module(const shloc_module *m, vx_ctx *x, bw_op **root) {
  lg g = {x, m};
  bw_op *o = ARENA_NEW(&x->w->arena, bw_op);
  if (!o) return st_oom();
  x->op = m->top;
  ST_TRY(convert_module(&g, m->top, o));
  *root = o;
  return NULL;
}
