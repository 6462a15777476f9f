/* Pass: a verified static StableHLO module -> upstream MLIR text (func,
 * arith, math, tensor, linalg, scf, memref, bufferization, cf) that mlir-opt
 * parses with no unregistered dialect.  Custom calls are first rewritten by
 * pass_lower_custom_calls (func.call of external functions).  Ops with a
 * native pattern are expanded; check.* ops and custom calls become calls of
 * libshloc's check runtime, f32/f64 dot_general calls of its GEMM, and every
 * other op a call of shloc_rt_op (include/shloc/aot_runtime.h), which runs it
 * with the interpreter's kernels.  Collectives, tokens and dynamic shapes are
 * an error naming the op and its location; nothing is dropped (README
 * "Compiling through upstream MLIR"). */
#ifndef SHLOC_PASSES_LOWER_LINALG_H
#define SHLOC_PASSES_LOWER_LINALG_H

#include "ir/ir.h"

/* Lowers `m` (custom calls are rewritten in place first) and returns the
 * malloc'd text in *out / *out_len.  On error *out is NULL. */
shl_status pass_lower_linalg(shloc_module *m, char **out, size_t *out_len);

typedef struct {
  /* Prepended to the symbol of every function with a body (and to its
   * calls), so that compiled functions cannot clash with C symbols (`main`)
   * or other modules' functions; NULL = none.  External declarations (custom
   * calls, runtime functions) keep their names. */
  const char *func_prefix;
  /* Non-NULL: *schedule gets the transform-dialect module that tiles the
   * large ops into scf.forall loops for threads (malloc'd; NULL when no op
   * is large enough), the module `shloc compile` preloads. */
  char **schedule;
} pass_lower_linalg_options;

/* pass_lower_linalg with options (NULL = defaults). */
shl_status pass_lower_linalg_with(shloc_module *m, const pass_lower_linalg_options *opts, char **out,
                                  size_t *out_len);

#endif
