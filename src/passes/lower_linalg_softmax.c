/* Softmax over the trailing dimensions as one pass per block of rows (the
 * interpreter's fused softmax, src/exec/fuse_softmax.c, does the same):
 *
 *   p = x, or x * c, x / c, c * x (c a scalar broadcast)
 *   m = reduce(max, p) over the trailing dimensions (from its init value)
 *   e = exp(p - broadcast(m))
 *   s = reduce(add, e) over the same dimensions (from its init value)
 *   out = e / broadcast(s)
 *
 * matched at the division, f32, rows of a multiple of 16 elements.  Op by
 * op, the reductions' lane partials and folds (lower_linalg_split.c) read
 * the whole operand three times, compute exp twice and fold the lanes on one
 * thread.  Here, per block of rows (an scf.forall over blocks, OpenMP
 * threads, when the op is large enough; the whole tensor at once otherwise):
 * lane partials of the maximum (with p computed on the fly), their fold into
 * the init value in lane order, e written once into the result block, lane
 * partials of its sum and their fold, then e / s in place.  A block stays in
 * the core's cache between these steps.  Sums are ordered as the split
 * reductions order them.  The ops in between are emitted as usual and become
 * dead (upstream's canonicalization removes them) unless something else
 * reads them. */
#include <stdio.h>
#include <string.h>

#include "ir/attrs.h"
#include "passes/lower_linalg_emit.h"

#define SM_MAX_RANK 16

/* The value a chain of broadcast_in_dim/reshape ops starting at `v` reads:
 * the reduced row vector `row` (kept dimensions 0..kept-1 of `full`),
 * broadcast along the reduced ones, or NULL. */
static bool is_row_broadcast(const shl_value *v, const shl_value *row, const shl_type *full, int kept) {
  /* map[d]: the kept dimension result dimension d reads, or -1 (constant along d). */
  int map[SM_MAX_RANK], rank = v->type->rank;
  if (rank != full->rank || rank > SM_MAX_RANK) return false;
  const shl_value *cur = v;
  for (int d = 0; d < rank; d++) map[d] = d < kept ? d : -1;
  for (int steps = 0; steps < 8; steps++) {
    if (cur == row) {
      if (cur->type->rank != kept) return false;
      for (int d = 0; d < kept; d++)
        if (map[d] != d) return false;
      return true;
    }
    const shl_op *op = cur->def;
    if (!op || op->n_operands != 1) return false;
    const shl_type *in = op->operands[0]->type, *out = cur->type;
    int inmap[SM_MAX_RANK];
    if (in->rank > SM_MAX_RANK) return false;
    if (op_is(op, OP_BROADCAST_IN_DIM)) {
      int64_t dims[SM_MAX_RANK];
      size_t n;
      if (!attr_as_ints(op_attr(op, "broadcast_dimensions"), dims, SM_MAX_RANK, &n) || (int)n != in->rank) return false;
      for (int k = 0; k < in->rank; k++) {
        if (dims[k] < 0 || dims[k] >= out->rank) return false;
        /* a size-1 operand dimension broadcast to more: constant along it */
        int m = map[dims[k]];
        if (in->dims[k] != out->dims[dims[k]] && in->dims[k] != 1) return false;
        inmap[k] = in->dims[k] == out->dims[dims[k]] ? m : -1;
        if (inmap[k] < 0 && m >= 0 && out->dims[dims[k]] != 1) return false; /* a kept dimension broadcast */
      }
      /* result dimensions not read from the operand must not be kept ones */
      for (int d = 0; d < out->rank; d++) {
        bool from = false;
        for (int k = 0; k < in->rank; k++) from |= dims[k] == d;
        if (!from && map[d] >= 0 && out->dims[d] != 1) return false;
      }
    } else if (op_is(op, OP_RESHAPE)) {
      /* only size-1 dimensions inserted or removed: the others in order */
      int k = 0;
      for (int d = 0; d < out->rank; d++) {
        if (out->dims[d] == 1) continue;
        while (k < in->rank && in->dims[k] == 1) inmap[k++] = -1;
        if (k >= in->rank || in->dims[k] != out->dims[d]) return false;
        inmap[k++] = map[d];
      }
      while (k < in->rank && in->dims[k] == 1) inmap[k++] = -1;
      if (k != in->rank) return false;
      /* a kept dimension of size 1 may be dropped: it reads index 0 either way */
    } else {
      return false;
    }
    rank = in->rank;
    for (int k = 0; k < rank; k++) map[k] = inmap[k];
    cur = op->operands[0];
  }
  return false;
}

