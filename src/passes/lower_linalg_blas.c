/* dot_general on f32/f64 -> a BLAS call-out (src/aot/rt_gemm.c) when the
 * operands' layouts are a batch of plain matrix products: batch dimensions
 * leading and in order on both sides, contracting dimensions listed in
 * increasing order on both sides, and each operand's free dimensions all
 * before or all after its contracting ones (which picks the transposition).
 * The product then is C[b] = op(A[b]) op(B[b]) over the operands' own
 * memory, with M, N, K the products of the free and contracting sizes.
 * Other layouts transpose the operands first (linalg.transpose into
 * [batch, free, contracting] and [batch, contracting, free]), which costs a
 * copy of each but keeps the product in BLAS:
 *
 *   %c = memref.alloc() : memref<result shape>
 *   func.call @shloc_rt_gemm_f32(%lhs*, %rhs*, %c*, batch, M, N, K, ta, tb)
 *   %r = bufferization.to_tensor %c restrict writable
 *
 * Other element types, mixed types and an algorithm attribute keep the
 * generic linalg loop nest. */
#include "passes/lower_linalg_emit.h"

/* Whether dims[0..n) are all below or all above the operand's other
 * non-batch dimensions; *after is set when they come last. */
static bool grouped(const int64_t *dims, size_t n, int nb, int rank, bool *after) {
  bool in[64] = {0};
  for (size_t i = 0; i < n; i++) in[dims[i]] = true;
  int first_in = -1, last_in = -1, first_out = -1, last_out = -1;
  for (int d = nb; d < rank; d++) {
    if (in[d]) {
      if (first_in < 0) first_in = d;
      last_in = d;
    } else {
      if (first_out < 0) first_out = d;
      last_out = d;
    }
  }
  *after = first_out < 0 || (first_in >= 0 && first_in > last_out);
  return first_in < 0 || first_out < 0 || last_in < first_out || last_out < first_in;
}

static bool increasing(const int64_t *v, size_t n) {
  for (size_t i = 1; i < n; i++)
    if (v[i] <= v[i - 1]) return false;
  return true;
}

static void unranked(ll_emit *e, shl_dtype dt) { pr_printf(&e->pr, "tensor<*x%s>", dtype_name(dt)); }

static void memref_type(ll_emit *e, const shl_type *t) {
  pr_puts(&e->pr, "memref<");
  for (int i = 0; i < t->rank; i++) pr_printf(&e->pr, "%lldx", (long long)t->dims[i]);
  pr_printf(&e->pr, "%s>", dtype_name(t->dtype));
}

static void dims_type(ll_emit *e, const int64_t *dims, int rank, shl_dtype dt) {
  pr_puts(&e->pr, "tensor<");
  for (int i = 0; i < rank; i++) pr_printf(&e->pr, "%lldx", (long long)dims[i]);
  pr_printf(&e->pr, "%s>", dtype_name(dt));
}

/* Operand `v` as an unranked tensor, transposed first by `perm` unless it
 * is the identity. */
static uint32_t operand(ll_emit *e, const shl_value *v, const int64_t *perm) {
  const shl_type *t = v->type;
  int64_t pd[64];
  bool identity = true;
  for (int i = 0; i < t->rank; i++) {
    pd[i] = t->dims[perm[i]];
    identity = identity && perm[i] == i;
  }
  uint32_t src = 0;
  if (!identity) {
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++) n *= pd[i];
    ll_parallel(e, pd, t->rank, ll_dtype(t->dtype), n);
    uint32_t empty = ll_fresh(e);
    src = ll_fresh(e);
    pr_newline(&e->pr);
    ll_tmp(e, empty);
    pr_puts(&e->pr, " = tensor.empty() : ");
    dims_type(e, pd, t->rank, t->dtype);
    pr_newline(&e->pr);
    ll_tmp(e, src);
    pr_puts(&e->pr, " = linalg.transpose ins(");
    ll_val(e, v);
    pr_puts(&e->pr, " : ");
    ll_type(e, t);
    pr_puts(&e->pr, ") outs(");
    ll_tmp(e, empty);
    pr_puts(&e->pr, " : ");
    dims_type(e, pd, t->rank, t->dtype);
    pr_puts(&e->pr, ") permutation = [");
    for (int i = 0; i < t->rank; i++) pr_printf(&e->pr, "%s%lld", i ? ", " : "", (long long)perm[i]);
    pr_puts(&e->pr, "]");
  }
  uint32_t r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_puts(&e->pr, " = tensor.cast ");
  if (identity) ll_val(e, v);
  else ll_tmp(e, src);
  pr_puts(&e->pr, " : ");
  dims_type(e, pd, t->rank, t->dtype);
  pr_puts(&e->pr, " to ");
  unranked(e, t->dtype);
  return r;
}

/* perm = batch dims, then free dims (increasing) and contracting dims in
 * pair order: free first for the lhs ([B, M, K]), contracting first for
 * the rhs ([B, K, N]). */
static void canonical_perm(int rank, const int64_t *b, size_t nb, const int64_t *c, size_t nc, bool free_first,
                           int64_t *perm) {
  bool used[64] = {0};
  size_t k = 0;
  for (size_t i = 0; i < nb; i++) perm[k++] = b[i], used[b[i]] = true;
  for (size_t i = 0; i < nc; i++) used[c[i]] = true;
  if (!free_first)
    for (size_t i = 0; i < nc; i++) perm[k++] = c[i];
  for (int d = 0; d < rank; d++)
    if (!used[d]) perm[k++] = d;
  if (free_first)
    for (size_t i = 0; i < nc; i++) perm[k++] = c[i];
}

