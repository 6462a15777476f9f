/* Folds with a single-op body (add, multiply, max, min, and, or, xor) on one
 * element type, shared by reduce and reduce_window.  Offsets count
 * elements.  Each output folds its elements in the order given, starting
 * from its initial value, so results do not depend on how callers split
 * the work. */
#ifndef SHLOC_EXEC_KERNELS_REDUCE_H
#define SHLOC_EXEC_KERNELS_REDUCE_H

#include "kutil.h"

/* Whether the folds handle binop on element type t. */
bool fold_fast_ok(shl_opid binop, shl_dtype t);
/* out[o] = init OP src[bases[o] + offs[0]] OP src[bases[o] + offs[1]] ...
 * for o < n_out (bases NULL: 0 for every output). */
void fold_lists(shl_dtype t, shl_opid binop, const void *src, const int64_t *bases, int64_t n_out, const int64_t *offs,
                int64_t cnt, const void *init, void *out);
/* dst[j] = dst[j] OP src[rel[0] + j] OP src[rel[1] + j] ... for j < len:
 * len outputs at once, vectorised across them (column reductions, windows
 * over rows). */
void fold_rows(shl_dtype t, shl_opid binop, const void *src, const int64_t *rel, int64_t n_rel, int64_t len, void *dst);
/* dst[j] = *init for j < len. */
void fold_fill(shl_dtype t, const void *init, int64_t len, void *dst);

/* Promotion (spec: is_promotable): a reduction's inputs and init values may
 * have a narrower element type than its body computes in.  At plan time,
 * `*to` gets per operand (n_ops = 2N: inputs, then init values) the type of
 * the body argument it meets (element, resp. accumulator), or DT_INVALID
 * when it already has it; *to stays NULL when no operand needs widening.  Errors name the op. */
shl_status reduce_promotion(plan_ctx *pc, const shl_op *op, const shl_block *body, shl_dtype **to);
/* At run time: views[k] is operand k widened per `to` (into one malloc'd
 * block returned in *mem, to free after the fold) or operand k itself. */
shl_status reduce_promote(const shl_op *op, const shl_dtype *to, uint32_t n_ops, shl_buf *const *in, shl_buf *views,
                          shl_buf **ptrs, void **mem);

#endif
