/* Rules of constants, random numbers, the check dialect, CHLO's broadcasting
 * and top_k ops, and light checks for the dynamic-shape ops.  verify_any and
 * verify_none are the rules of ops whose table row asks for no (or only a
 * few generic) checks. */
#include "rules.h"

/* ------------------------------------------------------------------ constants */

/* The type of dense attribute `a` fits tensor type `t` (same shape; element
 * equal, or the storage type of a quantized `t`). */
static bool dense_fits(const shl_attr *a, const shl_type *t) {
  const shl_type *at = a->type;
  if (!vfy_is_tensor(at) || !vfy_is_tensor(t) || at->rank != t->rank) return false;
  for (int32_t i = 0; i < t->rank; i++)
    if (at->dims[i] != t->dims[i]) return false;
  return at->dtype == t->dtype || (t->dtype == DT_QUANT && t->quant && at->dtype == t->quant->storage);
}

/* `value` attribute of a constant-like op against type `t`. */
static shl_status value_attr(const shl_op *op, const shl_type *t, const char *what) {
  const shl_attr *v = op_attr(op, "value");
  if (!v) return VFY_ERR(op, "requires attribute 'value'");
  /* dense_resource<...> and sparse<...> are elements attributes kept as text;
   * any other opaque attribute (#dialect.x<...>) is not. */
  bool elements = v->kind == AT_DENSE ||
                  (v->kind == AT_OPAQUE && (str_starts(v->u.str, "dense_resource<") || str_starts(v->u.str, "sparse<")));
  if (!elements || !v->type) return VFY_ERR(op, "attribute 'value' must be an elements attribute (dense<...>)");
  if (!dense_fits(v, t))
    return VFY_ERR(op, "value type %s does not match %s type %s", vfy_tstr(v->type), what, vfy_tstr(t));
  return NULL;
}

shl_status verify_constant(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 0, 1));
  return value_attr(op, vfy_rtype(op, 0), "result");
}

shl_status verify_constant_like(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 1, 1));
  const shl_attr *v = op_attr(op, "value");
  if (!v) return VFY_ERR(op, "requires attribute 'value'");
  /* The scalar value's type is the result's element type (upstream's rule). */
  shl_dtype vt = v->kind == AT_BOOL ? DT_I1 : v->kind == AT_INT ? (v->type ? v->type->dtype : DT_I64)
               : v->kind == AT_FLOAT ? v->type->dtype : DT_INVALID;
  if (vt != DT_INVALID && vfy_rtype(op, 0)->dtype != vt)
    return VFY_ERR(op, "value's type doesn't match element return type");
  return vfy_expect_same_shape(op, "result", vfy_rtype(op, 0), "operand #0", vfy_otype(op, 0));
}

/* ------------------------------------------------------------------ random numbers */

shl_status verify_rng(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 3, 1));
  static const char *const dists[] = {"UNIFORM", "NORMAL", NULL};
  int dist;
  ST_TRY(vfy_enum_attr(op, "rng_distribution", false, dists, &dist));
  const shl_type *a = vfy_otype(op, 0), *b = vfy_otype(op, 1), *shape = vfy_otype(op, 2), *r = vfy_rtype(op, 0);
  ST_TRY(vfy_rank(op, "operand #0 (a)", a, 0));
  ST_TRY(vfy_rank(op, "operand #1 (b)", b, 0));
  ST_TRY(vfy_rank(op, "operand #2 (shape)", shape, 1));
  ST_TRY(vfy_elem_in(op, "operand #2 (shape)", shape, EK_INT, "integer"));
  if (dist == 1) ST_TRY(vfy_elem_in(op, "operand #0 (mu)", a, EK_FLOAT, "floating-point"));
  else ST_TRY(vfy_elem_in(op, "operand #0 (a)", a, EK_PRED | EK_INT | EK_FLOAT, "boolean, integer or floating-point"));
  if (!vfy_elem_compat(a, b) || !vfy_elem_compat(a, r))
    return VFY_ERR(op, "operands a (%s), b (%s) and the result (%s) must have the same element type", vfy_tstr(a),
                   vfy_tstr(b), vfy_tstr(r));
  if (r->rank < 0) return NULL;
  if (shape->rank == 1 && shape->dims[0] >= 0 && shape->dims[0] != r->rank)
    return VFY_ERR(op, "shape operand %s does not match the result rank of %s", vfy_tstr(shape), vfy_tstr(r));
  /* A constant shape operand fixes the result dimensions. */
  const shl_op *def = op->operands[2]->def;
  const shl_attr *v = def && op_is(def, OP_CONSTANT) ? op_attr(def, "value") : NULL;
  if (!v || v->kind != AT_DENSE) return NULL;
  vfy_ints dims;
  shl_status bad = vfy_ints_of(op, v, "shape", false, &dims);
  if (bad || dims.n != (size_t)r->rank) {
    /* Not a readable constant: nothing more to infer (a malformed constant is
     * reported by its own rule). */
    shloc_status_free(bad);
    return NULL;
  }
  vfy_shape sh;
  if (!vfy_shape_init(&sh, r->rank)) return st_oom();
  for (int32_t i = 0; i < r->rank; i++) sh.d[i] = vfy_int_at(&dims, (size_t)i);
  return vfy_shape_check(op, "result", r, &sh);
}

