/* ragged_dot, as upstream's ConvertRaggedDotOp (ChloLegalizeToStablehlo.cpp)
 * builds it for static shapes.  Group i covers [start_i, start_i + size_i)
 * of the lhs ragged dimension (start_0 = 0, per row of group_sizes' leading
 * dimensions); lhs is masked to that range (iota compared with the bounds,
 * select against zero) and multiplied by a dot_general:
 *   mode 1 (ragged free dim m):        + masked lhs . rhs[group i], summed over groups
 *   mode 2 (ragged contracting dim k): masked lhs . rhs per group, stacked on a new dim 0
 *   mode 3 (ragged batch dim):         one dot_general (groups do not interact)
 * The unrolled form grows with the group count, as upstream's does. */
#include "chlo_impl.h"

#define RD_MAX_RANK 64

static shl_named_attr named(const char *name, const shl_attr *a) { return (shl_named_attr){str_of(name), a, true}; }

typedef struct {
  int64_t v[RD_MAX_RANK];
  size_t n;
} rd_list;

static bool field(const shl_attr *dn, const char *name, rd_list *l) {
  const shl_attr *f = attr_struct_field(dn, name);
  l->n = 0;
  return !f || (attr_as_ints(f, NULL, 0, &l->n) && l->n <= RD_MAX_RANK && attr_as_ints(f, l->v, RD_MAX_RANK, &l->n));
}

static bool has(const rd_list *l, int64_t x) {
  for (size_t i = 0; i < l->n; i++)
    if (l->v[i] == x) return true;
  return false;
}

static shl_attr *intlist(cl_emit *e, const rd_list *l) {
  shl_attr *a = attr_new(e->a, AT_INTLIST);
  int64_t *v = ARENA_ARRAY(e->a, int64_t, l->n + 1);
  if (!a || !v) return NULL;
  memcpy(v, l->v, l->n * sizeof *v);
  a->u.ints.n = (uint32_t)l->n;
  a->u.ints.v = v;
  return a;
}

/* #stablehlo.dot<...>, empty lists left out as the parser stores them. */
static const shl_attr *dot_dims(cl_emit *e, const rd_list *lists) {
  static const char *const names[4] = {"lhs_batching_dimensions", "rhs_batching_dimensions",
                                       "lhs_contracting_dimensions", "rhs_contracting_dimensions"};
  shl_named_attr *f = ARENA_ARRAY(e->a, shl_named_attr, 4);
  shl_attr *st = attr_new(e->a, AT_STRUCT);
  if (!f || !st) return NULL;
  uint32_t n = 0;
  for (int k = 0; k < 4; k++) {
    if (!lists[k].n) continue;
    f[n] = named(names[k], intlist(e, &lists[k]));
    if (!f[n++].attr) return NULL;
  }
  st->u.st.name = str_of("stablehlo.dot");
  st->u.st.n = n;
  st->u.st.fields = f;
  return st;
}

/* chlo precision -> stablehlo precision (HIGHEST, HIGH, else DEFAULT). */
static const shl_attr *precision(cl_emit *e, const shl_attr *pc) {
  if (!pc || pc->kind != AT_ARRAY) return NULL;
  shl_attr *arr = attr_new(e->a, AT_ARRAY);
  const shl_attr **items = ARENA_ARRAY(e->a, const shl_attr *, pc->u.arr.n + 1);
  if (!arr || !items) return NULL;
  for (uint32_t i = 0; i < pc->u.arr.n; i++) {
    const shl_attr *p = pc->u.arr.items[i];
    shl_attr *en = attr_new(e->a, AT_ENUM);
    if (!en) return NULL;
    bool hi = p->kind == AT_ENUM && (str_eq_c(p->u.en.value, "HIGHEST") || str_eq_c(p->u.en.value, "HIGH"));
    en->u.en.dialect = str_of("stablehlo");
    en->u.en.name = str_of("precision");
    en->u.en.value = hi ? p->u.en.value : str_of("DEFAULT");
    items[i] = en;
  }
  arr->u.arr.n = pc->u.arr.n;
  arr->u.arr.items = items;
  return arr;
}

static shl_value *dot_general(cl_emit *e, shl_value *l, shl_value *r, const rd_list *dims, const shl_attr *prec,
                              const shl_type *rt) {
  shl_named_attr attrs[2] = {named("dot_dimension_numbers", dot_dims(e, dims)), named("precision_config", prec)};
  if (!attrs[0].attr) return cl_fail(e, "out of memory");
  shl_value *ops[2] = {l, r};
  return cl_op(e, OP_DOT_GENERAL, 2, ops, rt, prec ? 2 : 1, attrs);
}

