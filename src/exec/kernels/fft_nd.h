/* Multi-dimensional FFTs over row-major arrays, instantiated by fft.c after
 * fft_cpass.h and fft_rpass.h; no include guard on purpose.  Lines along
 * one axis are gathered into a buffer, transformed and scattered back, one
 * axis after the other (the order and where the scale factor goes are
 * decided by fft.c, as XLA's DUCC call does them). */

/* Scratch for one line of length n: the data, the pass ping-pong buffer and
 * what the plan needs (in complex elements). */
static size_t FX(line_scratch)(size_t n, size_t plan_buf) { return 2 * n + plan_buf + 2; }

/* Halfcomplex (r0, r1, i1, r2, i2, ...; element j at hc[j * stride]) to
 * n/2+1 complex values. */
static void FX(hc_unpack)(const FR *hc, size_t stride, size_t n, FX(cx) *o) {
  o[0] = (FX(cx)){hc[0], 0};
  size_t i = 1, ii = 1;
  for (; i + 1 < n; i += 2, ii++) o[ii] = (FX(cx)){hc[i * stride], hc[(i + 1) * stride]};
  if (i < n) o[ii] = (FX(cx)){hc[i * stride], 0};
}

/* The reverse: n/2+1 complex values to halfcomplex at hc[j * stride]. */
static void FX(hc_pack)(const FX(cx) *in, size_t n, FR *hc, size_t stride) {
  hc[0] = in[0].r;
  size_t i = 1, ii = 1;
  for (; i + 1 < n; i += 2, ii++) hc[i * stride] = in[ii].r, hc[(i + 1) * stride] = in[ii].i;
  if (i < n) hc[i * stride] = in[ii].r;
}

/* Lane-parallel passes: SSE2 vectors everywhere, AVX2 ones where the CPU
 * has them (chosen at run time; fft.c defines FFT_WIDE when it can). */
#define LT FX(lanes)
#define FY(name) FX(v##name)
#include "fft_lanes.h"
#undef LT
#undef FY
#ifdef FFT_WIDE
#pragma GCC push_options
#pragma GCC target("avx2")
#define LT FX(wlanes)
#define FY(name) FX(w##name)
#include "fft_lanes.h"
#undef LT
#undef FY
#pragma GCC pop_options
#endif

/* Lines per group (the lane count) on this CPU. */
static size_t FX(group_lines)(void) {
#ifdef FFT_WIDE
  if (__builtin_cpu_supports("avx2")) return sizeof(FX(wlanes)) / sizeof(FR);
#endif
  return sizeof(FX(lanes)) / sizeof(FR);
}

/* Per-thread scratch for a line of n in groups of nl lines, in bytes (a
 * multiple of 64 so that every thread's part stays vector-aligned). */
static size_t FX(group_scratch)(size_t n, size_t plan_buf, size_t nl) {
  return (FX(line_scratch)(n, plan_buf) * 2 * nl * sizeof(FR) + 63) / 64 * 64;
}

/* Complex transforms of every line along dims[axis] from src into dst (which
 * may be src); results scaled by fct when fct != 1.  Lines go in groups
 * through the lane-parallel passes, the last lines % group one by one. */
static bool FX(c2c_axis)(const FX(cpass) *pl, const FX(cx) *src, FX(cx) *dst, int rank, const int64_t *dims, int axis,
                         bool fwd, FR fct, fft_scratch *sc) {
  size_t n = (size_t)dims[axis], s = 1, outer = 1;
  for (int d = axis + 1; d < rank; d++) s *= (size_t)dims[d];
  for (int d = 0; d < axis; d++) outer *= (size_t)dims[d];
  size_t nl = FX(group_lines)(), lines = outer * s, groups = lines / nl, units = groups + lines % nl;
  size_t per = FX(group_scratch)(n, pl->buf, nl);
  int nt = omp_get_max_threads();
  if ((size_t)nt > units) nt = units ? (int)units : 1;
  char *work = fft_scratch_get(sc, (size_t)nt * per);
  if (!work) return false;
#pragma omp parallel for num_threads(nt) schedule(static)
  for (size_t u = 0; u < units; u++) {
    void *w = work + (size_t)omp_get_thread_num() * per;
    if (u < groups) {
#ifdef FFT_WIDE
      if (nl > sizeof(FX(lanes)) / sizeof(FR)) {
        FX(wc2c_group)(pl, src, dst, u * nl, n, s, fwd, fct, w);
        continue;
      }
#endif
      FX(vc2c_group)(pl, src, dst, u * nl, n, s, fwd, fct, w);
      continue;
    }
    FX(cx) *line = w, *ch = line + n, *buf = ch + n;
    size_t L = groups * nl + (u - groups), base = (L / s) * n * s + L % s;
    for (size_t j = 0; j < n; j++) line[j] = src[base + j * s];
    FX(cx) *res = FX(cpass_exec)(pl, line, ch, buf, fwd);
    for (size_t j = 0; j < n; j++) dst[base + j * s] = fct != (FR)1 ? FX(cscale)(res[j], fct) : res[j];
  }
  return true;
}

/* Real-to-halfcomplex along the last axis: lines of n reals -> n/2+1
 * complex, in groups through the lane-parallel passes. */
