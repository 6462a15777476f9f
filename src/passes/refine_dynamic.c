/* Shape refinement, dynamic ops: once the operands that give a dynamic op
 * its shape (output shape, bounds, paddings, slice sizes) are known, the op
 * becomes its static form with those values as attributes, as
 * stablehlo-refine-shapes canonicalises them.  The static op's rule then
 * refines the result and checks it against the operands, so an output shape
 * that contradicts the operand is an error naming the dynamic op. */
#include "refine_impl.h"

bool rf_is_dynamic_op(const shl_op *op) {
  switch (op_id(op)) {
    case OP_DYNAMIC_BROADCAST_IN_DIM:
    case OP_DYNAMIC_IOTA:
    case OP_DYNAMIC_RESHAPE:
    case OP_DYNAMIC_PAD:
    case OP_DYNAMIC_GATHER:
    case OP_DYNAMIC_CONV:
    case OP_REAL_DYNAMIC_SLICE: return true;
    default: return false;
  }
}

/* An attribute list: the attributes of old named in `keep`, with room for
 * `extra` more. */
typedef struct {
  shl_named_attr *v;
  uint32_t n;
} attr_list;

static shl_status attrs_from(rf_ctx *c, const shl_op *old, const char *const *keep, attr_list *out, uint32_t extra) {
  out->v = ARENA_ARRAY(c->a, shl_named_attr, old->n_attrs + extra + 1);
  out->n = 0;
  if (!out->v) return st_oom();
  for (uint32_t i = 0; i < old->n_attrs; i++)
    for (const char *const *k = keep; *k; k++)
      if (str_eq_c(old->attrs[i].name, *k)) out->v[out->n++] = old->attrs[i];
  return NULL;
}

/* Appends an attribute (NULL: out of memory). */
static shl_status attrs_add(attr_list *l, const char *name, const shl_attr *a) {
  if (!a) return st_oom();
  l->v[l->n++] = (shl_named_attr){str_of(name), a, true};
  return NULL;
}

static shl_status ints_attr(rf_ctx *c, attr_list *l, const char *name, const rf_known *k) {
  return attrs_add(l, name, attr_dense_array_i64(c->a, k->v, k->n));
}

/* The known values of shape operand i, `want` of them (or any count when
 * want < 0). */
static shl_status shape_values(rf_ctx *c, const shl_op *op, shl_value *const *ops, uint32_t i, const char *what,
                               int64_t want, const rf_known **out) {
  if (i >= op->n_operands) return op_error(op, SHLOC_ERR_VERIFY, "has no %s operand", what);
  ST_TRY(rf_shape_operand(c, op, ops[i], i, what, out));
  if (want >= 0 && (*out)->n != want)
    return op_error(op, SHLOC_ERR_VERIFY, "%s has %lld entries, expected %lld", what, (long long)(*out)->n,
                    (long long)want);
  if ((*out)->n > 64) return op_error(op, SHLOC_ERR_LIMIT, "%s has more than 64 entries", what);
  return NULL;
}

static int32_t value_rank(const shl_value *v) { return v->type->kind == TY_TENSOR ? v->type->rank : -1; }

/* dynamic_conv's window attributes with more entries than spatial
 * dimensions, all of one value, are read as that value per spatial
 * dimension.  JAX lowers a stride of 2 on one spatial dimension as one
 * entry; StableHLO's 2024 rewrite of its test data from `dense<2> :
 * tensor<1xi64>` to dense arrays wrote it as `array<i64: 2, 2>`.  Upstream
 * verifies such an op (its window is only checked once the padding is a
 * constant) and then cannot refine it; a list of differing values stays an
 * error of the convolution rule. */
static shl_status conv_window_splats(rf_ctx *c, attr_list *al, int32_t n_spatial) {
  static const char *const names[] = {"window_strides", "lhs_dilation", "rhs_dilation", "window_reversal"};
  for (uint32_t i = 0; i < al->n; i++) {
    const shl_attr *at = al->v[i].attr;
    bool window = false;
    for (size_t j = 0; j < sizeof names / sizeof *names; j++) window |= str_eq_c(al->v[i].name, names[j]);
    if (!window || at->kind != AT_DENSE_ARRAY || at->u.darr.n <= n_spatial) continue;
    size_t sz = dtype_bytes(at->type->dtype);
    const char *d = at->u.darr.data;
    bool splat = true;
    for (int64_t k = 1; k < at->u.darr.n && splat; k++) splat = memcmp(d, d + (size_t)k * sz, sz) == 0;
    if (!splat) continue;
    shl_attr *cut = attr_new(c->a, AT_DENSE_ARRAY);
    if (!cut) return st_oom();
    *cut = *at;
    cut->u.darr.n = n_spatial;
    al->v[i].attr = cut;
  }
  return NULL;
}

/* The padding operand of dynamic_conv as convolution's `padding`
 * (dense<[[lo, hi], ...]> : tensor<Nx2xi64>). */
