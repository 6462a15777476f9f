/* stablehlo.fft over the last len(fft_length) dimensions: FFT/IFFT
 * complex-to-complex (IFFT scaled by 1/N), RFFT real-to-complex, IRFFT
 * complex-to-real (scaled by 1/N).
 *
 * The transforms reproduce XLA:CPU's numerics, which come from DUCC (a
 * pocketfft derivative): the same twiddle tables, factorisations, radix
 * passes and axis order (fft_cpass.h, fft_rpass.h, fft_nd.h are instantiated
 * here for f32 and f64).  XLA calls DUCC with the transformed axes in order;
 * a complex transform over several axes starts with the contiguous one, an
 * IRFFT does the complex axes first and the real one last, an RFFT the
 * real one first.  The 1/N scale is applied (in the element type) on the
 * first transformed axis of a complex transform, on the real axis of an
 * IRFFT. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "kutil.h"

typedef enum { FT_FFT, FT_IFFT, FT_RFFT, FT_IRFFT } fft_kind;

typedef struct {
  fft_kind kind;
  bool dbl;
  int rank;
  int64_t n[3];
  int64_t howmany, real_dist, cplx_dist; /* per-transform element counts of the real and complex sides */
  double scale;
  void *plans; /* f32_plans or f64_plans; NULL when some length is 0 */
  uint32_t scratch_id; /* exec_state: the run's fft_scratch */
} fft_params;

typedef enum { FPK_ID, FPK_RADIX, FPK_GEN, FPK_BLUE, FPK_MULTI } fft_pass_kind;

typedef struct {
  void *(*fn)(void *ctx, size_t n);
  void *ctx;
} fft_alloc;

/* ---- roots of unity ---- */

/* e^(2 pi i k/n) for k <= n/2 as the product of two table entries,
 * v1[k & mask] * v2[k >> shift], each computed in double from an octant
 * (so cos and sin only see angles up to pi/4); k > n/2 by symmetry. */
typedef struct {
  size_t n, mask, shift;
  double *v1, *v2; /* (re, im) pairs */
} fft_roots;

static void roots_calc(size_t x, size_t n, double ang, double *out) {
  double re, im;
  x <<= 3;
  if (x < 4 * n) {
    if (x < 2 * n) {
      if (x < n) re = cos((double)x * ang), im = sin((double)x * ang);
      else re = sin((double)(2 * n - x) * ang), im = cos((double)(2 * n - x) * ang);
    } else {
      x -= 2 * n;
      if (x < n) re = -sin((double)x * ang), im = cos((double)x * ang);
      else re = -cos((double)(2 * n - x) * ang), im = sin((double)(2 * n - x) * ang);
    }
  } else {
    x = 8 * n - x;
    if (x < 2 * n) {
      if (x < n) re = cos((double)x * ang), im = -sin((double)x * ang);
      else re = sin((double)(2 * n - x) * ang), im = -cos((double)(2 * n - x) * ang);
    } else {
      x -= 2 * n;
      if (x < n) re = -sin((double)x * ang), im = -cos((double)x * ang);
      else re = -cos((double)(2 * n - x) * ang), im = -sin((double)(2 * n - x) * ang);
    }
  }
  out[0] = re, out[1] = im;
}

static bool roots_init(fft_roots *r, size_t n) {
  const long double pi = 3.141592653589793238462643383279502884197L;
  double ang = (double)(0.25L * pi / (long double)n);
  size_t nval = (n + 2) / 2, shift = 1;
  while (((size_t)1 << shift) * ((size_t)1 << shift) < nval) shift++;
  size_t mask = ((size_t)1 << shift) - 1, n1 = mask + 1, n2 = (nval + mask) / (mask + 1);
  r->n = n, r->mask = mask, r->shift = shift;
  r->v1 = malloc(2 * n1 * sizeof *r->v1);
  r->v2 = malloc(2 * n2 * sizeof *r->v2);
  if (!r->v1 || !r->v2) {
    free(r->v1), free(r->v2);
    r->v1 = r->v2 = NULL;
    return false;
  }
  r->v1[0] = 1, r->v1[1] = 0;
  for (size_t i = 1; i < n1; i++) roots_calc(i, n, ang, r->v1 + 2 * i);
  r->v2[0] = 1, r->v2[1] = 0;
  for (size_t i = 1; i < n2; i++) roots_calc(i * (mask + 1), n, ang, r->v2 + 2 * i);
  return true;
}

