/* Run-time functions that code compiled from `shloc lower --to=linalg` calls
 * (link libshloc, or pass it to mlir-runner with --shared-libs).
 *
 * The lowering expands most ops into upstream dialects; ops it does not
 * expand (sort, fft, convolution, gather/scatter, linear algebra, the CHLO
 * ops, element types upstream cannot compute in, ...) become a call of
 * shloc_rt_op, which runs that one op with shloc's interpreter kernels, so
 * compiled code and `shloc run` agree bit for bit on them.
 *
 * Every argument is a scalar (pointers travel as `index` values), so the
 * ABI is the same with and without upstream's C-interface wrappers; the
 * `_mlir_ciface_` twins are what `--llvm-request-c-wrappers` makes the
 * compiled code call. */
#ifndef SHLOC_AOT_RUNTIME_H
#define SHLOC_AOT_RUNTIME_H

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

#ifdef __cplusplus
}
#endif
#endif
