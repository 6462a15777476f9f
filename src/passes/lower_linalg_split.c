/* Float reductions over trailing dimensions in two steps, so that compiled
 * code vectorizes them (lower_linalg_dot.c's ll_reduce calls this first).
 *
 * linalg.reduce folds each row into one accumulator; that is a chain LLVM
 * may not reorder (no reassociation flags), so it stayed scalar at one add
 * per FP latency.  Here a row of K elements is read as K/L rows of L lanes:
 * L partial results per output (a linalg.generic whose innermost loop is
 * parallel and contiguous: vector code), then a linalg.reduce of the L
 * partials into the init value.  The order of the additions changes as in
 * the interpreter's own vectorized folds (lane partial sums, combined at the
 * end; README "Compiling through upstream MLIR"); max/min are exact either
 * way.  The partials start from the operation's identity (-0 for add, so
 * that a sum of -0s stays -0). */
#include "ir/attrs.h"
#include "passes/lower_linalg_emit.h"

#define LL_MAX_RANK 16

/* Lanes: four vectors of 16 f32 / 8 f64 when the row allows it (more
 * independent accumulations, and a lane loop long enough that LLVM
 * vectorizes it instead of unrolling it into scalar libm calls when the
 * body has exp & co.), else one vector. */
enum { SPLIT_LANES_F32 = 16, SPLIT_LANES_F64 = 8, SPLIT_VECTORS = 4 };

/* The body's binop when it is exactly `return op(acc, x)` (either order). */
static const char *split_binop(const shl_op *op) {
  if (op->n_regions != 1 || op->regions[0].n_blocks != 1) return NULL;
  const shl_block *b = op->regions[0].blocks[0];
  const shl_op *o = b->first;
  if (b->n_args != 2 || !o || !o->next || o->next->next || o->n_operands != 2 || o->n_results != 1) return NULL;
  const shl_op *ret = o->next;
  if (!(ret->def->traits & T_TERM) || ret->n_operands != 1 || ret->operands[0] != &o->results[0]) return NULL;
  const shl_value *a = o->operands[0], *x = o->operands[1];
  if (!((a == &b->args[0] && x == &b->args[1]) || (a == &b->args[1] && x == &b->args[0]))) return NULL;
  if (op_is(o, OP_ADD)) return "arith.addf";
  if (op_is(o, OP_MULTIPLY)) return "arith.mulf";
  if (op_is(o, OP_MAXIMUM)) return "arith.maximumf";
  if (op_is(o, OP_MINIMUM)) return "arith.minimumf";
  return NULL;
}

const char *ll_reduce_binop(const shl_op *op) { return split_binop(op); }

/* binop is arith.addf, mulf, maximumf or minimumf. */
static const char *split_identity(const char *binop, bool f64) {
  if (binop[6] == 'a') return "-0.000000e+00";
  if (binop[7] == 'u') return "1.000000e+00";
  if (binop[7] == 'a') return f64 ? "0xFFF0000000000000" : "0xFF800000";
  return f64 ? "0x7FF0000000000000" : "0x7F800000";
}

/* %vN = tensor.empty + linalg.fill of scalar `x` into shape dims[0..rank). */
static uint32_t split_filled(ll_emit *e, uint32_t x, const int64_t *dims, int rank, const char *et) {
  uint32_t empty = ll_fresh(e), filled = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, empty);
  pr_puts(&e->pr, " = tensor.empty() : tensor<");
  for (int k = 0; k < rank; k++) pr_printf(&e->pr, "%lldx", (long long)dims[k]);
  pr_printf(&e->pr, "%s>", et);
  pr_newline(&e->pr);
  ll_tmp(e, filled);
  pr_puts(&e->pr, " = linalg.fill ins(");
  ll_tmp(e, x);
  pr_printf(&e->pr, " : %s) outs(", et);
  ll_tmp(e, empty);
  pr_puts(&e->pr, " : tensor<");
  for (int k = 0; k < rank; k++) pr_printf(&e->pr, "%lldx", (long long)dims[k]);
  pr_printf(&e->pr, "%s>) -> tensor<", et);
  for (int k = 0; k < rank; k++) pr_printf(&e->pr, "%lldx", (long long)dims[k]);
  pr_printf(&e->pr, "%s>", et);
  return filled;
}

