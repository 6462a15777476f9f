/* The table of built-in custom-call targets (builtin_targets.h).  Add a row
 * per target; lookups happen once per call site while planning. */
#include "targets/builtin_targets.h"

#include <string.h>

#include "shloc/jax_targets.h"

/* JAX's CPU LAPACK targets (src/targets/jax): lapack_X_ffi -> shloc_lapack_X_ffi. */
#define LAPACK_ROW(x) {"lapack_" #x "_ffi", "shloc_lapack_" #x "_ffi", shloc_lapack_##x##_ffi},

static const builtin_target table[] = {
    LAPACK_ROW(strsm) LAPACK_ROW(dtrsm) LAPACK_ROW(ctrsm) LAPACK_ROW(ztrsm)
    LAPACK_ROW(sgetrf) LAPACK_ROW(dgetrf) LAPACK_ROW(cgetrf) LAPACK_ROW(zgetrf)
    LAPACK_ROW(spotrf) LAPACK_ROW(dpotrf) LAPACK_ROW(cpotrf) LAPACK_ROW(zpotrf)
    LAPACK_ROW(sgeqrf) LAPACK_ROW(dgeqrf) LAPACK_ROW(cgeqrf) LAPACK_ROW(zgeqrf)
    LAPACK_ROW(sgeqp3) LAPACK_ROW(dgeqp3) LAPACK_ROW(cgeqp3) LAPACK_ROW(zgeqp3)
    LAPACK_ROW(sorgqr) LAPACK_ROW(dorgqr) LAPACK_ROW(cungqr) LAPACK_ROW(zungqr)
    LAPACK_ROW(sormqr) LAPACK_ROW(dormqr) LAPACK_ROW(cunmqr) LAPACK_ROW(zunmqr)
    LAPACK_ROW(ssyevd) LAPACK_ROW(dsyevd) LAPACK_ROW(cheevd) LAPACK_ROW(zheevd)
    LAPACK_ROW(sgeev) LAPACK_ROW(dgeev) LAPACK_ROW(cgeev) LAPACK_ROW(zgeev)
    LAPACK_ROW(sgesdd) LAPACK_ROW(dgesdd) LAPACK_ROW(cgesdd) LAPACK_ROW(zgesdd)
    LAPACK_ROW(sgesvd) LAPACK_ROW(dgesvd) LAPACK_ROW(cgesvd) LAPACK_ROW(zgesvd)
    LAPACK_ROW(sgees) LAPACK_ROW(dgees) LAPACK_ROW(cgees) LAPACK_ROW(zgees)
    LAPACK_ROW(sgehrd) LAPACK_ROW(dgehrd) LAPACK_ROW(cgehrd) LAPACK_ROW(zgehrd)
    LAPACK_ROW(ssytrd) LAPACK_ROW(dsytrd) LAPACK_ROW(chetrd) LAPACK_ROW(zhetrd)
    LAPACK_ROW(sgtsv) LAPACK_ROW(dgtsv) LAPACK_ROW(cgtsv) LAPACK_ROW(zgtsv)
    {"tridiagonal_solve_perturbed_ffi", "shloc_tridiagonal_solve_perturbed_ffi",
     shloc_tridiagonal_solve_perturbed_ffi},
};

const builtin_target *builtin_target_find(const char *name, size_t len) {
  for (size_t i = 0; i < sizeof table / sizeof *table; i++)
    if (strlen(table[i].target) == len && memcmp(table[i].target, name, len) == 0) return &table[i];
  return NULL;
}
