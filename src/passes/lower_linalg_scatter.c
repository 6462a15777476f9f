/* scatter of whole rows -> scf.for over the updates (lower_linalg_index.c
 * dispatches here; other scatters are refused and go through shloc_rt_op).
 *
 * The pattern is the one jnp's `x.at[idx].add(rows)` / `.set(rows)` gives:
 * one operand, indices [N] or [N, 1] into dimension 0
 * (inserted_window_dims = scatter_dims_to_operand_dims = [0]), updates
 * [N, operand dims 1...] (update_window_dims = [1, ...]).  Update n
 * combines row idx[n] with the body, in order of n, and is skipped when
 * idx[n] is outside [0, dim 0) (the spec: a window not fully inside the
 * operand is dropped).  The loop carries the operand, which bufferization
 * updates in place when nothing reads it afterwards (the call-out copied
 * it first).  Updates broadcast along the update index are read from the
 * broadcast's operand. */
#include "passes/lower_linalg_emit.h"

#define LL_MAX_RANK 16

static bool ints_are(const shl_attr *dn, const char *name, int64_t first, size_t n) {
  int64_t v[LL_MAX_RANK];
  size_t got = 0;
  const shl_attr *f = attr_struct_field(dn, name);
  if (!f) return n == 0;
  if (!attr_as_ints(f, v, LL_MAX_RANK, &got) || got != n) return false;
  for (size_t i = 0; i < n; i++)
    if (v[i] != first + (int64_t)i) return false;
  return true;
}

void ll_row_window(ll_emit *e, uint32_t at, const shl_type *t) {
  pr_puts(&e->pr, "[");
  ll_tmp(e, at);
  for (int k = 1; k < t->rank; k++) pr_puts(&e->pr, ", 0");
  pr_puts(&e->pr, "] [1");
  for (int k = 1; k < t->rank; k++) pr_printf(&e->pr, ", %lld", (long long)t->dims[k]);
  pr_puts(&e->pr, "] [1");
  for (int k = 1; k < t->rank; k++) pr_puts(&e->pr, ", 1");
  pr_puts(&e->pr, "]");
}

void ll_row_type(ll_emit *e, const shl_type *t) {
  pr_puts(&e->pr, "tensor<1");
  for (int k = 1; k < t->rank; k++) pr_printf(&e->pr, "x%lld", (long long)t->dims[k]);
  pr_printf(&e->pr, "x%s>", ll_dtype(t->dtype));
}

/* Updates that are a broadcast along dimension 0 (every update row the
 * same, as `x.at[idx].add(1.0)` gives): the broadcast's operand, read by the
 * row's generic through map[] (per operand dimension: the update dimension,
 * or -1 for a size-1 dimension that broadcasts), so that the updates are
 * never materialized.  NULL for other updates. */
static const shl_value *row_invariant_updates(const shl_value *u, int64_t *map) {
  const shl_op *d = u->def;
  int64_t bd[LL_MAX_RANK];
  size_t n = 0;
  if (!d || !op_is(d, OP_BROADCAST_IN_DIM)) return NULL;
  const shl_type *st = d->operands[0]->type;
  if (!attr_as_ints(op_attr(d, "broadcast_dimensions"), bd, LL_MAX_RANK, &n) || n != (size_t)st->rank ||
      st->dtype != u->type->dtype)
    return NULL;
  for (size_t k = 0; k < n; k++) {
    if (bd[k] < 0 || bd[k] >= u->type->rank) return NULL;
    map[k] = st->dims[k] == u->type->dims[bd[k]] ? bd[k] : -1;
    if (map[k] == 0) return NULL; /* the row depends on the update index */
  }
  return d->operands[0];
}

static uint32_t line_start(ll_emit *e) {
  uint32_t r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  return r;
}

