/* dot_general -> linalg.generic over (batch, lhs free, rhs free,
 * contracting) with a zero-filled accumulator; reduce (any number of
 * inputs) -> linalg.reduce and map -> linalg.generic, with the StableHLO
 * body inlined when it is a chain of elementwise ops. */
#include "passes/lower_linalg_emit.h"

#define LL_MAX_RANK 16

static void zero_fill(ll_emit *e, const shl_type *rt, uint32_t *out) {
  uint32_t z = dtype_is_complex(rt->dtype) ? ll_complex_zero(e, rt->dtype)
               : dtype_is_float(rt->dtype)  ? ll_cst_float(e, "0.0", rt->dtype)
                                            : ll_cst_int(e, 0, rt->dtype);
  uint32_t empty = ll_empty(e, rt);
  *out = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, *out);
  pr_puts(&e->pr, " = linalg.fill ins(");
  ll_tmp(e, z);
  pr_printf(&e->pr, " : %s) outs(", ll_dtype(rt->dtype));
  ll_tmp(e, empty);
  pr_puts(&e->pr, " : ");
  ll_type(e, rt);
  pr_puts(&e->pr, ") -> ");
  ll_type(e, rt);
}

static bool dims_field(const shl_attr *dn, const char *name, int64_t *out, size_t *n) {
  const shl_attr *f = attr_struct_field(dn, name);
  *n = 0;
  return !f || (attr_as_ints(f, out, LL_MAX_RANK, n) && *n <= LL_MAX_RANK);
}

static int find(const int64_t *v, size_t n, int64_t x) {
  for (size_t i = 0; i < n; i++)
    if (v[i] == x) return (int)i;
  return -1;
}

/* Iteration dimension of each operand dimension. */
static void operand_map(int rank, const int64_t *batch, size_t nb, const int64_t *contr, size_t nc, int free_base,
                        int contr_base, int64_t *map) {
  int f = 0;
  for (int j = 0; j < rank; j++) {
    int k;
    if ((k = find(batch, nb, j)) >= 0) map[j] = k;
    else if ((k = find(contr, nc, j)) >= 0) map[j] = contr_base + k;
    else map[j] = free_base + f++;
  }
}

