/* Shape refinement, folding: the integer ops that compute dimension sizes
 * are evaluated on values known while refining (constants, dimension sizes,
 * JAX's dimension arguments), so that dynamic ops reading their results can
 * become static.  Only small integer and i1 tensors are folded; the folded
 * ops stay in the program (they still run), so folding only ever decides
 * shapes.  Arithmetic wraps to the element type's width as the spec's
 * integer ops do; a division by zero leaves the value unknown. */
#include "refine_impl.h"

const rf_known *rf_known_of(rf_ctx *c, const shl_value *v) { return ptrmap_get(&c->known, v); }

bool rf_set_known(rf_ctx *c, const shl_value *v, const rf_known *k) { return ptrmap_put(&c->known, v, (void *)k); }

/* v as the element type holds it: sign- or zero-extended from its width. */
static int64_t norm(shl_dtype dt, int64_t v) {
  unsigned bits = dtype_bits(dt);
  if (dtype_class(dt) == DTC_BOOL) return v != 0;
  if (bits >= 64) return v;
  uint64_t mask = (1ull << bits) - 1, u = (uint64_t)v & mask;
  if (dtype_is_signed(dt) && (u >> (bits - 1))) u |= ~mask;
  return (int64_t)u;
}

static rf_known *known_new(rf_ctx *c, int64_t n, uint64_t deps) {
  rf_known *k = ARENA_NEW(c->a, rf_known);
  if (!k) return NULL;
  k->n = n;
  k->deps = deps;
  k->v = ARENA_ARRAY(c->a, int64_t, n ? (size_t)n : 1);
  return k->v ? k : NULL;
}

rf_known *rf_known_from_bytes(rf_ctx *c, shl_dtype dt, int64_t n, const void *data, uint64_t deps) {
  rf_known *k = known_new(c, n, deps);
  if (!k) return NULL;
  size_t sz = dtype_bytes(dt);
  for (int64_t i = 0; i < n; i++) {
    const unsigned char *p = (const unsigned char *)data + (size_t)i * sz;
    uint64_t u = 0;
    for (size_t b = 0; b < sz; b++) u |= (uint64_t)p[b] << (8 * b); /* little-endian storage */
    k->v[i] = norm(dt, (int64_t)u);
  }
  return k;
}

shl_status rf_shape_operand(rf_ctx *c, const shl_op *op, const shl_value *v, uint32_t i, const char *what,
                            const rf_known **out) {
  const rf_known *k = rf_known_of(c, v);
  if (!k)
    return op_error(op, SHLOC_ERR_UNSUPPORTED,
                    "%s (operand #%u) is not known after shape refinement: it must be computed from constants, "
                    "argument shapes and dimension arguments",
                    what, i);
  c->used |= k->deps;
  *out = k;
  return NULL;
}

/* Folded result of a static integer type with at most RF_MAX_FOLD elements. */
static bool foldable_type(const shl_type *t, int64_t *n) {
  if (t->kind != TY_TENSOR || !type_is_static(t) || !dtype_is_int(t->dtype) || t->quant) return false;
  *n = type_num_elements(t);
  return *n >= 0 && *n <= RF_MAX_FOLD;
}

static int64_t binary(shl_opid id, shl_dtype dt, int64_t a, int64_t b, bool *ok) {
  bool u = dtype_class(dt) == DTC_UINT;
  switch (id) {
    case OP_ADD: return (int64_t)((uint64_t)a + (uint64_t)b);
    case OP_SUBTRACT: return (int64_t)((uint64_t)a - (uint64_t)b);
    case OP_MULTIPLY: return (int64_t)((uint64_t)a * (uint64_t)b);
    case OP_DIVIDE:
    case OP_REMAINDER:
      if (b == 0 || (!u && a == INT64_MIN && b == -1)) {
        *ok = false;
        return 0;
      }
      if (u) return id == OP_DIVIDE ? (int64_t)((uint64_t)a / (uint64_t)b) : (int64_t)((uint64_t)a % (uint64_t)b);
      return id == OP_DIVIDE ? a / b : a % b;
    case OP_MAXIMUM: return u ? ((uint64_t)a > (uint64_t)b ? a : b) : (a > b ? a : b);
    case OP_MINIMUM: return u ? ((uint64_t)a < (uint64_t)b ? a : b) : (a < b ? a : b);
    case OP_AND: return a & b;
    case OP_OR: return a | b;
    case OP_XOR: return a ^ b;
    default: *ok = false; return 0;
  }
}

static int64_t unary(shl_opid id, shl_dtype dt, int64_t a, bool *ok) {
  switch (id) {
    case OP_NEGATE: return (int64_t)(0 - (uint64_t)a);
    case OP_ABS: return a < 0 ? (int64_t)(0 - (uint64_t)a) : a;
    case OP_SIGN: return dtype_class(dt) == DTC_UINT ? a != 0 : (a > 0) - (a < 0);
    case OP_NOT: return dtype_class(dt) == DTC_BOOL ? !a : ~a;
    default: *ok = false; return 0;
  }
}