/* A reduce of `operand` (f32) over dimensions kept..rank-1 with body binop `want`. */
static const shl_op *row_reduce(const shl_value *v, const shl_value *operand, const char *want, int *kept) {
  const shl_op *r = v->def;
  if (!r || !op_is(r, OP_REDUCE) || r->n_operands != 2 || r->n_results != 1 || r->operands[0] != operand) return NULL;
  const char *b = ll_reduce_binop(r);
  if (!b || strcmp(b, want)) return NULL;
  int64_t dims[SM_MAX_RANK];
  size_t n;
  int rank = operand->type->rank;
  if (!attr_as_ints(op_attr(r, "dimensions"), dims, SM_MAX_RANK, &n) || n == 0 || (int)n > rank) return NULL;
  bool seen[SM_MAX_RANK] = {false};
  int k0 = rank - (int)n;
  for (size_t i = 0; i < n; i++) {
    if (dims[i] < k0 || dims[i] >= rank || seen[dims[i]]) return NULL;
    seen[dims[i]] = true;
  }
  *kept = k0;
  return r;
}

typedef struct {
  const shl_value *x, *c; /* p = x [op c] */
  const char *pre;        /* arith.mulf / arith.divf, or NULL */
  bool swap;              /* c op x */
  const shl_value *max_init, *sum_init;
  int kept;
  int64_t rows, cols, lanes;
} softmax_plan;

/* p's form: x, or x op broadcast(scalar c). */
static bool pre_of(const shl_value *p, softmax_plan *sp) {
  const shl_op *d = p->def;
  sp->x = p;
  sp->pre = NULL;
  if (!d || d->n_operands != 2 || !(op_is(d, OP_MULTIPLY) || op_is(d, OP_DIVIDE))) return true;
  for (int side = 0; side < 2; side++) {
    const shl_op *b = d->operands[side]->def;
    if (!b || !op_is(b, OP_BROADCAST_IN_DIM) || b->operands[0]->type->rank != 0) continue;
    if (side == 0 && op_is(d, OP_DIVIDE)) continue; /* c / x: not a scale */
    sp->x = d->operands[1 - side];
    sp->c = b->operands[0];
    sp->pre = op_is(d, OP_MULTIPLY) ? "arith.mulf" : "arith.divf";
    sp->swap = side == 0;
    return true;
  }
  return true;
}

static bool softmax_match(const shl_op *div, softmax_plan *sp) {
  const shl_type *t = div->results[0].type;
  if (!op_is(div, OP_DIVIDE) || t->dtype != DT_F32 || t->rank < 1 || t->rank > SM_MAX_RANK) return false;
  const shl_value *ev = div->operands[0];
  const shl_op *exp = ev->def;
  if (!exp || !op_is(exp, OP_EXPONENTIAL)) return false;
  const shl_op *sub = exp->operands[0]->def;
  if (!sub || !op_is(sub, OP_SUBTRACT)) return false;
  const shl_value *p = sub->operands[0];
  /* the broadcast operands: m under sub, s under div */
  int kept_m = -1, kept_s = -1;
  const shl_op *mx = NULL, *sm = NULL;
  /* (is_row_broadcast checks the chains below) */
  const shl_value *v = sub->operands[1];
  for (int k = 0; k < 8 && v->def && !mx && v->def->n_operands; k++, v = v->def->operands[0])
    mx = row_reduce(v, p, "arith.maximumf", &kept_m);
  v = div->operands[1];
  for (int k = 0; k < 8 && v->def && !sm && v->def->n_operands; k++, v = v->def->operands[0])
    sm = row_reduce(v, ev, "arith.addf", &kept_s);
  /* one reduced dimension, at least one kept */
  if (!mx || !sm || kept_m != kept_s || kept_m < 1 || kept_m != t->rank - 1) return false;
  sp->kept = kept_m;
  if (!is_row_broadcast(sub->operands[1], &mx->results[0], t, sp->kept) ||
      !is_row_broadcast(div->operands[1], &sm->results[0], t, sp->kept))
    return false;
  sp->rows = 1;
  sp->cols = 1;
  for (int k = 0; k < t->rank; k++) *(k < sp->kept ? &sp->rows : &sp->cols) *= t->dims[k];
  sp->lanes = sp->cols % 64 == 0 && sp->cols >= 128 ? 64 : 16;
  if (sp->cols % sp->lanes || sp->cols < 2 * sp->lanes) return false;
  sp->max_init = mx->operands[1];
  sp->sum_init = sm->operands[1];
  return pre_of(p, sp);
}

