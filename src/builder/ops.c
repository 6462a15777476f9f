/* Typed builders for the common ops: elementwise, constants, shapes,
 * dot_general, compare/select, reduce, call, while, if, sort.  Attributes are
 * composed as the generic form writes them and parsed, so they have exactly
 * the representation of a parsed module. */
#include "builder_impl.h"
#include "support/scalar.h"

#define ARG_ERR(name, ...) bld_error(SHLOC_ERR_INVALID_ARG, (name), __VA_ARGS__)

static shl_status value_in(const char *name, const char *what, shloc_value *v, shl_value **out) {
  if (!v) return ARG_ERR(name, "%s is NULL", what);
  *out = val_in(v);
  return NULL;
}

static shl_status tensor_value(const char *name, const char *what, shloc_value *v, shl_value **out) {
  ST_TRY(value_in(name, what, v, out));
  if ((*out)->type->kind != TY_TENSOR || (*out)->type->rank < 0) return ARG_ERR(name, "%s must be a ranked tensor", what);
  return NULL;
}

static shl_named_attr prop(const char *name, const shl_attr *a) { return (shl_named_attr){str_of(name), a, true}; }

static shl_status publish(shl_status st, shl_value *v, shloc_value **out) {
  if (!st) *out = val_out(v);
  return st;
}

static shl_status publish_op(shl_status st, shl_op *op, shloc_op **out_op) {
  if (out_op) *out_op = st ? NULL : op_out(op);
  return st;
}

/* `array<i64: ...>` */
static shl_status dims_attr(shloc_module *m, const int64_t *v, size_t n, const shl_attr **out) {
  *out = attr_dense_array_i64(&m->arena, v, (int64_t)n);
  return *out ? NULL : st_oom();
}

/* A tensor of t's element type (quantization included) with another shape. */
static shl_status reshaped(shloc_module *m, const char *name, const shl_type *t, uint32_t rank, const int64_t *dims,
                           const shl_type **out) {
  if (rank && !dims) return ARG_ERR(name, "result dimensions missing");
  for (uint32_t i = 0; i < rank; i++)
    if (dims[i] < 0 && dims[i] != SHL_DYN) return ARG_ERR(name, "result dimension #%u is negative", i);
  shl_type *r = type_tensor(&m->arena, t->dtype, (int32_t)rank, dims);
  if (!r) return st_oom();
  r->quant = t->quant;
  *out = r;
  return NULL;
}

/* ------------------------------------------------------------------ elementwise */

shl_status shloc_build_elementwise(shloc_block *b, const char *name, uint32_t n, shloc_value *const *operands,
                                   shloc_value **out) {
  *out = NULL;
  if (!b) return ARG_ERR(name, "block is NULL");
  const shl_opdef *def = name ? opdef_lookup(str_of(name)) : NULL;
  if (!def || !(def->traits & T_EW)) return ARG_ERR(NULL, "'%.64s' is not an elementwise op", name ? name : "(null)");
  if (def->id == OP_CONVERT) return ARG_ERR(def->name, "needs a target type: use shloc_build_convert");
  if (def->id == OP_COMPARE) return ARG_ERR(def->name, "needs a direction: use shloc_build_compare");
  shl_value **v;
  ST_TRY(bld_values(def->name, "operand", n, operands, &v, &b->m->arena));
  shl_value *r = NULL;
  shl_status st = bld_simple(b, def->id, n, v, NULL, 0, NULL, &r);
  return publish(st, r, out);
}

shl_status shloc_build_unary(shloc_block *b, const char *name, shloc_value *x, shloc_value **out) {
  return shloc_build_elementwise(b, name, 1, &x, out);
}

shl_status shloc_build_binary(shloc_block *b, const char *name, shloc_value *lhs, shloc_value *rhs,
                              shloc_value **out) {
  shloc_value *v[2] = {lhs, rhs};
  return shloc_build_elementwise(b, name, 2, v, out);
}

shl_status shloc_build_convert(shloc_block *b, shloc_value *x, const char *element_type, shloc_value **out) {
  *out = NULL;
  const char *name = "stablehlo.convert";
  if (!b) return ARG_ERR(name, "block is NULL");
  shl_value *xv;
  ST_TRY(value_in(name, "operand", x, &xv));
  if (xv->type->kind != TY_TENSOR) return ARG_ERR(name, "operand must be a tensor");
  shl_dtype dt;
  ST_TRY(st_at(bld_dtype(element_type, &dt), NULL, name));
  const shl_type *rt = bld_tensor_like(&b->m->arena, xv->type, dt);
  if (!rt) return st_oom();
  shl_value *r = NULL;
  shl_status st = bld_simple(b, OP_CONVERT, 1, &xv, rt, 0, NULL, &r);
  return publish(st, r, out);
}

