/* stablehlo.fft with FFTW3 over the last len(fft_length) dimensions:
 * FFT/IFFT complex-to-complex (IFFT scaled by 1/N), RFFT real-to-complex,
 * IRFFT complex-to-real (scaled by 1/N).  Plans are made per run with
 * FFTW_ESTIMATE (which never touches the arrays). */
#include <complex.h>
#include <fftw3.h>
#include <stdlib.h>

#include "kutil.h"

typedef enum { FT_FFT, FT_IFFT, FT_RFFT, FT_IRFFT } fft_kind;

typedef struct {
  fft_kind kind;
  bool dbl;
  int rank;
  int n[3];
  int64_t howmany, real_dist, cplx_dist; /* per-transform element counts of the real and complex sides */
  double scale;
} fft_params;

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
    p->n[i] = (int)len[i];
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
  if (p->howmany > INT32_MAX || total > INT32_MAX) return op_error(op, SHLOC_ERR_UNSUPPORTED, "too large");
  p->scale = total ? 1.0 / (double)total : 1.0;
  *params = p;
  return NULL;
}

#define FFT_IMPL(NAME, PFX, R, C)                                                                             \
  static shl_status NAME(const fft_params *p, const shl_buf *in, shl_buf *out) {                           \
    int hm = (int)p->howmany;                                                                              \
    int rd = (int)p->real_dist, cd = (int)p->cplx_dist;                                                    \
    PFX##_plan plan = NULL;                                                                                \
    void *tmp = NULL;                                                                                      \
    switch (p->kind) {                                                                                     \
      case FT_FFT:                                                                                         \
      case FT_IFFT:                                                                                        \
        memcpy(out->data, in->data, in->nbytes);                                                           \
        plan = PFX##_plan_many_dft(p->rank, p->n, hm, out->data, NULL, 1, cd, out->data, NULL, 1, cd,     \
                                   p->kind == FT_FFT ? FFTW_FORWARD : FFTW_BACKWARD, FFTW_ESTIMATE);       \
        break;                                                                                             \
      case FT_RFFT:                                                                                        \
        tmp = PFX##_malloc(in->nbytes + 16);                                                               \
        if (!tmp) return st_oom();                                                                         \
        memcpy(tmp, in->data, in->nbytes);                                                                 \
        plan = PFX##_plan_many_dft_r2c(p->rank, p->n, hm, tmp, NULL, 1, rd, out->data, NULL, 1, cd,        \
                                       FFTW_ESTIMATE);                                                     \
        break;                                                                                             \
      case FT_IRFFT:                                                                                       \
        tmp = PFX##_malloc(in->nbytes + 16);                                                               \
        if (!tmp) return st_oom();                                                                         \
        memcpy(tmp, in->data, in->nbytes);                                                                 \
        plan = PFX##_plan_many_dft_c2r(p->rank, p->n, hm, tmp, NULL, 1, cd, out->data, NULL, 1, rd,        \
                                       FFTW_ESTIMATE);                                                     \
        break;                                                                                             \
    }                                                                                                      \
    if (!plan) {                                                                                           \
      PFX##_free(tmp);                                                                                     \
      return st_error(SHLOC_ERR_RUNTIME, NULL, NULL, "fft: FFTW could not plan the transform");            \
    }                                                                                                      \
    PFX##_execute(plan);                                                                                   \
    PFX##_destroy_plan(plan);                                                                              \
    PFX##_free(tmp);                                                                                       \
    if (p->kind == FT_IFFT) {                                                                              \
      C *o = out->data;                                                                                    \
      for (int64_t i = 0; i < out->n; i++) o[i] *= (R)p->scale;                                            \
    } else if (p->kind == FT_IRFFT) {                                                                      \
      R *o = out->data;                                                                                    \
      for (int64_t i = 0; i < out->n; i++) o[i] *= (R)p->scale;                                            \
    }                                                                                                      \
    return NULL;                                                                                           \
  }

FFT_IMPL(fft_f32, fftwf, float, float complex)
FFT_IMPL(fft_f64, fftw, double, double complex)

static shl_status fft_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const fft_params *p = po->params;
  if (out[0]->n == 0) return NULL;
  if (p->howmany == 0 || p->real_dist == 0) {
    memset(out[0]->data, 0, out[0]->nbytes);
    return NULL;
  }
  return p->dbl ? fft_f64(p, in[0], out[0]) : fft_f32(p, in[0], out[0]);
}

const shl_kernel kernel_fft = {fft_prepare, fft_run};
