/* top_k: iota of the last dimension, a two-operand sort along it (greater
 * first; TOTALORDER for floats, so NaNs sort above +inf), and slices of the
 * first k, as upstream's ConvertTopKOp does for static shapes. */
#include "chlo_impl.h"

static shl_named_attr named(const char *name, const shl_attr *a) { return (shl_named_attr){str_of(name), a, true}; }

static const shl_attr *i64_attr(cl_emit *e, int64_t v) { return attr_int(e->a, type_scalar(e->a, DT_I64), v); }

/* The comparator: (a0, a1, i0, i1) -> a0 > a1. */
static bool comparator(cl_emit *e, shl_op *sort, shl_dtype dt) {
  const shl_type *st = type_tensor(e->a, dt, 0, NULL), *it = type_tensor(e->a, DT_I32, 0, NULL);
  const shl_type *args[4] = {st, st, it, it};
  shl_block *blk = st && it ? block_create(e->a, 4, args) : NULL;
  if (!blk || !region_append_block(e->a, &sort->regions[0], blk)) return false;
  /* Build the comparator's ops in its own block. */
  cl_emit inner = {.a = e->a, .b = blk, .src = e->src};
  shl_value *c = cl_cmp(&inner, "GT", &blk->args[0], &blk->args[1]);
  if (c && dtype_is_float(dt)) {
    shl_attr *ct = attr_new(e->a, AT_ENUM);
    if (!ct) return false;
    ct->u.en.dialect = str_of("stablehlo");
    ct->u.en.name = str_of("comparison_type");
    ct->u.en.value = str_of("TOTALORDER");
    if (!op_set_attr(e->a, c->def, str_of("compare_type"), ct, true)) return false;
  }
  if (!c) return false;
  shl_op *ret = op_create(e->a, &shl_op_table[OP_RETURN], str_of(shl_op_table[OP_RETURN].name), 1, &c, 0, NULL, 0,
                          NULL, 0);
  if (!ret) return false;
  ret->pos = e->src->pos;
  ret->loc = e->src->loc;
  block_append(blk, ret);
  return true;
}

static shl_value *slice_last(cl_emit *e, shl_value *v, const shl_type *rt) {
  int32_t rank = rt->rank;
  int64_t start[64] = {0}, stride[64];
  for (int32_t d = 0; d < rank; d++) stride[d] = 1;
  shl_named_attr attrs[3] = {named("limit_indices", attr_dense_array_i64(e->a, rt->dims, rank)),
                             named("start_indices", attr_dense_array_i64(e->a, start, rank)),
                             named("strides", attr_dense_array_i64(e->a, stride, rank))};
  if (!attrs[0].attr || !attrs[1].attr || !attrs[2].attr) return cl_fail(e, "out of memory");
  return cl_op(e, OP_SLICE, 1, &v, rt, 3, attrs);
}

void cl_rule_top_k(cl_emit *e, const shl_op *op, shl_value **res) {
  shl_value *x = op->operands[0];
  const shl_type *t = x->type;
  if (!type_is_static(t) || t->rank < 1 || t->rank > 64) {
    cl_fail(e, "has a dynamic shape; the CHLO decomposition handles static shapes only");
    return;
  }
  int64_t last = t->rank - 1;
  shl_named_attr iota_dim = named("iota_dimension", i64_attr(e, last));
  shl_value *iota = cl_op(e, OP_IOTA, 0, NULL, cl_type_like(e, t, DT_I32), 1, &iota_dim);
  if (!iota) return;
  /* top_k is stable unless is_stable = false; sort's is_stable is written
   * only when true (absent means false, as a read artifact has it). */
  const shl_attr *stable = op_attr(op, "is_stable");
  bool is_stable = !stable || stable->kind != AT_BOOL || stable->u.b;
  shl_named_attr attrs[2] = {named("dimension", i64_attr(e, last)), named("is_stable", attr_bool(e->a, true))};
  uint32_t n_attrs = is_stable ? 2 : 1;
  shl_value *ops[2] = {x, iota};
  const shl_type *rts[2] = {t, iota->type};
  shl_op *sort = attrs[0].attr && attrs[1].attr ? op_create(e->a, &shl_op_table[OP_SORT], str_of(shl_op_table[OP_SORT].name), 2, ops,
                                            2, rts, n_attrs, attrs, 1)
                     : NULL;
  if (!sort || !comparator(e, sort, t->dtype)) {
    if (!e->st) e->st = st_oom();
    return;
  }
  sort->pos = op->pos;
  sort->loc = op->loc;
  block_insert_before(e->b, e->before, sort);
  res[0] = slice_last(e, &sort->results[0], op->results[0].type);
  res[1] = slice_last(e, &sort->results[1], op->results[1].type);
}
