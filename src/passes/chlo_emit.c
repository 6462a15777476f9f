/* The emitter of the CHLO decomposition (chlo_impl.h). */
#include <stdarg.h>
#include <stdio.h>

#include "chlo_impl.h"
#include "support/scalar.h"

shl_value *cl_fail(cl_emit *e, const char *fmt, ...) {
  if (e->st) return NULL;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  e->st = op_error(e->src, SHLOC_ERR_UNSUPPORTED, "%s", msg);
  return NULL;
}

static shl_value *oom(cl_emit *e) {
  if (!e->st) e->st = st_oom();
  return NULL;
}

shl_value *cl_op(cl_emit *e, shl_opid id, uint32_t n, shl_value *const *ops, const shl_type *rt, uint32_t n_attrs,
                 const shl_named_attr *attrs) {
  if (e->st || !rt) return rt ? NULL : oom(e);
  for (uint32_t i = 0; i < n; i++)
    if (!ops[i]) return oom(e);
  const shl_opdef *def = &shl_op_table[id];
  shl_op *op = op_create(e->a, def, str_of(def->name), n, ops, 1, &rt, n_attrs, attrs, 0);
  if (!op) return oom(e);
  op->pos = e->src->pos;
  op->loc = e->src->loc;
  block_insert_before(e->b, e->before, op);
  return &op->results[0];
}

shl_value *cl_un(cl_emit *e, shl_opid id, shl_value *x) {
  if (!x) return oom(e);
  return cl_op(e, id, 1, &x, x->type, 0, NULL);
}

shl_value *cl_bin(cl_emit *e, shl_opid id, shl_value *x, shl_value *y) {
  if (!x || !y) return oom(e);
  shl_value *ops[2] = {x, y};
  return cl_op(e, id, 2, ops, x->type, 0, NULL);
}

const shl_type *cl_type_like(cl_emit *e, const shl_type *t, shl_dtype dt) {
  shl_type *r = type_tensor(e->a, dt, t->rank, t->dims);
  if (r) r->encoding = t->encoding;
  return r;
}

shl_value *cl_cmp(cl_emit *e, const char *dir, shl_value *x, shl_value *y) {
  if (!x || !y) return oom(e);
  shl_attr *d = attr_new(e->a, AT_ENUM);
  if (!d) return oom(e);
  d->u.en.dialect = str_of("stablehlo");
  d->u.en.name = str_of("comparison_direction");
  d->u.en.value = str_of(dir);
  shl_named_attr na = {str_of("comparison_direction"), d, true};
  shl_value *ops[2] = {x, y};
  return cl_op(e, OP_COMPARE, 2, ops, cl_type_like(e, x->type, DT_I1), 1, &na);
}

shl_value *cl_select(cl_emit *e, shl_value *c, shl_value *t, shl_value *f) {
  if (!c || !t || !f) return oom(e);
  shl_value *ops[3] = {c, t, f};
  return cl_op(e, OP_SELECT, 3, ops, t->type, 0, NULL);
}

shl_value *cl_clamp(cl_emit *e, shl_value *lo, shl_value *x, shl_value *hi) {
  if (!lo || !x || !hi) return oom(e);
  shl_value *ops[3] = {lo, x, hi};
  return cl_op(e, OP_CLAMP, 3, ops, x->type, 0, NULL);
}

shl_value *cl_convert(cl_emit *e, shl_value *x, shl_dtype dt) {
  if (!x) return oom(e);
  return cl_op(e, OP_CONVERT, 1, &x, cl_type_like(e, x->type, dt), 0, NULL);
}

static shl_named_attr i64_named(cl_emit *e, const char *name, int64_t v) {
  return (shl_named_attr){str_of(name), attr_int(e->a, type_scalar(e->a, DT_I64), v), true};
}

/* The shape of v as tensor<rank x i32>: what XLA's pipeline makes of
 * shape.shape_of (shape-legalize-to-stablehlo): get_dimension_size of each
 * dimension, reshaped to tensor<1xi32>, concatenated. */
static shl_value *shape_of(cl_emit *e, shl_value *v) {
  int32_t rank = v->type->rank;
  shl_value **dims = ARENA_ARRAY(e->a, shl_value *, (size_t)rank + 1);
  int64_t one = 1, n = rank;
  const shl_type *i32 = type_tensor(e->a, DT_I32, 0, NULL), *i32x1 = type_tensor(e->a, DT_I32, 1, &one);
  const shl_type *shape_t = type_tensor(e->a, DT_I32, 1, &n);
  if (!dims || !i32 || !i32x1 || !shape_t) return oom(e);
  for (int32_t d = 0; d < rank; d++) {
    shl_named_attr dim = i64_named(e, "dimension", d);
    if (!dim.attr) return oom(e);
    shl_value *size = cl_op(e, OP_GET_DIMENSION_SIZE, 1, &v, i32, 1, &dim);
    dims[d] = size ? cl_op(e, OP_RESHAPE, 1, &size, i32x1, 0, NULL) : NULL;
  }
  shl_named_attr cat = i64_named(e, "dimension", 0);
  if (!cat.attr) return oom(e);
  return cl_op(e, OP_CONCATENATE, (uint32_t)rank, dims, shape_t, 1, &cat);
}