static void shape2(ll_emit *e, int64_t a, int64_t b) { pr_printf(&e->pr, "tensor<%lldx%lldxf32>", (long long)a, (long long)b); }

/* %v = tensor.empty + linalg.fill of scalar v, shape [a] or [a, b] (b = 0). */
static uint32_t filled(ll_emit *e, uint32_t v, int64_t a, int64_t b) {
  uint32_t empty = ll_fresh(e), r = ll_fresh(e);
  char ty[64];
  if (b) snprintf(ty, sizeof ty, "tensor<%lldx%lldxf32>", (long long)a, (long long)b);
  else snprintf(ty, sizeof ty, "tensor<%lldxf32>", (long long)a);
  pr_newline(&e->pr);
  ll_tmp(e, empty);
  pr_printf(&e->pr, " = tensor.empty() : %s", ty);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_puts(&e->pr, " = linalg.fill ins(");
  ll_tmp(e, v);
  pr_puts(&e->pr, " : f32) outs(");
  ll_tmp(e, empty);
  pr_printf(&e->pr, " : %s) -> %s", ty, ty);
  return r;
}

/* %r = tensor.extract %v[] of a rank-0 value. */
static uint32_t scalar_of(ll_emit *e, const shl_value *v) {
  uint32_t r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_puts(&e->pr, " = tensor.extract ");
  ll_val(e, v);
  pr_puts(&e->pr, "[] : ");
  ll_type(e, v->type);
  return r;
}

/* p of element a in a generic's body. */
static uint32_t pre_value(ll_emit *e, const softmax_plan *sp, uint32_t a, uint32_t c) {
  if (!sp->pre) return a;
  return sp->swap ? ll_bin(e, sp->pre, c, a, DT_F32) : ll_bin(e, sp->pre, a, c, DT_F32);
}

static void body_open(ll_emit *e, const uint32_t *args, int n) {
  pr_puts(&e->pr, " {");
  pr_newline(&e->pr);
  pr_puts(&e->pr, "^bb0(");
  for (int i = 0; i < n; i++) {
    if (i) pr_puts(&e->pr, ", ");
    ll_tmp(e, args[i]);
    pr_puts(&e->pr, ": f32");
  }
  pr_puts(&e->pr, "):");
  e->pr.indent += 1;
}

static void body_close(ll_emit *e, uint32_t y) {
  pr_newline(&e->pr);
  pr_puts(&e->pr, "linalg.yield ");
  ll_tmp(e, y);
  pr_puts(&e->pr, " : f32");
  e->pr.indent -= 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "}");
}

/* The row results of `binop` over src (T x C; through p when `pre`): lane
 * partials from the identity, then folded into the scalar init in lane order. */
