/* XLA's X64SplitLow / X64SplitHigh / X64Combine custom calls: a 64-bit
 * value carried as two 32-bit halves (how XLA's TPU pipeline keeps x64
 * values, which Shardy's round-trip export then passes through
 * xla.sdy.GlobalToLocalShape as tuples).  Integers split into the low and
 * high 32 bits (ui32 or i32 halves); f64 into two f32 as XLA's ef57.h
 * splits it: high = the f64 rounded to f32, low = the rest rounded to f32
 * (0 when high is not finite), combined as f64(high) + f64(low). */
#ifndef SHLOC_TARGETS_JAX_X64_SPLIT_H
#define SHLOC_TARGETS_JAX_X64_SPLIT_H

#include "ir/ir.h"

/* Checks operand and result types of a split (high: X64SplitHigh) or a
 * combine; errors name the op and the target. */
shl_status jax_x64_check(const shl_op *op, shl_str name, bool combine);
/* out[i] = the low or high half of x[i] (t: x's element type). */
void jax_x64_split(shl_dtype t, const void *x, int64_t n, bool high, void *out);
/* out[i] = the t value of halves lo[i], hi[i]. */
void jax_x64_combine(shl_dtype t, const void *lo, const void *hi, int64_t n, void *out);

#endif