static void roots_free(fft_roots *r) {
  free(r->v1), free(r->v2);
  r->v1 = r->v2 = NULL;
}

/* Root idx as double products; true when the imaginary part is to be
 * negated (after rounding to the element type). */
static bool roots_get(const fft_roots *r, size_t idx, double *re, double *im) {
  bool neg = 2 * idx > r->n;
  if (neg) idx = r->n - idx;
  const double *a = r->v1 + 2 * (idx & r->mask), *b = r->v2 + 2 * (idx >> r->shift);
  *re = a[0] * b[0] - a[1] * b[1];
  *im = a[0] * b[1] + a[1] * b[0];
  return neg;
}

/* Radix factors of n: 4s (complex transforms take 8s first), a single 2
 * moved to the front, then odd primes ascending. */
static size_t fft_factorize(size_t n, bool cplx, size_t *f) {
  size_t k = 0;
  while (cplx && n % 8 == 0) f[k++] = 8, n /= 8;
  while (n % 4 == 0) f[k++] = 4, n /= 4;
  if (n % 2 == 0) {
    n /= 2;
    f[k++] = 2;
    size_t t = f[0];
    f[0] = f[k - 1], f[k - 1] = t;
  }
  for (size_t d = 3; d * d <= n; d += 2)
    while (n % d == 0) f[k++] = d, n /= d;
  if (n > 1) f[k++] = n;
  return k;
}

/* The smallest 2^a 3^b 5^c 7^d 11^e >= n (n itself up to 12). */
static size_t fft_good_size_cmplx(size_t n) {
  if (n <= 12) return n;
  size_t best = 2 * n;
  for (size_t f11 = 1; f11 < best; f11 *= 11)
    for (size_t f7 = f11; f7 < best; f7 *= 7)
      for (size_t f5 = f7; f5 < best; f5 *= 5)
        for (size_t f3 = f5; f3 < best; f3 *= 3) {
          size_t x = f3;
          while (x < n) x *= 2;
          if (x < best) best = x;
        }
  return best;
}

/* Order of the axes first..first+nax-1 (as offsets) for a complex transform
 * over several of them: DUCC moves the first contiguous one to the front. */
static void fft_axis_order(const int64_t *dims, int rank, int first, int nax, int *order) {
  for (int i = 0; i < nax; i++) order[i] = i;
  for (int i = 1; i < nax; i++) {
    int64_t stride = 1;
    for (int d = first + i + 1; d < rank; d++) stride *= dims[d];
    if (stride == 1) {
      order[0] = i, order[i] = 0;
      return;
    }
  }
}

/* Line buffers kept from run to run (exec_state), so that the batched
 * passes' per-thread scratch is not allocated and freed on every run. */
typedef struct {
  void *mem;
  size_t size;
} fft_scratch;

static void fft_scratch_release(void *arg) {
  fft_scratch *s = arg;
  if (s) free(s->mem);
  free(s);
}

/* At least size bytes (a multiple of 64), 64-byte aligned; NULL when out of memory. */
static void *fft_scratch_get(fft_scratch *s, size_t size) {
  if (s->size < size) {
    free(s->mem);
    s->mem = aligned_alloc(64, size);
    s->size = s->mem ? size : 0;
  }
  return s->mem;
}

/* Lane vectors for batched passes (fft_nd.h): one SSE register, and one
 * AVX register where GCC can compile for AVX2 and the CPU has it (clang,
 * the fuzzing build, keeps to SSE). */
typedef float f32_lanes __attribute__((vector_size(16)));
typedef double f64_lanes __attribute__((vector_size(16)));
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define FFT_WIDE 1
typedef float f32_wlanes __attribute__((vector_size(32)));
typedef double f64_wlanes __attribute__((vector_size(32)));
#endif

#define FR float
#define FX(name) f32_##name
#include "fft_cpass.h"
#include "fft_rpass.h"
#include "fft_nd.h"
#undef FR
#undef FX
#define FR double
#define FX(name) f64_##name
#include "fft_cpass.h"
#include "fft_rpass.h"
#include "fft_nd.h"
#undef FR
#undef FX

static void *fft_plan_alloc(void *ctx, size_t n) { return plan_alloc(ctx, n); }