static uint32_t row_fold(ll_emit *e, const softmax_plan *sp, uint32_t src, int64_t t, const char *binop,
                         const char *identity, uint32_t init, bool pre, uint32_t c) {
  int64_t cols = sp->cols, lanes = sp->lanes;
  uint32_t x3 = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, x3);
  pr_puts(&e->pr, " = tensor.expand_shape ");
  ll_tmp(e, src);
  pr_printf(&e->pr, " [[0], [1, 2]] output_shape [%lld, %lld, %lld] : ", (long long)t, (long long)(cols / lanes),
            (long long)lanes);
  shape2(e, t, cols);
  pr_printf(&e->pr, " into tensor<%lldx%lldx%lldxf32>", (long long)t, (long long)(cols / lanes), (long long)lanes);
  uint32_t part0 = filled(e, ll_cst_float(e, identity, DT_F32), t, lanes), part = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, part);
  pr_puts(&e->pr, " = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, "
                  "d2) -> (d0, d2)>], iterator_types = [\"parallel\", \"reduction\", \"parallel\"]} ins(");
  ll_tmp(e, x3);
  pr_printf(&e->pr, " : tensor<%lldx%lldx%lldxf32>) outs(", (long long)t, (long long)(cols / lanes), (long long)lanes);
  ll_tmp(e, part0);
  pr_puts(&e->pr, " : ");
  shape2(e, t, lanes);
  pr_puts(&e->pr, ")");
  uint32_t args[2] = {ll_fresh(e), ll_fresh(e)};
  body_open(e, args, 2);
  uint32_t v = pre ? pre_value(e, sp, args[0], c) : args[0];
  body_close(e, ll_bin(e, binop, args[1], v, DT_F32));
  pr_puts(&e->pr, " -> ");
  shape2(e, t, lanes);
  uint32_t r0 = filled(e, init, t, 0), r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  /* lanes outer, rows inner: each row folds its lanes in order, and the
   * loop over rows vectorizes (rows inner had one scalar chain per row) */
  pr_puts(&e->pr, " = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> "
                  "(d1)>], iterator_types = [\"reduction\", \"parallel\"]} ins(");
  ll_tmp(e, part);
  pr_puts(&e->pr, " : ");
  shape2(e, t, lanes);
  pr_puts(&e->pr, ") outs(");
  ll_tmp(e, r0);
  pr_printf(&e->pr, " : tensor<%lldxf32>)", (long long)t);
  uint32_t fa[2] = {ll_fresh(e), ll_fresh(e)};
  body_open(e, fa, 2);
  body_close(e, ll_bin(e, binop, fa[1], fa[0], DT_F32));
  pr_printf(&e->pr, " -> tensor<%lldxf32>", (long long)t);
  return r;
}

/* e = exp(p(x) - m) into out (T x C, m broadcast along C); or (divide)
 * out / m in place: the division reads e from its destination, so that e
 * and the result share the block of the result (written there directly,
 * --eliminate-empty-tensors). */
static uint32_t row_map(ll_emit *e, const softmax_plan *sp, bool divide, uint32_t x, uint32_t row, uint32_t out,
                        int64_t t, uint32_t c) {
  uint32_t r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_puts(&e->pr, " = linalg.generic {indexing_maps = [");
  if (!divide) pr_puts(&e->pr, "affine_map<(d0, d1) -> (d0, d1)>, ");
  pr_puts(&e->pr, "affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [\"parallel\", "
                  "\"parallel\"]} ins(");
  if (!divide) {
    ll_tmp(e, x);
    pr_puts(&e->pr, ", ");
  }
  ll_tmp(e, row);
  pr_puts(&e->pr, " : ");
  if (!divide) {
    shape2(e, t, sp->cols);
    pr_puts(&e->pr, ", ");
  }
  pr_printf(&e->pr, "tensor<%lldxf32>) outs(", (long long)t);
  ll_tmp(e, out);
  pr_puts(&e->pr, " : ");
  shape2(e, t, sp->cols);
  pr_puts(&e->pr, ")");
  uint32_t args[3] = {ll_fresh(e), ll_fresh(e), ll_fresh(e)};
  body_open(e, args, divide ? 2 : 3);
  uint32_t y;
  if (!divide)
    y = ll_kernel_exp(e, ll_bin(e, "arith.subf", pre_value(e, sp, args[0], c), args[1], DT_F32), DT_F32);
  else
    y = ll_bin(e, "arith.divf", args[1], args[0], DT_F32);
  body_close(e, y);
  pr_puts(&e->pr, " -> ");
  shape2(e, t, sp->cols);
  return r;
}

