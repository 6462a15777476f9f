/* gather -> linalg.generic over the result: the body reads the start
 * vector from the start indices (tensor.extract), clamps each start to
 * [0, operand dim - slice size] as the spec says, adds the batching and
 * offset coordinates and extracts the operand element. */
#include "passes/lower_linalg_emit.h"

#define LL_MAX_RANK 16

typedef struct {
  int64_t v[LL_MAX_RANK];
  size_t n;
} dim_list;

static bool field(const shl_attr *dn, const char *name, dim_list *out) {
  const shl_attr *f = attr_struct_field(dn, name);
  out->n = 0;
  return !f || (attr_as_ints(f, out->v, LL_MAX_RANK, &out->n) && out->n <= LL_MAX_RANK);
}

static int find(const dim_list *l, int64_t x) {
  for (size_t i = 0; i < l->n; i++)
    if (l->v[i] == x) return (int)i;
  return -1;
}

static uint32_t cst_index(ll_emit *e, int64_t v) {
  uint32_t r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_printf(&e->pr, " = arith.constant %lld : index", (long long)v);
  return r;
}

static uint32_t index_bin(ll_emit *e, const char *opname, uint32_t a, uint32_t b) {
  uint32_t r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_printf(&e->pr, " = %s ", opname);
  ll_tmp(e, a);
  pr_puts(&e->pr, ", ");
  ll_tmp(e, b);
  pr_puts(&e->pr, " : index");
  return r;
}

/* %r = tensor.extract %t[idx...] : T */
static uint32_t extract(ll_emit *e, const shl_value *t, const uint32_t *idx, int n) {
  uint32_t r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_puts(&e->pr, " = tensor.extract ");
  ll_val(e, t);
  pr_puts(&e->pr, "[");
  for (int i = 0; i < n; i++) {
    if (i) pr_puts(&e->pr, ", ");
    ll_tmp(e, idx[i]);
  }
  pr_puts(&e->pr, "] : ");
  ll_type(e, t->type);
  return r;
}

shl_status ll_gather(ll_emit *e, const shl_op *op) {
  const shl_type *ot = op->operands[0]->type, *st = op->operands[1]->type, *rt = op->results[0].type;
  const shl_attr *dn = op_attr(op, "dimension_numbers");
  dim_list offset, collapsed, op_batch, si_batch, start_map, sizes;
  int64_t ivd = 0; /* the attribute's default */
  if (!dn || dn->kind != AT_STRUCT || !field(dn, "offset_dims", &offset) || !field(dn, "collapsed_slice_dims", &collapsed) ||
      !field(dn, "operand_batching_dims", &op_batch) || !field(dn, "start_indices_batching_dims", &si_batch) ||
      !field(dn, "start_index_map", &start_map) || op_batch.n != si_batch.n)
    return ll_refuse(op, "bad dimension_numbers");
  attr_as_int(attr_struct_field(dn, "index_vector_dim"), &ivd);
  const shl_attr *ss = op_attr(op, "slice_sizes");
  if (!ss || !attr_as_ints(ss, sizes.v, LL_MAX_RANK, &sizes.n) || sizes.n != (size_t)ot->rank)
    return ll_refuse(op, "bad slice_sizes");
  shl_dtype it = st->dtype;
  if (!ll_native_dtype(it) && dtype_class(it) != DTC_UINT) return ll_refuse(op, "start index type");
  if (rt->rank > LL_MAX_RANK || st->rank > LL_MAX_RANK || ot->rank > LL_MAX_RANK) return ll_refuse(op, "rank too large");
  const char *et = ll_dtype(type_storage_dtype(rt));
  ll_generic_outs_open(e, op, rt, et);
  e->pr.indent += 1;
  uint32_t r[LL_MAX_RANK];
  for (int d = 0; d < rt->rank; d++) {
    r[d] = ll_fresh(e);
    pr_newline(&e->pr);
    ll_tmp(e, r[d]);
    pr_printf(&e->pr, " = linalg.index %d : index", d);
  }
  /* batch coordinates: result dims outside offset_dims, in order, are the
   * start-indices dims other than index_vector_dim */
  uint32_t sidx[LL_MAX_RANK];
  int nb = 0;
  for (int d = 0; d < rt->rank; d++) {
    if (find(&offset, d) >= 0) continue;
    int sd = nb < ivd ? nb : nb + 1;
    if (sd >= st->rank) return ll_refuse(op, "batch dimensions do not match the start indices");
    sidx[sd] = r[d];
    nb++;
  }
  if (nb + (ivd < st->rank ? 1 : 0) != st->rank) return ll_refuse(op, "batch dimensions do not match the start indices");
  uint32_t zero = cst_index(e, 0), oidx[LL_MAX_RANK];
  for (int d = 0; d < ot->rank; d++) oidx[d] = zero;
  for (size_t k = 0; k < start_map.n; k++) {
    if (ivd < st->rank) sidx[ivd] = cst_index(e, (int64_t)k);
    uint32_t s = extract(e, op->operands[1], sidx, st->rank), ix = ll_fresh(e);
    pr_newline(&e->pr);
    ll_tmp(e, ix);
    pr_printf(&e->pr, " = arith.%s ", dtype_class(it) == DTC_UINT ? "index_castui" : "index_cast");
    ll_tmp(e, s);
    pr_printf(&e->pr, " : %s to index", ll_dtype(it));
    int64_t od = start_map.v[k];
    if (od < 0 || od >= ot->rank) return ll_refuse(op, "start_index_map out of range");
    ix = index_bin(e, "arith.maxsi", ix, zero);
    ix = index_bin(e, "arith.minsi", ix, cst_index(e, ot->dims[od] - sizes.v[od]));
    oidx[od] = ix;
  }
  for (size_t i = 0; i < op_batch.n; i++) { /* operand batching dim <- its start-indices batch coordinate */
    int64_t od = op_batch.v[i], sd = si_batch.v[i];
    if (od < 0 || od >= ot->rank || sd < 0 || sd >= st->rank || sd == ivd) return ll_refuse(op, "bad batching dims");
    oidx[od] = index_bin(e, "arith.addi", oidx[od], sidx[sd]);
  }
  /* offset_dims[i] <- the i-th operand dim neither collapsed nor batching */
  int od = 0;
  for (size_t i = 0; i < offset.n; i++) {
    while (od < ot->rank && (find(&collapsed, od) >= 0 || find(&op_batch, od) >= 0)) od++;
    if (od >= ot->rank || offset.v[i] < 0 || offset.v[i] >= rt->rank) return ll_refuse(op, "bad offset_dims");
    oidx[od] = index_bin(e, "arith.addi", oidx[od], r[offset.v[i]]);
    od++;
  }
  uint32_t v = extract(e, op->operands[0], oidx, ot->rank);
  pr_newline(&e->pr);
  pr_puts(&e->pr, "linalg.yield ");
  ll_tmp(e, v);
  pr_printf(&e->pr, " : %s", et);
  e->pr.indent -= 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "} -> ");
  ll_type(e, rt);
  return NULL;
}