/* A constant shaped like `like`: a splat of its (static) type, or for a
 * dynamic shape a scalar broadcast to the run-time shape, as upstream's
 * getConstantLike does (through shape.shape_of). */
static shl_value *splat(cl_emit *e, shl_value *like, const void *elem, size_t sz) {
  if (!like) return oom(e);
  bool dynamic = !type_is_static(like->type);
  if (dynamic && like->type->rank < 1) return cl_fail(e, "has an unranked operand; it cannot be decomposed");
  const shl_type *ct = dynamic ? type_tensor(e->a, like->type->dtype, 0, NULL) : like->type;
  shl_attr *a = attr_new(e->a, AT_DENSE);
  void *data = arena_memdup(e->a, elem, sz);
  if (!a || !data || !ct) return oom(e);
  a->type = ct;
  a->u.dense.storage = data;
  a->u.dense.nbytes = sz;
  a->u.dense.splat = true;
  shl_named_attr na = {str_of("value"), a, true};
  shl_value *c = cl_op(e, OP_CONSTANT, 0, NULL, ct, 1, &na);
  if (!dynamic || !c) return c;
  shl_value *ops[2] = {c, shape_of(e, like)};
  shl_named_attr bd = {str_of("broadcast_dimensions"), attr_dense_array_i64(e->a, NULL, 0), true};
  if (!ops[1] || !bd.attr) return oom(e);
  return cl_op(e, OP_DYNAMIC_BROADCAST_IN_DIM, 2, ops, like->type, 1, &bd);
}

shl_value *cl_const_bits(cl_emit *e, shl_value *like, uint64_t bits) {
  if (!like) return oom(e);
  size_t sz = dtype_bytes(like->type->dtype);
  uint8_t elem[8];
  for (size_t i = 0; i < sz && i < 8; i++) elem[i] = (uint8_t)(bits >> (8 * i));
  return splat(e, like, elem, sz < 8 ? sz : 8);
}

shl_value *cl_const(cl_emit *e, shl_value *like, double v) {
  if (!like) return oom(e);
  shl_dtype dt = like->type->dtype;
  if (dtype_is_float(dt)) return cl_const_bits(e, like, fp_from_f64(dt, v));
  if (dtype_is_complex(dt)) {
    shl_dtype part = dt == DT_C64 ? DT_F32 : DT_F64;
    size_t h = dtype_bytes(part);
    uint64_t re = fp_from_f64(part, v);
    uint8_t elem[16] = {0};
    for (size_t i = 0; i < h; i++) elem[i] = (uint8_t)(re >> (8 * i));
    return splat(e, like, elem, 2 * h);
  }
  if (dtype_is_int(dt) || dt == DT_I1) return cl_const_bits(e, like, (uint64_t)(int64_t)v);
  return cl_fail(e, "has element type %s, which the CHLO decomposition does not handle", dtype_name(dt));
}

shl_value *cl_poly(cl_emit *e, shl_value *x, const double *c, size_t n) {
  if (!n) return cl_const(e, x, 0.0);
  shl_value *p = cl_const(e, x, c[0]);
  for (size_t i = 1; i < n; i++) p = cl_add(e, cl_mul(e, p, x), cl_const(e, x, c[i]));
  return p;
}

shl_value *cl_upcast_f32(cl_emit *e, shl_value *x, cl_fn1 f32_fn) {
  if (!x) return oom(e);
  shl_dtype dt = x->type->dtype;
  if (dt == DT_F32 || dt == DT_F64) return f32_fn(e, x);
  if (dt != DT_F16 && dt != DT_BF16)
    return cl_fail(e, "has element type %s; it is decomposed for f16, bf16, f32 and f64", dtype_name(dt));
  return cl_convert(e, f32_fn(e, cl_convert(e, x, DT_F32)), dt);
}

shl_value *cl_upcast2_f32(cl_emit *e, shl_value *x, shl_value *y, cl_fn2 f32_fn) {
  if (!x || !y) return oom(e);
  shl_dtype dt = x->type->dtype;
  if (dt == DT_F32 || dt == DT_F64) return f32_fn(e, x, y);
  if (dt != DT_F16 && dt != DT_BF16)
    return cl_fail(e, "has element type %s; it is decomposed for f16, bf16, f32 and f64", dtype_name(dt));
  return cl_convert(e, f32_fn(e, cl_convert(e, x, DT_F32), cl_convert(e, y, DT_F32)), dt);
}