static void split_shape(ll_emit *e, const int64_t *dims, int rank, const char *et) {
  pr_puts(&e->pr, "tensor<");
  for (int k = 0; k < rank; k++) pr_printf(&e->pr, "%lldx", (long long)dims[k]);
  pr_printf(&e->pr, "%s>", et);
}

/* ---- a private copy of the operand's elementwise producers ----
 *
 * When the reduced operand is an elementwise chain that other ops read too
 * (softmax: exp(x - max) feeds the sum and the division), linalg's fusion
 * leaves it materialized: one pass writing it, two reading it.  Its
 * producers are emitted once more under fresh names for the reduction, so
 * that the reduction fuses with its own copy and the other users with the
 * original: the chain is computed twice, the temporary never exists. */

enum { DUP_MAX_OPS = 16 };

static bool dup_op_ok(const shl_op *p) {
  return p && p->n_results == 1 && (ll_is_elementwise(p) || op_is(p, OP_BROADCAST_IN_DIM)) && !op_is(p, OP_CONSTANT);
}

/* Uses of v in the ops after its definition (nested regions included). */
static int uses_after(const shl_op *from, const shl_value *v) {
  int n = 0;
  for (const shl_op *o = from; o; o = o->next) {
    for (uint32_t i = 0; i < o->n_operands; i++) n += o->operands[i] == v;
    for (uint32_t r = 0; r < o->n_regions; r++)
      for (uint32_t b = 0; b < o->regions[r].n_blocks; b++) n += uses_after(o->regions[r].blocks[b]->first, v);
  }
  return n;
}

/* Producer ops to copy for v (counted per path), or more than DUP_MAX_OPS. */
static int dup_count(const shl_value *v) {
  const shl_op *p = v->def;
  if (!dup_op_ok(p)) return 0;
  int n = 1;
  for (uint32_t i = 0; i < p->n_operands && n <= DUP_MAX_OPS; i++) n += dup_count(p->operands[i]);
  return n;
}

typedef struct {
  shl_value *v;
  uint32_t id;
} dup_saved;

/* Emits copies of v's producers, operands first; each copied value's name
 * is the copy's until dup_restore. */
static shl_status dup_emit(ll_emit *e, const shl_value *v, dup_saved *saved, int *n) {
  const shl_op *p = v->def;
  if (!dup_op_ok(p)) return NULL;
  for (uint32_t i = 0; i < p->n_operands; i++) {
    bool seen = false; /* an operand used twice is copied once */
    for (uint32_t j = 0; j < i && !seen; j++) seen = p->operands[j] == p->operands[i];
    if (!seen) ST_TRY(dup_emit(e, p->operands[i], saved, n));
  }
  shl_value *r = &((shl_op *)p)->results[0];
  for (int k = 0; k < *n; k++)
    if (saved[k].v == r) return NULL; /* already copied through another path */
  saved[*n] = (dup_saved){r, r->id};
  (*n)++;
  r->id = 0; /* a fresh name on emission */
  return ll_emit_native(e, p);
}

static void dup_restore(dup_saved *saved, int n) {
  while (n > 0) {
    n--;
    saved[n].v->id = saved[n].id;
  }
}

static bool split_emit(ll_emit *e, const shl_op *op);

bool ll_reduce_split(ll_emit *e, const shl_op *op) {
  const shl_value *in = op->operands[0];
  if (!in->def || in->def->block != op->block || uses_after(in->def->next, in) < 2 || dup_count(in) > DUP_MAX_OPS)
    return split_emit(e, op);
  size_t len = e->pr.len;
  uint32_t next = e->next_id;
  dup_saved saved[DUP_MAX_OPS + 1];
  int n = 0;
  shl_status st = dup_emit(e, in, saved, &n);
  bool done = false;
  if (!st) {
    done = split_emit(e, op);
  } else {
    shloc_status_free(st);
  }
  if (!done) {
    /* No copy without the split (or a producer that has no pattern now). */
    e->pr.len = len;
    e->next_id = next;
  }
  dup_restore(saved, n);
  return done || split_emit(e, op);
}