shl_status ll_dot_general(ll_emit *e, const shl_op *op) {
  const shl_attr *dn = op_attr(op, "dot_dimension_numbers");
  int64_t lb[LL_MAX_RANK], rb[LL_MAX_RANK], lc[LL_MAX_RANK], rc[LL_MAX_RANK];
  size_t nlb, nrb, nlc, nrc;
  if (!dn || dn->kind != AT_STRUCT || !dims_field(dn, "lhs_batching_dimensions", lb, &nlb) ||
      !dims_field(dn, "rhs_batching_dimensions", rb, &nrb) || !dims_field(dn, "lhs_contracting_dimensions", lc, &nlc) ||
      !dims_field(dn, "rhs_contracting_dimensions", rc, &nrc) || nlb != nrb || nlc != nrc)
    return ll_refuse(op, "bad dot_dimension_numbers");
  const shl_type *lt = op->operands[0]->type, *rt_ = op->operands[1]->type, *out = op->results[0].type;
  int nb = (int)nlb, nc = (int)nlc, nlf = lt->rank - nb - nc, nrf = rt_->rank - nb - nc;
  int n_par = nb + nlf + nrf, n_all = n_par + nc;
  if (n_par != out->rank || n_all > LL_MAX_RANK) return ll_refuse(op, "bad dot_dimension_numbers");
  if ((dtype_is_complex(out->dtype) || dtype_is_complex(lt->dtype) || dtype_is_complex(rt_->dtype)) &&
      (lt->dtype != out->dtype || rt_->dtype != out->dtype))
    return ll_refuse(op, "complex products of mixed element types");
  for (int i = 0; i < 3; i++) {
    shl_dtype d = i == 0 ? lt->dtype : i == 1 ? rt_->dtype : out->dtype;
    if (ll_narrow_float(d) || ll_sub_byte_int(d)) return ll_refuse(op, "products of narrow element types");
  }
  bool blas;
  ST_TRY(ll_dot_blas(e, op, lb, rb, nlb, lc, rc, nlc, &blas));
  if (blas) return NULL;
  int64_t lmap[LL_MAX_RANK], rmap[LL_MAX_RANK];
  operand_map(lt->rank, lb, nlb, lc, nlc, nb, n_par, lmap);
  operand_map(rt_->rank, rb, nrb, rc, nrc, nb + nlf, n_par, rmap);
  int64_t omap[LL_MAX_RANK];
  bool red[LL_MAX_RANK];
  for (int i = 0; i < n_all; i++) {
    omap[i] = i;
    red[i] = i >= n_par;
  }
  /* f16/bf16 products accumulate in f32 and round once, as the interpreter does */
  shl_type acc_t = *out;
  if (out->dtype == DT_F16 || out->dtype == DT_BF16) acc_t.dtype = DT_F32;
  const shl_type *at = &acc_t;
  bool narrow = at->dtype != out->dtype;
  uint32_t acc, prod = 0;
  zero_fill(e, at, &acc);
  pr_newline(&e->pr);
  if (narrow) {
    prod = ll_fresh(e);
    ll_tmp(e, prod);
    pr_puts(&e->pr, " = ");
  } else {
    ll_results(e, op);
  }
  pr_puts(&e->pr, "linalg.generic {indexing_maps = [");
  ll_map(e, n_all, lmap, lt->rank);
  pr_puts(&e->pr, ", ");
  ll_map(e, n_all, rmap, rt_->rank);
  pr_puts(&e->pr, ", ");
  ll_map(e, n_all, omap, n_par);
  pr_puts(&e->pr, "], ");
  ll_iterators(e, n_all, red);
  pr_puts(&e->pr, "} ins(");
  ll_val(e, op->operands[0]);
  pr_puts(&e->pr, ", ");
  ll_val(e, op->operands[1]);
  pr_puts(&e->pr, " : ");
  ll_type(e, lt);
  pr_puts(&e->pr, ", ");
  ll_type(e, rt_);
  pr_puts(&e->pr, ") outs(");
  ll_tmp(e, acc);
  pr_puts(&e->pr, " : ");
  ll_type(e, at);
  pr_puts(&e->pr, ") {");
  pr_newline(&e->pr);
  uint32_t a = ll_fresh(e), b = ll_fresh(e), c = ll_fresh(e);
  pr_puts(&e->pr, "^bb0(");
  ll_tmp(e, a);
  pr_printf(&e->pr, ": %s, ", ll_dtype(lt->dtype));
  ll_tmp(e, b);
  pr_printf(&e->pr, ": %s, ", ll_dtype(rt_->dtype));
  ll_tmp(e, c);
  pr_printf(&e->pr, ": %s):", ll_dtype(at->dtype));
  e->pr.indent += 1;
  shl_dtype dt = at->dtype;
  uint32_t x = ll_convert(e, a, lt->dtype, dt), y = ll_convert(e, b, rt_->dtype, dt);
  bool fl = dtype_is_float(dt), bl = dtype_class(dt) == DTC_BOOL;
  uint32_t s;
  if (dtype_is_complex(dt)) {
    s = ll_complex_mul_add(e, c, x, y, dt);
  } else {
    uint32_t p = ll_bin(e, fl ? "arith.mulf" : bl ? "arith.andi" : "arith.muli", x, y, dt);
    s = ll_bin(e, fl ? "arith.addf" : bl ? "arith.ori" : "arith.addi", c, p, dt);
  }
  pr_newline(&e->pr);
  pr_puts(&e->pr, "linalg.yield ");
  ll_tmp(e, s);
  pr_printf(&e->pr, " : %s", ll_dtype(dt));
  e->pr.indent -= 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "} -> ");
  ll_type(e, at);
  if (!narrow) return NULL;
  uint32_t empty = ll_empty(e, out);
  pr_newline(&e->pr);
  ll_results(e, op);
  pr_puts(&e->pr, "linalg.generic {indexing_maps = [");
  ll_identity_map(e, out->rank);
  pr_puts(&e->pr, ", ");
  ll_identity_map(e, out->rank);
  pr_puts(&e->pr, "], ");
  ll_iterators(e, out->rank, NULL);
  pr_puts(&e->pr, "} ins(");
  ll_tmp(e, prod);
  pr_puts(&e->pr, " : ");
  ll_type(e, at);
  pr_puts(&e->pr, ") outs(");
  ll_tmp(e, empty);
  pr_puts(&e->pr, " : ");
  ll_type(e, out);
  pr_puts(&e->pr, ") {");
  pr_newline(&e->pr);
  uint32_t w = ll_fresh(e);
  pr_puts(&e->pr, "^bb0(");
  ll_tmp(e, w);
  pr_puts(&e->pr, ": f32, ");
  ll_tmp(e, ll_fresh(e));
  pr_printf(&e->pr, ": %s):", ll_dtype(out->dtype));
  e->pr.indent += 1;
  uint32_t rounded = ll_convert(e, w, DT_F32, out->dtype);
  pr_newline(&e->pr);
  pr_puts(&e->pr, "linalg.yield ");
  ll_tmp(e, rounded);
  pr_printf(&e->pr, " : %s", ll_dtype(out->dtype));
  e->pr.indent -= 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "} -> ");
  ll_type(e, out);
  return NULL;
}