/* slice [start, limit) of v with unit strides. */
static shl_value *slice(cl_emit *e, shl_value *v, const int64_t *start, const int64_t *limit) {
  int32_t rank = v->type->rank;
  int64_t stride[RD_MAX_RANK], dims[RD_MAX_RANK];
  for (int32_t d = 0; d < rank; d++) {
    stride[d] = 1;
    dims[d] = limit[d] - start[d];
  }
  shl_named_attr attrs[3] = {named("limit_indices", attr_dense_array_i64(e->a, limit, rank)),
                             named("start_indices", attr_dense_array_i64(e->a, start, rank)),
                             named("strides", attr_dense_array_i64(e->a, stride, rank))};
  if (!attrs[0].attr || !attrs[1].attr || !attrs[2].attr) return cl_fail(e, "out of memory");
  return cl_op(e, OP_SLICE, 1, &v, type_tensor(e->a, v->type->dtype, rank, dims), 3, attrs);
}

static shl_value *reshape(cl_emit *e, shl_value *v, shl_dtype dt, int32_t rank, const int64_t *dims) {
  if (!v) return NULL;
  return cl_op(e, OP_RESHAPE, 1, &v, type_tensor(e->a, dt, rank, dims), 0, NULL);
}

static shl_value *broadcast(cl_emit *e, shl_value *v, const shl_type *to, const int64_t *bdims, int64_t n) {
  if (!v) return NULL;
  shl_named_attr bd = named("broadcast_dimensions", attr_dense_array_i64(e->a, bdims, n));
  if (!bd.attr) return cl_fail(e, "out of memory");
  return cl_op(e, OP_BROADCAST_IN_DIM, 1, &v, to, 1, &bd);
}

typedef struct {
  shl_value *lhs, *gs, *iota, *zero;
  const shl_type *mask_t; /* lhs's shape, i64 */
  int64_t bdims[RD_MAX_RANK]; /* lhs dims of group_sizes' leading dims */
  int32_t nb;                 /* their count (group_sizes rank - 1) */
} rd_mask;

/* The size of group i as i64 [leading dims of group_sizes]. */
static shl_value *group_size(cl_emit *e, const rd_mask *m, int64_t i) {
  const shl_type *gt = m->gs->type;
  int64_t start[RD_MAX_RANK] = {0}, limit[RD_MAX_RANK];
  for (int32_t d = 0; d < gt->rank; d++) limit[d] = gt->dims[d];
  start[gt->rank - 1] = i;
  limit[gt->rank - 1] = i + 1;
  shl_value *s = reshape(e, slice(e, m->gs, start, limit), gt->dtype, m->nb, gt->dims);
  return s && gt->dtype != DT_I64 ? cl_convert(e, s, DT_I64) : s;
}

/* lhs where start <= iota < limit, else zero. */
static shl_value *masked(cl_emit *e, const rd_mask *m, shl_value *start, shl_value *limit) {
  int64_t all[RD_MAX_RANK];
  for (int32_t d = 0; d < m->mask_t->rank; d++) all[d] = d;
  shl_value *lo = broadcast(e, start, m->mask_t, m->bdims, m->nb);
  shl_value *hi = broadcast(e, limit, m->mask_t, m->bdims, m->nb);
  shl_value *it = broadcast(e, m->iota, m->mask_t, all, m->mask_t->rank);
  shl_value *in = cl_and(e, cl_cmp(e, "GE", it, lo), cl_cmp(e, "LT", it, hi));
  return cl_select(e, in, m->lhs, m->zero);
}

