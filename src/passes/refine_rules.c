/* Shape refinement, per-op rules: the result types of an op from its
 * refined operands.  Ops whose results follow their operands (elementwise,
 * the same shape as an operand, bitcast_convert, numpy-style chlo
 * broadcasts, tuples) and ops whose result shape is partly an input
 * (broadcast_in_dim, reshape) have rules here; everything else uses the
 * shape function of the op's verifier rule (verify_op_rule), which infers
 * result shapes from operand shapes and attributes as the spec defines. */
#include "refine_impl.h"

#include <stdio.h>

#include "verify/verify.h"

#define RF_MAX_RANK 64

const char *rf_dims_str(int32_t rank, const int64_t *dims, char *buf, size_t cap) {
  if (rank < 0) {
    snprintf(buf, cap, "[*]");
    return buf;
  }
  size_t n = (size_t)snprintf(buf, cap, "[");
  for (int32_t k = 0; k < rank && n < cap; k++) {
    if (dims[k] == SHL_DYN) n += (size_t)snprintf(buf + n, cap - n, k ? ", ?" : "?");
    else n += (size_t)snprintf(buf + n, cap - n, k ? ", %lld" : "%lld", (long long)dims[k]);
  }
  if (n < cap) snprintf(buf + n, cap - n, "]");
  return buf;
}

const shl_type *rf_type_like(rf_ctx *c, const shl_type *like, int32_t rank, const int64_t *dims) {
  shl_type *t = type_tensor(c->a, like->dtype, rank, dims);
  if (t) t->quant = like->quant;
  return t;
}

shl_status rf_refined_type(rf_ctx *c, const shl_op *op, const char *what, const shl_type *declared, int32_t rank,
                           const int64_t *dims, const shl_type **out) {
  if (declared->kind != TY_TENSOR) return op_error(RF_OP(c, op), SHLOC_ERR_VERIFY, "%s is not a tensor", what);
  if (declared->rank >= 0 && declared->rank != rank)
    return op_error(RF_OP(c, op), SHLOC_ERR_INVALID_ARG, "%s has rank %d after refinement, but the op declares rank %d", what,
                    (int)rank, (int)declared->rank);
  int64_t d[RF_MAX_RANK];
  if (rank > RF_MAX_RANK) return op_error(RF_OP(c, op), SHLOC_ERR_LIMIT, "%s has rank %d (at most %d refined)", what, (int)rank, RF_MAX_RANK);
  bool same = declared->rank == rank;
  for (int32_t k = 0; k < rank; k++) {
    int64_t want = declared->rank >= 0 ? declared->dims[k] : SHL_DYN;
    d[k] = dims[k] == SHL_DYN ? want : dims[k];
    if (d[k] == SHL_DYN) return op_error(RF_OP(c, op), SHLOC_ERR_UNSUPPORTED, "cannot refine dimension %d of %s", (int)k, what);
    if (d[k] < 0) return op_error(RF_OP(c, op), SHLOC_ERR_INVALID_ARG, "dimension %d of %s is negative (%lld)", (int)k, what, (long long)d[k]);
    if (want != SHL_DYN && want != d[k])
      return op_error(RF_OP(c, op), SHLOC_ERR_INVALID_ARG, "dimension %d of %s is %lld after refinement, but the op declares %lld",
                      (int)k, what, (long long)d[k], (long long)want);
    same = same && want == d[k];
  }
  if (same) {
    *out = declared;
    return NULL;
  }
  /* Sizes come from the inputs: the context's element limit applies as to parsed types. */
  uint64_t count = 1, limit = c->dst->ctx ? c->dst->ctx->limits.max_elements : UINT64_MAX;
  for (int32_t k = 0; k < rank; k++)
    if (__builtin_mul_overflow(count, (uint64_t)d[k], &count) || count > limit) {
      char s[256];
      return op_error(op, SHLOC_ERR_LIMIT, "%s would have shape %s, more than the limit of %llu elements", what,
                      rf_dims_str(rank, d, s, sizeof s), (unsigned long long)limit);
    }
  return (*out = rf_type_like(c, declared, rank, d)) ? NULL : st_oom();
}

static shl_status set_result(rf_ctx *c, shl_op *op, uint32_t i, int32_t rank, const int64_t *dims) {
  char what[32];
  snprintf(what, sizeof what, "result #%u", i);
  return rf_refined_type(c, op, what, op->results[i].type, rank, dims, &op->results[i].type);
}

static const shl_type *otype(const shl_op *op, uint32_t i) { return op->operands[i]->type; }

static bool ranked(const shl_type *t) { return t->kind == TY_TENSOR && t->rank >= 0; }

/* Elementwise ops: operands of one shape (select's predicate and clamp's
 * bounds may be rank 0); the results take it. */
