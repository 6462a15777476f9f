/* bitcast_convert between element widths -> linalg.generic on the bits,
 * little-endian as the interpreter (src/exec/kernels/ew_convert.c
 * bitcast_run): a wide element splits into its low part first along a new
 * last dimension; narrow elements along the last dimension are or-ed into
 * one, the first lowest.  Whole-byte element types only (not complex, not
 * i1, not tf32/f6/f4/i4); others stay call-outs. */
#include "passes/lower_linalg_emit.h"

static shl_dtype int_of(unsigned bits) {
  return bits == 8 ? DT_I8 : bits == 16 ? DT_I16 : bits == 32 ? DT_I32 : DT_I64;
}

static shl_dtype uint_of(unsigned bits) {
  return bits == 8 ? DT_UI8 : bits == 16 ? DT_UI16 : bits == 32 ? DT_UI32 : DT_UI64;
}

static bool whole_bytes(shl_dtype dt) {
  return dtype_class(dt) != DTC_COMPLEX && dtype_class(dt) != DTC_BOOL && dtype_bits(dt) == 8 * dtype_bytes(dt);
}

/* x of type dt as the signless integer of its width (storage ints pass through). */
static uint32_t bits_of(ll_emit *e, uint32_t x, shl_dtype dt, bool back) {
  shl_dtype it = int_of(dtype_bits(dt));
  if (!dtype_is_float(dt) || !ll_native_dtype(dt)) return x; /* stored as iN already */
  return back ? ll_cast(e, "arith.bitcast", x, it, dt) : ll_cast(e, "arith.bitcast", x, dt, it);
}

/* %r = arith.index_cast (linalg.index dim) : index to T */
static uint32_t index_as(ll_emit *e, int dim, shl_dtype t) {
  uint32_t i = ll_fresh(e), r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, i);
  pr_printf(&e->pr, " = linalg.index %d : index", dim);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_puts(&e->pr, " = arith.index_cast ");
  ll_tmp(e, i);
  pr_printf(&e->pr, " : index to %s", ll_dtype(t));
  return r;
}

shl_status ll_bitcast_widths(ll_emit *e, const shl_op *op) {
  const shl_type *it = op->operands[0]->type, *ot = op->results[0].type;
  shl_dtype a = it->dtype, b = ot->dtype;
  unsigned wa = dtype_bits(a), wb = dtype_bits(b);
  if (!whole_bytes(a) || !whole_bytes(b) || wa == wb) return ll_refuse(op, "bitcast_convert of these element types");
  bool split = wa > wb;
  const shl_type *big = split ? ot : it; /* the side with the extra last dimension */
  int n = big->rank - 1;
  if (n < 0 || big->dims[n] != (int64_t)(split ? wa / wb : wb / wa)) return ll_refuse(op, "unexpected shapes");
  int64_t outer[16];
  if (n > 16) return ll_refuse(op, "rank");
  for (int k = 0; k < n; k++) outer[k] = k;
  shl_dtype ia = int_of(wa), ib = int_of(wb);
  uint32_t init;
  if (split) {
    init = ll_empty(e, ot);
  } else { /* or-ed into zeros */
    uint32_t z = dtype_is_float(b) && ll_native_dtype(b) ? ll_cst_float(e, "0.0", b) : ll_cst_int(e, 0, ib);
    uint32_t empty = ll_empty(e, ot);
    init = ll_fresh(e);
    pr_newline(&e->pr);
    ll_tmp(e, init);
    pr_puts(&e->pr, " = linalg.fill ins(");
    ll_tmp(e, z);
    pr_printf(&e->pr, " : %s) outs(", ll_dtype(b));
    ll_tmp(e, empty);
    pr_puts(&e->pr, " : ");
    ll_type(e, ot);
    pr_puts(&e->pr, ") -> ");
    ll_type(e, ot);
  }
  bool red[17] = {false};
  red[n] = !split;
  pr_newline(&e->pr);
  ll_results(e, op);
  pr_puts(&e->pr, "linalg.generic {indexing_maps = [");
  if (split) ll_map(e, n + 1, outer, n);
  else ll_identity_map(e, n + 1);
  pr_puts(&e->pr, ", ");
  if (split) ll_identity_map(e, n + 1);
  else ll_map(e, n + 1, outer, n);
  pr_puts(&e->pr, "], ");
  ll_iterators(e, n + 1, red);
  pr_puts(&e->pr, "} ins(");
  ll_val(e, op->operands[0]);
  pr_puts(&e->pr, " : ");
  ll_type(e, it);
  pr_puts(&e->pr, ") outs(");
  ll_tmp(e, init);
  pr_puts(&e->pr, " : ");
  ll_type(e, ot);
  pr_puts(&e->pr, ") {");
  pr_newline(&e->pr);
  uint32_t x = ll_fresh(e), acc = ll_fresh(e);
  pr_puts(&e->pr, "^bb0(");
  ll_tmp(e, x);
  pr_printf(&e->pr, ": %s, ", ll_dtype(a));
  ll_tmp(e, acc);
  pr_printf(&e->pr, ": %s):", ll_dtype(b));
  e->pr.indent += 1;
  uint32_t xb = bits_of(e, x, a, false), r;
  if (split) { /* part j: bits [j wb, (j + 1) wb) */
    uint32_t sh = ll_bin(e, "arith.muli", index_as(e, n, ia), ll_cst_int(e, wb, ia), ia);
    r = ll_convert(e, ll_bin(e, "arith.shrui", xb, sh, ia), ia, ib);
  } else { /* acc | x << (j wa) */
    uint32_t sh = ll_bin(e, "arith.muli", index_as(e, n, ib), ll_cst_int(e, wa, ib), ib);
    uint32_t wide = ll_bin(e, "arith.shli", ll_convert(e, xb, uint_of(wa), ib), sh, ib);
    r = ll_bin(e, "arith.ori", bits_of(e, acc, b, false), wide, ib);
  }
  r = bits_of(e, r, b, true);
  pr_newline(&e->pr);
  pr_puts(&e->pr, "linalg.yield ");
  ll_tmp(e, r);
  pr_printf(&e->pr, " : %s", ll_dtype(b));
  e->pr.indent -= 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "} -> ");
  ll_type(e, ot);
  return NULL;
}