static const shl_attr *padding_attr(rf_ctx *c, const rf_known *k) {
  int64_t dims[2] = {k->n / 2, 2};
  shl_attr *a = attr_new(c->a, AT_DENSE);
  shl_type *t = type_tensor(c->a, DT_I64, 2, dims);
  void *data = arena_memdup(c->a, k->v, (size_t)k->n * sizeof(int64_t) + 1);
  if (!a || !t || !data) return NULL;
  a->type = t;
  a->u.dense.storage = data;
  a->u.dense.nbytes = (size_t)k->n * sizeof(int64_t);
  return a;
}

/* real_dynamic_slice whose limits are its starts plus known sizes, with unit
 * strides: a dynamic_slice of those sizes, whose starts stay run-time values
 * (clamped into range, as dynamic_slice does) -- stablehlo-refine-shapes'
 * second form.  *out stays NULL when the pattern does not match. */
static shl_status slice_by_sizes(rf_ctx *c, const shl_op *old, shl_value *const *ops, shl_block *nb, shl_op **out) {
  *out = NULL;
  const shl_value *start = ops[1], *limit = ops[2];
  const rf_known *strides = rf_known_of(c, ops[3]), *sizes = NULL;
  const shl_op *add = limit->def;
  int32_t rank = ops[0]->type->kind == TY_TENSOR ? ops[0]->type->rank : -1;
  if (!strides || rank < 0 || strides->n != rank || !add || !op_is(add, OP_ADD) || add->n_operands != 2) return NULL;
  for (int32_t d = 0; d < rank; d++)
    if (strides->v[d] != 1) return NULL;
  for (uint32_t j = 0; j < 2 && !sizes; j++)
    if (rf_same_value(add->operands[j], start, 8)) sizes = rf_known_of(c, add->operands[1 - j]);
  if (!sizes || sizes->n != rank) return NULL;
  c->used |= sizes->deps | strides->deps;
  for (int32_t d = 0; d < rank; d++)
    if (sizes->v[d] < 0 || sizes->v[d] > ops[0]->type->dims[d])
      return op_error(old, SHLOC_ERR_INVALID_ARG, "dimension %d: a slice of %lld does not fit the operand's size %lld",
                      (int)d, (long long)sizes->v[d], (long long)ops[0]->type->dims[d]);
  /* Start index d as a scalar: reshape(slice(start, [d], [d + 1], [1])). */
  shl_value **args = ARENA_ARRAY(c->a, shl_value *, (size_t)rank + 1);
  const shl_type *one = rf_type_like(c, start->type, 1, (const int64_t[]){1});
  const shl_type *scalar = rf_type_like(c, start->type, 0, NULL);
  if (!args || !one || !scalar) return st_oom();
  args[0] = ops[0];
  for (int32_t d = 0; d < rank; d++) {
    int64_t lo = d, hi = d + 1, st = 1;
    shl_named_attr at[3] = {{str_of("limit_indices"), attr_dense_array_i64(c->a, &hi, 1), true},
                            {str_of("start_indices"), attr_dense_array_i64(c->a, &lo, 1), true},
                            {str_of("strides"), attr_dense_array_i64(c->a, &st, 1), true}};
    if (!at[0].attr || !at[1].attr || !at[2].attr) return st_oom();
    shl_value *sv = ops[1];
    shl_op *sl = rf_new_op(c, old, OP_SLICE, 1, &sv, 1, &one, 3, at);
    shl_op *rs = sl ? rf_new_op(c, old, OP_RESHAPE, 1, (shl_value *const[]){&sl->results[0]}, 1, &scalar, 0, NULL) : NULL;
    if (!rs) return st_oom();
    block_append(nb, sl);
    block_append(nb, rs);
    args[d + 1] = &rs->results[0];
  }
  shl_named_attr sz = {str_of("slice_sizes"), attr_dense_array_i64(c->a, sizes->v, sizes->n), true};
  if (!sz.attr) return st_oom();
  *out = rf_new_op(c, old, OP_DYNAMIC_SLICE, (uint32_t)rank + 1, args, 1, &old->results[0].type, 1, &sz);
  return *out ? NULL : st_oom();
}

