/* gather -> linalg.generic over the result: the body reads the start
 * vector from the start indices (tensor.extract), clamps each start to
 * [0, operand dim - slice size] as the spec says, adds the batching and
 * offset coordinates and extracts the operand element.  Gathers of whole
 * rows are row copies instead (below). */
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

/* ---- whole rows ----
 *
 * `x[idx]` (one index per output row into dimension 0, whole rows:
 * offset_dims = [1, ...], collapsed_slice_dims = start_index_map = [0],
 * slice_sizes = [1, dims 1...], indices [N] or [N, 1]) copies rows: a loop
 * over N extracting row clamp(idx[n], 0, dim 0 - 1) and inserting it as
 * row n, so that each row is one contiguous copy (the element-wise body
 * reloaded and clamped the index for every element and stayed scalar).
 * Large gathers are an scf.forall (OpenMP threads), others an scf.for. */

static bool ints_from(const dim_list *l, int64_t first, size_t n) {
  if (l->n != n) return false;
  for (size_t i = 0; i < n; i++)
    if (l->v[i] != first + (int64_t)i) return false;
  return true;
}

static bool gather_rows_apply(const shl_op *op, const dim_list *offset, const dim_list *collapsed,
                              const dim_list *op_batch, const dim_list *start_map, const dim_list *sizes, int64_t ivd) {
  const shl_type *ot = op->operands[0]->type, *st = op->operands[1]->type, *rt = op->results[0].type;
  if (ot->rank < 1 || rt->rank != ot->rank || op_batch->n || !ints_from(offset, 1, (size_t)ot->rank - 1) ||
      !ints_from(collapsed, 0, 1) || !ints_from(start_map, 0, 1) || sizes->v[0] != 1)
    return false;
  /* indices [N] (index_vector_dim 1: implicit) or [N, 1] */
  bool idx_ok = ivd == 1 && (st->rank == 1 || (st->rank == 2 && st->dims[1] == 1));
  if (!idx_ok || rt->dims[0] != st->dims[0]) return false;
  for (int k = 1; k < ot->rank; k++)
    if (sizes->v[k] != ot->dims[k] || rt->dims[k] != ot->dims[k]) return false;
  return true;
}

static void gather_rows(ll_emit *e, const shl_op *op) {
  const shl_type *ot = op->operands[0]->type, *st = op->operands[1]->type, *rt = op->results[0].type;
  shl_dtype it = st->dtype;
  bool threads = ll_threads(e, type_num_elements(rt));
  uint32_t zero = cst_index(e, 0), last = cst_index(e, ot->dims[0] - 1), n = cst_index(e, rt->dims[0]);
  uint32_t one = threads ? 0 : cst_index(e, 1), init = ll_empty(e, rt), b = ll_fresh(e), acc = ll_fresh(e);
  pr_newline(&e->pr);
  ll_results(e, op);
  pr_puts(&e->pr, threads ? "scf.forall (" : "scf.for ");
  ll_tmp(e, b);
  pr_puts(&e->pr, threads ? ") in (" : " = ");
  if (!threads) {
    ll_tmp(e, zero);
    pr_puts(&e->pr, " to ");
  }
  ll_tmp(e, n);
  if (!threads) {
    pr_puts(&e->pr, " step ");
    ll_tmp(e, one);
  }
  pr_puts(&e->pr, threads ? ") shared_outs(" : " iter_args(");
  ll_tmp(e, acc);
  pr_puts(&e->pr, " = ");
  ll_tmp(e, init);
  pr_puts(&e->pr, ") -> (");
  ll_type(e, rt);
  pr_puts(&e->pr, ") {");
  e->pr.indent += 1;
  uint32_t sidx[2] = {b, zero};
  uint32_t s = extract(e, op->operands[1], sidx, st->rank), ix = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, ix);
  pr_printf(&e->pr, " = arith.%s ", dtype_class(it) == DTC_UINT ? "index_castui" : "index_cast");
  ll_tmp(e, s);
  pr_printf(&e->pr, " : %s to index", ll_dtype(it));
  ix = index_bin(e, "arith.minsi", index_bin(e, "arith.maxsi", ix, zero), last);
  uint32_t row = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, row);
  pr_puts(&e->pr, " = tensor.extract_slice ");
  ll_val(e, op->operands[0]);
  ll_row_window(e, ix, ot);
  pr_puts(&e->pr, " : ");
  ll_type(e, ot);
  pr_puts(&e->pr, " to ");
  ll_row_type(e, ot);
  uint32_t put = 0;
  pr_newline(&e->pr);
  if (threads) {
    pr_puts(&e->pr, "scf.forall.in_parallel {");
    e->pr.indent += 1;
    pr_newline(&e->pr);
    pr_puts(&e->pr, "tensor.parallel_insert_slice ");
  } else {
    put = ll_fresh(e);
    ll_tmp(e, put);
    pr_puts(&e->pr, " = tensor.insert_slice ");
  }
  ll_tmp(e, row);
  pr_puts(&e->pr, " into ");
  ll_tmp(e, acc);
  ll_row_window(e, b, rt);
  pr_puts(&e->pr, " : ");
  ll_row_type(e, ot);
  pr_puts(&e->pr, " into ");
  ll_type(e, rt);
  if (threads) {
    e->pr.indent -= 1;
    pr_newline(&e->pr);
    pr_puts(&e->pr, "}");
  } else {
    pr_newline(&e->pr);
    pr_puts(&e->pr, "scf.yield ");
    ll_tmp(e, put);
    pr_puts(&e->pr, " : ");
    ll_type(e, rt);
  }
  e->pr.indent -= 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "}");
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
  if (gather_rows_apply(op, &offset, &collapsed, &op_batch, &start_map, &sizes, ivd)) {
    gather_rows(e, op);
    return NULL;
  }
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
