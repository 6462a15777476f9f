/* scan, as upstream's ConvertScanOp (ChloLegalizeToStablehlo.cpp) builds it
 * for static shapes: a stablehlo.while over (index, carries..., outputs...)
 * with the outputs starting as zeros.  The condition is index < N (the scan
 * dimension's size, from get_dimension_size of the first input, else the
 * first output's static size); the body takes position p = index (reverse:
 * N - 1 - index), slices each input at p (dynamic_slice + reshape), runs
 * the scan's body on those and the carries, writes its first results into
 * the outputs at p (reshape + dynamic_update_slice) and yields index + 1
 * with the new carries.  The scan's body ops are moved, not copied: the
 * scan op is removed afterwards. */
#include "chlo_impl.h"

static shl_named_attr named(const char *name, const shl_attr *a) { return (shl_named_attr){str_of(name), a, true}; }

static shl_value *i64_scalar(cl_emit *e, int64_t v) {
  shl_value like = {.type = type_tensor(e->a, DT_I64, 0, NULL)};
  return like.type ? cl_const(e, &like, (double)v) : cl_fail(e, "out of memory");
}

/* A new op with several results and n_regions empty regions. */
static shl_op *multi_op(cl_emit *e, shl_opid id, uint32_t n, shl_value *const *ops, uint32_t n_res,
                        const shl_type *const *rts, uint32_t n_attrs, const shl_named_attr *attrs, uint32_t n_regions) {
  if (e->st) return NULL;
  for (uint32_t i = 0; i < n; i++)
    if (!ops[i]) return NULL;
  const shl_opdef *def = &shl_op_table[id];
  shl_op *op = op_create(e->a, def, str_of(def->name), n, ops, n_res, rts, n_attrs, attrs, n_regions);
  if (!op) {
    cl_fail(e, "out of memory");
    return NULL;
  }
  op->pos = e->src->pos;
  op->loc = e->src->loc;
  block_insert_before(e->b, e->before, op);
  return op;
}

/* Replaces uses of the scan body's arguments in the moved ops (and in their
 * regions) by the values the while body gives them. */
static void remap(shl_block *from, shl_value *const *to, shl_op *op) {
  for (uint32_t i = 0; i < op->n_operands; i++)
    if (op->operands[i]->block == from && !op->operands[i]->def) op->operands[i] = to[op->operands[i]->index];
  for (uint32_t r = 0; r < op->n_regions; r++)
    for (uint32_t k = 0; k < op->regions[r].n_blocks; k++)
      for (shl_op *o = op->regions[r].blocks[k]->first; o; o = o->next) remap(from, to, o);
}

/* The element of v at position p of dim (size 1 there, dropped). */
static shl_value *slice_at(cl_emit *e, shl_value *v, int64_t dim, shl_value *p) {
  const shl_type *t = v->type;
  uint32_t rank = (uint32_t)t->rank;
  shl_value **ops = ARENA_ARRAY(e->a, shl_value *, rank + 1);
  int64_t *sizes = ARENA_ARRAY(e->a, int64_t, rank + 1), *kept = ARENA_ARRAY(e->a, int64_t, rank + 1);
  if (!ops || !sizes || !kept) return cl_fail(e, "out of memory");
  shl_value *zero = i64_scalar(e, 0);
  ops[0] = v;
  uint32_t nk = 0;
  for (uint32_t d = 0; d < rank; d++) {
    ops[d + 1] = (int64_t)d == dim ? p : zero;
    sizes[d] = (int64_t)d == dim ? 1 : t->dims[d];
    if ((int64_t)d != dim) kept[nk++] = t->dims[d];
  }
  shl_named_attr ss = named("slice_sizes", attr_dense_array_i64(e->a, sizes, rank));
  if (!ss.attr) return cl_fail(e, "out of memory");
  shl_value *s = cl_op(e, OP_DYNAMIC_SLICE, rank + 1, ops, type_tensor(e->a, t->dtype, (int32_t)rank, sizes), 1, &ss);
  return s ? cl_op(e, OP_RESHAPE, 1, &s, type_tensor(e->a, t->dtype, (int32_t)nk, kept), 0, NULL) : NULL;
}

