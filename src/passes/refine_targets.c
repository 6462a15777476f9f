/* Shape refinement, JAX's stablehlo.dynamic_* custom-call targets (shape-
 * polymorphic exports of top_k, approx_top_k, rng_bit_generator and
 * reduce_window): their results take the shapes the known shape operands
 * give, and the known operands become constants, so the calls run as their
 * static cases (src/targets/jax/dynamic_targets.c).  Operand layouts:
 *
 *   dynamic_top_k(x, k)                          -> values, indices: x's shape, last dim k
 *   dynamic_approx_top_k(xs..., inits..., k)     -> xs' shapes, reduction_dim (backend config) k
 *   dynamic_rng_bit_generator(state, shape)      -> state, bits of that shape
 *   dynamic_reduce_window(xs..., inits..., window_dimensions, window_strides,
 *                         base_dilations, window_dilations, padding) -> the spec's reduce_window shape */
#include "refine_impl.h"

#include <stdio.h>

#define RT_MAX_RANK 64

bool rf_is_dynamic_target(shl_str target) { return str_starts(target, "stablehlo.dynamic_"); }

/* A stablehlo.constant holding known integer values k, of type t. */
static shl_value *constant_of(rf_ctx *c, const shl_op *at, const shl_type *t, const rf_known *k, shl_block *nb) {
  size_t sz = dtype_bytes(t->dtype);
  unsigned char *data = arena_alloc(c->a, (size_t)k->n * sz + 1);
  shl_attr *v = attr_new(c->a, AT_DENSE);
  if (!data || !v) return NULL;
  for (int64_t i = 0; i < k->n; i++)
    for (size_t b = 0; b < sz; b++) data[(size_t)i * sz + b] = (unsigned char)((uint64_t)k->v[i] >> (8 * b));
  v->type = t;
  v->u.dense.storage = data;
  v->u.dense.nbytes = (size_t)k->n * sz;
  shl_named_attr a = {str_of("value"), v, false};
  shl_op *op = rf_new_op(c, at, OP_CONSTANT, 0, NULL, 1, &t, 1, &a);
  if (!op || !rf_set_known(c, &op->results[0], k)) return NULL;
  block_append(nb, op);
  return &op->results[0];
}

static shl_status known_operand(rf_ctx *c, shl_op *op, uint32_t i, const char *what, int64_t want, const rf_known **k) {
  if (i >= op->n_operands) return op_error(op, SHLOC_ERR_VERIFY, "has no %s operand", what);
  ST_TRY(rf_shape_operand(c, op, op->operands[i], i, what, k));
  if ((want >= 0 && (*k)->n != want) || (*k)->n > RT_MAX_RANK)
    return op_error(op, SHLOC_ERR_VERIFY, "%s (operand #%u) has %lld values", what, i, (long long)(*k)->n);
  return NULL;
}

static shl_status set(rf_ctx *c, shl_op *op, uint32_t i, int32_t rank, const int64_t *dims) {
  char what[32];
  if (i >= op->n_results) return op_error(op, SHLOC_ERR_VERIFY, "has too few results");
  snprintf(what, sizeof what, "result #%u", i);
  return rf_refined_type(c, op, what, op->results[i].type, rank, dims, &op->results[i].type);
}

static const shl_type *ranked(const shl_op *op, uint32_t i) {
  const shl_type *t = i < op->n_operands ? op->operands[i]->type : NULL;
  return t && t->kind == TY_TENSOR && t->rank >= 0 && t->rank <= RT_MAX_RANK ? t : NULL;
}

/* Result i: the shape of operand i (all of operand 0 when !per_input) with
 * dimension `dim` (negative: the last) set to k. */
static shl_status top_k_like(rf_ctx *c, shl_op *op, bool per_input, uint32_t k_index, int64_t dim) {
  uint32_t n = op->n_results;
  const rf_known *k;
  ST_TRY(known_operand(c, op, k_index, "k", 1, &k));
  for (uint32_t i = 0; i < n; i++) {
    const shl_type *x = ranked(op, per_input ? i : 0);
    int64_t d[RT_MAX_RANK];
    int64_t at = dim < 0 && x ? x->rank - 1 : dim;
    if (!x || at < 0 || at >= x->rank) return op_error(op, SHLOC_ERR_VERIFY, "has an operand of unsuitable rank");
    memcpy(d, x->dims, (size_t)x->rank * sizeof *d);
    d[at] = k->v[0];
    ST_TRY(set(c, op, i, x->rank, d));
  }
  return NULL;
}

