/* Opening OpenBLAS and LAPACKE on first use: see mathlib.h. */
#include "mathlib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static mathlib lib;
static char load_error[256]; /* empty when loaded */
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/* The first of names that dlopen finds, or NULL with load_error set. */
static void *open_first(const char *const *names, size_t n) {
  for (size_t i = 0; i < n; i++) {
    void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (h) return h;
  }
  const char *why = dlerror();
  int len = snprintf(load_error, sizeof load_error, "cannot load");
  for (size_t i = 0; i < n && len > 0 && (size_t)len < sizeof load_error; i++)
    len += snprintf(load_error + len, sizeof load_error - (size_t)len, "%s %s", i ? "," : "", names[i]);
  if (len > 0 && (size_t)len < sizeof load_error)
    snprintf(load_error + len, sizeof load_error - (size_t)len, " (last: %s)", why ? why : "not found");
  return NULL;
}

/* Symbol `name` of h into *fn; false with load_error set when it is missing. */
static bool bind(void *h, const char *libname, const char *name, void *fn) {
  void *p = dlsym(h, name);
  if (!p) {
    snprintf(load_error, sizeof load_error, "%s has no %s", libname, name);
    return false;
  }
  memcpy(fn, &p, sizeof p); /* object pointer -> function pointer, as POSIX dlsym requires */
  return true;
}

static void load(void) {
  /* libblas.so.3 is Debian's BLAS alternative, CBLAS included */
  static const char *const blas_names[] = {"libopenblas.so.0", "libopenblas.so", "libblas.so.3"};
  static const char *const lapacke_names[] = {"liblapacke.so.3", "liblapacke.so"};
  void *blas = open_first(blas_names, sizeof blas_names / sizeof *blas_names);
  void *lapacke = blas ? open_first(lapacke_names, sizeof lapacke_names / sizeof *lapacke_names) : NULL;
  if (!lapacke) return;
  mathlib m = {0};
  bool ok = bind(blas, "BLAS", "cblas_sgemm", &m.sgemm) && bind(blas, "BLAS", "cblas_dgemm", &m.dgemm) &&
            bind(blas, "BLAS", "cblas_cgemm", &m.cgemm) && bind(blas, "BLAS", "cblas_zgemm", &m.zgemm) &&
            bind(blas, "BLAS", "cblas_strsm", &m.strsm) && bind(blas, "BLAS", "cblas_dtrsm", &m.dtrsm) &&
            bind(blas, "BLAS", "cblas_ctrsm", &m.ctrsm) && bind(blas, "BLAS", "cblas_ztrsm", &m.ztrsm) &&
            bind(lapacke, "LAPACKE", "LAPACKE_spotrf", &m.spotrf) && bind(lapacke, "LAPACKE", "LAPACKE_dpotrf", &m.dpotrf) &&
            bind(lapacke, "LAPACKE", "LAPACKE_cpotrf", &m.cpotrf) && bind(lapacke, "LAPACKE", "LAPACKE_zpotrf", &m.zpotrf);
#define BIND_WORK(p, field, routine) &&bind(lapacke, "LAPACKE", "LAPACKE_" #p #routine "_work", &m.p.field)
  ok = ok MATHLIB_LAPACK_REAL(BIND_WORK, s) MATHLIB_LAPACK_REAL(BIND_WORK, d) MATHLIB_LAPACK_CPLX(BIND_WORK, c)
      MATHLIB_LAPACK_CPLX(BIND_WORK, z);
#undef BIND_WORK
  if (!ok) return;
  /* optional: only OpenBLAS has them */
  if (bind(blas, "BLAS", "openblas_get_num_threads", &m.get_threads) &&
      !bind(blas, "BLAS", "openblas_set_num_threads", &m.set_threads))
    m.get_threads = NULL;
  load_error[0] = '\0';
  lib = m;
}

shl_status mathlib_require(const shl_op *op) {
  pthread_once(&load_once, load);
  if (!load_error[0]) return NULL;
  if (!op) return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL, "BLAS/LAPACKE: %s", load_error);
  return op_error(op, SHLOC_ERR_UNSUPPORTED, "needs BLAS/LAPACKE: %s", load_error);
}

const mathlib *mathlib_get(void) { return &lib; }
