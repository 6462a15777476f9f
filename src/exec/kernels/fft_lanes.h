/* Several lines of a batch through the passes at once, one per lane of LT
 * (a vector of FR), instantiated by fft_nd.h per precision and vector width
 * with FY(name) naming this instantiation.  Every lane does the scalar
 * code's operations in its order with the same scalar twiddles, and the
 * file is compiled without FP contraction (ISO C mode), so each line's
 * result has the same bits as when transformed alone.  No include guard on
 * purpose. */

typedef struct {
  LT r, i;
} FY(cx);
#define FV LT
#define VC FY(cx)
#define NL_ (sizeof(LT) / sizeof(FR))
#include "fft_cpass_exec.h"
#include "fft_rpass_exec.h"

/* Complex lines L0 .. L0+NL_-1 of length n and stride s (line L starts at
 * (L / s) * n * s + L % s) from src to dst, scaled by fct when fct != 1;
 * work holds FX(line_scratch)(n, pl->buf) elements of FY(cx). */
static void FY(c2c_group)(const FX(cpass) *pl, const FX(cx) *src, FX(cx) *dst, size_t L0, size_t n, size_t s, bool fwd,
                          FR fct, void *work) {
  FY(cx) *line = work, *ch = line + n, *buf = ch + n;
  size_t base[NL_];
  for (size_t l = 0; l < NL_; l++) base[l] = ((L0 + l) / s) * n * s + (L0 + l) % s;
  for (size_t j = 0; j < n; j++)
    for (size_t l = 0; l < NL_; l++) {
      FX(cx) x = src[base[l] + j * s];
      line[j].r[l] = x.r, line[j].i[l] = x.i;
    }
  FY(cx) *res = FY(cpass_exec)(pl, line, ch, buf, fwd);
  for (size_t j = 0; j < n; j++)
    for (size_t l = 0; l < NL_; l++) {
      FX(cx) x = {res[j].r[l], res[j].i[l]};
      dst[base[l] + j * s] = fct != (FR)1 ? FX(cscale)(x, fct) : x;
    }
}

/* NL_ consecutive real lines of n from src to n/2+1 complex each at dst. */
static void FY(r2c_group)(const FX(rpass) *pl, const FR *src, FX(cx) *dst, size_t n, FR fct, void *work) {
  LT *line = work, *ch = line + n;
  for (size_t j = 0; j < n; j++)
    for (size_t l = 0; l < NL_; l++) line[j][l] = src[l * n + j];
  LT *res = FY(rpass_exec)(pl, line, ch, (FY(cx) *)work + n, true);
  if (fct != (FR)1)
    for (size_t j = 0; j < n; j++) res[j] *= fct;
  for (size_t l = 0; l < NL_; l++) FX(hc_unpack)((const FR *)res + l, NL_, n, dst + l * (n / 2 + 1));
}

/* NL_ consecutive lines of n/2+1 complex from src to n reals each at dst. */
static void FY(c2r_group)(const FX(rpass) *pl, const FX(cx) *src, FR *dst, size_t n, FR fct, void *work) {
  LT *line = work, *ch = line + n;
  for (size_t l = 0; l < NL_; l++) FX(hc_pack)(src + l * (n / 2 + 1), n, (FR *)line + l, NL_);
  LT *res = FY(rpass_exec)(pl, line, ch, (FY(cx) *)work + n, false);
  for (size_t j = 0; j < n; j++)
    for (size_t l = 0; l < NL_; l++) dst[l * n + j] = fct != (FR)1 ? res[j][l] * fct : res[j][l];
}
#undef FV
#undef VC
#undef NL_