shl_status verify_rng_bit_generator(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 1, 2));
  static const char *const algs[] = {"DEFAULT", "THREE_FRY", "PHILOX", NULL};
  int alg;
  ST_TRY(vfy_enum_attr(op, "rng_algorithm", false, algs, &alg));
  const shl_type *s = vfy_otype(op, 0), *os = vfy_rtype(op, 0), *out = vfy_rtype(op, 1);
  /* Upstream's rule: an int or float state of any rank whose shape the
   * output state matches (so a rank-0 state verifies; the kernel rejects
   * what XLA:CPU cannot run).  A 1-D state keeps the spec's sizes (C2). */
  ST_TRY(vfy_elem_in(op, "initial state", s, EK_INT | EK_FLOAT, "integer or floating-point"));
  ST_TRY(vfy_expect_compat(op, "initial state", s, "output state", os));
  ST_TRY(vfy_elem_in(op, "output", out, EK_INT | EK_FLOAT, "integer or floating-point"));
  int64_t n = s->rank == 1 ? s->dims[0] : SHL_DYN;
  if (n >= 0 && alg == 1 && n != 2) return VFY_ERR(op, "THREE_FRY requires an initial state of 2 elements, got %s", vfy_tstr(s));
  if (n >= 0 && alg == 2 && n != 2 && n != 3)
    return VFY_ERR(op, "PHILOX requires an initial state of 2 or 3 elements, got %s", vfy_tstr(s));
  return NULL;
}

/* ------------------------------------------------------------------ check dialect */

shl_status verify_check(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  switch (op_id(op)) {
    case OP_CHECK_EXPECT_EQ_CONST:
    case OP_CHECK_EXPECT_ALMOST_EQ_CONST:
      ST_TRY(vfy_all_tensors(op, 1, 0));
      return value_attr(op, vfy_otype(op, 0), "operand");
    case OP_CHECK_EXPECT_SERIALIZED_EQ: {
      ST_TRY(vfy_all_tensors(op, 1, 0));
      const shl_attr *id = op_attr(op, "probe_id");
      if (!id || id->kind != AT_STRING) return VFY_ERR(op, "requires a string attribute 'probe_id'");
      int64_t iter;
      return vfy_int_attr(op, "iter", true, 0, &iter);
    }
    default: {
      ST_TRY(vfy_all_tensors(op, 2, 0));
      ST_TRY(vfy_expect_compat(op, "operand #0", vfy_otype(op, 0), "operand #1", vfy_otype(op, 1)));
      if (op_is(op, OP_CHECK_EXPECT_CLOSE)) {
        int64_t ulp;
        ST_TRY(vfy_int_attr(op, "max_ulp_difference", true, 1, &ulp));
        ST_TRY(vfy_int_attr(op, "min_ulp_difference", true, 0, &ulp));
      }
      return NULL;
    }
  }
}

/* ------------------------------------------------------------------ CHLO */

/* Implicitly broadcasting ops: operands broadcast (numpy-style, or along
 * broadcast_dimensions when given) to the result shape. */