static bool split_emit(ll_emit *e, const shl_op *op) {
  if (op->n_results != 1 || op->n_operands != 2) return false;
  const shl_type *in = op->operands[0]->type, *rt = op->results[0].type;
  if (in->dtype != rt->dtype || (in->dtype != DT_F32 && in->dtype != DT_F64)) return false;
  const char *binop = split_binop(op);
  int64_t dims[LL_MAX_RANK];
  size_t nd;
  const shl_attr *da = op_attr(op, "dimensions");
  if (!binop || !da || !attr_as_ints(da, dims, LL_MAX_RANK, &nd) || nd == 0) return false;
  /* Reduced dimensions must be the trailing ones (any order). */
  int rank = in->rank, kept = rank - (int)nd;
  bool seen[LL_MAX_RANK] = {false};
  for (size_t i = 0; i < nd; i++) {
    if (dims[i] < kept || dims[i] >= rank || seen[dims[i]]) return false;
    seen[dims[i]] = true;
  }
  int64_t rows = 1, cols = 1, lanes = in->dtype == DT_F32 ? SPLIT_LANES_F32 : SPLIT_LANES_F64;
  for (int k = 0; k < kept; k++) rows *= in->dims[k];
  for (int k = kept; k < rank; k++) cols *= in->dims[k];
  if (cols % (SPLIT_VECTORS * lanes) == 0 && cols >= 2 * SPLIT_VECTORS * lanes) lanes *= SPLIT_VECTORS;
  if (cols % lanes || cols < 2 * lanes || rows < 1) return false;
  const char *et = ll_dtype(in->dtype);
  /* The operand as rows x cols/lanes x lanes. */
  int64_t shape3[3] = {rows, cols / lanes, lanes}, shape2[2] = {rows, lanes};
  uint32_t flat = 0, x3 = ll_fresh(e);
  if (rank > 1) {
    flat = ll_fresh(e);
    pr_newline(&e->pr);
    ll_tmp(e, flat);
    pr_puts(&e->pr, " = tensor.collapse_shape ");
    ll_val(e, op->operands[0]);
    pr_puts(&e->pr, " [[");
    for (int k = 0; k < rank; k++) pr_printf(&e->pr, "%s%d", k ? ", " : "", k);
    pr_puts(&e->pr, "]] : ");
    ll_type(e, in);
    pr_printf(&e->pr, " into tensor<%lldx%s>", (long long)(rows * cols), et);
  }
  pr_newline(&e->pr);
  ll_tmp(e, x3);
  pr_puts(&e->pr, " = tensor.expand_shape ");
  if (rank > 1) ll_tmp(e, flat);
  else ll_val(e, op->operands[0]);
  pr_printf(&e->pr, " [[0, 1, 2]] output_shape [%lld, %lld, %lld] : tensor<%lldx%s> into ", (long long)rows,
            (long long)(cols / lanes), (long long)lanes, (long long)(rows * cols), et);
  split_shape(e, shape3, 3, et);
  /* Lane partials. */
  uint32_t id = ll_cst_float(e, split_identity(binop, in->dtype == DT_F64), in->dtype);
  uint32_t pinit = split_filled(e, id, shape2, 2, et), part = ll_fresh(e), px = ll_fresh(e), pa = ll_fresh(e),
           ps = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, part);
  pr_puts(&e->pr, " = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, "
                  "affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = [\"parallel\", \"reduction\", "
                  "\"parallel\"]} ins(");
  ll_tmp(e, x3);
  pr_puts(&e->pr, " : ");
  split_shape(e, shape3, 3, et);
  pr_puts(&e->pr, ") outs(");
  ll_tmp(e, pinit);
  pr_puts(&e->pr, " : ");
  split_shape(e, shape2, 2, et);
  pr_puts(&e->pr, ") {");
  pr_newline(&e->pr);
  pr_puts(&e->pr, "^bb0(");
  ll_tmp(e, px);
  pr_printf(&e->pr, ": %s, ", et);
  ll_tmp(e, pa);
  pr_printf(&e->pr, ": %s):", et);
  e->pr.indent += 1;
  pr_newline(&e->pr);
  ll_tmp(e, ps);
  pr_printf(&e->pr, " = %s ", binop);
  ll_tmp(e, pa);
  pr_puts(&e->pr, ", ");
  ll_tmp(e, px);
  pr_printf(&e->pr, " : %s", et);
  pr_newline(&e->pr);
  pr_puts(&e->pr, "linalg.yield ");
  ll_tmp(e, ps);
  pr_printf(&e->pr, " : %s", et);
  e->pr.indent -= 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "} -> ");
  split_shape(e, shape2, 2, et);
  ll_parallel(e, shape2, 2, et, rows * cols);
  /* The partials folded into the init value, in lane order. */
  uint32_t init = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, init);
  pr_puts(&e->pr, " = tensor.extract ");
  ll_val(e, op->operands[1]);
  pr_puts(&e->pr, "[] : ");
  ll_type(e, op->operands[1]->type);
  uint32_t rinit = split_filled(e, init, &rows, 1, et), red = ll_fresh(e), rx = ll_fresh(e), ra = ll_fresh(e),
           rs = ll_fresh(e);
  pr_newline(&e->pr);
  if (kept == 1) {
    ll_results(e, op);
  } else {
    ll_tmp(e, red);
    pr_puts(&e->pr, " = ");
  }
  pr_puts(&e->pr, "linalg.reduce ins(");
  ll_tmp(e, part);
  pr_puts(&e->pr, " : ");
  split_shape(e, shape2, 2, et);
  pr_puts(&e->pr, ") outs(");
  ll_tmp(e, rinit);
  pr_puts(&e->pr, " : ");
  split_shape(e, &rows, 1, et);
  pr_puts(&e->pr, ") dimensions = [1]");
  e->pr.indent += 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "(");
  ll_tmp(e, rx);
  pr_printf(&e->pr, ": %s, ", et);
  ll_tmp(e, ra);
  pr_printf(&e->pr, ": %s) {", et);
  e->pr.indent += 1;
  pr_newline(&e->pr);
  ll_tmp(e, rs);
  pr_printf(&e->pr, " = %s ", binop);
  ll_tmp(e, ra);
  pr_puts(&e->pr, ", ");
  ll_tmp(e, rx);
  pr_printf(&e->pr, " : %s", et);
  pr_newline(&e->pr);
  pr_puts(&e->pr, "linalg.yield ");
  ll_tmp(e, rs);
  pr_printf(&e->pr, " : %s", et);
  e->pr.indent -= 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "}");
  e->pr.indent -= 1;
  if (kept == 1) return true;
  /* rows -> the result's shape (rank 0, or several kept dimensions). */
  pr_newline(&e->pr);
  ll_results(e, op);
  if (kept == 0) {
    pr_puts(&e->pr, "tensor.collapse_shape ");
    ll_tmp(e, red);
    pr_printf(&e->pr, " [] : tensor<1x%s> into ", et);
  } else {
    pr_puts(&e->pr, "tensor.expand_shape ");
    ll_tmp(e, red);
    pr_puts(&e->pr, " [[");
    for (int k = 0; k < kept; k++) pr_printf(&e->pr, "%s%d", k ? ", " : "", k);
    pr_puts(&e->pr, "]] output_shape [");
    for (int k = 0; k < kept; k++) pr_printf(&e->pr, "%s%lld", k ? ", " : "", (long long)rt->dims[k]);
    pr_printf(&e->pr, "] : tensor<%lldx%s> into ", (long long)rows, et);
  }
  ll_type(e, rt);
  return true;
}