/* out with x written at position p of dim. */
static shl_value *update_at(cl_emit *e, shl_value *out, shl_value *x, int64_t dim, shl_value *p) {
  const shl_type *t = out->type;
  uint32_t rank = (uint32_t)t->rank;
  shl_value **ops = ARENA_ARRAY(e->a, shl_value *, rank + 2);
  int64_t *shape = ARENA_ARRAY(e->a, int64_t, rank + 1);
  if (!ops || !shape || !x) return cl_fail(e, "out of memory");
  for (uint32_t d = 0; d < rank; d++) shape[d] = (int64_t)d == dim ? 1 : t->dims[d];
  ops[0] = out;
  ops[1] = cl_op(e, OP_RESHAPE, 1, &x, type_tensor(e->a, t->dtype, (int32_t)rank, shape), 0, NULL);
  shl_value *zero = i64_scalar(e, 0);
  for (uint32_t d = 0; d < rank; d++) ops[d + 2] = (int64_t)d == dim ? p : zero;
  return cl_op(e, OP_DYNAMIC_UPDATE_SLICE, rank + 2, ops, t, 0, NULL);
}

void cl_rule_scan(cl_emit *e, const shl_op *op, shl_value **res) {
  int64_t seg[2] = {0, 0}, rseg[2] = {0, 0}, dim = 0;
  size_t n = 0, m = 0;
  if (!attr_as_ints(op_attr(op, "operandSegmentSizes"), seg, 2, &n) ||
      !attr_as_ints(op_attr(op, "resultSegmentSizes"), rseg, 2, &m) || n != 2 || m != 2 ||
      !attr_as_int(op_attr(op, "dimension"), &dim) || op->n_regions != 1 || op->regions[0].n_blocks != 1) {
    cl_fail(e, "is malformed");
    return;
  }
  uint32_t n_in = (uint32_t)seg[0], n_carry = (uint32_t)seg[1], n_out = (uint32_t)rseg[0];
  for (uint32_t i = 0; i < op->n_operands; i++)
    if (!type_is_static(op->operands[i]->type)) goto dynamic;
  for (uint32_t i = 0; i < op->n_results; i++)
    if (!type_is_static(op->results[i].type)) goto dynamic;
  const shl_attr *rev = op_attr(op, "is_reverse");
  bool reverse = rev && rev->kind == AT_BOOL && rev->u.b;
  shl_block *sb = op->regions[0].blocks[0];
  shl_op *term = sb->last;
  if (!term || term->n_operands != n_out + n_carry || sb->n_args != n_in + n_carry) {
    cl_fail(e, "is malformed");
    return;
  }

  /* N, as i64. */
  shl_value *size;
  if (n_in) {
    shl_named_attr d = named("dimension", attr_int(e->a, type_scalar(e->a, DT_I64), dim));
    if (!d.attr) {
      cl_fail(e, "out of memory");
      return;
    }
    size = cl_op(e, OP_GET_DIMENSION_SIZE, 1, &op->operands[0], type_tensor(e->a, DT_I32, 0, NULL), 1, &d);
  } else {
    shl_value like = {.type = type_tensor(e->a, DT_I32, 0, NULL)};
    size = like.type ? cl_const(e, &like, (double)op->results[0].type->dims[dim]) : NULL;
  }
  shl_value *count = cl_convert(e, size, DT_I64);

  /* Loop state: index, carries, outputs (zeros). */
  uint32_t n_state = 1 + n_carry + n_out;
  shl_value **init = ARENA_ARRAY(e->a, shl_value *, n_state);
  const shl_type **types = ARENA_ARRAY(e->a, const shl_type *, n_state);
  if (!init || !types) {
    cl_fail(e, "out of memory");
    return;
  }
  init[0] = i64_scalar(e, 0);
  for (uint32_t i = 0; i < n_carry; i++) init[1 + i] = op->operands[n_in + i];
  for (uint32_t i = 0; i < n_out; i++) {
    const shl_type *rt = op->results[i].type;
    shl_value like = {.type = type_tensor(e->a, rt->dtype, 0, NULL)};
    shl_value *z = like.type ? cl_const(e, &like, 0.0) : NULL;
    shl_named_attr bd = named("broadcast_dimensions", attr_dense_array_i64(e->a, NULL, 0));
    init[1 + n_carry + i] = z && bd.attr ? cl_op(e, OP_BROADCAST_IN_DIM, 1, &z, rt, 1, &bd) : NULL;
  }
  for (uint32_t i = 0; i < n_state; i++) {
    if (!init[i]) {
      cl_fail(e, "out of memory");
      return;
    }
    types[i] = init[i]->type;
  }
  shl_op *w = multi_op(e, OP_WHILE, n_state, init, n_state, types, 0, NULL, 2);
  shl_block *cond = w ? block_create(e->a, n_state, types) : NULL;
  shl_block *body = w ? block_create(e->a, n_state, types) : NULL;
  if (!cond || !body || !region_append_block(e->a, &w->regions[0], cond) ||
      !region_append_block(e->a, &w->regions[1], body)) {
    cl_fail(e, "out of memory");
    return;
  }

  cl_emit ce = {.a = e->a, .b = cond, .src = e->src, .flags = e->flags};
  shl_value *lt = cl_cmp(&ce, "LT", &cond->args[0], count);
  multi_op(&ce, OP_RETURN, 1, &lt, 0, NULL, 0, NULL, 0);

  cl_emit be = {.a = e->a, .b = body, .src = e->src, .flags = e->flags};
  shl_value *index = &body->args[0], *pos = index;
  if (reverse) pos = cl_sub(&be, cl_sub(&be, count, i64_scalar(&be, 1)), index);
  shl_value **args = ARENA_ARRAY(e->a, shl_value *, n_in + n_carry + 1);
  if (!args) {
    cl_fail(e, "out of memory");
    return;
  }
  for (uint32_t i = 0; i < n_in; i++) args[i] = slice_at(&be, op->operands[i], dim, pos);
  for (uint32_t i = 0; i < n_carry; i++) args[n_in + i] = &body->args[1 + i];
  if (ce.st || be.st) {
    e->st = ce.st ? ce.st : be.st;
    return;
  }
  for (uint32_t i = 0; i < n_in + n_carry; i++)
    if (!args[i]) {
      cl_fail(e, "out of memory");
      return;
    }
  shl_op *next;
  for (shl_op *o = sb->first; o != term; o = next) {
    next = o->next;
    block_remove(sb, o);
    remap(sb, args, o);
    block_append(body, o);
  }
  shl_value **yield = ARENA_ARRAY(e->a, shl_value *, n_state);
  if (!yield) {
    cl_fail(e, "out of memory");
    return;
  }
  /* A terminator operand may be a body argument itself. */
  for (uint32_t i = 0; i < term->n_operands; i++) {
    shl_value *v = term->operands[i];
    if (v->block == sb && !v->def) v = args[v->index];
    if (i < n_out) yield[1 + n_carry + i] = update_at(&be, &body->args[1 + n_carry + i], v, dim, pos);
    else yield[1 + (i - n_out)] = v;
  }
  yield[0] = cl_add(&be, index, i64_scalar(&be, 1));
  multi_op(&be, OP_RETURN, n_state, yield, 0, NULL, 0, NULL, 0);
  if (be.st) {
    e->st = be.st;
    return;
  }
  for (uint32_t i = 0; i < n_out; i++) res[i] = &w->results[1 + n_carry + i];
  for (uint32_t i = 0; i < n_carry; i++) res[n_out + i] = &w->results[1 + i];
  return;
dynamic:
  cl_fail(e, "has a dynamic shape; the CHLO decomposition handles static shapes only");
}