/* Scalar number of a body value (v->id holds it + 1). */
static bool body_scalar(const shl_value *v, uint32_t *out) {
  if (!v->id) return false;
  *out = v->id - 1;
  return true;
}

/* Inlines a body of elementwise ops on rank-0 tensors (reduce, map):
 * block argument i is scalar args[i]; res[] gets the n_res returned
 * scalars. */
shl_status ll_inline_body(ll_emit *e, const shl_op *op, const shl_block *b, const uint32_t *args, uint32_t *res,
                          uint32_t n_res) {
  for (uint32_t i = 0; i < b->n_args; i++) ((shl_value *)&b->args[i])->id = args[i] + 1;
  for (const shl_op *o = b->first; o; o = o->next) {
    uint32_t in[3];
    if (o->n_operands > 3 && !(o->def->traits & T_TERM)) return ll_refuse(op, "the body has an op with too many operands");
    if (o->def->traits & T_TERM) {
      if (o->n_operands != n_res) return ll_refuse(op, "the body returns an unexpected number of values");
      for (uint32_t i = 0; i < n_res; i++)
        if (!body_scalar(o->operands[i], &res[i])) return ll_refuse(op, "the body returns an outer value");
      return NULL;
    }
    for (uint32_t i = 0; i < o->n_operands; i++)
      if (!body_scalar(o->operands[i], &in[i])) return ll_refuse(op, "the body uses an outer value");
    if (!ll_is_elementwise(o) || o->n_results != 1) return ll_refuse(op, "only elementwise bodies are inlined");
    ST_TRY(ll_check_types(o));
    uint32_t main_arg = op_is(o, OP_SELECT) || op_is(o, OP_CLAMP) ? 1 : 0;
    uint32_t r;
    ST_TRY(ll_scalar(e, o, in, o->operands[main_arg]->type->dtype, o->results[0].type->dtype, &r));
    ((shl_value *)&o->results[0])->id = r + 1;
  }
  return ll_refuse(op, "the body has no terminator");
}

/* linalg.reduce over N inputs with N inits (filled from the rank-0 init
 * operands); StableHLO's block takes (accumulators..., elements...),
 * linalg's (elements..., accumulators...). */
shl_status ll_reduce(ll_emit *e, const shl_op *op) {
  if (ll_reduce_split(e, op)) return NULL;
  uint32_t n = op->n_results;
  if (n == 0 || n > LL_MAX_RANK || op->n_operands != 2 * n) return ll_refuse(op, "unexpected reduce operands");
  if (op->n_regions != 1 || op->regions[0].n_blocks != 1 || op->regions[0].blocks[0]->n_args != 2 * n)
    return ll_refuse(op, "unexpected reduce body");
  int64_t dims[LL_MAX_RANK];
  size_t nd;
  const shl_attr *da = op_attr(op, "dimensions");
  if (!da || !attr_as_ints(da, dims, LL_MAX_RANK, &nd) || nd > LL_MAX_RANK) return ll_refuse(op, "bad dimensions");
  uint32_t filled[LL_MAX_RANK];
  for (uint32_t k = 0; k < n; k++) {
    const shl_type *rt = op->results[k].type;
    uint32_t init = ll_fresh(e);
    pr_newline(&e->pr);
    ll_tmp(e, init);
    pr_puts(&e->pr, " = tensor.extract ");
    ll_val(e, op->operands[n + k]);
    pr_puts(&e->pr, "[] : ");
    ll_type(e, op->operands[n + k]->type);
    uint32_t empty = ll_empty(e, rt);
    filled[k] = ll_fresh(e);
    pr_newline(&e->pr);
    ll_tmp(e, filled[k]);
    pr_puts(&e->pr, " = linalg.fill ins(");
    ll_tmp(e, init);
    pr_printf(&e->pr, " : %s) outs(", ll_dtype(rt->dtype));
    ll_tmp(e, empty);
    pr_puts(&e->pr, " : ");
    ll_type(e, rt);
    pr_puts(&e->pr, ") -> ");
    ll_type(e, rt);
  }
  pr_newline(&e->pr);
  ll_results(e, op);
  pr_puts(&e->pr, "linalg.reduce ins(");
  for (uint32_t k = 0; k < n; k++) {
    if (k) pr_puts(&e->pr, ", ");
    ll_val(e, op->operands[k]);
  }
  pr_puts(&e->pr, " : ");
  for (uint32_t k = 0; k < n; k++) {
    if (k) pr_puts(&e->pr, ", ");
    ll_type(e, op->operands[k]->type);
  }
  pr_puts(&e->pr, ") outs(");
  for (uint32_t k = 0; k < n; k++) {
    if (k) pr_puts(&e->pr, ", ");
    ll_tmp(e, filled[k]);
  }
  pr_puts(&e->pr, " : ");
  for (uint32_t k = 0; k < n; k++) {
    if (k) pr_puts(&e->pr, ", ");
    ll_type(e, op->results[k].type);
  }
  pr_puts(&e->pr, ") dimensions = [");
  for (size_t i = 0; i < nd; i++) pr_printf(&e->pr, "%s%lld", i ? ", " : "", (long long)dims[i]);
  pr_puts(&e->pr, "]");
  e->pr.indent += 1;
  pr_newline(&e->pr);
  uint32_t args[2 * LL_MAX_RANK], res[LL_MAX_RANK];
  pr_puts(&e->pr, "(");
  for (uint32_t k = 0; k < 2 * n; k++) { /* elements, then accumulators */
    uint32_t t = ll_fresh(e);
    const shl_type *ty = k < n ? op->operands[k]->type : op->results[k - n].type;
    args[k < n ? n + k : k - n] = t;
    if (k) pr_puts(&e->pr, ", ");
    ll_tmp(e, t);
    pr_printf(&e->pr, ": %s", ll_dtype(ty->dtype));
  }
  pr_puts(&e->pr, ") {");
  e->pr.indent += 1;
  ST_TRY(ll_inline_body(e, op, op->regions[0].blocks[0], args, res, n));
  pr_newline(&e->pr);
  pr_puts(&e->pr, "linalg.yield ");
  for (uint32_t k = 0; k < n; k++) {
    if (k) pr_puts(&e->pr, ", ");
    ll_tmp(e, res[k]);
  }
  pr_puts(&e->pr, " : ");
  for (uint32_t k = 0; k < n; k++) pr_printf(&e->pr, "%s%s", k ? ", " : "", ll_dtype(op->results[k].type->dtype));
  e->pr.indent -= 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "}");
  e->pr.indent -= 1;
  return NULL;
}