/* ------------------------------------------------------------------ constants */

shl_status shloc_build_constant(shloc_block *b, const shloc_type *type, const void *data, size_t nbytes,
                                shloc_value **out) {
  *out = NULL;
  if (!b) return ARG_ERR("stablehlo.constant", "block is NULL");
  const shloc_attr *v;
  ST_TRY(st_at(shloc_attr_dense(b->m, type, data, nbytes, &v), NULL, "stablehlo.constant"));
  shl_named_attr attr = prop("value", at_in(v));
  shl_value *r = NULL;
  shl_status st = bld_simple(b, OP_CONSTANT, 0, NULL, ty_in(type), 1, &attr, &r);
  return publish(st, r, out);
}

/* One element of dt holding v, in storage bytes (complex: v + 0i). */
static shl_status element_of(shl_dtype dt, double v, uint8_t buf[16]) {
  memset(buf, 0, 16);
  if (dtype_is_float(dt)) {
    fp_store(dt, buf, fp_from_f64(dt, v));
  } else if (dtype_is_complex(dt)) {
    shl_dtype e = dt == DT_C64 ? DT_F32 : DT_F64;
    fp_store(e, buf, fp_from_f64(e, v));
  } else if (dt == DT_I1) {
    buf[0] = v != 0;
  } else if (dtype_is_int(dt)) {
    if (v != v || v < (double)int_min(dt) || v > (double)int_max(dt) || v != (double)(int64_t)v)
      return ARG_ERR("stablehlo.constant", "%g is not a value of %s", v, dtype_name(dt));
    int_store(dt, buf, (int64_t)v);
  } else {
    return ARG_ERR("stablehlo.constant", "splat constants of %s are not supported", dtype_name(dt));
  }
  return NULL;
}

shl_status shloc_build_constant_splat(shloc_block *b, const shloc_type *type, double v, shloc_value **out) {
  *out = NULL;
  const shl_type *t = ty_in(type);
  if (!b) return ARG_ERR("stablehlo.constant", "block is NULL");
  if (!t || t->kind != TY_TENSOR || !type_is_static(t))
    return ARG_ERR("stablehlo.constant", "needs a statically shaped tensor type");
  shl_dtype dt = type_storage_dtype(t);
  uint8_t one[16];
  ST_TRY(element_of(dt, v, one));
  int64_t count = type_num_elements(t);
  size_t sz = dtype_bytes(dt);
  shl_attr *a = attr_new(&b->m->arena, AT_DENSE);
  void *d = arena_memdup(&b->m->arena, one, sz);
  if (!a || !d) return st_oom();
  a->type = t;
  a->u.dense.storage = d;
  a->u.dense.nbytes = count ? sz : 0;
  a->u.dense.splat = count != 0;
  shl_named_attr attr = prop("value", a);
  shl_value *r = NULL;
  shl_status st = bld_simple(b, OP_CONSTANT, 0, NULL, t, 1, &attr, &r);
  return publish(st, r, out);
}

shl_status shloc_build_iota(shloc_block *b, const shloc_type *type, int64_t dimension, shloc_value **out) {
  *out = NULL;
  if (!b || !type) return ARG_ERR("stablehlo.iota", "block or type is NULL");
  shl_attr *d = attr_int(&b->m->arena, type_scalar(&b->m->arena, DT_I64), dimension);
  if (!d || !d->type) return st_oom();
  shl_named_attr attr = prop("iota_dimension", d);
  shl_value *r = NULL;
  shl_status st = bld_simple(b, OP_IOTA, 0, NULL, ty_in(type), 1, &attr, &r);
  return publish(st, r, out);
}

/* ------------------------------------------------------------------ shapes */

