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

#endif
