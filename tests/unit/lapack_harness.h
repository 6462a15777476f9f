/* Shared by the test_lapack_*.c tests of the built-in JAX CPU targets: writes
 * a module in the exact form jax.export gives (jax-cpu-targets.md §1: one
 * stablehlo.custom_call with mhlo.backend_config, JAX's column-major batch
 * layouts, output_operand_aliases), runs it through the public executable
 * API with no registry, and reads results back as double complex numbers
 * so each test checks the defining identities in double precision.
 * Include after <cmocka.h>. */
#ifndef SHLOC_TESTS_LAPACK_HARNESS_H
#define SHLOC_TESTS_LAPACK_HARNESS_H

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shloc/executable.h"
#include "shloc/ffi_registry.h"

#define LT_MAX_RANK 4
#define LT_MAX_BUFS 8

typedef struct {
  XLA_FFI_DataType dt;
  int rank;
  int64_t dims[LT_MAX_RANK];
  void *data; /* row-major (the executor's order); results: malloc'd */
} lt_tensor;

/* The four LAPACK types, in s, d, c, z order. */
static const XLA_FFI_DataType lt_types[4] = {XLA_FFI_DataType_F32, XLA_FFI_DataType_F64, XLA_FFI_DataType_C64,
                                              XLA_FFI_DataType_C128};
static const char lt_prefix[4] = {'s', 'd', 'c', 'z'};

static inline bool lt_is_complex(XLA_FFI_DataType t) {
  return t == XLA_FFI_DataType_C64 || t == XLA_FFI_DataType_C128;
}
static inline bool lt_is_single(XLA_FFI_DataType t) {
  return t == XLA_FFI_DataType_F32 || t == XLA_FFI_DataType_C64;
}
static inline XLA_FFI_DataType lt_real_of(XLA_FFI_DataType t) {
  return lt_is_single(t) ? XLA_FFI_DataType_F32 : XLA_FFI_DataType_F64;
}
static inline XLA_FFI_DataType lt_complex_of(XLA_FFI_DataType t) {
  return lt_is_single(t) ? XLA_FFI_DataType_C64 : XLA_FFI_DataType_C128;
}

static inline const char *lt_elt(XLA_FFI_DataType t) {
  switch (t) {
    case XLA_FFI_DataType_F32: return "f32";
    case XLA_FFI_DataType_F64: return "f64";
    case XLA_FFI_DataType_C64: return "complex<f32>";
    case XLA_FFI_DataType_C128: return "complex<f64>";
    case XLA_FFI_DataType_S32: return "i32";
    case XLA_FFI_DataType_U8: return "ui8";
    default: return "?";
  }
}

static inline int64_t lt_count(const lt_tensor *t) {
  int64_t n = 1;
  for (int i = 0; i < t->rank; i++) n *= t->dims[i];
  return n;
}

/* A tensor type with dims given as a list: LT(dt, 2, 3, 3). */
static inline lt_tensor lt_make(XLA_FFI_DataType dt, int rank, const int64_t *dims) {
  lt_tensor t = {dt, rank, {0}, NULL};
  for (int i = 0; i < rank; i++) t.dims[i] = dims[i];
  return t;
}
#define LT(dt, ...) \
  lt_make(dt, (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]){__VA_ARGS__})
#define LT0(dt) lt_make(dt, 0, NULL)

/* The type of t, without data. */
static inline lt_tensor lt_like(const lt_tensor *t) {
  lt_tensor r = *t;
  r.data = NULL;
  return r;
}

/* Batch dims + trailing dims. */
static inline lt_tensor lt_batched(XLA_FFI_DataType dt, int nb, const int64_t *bd, int nt, const int64_t *td) {
  lt_tensor t = {dt, nb + nt, {0}, NULL};
  for (int i = 0; i < nb; i++) t.dims[i] = bd[i];
  for (int i = 0; i < nt; i++) t.dims[nb + i] = td[i];
  return t;
}

/* "tensor<2x3x3xf32>" */
static inline void lt_type_text(char *buf, size_t cap, const lt_tensor *t) {
  int len = snprintf(buf, cap, "tensor<");
  for (int i = 0; i < t->rank; i++) len += snprintf(buf + len, cap - (size_t)len, "%lldx", (long long)t->dims[i]);
  snprintf(buf + len, cap - (size_t)len, "%s>", lt_elt(t->dt));
}

