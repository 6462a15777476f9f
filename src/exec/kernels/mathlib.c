/* Opening OpenBLAS and LAPACKE on first use: see mathlib.h. */
#include "mathlib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static mathlib lib;
/* Empty when loaded.  BLAS and LAPACKE load separately: LAPACKE (with the
 * reference LAPACK and BLAS wrappers it links) adds ~0.8 MB of resident pages
 * that only factorizations need. */
static char blas_error[256], lapack_error[256];
static pthread_once_t blas_once = PTHREAD_ONCE_INIT, lapack_once = PTHREAD_ONCE_INIT;

/* The first of names that dlopen finds, or NULL with the error text in load_error. */
static void *open_first(const char *const *names, size_t n, char *load_error, size_t size) {
  for (size_t i = 0; i < n; i++) {
    void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (h) return h;
  }
  const char *why = dlerror();
  int len = snprintf(load_error, size, "cannot load");
  for (size_t i = 0; i < n && len > 0 && (size_t)len < size; i++)
    len += snprintf(load_error + len, size - (size_t)len, "%s %s", i ? "," : "", names[i]);
  if (len > 0 && (size_t)len < size)
    snprintf(load_error + len, size - (size_t)len, " (last: %s)", why ? why : "not found");
  return NULL;
}

/* Symbol `name` of h into *fn; false with err (blas_error or lapack_error)
 * set when it is missing. */
static bool bind(void *h, char *err, const char *name, void *fn) {
  void *p = dlsym(h, name);
  if (!p) {
    snprintf(err, sizeof blas_error, "%s has no %s", err == blas_error ? "BLAS" : "LAPACKE", name);
    return false;
  }
  memcpy(fn, &p, sizeof p); /* object pointer -> function pointer, as POSIX dlsym requires */
  return true;
}

static void load_blas(void) {
  /* libblas.so.3 is Debian's BLAS alternative, CBLAS included */
  static const char *const blas_names[] = {"libopenblas.so.0", "libopenblas.so", "libblas.so.3"};
  void *blas = open_first(blas_names, sizeof blas_names / sizeof *blas_names, blas_error, sizeof blas_error);
  if (!blas) return;
  mathlib *m = &lib;
  bool ok = bind(blas, blas_error, "cblas_sgemm", &m->sgemm) && bind(blas, blas_error, "cblas_dgemm", &m->dgemm) &&
            bind(blas, blas_error, "cblas_cgemm", &m->cgemm) && bind(blas, blas_error, "cblas_zgemm", &m->zgemm) &&
            bind(blas, blas_error, "cblas_strsm", &m->strsm) && bind(blas, blas_error, "cblas_dtrsm", &m->dtrsm) &&
            bind(blas, blas_error, "cblas_ctrsm", &m->ctrsm) && bind(blas, blas_error, "cblas_ztrsm", &m->ztrsm);
  if (!ok) return;
  /* optional: only OpenBLAS has them */
  if (bind(blas, blas_error, "openblas_get_num_threads", &m->get_threads) &&
      !bind(blas, blas_error, "openblas_set_num_threads", &m->set_threads))
    m->get_threads = NULL;
  blas_error[0] = '\0';
}

static void load_lapack(void) {
  static const char *const lapacke_names[] = {"liblapacke.so.3", "liblapacke.so"};
  void *lapacke = open_first(lapacke_names, sizeof lapacke_names / sizeof *lapacke_names, lapack_error,
                             sizeof lapack_error);
  if (!lapacke) return;
  /* lib's BLAS fields are in use by now: fill in only LAPACKE's */
  mathlib *m = &lib;
  bool ok = bind(lapacke, lapack_error, "LAPACKE_spotrf", &m->spotrf) && bind(lapacke, lapack_error, "LAPACKE_dpotrf", &m->dpotrf) &&
            bind(lapacke, lapack_error, "LAPACKE_cpotrf", &m->cpotrf) && bind(lapacke, lapack_error, "LAPACKE_zpotrf", &m->zpotrf);
#define BIND_WORK(p, field, routine) &&bind(lapacke, lapack_error, "LAPACKE_" #p #routine "_work", &m->p.field)
  ok = ok MATHLIB_LAPACK_REAL(BIND_WORK, s) MATHLIB_LAPACK_REAL(BIND_WORK, d) MATHLIB_LAPACK_CPLX(BIND_WORK, c)
      MATHLIB_LAPACK_CPLX(BIND_WORK, z);
#undef BIND_WORK
  if (ok) lapack_error[0] = '\0';
}

/* The status for a library that failed to load (error text err), or NULL. */
static shl_status load_status(const shl_op *op, const char *what, const char *err) {
  if (!err[0]) return NULL;
  if (!op) return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL, "%s: %s", what, err);
  return op_error(op, SHLOC_ERR_UNSUPPORTED, "needs %s: %s", what, err);
}

shl_status mathlib_require(const shl_op *op) {
  pthread_once(&blas_once, load_blas);
  return load_status(op, "BLAS/LAPACKE", blas_error);
}

shl_status mathlib_require_lapack(const shl_op *op) {
  ST_TRY(mathlib_require(op));
  pthread_once(&lapack_once, load_lapack);
  return load_status(op, "BLAS/LAPACKE", lapack_error);
}

const mathlib *mathlib_get(void) { return &lib; }
