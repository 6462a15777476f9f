/* Quantized tensors (!quant.uniform): element conversions shared by the
 * quantization kernels (quant_*.c), and the kernel the planner picks for an
 * op that has quantized operands or results.
 *
 * Numerics follow StableHLO's reference interpreter, which runs quantized
 * programs through its quant-to-integer lowering: quantize divides by the
 * scale and adds the zero point in f32, clamps to the storage range, rounds
 * to nearest even; dequantize subtracts the zero point in i32 and multiplies
 * by the scale in f32; requantization multiplies by one merged scale and adds
 * one merged zero point in f32.  Other expressed types compute the spec's
 * formulas rounded to the expressed type at each step. */
#ifndef SHLOC_EXEC_KERNELS_QUANT_H
#define SHLOC_EXEC_KERNELS_QUANT_H

#include "exec/plan.h"

/* A quantized buffer seen as [outer][channels][inner]: channel c uses
 * scales[c] and zero_points[c] (per-tensor: one channel). */
typedef struct {
  int64_t outer, channels, inner;
} quant_layout;

quant_layout quant_layout_of(const shl_type *t);

/* The expressed-type tensor of quantized tensor type t (same shape). */
const shl_type *quant_expressed_type(plan_ctx *pc, const shl_type *t);

/* dst (expressed type of t) = dequantize(src (storage of t)). */
void quant_dequantize(const shl_type *t, const void *src, void *dst);
/* dst (storage of t) = quantize(src, t); src holds t's expressed type. */
void quant_quantize(const shl_type *t, const void *src, void *dst);
/* dst (storage of tout) = src (storage of tin) requantized; both per-tensor,
 * or per-axis along the same dimension. */
void quant_requantize(const shl_type *tin, const shl_type *tout, const void *src, void *dst);
/* Checks what quant_requantize needs (per-axis along the same dimension). */
shl_status quant_requantize_check(const shl_op *op, const shl_type *tin, const shl_type *tout);

/* Runs of n storage elements from element off (loads every stride-th) as
 * int64, typed loops. */
void quant_load_run(shl_dtype storage, const void *src, int64_t off, int64_t stride, int64_t n, int64_t *dst);
void quant_store_run(shl_dtype storage, void *dst, int64_t off, int64_t n, const int64_t *src);

/* dst = n storage elements (every stride-th from element off) minus zp, for
 * 8-bit and narrower storage (the differences fit i16). */
void quant_center16_run(shl_dtype storage, const void *src, int64_t off, int64_t stride, int64_t n, int64_t zp,
                        int16_t *dst);

/* Round half to even without a library call (baseline x86-64 has no
 * roundss): below 2^23 (2^52), adding and subtracting 2^23 (2^52) with r's
 * sign rounds in the current (nearest-even) mode; beyond, values are
 * integers already. */
static inline float quant_rintf(float r) {
  float t = __builtin_copysignf(0x1p23f, r);
  return __builtin_fabsf(r) < 0x1p23f ? (r + t) - t : r;
}
static inline double quant_rint(double r) {
  double t = __builtin_copysign(0x1p52, r);
  return __builtin_fabs(r) < 0x1p52 ? (r + t) - t : r;
}

/* Loads / stores element i of a storage buffer as an integer (typed loops
 * are used for bulk work; these serve the integer kernels' edges). */
int64_t quant_load(shl_dtype storage, const void *p, int64_t i);

/* Integer GEMM (quant_gemm.c): C[M x N] (i32) = A[M x K] (i16, rows of
 * lda >= K rounded up to even, zero-padded) x B[K x N] (i16, row-major,
 * packed first by quant_gemm_pack_b into quant_gemm_packed_size bytes). */
size_t quant_gemm_packed_size(int64_t K, int64_t N);
void quant_gemm_pack_b(int64_t K, int64_t N, const int16_t *B, int64_t ldb, int16_t *packed);
void quant_gemm(int64_t M, int64_t N, int64_t K, const int16_t *A, int64_t lda, const int16_t *packed, int32_t *C,
                int64_t ldc);
/* The same with a given instruction set (tests run each one the machine has). */
typedef enum { QUANT_ISA_C, QUANT_ISA_AVX2, QUANT_ISA_AVX512VNNI } quant_isa;
quant_isa quant_gemm_best_isa(void);
void quant_gemm_isa(quant_isa isa, int64_t M, int64_t N, int64_t K, const int16_t *A, int64_t lda, const int16_t *packed,
                    int32_t *C, int64_t ldc);

/* The kernel for an op with quantized operands or results, or NULL when the
 * op has none (the op table's kernel applies). */
const shl_kernel *quant_kernel_for(const shl_op *op);

extern const shl_kernel kernel_quant_storage; /* storage-level ops: the op's own kernel */
extern const shl_kernel kernel_quant_qdq;     /* dequantize, float op, quantize */
extern const shl_kernel kernel_quant_add;     /* per-tensor add in integers */
extern const shl_kernel kernel_quant_dot;     /* dot_general / dot / convolution in integers */

#endif
