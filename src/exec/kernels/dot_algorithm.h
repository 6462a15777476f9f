/* dot_general's `algorithm` attribute (#stablehlo.dot_algorithm<...>):
 * checked against the spec at plan time and carried out around the plain
 * f32 product (dot.c), or refused.  Operands are split into components
 * rounded to the algorithm's precision type; the component products, each
 * accumulated in f32, are summed the way XLA:CPU defines them
 * (xla/hlo/transforms/dot_algorithm_rewriter). */
#ifndef SHLOC_EXEC_KERNELS_DOT_ALGORITHM_H
#define SHLOC_EXEC_KERNELS_DOT_ALGORITHM_H

#include "exec/plan.h"
#include "kconvert.h"

typedef enum {
  DOT_ALG_DEFAULT, /* absent, or the operand types' own product (F32_F32_F32, F64_F64_F64) */
  DOT_ALG_BF16,    /* BF16_BF16_F32: inputs rounded to bf16 */
  DOT_ALG_TF32,    /* TF32_TF32_F32: inputs rounded to tf32 */
  DOT_ALG_F16,     /* F16_F16_F32: inputs rounded to f16 */
  DOT_ALG_BF16_X3, /* BF16_BF16_F32_X3: f32 = hi + lo in bf16, 3 products */
  DOT_ALG_BF16_X6, /* BF16_BF16_F32_X6: f32 = hi + mid + lo in bf16, 6 products */
} dot_alg;

/* The algorithm of a dot_general whose products run in compute type ck:
 * SHLOC_ERR_VERIFY when the attribute breaks the spec's constraints,
 * SHLOC_ERR_UNSUPPORTED for a valid algorithm shloc does not carry out. */
shl_status dot_algorithm_of(const shl_op *op, ku_ck ck, dot_alg *out);

/* One f32 product C = A x B over every batch (the caller's layout). */
typedef void (*dot_alg_product)(const void *ctx, const float *a, const float *b, float *c);

/* C (nc floats) for algorithm alg (not DOT_ALG_DEFAULT) from the f32
 * operand data A (na floats) and B (nb floats). */
shl_status dot_algorithm_run(dot_alg alg, const float *A, int64_t na, const float *B, int64_t nb, float *C, int64_t nc,
                             dot_alg_product product, const void *ctx);

#endif