/* JAX's layout for an array of rank r when the largest operand rank is
 * max_rank: column-major batch [r-2, r-1, r-3, ..., 0] for r == max_rank
 * >= 2, row-major otherwise. */
static inline void lt_layout_text(char *buf, size_t cap, int r, int max_rank) {
  if (r == 0) {
    snprintf(buf, cap, "dense<> : tensor<0xindex>");
    return;
  }
  int len = snprintf(buf, cap, "dense<");
  if (r > 1) len += snprintf(buf + len, cap - (size_t)len, "[");
  for (int k = 0; k < r; k++) {
    int v = r == max_rank && r >= 2 ? (k == 0 ? r - 2 : k == 1 ? r - 1 : r - 1 - k) : r - 1 - k;
    len += snprintf(buf + len, cap - (size_t)len, "%s%d", k ? ", " : "", v);
  }
  snprintf(buf + len, cap - (size_t)len, "%s> : tensor<%dxindex>", r > 1 ? "]" : "", r);
}

/* The module: @main(args) calls `target` with backend config `config`
 * ("{}", "{uplo = 76 : ui8}", ...); alias[r] is the operand result r
 * aliases, or -1.  Returned text is malloc'd. */
static inline char *lt_module(const char *target, const char *config, int n_in, const lt_tensor *in, int n_out,
                              const lt_tensor *out, const int *alias) {
  size_t cap = 16384;
  char *s = malloc(cap), t[128], l[128];
  int len = 0, max_rank = 0;
  for (int i = 0; i < n_in; i++) max_rank = in[i].rank > max_rank ? in[i].rank : max_rank;
#define PUT(...) len += snprintf(s + len, cap - (size_t)len, __VA_ARGS__)
  PUT("func.func @main(");
  for (int i = 0; i < n_in; i++) {
    lt_type_text(t, sizeof t, &in[i]);
    PUT("%s%%arg%d: %s", i ? ", " : "", i, t);
  }
  PUT(") -> (");
  for (int i = 0; i < n_out; i++) {
    lt_type_text(t, sizeof t, &out[i]);
    PUT("%s%s", i ? ", " : "", t);
  }
  if (n_out > 1)
    PUT(") {\n  %%0:%d = stablehlo.custom_call @%s(", n_out, target);
  else
    PUT(") {\n  %%0 = stablehlo.custom_call @%s(", target);
  for (int i = 0; i < n_in; i++) PUT("%s%%arg%d", i ? ", " : "", i);
  PUT(") {mhlo.backend_config = %s, operand_layouts = [", config);
  for (int i = 0; i < n_in; i++) {
    lt_layout_text(l, sizeof l, in[i].rank, max_rank);
    PUT("%s%s", i ? ", " : "", l);
  }
  PUT("]");
  bool any = false;
  for (int r = 0; r < n_out; r++) any = any || (alias && alias[r] >= 0);
  if (any) {
    PUT(", output_operand_aliases = [");
    bool first = true;
    for (int r = 0; r < n_out; r++) {
      if (alias[r] < 0) continue;
      if (n_out > 1)
        PUT("%s#stablehlo.output_operand_alias<output_tuple_indices = [%d], operand_index = %d, operand_tuple_indices "
            "= []>",
            first ? "" : ", ", r, alias[r]);
      else
        PUT("%s#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = %d, operand_tuple_indices = "
            "[]>",
            first ? "" : ", ", alias[r]);
      first = false;
    }
    PUT("]");
  }
  PUT(", result_layouts = [");
  for (int i = 0; i < n_out; i++) {
    lt_layout_text(l, sizeof l, out[i].rank, max_rank);
    PUT("%s%s", i ? ", " : "", l);
  }
  PUT("]} : (");
  for (int i = 0; i < n_in; i++) {
    lt_type_text(t, sizeof t, &in[i]);
    PUT("%s%s", i ? ", " : "", t);
  }
  PUT(") -> ");
  if (n_out > 1) PUT("(");
  for (int i = 0; i < n_out; i++) {
    lt_type_text(t, sizeof t, &out[i]);
    PUT("%s%s", i ? ", " : "", t);
  }
  PUT("%s\n  return ", n_out > 1 ? ")" : "");
  for (int i = 0; i < n_out; i++) {
    if (n_out > 1)
      PUT("%s%%0#%d", i ? ", " : "", i);
    else
      PUT("%%0");
  }
  PUT(" : ");
  for (int i = 0; i < n_out; i++) {
    lt_type_text(t, sizeof t, &out[i]);
    PUT("%s%s", i ? ", " : "", t);
  }
  PUT("\n}\n");
#undef PUT
  return s;
}