static shl_status rule_elementwise(rf_ctx *c, shl_op *op) {
  int32_t ref = -1;
  for (uint32_t i = 0; i < op->n_operands; i++) {
    if (!ranked(otype(op, i))) continue;
    if (ref < 0 || otype(op, i)->rank > otype(op, (uint32_t)ref)->rank) ref = (int32_t)i;
  }
  if (ref < 0) return op_error(RF_OP(c, op), SHLOC_ERR_VERIFY, "has no ranked tensor operand");
  const shl_type *r = otype(op, (uint32_t)ref);
  bool scalar_ok = op_is(op, OP_SELECT) || op_is(op, OP_CLAMP);
  for (uint32_t i = 0; i < op->n_operands; i++) {
    const shl_type *t = otype(op, i);
    if (!ranked(t) || (scalar_ok && t->rank == 0)) continue;
    if (t->rank != r->rank)
      return op_error(RF_OP(c, op), SHLOC_ERR_INVALID_ARG, "operands #%d and #%u have ranks %d and %d after refinement", ref, i,
                      (int)r->rank, (int)t->rank);
    for (int32_t k = 0; k < t->rank; k++)
      if (t->dims[k] != r->dims[k])
        return op_error(RF_OP(c, op), SHLOC_ERR_INVALID_ARG, "operands #%d and #%u disagree in dimension %d: %lld vs %lld", ref, i,
                        (int)k, (long long)r->dims[k], (long long)t->dims[k]);
  }
  for (uint32_t i = 0; i < op->n_results; i++) ST_TRY(set_result(c, op, i, r->rank, r->dims));
  return NULL;
}

/* chlo.broadcast_*: numpy broadcasting, dimensions aligned at the end. */
static shl_status rule_numpy_broadcast(rf_ctx *c, shl_op *op) {
  int32_t rank = 0;
  for (uint32_t i = 0; i < op->n_operands; i++) {
    if (!ranked(otype(op, i))) return op_error(RF_OP(c, op), SHLOC_ERR_VERIFY, "operand #%u is not a ranked tensor", i);
    if (otype(op, i)->rank > rank) rank = otype(op, i)->rank;
  }
  if (rank > RF_MAX_RANK) return op_error(RF_OP(c, op), SHLOC_ERR_LIMIT, "rank %d is too large", (int)rank);
  int64_t d[RF_MAX_RANK];
  for (int32_t k = 0; k < rank; k++) d[k] = 1;
  for (uint32_t i = 0; i < op->n_operands; i++) {
    const shl_type *t = otype(op, i);
    for (int32_t k = 0; k < t->rank; k++) {
      int32_t o = rank - t->rank + k;
      int64_t x = t->dims[k];
      if (x == 1 || x == d[o]) continue;
      if (d[o] != 1)
        return op_error(RF_OP(c, op), SHLOC_ERR_INVALID_ARG, "cannot broadcast dimension %d: %lld vs %lld", (int)o,
                        (long long)d[o], (long long)x);
      d[o] = x;
    }
  }
  return set_result(c, op, 0, rank, d);
}

static shl_status rule_broadcast_in_dim(rf_ctx *c, shl_op *op) {
  const shl_type *a = otype(op, 0), *r = op->results[0].type;
  int64_t bd[RF_MAX_RANK], d[RF_MAX_RANK];
  size_t n;
  if (!ranked(r) || r->rank > RF_MAX_RANK || !ranked(a) ||
      !attr_as_ints(op_attr(op, "broadcast_dimensions"), bd, RF_MAX_RANK, &n) || n != (size_t)a->rank)
    return op_error(RF_OP(c, op), SHLOC_ERR_VERIFY, "has invalid broadcast_dimensions or types");
  for (int32_t k = 0; k < r->rank; k++) d[k] = r->dims[k];
  for (size_t k = 0; k < n; k++) {
    if (bd[k] < 0 || bd[k] >= r->rank) return op_error(RF_OP(c, op), SHLOC_ERR_VERIFY, "broadcast dimension out of range");
    int64_t od = a->dims[k];
    if (d[bd[k]] == SHL_DYN) d[bd[k]] = od;
    else if (od != 1 && od != d[bd[k]])
      return op_error(RF_OP(c, op), SHLOC_ERR_INVALID_ARG,
                      "operand dimension %zu (%lld) is neither 1 nor result dimension %lld (%lld)", k, (long long)od,
                      (long long)bd[k], (long long)d[bd[k]]);
  }
  return set_result(c, op, 0, r->rank, d);
}