static int comparison(const shl_op *op) {
  static const char *const dirs[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
  const shl_attr *a = op_attr(op, "comparison_direction");
  if (!a || a->kind != AT_ENUM) return -1;
  for (int k = 0; k < 6; k++)
    if (str_eq_c(a->u.en.value, dirs[k])) return k;
  return -1;
}

static bool compare(int dir, bool u, int64_t a, int64_t b) {
  int c = u ? ((uint64_t)a > (uint64_t)b) - ((uint64_t)a < (uint64_t)b) : (a > b) - (a < b);
  switch (dir) {
    case 0: return c == 0;
    case 1: return c != 0;
    case 2: return c < 0;
    case 3: return c <= 0;
    case 4: return c > 0;
    default: return c >= 0;
  }
}

/* Row-major strides of a static shape. */
static void strides_of(const shl_type *t, int64_t *s) {
  int64_t acc = 1;
  for (int32_t k = t->rank - 1; k >= 0; k--) {
    s[k] = acc;
    acc *= t->dims[k];
  }
}

/* Element i of an operand (a rank-0 operand broadcasts, as select's and clamp's may). */
static int64_t at(const rf_known *k, int64_t i) { return k->n == 1 ? k->v[0] : k->v[i]; }

/* Index-mapping ops: broadcast_in_dim, slice, transpose, concatenate. */
static bool fold_layout(const shl_op *op, const rf_known *const *in, rf_known *r) {
  const shl_type *rt = op->results[0].type, *at0 = op->operands[0]->type;
  if (rt->rank > 16 || at0->kind != TY_TENSOR || at0->rank < 0 || at0->rank > 16) return false;
  int64_t rs[16], as[16], idx[16] = {0}, p[16];
  size_t np = 0;
  strides_of(rt, rs);
  strides_of(at0, as);
  if (op_is(op, OP_CONCATENATE)) {
    int64_t dim;
    if (!attr_as_int(op_attr(op, "dimension"), &dim) || dim < 0 || dim >= rt->rank) return false;
    int64_t o = 0;
    for (uint32_t j = 0; j < op->n_operands; j++) {
      const shl_type *t = op->operands[j]->type;
      int64_t ts[16];
      if (t->rank != rt->rank) return false;
      strides_of(t, ts);
      for (int64_t e = 0; e < in[j]->n; e++) {
        int64_t rem = e, off = 0;
        for (int32_t k = 0; k < t->rank; k++) {
          int64_t q = rem / ts[k];
          rem %= ts[k];
          off += (k == dim ? q + o : q) * rs[k];
        }
        r->v[off] = in[j]->v[e];
      }
      o += t->dims[dim];
    }
    return true;
  }
  const char *name = op_is(op, OP_BROADCAST_IN_DIM) ? "broadcast_dimensions"
                     : op_is(op, OP_TRANSPOSE)      ? "permutation"
                                                    : "start_indices";
  if (!attr_as_ints(op_attr(op, name), p, 16, &np)) return false;
  int64_t st[16];
  size_t ns = 0;
  if (op_is(op, OP_SLICE) && (!attr_as_ints(op_attr(op, "strides"), st, 16, &ns) || ns != np)) return false;
  if ((op_is(op, OP_SLICE) || op_is(op, OP_TRANSPOSE)) && np != (size_t)rt->rank) return false;
  if (op_is(op, OP_BROADCAST_IN_DIM) && np != (size_t)at0->rank) return false;
  for (int64_t e = 0; e < r->n; e++) {
    int64_t rem = e, src = 0;
    for (int32_t k = 0; k < rt->rank; k++) {
      idx[k] = rem / rs[k];
      rem %= rs[k];
    }
    for (size_t k = 0; k < np; k++) {
      if (op_is(op, OP_BROADCAST_IN_DIM)) {
        if (p[k] < 0 || p[k] >= rt->rank) return false;
        src += (at0->dims[k] == 1 ? 0 : idx[p[k]]) * as[k];
      } else if (op_is(op, OP_TRANSPOSE)) {
        if (p[k] < 0 || p[k] >= at0->rank) return false;
        src += idx[k] * as[p[k]];
      } else {
        src += (p[k] + idx[k] * st[k]) * as[k];
      }
    }
    if (src < 0 || src >= in[0]->n) return false;
    r->v[e] = in[0]->v[src];
  }
  return true;
}

/* Element values of a constant op's integer dense attribute. */
static bool fold_constant(const shl_op *op, rf_known *r) {
  const shl_attr *v = op_attr(op, "value");
  size_t n;
  if (!v || v->kind != AT_DENSE || !attr_as_ints(v, NULL, 0, &n) || (int64_t)n != r->n) return false;
  attr_as_ints(v, r->v, n, &n);
  shl_dtype dt = op->results[0].type->dtype;
  for (int64_t i = 0; i < r->n; i++) r->v[i] = norm(dt, r->v[i]);
  return true;
}

static bool fold_values(const shl_op *op, const rf_known *const *in, rf_known *r) {
  shl_opid id = op_id(op);
  shl_dtype dt = op->results[0].type->dtype;
  bool ok = true;
  switch (id) {
    case OP_CONSTANT:
      return fold_constant(op, r);
    case OP_GET_DIMENSION_SIZE: {
      const shl_type *t = op->operands[0]->type;
      int64_t d;
      if (!attr_as_int(op_attr(op, "dimension"), &d) || t->kind != TY_TENSOR || d < 0 || d >= t->rank) return false;
      r->v[0] = norm(dt, t->dims[d]);
      return true;
    }
    case OP_IOTA: {
      const shl_type *t = op->results[0].type;
      int64_t d, s[16];
      if (!attr_as_int(op_attr(op, "iota_dimension"), &d) || d < 0 || d >= t->rank || t->rank > 16) return false;
      strides_of(t, s);
      for (int64_t e = 0; e < r->n; e++) r->v[e] = norm(dt, e / s[d] % t->dims[d]);
      return true;
    }
    case OP_CONVERT:
    case OP_RESHAPE:
    case OP_BITCAST_CONVERT:
      if (id == OP_BITCAST_CONVERT && dtype_bits(dt) != dtype_bits(op->operands[0]->type->dtype)) return false;
      for (int64_t e = 0; e < r->n; e++) r->v[e] = norm(dt, in[0]->v[e]);
      return true;
    case OP_BROADCAST_IN_DIM:
    case OP_SLICE:
    case OP_TRANSPOSE:
    case OP_CONCATENATE:
      return fold_layout(op, in, r);
    case OP_COMPARE: {
      int dir = comparison(op);
      shl_dtype odt = op->operands[0]->type->dtype;
      if (dir < 0) return false;
      for (int64_t e = 0; e < r->n; e++) r->v[e] = compare(dir, dtype_class(odt) == DTC_UINT, at(in[0], e), at(in[1], e));
      return true;
    }
    case OP_SELECT:
      for (int64_t e = 0; e < r->n; e++) r->v[e] = at(in[0], e) ? at(in[1], e) : at(in[2], e);
      return true;
    case OP_CLAMP:
      for (int64_t e = 0; e < r->n; e++) {
        int64_t lo = at(in[0], e), x = at(in[1], e), hi = at(in[2], e);
        r->v[e] = binary(OP_MINIMUM, dt, binary(OP_MAXIMUM, dt, x, lo, &ok), hi, &ok);
      }
      return ok;
    default:
      if (op->n_operands == 1)
        for (int64_t e = 0; ok && e < r->n; e++) r->v[e] = norm(dt, unary(id, dt, in[0]->v[e], &ok));
      else if (op->n_operands == 2)
        for (int64_t e = 0; ok && e < r->n; e++) r->v[e] = norm(dt, binary(id, dt, at(in[0], e), at(in[1], e), &ok));
      else
        ok = false;
      return ok;
  }
}

shl_status rf_fold(rf_ctx *c, const shl_op *op) {
  int64_t n;
  if (op->n_results != 1 || op->n_regions || !foldable_type(op->results[0].type, &n)) return NULL;
  const rf_known *in[8];
  uint64_t deps = 0;
  bool shape_only = op_is(op, OP_GET_DIMENSION_SIZE);
  if (op->n_operands > 8) return NULL;
  for (uint32_t i = 0; i < op->n_operands && !shape_only; i++) {
    if (!(in[i] = rf_known_of(c, op->operands[i]))) return NULL;
    /* Elementwise operands have the result's element count, or one element (select, clamp). */
    if (!op_is(op, OP_CONCATENATE) && !op_is(op, OP_BROADCAST_IN_DIM) && !op_is(op, OP_SLICE) && in[i]->n != n &&
        in[i]->n != 1)
      return NULL;
    deps |= in[i]->deps;
  }
  rf_known *r = known_new(c, n, deps);
  if (!r) return st_oom();
  if (fold_values(op, in, r) && !rf_set_known(c, &op->results[0], r)) return st_oom();
  return NULL;
}

bool rf_same_value(const shl_value *a, const shl_value *b, int depth) {
  if (a == b) return true;
  const shl_op *x = a->def, *y = b->def;
  if (!x || !y || depth <= 0 || x->def != y->def || a->index != b->index || !type_eq(a->type, b->type) ||
      x->n_operands != y->n_operands || x->n_attrs != y->n_attrs || x->n_regions || y->n_regions ||
      (x->def->traits & T_SIDE) || op_is(x, OP_UNKNOWN))
    return false;
  for (uint32_t i = 0; i < x->n_attrs; i++)
    if (!str_eq(x->attrs[i].name, y->attrs[i].name) || !attr_eq(x->attrs[i].attr, y->attrs[i].attr)) return false;
  for (uint32_t i = 0; i < x->n_operands; i++)
    if (!rf_same_value(x->operands[i], y->operands[i], depth - 1)) return false;
  return true;
}