shl_status verify_chlo_broadcast(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  uint32_t n = op_is(op, OP_CHLO_BROADCAST_SELECT) ? 3 : 2;
  ST_TRY(vfy_all_tensors(op, n, 1));
  const shl_type *r = vfy_rtype(op, 0);
  const shl_type *x = vfy_otype(op, n - 2), *y = vfy_otype(op, n - 1);
  if (!vfy_elem_compat(x, y))
    return VFY_ERR(op, "operands %s and %s must have the same element type", vfy_tstr(x), vfy_tstr(y));
  if (n == 3 && vfy_otype(op, 0)->dtype != DT_I1)
    return VFY_ERR(op, "predicate must be a tensor of i1 values, got %s", vfy_tstr(vfy_otype(op, 0)));
  if (op_is(op, OP_CHLO_BROADCAST_COMPARE)) {
    if (r->dtype != DT_I1) return VFY_ERR(op, "result must be a tensor of i1 values, got %s", vfy_tstr(r));
  } else if (op_is(op, OP_CHLO_BROADCAST_COMPLEX)) {
    if (vfy_elem_kind(r) != EK_COMPLEX || vfy_real_dtype(r->dtype) != x->dtype)
      return VFY_ERR(op, "result type %s must be complex with the operands' element type", vfy_tstr(r));
  } else if (!vfy_elem_compat(r, y)) {
    return VFY_ERR(op, "result type %s must have the element type of the operands %s", vfy_tstr(r), vfy_tstr(y));
  }
  vfy_ints bd;
  ST_TRY(vfy_ints_attr(op, "broadcast_dimensions", true, &bd));
  if (bd.a || r->rank < 0) return NULL;
  int32_t max_rank = 0;
  for (uint32_t i = 0; i < n; i++) {
    const shl_type *t = vfy_otype(op, i);
    if (t->rank < 0) return NULL;
    if (t->rank > max_rank) max_rank = t->rank;
  }
  if (r->rank != max_rank)
    return VFY_ERR(op, "result rank of %s must be the largest operand rank (%d)", vfy_tstr(r), (int)max_rank);
  for (uint32_t i = 0; i < n; i++) {
    const shl_type *t = vfy_otype(op, i);
    for (int32_t d = 0; d < t->rank; d++) {
      int64_t od = t->dims[d], rd = r->dims[r->rank - t->rank + d];
      if (od >= 0 && od != 1 && rd >= 0 && od != rd)
        return VFY_ERR(op, "operand #%u type %s does not broadcast to result type %s", i, vfy_tstr(t), vfy_tstr(r));
    }
  }
  return NULL;
}

shl_status verify_top_k(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  ST_TRY(vfy_all_tensors(op, 1, 2));
  int64_t k;
  ST_TRY(vfy_int_attr(op, "k", false, 0, &k));
  if (k < 0) return VFY_ERR(op, "k must be non-negative, got %lld", (long long)k);
  bool stable;
  ST_TRY(vfy_bool_attr(op, "is_stable", true, &stable));
  const shl_type *a = vfy_otype(op, 0), *vals = vfy_rtype(op, 0), *idx = vfy_rtype(op, 1);
  if (!vfy_elem_compat(a, vals))
    return VFY_ERR(op, "values type %s must have the element type of operand type %s", vfy_tstr(vals), vfy_tstr(a));
  if (idx->dtype != DT_I32) return VFY_ERR(op, "indices must be a tensor of i32 values, got %s", vfy_tstr(idx));
  if (a->rank < 0) return NULL;
  if (a->rank < 1) return VFY_ERR(op, "operand must have rank >= 1, got %s", vfy_tstr(a));
  int64_t last = a->dims[a->rank - 1];
  if (last >= 0 && last < k) return VFY_ERR(op, "operand's last dimension must be at least %lld, got %s", (long long)k, vfy_tstr(a));
  for (int j = 0; j < 2; j++) {
    vfy_shape sh;
    if (!vfy_shape_init(&sh, a->rank)) return st_oom();
    for (int32_t d = 0; d < a->rank; d++) sh.d[d] = a->dims[d];
    sh.d[a->rank - 1] = k;
    ST_TRY(vfy_shape_check(op, j ? "indices" : "values", vfy_rtype(op, (uint32_t)j), &sh));
  }
  return NULL;
}

/* ------------------------------------------------------------------ dynamic shapes */

/* A 1-D integer shape-like operand whose static size must be `n` (when n >= 0). */
static shl_status shape_operand(const shl_op *op, uint32_t i, int64_t n) {
  const shl_type *t = vfy_otype(op, i);
  const char *what = vfy_fmt("operand #%u", i);
  ST_TRY(vfy_rank(op, what, t, 1));
  ST_TRY(vfy_elem_in(op, what, t, EK_INT, "integer"));
  if (n >= 0 && t->rank == 1 && t->dims[0] >= 0 && t->dims[0] != n)
    return VFY_ERR(op, "%s type %s must have %lld elements", what, vfy_tstr(t), (long long)n);
  return NULL;
}

static shl_status dyn_conv(const shl_op *op) {
  ST_TRY(vfy_all_tensors(op, 3, 1));
  const shl_attr *dn;
  ST_TRY(vfy_struct_attr(op, "dimension_numbers", &dn));
  const shl_type *l = vfy_otype(op, 0), *k = vfy_otype(op, 1);
  if (l->rank >= 0 && k->rank >= 0 && l->rank != k->rank)
    return VFY_ERR(op, "expects convolution arguments to have the same rank, got %s and %s", vfy_tstr(l), vfy_tstr(k));
  return NULL;
}