static bool FX(r2c_last)(const FX(rpass) *pl, const FR *src, FX(cx) *dst, size_t lines, size_t n, FR fct,
                         fft_scratch *sc) {
  size_t m = n / 2 + 1, nl = FX(group_lines)(), per = FX(group_scratch)(n, pl->buf, nl);
  size_t groups = lines / nl, units = groups + lines % nl;
  int nt = omp_get_max_threads();
  if ((size_t)nt > units) nt = units ? (int)units : 1;
  char *work = fft_scratch_get(sc, (size_t)nt * per);
  if (!work) return false;
#pragma omp parallel for num_threads(nt) schedule(static)
  for (size_t u = 0; u < units; u++) {
    void *w = work + (size_t)omp_get_thread_num() * per;
    if (u < groups) {
#ifdef FFT_WIDE
      if (nl > sizeof(FX(lanes)) / sizeof(FR)) {
        FX(wr2c_group)(pl, src + u * nl * n, dst + u * nl * m, n, fct, w);
        continue;
      }
#endif
      FX(vr2c_group)(pl, src + u * nl * n, dst + u * nl * m, n, fct, w);
      continue;
    }
    FX(cx) *wc = w;
    FR *line = w, *ch = line + n;
    size_t L = groups * nl + (u - groups);
    memcpy(line, src + L * n, n * sizeof *line);
    FR *res = FX(rpass_exec)(pl, line, ch, wc + n, true);
    if (fct != (FR)1)
      for (size_t j = 0; j < n; j++) res[j] *= fct;
    FX(hc_unpack)(res, 1, n, dst + L * m);
  }
  return true;
}

/* Halfcomplex-to-real along the last axis: lines of n/2+1 complex -> n
 * reals, in groups through the lane-parallel passes. */
static bool FX(c2r_last)(const FX(rpass) *pl, const FX(cx) *src, FR *dst, size_t lines, size_t n, FR fct,
                         fft_scratch *sc) {
  size_t m = n / 2 + 1, nl = FX(group_lines)(), per = FX(group_scratch)(n, pl->buf, nl);
  size_t groups = lines / nl, units = groups + lines % nl;
  int nt = omp_get_max_threads();
  if ((size_t)nt > units) nt = units ? (int)units : 1;
  char *work = fft_scratch_get(sc, (size_t)nt * per);
  if (!work) return false;
#pragma omp parallel for num_threads(nt) schedule(static)
  for (size_t u = 0; u < units; u++) {
    void *w = work + (size_t)omp_get_thread_num() * per;
    if (u < groups) {
#ifdef FFT_WIDE
      if (nl > sizeof(FX(lanes)) / sizeof(FR)) {
        FX(wc2r_group)(pl, src + u * nl * m, dst + u * nl * n, n, fct, w);
        continue;
      }
#endif
      FX(vc2r_group)(pl, src + u * nl * m, dst + u * nl * n, n, fct, w);
      continue;
    }
    FX(cx) *wc = w;
    FR *line = w, *ch = line + n;
    size_t L = groups * nl + (u - groups);
    FX(hc_pack)(src + L * m, n, line, 1);
    FR *res = FX(rpass_exec)(pl, line, ch, wc + n, false);
    FR *o = dst + L * n;
    for (size_t j = 0; j < n; j++) o[j] = fct != (FR)1 ? res[j] * fct : res[j];
  }
  return true;
}

/* Plans for the transformed axes, built once at prepare time. */
typedef struct {
  FX(cpass) *c[3]; /* complex plans per fft_length entry (the last unused by RFFT/IRFFT) */
  FX(rpass) *r;    /* real plan for the last length (RFFT/IRFFT) */
} FX(plans);

static bool FX(plans_make)(const fft_alloc *A, const fft_params *p, FX(plans) *pl) {
  bool real = p->kind == FT_RFFT || p->kind == FT_IRFFT;
  for (int a = 0; a < p->rank; a++) {
    if (real && a == p->rank - 1) {
      if (!(pl->r = FX(rplan_make)(A, (size_t)p->n[a]))) return false;
    } else if (!(pl->c[a] = FX(cplan_make)(A, (size_t)p->n[a]))) {
      return false;
    }
  }
  return true;
}

static bool FX(fft_exec)(const fft_params *p, const FX(plans) *pl, const shl_buf *in, shl_buf *out, fft_scratch *sc) {
  int r = in->rank, k = p->rank, order[3];
  FR scale = (FR)p->scale;
  switch (p->kind) {
    case FT_FFT:
    case FT_IFFT: {
      bool fwd = p->kind == FT_FFT;
      fft_axis_order(in->dims, r, r - k, k, order);
      for (int j = 0; j < k; j++) {
        int a = order[j];
        if (!FX(c2c_axis)(pl->c[a], j ? out->data : in->data, out->data, r, in->dims, r - k + a, fwd,
                          j || fwd ? (FR)1 : scale, sc))
          return false;
      }
      return true;
    }
    case FT_RFFT: {
      size_t n = (size_t)p->n[k - 1];
      if (!FX(r2c_last)(pl->r, in->data, out->data, (size_t)in->n / n, n, (FR)1, sc)) return false;
      for (int a = 0; a < k - 1; a++)
        if (!FX(c2c_axis)(pl->c[a], out->data, out->data, r, out->dims, r - k + a, true, (FR)1, sc)) return false;
      return true;
    }
    default: {
      size_t n = (size_t)p->n[k - 1];
      if (k == 1) return FX(c2r_last)(pl->r, in->data, out->data, (size_t)out->n / n, n, scale, sc);
      FX(cx) *tmp = malloc((size_t)in->n * sizeof *tmp);
      if (!tmp) return false;
      bool ok = true;
      fft_axis_order(in->dims, r, r - k, k - 1, order);
      for (int j = 0; ok && j < k - 1; j++)
        ok = FX(c2c_axis)(pl->c[order[j]], j ? tmp : in->data, tmp, r, in->dims, r - k + order[j], false, (FR)1, sc);
      ok = ok && FX(c2r_last)(pl->r, tmp, out->data, (size_t)out->n / n, n, scale, sc);
      free(tmp);
      return ok;
    }
  }
}
