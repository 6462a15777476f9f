/* Run-time functions that code compiled from `shloc lower --to=linalg` /
 * `shloc compile` calls (link libshloc, or pass it to mlir-runner with
 * --shared-libs).
 *
 * The lowering expands most ops into upstream dialects.  Ops it does not
 * expand (sort, fft, convolution, scatter, linear algebra, the CHLO ops,
 * element types upstream cannot compute in, ...) become a call of
 * shloc_rt_op, which runs that one op with shloc's interpreter kernels, so
 * compiled code and `shloc run` agree bit for bit on them; check.* ops and
 * f32/f64 dot_general call the functions of the second block.
 *
 * shloc_rt_op takes scalars only (pointers travel as `index` values), so its
 * ABI is the same with and without upstream's C-interface wrappers; the
 * `_mlir_ciface_` names are what `--llvm-request-c-wrappers` makes compiled
 * code call, with pointers to memref descriptors: a ranked descriptor is
 * {allocated, aligned, offset, sizes[rank], strides[rank]} (rank 0: the
 * first three); an unranked one is {rank, pointer to a ranked descriptor}. */
#ifndef SHLOC_AOT_RUNTIME_H
#define SHLOC_AOT_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "shloc/shloc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs the op of |text|: MLIR text of one function @main (|len| bytes) made
 * of that op alone, as the lowering writes it.  |bufs| holds |n| pointers:
 * one row-major buffer per argument of @main, then one per result (caller
 * allocated, of the result's size; they may not overlap the arguments).
 * Elements are stored as shloc stores them (sub-byte types one per byte,
 * unsigned types as their bits).  |cache| is a pointer-sized slot owned by
 * the call site, initially 0: the parsed and planned op is kept there on
 * first use (once, even when threads race) and lives until the process
 * exits.  Returns 0, or the shloc_code of the failure (bad text, wrong |n|). */
SHLOC_API int32_t shloc_rt_op(void **cache, const char *text, int64_t len, void *const *bufs, int64_t n);
/* Frees the op prepared in |cache| and sets it back to 0 (for hosts that
 * unload compiled code; no call of that site may be running). */
SHLOC_API void shloc_rt_op_release(void **cache);
SHLOC_API int32_t _mlir_ciface_shloc_rt_op(void **cache, const char *text, int64_t len, void *const *bufs,
                                           int64_t n);

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

/* The heap of compiled code (finalize-memref-to-llvm's use-generic-functions
 * names): blocks of 2 MiB and more are 2 MiB aligned, on transparent huge
 * pages, and kept when freed for later allocations of a similar size (up to
 * 1 GiB in 32 blocks), so that temporaries of one call are the pages of the
 * previous call.  Smaller blocks are malloc's. */
SHLOC_API void *_mlir_memref_to_llvm_alloc(size_t n);
SHLOC_API void *_mlir_memref_to_llvm_aligned_alloc(size_t align, size_t n);
SHLOC_API void _mlir_memref_to_llvm_free(void *p);

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

/* expm1 on f32 exactly as the interpreter (XLA:CPU) computes it; compiled
 * code calls it for stablehlo.exponential_minus_one on f32 and narrower. */
SHLOC_API float shloc_rt_expm1f(float x);
/* exp and log on f32 as the interpreter (XLA:CPU's polynomials) computes
 * them; compiled code calls them inside complex<f32> power. */
SHLOC_API float shloc_rt_expf(float x);
SHLOC_API float shloc_rt_logf(float x);

/* ==== end of the check runtime and executable driver ==== */

#ifdef __cplusplus
}
#endif
#endif