shl_status ll_scatter_rows(ll_emit *e, const shl_op *op) {
  if (op->n_operands != 3 || op->n_results != 1) return ll_refuse(op, "only one-operand row scatters are native");
  const shl_type *ot = op->operands[0]->type, *it = op->operands[1]->type, *ut = op->operands[2]->type;
  const shl_attr *dn = op_attr(op, "scatter_dimension_numbers");
  int64_t ivd = 0;
  if (dn) attr_as_int(attr_struct_field(dn, "index_vector_dim"), &ivd);
  bool idx_ok = it->rank >= 1 && ivd == 1 && (it->rank == 1 || (it->rank == 2 && it->dims[1] == 1));
  bool dims_ok = dn && dn->kind == AT_STRUCT && ot->rank >= 1 && ot->rank <= LL_MAX_RANK &&
                 ints_are(dn, "update_window_dims", 1, (size_t)ot->rank - 1) && ints_are(dn, "inserted_window_dims", 0, 1) &&
                 ints_are(dn, "scatter_dims_to_operand_dims", 0, 1) && ints_are(dn, "input_batching_dims", 0, 0) &&
                 ints_are(dn, "scatter_indices_batching_dims", 0, 0);
  bool shape_ok = idx_ok && ut->rank == ot->rank && ut->dims[0] == it->dims[0];
  for (int k = 1; shape_ok && k < ot->rank; k++) shape_ok = ut->dims[k] == ot->dims[k];
  shl_dtype xt = it->dtype;
  bool types_ok = ll_native_dtype(ot->dtype) && ut->dtype == ot->dtype && xt != DT_I1 &&
                  (dtype_class(xt) == DTC_SINT || dtype_class(xt) == DTC_UINT) && dtype_bits(xt) >= 8;
  if (!dims_ok || !shape_ok || !types_ok || op->n_regions != 1 || op->regions[0].n_blocks != 1 ||
      op->regions[0].blocks[0]->n_args != 2)
    return ll_refuse(op, "only row scatters (x.at[idx] with whole rows) are native");
  const char *et = ll_dtype(ot->dtype), *xs = ll_dtype(xt);
  uint32_t c0 = line_start(e);
  pr_puts(&e->pr, " = arith.constant 0 : index");
  uint32_t c1 = line_start(e);
  pr_puts(&e->pr, " = arith.constant 1 : index");
  uint32_t cn = line_start(e);
  pr_printf(&e->pr, " = arith.constant %lld : index", (long long)it->dims[0]);
  uint32_t lo = line_start(e);
  pr_puts(&e->pr, " = arith.constant 0 : i64");
  uint32_t hi = line_start(e);
  pr_printf(&e->pr, " = arith.constant %lld : i64", (long long)ot->dims[0]);
  uint32_t n = ll_fresh(e), acc = ll_fresh(e);
  pr_newline(&e->pr);
  ll_results(e, op);
  pr_puts(&e->pr, "scf.for ");
  ll_tmp(e, n);
  pr_puts(&e->pr, " = ");
  ll_tmp(e, c0);
  pr_puts(&e->pr, " to ");
  ll_tmp(e, cn);
  pr_puts(&e->pr, " step ");
  ll_tmp(e, c1);
  pr_puts(&e->pr, " iter_args(");
  ll_tmp(e, acc);
  pr_puts(&e->pr, " = ");
  ll_val(e, op->operands[0]);
  pr_puts(&e->pr, ") -> (");
  ll_type(e, ot);
  pr_puts(&e->pr, ") {");
  e->pr.indent += 1;
  /* The row index, widened to i64 (unsigned ones with zeros). */
  uint32_t x = line_start(e);
  pr_puts(&e->pr, " = tensor.extract ");
  ll_val(e, op->operands[1]);
  pr_puts(&e->pr, "[");
  ll_tmp(e, n);
  if (it->rank == 2) {
    pr_puts(&e->pr, ", ");
    ll_tmp(e, c0);
  }
  pr_puts(&e->pr, "] : ");
  ll_type(e, it);
  uint32_t x64 = x;
  if (dtype_bits(xt) < 64) {
    x64 = line_start(e);
    pr_printf(&e->pr, " = arith.%s ", dtype_class(xt) == DTC_UINT ? "extui" : "extsi");
    ll_tmp(e, x);
    pr_printf(&e->pr, " : %s to i64", xs);
  }
  uint32_t ge = ll_bin(e, "arith.cmpi sge,", x64, lo, DT_I64);
  uint32_t lt = ll_bin(e, "arith.cmpi slt,", x64, hi, DT_I64);
  uint32_t ok = ll_bin(e, "arith.andi", ge, lt, DT_I1);
  uint32_t upd = line_start(e);
  pr_puts(&e->pr, " = scf.if ");
  ll_tmp(e, ok);
  pr_puts(&e->pr, " -> (");
  ll_type(e, ot);
  pr_puts(&e->pr, ") {");
  e->pr.indent += 1;
  uint32_t i = line_start(e);
  pr_puts(&e->pr, " = arith.index_cast ");
  ll_tmp(e, x64);
  pr_puts(&e->pr, " : i64 to index");
  uint32_t row = line_start(e);
  pr_puts(&e->pr, " = tensor.extract_slice ");
  ll_tmp(e, acc);
  ll_row_window(e, i, ot);
  pr_puts(&e->pr, " : ");
  ll_type(e, ot);
  pr_puts(&e->pr, " to ");
  ll_row_type(e, ot);
  int64_t umap[LL_MAX_RANK];
  const shl_value *usrc = row_invariant_updates(op->operands[2], umap);
  uint32_t urow = 0;
  if (!usrc) {
    urow = line_start(e);
    pr_puts(&e->pr, " = tensor.extract_slice ");
    ll_val(e, op->operands[2]);
    ll_row_window(e, n, ut);
    pr_puts(&e->pr, " : ");
    ll_type(e, ut);
    pr_puts(&e->pr, " to ");
    ll_row_type(e, ut);
  }
  /* The body over the row, written into the row itself (the update is the
   * input, the current row the output's initial value): in place. */
  uint32_t merged = line_start(e);
  pr_puts(&e->pr, " = linalg.generic {indexing_maps = [");
  if (usrc) ll_map(e, ot->rank, umap, usrc->type->rank);
  else ll_identity_map(e, ot->rank);
  pr_puts(&e->pr, ", ");
  ll_identity_map(e, ot->rank);
  pr_puts(&e->pr, "], ");
  ll_iterators(e, ot->rank, NULL);
  pr_puts(&e->pr, "} ins(");
  if (usrc) {
    ll_val(e, usrc);
    pr_puts(&e->pr, " : ");
    ll_type(e, usrc->type);
  } else {
    ll_tmp(e, urow);
    pr_puts(&e->pr, " : ");
    ll_row_type(e, ut);
  }
  pr_puts(&e->pr, ") outs(");
  ll_tmp(e, row);
  pr_puts(&e->pr, " : ");
  ll_row_type(e, ot);
  pr_puts(&e->pr, ") {");
  pr_newline(&e->pr);
  /* block arguments: update, then current; the body takes (current, update) */
  uint32_t args[2] = {ll_fresh(e), ll_fresh(e)}, res = 0;
  pr_puts(&e->pr, "^bb0(");
  ll_tmp(e, args[1]);
  pr_printf(&e->pr, ": %s, ", et);
  ll_tmp(e, args[0]);
  pr_printf(&e->pr, ": %s):", et);
  e->pr.indent += 1;
  ST_TRY(ll_inline_body(e, op, op->regions[0].blocks[0], args, &res, 1));
  pr_newline(&e->pr);
  pr_puts(&e->pr, "linalg.yield ");
  ll_tmp(e, res);
  pr_printf(&e->pr, " : %s", et);
  e->pr.indent -= 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "} -> ");
  ll_row_type(e, ot);
  uint32_t put = line_start(e);
  pr_puts(&e->pr, " = tensor.insert_slice ");
  ll_tmp(e, merged);
  pr_puts(&e->pr, " into ");
  ll_tmp(e, acc);
  ll_row_window(e, i, ot);
  pr_puts(&e->pr, " : ");
  ll_row_type(e, ot);
  pr_puts(&e->pr, " into ");
  ll_type(e, ot);
  pr_newline(&e->pr);
  pr_puts(&e->pr, "scf.yield ");
  ll_tmp(e, put);
  pr_puts(&e->pr, " : ");
  ll_type(e, ot);
  e->pr.indent -= 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "} else {");
  e->pr.indent += 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "scf.yield ");
  ll_tmp(e, acc);
  pr_puts(&e->pr, " : ");
  ll_type(e, ot);
  e->pr.indent -= 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "}");
  pr_newline(&e->pr);
  pr_puts(&e->pr, "scf.yield ");
  ll_tmp(e, upd);
  pr_puts(&e->pr, " : ");
  ll_type(e, ot);
  e->pr.indent -= 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "}");
  return NULL;
}