/* The softmax of rows x (T x C) into out (T x C); returns the result. */
static uint32_t softmax_block(ll_emit *e, const softmax_plan *sp, uint32_t x, uint32_t out, int64_t t, uint32_t c,
                              uint32_t mi, uint32_t si) {
  uint32_t m = row_fold(e, sp, x, t, "arith.maximumf", "0xFF800000", mi, true, c);
  uint32_t ex = row_map(e, sp, false, x, m, out, t, c);
  uint32_t s = row_fold(e, sp, ex, t, "arith.addf", "-0.000000e+00", si, false, c);
  return row_map(e, sp, true, 0, s, ex, t, c);
}

/* The smallest divisor of n at least d. */
static int64_t divisor_from(int64_t n, int64_t d) {
  for (int64_t k = d < 1 ? 1 : d; k < n; k++)
    if (n % k == 0) return k;
  return n;
}

/* `v` as rows x cols: reassociation [[0, ..., kept - 1], [kept]] (a cast when it is 2-D already). */
static uint32_t reshaped(ll_emit *e, const softmax_plan *sp, const shl_type *t, uint32_t v, bool expand) {
  uint32_t r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  if (t->rank == 2) {
    pr_puts(&e->pr, " = tensor.cast ");
    ll_tmp(e, v);
    pr_puts(&e->pr, " : ");
    ll_type(e, t);
    pr_puts(&e->pr, " to ");
    ll_type(e, t);
    return r;
  }
  pr_printf(&e->pr, " = tensor.%s_shape ", expand ? "expand" : "collapse");
  ll_tmp(e, v);
  pr_puts(&e->pr, " [[");
  for (int k = 0; k < sp->kept; k++) pr_printf(&e->pr, "%s%d", k ? ", " : "", k);
  pr_printf(&e->pr, "], [%d]]", sp->kept);
  if (expand) {
    pr_puts(&e->pr, " output_shape [");
    for (int k = 0; k < t->rank; k++) pr_printf(&e->pr, "%s%lld", k ? ", " : "", (long long)t->dims[k]);
    pr_puts(&e->pr, "] : ");
    shape2(e, sp->rows, sp->cols);
    pr_puts(&e->pr, " into ");
    ll_type(e, t);
  } else {
    pr_puts(&e->pr, " : ");
    ll_type(e, t);
    pr_puts(&e->pr, " into ");
    shape2(e, sp->rows, sp->cols);
  }
  return r;
}

/* `[i0, ..., off, 0] [1, ..., bt, cols] [1, ...] : FULL to/into bt x cols` of a block. */
static void block_slice(ll_emit *e, const uint32_t *iv, int kept, uint32_t off, int64_t bt, int64_t cols) {
  pr_puts(&e->pr, "[");
  for (int k = 0; k + 1 < kept; k++) {
    ll_tmp(e, iv[k]);
    pr_puts(&e->pr, ", ");
  }
  ll_tmp(e, off);
  pr_puts(&e->pr, ", 0] [");
  for (int k = 0; k + 1 < kept; k++) pr_puts(&e->pr, "1, ");
  pr_printf(&e->pr, "%lld, %lld] [", (long long)bt, (long long)cols);
  for (int k = 0; k <= kept; k++) pr_puts(&e->pr, k ? ", 1" : "1");
  pr_puts(&e->pr, "]");
}