static shl_status rule_reshape(rf_ctx *c, shl_op *op) {
  const shl_type *a = otype(op, 0), *r = op->results[0].type;
  if (!ranked(r) || r->rank > RF_MAX_RANK || !ranked(a)) return op_error(RF_OP(c, op), SHLOC_ERR_UNSUPPORTED, "needs a ranked result");
  int64_t total = type_num_elements(a), known = 1, d[RF_MAX_RANK];
  int32_t dyn = -1;
  for (int32_t k = 0; k < r->rank; k++) {
    d[k] = r->dims[k];
    if (d[k] == SHL_DYN) {
      if (dyn >= 0) return op_error(RF_OP(c, op), SHLOC_ERR_UNSUPPORTED, "has more than one '?' in its result to refine");
      dyn = k;
    } else if (d[k] < 0 || __builtin_mul_overflow(known, d[k], &known)) {
      known = -1; /* cannot hold any operand */
      break;
    }
  }
  bool fits = known >= 0;
  if (fits && dyn >= 0) {
    if (known > 0 && total % known == 0) d[dyn] = total / known;
    else if (known == 0 && total == 0) d[dyn] = 0;
    else fits = false;
  } else if (fits) {
    fits = known == total;
  }
  if (!fits) {
    char s[256];
    return op_error(RF_OP(c, op), SHLOC_ERR_INVALID_ARG, "operand has %lld elements after refinement, result shape %s cannot hold them",
                    (long long)total, rf_dims_str(r->rank, r->dims, s, sizeof s));
  }
  return set_result(c, op, 0, r->rank, d);
}

static shl_status rule_bitcast(rf_ctx *c, shl_op *op) {
  const shl_type *a = otype(op, 0), *r = op->results[0].type;
  unsigned wa = dtype_bits(type_storage_dtype(a)), wr = dtype_bits(type_storage_dtype(r));
  if (!ranked(a) || a->rank >= RF_MAX_RANK || !wa || !wr) return op_error(RF_OP(c, op), SHLOC_ERR_VERIFY, "has invalid types");
  int64_t d[RF_MAX_RANK];
  int32_t rank = a->rank;
  for (int32_t k = 0; k < rank; k++) d[k] = a->dims[k];
  if (wr < wa) d[rank++] = wa / wr;
  else if (wr > wa && rank > 0) rank--;
  return set_result(c, op, 0, rank, d);
}

/* Results shaped like operands (result i like operand first + i). */
static shl_status rule_like_operands(rf_ctx *c, shl_op *op, uint32_t first) {
  for (uint32_t i = 0; i < op->n_results; i++) {
    const shl_type *t = otype(op, first + i < op->n_operands ? first + i : first);
    if (!ranked(t)) return op_error(RF_OP(c, op), SHLOC_ERR_VERIFY, "operand #%u is not a ranked tensor", first + i);
    ST_TRY(set_result(c, op, i, t->rank, t->dims));
  }
  return NULL;
}

static shl_status rule_batch_norm(rf_ctx *c, shl_op *op) {
  const shl_type *a = otype(op, 0);
  int64_t fi;
  if (!ranked(a) || !attr_as_int(op_attr(op, "feature_index"), &fi) || fi < 0 || fi >= a->rank)
    return op_error(RF_OP(c, op), SHLOC_ERR_VERIFY, "has an invalid feature_index");
  ST_TRY(set_result(c, op, 0, a->rank, a->dims));
  for (uint32_t i = 1; i < op->n_results; i++) ST_TRY(set_result(c, op, i, 1, &a->dims[fi]));
  return NULL;
}

static shl_status rule_tuple(rf_ctx *c, shl_op *op) {
  shl_type *t = ARENA_NEW(c->a, shl_type);
  const shl_type **in = ARENA_ARRAY(c->a, const shl_type *, op->n_operands + 1);
  if (!t || !in) return st_oom();
  for (uint32_t i = 0; i < op->n_operands; i++) in[i] = otype(op, i);
  t->kind = TY_TUPLE;
  t->n_in = op->n_operands;
  t->in = in;
  op->results[0].type = t;
  return NULL;
}

static shl_status rule_get_tuple_element(rf_ctx *c, shl_op *op) {
  const shl_type *t = otype(op, 0);
  int64_t i;
  if (t->kind != TY_TUPLE || !attr_as_int(op_attr(op, "index"), &i) || i < 0 || (uint64_t)i >= t->n_in)
    return op_error(RF_OP(c, op), SHLOC_ERR_VERIFY, "has an invalid index");
  op->results[0].type = t->in[i];
  return NULL;
}

static shl_status rule_rng(rf_ctx *c, shl_op *op) {
  const rf_known *k;
  if (op->n_operands < 3) return op_error(RF_OP(c, op), SHLOC_ERR_VERIFY, "has no shape operand");
  ST_TRY(rf_shape_operand(c, op, op->operands[2], 2, "shape", &k));
  if (k->n > RF_MAX_RANK) return op_error(RF_OP(c, op), SHLOC_ERR_LIMIT, "shape has too many entries");
  return set_result(c, op, 0, (int32_t)k->n, k->v);
}