static shl_status fft_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  if (op->n_operands != 1 || op->n_results != 1) return op_error(op, SHLOC_ERR_VERIFY, "expects one operand");
  const shl_type *it = op->operands[0]->type, *ot = op->results[0].type;
  if (!type_is_static(it) || !type_is_static(ot)) return op_error(op, SHLOC_ERR_UNSUPPORTED, "needs static shapes");
  fft_params *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  const shl_attr *ft = op_attr(op, "fft_type");
  if (ku_enum_is(ft, "FFT")) p->kind = FT_FFT;
  else if (ku_enum_is(ft, "IFFT")) p->kind = FT_IFFT;
  else if (ku_enum_is(ft, "RFFT")) p->kind = FT_RFFT;
  else if (ku_enum_is(ft, "IRFFT")) p->kind = FT_IRFFT;
  else return op_error(op, SHLOC_ERR_VERIFY, "has an invalid fft_type");
  int64_t len[3];
  size_t nl;
  if (!ku_ints(op, "fft_length", len, 3, &nl) || nl < 1 || (int32_t)nl > it->rank)
    return op_error(op, SHLOC_ERR_VERIFY, "needs 1 to 3 fft_length entries");
  shl_dtype cdt = p->kind == FT_IRFFT ? type_storage_dtype(it) : type_storage_dtype(ot);
  if (cdt != DT_C64 && cdt != DT_C128) return op_error(op, SHLOC_ERR_UNSUPPORTED, "on this element type is not supported");
  p->dbl = cdt == DT_C128;
  p->rank = (int)nl;
  int64_t total = 1, half = 1;
  for (size_t i = 0; i < nl; i++) {
    if (len[i] < 0 || len[i] > INT32_MAX) return op_error(op, SHLOC_ERR_VERIFY, "has an invalid fft_length");
    p->n[i] = len[i];
    total *= len[i];
    half *= i + 1 == nl ? len[i] / 2 + 1 : len[i];
  }
  /* The real side of RFFT/IRFFT has fft_length dims, the complex side len/2+1 last. */
  const shl_type *real_t = p->kind == FT_RFFT ? it : ot, *cplx_t = p->kind == FT_RFFT ? ot : it;
  int32_t r = it->rank;
  for (size_t i = 0; i < nl; i++) {
    int32_t d = r - (int32_t)nl + (int32_t)i;
    bool last = i + 1 == nl;
    if (p->kind == FT_FFT || p->kind == FT_IFFT) {
      if (it->dims[d] != len[i] || ot->dims[d] != len[i]) return op_error(op, SHLOC_ERR_VERIFY, "shape does not match fft_length");
    } else if (real_t->dims[d] != len[i] || cplx_t->dims[d] != (last ? len[i] / 2 + 1 : len[i])) {
      return op_error(op, SHLOC_ERR_VERIFY, "shape does not match fft_length");
    }
  }
  p->real_dist = total;
  p->cplx_dist = (p->kind == FT_FFT || p->kind == FT_IFFT) ? total : half;
  int64_t n_in = type_num_elements(it);
  int64_t per = (p->kind == FT_RFFT) ? p->real_dist : p->cplx_dist;
  p->howmany = per ? n_in / per : 0;
  p->scale = total ? 1.0 / (double)total : 1.0;
  if (total > 0) {
    fft_alloc A = {fft_plan_alloc, pc};
    bool ok;
    if (p->dbl) {
      f64_plans *pl = plan_alloc(pc, sizeof *pl);
      ok = pl && f64_plans_make(&A, p, pl);
      p->plans = pl;
    } else {
      f32_plans *pl = plan_alloc(pc, sizeof *pl);
      ok = pl && f32_plans_make(&A, p, pl);
      p->plans = pl;
    }
    if (!ok) return st_oom();
  }
  shl_status st = plan_state_new(pc, fft_scratch_release, &p->scratch_id);
  if (st) return st;
  *params = p;
  return NULL;
}

static shl_status fft_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const fft_params *p = po->params;
  if (out[0]->n == 0) return NULL;
  if (p->howmany == 0 || !p->plans) {
    memset(out[0]->data, 0, out[0]->nbytes);
    return NULL;
  }
  fft_scratch **sc = (fft_scratch **)exec_state(ec, p->scratch_id);
  if (!*sc && !(*sc = calloc(1, sizeof **sc))) return st_oom();
  bool ok = p->dbl ? f64_fft_exec(p, p->plans, in[0], out[0], *sc) : f32_fft_exec(p, p->plans, in[0], out[0], *sc);
  return ok ? NULL : st_oom();
}

const shl_kernel kernel_fft = {fft_prepare, fft_run};
