/* Shared by the JAX CPU LAPACK targets (lapack_*.c): the handler entry, the
 * checks of every buffer against the shapes the target implies, attribute
 * decoding and scratch memory.
 *
 * Conventions (jax-cpu-targets.md §1): every array is [batch..., rows, cols]
 * or [batch..., len] or [batch...]; the batch is the leading dims of the
 * target's main operand and every other buffer repeats them.  Matrices arrive
 * column-major (JAX's operand_layouts), one after the other; vectors
 * row-major.  Integer outputs are S32 (lapack_int is 32-bit here).
 *
 * A family implementation receives an lk_call with the precision resolved
 * once per call; LK_REAL / LK_CPLX / LK_ANY then call the LAPACKE routine of
 * that precision (a branch per matrix, never per element).  Errors are
 * XLA FFI errors: INVALID_ARGUMENT for shapes, types and attribute values,
 * UNIMPLEMENTED for modes JAX's kernels do not implement either. */
#ifndef SHLOC_TARGETS_JAX_LAPACK_UTIL_H
#define SHLOC_TARGETS_JAX_LAPACK_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "exec/kernels/mathlib.h"
#include "shloc/jax_targets.h"

_Static_assert(sizeof(lapack_int) == sizeof(int32_t), "the S32 pivot/info outputs are written by LAPACK directly");

typedef enum { LK_S, LK_D, LK_C, LK_Z } lk_prec;

#define LK_MAX_SCRATCH 8

typedef struct lk_call {
  XLA_FFI_CallFrame *cf;
  const mathlib *ml;
  lk_prec p;
  XLA_FFI_DataType dt;  /* element type of the main operand */
  XLA_FFI_DataType rdt; /* its real type (eigenvalues, singular values) */
  XLA_FFI_DataType cdt; /* its complex type (real geev's eigenvectors) */
  size_t esz, resz;     /* bytes of dt and rdt */
  /* batch: the leading dims of the main operand (lk_main) */
  int nb;
  const int64_t *bdims;
  int64_t batch;
  void *scratch[LK_MAX_SCRATCH]; /* released when the handler returns */
  int n_scratch;
} lk_call;

typedef XLA_FFI_Error *lk_impl(lk_call *c);

/* The body of every exported handler: answers the metadata query, loads
 * BLAS/LAPACKE (when `lapack`), runs `impl` for precision p and frees its
 * scratch. */
XLA_FFI_Error *lk_run(XLA_FFI_CallFrame *cf, lk_prec p, bool lapack, lk_impl *impl);

#define LK_HANDLER(name, prec, impl) \
  XLA_FFI_Error *shloc_##name##_ffi(XLA_FFI_CallFrame *cf) { return lk_run(cf, prec, true, impl); }

static inline bool lk_complex(const lk_call *c) { return c->p == LK_C || c->p == LK_Z; }

/* An XLA FFI error with a printf-style message. */
XLA_FFI_Error *lk_err(const lk_call *c, XLA_FFI_Error_Code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Checks the operand and result counts. */
XLA_FFI_Error *lk_arity(const lk_call *c, int64_t n_args, int64_t n_rets);

/* Operand i as the main matrix [batch..., rows, cols] of type c->dt: sets the
 * batch and the matrix dims (each at most INT32_MAX, LAPACK's limit). */
XLA_FFI_Error *lk_main(lk_call *c, int i, lapack_int *rows, lapack_int *cols, void **data);

/* lk_main for a square matrix. */
XLA_FFI_Error *lk_square(lk_call *c, int i, lapack_int *n, void **data);

/* Trailing dims for lk_arg / lk_ret: LK_DIMS(a, b) or LK_NODIMS. */
#define LK_DIMS(...) (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]) { __VA_ARGS__ }
#define LK_NODIMS 0, NULL

/* Operand / result i, which must be [batch..., trail...] of type dt. */
XLA_FFI_Error *lk_arg(const lk_call *c, int i, XLA_FFI_DataType dt, int n_trail, const int64_t *trail, void **data);
XLA_FFI_Error *lk_ret(const lk_call *c, int i, XLA_FFI_DataType dt, int n_trail, const int64_t *trail, void **data);
/* Trailing dims (after the batch) of operand / result i, unchecked beyond the
 * batch and rank: for shapes a target takes in more than one form. */
XLA_FFI_Error *lk_arg_dims(const lk_call *c, int i, XLA_FFI_DataType dt, int n_trail, int64_t *trail, void **data);
XLA_FFI_Error *lk_ret_dims(const lk_call *c, int i, XLA_FFI_DataType dt, int n_trail, int64_t *trail, void **data);

/* Copies an aliased operand into its result when the runtime passed two
 * buffers (JAX's kernels do the same), so LAPACK can work in place. */
void lk_copy_in(void *dst, const void *src, size_t bytes);

/* Attribute `name`: a ui8 ASCII char from `valid` (UNIMPLEMENTED when it is
 * in `unimplemented`, may be NULL), an i32, a bool (PRED). */
XLA_FFI_Error *lk_attr_char(const lk_call *c, const char *name, const char *valid, const char *unimplemented,
                            char *out);
XLA_FFI_Error *lk_attr_i32(const lk_call *c, const char *name, int32_t *out);
XLA_FFI_Error *lk_attr_bool(const lk_call *c, const char *name, bool *out);

/* `count` elements of `size` bytes (at least one element), freed when the
 * handler returns; RESOURCE_EXHAUSTED on failure. */
XLA_FFI_Error *lk_alloc(lk_call *c, int64_t count, size_t size, void **out);
/* A workspace length LAPACK reported (the real part of the first element of
 * a query buffer of the call's type) as a lapack_int, at least 1. */
XLA_FFI_Error *lk_query_size(const lk_call *c, const void *query, lapack_int *out);
/* A computed workspace length as a lapack_int, INVALID_ARGUMENT when it does
 * not fit. */
XLA_FFI_Error *lk_size(const lk_call *c, int64_t n, lapack_int *out);

/* max(1, n): LAPACK rejects leading dimensions below 1, even for empty matrices. */
static inline lapack_int lk_ld(lapack_int n) { return n > 1 ? n : 1; }
static inline lapack_int lk_min(lapack_int a, lapack_int b) { return a < b ? a : b; }

/* Calls routine `fn` of the call's precision (column-major), for real types
 * only, complex only, or both (same argument list). */
#define LK_REAL(c, fn, ...)                                                                                      \
  ((c)->p == LK_S ? (c)->ml->s.fn(LAPACK_COL_MAJOR, __VA_ARGS__) : (c)->ml->d.fn(LAPACK_COL_MAJOR, __VA_ARGS__))
#define LK_CPLX(c, fn, ...)                                                                                      \
  ((c)->p == LK_C ? (c)->ml->c.fn(LAPACK_COL_MAJOR, __VA_ARGS__) : (c)->ml->z.fn(LAPACK_COL_MAJOR, __VA_ARGS__))
#define LK_ANY(c, fn, ...) (lk_complex(c) ? LK_CPLX(c, fn, __VA_ARGS__) : LK_REAL(c, fn, __VA_ARGS__))

/* Advances a pointer by n elements of `size` bytes. */
static inline void *lk_at(void *p, int64_t n, size_t size) { return (char *)p + (size_t)n * size; }

#endif