bool ll_softmax(ll_emit *e, const shl_op *op) {
  softmax_plan sp;
  if (!softmax_match(op, &sp)) return false;
  const shl_type *t = op->results[0].type;
  int kept = sp.kept;
  int64_t cols = sp.cols, tile = ll_parallel_rows(e, sp.rows, sp.rows * cols);
  uint32_t x = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, x);
  pr_puts(&e->pr, " = tensor.cast "); /* a name the helpers can print */
  ll_val(e, sp.x);
  pr_puts(&e->pr, " : ");
  ll_type(e, t);
  pr_puts(&e->pr, " to ");
  ll_type(e, t);
  uint32_t c = sp.pre ? scalar_of(e, sp.c) : 0;
  uint32_t mi = scalar_of(e, sp.max_init), si = scalar_of(e, sp.sum_init);
  if (!tile) { /* the whole tensor as one block */
    uint32_t x2 = reshaped(e, &sp, t, x, false), empty = ll_fresh(e);
    pr_newline(&e->pr);
    ll_tmp(e, empty);
    pr_puts(&e->pr, " = tensor.empty() : ");
    shape2(e, sp.rows, cols);
    uint32_t r = reshaped(e, &sp, t, softmax_block(e, &sp, x2, empty, sp.rows, c, mi, si), true);
    pr_newline(&e->pr);
    ll_results(e, op);
    pr_puts(&e->pr, "tensor.cast ");
    ll_tmp(e, r);
    pr_puts(&e->pr, " : ");
    ll_type(e, t);
    pr_puts(&e->pr, " to ");
    ll_type(e, t);
    return true;
  }
  /* The schedule (and the OpenMP runtime at link time) exists when this threads. */
  ll_parallel_type(e, t);
  /* Blocks of bt rows of the last kept dimension, one per index of the others: the
   * result is written in place, in the function's result buffer when it is returned. */
  int64_t last = t->dims[kept - 1], bt = divisor_from(last, tile < last ? tile : last);
  uint32_t empty = ll_empty(e, t), iv[SM_MAX_RANK], o = ll_fresh(e), off = ll_fresh(e), xt = ll_fresh(e),
           ot = ll_fresh(e), step = ll_fresh(e);
  for (int k = 0; k < kept; k++) iv[k] = ll_fresh(e);
  pr_newline(&e->pr);
  ll_results(e, op);
  pr_puts(&e->pr, "scf.forall (");
  for (int k = 0; k < kept; k++) {
    if (k) pr_puts(&e->pr, ", ");
    ll_tmp(e, iv[k]);
  }
  pr_puts(&e->pr, ") in (");
  for (int k = 0; k < kept; k++) pr_printf(&e->pr, "%s%lld", k ? ", " : "", (long long)(k + 1 < kept ? t->dims[k] : last / bt));
  pr_puts(&e->pr, ") shared_outs(");
  ll_tmp(e, o);
  pr_puts(&e->pr, " = ");
  ll_tmp(e, empty);
  pr_puts(&e->pr, ") -> (");
  ll_type(e, t);
  pr_puts(&e->pr, ") {");
  e->pr.indent += 1;
  pr_newline(&e->pr);
  ll_tmp(e, step);
  pr_printf(&e->pr, " = arith.constant %lld : index", (long long)bt);
  pr_newline(&e->pr);
  ll_tmp(e, off);
  pr_puts(&e->pr, " = arith.muli ");
  ll_tmp(e, iv[kept - 1]);
  pr_puts(&e->pr, ", ");
  ll_tmp(e, step);
  pr_puts(&e->pr, " : index");
  uint32_t slices[2][2] = {{xt, x}, {ot, o}};
  for (int k = 0; k < 2; k++) {
    pr_newline(&e->pr);
    ll_tmp(e, slices[k][0]);
    pr_puts(&e->pr, " = tensor.extract_slice ");
    ll_tmp(e, slices[k][1]);
    block_slice(e, iv, kept, off, bt, cols);
    pr_puts(&e->pr, " : ");
    ll_type(e, t);
    pr_puts(&e->pr, " to ");
    shape2(e, bt, cols);
  }
  uint32_t r = softmax_block(e, &sp, xt, ot, bt, c, mi, si);
  pr_newline(&e->pr);
  pr_puts(&e->pr, "scf.forall.in_parallel {");
  e->pr.indent += 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "tensor.parallel_insert_slice ");
  ll_tmp(e, r);
  pr_puts(&e->pr, " into ");
  ll_tmp(e, o);
  block_slice(e, iv, kept, off, bt, cols);
  pr_puts(&e->pr, " : ");
  shape2(e, bt, cols);
  pr_puts(&e->pr, " into ");
  ll_type(e, t);
  e->pr.indent -= 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "}");
  e->pr.indent -= 1;
  pr_newline(&e->pr);
  pr_puts(&e->pr, "}");
  return true;
}