shl_status shloc_build_broadcast_in_dim(shloc_block *b, shloc_value *x, uint32_t rank, const int64_t *dims,
                                        const int64_t *broadcast_dims, shloc_value **out) {
  *out = NULL;
  const char *name = "stablehlo.broadcast_in_dim";
  if (!b) return ARG_ERR(name, "block is NULL");
  shl_value *xv;
  ST_TRY(tensor_value(name, "operand", x, &xv));
  if (xv->type->rank && !broadcast_dims) return ARG_ERR(name, "broadcast_dimensions missing");
  const shl_type *rt;
  const shl_attr *bd;
  ST_TRY(reshaped(b->m, name, xv->type, rank, dims, &rt));
  ST_TRY(dims_attr(b->m, broadcast_dims, (size_t)xv->type->rank, &bd));
  shl_named_attr attr = prop("broadcast_dimensions", bd);
  shl_value *r = NULL;
  shl_status st = bld_simple(b, OP_BROADCAST_IN_DIM, 1, &xv, rt, 1, &attr, &r);
  return publish(st, r, out);
}

shl_status shloc_build_reshape(shloc_block *b, shloc_value *x, uint32_t rank, const int64_t *dims, shloc_value **out) {
  *out = NULL;
  const char *name = "stablehlo.reshape";
  if (!b) return ARG_ERR(name, "block is NULL");
  shl_value *xv;
  ST_TRY(tensor_value(name, "operand", x, &xv));
  const shl_type *rt;
  ST_TRY(reshaped(b->m, name, xv->type, rank, dims, &rt));
  shl_value *r = NULL;
  shl_status st = bld_simple(b, OP_RESHAPE, 1, &xv, rt, 0, NULL, &r);
  return publish(st, r, out);
}

shl_status shloc_build_transpose(shloc_block *b, shloc_value *x, const int64_t *permutation, shloc_value **out) {
  *out = NULL;
  const char *name = "stablehlo.transpose";
  if (!b) return ARG_ERR(name, "block is NULL");
  shl_value *xv;
  ST_TRY(tensor_value(name, "operand", x, &xv));
  if (xv->type->rank && !permutation) return ARG_ERR(name, "permutation missing");
  const shl_attr *p;
  ST_TRY(dims_attr(b->m, permutation, (size_t)xv->type->rank, &p));
  shl_named_attr attr = prop("permutation", p);
  shl_value *r = NULL;
  shl_status st = bld_simple(b, OP_TRANSPOSE, 1, &xv, NULL, 1, &attr, &r);
  return publish(st, r, out);
}

/* ------------------------------------------------------------------ dot_general */

shl_status shloc_build_dot_general(shloc_block *b, shloc_value *lhs, shloc_value *rhs, const shloc_dot_dims *dims,
                                   shloc_value **out) {
  *out = NULL;
  const char *name = "stablehlo.dot_general";
  if (!b || !dims) return ARG_ERR(name, "block or dimension numbers NULL");
  shl_value *v[2];
  ST_TRY(tensor_value(name, "lhs", lhs, &v[0]));
  ST_TRY(tensor_value(name, "rhs", rhs, &v[1]));
  if ((dims->n_batch && (!dims->lhs_batch || !dims->rhs_batch)) ||
      (dims->n_contracting && (!dims->lhs_contracting || !dims->rhs_contracting)))
    return ARG_ERR(name, "dimension lists missing");
  /* As the parser stores it: empty lists are left out. */
  const char *fields[4] = {"lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions",
                           "rhs_contracting_dimensions"};
  const int64_t *lists[4] = {dims->lhs_batch, dims->rhs_batch, dims->lhs_contracting, dims->rhs_contracting};
  uint32_t counts[4] = {dims->n_batch, dims->n_batch, dims->n_contracting, dims->n_contracting};
  bld_text t = {0};
  bool any = false;
  bld_text_printf(&t, "#stablehlo.dot<");
  for (int k = 0; k < 4; k++) {
    if (!counts[k]) continue;
    bld_text_printf(&t, "%s%s = ", any ? ", " : "", fields[k]);
    bld_text_ints(&t, lists[k], counts[k]);
    any = true;
  }
  bld_text_printf(&t, ">");
  const shl_attr *dn;
  ST_TRY(bld_text_attr(b->m, &t, &dn));
  shl_named_attr attr = prop("dot_dimension_numbers", dn);
  shl_value *r = NULL;
  shl_status st = bld_simple(b, OP_DOT_GENERAL, 2, v, NULL, 1, &attr, &r);
  return publish(st, r, out);
}

/* ------------------------------------------------------------------ compare, select */

static bool one_of(const char *s, const char *const *values) {
  for (; s && *values; values++)
    if (!strcmp(s, *values)) return true;
  return false;
}

