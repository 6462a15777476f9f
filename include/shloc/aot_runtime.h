/* Runtime that code compiled by `shloc compile` calls into (link libshloc).
 *
 * `shloc lower --to=linalg` turns what upstream MLIR cannot express into
 * calls of external functions; upstream's C interface calls them as
 * `_mlir_ciface_NAME` with pointers to memref descriptors.  This header
 * declares those functions and the descriptor layouts they receive.  A
 * ranked descriptor is {allocated, aligned, offset, sizes[rank],
 * strides[rank]} (rank 0: the first three); an unranked one is {rank,
 * pointer to a ranked descriptor}. */
#ifndef SHLOC_AOT_RUNTIME_H
#define SHLOC_AOT_RUNTIME_H

#include "shloc/shloc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An unranked memref descriptor (`memref<*xT>` in the C interface). */
typedef struct {
  int64_t rank;
  void *descriptor; /* {allocated, aligned, offset, sizes[rank], strides[rank]} */
} shloc_aot_unranked;

/* ==== check runtime and executable driver (issue #17, `shloc compile`) ====
 *
 * check.* ops (the check dialect and the check.* custom calls) lower to
 *
 *   _mlir_ciface_shloc_rt_check_<T>(actual, expected, kind, tolerance,
 *                                   min_ulp, max_ulp, line, col)
 *
 * with <T> the element type's MLIR name (i1, i8, ..., ui64, f16, bf16, f32,
 * f64, complex_f32, complex_f64; tensors of any strides), `kind` a
 * shloc_aot_check_kind, and line/col the check's position in the source.
 * Semantics are the interpreter's (`shloc test`): exact equality (NaN
 * matches NaN), absolute tolerance, ULP distance.  A failing check does not
 * stop the program: the runtime counts it and keeps the first failure; the
 * executables `shloc compile -o EXE` builds exit 1 when any check failed.
 * Counters are process-wide (atomic). */
typedef enum {
  SHLOC_AOT_EXPECT_EQ = 0,             /* exact */
  SHLOC_AOT_EXPECT_ALMOST_EQ = 1,      /* |a - e| <= tolerance */
  SHLOC_AOT_EXPECT_CLOSE = 2,          /* min_ulp <= ULP distance <= max_ulp */
  SHLOC_AOT_EXPECT_EQ_CONST = 3,       /* exact, against an attribute */
  SHLOC_AOT_EXPECT_ALMOST_EQ_CONST = 4 /* tolerance, against an attribute */
} shloc_aot_check_kind;

#define SHLOC_AOT_CHECK_DECL(T, name)                                                                     \
  SHLOC_API void _mlir_ciface_shloc_rt_check_##name(const shloc_aot_unranked *actual,                    \
                                                    const shloc_aot_unranked *expected, int32_t kind,     \
                                                    double tolerance, int64_t min_ulp, int64_t max_ulp, \
                                                    int32_t line, int32_t col);
SHLOC_AOT_CHECK_DECL(i1, i1)
SHLOC_AOT_CHECK_DECL(i8, i8)
SHLOC_AOT_CHECK_DECL(i16, i16)
SHLOC_AOT_CHECK_DECL(i32, i32)
SHLOC_AOT_CHECK_DECL(i64, i64)
SHLOC_AOT_CHECK_DECL(ui8, ui8)
SHLOC_AOT_CHECK_DECL(ui16, ui16)
SHLOC_AOT_CHECK_DECL(ui32, ui32)
SHLOC_AOT_CHECK_DECL(ui64, ui64)
SHLOC_AOT_CHECK_DECL(f16, f16)
SHLOC_AOT_CHECK_DECL(bf16, bf16)
SHLOC_AOT_CHECK_DECL(f32, f32)
SHLOC_AOT_CHECK_DECL(f64, f64)
SHLOC_AOT_CHECK_DECL(complex_f32, complex_f32)
SHLOC_AOT_CHECK_DECL(complex_f64, complex_f64)
#undef SHLOC_AOT_CHECK_DECL

/* Checks executed and failed so far in this process. */
SHLOC_API uint64_t shloc_aot_checks_run(void);
SHLOC_API uint64_t shloc_aot_checks_failed(void);
/* A copy of the first failure (code SHLOC_ERR_CHECK, the check's line:col
 * and op name, the message naming index, actual and expected values), or
 * NULL when no check failed; the caller frees it.  `file` names the source
 * in the copy (may be NULL). */
SHLOC_API shloc_status shloc_aot_check_first_failure(const char *file);

/* dot_general on f32/f64 (lowered to a BLAS GEMM per batch when the
 * operands' layouts allow, see README):
 *   C[b] = op(A[b]) * op(B[b]) for b < batch, row-major, with
 *   op(X) = X or X^T (trans_a / trans_b nonzero), A[b] m x k (k x m when
 *   transposed), B[b] k x n (n x k), C[b] m x n, densely packed. */
SHLOC_API void _mlir_ciface_shloc_rt_gemm_f32(const shloc_aot_unranked *a, const shloc_aot_unranked *b,
                                              const shloc_aot_unranked *c, int64_t batch, int64_t m, int64_t n,
                                              int64_t k, int32_t trans_a, int32_t trans_b);
SHLOC_API void _mlir_ciface_shloc_rt_gemm_f64(const shloc_aot_unranked *a, const shloc_aot_unranked *b,
                                              const shloc_aot_unranked *c, int64_t batch, int64_t m, int64_t n,
                                              int64_t k, int32_t trans_a, int32_t trans_b);

/* memref.copy between memrefs that are not both contiguous (upstream MLIR
 * lowers it to this call; the name and signature are those of MLIR's
 * c_runner_utils, which compiled code would otherwise need). */
SHLOC_API void memrefCopy(int64_t elem_size, const shloc_aot_unranked *src, const shloc_aot_unranked *dst);

/* The executable driver: reading inputs and writing results of a compiled
 * entry point whose argument/result types are MLIR tensor types
 * ("tensor<4x8xf32>").  .npy conventions as in `shloc run`. */

/* Reads the .npy file `path` as argument #index of type `type`; on success
 * *out is a malloc'd buffer of the type's row-major storage (free() it).
 * Errors name the file and the expected and actual types. */
SHLOC_API shloc_status shloc_aot_read_npy(const char *path, const char *type, uint32_t index, void **out);
/* Writes `data` (row-major storage of `type`) to `path` as .npy, atomically. */
SHLOC_API shloc_status shloc_aot_write_npy(const char *path, const char *type, const void *data);
/* Formats `data` as `shloc run --print` does (`dense<...> : tensor<...>`);
 * *out is malloc'd and NUL-terminated. */
SHLOC_API shloc_status shloc_aot_format(const char *type, const void *data, char **out);

/* ==== end of the check runtime and executable driver ==== */

#ifdef __cplusplus
}
#endif
#endif
