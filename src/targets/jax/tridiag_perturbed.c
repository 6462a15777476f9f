/* JAX CPU target tridiagonal_solve_perturbed_ffi: jax.lax.linalg.
 * tridiagonal_solve(perturb_singular=True).  Not LAPACK: JAX's own
 * Gaussian elimination with partial (row) pivoting, fused with the forward
 * solve, after LAPACK's xLAGTF/xLAGTS; during back substitution a pivot
 * small enough to overflow 1/pivot or rhs/pivot is moved away from zero by
 * a multiple of eps * max|U| (or the row is rescaled), so numerically
 * singular systems still give finite answers (inverse iteration relies on
 * it).  The steps below follow jaxlib/tridiagonal_solve_perturbed.h.
 *
 * dl, d, du [b..,n] (dl[0], du[n-1] padding), b [b..,n,k] -> x [b..,n,k]
 * (no aliasing); all four of one of the four float types. */
#include <complex.h>
#include <float.h>
#include <math.h>

#include "ffi/ffi.h"
#include "lapack_util.h"

/* One function per type: T element, R its real type, ABS |.|, EPS, RMIN
 * (smallest normal), RMAX of R. */
#define PERTURBED_SOLVER(name, T, R, ABS, EPS, RMIN, RMAX)                                                  \
  static void name##_perturb(R perturb, T *pivot, T *row, int64_t k) {                                       \
    const R one = 1, small = one / RMAX;                                                                     \
    const R safemin = small < RMIN ? RMIN : small * (one + EPS), bignum = one / safemin;                     \
    R ap = ABS(*pivot);                                                                                      \
    if (!(ap < one)) return;                                                                                 \
    perturb = (R)copysign(fmax(fabs(perturb), safemin), creal(*pivot));                                     \
    R maxf = 0;                                                                                              \
    for (int64_t j = 0; j < k; j++) maxf = j ? fmax(maxf, ABS(row[j])) : ABS(row[j]);                        \
    for (bool stop = false; ap < one && !stop; ap = ABS(*pivot)) {                                           \
      if (ap < safemin) {                                                                                    \
        if (ap == 0 || maxf * safemin > ap) {                                                                \
          *pivot += perturb;                                                                                 \
          perturb *= 2;                                                                                      \
        } else {                                                                                             \
          *pivot *= bignum;                                                                                  \
          for (int64_t j = 0; j < k; j++) row[j] *= bignum;                                                  \
          stop = true;                                                                                       \
        }                                                                                                    \
      } else if (maxf > ap * bignum) {                                                                       \
        *pivot += perturb;                                                                                   \
        perturb *= 2;                                                                                        \
      } else {                                                                                               \
        stop = true;                                                                                         \
      }                                                                                                      \
    }                                                                                                        \
  }                                                                                                          \
  /* x and b are n x k column-major; u holds 3n, row k. */                                                  \
  static void name(int64_t n, int64_t k, const T *dl, const T *d, const T *du, const T *b, T *x, T *u,      \
                   T *row) {                                                                                 \
    if (n == 0) return;                                                                                      \
    if (n == 1) {                                                                                            \
      T p = d[0];                                                                                            \
      for (int64_t j = 0; j < k; j++) row[j] = b[j];                                                         \
      name##_perturb(EPS * ABS(p), &p, row, k);                                                              \
      for (int64_t j = 0; j < k; j++) x[j] = row[j] / p;                                                     \
      return;                                                                                                \
    }                                                                                                        \
    /* u[i], u[n+i], u[2n+i]: diagonal, first and second superdiagonal of U */                              \
    T *u0 = u, *u1 = u + n, *u2 = u + 2 * n;                                                                 \
    for (int64_t i = 0; i < 3 * n; i++) u[i] = 0;                                                            \
    u0[0] = d[0];                                                                                            \
    u1[0] = du[0];                                                                                           \
    R max_u = fmax(ABS(u0[0]), ABS(u1[0])), scale1 = ABS(u0[0]) + ABS(u1[0]);                                \
    for (int64_t j = 0; j < k; j++) x[j * n] = b[j * n];                                                     \
    for (int64_t r = 0; r < n - 1; r++) {                                                                    \
      u0[r + 1] = d[r + 1];                                                                                  \
      R scale2 = ABS(dl[r + 1]) + ABS(u0[r + 1]);                                                            \
      if (r < n - 2) scale2 += ABS(du[r + 1]);                                                               \
      if (dl[r + 1] == 0) {                                                                                  \
        scale1 = scale2;                                                                                     \
        u1[r + 1] = du[r + 1];                                                                               \
        u2[r] = 0;                                                                                           \
        for (int64_t j = 0; j < k; j++) x[r + 1 + j * n] = b[r + 1 + j * n];                                 \
      } else {                                                                                               \
        R piv1 = u0[r] == 0 ? 0 : ABS(u0[r]) / scale1, piv2 = ABS(dl[r + 1]) / scale2;                       \
        if (piv2 <= piv1) { /* no row exchange */                                                            \
          scale1 = scale2;                                                                                   \
          T f = dl[r + 1] / u0[r];                                                                           \
          u0[r + 1] -= f * u1[r];                                                                            \
          u1[r + 1] = du[r + 1];                                                                             \
          u2[r] = 0;                                                                                         \
          for (int64_t j = 0; j < k; j++) x[r + 1 + j * n] = b[r + 1 + j * n] - f * x[r + j * n];            \
        } else { /* exchange rows r and r+1 */                                                               \
          T f = u0[r] / dl[r + 1], t = u1[r];                                                                \
          u0[r] = dl[r + 1];                                                                                 \
          u0[r + 1] = t - f * d[r + 1];                                                                      \
          u1[r] = d[r + 1];                                                                                  \
          if (r < n - 2) {                                                                                   \
            u2[r] = du[r + 1];                                                                               \
            u1[r + 1] = -f * du[r + 1];                                                                      \
          }                                                                                                  \
          for (int64_t j = 0; j < k; j++) {                                                                  \
            T xr = x[r + j * n];                                                                             \
            x[r + 1 + j * n] = xr - f * b[r + 1 + j * n];                                                    \
            x[r + j * n] = b[r + 1 + j * n];                                                                 \
          }                                                                                                  \
          scale1 = ABS(u0[r + 1]) + ABS(u1[r + 1]);                                                          \
        }                                                                                                    \
      }                                                                                                      \
      if (r < n - 2) max_u = fmax(max_u, fmax(ABS(u0[r]), fmax(ABS(u1[r]), ABS(u2[r]))));                    \
    }                                                                                                        \
    max_u = fmax(max_u, ABS(u0[n - 1]));                                                                     \
    R perturb = EPS * max_u;                                                                                 \
    /* back substitution, perturbing tiny pivots */                                                         \
    for (int64_t r = n - 1; r >= 0; r--) {                                                                   \
      T p = u0[r];                                                                                           \
      for (int64_t j = 0; j < k; j++) {                                                                      \
        T v = x[r + j * n];                                                                                  \
        if (r + 1 < n) v -= u1[r] * x[r + 1 + j * n];                                                        \
        if (r + 2 < n) v -= u2[r] * x[r + 2 + j * n];                                                        \
        row[j] = v;                                                                                          \
      }                                                                                                      \
      name##_perturb(perturb, &p, row, k); /* it takes the sign of p itself */                              \
      T inv = (T)1 / p;                                                                                      \
      for (int64_t j = 0; j < k; j++) x[r + j * n] = row[j] * inv;                                           \
    }                                                                                                        \
  }

