/* Element-wise comparison shared by the check ops and check.* targets. */
#ifndef SHLOC_EXEC_KERNELS_CHECK_H
#define SHLOC_EXEC_KERNELS_CHECK_H

#include "exec/exec.h"

typedef enum { CHECK_EXACT, CHECK_ALMOST, CHECK_ULP } check_mode;

/* Compares actual against expected data (same type); returns a
 * SHLOC_ERR_CHECK status describing the first mismatch. */
shl_status check_compare(const shl_op *op, check_mode mode, const shl_buf *actual, const void *expected, double tol,
                         uint64_t min_ulp, uint64_t max_ulp, bool *all_ok);
/* The same for a check known by its name and position only (compiled code's
 * check runtime, src/aot/rt_check.c); `pos` may be NULL. */
shl_status check_compare_at(const shl_srcpos *pos, const char *name, check_mode mode, const shl_buf *actual,
                            const void *expected, double tol, uint64_t min_ulp, uint64_t max_ulp, bool *all_ok);

#endif