void cl_rule_ragged_dot(cl_emit *e, const shl_op *op, shl_value **res) {
  shl_value *lhs = op->operands[0], *rhs = op->operands[1], *gs = op->operands[2];
  const shl_type *lt = lhs->type, *rt = rhs->type, *gt = gs->type, *ot = op->results[0].type;
  if (!type_is_static(lt) || !type_is_static(rt) || !type_is_static(gt) || !type_is_static(ot)) {
    cl_fail(e, "has a dynamic shape; the CHLO decomposition handles static shapes only");
    return;
  }
  if (lt->rank > RD_MAX_RANK || rt->rank > RD_MAX_RANK || gt->rank < 1 || ot->rank >= RD_MAX_RANK) {
    cl_fail(e, "has rank over %d, which the CHLO decomposition does not handle", RD_MAX_RANK);
    return;
  }
  const shl_attr *dn = op_attr(op, "ragged_dot_dimension_numbers");
  rd_list dims[4], ragged, group;
  static const char *const names[4] = {"lhs_batching_dimensions", "rhs_batching_dimensions",
                                       "lhs_contracting_dimensions", "rhs_contracting_dimensions"};
  bool ok = dn && field(dn, "lhs_ragged_dimensions", &ragged) && field(dn, "rhs_group_dimensions", &group);
  for (int k = 0; k < 4 && ok; k++) ok = field(dn, names[k], &dims[k]);
  if (!ok || ragged.n != 1) {
    cl_fail(e, "has malformed ragged_dot_dimension_numbers");
    return;
  }
  const shl_attr *prec = op_attr(op, "precision_config");
  prec = prec ? precision(e, prec) : NULL;
  if (op_attr(op, "precision_config") && !prec) {
    cl_fail(e, "has a malformed precision_config");
    return;
  }
  int64_t rd = ragged.v[0];
  if (has(&dims[0], rd)) {
    res[0] = dot_general(e, lhs, rhs, dims, prec, ot);
    return;
  }
  bool contracting = has(&dims[2], rd);
  if (!contracting && group.n != 1) {
    cl_fail(e, "has malformed ragged_dot_dimension_numbers");
    return;
  }

  rd_mask m = {.lhs = lhs, .gs = gs, .mask_t = cl_type_like(e, lt, DT_I64), .nb = gt->rank - 1};
  /* group_sizes' leading dims follow the lhs batching dims, then the lhs
   * contracting (mode 2) or free (mode 1) dims before the ragged one, as the
   * verifier checks; upstream broadcasts them to lhs dims 0.. in order, the
   * same dims in the usual layouts. */
  int32_t nb = 0;
  for (size_t i = 0; i < dims[0].n && nb < m.nb; i++) m.bdims[nb++] = dims[0].v[i];
  for (int64_t d = 0; d < rd && nb < m.nb; d++)
    if (!has(&dims[0], d) && has(&dims[2], d) == contracting) m.bdims[nb++] = d;
  if (nb != m.nb) {
    cl_fail(e, "has group_sizes of rank %d that does not fit its dimension numbers", gt->rank);
    return;
  }
  int64_t iota_dims[RD_MAX_RANK];
  for (int32_t d = 0; d < lt->rank; d++) iota_dims[d] = d == rd ? lt->dims[d] : 1;
  shl_named_attr iota_dim = named("iota_dimension", attr_int(e->a, type_scalar(e->a, DT_I64), rd));
  if (!iota_dim.attr) {
    cl_fail(e, "out of memory");
    return;
  }
  m.iota = cl_op(e, OP_IOTA, 0, NULL, type_tensor(e->a, DT_I64, lt->rank, iota_dims), 1, &iota_dim);
  m.zero = cl_const(e, lhs, 0.0);
  /* start_0: zeros shaped like one group's sizes. */
  shl_value like = {.type = type_tensor(e->a, DT_I64, m.nb, gt->dims)};
  shl_value *start = like.type ? cl_const(e, &like, 0.0) : cl_fail(e, "out of memory");
  int64_t g = gt->dims[gt->rank - 1];
  if (g < 1) {
    cl_fail(e, "has no groups; the CHLO decomposition needs at least one");
    return;
  }
  if (!contracting) {
    /* Mode 1: rhs without its group dim; dims after it shift down by one. */
    int64_t gd = group.v[0];
    rd_list rdims[4] = {dims[0], dims[1], dims[2], dims[3]};
    for (int k = 1; k < 4; k += 2)
      for (size_t i = 0; i < rdims[k].n; i++) rdims[k].v[i] -= rdims[k].v[i] > gd;
    int64_t sdims[RD_MAX_RANK];
    int32_t ns = 0;
    for (int32_t d = 0; d < rt->rank; d++)
      if (d != gd) sdims[ns++] = rt->dims[d];
    shl_value *out = NULL;
    for (int64_t i = 0; i < g && !e->st; i++) {
      shl_value *limit = cl_add(e, start, group_size(e, &m, i));
      shl_value *lm = masked(e, &m, start, limit);
      int64_t s0[RD_MAX_RANK] = {0}, s1[RD_MAX_RANK];
      for (int32_t d = 0; d < rt->rank; d++) s1[d] = rt->dims[d];
      s0[gd] = i;
      s1[gd] = i + 1;
      shl_value *ri = reshape(e, slice(e, rhs, s0, s1), rt->dtype, ns, sdims);
      shl_value *d = dot_general(e, lm, ri, rdims, prec, ot);
      out = out ? cl_add(e, out, d) : d;
      start = limit;
    }
    res[0] = out;
    return;
  }
  /* Mode 2: one dot_general per group, each reshaped to [1, ...] and
   * concatenated along the new dim 0. */
  shl_value **parts = ARENA_ARRAY(e->a, shl_value *, (size_t)g + 1);
  const shl_type *pt = type_tensor(e->a, ot->dtype, ot->rank - 1, ot->dims + 1);
  if (!parts || !pt) {
    cl_fail(e, "out of memory");
    return;
  }
  for (int64_t i = 0; i < g && !e->st; i++) {
    shl_value *limit = cl_add(e, start, group_size(e, &m, i));
    parts[i] = dot_general(e, masked(e, &m, start, limit), rhs, dims, prec, pt);
    start = limit;
  }
  int64_t one_dims[RD_MAX_RANK];
  one_dims[0] = 1;
  for (int32_t d = 1; d < ot->rank; d++) one_dims[d] = ot->dims[d];
  for (int64_t i = 0; i < g && !e->st; i++) parts[i] = reshape(e, parts[i], ot->dtype, ot->rank, one_dims);
  shl_named_attr cat = named("dimension", attr_int(e->a, type_scalar(e->a, DT_I64), 0));
  if (e->st) return;
  if (!cat.attr) {
    cl_fail(e, "out of memory");
    return;
  }
  res[0] = cl_op(e, OP_CONCATENATE, (uint32_t)g, parts, ot, 1, &cat);
}