PERTURBED_SOLVER(solve_s, float, float, fabsf, FLT_EPSILON, FLT_MIN, FLT_MAX)
PERTURBED_SOLVER(solve_d, double, double, fabs, DBL_EPSILON, DBL_MIN, DBL_MAX)
PERTURBED_SOLVER(solve_c, float complex, float, cabsf, FLT_EPSILON, FLT_MIN, FLT_MAX)
PERTURBED_SOLVER(solve_z, double complex, double, cabs, DBL_EPSILON, DBL_MIN, DBL_MAX)

static XLA_FFI_Error *perturbed(lk_call *c) {
  lapack_int n, k;
  void *dg[3], *b, *x, *u, *row;
  XLA_FFI_Error *e = lk_arity(c, 4, 1);
  if (!e) e = lk_main(c, 3, &n, &k, &b);
  for (int i = 0; i < 3 && !e; i++) e = lk_arg(c, i, c->dt, LK_DIMS(n), &dg[i]);
  if (!e) e = lk_ret(c, 0, c->dt, LK_DIMS(n, k), &x);
  if (e || (e = lk_alloc(c, 3 * (int64_t)n, c->esz, &u)) || (e = lk_alloc(c, k, c->esz, &row))) return e;
  int64_t step = (int64_t)n * k;
  for (int64_t i = 0; i < c->batch; i++) {
#define SOLVE(fn, T)                                                                                          \
  fn(n, k, (const T *)dg[0] + i * n, (const T *)dg[1] + i * n, (const T *)dg[2] + i * n, (const T *)b + i * step, \
     (T *)x + i * step, u, row)
    switch (c->p) {
      case LK_S: SOLVE(solve_s, float); break;
      case LK_D: SOLVE(solve_d, double); break;
      case LK_C: SOLVE(solve_c, float complex); break;
      case LK_Z: SOLVE(solve_z, double complex); break;
    }
#undef SOLVE
  }
  return NULL;
}

/* One target for the four types: the precision comes from operand 1 (d). */
XLA_FFI_Error *shloc_tridiagonal_solve_perturbed_ffi(XLA_FFI_CallFrame *cf) {
  lk_prec p = LK_S;
  if (cf->struct_size == XLA_FFI_CallFrame_STRUCT_SIZE && !shloc_ffi_is_metadata_query(cf)) {
    const XLA_FFI_Buffer *d = shloc_ffi_arg(cf, 1);
    XLA_FFI_DataType t = d ? d->dtype : XLA_FFI_DataType_INVALID;
    p = t == XLA_FFI_DataType_F64 ? LK_D : t == XLA_FFI_DataType_C64 ? LK_C : t == XLA_FFI_DataType_C128 ? LK_Z : LK_S;
  }
  return lk_run(cf, p, false, perturbed);
}