/* ---- shapes inferred by the verifier rule ---- */

typedef struct {
  shl_op *op;
  const shl_type **probe;
  int32_t *rank;
  int64_t (*dims)[RF_MAX_RANK];
} sink_state;

static void sink(void *user, const shl_type *t, int64_t rank, const int64_t *dims) {
  sink_state *s = user;
  for (uint32_t i = 0; i < s->op->n_results; i++) {
    if (t != s->probe[i] || rank > RF_MAX_RANK) continue;
    s->rank[i] = (int32_t)rank;
    for (int64_t k = 0; k < rank; k++) s->dims[i][k] = dims[k];
  }
}

static shl_status rule_verifier(rf_ctx *c, shl_op *op) {
  uint32_t n = op->n_results;
  sink_state s = {.op = op};
  s.probe = ARENA_ARRAY(c->a, const shl_type *, n + 1);
  s.rank = ARENA_ARRAY(c->a, int32_t, n + 1);
  s.dims = arena_array(c->a, n + 1, sizeof *s.dims);
  const shl_type **declared = ARENA_ARRAY(c->a, const shl_type *, n + 1);
  if (!s.probe || !s.rank || !s.dims || !declared) return st_oom();
  int64_t dyn[RF_MAX_RANK];
  for (int k = 0; k < RF_MAX_RANK; k++) dyn[k] = SHL_DYN;
  /* Results all '?' (distinct types, so the sink can tell them apart): the
   * rule checks operands against each other and reports what it infers. */
  for (uint32_t i = 0; i < n; i++) {
    const shl_type *t = declared[i] = op->results[i].type;
    s.rank[i] = -1;
    if (t->kind == TY_TENSOR && t->rank <= RF_MAX_RANK) {
      if (!(s.probe[i] = rf_type_like(c, t, t->rank, dyn))) return st_oom();
      op->results[i].type = s.probe[i];
    }
  }
  shl_status st = verify_op_rule(c->dst, op, sink, &s);
  for (uint32_t i = 0; i < n; i++) op->results[i].type = declared[i];
  if (st && c->blame) return st_annotate(st, "refining '%s'", op_name_cstr(c->blame));
  ST_TRY(st);
  for (uint32_t i = 0; i < n; i++) {
    const shl_type *t = declared[i];
    if (s.rank[i] >= 0) ST_TRY(set_result(c, op, i, s.rank[i], s.dims[i]));
    else if (t->kind == TY_TENSOR && !type_is_static(t))
      return op_error(RF_OP(c, op), SHLOC_ERR_UNSUPPORTED, "cannot refine result #%u: shape refinement has no rule for this op", i);
  }
  return NULL;
}

shl_status rf_infer(rf_ctx *c, shl_op *op) {
  if (!op->n_results) return NULL;
  switch (op_id(op)) {
    case OP_BROADCAST_IN_DIM: return rule_broadcast_in_dim(c, op);
    case OP_RESHAPE: return rule_reshape(c, op);
    case OP_BITCAST_CONVERT: return rule_bitcast(c, op);
    case OP_REVERSE:
    case OP_DYNAMIC_UPDATE_SLICE:
    case OP_CHOLESKY:
    case OP_SELECT_AND_SCATTER:
    case OP_CHLO_CONSTANT_LIKE:
    case OP_SORT:
    case OP_SCATTER:
    case OP_MAP: return rule_like_operands(c, op, 0);
    case OP_OPTIMIZATION_BARRIER:
      for (uint32_t i = 0; i < op->n_results && i < op->n_operands; i++) op->results[i].type = otype(op, i);
      return NULL;
    case OP_TRIANGULAR_SOLVE: return rule_like_operands(c, op, 1);
    case OP_BATCH_NORM_INFERENCE:
    case OP_BATCH_NORM_TRAINING:
    case OP_BATCH_NORM_GRAD: return rule_batch_norm(c, op);
    case OP_TUPLE: return rule_tuple(c, op);
    case OP_GET_TUPLE_ELEMENT: return rule_get_tuple_element(c, op);
    case OP_RNG: return rule_rng(c, op);
    case OP_CONSTANT:
    case OP_IOTA:
    case OP_GET_DIMENSION_SIZE: /* results fixed by attributes: declared */
      if (type_is_static(op->results[0].type)) return NULL;
      return op_error(RF_OP(c, op), SHLOC_ERR_UNSUPPORTED, "has a result with a dynamic shape");
    default: break;
  }
  if (op->def->traits & T_EW) return rule_elementwise(c, op);
  if (op_id(op) >= OP_CHLO_BROADCAST_ADD && op_id(op) <= OP_CHLO_BROADCAST_ZETA) return rule_numpy_broadcast(c, op);
  return rule_verifier(c, op);
}