/* Parses, verifies, plans (registry `reg`, may be NULL) and runs `text` on
 * in[]; results are malloc'd into out[].data (types must match the module).
 * Returns the first failing status. */
static inline shloc_status lt_run_text(const char *text, shloc_ffi_registry *reg, int n_in, const lt_tensor *in,
                                       int n_out, lt_tensor *out) {
  shloc_context *ctx = shloc_context_create();
  shloc_module *m = NULL;
  shloc_executable *x = NULL;
  shloc_status st = shloc_module_parse(ctx, "lapack.mlir", text, strlen(text), 1, &m);
  if (!st) st = shloc_module_verify(m);
  if (!st) st = shloc_executable_create(m, "main", reg, &x);
  shloc_tensor args[LT_MAX_BUFS], res[LT_MAX_BUFS];
  for (int i = 0; !st && i < n_in; i++) {
    st = shloc_executable_arg_type(x, (size_t)i, &args[i]);
    args[i].data = in[i].data;
  }
  if (!st) st = shloc_executable_run(x, args, (size_t)n_in, res, (size_t)n_out);
  for (int i = 0; !st && i < n_out; i++) out[i].data = res[i].data;
  shloc_executable_destroy(x);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
  return st;
}

static inline void lt_check_ok(shloc_status st, const char *text) {
  if (st) fail_msg("%s\n--- module:\n%s", shloc_status_message(st), text);
}

/* Builds the module for `target` and runs it; fails the test on error. */
static inline void lt_call(const char *target, const char *config, int n_in, const lt_tensor *in, int n_out,
                           lt_tensor *out, const int *alias) {
  char *text = lt_module(target, config, n_in, in, n_out, out, alias);
  shloc_status st = lt_run_text(text, NULL, n_in, in, n_out, out);
  lt_check_ok(st, text);
  free(text);
}

static inline void lt_free(lt_tensor *t, int n) {
  for (int i = 0; i < n; i++) {
    free(t[i].data);
    t[i].data = NULL;
  }
}

/* ---- element access in double precision ---- */

static inline double complex lt_get(const lt_tensor *t, int64_t i) {
  switch (t->dt) {
    case XLA_FFI_DataType_F32: return ((const float *)t->data)[i];
    case XLA_FFI_DataType_F64: return ((const double *)t->data)[i];
    case XLA_FFI_DataType_C64: return ((const float complex *)t->data)[i];
    case XLA_FFI_DataType_C128: return ((const double complex *)t->data)[i];
    case XLA_FFI_DataType_S32: return ((const int32_t *)t->data)[i];
    default: fail_msg("lt_get: type %d", (int)t->dt); return 0;
  }
}

static inline void lt_set(lt_tensor *t, int64_t i, double complex v) {
  switch (t->dt) {
    case XLA_FFI_DataType_F32: ((float *)t->data)[i] = (float)creal(v); break;
    case XLA_FFI_DataType_F64: ((double *)t->data)[i] = creal(v); break;
    case XLA_FFI_DataType_C64: ((float complex *)t->data)[i] = (float complex)v; break;
    case XLA_FFI_DataType_C128: ((double complex *)t->data)[i] = v; break;
    case XLA_FFI_DataType_S32: ((int32_t *)t->data)[i] = (int32_t)creal(v); break;
    default: fail_msg("lt_set: type %d", (int)t->dt);
  }
}

static inline size_t lt_esize(XLA_FFI_DataType t) { return shloc_ffi_dtype_bytes(t); }

static inline void lt_alloc(lt_tensor *t) {
  size_t n = (size_t)lt_count(t) * lt_esize(t->dt);
  t->data = calloc(n ? n : 1, 1);
}

/* Deterministic values in [-1, 1) (both parts for complex types). */
static inline void lt_fill_random(lt_tensor *t, uint64_t seed) {
  lt_alloc(t);
  uint64_t s = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (int64_t i = 0; i < lt_count(t); i++) {
    double v[2];
    for (int k = 0; k < 2; k++) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      v[k] = (double)(s >> 11) / 4503599627370496.0 - 1.0;
    }
    lt_set(t, i, lt_is_complex(t->dt) ? v[0] + I * v[1] : v[0]);
  }
}