shl_status shloc_build_compare(shloc_block *b, const char *direction, shloc_value *lhs, shloc_value *rhs,
                               const char *compare_type, shloc_value **out) {
  *out = NULL;
  const char *name = "stablehlo.compare";
  static const char *const dirs[] = {"EQ", "NE", "GE", "GT", "LE", "LT", NULL};
  static const char *const types[] = {"NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED", NULL};
  if (!b) return ARG_ERR(name, "block is NULL");
  if (!one_of(direction, dirs)) return ARG_ERR(name, "direction '%.16s' is not one of EQ, NE, GE, GT, LE, LT", direction ? direction : "(null)");
  if (compare_type && !one_of(compare_type, types))
    return ARG_ERR(name, "compare type '%.16s' is not one of FLOAT, TOTALORDER, SIGNED, UNSIGNED, NOTYPE", compare_type);
  shl_value *v[2];
  ST_TRY(value_in(name, "lhs", lhs, &v[0]));
  ST_TRY(value_in(name, "rhs", rhs, &v[1]));
  shl_named_attr attrs[2];
  const shl_attr *a;
  ST_TRY(bld_attr_fmt(b->m, &a, "#stablehlo<comparison_direction %s>", direction));
  attrs[0] = prop("comparison_direction", a);
  if (compare_type) {
    ST_TRY(bld_attr_fmt(b->m, &a, "#stablehlo<comparison_type %s>", compare_type));
    attrs[1] = prop("compare_type", a);
  }
  shl_value *r = NULL;
  shl_status st = bld_simple(b, OP_COMPARE, 2, v, NULL, compare_type ? 2 : 1, attrs, &r);
  return publish(st, r, out);
}

shl_status shloc_build_select(shloc_block *b, shloc_value *pred, shloc_value *on_true, shloc_value *on_false,
                              shloc_value **out) {
  *out = NULL;
  const char *name = "stablehlo.select";
  if (!b) return ARG_ERR(name, "block is NULL");
  shl_value *v[3];
  ST_TRY(value_in(name, "pred", pred, &v[0]));
  ST_TRY(value_in(name, "on_true", on_true, &v[1]));
  ST_TRY(value_in(name, "on_false", on_false, &v[2]));
  shl_value *r = NULL;
  shl_status st = bld_simple(b, OP_SELECT, 3, v, NULL, 0, NULL, &r);
  return publish(st, r, out);
}

/* ------------------------------------------------------------------ reduce */

shl_status shloc_build_reduce(shloc_block *b, uint32_t n, shloc_value *const *inputs, shloc_value *const *inits,
                              uint32_t n_dims, const int64_t *dims, shloc_region *body, shloc_value **results) {
  const char *name = "stablehlo.reduce";
  if (!b || !results) return ARG_ERR(name, "block or results array is NULL");
  if (!n || n > UINT32_MAX / 2 || !inputs || !inits || (n_dims && !dims))
    return ARG_ERR(name, "needs inputs, init values and dimensions");
  shl_value **v = ARENA_ARRAY(&b->m->arena, shl_value *, 2 * (size_t)n);
  if (!v) return st_oom();
  for (uint32_t i = 0; i < n; i++) {
    ST_TRY(value_in(name, "input", inputs[i], &v[i]));
    ST_TRY(value_in(name, "init value", inits[i], &v[n + i]));
  }
  const shl_attr *d;
  ST_TRY(dims_attr(b->m, dims, n_dims, &d));
  shl_named_attr attr = prop("dimensions", d);
  bld_spec s = {.def = &shl_op_table[OP_REDUCE], .name = str_of(name), .n_operands = 2 * n, .operands = v,
                .infer_results = true, .n_attrs = 1, .attrs = &attr, .n_regions = 1, .regions = &body};
  shl_op *op;
  ST_TRY(bld_op(b, &s, &op));
  for (uint32_t i = 0; i < n; i++) results[i] = val_out(&op->results[i]);
  return NULL;
}

shl_status shloc_build_reduce_with(shloc_block *b, shloc_value *input, shloc_value *init, const char *reducer,
                                   uint32_t n_dims, const int64_t *dims, shloc_value **out) {
  *out = NULL;
  const char *name = "stablehlo.reduce";
  if (!b) return ARG_ERR(name, "block is NULL");
  shl_value *x;
  ST_TRY(tensor_value(name, "input", input, &x));
  /* ^bb0(%a: tensor<T>, %b: tensor<T>): stablehlo.return reducer(%a, %b) */
  shl_type *elem = type_tensor(&b->m->arena, x->type->dtype, 0, NULL);
  if (!elem) return st_oom();
  elem->quant = x->type->quant;
  const shloc_type *argt[2] = {ty_out(elem), ty_out(elem)};
  shloc_region *body;
  ST_TRY(shloc_region_create(b, 2, argt, &body));
  shloc_value *acc;
  ST_TRY(shloc_build_binary(&body->body, reducer, shloc_region_arg(body, 0), shloc_region_arg(body, 1), &acc));
  ST_TRY(shloc_build_return(&body->body, 1, &acc));
  return shloc_build_reduce(b, 1, &input, &init, n_dims, dims, body, out);
}