static shl_status reduce_window(rf_ctx *c, shl_op *op) {
  uint32_t n = op->n_results;
  if (!n || op->n_operands != 2 * n + 5) return op_error(op, SHLOC_ERR_VERIFY, "expects 2 * results + 5 operands");
  const shl_type *x = ranked(op, 0);
  if (!x) return op_error(op, SHLOC_ERR_VERIFY, "needs a ranked operand");
  static const char *const names[5] = {"window_dimensions", "window_strides", "base_dilations", "window_dilations",
                                       "padding"};
  const rf_known *p[5];
  for (uint32_t j = 0; j < 5; j++) ST_TRY(known_operand(c, op, 2 * n + j, names[j], j < 4 ? x->rank : 2 * x->rank, &p[j]));
  int64_t d[RT_MAX_RANK];
  for (int32_t k = 0; k < x->rank; k++) {
    int64_t w = p[0]->v[k], s = p[1]->v[k], bd = p[2]->v[k], wd = p[3]->v[k];
    if (w < 1 || s < 1 || bd < 1 || wd < 1)
      return op_error(op, SHLOC_ERR_INVALID_ARG, "dimension %d: window %lld, stride %lld and dilations %lld, %lld must be positive",
                      (int)k, (long long)w, (long long)s, (long long)bd, (long long)wd);
    int64_t padded = (x->dims[k] ? (x->dims[k] - 1) * bd + 1 : 0) + p[4]->v[2 * k] + p[4]->v[2 * k + 1];
    int64_t win = (w - 1) * wd + 1;
    d[k] = padded < win ? 0 : (padded - win) / s + 1;
  }
  for (uint32_t i = 0; i < n; i++) ST_TRY(set(c, op, i, x->rank, d));
  return NULL;
}

shl_status rf_dynamic_target(rf_ctx *c, shl_op *op, shl_block *nb) {
  const shl_attr *ta = op_attr(op, "call_target_name");
  shl_str t = ta && ta->kind == AT_STRING ? ta->u.str : (shl_str){"", 0};
  if (str_eq_c(t, "stablehlo.dynamic_top_k")) {
    ST_TRY(top_k_like(c, op, false, 1, -1));
  } else if (str_eq_c(t, "stablehlo.dynamic_approx_top_k")) {
    const shl_attr *cfg = op_attr(op, "mhlo.backend_config");
    int64_t dim;
    if (!cfg || cfg->kind != AT_DICT || !attr_as_int(attr_dict_get(cfg->u.dict.items, cfg->u.dict.n, "reduction_dim"), &dim))
      return op_error(op, SHLOC_ERR_VERIFY, "needs mhlo.backend_config with an i64 reduction_dim");
    ST_TRY(top_k_like(c, op, true, 2 * op->n_results, dim));
  } else if (str_eq_c(t, "stablehlo.dynamic_rng_bit_generator")) {
    const rf_known *k;
    ST_TRY(known_operand(c, op, 1, "output_shape", -1, &k));
    if (op->n_results != 2 || op->results[0].type->kind != TY_TENSOR) return op_error(op, SHLOC_ERR_VERIFY, "expects (state, bits) results");
    op->results[0].type = op->operands[0]->type;
    ST_TRY(set(c, op, 1, (int32_t)k->n, k->v));
  } else if (str_eq_c(t, "stablehlo.dynamic_reduce_window")) {
    ST_TRY(reduce_window(c, op));
  }
  /* Known integer operands as constants: the static cases read them there. */
  for (uint32_t i = 0; i < op->n_operands; i++) {
    const rf_known *k = rf_known_of(c, op->operands[i]);
    const shl_op *def = op->operands[i]->def;
    if (!k || (def && op_is(def, OP_CONSTANT))) continue;
    shl_value *v = constant_of(c, op, op->operands[i]->type, k, nb);
    if (!v) return st_oom();
    op->operands[i] = v;
  }
  return NULL;
}