/* Element (i, j) of matrix b of a [batch..., rows, cols] tensor. */
static inline double complex lt_m(const lt_tensor *t, int64_t b, int64_t i, int64_t j) {
  int64_t r = t->dims[t->rank - 2], c = t->dims[t->rank - 1];
  return lt_get(t, b * r * c + i * c + j);
}
/* Element i of vector b of a [batch..., len] tensor. */
static inline double complex lt_v(const lt_tensor *t, int64_t b, int64_t i) {
  return lt_get(t, b * t->dims[t->rank - 1] + i);
}

static inline int64_t lt_batch(const lt_tensor *t, int trailing) {
  int64_t n = 1;
  for (int i = 0; i < t->rank - trailing; i++) n *= t->dims[i];
  return n;
}

/* Relative tolerance of a computation of `n`-sized matrices in t's precision. */
static inline double lt_tol(XLA_FFI_DataType t, int64_t n) {
  return (lt_is_single(t) ? 2e-6 : 4e-15) * (double)(n + 4) * 10;
}

/* Asserts |got - want| <= tol * scale with a message naming what. */
static inline void lt_near(double complex got, double complex want, double tol, double scale, const char *what,
                           int64_t b, int64_t i, int64_t j) {
  if (!(cabs(got - want) <= tol * (scale > 1 ? scale : 1)))
    fail_msg("%s: batch %lld (%lld,%lld): got %.9g%+.9gi, want %.9g%+.9gi (tol %.3g)", what, (long long)b,
             (long long)i, (long long)j, creal(got), cimag(got), creal(want), cimag(want), tol * (scale > 1 ? scale : 1));
}

/* Max |a_ij| of matrix b. */
static inline double lt_norm(const lt_tensor *t, int64_t b) {
  int64_t r = t->dims[t->rank - 2], c = t->dims[t->rank - 1];
  double m = 0;
  for (int64_t i = 0; i < r; i++)
    for (int64_t j = 0; j < c; j++) m = fmax(m, cabs(lt_m(t, b, i, j)));
  return m;
}

/* Q = H_0 ... H_{k-1} (m x m, row-major, malloc'd) for the reflectors LAPACK
 * stores below the diagonal (geqrf, geqp3: off = 0) or the subdiagonal
 * (gehrd, sytrd 'L': off = 1) of matrix b of `refl` ([.., m, *]) with the
 * scalars of vector b of tau: H_i = I - tau_i v vᴴ, v = e_{i+off} + column
 * i of refl below row i+off. */
static inline double complex *lt_householder_q(const lt_tensor *refl, const lt_tensor *tau, int64_t b, int64_t k,
                                               int64_t off) {
  int64_t m = refl->dims[refl->rank - 2];
  double complex *q = calloc((size_t)(m * m + 1), sizeof *q), *v = calloc((size_t)m + 1, sizeof *v),
                 *w = calloc((size_t)m + 1, sizeof *w);
  for (int64_t i = 0; i < m; i++) q[i * m + i] = 1;
  for (int64_t i = k - 1; i >= 0; i--) {
    for (int64_t r = 0; r < m; r++) v[r] = r < i + off ? 0 : r == i + off ? 1 : lt_m(refl, b, r, i);
    double complex t = lt_v(tau, b, i);
    for (int64_t c = 0; c < m; c++) { /* w = vᴴ Q */
      w[c] = 0;
      for (int64_t r = 0; r < m; r++) w[c] += conj(v[r]) * q[r * m + c];
    }
    for (int64_t r = 0; r < m; r++)
      for (int64_t c = 0; c < m; c++) q[r * m + c] -= t * v[r] * w[c];
  }
  free(v);
  free(w);
  return q;
}

/* Asserts that the first `cols` columns of q (m x m, row-major) are orthonormal. */
static inline void lt_check_unitary(const double complex *q, int64_t m, int64_t cols, double tol, int64_t b) {
  for (int64_t i = 0; i < cols; i++)
    for (int64_t j = 0; j < cols; j++) {
      double complex s = 0;
      for (int64_t r = 0; r < m; r++) s += conj(q[r * m + i]) * q[r * m + j];
      lt_near(s, i == j, tol, 1, "QᴴQ = I", b, i, j);
    }
}

/* Batch shapes the tests run every target with: none, [2], [2,3] and the
 * empty batch [0]. */
typedef struct {
  int nb;
  int64_t bd[2];
} lt_batch_shape;
static const lt_batch_shape lt_batches[] = {{0, {0}}, {1, {2}}, {2, {2, 3}}, {1, {0}}};
#define LT_N_BATCHES 4

#endif