shl_status verify_dynamic_shape(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  if (op_is(op, OP_DYNAMIC_CONV)) return dyn_conv(op);
  if (op_is(op, OP_DYNAMIC_GATHER)) {
    ST_TRY(vfy_all_tensors(op, 3, 1));
    ST_TRY(shape_operand(op, 2, -1));
    return vfy_gather_like(op, NULL);
  }
  uint32_t n_in = op_is(op, OP_DYNAMIC_IOTA) ? 1 : op_is(op, OP_DYNAMIC_PAD) ? 5 : op_is(op, OP_REAL_DYNAMIC_SLICE) ? 4 : 2;
  ST_TRY(vfy_all_tensors(op, n_in, 1));
  const shl_type *a = vfy_otype(op, 0), *r = vfy_rtype(op, 0);
  int64_t rr = r->rank;
  switch (op_id(op)) {
    case OP_DYNAMIC_IOTA: {
      ST_TRY(shape_operand(op, 0, rr));
      int64_t d;
      ST_TRY(vfy_int_attr(op, "iota_dimension", false, 0, &d));
      if (rr >= 0 && (d < 0 || d >= rr))
        return VFY_ERR(op, "iota_dimension %lld is out of range [0, %lld)", (long long)d, (long long)rr);
      return NULL;
    }
    case OP_DYNAMIC_RESHAPE:
      ST_TRY(shape_operand(op, 1, rr));
      break;
    case OP_DYNAMIC_BROADCAST_IN_DIM: {
      ST_TRY(shape_operand(op, 1, rr));
      vfy_ints dims;
      ST_TRY(vfy_ints_attr(op, "broadcast_dimensions", false, &dims));
      if (a->rank >= 0 && dims.n != (size_t)a->rank)
        return VFY_ERR(op, "broadcast_dimensions size (%zu) does not match operand rank (%d)", dims.n, (int)a->rank);
      if (a->rank >= 0 && rr >= 0) {
        ST_TRY(vfy_dims(op, &dims, rr, false));
        for (int32_t i = 0; i < a->rank; i++) {
          int64_t od = a->dims[i], rd = r->dims[vfy_int_at(&dims, (size_t)i)];
          if (od >= 0 && od != 1 && rd >= 0 && od != rd)
            return VFY_ERR(op, "size of operand dimension %d (%lld) is not compatible with the result %s", (int)i,
                           (long long)od, vfy_tstr(r));
        }
      }
      break;
    }
    case OP_DYNAMIC_PAD:
    case OP_REAL_DYNAMIC_SLICE:
      if (op_is(op, OP_DYNAMIC_PAD)) ST_TRY(vfy_rank(op, "operand #1 (padding value)", vfy_otype(op, 1), 0));
      for (uint32_t i = op_is(op, OP_DYNAMIC_PAD) ? 2 : 1; i < n_in; i++) ST_TRY(shape_operand(op, i, a->rank));
      if (a->rank >= 0 && rr >= 0 && a->rank != rr)
        return VFY_ERR(op, "operand rank (%d) must match the result rank (%lld)", (int)a->rank, (long long)rr);
      break;
    default:
      break;
  }
  if (!vfy_elem_compat(a, r))
    return VFY_ERR(op, "result type %s must have the element type of operand type %s", vfy_tstr(r), vfy_tstr(a));
  return NULL;
}

/* ------------------------------------------------------------------ generic */

/* Ops without a spec'd rule in shloc (distribution, I/O, quantization,
 * einsum, interpreter helpers): only what every StableHLO op implies. */
shl_status verify_any(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  switch (op_id(op)) {
    case OP_UNIFORM_QUANTIZE:
    case OP_UNIFORM_DEQUANTIZE:
      ST_TRY(vfy_all_tensors(op, 1, 1));
      return vfy_expect_same_shape(op, "result", vfy_rtype(op, 0), "operand #0", vfy_otype(op, 0));
    case OP_REPLICA_ID:
    case OP_PARTITION_ID: {
      ST_TRY(vfy_all_tensors(op, 0, 1));
      const shl_type *r = vfy_rtype(op, 0);
      if (r->rank > 0 || r->dtype != DT_UI32) return VFY_ERR(op, "result must be tensor<ui32>, got %s", vfy_tstr(r));
      return NULL;
    }
    default:
      return NULL;
  }
}

/* Ops outside the table (other dialects) are kept verbatim and not checked. */
shl_status verify_none(const verify_ctx *vc, const shl_op *op) {
  (void)vc;
  (void)op;
  return NULL;
}