static shl_status rewrite(rf_ctx *c, const shl_op *old, shl_value *const *ops, shl_op **out) {
  static const char *const none[] = {NULL};
  const rf_known *k[3] = {0};
  attr_list al;
  shl_opid id;
  uint32_t n_ops = 1;
  const shl_type *rt = old->results[0].type;
  int32_t rank = old->n_operands ? value_rank(ops[0]) : -1;
  switch (op_id(old)) {
    case OP_DYNAMIC_BROADCAST_IN_DIM: {
      static const char *const keep[] = {"broadcast_dimensions", NULL};
      ST_TRY(shape_values(c, old, ops, 1, "output_dimensions", rt->rank >= 0 ? rt->rank : -1, &k[0]));
      ST_TRY(rf_refined_type(c, old, "result", rt, (int32_t)k[0]->n, k[0]->v, &rt));
      ST_TRY(attrs_from(c, old, keep, &al, 0));
      id = OP_BROADCAST_IN_DIM;
      break;
    }
    case OP_DYNAMIC_RESHAPE:
      ST_TRY(shape_values(c, old, ops, 1, "output_shape", rt->rank >= 0 ? rt->rank : -1, &k[0]));
      ST_TRY(rf_refined_type(c, old, "result", rt, (int32_t)k[0]->n, k[0]->v, &rt));
      ST_TRY(attrs_from(c, old, none, &al, 0));
      id = OP_RESHAPE;
      break;
    case OP_DYNAMIC_IOTA: {
      static const char *const keep[] = {"iota_dimension", NULL};
      ST_TRY(shape_values(c, old, ops, 0, "output_shape", rt->rank >= 0 ? rt->rank : -1, &k[0]));
      ST_TRY(rf_refined_type(c, old, "result", rt, (int32_t)k[0]->n, k[0]->v, &rt));
      ST_TRY(attrs_from(c, old, keep, &al, 0));
      id = OP_IOTA;
      n_ops = 0;
      break;
    }
    case OP_REAL_DYNAMIC_SLICE: {
      static const char *const names[] = {"start_indices", "limit_indices", "strides"};
      ST_TRY(attrs_from(c, old, none, &al, 3));
      for (uint32_t j = 0; j < 3; j++) {
        ST_TRY(shape_values(c, old, ops, j + 1, names[j], rank, &k[j]));
        ST_TRY(ints_attr(c, &al, names[j], k[j]));
      }
      /* Bounds checked here, naming the op, before the slice rule reads them. */
      for (int32_t d = 0; d < rank; d++)
        if (k[0]->v[d] < 0 || k[0]->v[d] > k[1]->v[d] || k[1]->v[d] > ops[0]->type->dims[d] || k[2]->v[d] <= 0)
          return op_error(old, SHLOC_ERR_INVALID_ARG,
                          "dimension %d: start %lld, limit %lld, stride %lld do not fit the operand's size %lld", (int)d,
                          (long long)k[0]->v[d], (long long)k[1]->v[d], (long long)k[2]->v[d],
                          (long long)ops[0]->type->dims[d]);
      id = OP_SLICE;
      break;
    }
    case OP_DYNAMIC_PAD: {
      static const char *const names[] = {"edge_padding_low", "edge_padding_high", "interior_padding"};
      ST_TRY(attrs_from(c, old, none, &al, 3));
      for (uint32_t j = 0; j < 3; j++) {
        ST_TRY(shape_values(c, old, ops, j + 2, names[j], rank, &k[j]));
        ST_TRY(ints_attr(c, &al, names[j], k[j]));
      }
      id = OP_PAD;
      n_ops = 2;
      break;
    }
    case OP_DYNAMIC_GATHER: {
      static const char *const keep[] = {"dimension_numbers", "indices_are_sorted", NULL};
      ST_TRY(attrs_from(c, old, keep, &al, 1));
      ST_TRY(shape_values(c, old, ops, 2, "slice_sizes", rank, &k[0]));
      ST_TRY(ints_attr(c, &al, "slice_sizes", k[0]));
      id = OP_GATHER;
      n_ops = 2;
      break;
    }
    case OP_DYNAMIC_CONV: {
      static const char *const keep[] = {"window_strides", "lhs_dilation", "rhs_dilation", "window_reversal",
                                         "dimension_numbers", "feature_group_count", "batch_group_count",
                                         "precision_config", NULL};
      ST_TRY(attrs_from(c, old, keep, &al, 1));
      ST_TRY(shape_values(c, old, ops, 2, "padding", rank >= 2 ? 2 * (rank - 2) : -1, &k[0]));
      ST_TRY(attrs_add(&al, "padding", padding_attr(c, k[0])));
      if (rank >= 2) ST_TRY(conv_window_splats(c, &al, rank - 2));
      id = OP_CONVOLUTION;
      n_ops = 2;
      break;
    }
    default: return op_error(old, SHLOC_ERR_UNSUPPORTED, "is not a dynamic op");
  }
  uint32_t dup;
  if (!attrs_sort(al.v, al.n, &dup)) return op_error(old, SHLOC_ERR_VERIFY, "has a duplicate attribute");
  *out = rf_new_op(c, old, id, n_ops, ops, 1, &rt, al.n, al.v);
  return *out ? NULL : st_oom();
}

shl_status rf_dynamic(rf_scope *s, const shl_op *old, shl_value *const *ops, shl_block *nb, shl_op **out) {
  rf_ctx *c = s->c;
  *out = NULL;
  if (op_is(old, OP_REAL_DYNAMIC_SLICE) && old->n_operands == 4) ST_TRY(slice_by_sizes(c, old, ops, nb, out));
  if (!*out) ST_TRY(rewrite(c, old, ops, out));
  c->blame = old;
  shl_status st = rf_infer(c, *out);
  c->blame = NULL;
  return st;
}