/* ------------------------------------------------------------------ call, control flow */

shl_status shloc_build_call(shloc_block *b, const char *callee, uint32_t n, shloc_value *const *args,
                            shloc_op **out_op) {
  const char *name = "func.call";
  if (out_op) *out_op = NULL;
  if (!b || !callee || !*callee) return ARG_ERR(name, "block or callee is NULL");
  if (!module_find_func(b->m, str_of(callee))) return ARG_ERR(name, "no function '%.64s' in this module", callee);
  shl_value **v;
  ST_TRY(bld_values(name, "argument", n, args, &v, &b->m->arena));
  bld_text t = {0};
  bld_text_printf(&t, "@");
  bld_text_symbol(&t, callee, strlen(callee));
  const shl_attr *sym;
  ST_TRY(bld_text_attr(b->m, &t, &sym));
  shl_named_attr attr = prop("callee", sym);
  bld_spec s = {.def = &shl_op_table[OP_FUNC_CALL], .name = str_of(name), .n_operands = n, .operands = v,
                .infer_results = true, .n_attrs = 1, .attrs = &attr};
  shl_op *op = NULL;
  shl_status st = bld_op(b, &s, &op);
  return publish_op(st, op, out_op);
}

static shl_status region_op(shloc_block *b, shl_opid id, uint32_t n, shl_value **operands, uint32_t n_attrs,
                            const shl_named_attr *attrs, uint32_t n_regions, shloc_region **regions,
                            shloc_op **out_op) {
  bld_spec s = {.def = &shl_op_table[id], .name = str_of(shl_op_table[id].name), .n_operands = n,
                .operands = operands, .infer_results = true, .n_attrs = n_attrs, .attrs = attrs,
                .n_regions = n_regions, .regions = regions};
  shl_op *op = NULL;
  shl_status st = bld_op(b, &s, &op);
  return publish_op(st, op, out_op);
}

shl_status shloc_build_while(shloc_block *b, uint32_t n, shloc_value *const *init, shloc_region *cond,
                             shloc_region *body, shloc_op **out_op) {
  if (out_op) *out_op = NULL;
  if (!b) return ARG_ERR("stablehlo.while", "block is NULL");
  shl_value **v;
  ST_TRY(bld_values("stablehlo.while", "operand", n, init, &v, &b->m->arena));
  shloc_region *r[2] = {cond, body};
  return region_op(b, OP_WHILE, n, v, 0, NULL, 2, r, out_op);
}

shl_status shloc_build_if(shloc_block *b, shloc_value *pred, shloc_region *then_region, shloc_region *else_region,
                          shloc_op **out_op) {
  if (out_op) *out_op = NULL;
  if (!b) return ARG_ERR("stablehlo.if", "block is NULL");
  shl_value *p;
  ST_TRY(value_in("stablehlo.if", "pred", pred, &p));
  shloc_region *r[2] = {then_region, else_region};
  return region_op(b, OP_IF, 1, &p, 0, NULL, 2, r, out_op);
}

shl_status shloc_build_sort(shloc_block *b, uint32_t n, shloc_value *const *inputs, int64_t dimension, bool is_stable,
                            shloc_region *comparator, shloc_op **out_op) {
  if (out_op) *out_op = NULL;
  if (!b) return ARG_ERR("stablehlo.sort", "block is NULL");
  shl_value **v;
  ST_TRY(bld_values("stablehlo.sort", "input", n, inputs, &v, &b->m->arena));
  shl_attr *d = attr_int(&b->m->arena, type_scalar(&b->m->arena, DT_I64), dimension);
  shl_attr *stable = attr_bool(&b->m->arena, is_stable);
  if (!d || !d->type || !stable) return st_oom();
  shl_named_attr attrs[2] = {prop("dimension", d), prop("is_stable", stable)};
  return region_op(b, OP_SORT, n, v, 2, attrs, 1, &comparator, out_op);
}