/* map -> linalg.generic over identical shapes with the body inlined (the
 * spec's `dimensions` are all of them). */
shl_status ll_map_op(ll_emit *e, const shl_op *op) {
  const shl_type *rt = op->results[0].type;
  uint32_t n = op->n_operands;
  if (n > LL_MAX_RANK || op->n_regions != 1 || op->regions[0].n_blocks != 1 || op->regions[0].blocks[0]->n_args != n)
    return ll_refuse(op, "unexpected map body");
  uint32_t empty = ll_empty(e, rt);
  ll_parallel_type(e, rt);
  pr_newline(&e->pr);
  ll_results(e, op);
  pr_puts(&e->pr, "linalg.generic {indexing_maps = [");
  for (uint32_t i = 0; i <= n; i++) {
    if (i) pr_puts(&e->pr, ", ");
    ll_identity_map(e, rt->rank);
  }
  pr_puts(&e->pr, "], ");
  ll_iterators(e, rt->rank, NULL);
  pr_puts(&e->pr, "} ins(");
  for (uint32_t i = 0; i < n; i++) {
    if (i) pr_puts(&e->pr, ", ");
    ll_val(e, op->operands[i]);
  }
  pr_puts(&e->pr, " : ");
  for (uint32_t i = 0; i < n; i++) {
    if (i) pr_puts(&e->pr, ", ");
    ll_type(e, op->operands[i]->type);
  }
  pr_puts(&e->pr, ") outs(");
  ll_tmp(e, empty);
  pr_puts(&e->pr, " : ");
  ll_type(e, rt);
  pr_puts(&e->pr, ") {");
  pr_newline(&e->pr);
  pr_puts(&e->pr, "^bb0(");
  uint32_t args[LL_MAX_RANK], res = 0;
  for (uint32_t i = 0; i < n; i++) {
    args[i] = ll_fresh(e);
    ll_tmp(e, args[i]);
    pr_printf(&e->pr, ": %s, ", ll_dtype(op->operands[i]->type->dtype));
  }
  ll_tmp(e, ll_fresh(e));
  pr_printf(&e->pr, ": %s):", ll_dtype(rt->dtype));
  e->pr.indent += 1;
  ST_TRY(ll_inline_body(e, op, op->regions[0].blocks[0], args, &res, 1));
  pr_newline(&e->pr);
  pr_puts(&e->pr, "linalg.yield ");
  ll_tmp(e, res);
  pr_printf(&e->pr, " : %s", ll_dtype(rt->dtype));
  e->pr.indent -= 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "} -> ");
  ll_type(e, rt);
  return NULL;
}
