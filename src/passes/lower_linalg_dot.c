/* dot_general -> linalg.generic over (batch, lhs free, rhs free,
 * contracting) with a zero-filled accumulator; reduce -> linalg.reduce with
 * the StableHLO body inlined when it is a chain of elementwise ops. */
#include "passes/lower_linalg_emit.h"

#define LL_MAX_RANK 16

static void zero_fill(ll_emit *e, const shl_type *rt, uint32_t *out) {
  uint32_t z = dtype_is_float(rt->dtype) ? ll_cst_float(e, "0.0", rt->dtype) : ll_cst_int(e, 0, rt->dtype);
  uint32_t empty = ll_empty(e, rt);
  *out = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, *out);
  pr_puts(&e->pr, " = linalg.fill ins(");
  ll_tmp(e, z);
  pr_printf(&e->pr, " : %s) outs(", dtype_name(rt->dtype));
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
  uint32_t acc;
  zero_fill(e, out, &acc);
  pr_newline(&e->pr);
  ll_results(e, op);
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
  ll_type(e, out);
  pr_puts(&e->pr, ") {");
  pr_newline(&e->pr);
  uint32_t a = ll_fresh(e), b = ll_fresh(e), c = ll_fresh(e);
  pr_puts(&e->pr, "^bb0(");
  ll_tmp(e, a);
  pr_printf(&e->pr, ": %s, ", dtype_name(lt->dtype));
  ll_tmp(e, b);
  pr_printf(&e->pr, ": %s, ", dtype_name(rt_->dtype));
  ll_tmp(e, c);
  pr_printf(&e->pr, ": %s):", dtype_name(out->dtype));
  e->pr.indent += 1;
  shl_dtype dt = out->dtype;
  uint32_t x = ll_convert(e, a, lt->dtype, dt), y = ll_convert(e, b, rt_->dtype, dt);
  bool fl = dtype_is_float(dt), bl = dtype_class(dt) == DTC_BOOL;
  uint32_t p = ll_bin(e, fl ? "arith.mulf" : bl ? "arith.andi" : "arith.muli", x, y, dt);
  uint32_t s = ll_bin(e, fl ? "arith.addf" : bl ? "arith.ori" : "arith.addi", c, p, dt);
  pr_newline(&e->pr);
  pr_puts(&e->pr, "linalg.yield ");
  ll_tmp(e, s);
  pr_printf(&e->pr, " : %s", dtype_name(dt));
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

/* Inlines a reduce body: (acc, x) block arguments are linalg.reduce's
 * (init, in) arguments swapped; every op must be elementwise on rank 0. */
static shl_status reduce_body(ll_emit *e, const shl_op *op, const shl_block *b, uint32_t in_arg, uint32_t acc_arg,
                              uint32_t *res) {
  ((shl_value *)&b->args[0])->id = acc_arg + 1;
  ((shl_value *)&b->args[1])->id = in_arg + 1;
  for (const shl_op *o = b->first; o; o = o->next) {
    uint32_t args[3];
    if (o->n_operands > 3) return ll_refuse(op, "the reduce body has an op with too many operands");
    for (uint32_t i = 0; i < o->n_operands; i++)
      if (!body_scalar(o->operands[i], &args[i])) return ll_refuse(o, "the reduce body uses an outer value");
    if (o->def->traits & T_TERM) {
      if (o->n_operands != 1) return ll_refuse(op, "only single-result reduces are covered");
      *res = args[0];
      return NULL;
    }
    if (!ll_is_elementwise(o) || o->n_results != 1) return ll_refuse(o, "only elementwise reduce bodies are covered");
    ST_TRY(ll_check_types(o));
    uint32_t main_arg = op_is(o, OP_SELECT) || op_is(o, OP_CLAMP) ? 1 : 0;
    uint32_t r;
    ST_TRY(ll_scalar(e, o, args, o->operands[main_arg]->type->dtype, o->results[0].type->dtype, &r));
    ((shl_value *)&o->results[0])->id = r + 1;
  }
  return ll_refuse(op, "the reduce body has no terminator");
}

shl_status ll_reduce(ll_emit *e, const shl_op *op) {
  if (op->n_operands != 2 || op->n_results != 1) return ll_refuse(op, "only single-input reduces are covered");
  if (op->n_regions != 1 || op->regions[0].n_blocks != 1 || op->regions[0].blocks[0]->n_args != 2)
    return ll_refuse(op, "unexpected reduce body");
  int64_t dims[LL_MAX_RANK];
  size_t n;
  const shl_attr *da = op_attr(op, "dimensions");
  if (!da || !attr_as_ints(da, dims, LL_MAX_RANK, &n) || n > LL_MAX_RANK) return ll_refuse(op, "bad dimensions");
  const shl_type *it = op->operands[0]->type, *rt = op->results[0].type;
  shl_dtype dt = rt->dtype;
  uint32_t init = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, init);
  pr_puts(&e->pr, " = tensor.extract ");
  ll_val(e, op->operands[1]);
  pr_puts(&e->pr, "[] : ");
  ll_type(e, op->operands[1]->type);
  uint32_t empty = ll_empty(e, rt), filled = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, filled);
  pr_puts(&e->pr, " = linalg.fill ins(");
  ll_tmp(e, init);
  pr_printf(&e->pr, " : %s) outs(", dtype_name(dt));
  ll_tmp(e, empty);
  pr_puts(&e->pr, " : ");
  ll_type(e, rt);
  pr_puts(&e->pr, ") -> ");
  ll_type(e, rt);
  pr_newline(&e->pr);
  ll_results(e, op);
  pr_puts(&e->pr, "linalg.reduce ins(");
  ll_val(e, op->operands[0]);
  pr_puts(&e->pr, " : ");
  ll_type(e, it);
  pr_puts(&e->pr, ") outs(");
  ll_tmp(e, filled);
  pr_puts(&e->pr, " : ");
  ll_type(e, rt);
  pr_puts(&e->pr, ") dimensions = [");
  for (size_t i = 0; i < n; i++) pr_printf(&e->pr, "%s%lld", i ? ", " : "", (long long)dims[i]);
  pr_puts(&e->pr, "]");
  e->pr.indent += 1;
  pr_newline(&e->pr);
  uint32_t x = ll_fresh(e), acc = ll_fresh(e);
  pr_puts(&e->pr, "(");
  ll_tmp(e, x);
  pr_printf(&e->pr, ": %s, ", dtype_name(it->dtype));
  ll_tmp(e, acc);
  pr_printf(&e->pr, ": %s) {", dtype_name(dt));
  e->pr.indent += 1;
  uint32_t res = 0;
  ST_TRY(reduce_body(e, op, op->regions[0].blocks[0], x, acc, &res));
  pr_newline(&e->pr);
  pr_puts(&e->pr, "linalg.yield ");
  ll_tmp(e, res);
  pr_printf(&e->pr, " : %s", dtype_name(dt));
  e->pr.indent -= 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "}");
  e->pr.indent -= 1;
  return NULL;
}