shl_status ll_dot_blas(ll_emit *e, const shl_op *op, const int64_t *lb, const int64_t *rb, size_t nb,
                       const int64_t *lc, const int64_t *rc, size_t nc, bool *handled) {
  *handled = false;
  const shl_type *lt = op->operands[0]->type, *rt = op->operands[1]->type, *ot = op->results[0].type;
  shl_dtype dt = ot->dtype;
  if ((dt != DT_F32 && dt != DT_F64) || lt->dtype != dt || rt->dtype != dt || op_attr(op, "algorithm") ||
      lt->rank > 64 || rt->rank > 64)
    return NULL;
  /* As the operands are laid out, or else after transposing both into
   * [B, M, K] and [B, K, N]. */
  bool direct = increasing(lc, nc) && increasing(rc, nc);
  for (size_t i = 0; i < nb; i++) direct = direct && lb[i] == (int64_t)i && rb[i] == (int64_t)i;
  bool l_after = true, r_after = false;
  direct = direct && grouped(lc, nc, (int)nb, lt->rank, &l_after) && grouped(rc, nc, (int)nb, rt->rank, &r_after);
  int64_t lperm[64], rperm[64];
  for (int i = 0; i < 64; i++) lperm[i] = rperm[i] = i;
  if (!direct) {
    canonical_perm(lt->rank, lb, nb, lc, nc, true, lperm);
    canonical_perm(rt->rank, rb, nb, rc, nc, false, rperm);
    l_after = true;
    r_after = false;
  }
  int64_t batch = 1, m = 1, n = 1, k = 1;
  for (size_t i = 0; i < nb; i++) batch *= lt->dims[lb[i]];
  for (size_t i = 0; i < nc; i++) k *= lt->dims[lc[i]];
  if (!k || !batch) return NULL; /* empty: the generic nest fills zeros */
  for (int d = 0; d < lt->rank; d++) m *= lt->dims[d];
  for (int d = 0; d < rt->rank; d++) n *= rt->dims[d];
  m /= batch * k;
  n /= batch * k;
  *handled = true;
  /* lhs [batch, M, K] (contracting last) needs no transposition; rhs [batch, K, N] (contracting first) neither. */
  bool ta = !l_after && nc && m > 1, tb = r_after && nc && n > 1;
  uint32_t a = operand(e, op->operands[0], lperm), b = operand(e, op->operands[1], rperm);
  uint32_t c = ll_fresh(e), cu = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, c);
  pr_puts(&e->pr, " = memref.alloc() {alignment = 64 : i64} : ");
  memref_type(e, ot);
  pr_newline(&e->pr);
  ll_tmp(e, cu);
  pr_puts(&e->pr, " = memref.cast ");
  ll_tmp(e, c);
  pr_puts(&e->pr, " : ");
  memref_type(e, ot);
  pr_printf(&e->pr, " to memref<*x%s>", dtype_name(dt));
  uint32_t args[6] = {ll_cst_int(e, batch, DT_I64), ll_cst_int(e, m, DT_I64), ll_cst_int(e, n, DT_I64),
                      ll_cst_int(e, k, DT_I64),     ll_cst_int(e, ta, DT_I32), ll_cst_int(e, tb, DT_I32)};
  pr_newline(&e->pr);
  pr_printf(&e->pr, "func.call @shloc_rt_gemm_%s(", dtype_name(dt));
  ll_tmp(e, a);
  pr_puts(&e->pr, ", ");
  ll_tmp(e, b);
  pr_puts(&e->pr, ", ");
  ll_tmp(e, cu);
  for (int i = 0; i < 6; i++) {
    pr_puts(&e->pr, ", ");
    ll_tmp(e, args[i]);
  }
  pr_puts(&e->pr, ") : (");
  unranked(e, dt);
  pr_puts(&e->pr, ", ");
  unranked(e, dt);
  pr_printf(&e->pr, ", memref<*x%s>, i64, i64, i64, i64, i32, i32) -> ()", dtype_name(dt));
  pr_newline(&e->pr);
  ll_results(e, op);
  pr_puts(&e->pr, "bufferization.to_tensor ");
  ll_tmp(e, c);
  pr_puts(&e->pr, " restrict writable : ");
  memref_type(e, ot);
  pr_puts(&e->pr, " to ");
  ll_type(e, ot);
  e->gemm_dtypes |= dt == DT_F32 ? 1u : 2u;
  return NULL;
}

void ll_blas_declarations(ll_emit *e) {
  for (unsigned i = 0; i < 2; i++) {
    if (!(e->gemm_dtypes & (1u << i))) continue;
    const char *t = i ? "f64" : "f32";
    pr_newline(&e->pr);
    pr_printf(&e->pr,
              "func.func private @shloc_rt_gemm_%s(tensor<*x%s> {bufferization.access = \"read\"}, "
              "tensor<*x%s> {bufferization.access = \"read\"}, memref<*x%s>, i64, i64, i64, i64, i32, i32) "
              "attributes {llvm.emit_c_interface}",
              t, t, t, t);
  }
}
