/* Real FFT passes (FFTPACK halfcomplex order: r0, r1, i1, r2, i2, ...),
 * instantiated by fft.c after fft_cpass.h; no include guard on purpose.
 * Forward passes read in[i + ido*(k + l1*m)] and write
 * out[i + ido*(m + ip*k)]; backward passes the reverse.  Like the complex
 * passes they follow XLA:CPU's DUCC operation for operation: radices 2, 3,
 * 4 and 5 have their own butterflies, other primes below 135 a generic pass,
 * larger ones a complex Bluestein transform. */

typedef struct FX(rpass) FX(rpass);
struct FX(rpass) {
  fft_pass_kind kind;
  size_t l1, ido, ip;
  FR *wa;            /* wa[(m-1)*(ido-1) + 2i-2 (+1)] = re (im) of w^(m*l1*i) */
  FR *cs;            /* generic radix: cs[2m], cs[2m+1] = cos, sin of 2 pi m/ip */
  FX(cpass) *cplan;  /* Bluestein: the complex length-ip pass */
  size_t np;
  FX(rpass) **passes;
  size_t buf;        /* scratch complex elements exec needs */
};

#define FV FR
#define VC FX(cx)
#define FY(name) FX(name)
#include "fft_rpass_exec.h"
#undef FV
#undef VC
#undef FY

static FX(rpass) *FX(rpass_make)(const fft_alloc *A, size_t l1, size_t ido, size_t ip, const fft_roots *rt) {
  FX(rpass) *p = A->fn(A->ctx, sizeof *p);
  if (!p) return NULL;
  p->l1 = l1, p->ido = ido, p->ip = ip;
  if (ip == 1) {
    p->kind = FPK_ID;
    return p;
  }
  size_t f[64], nf = fft_factorize(ip, false, f);
  if (nf > 1) {
    p->kind = FPK_MULTI;
    p->np = nf;
    if (!(p->passes = A->fn(A->ctx, nf * sizeof *p->passes))) return NULL;
    size_t l1l = 1;
    for (size_t j = 0; j < nf; j++) {
      p->passes[j] = FX(rpass_make)(A, l1l, ip / (f[j] * l1l), f[j], rt);
      if (!p->passes[j]) return NULL;
      if (p->passes[j]->buf > p->buf) p->buf = p->passes[j]->buf;
      l1l *= f[j];
    }
    return p;
  }
  size_t rf = rt->n / (ip * l1 * ido), cnt = (ip - 1) * (ido - 1);
  if (!(p->wa = A->fn(A->ctx, (cnt ? cnt : 1) * sizeof *p->wa))) return NULL;
  for (size_t m = 1; m < ip; m++)
    for (size_t i = 1; i <= (ido - 1) / 2; i++) {
      FX(cx) w = FX(root)(rt, rf * m * l1 * i);
      p->wa[(m - 1) * (ido - 1) + 2 * i - 2] = w.r;
      p->wa[(m - 1) * (ido - 1) + 2 * i - 1] = w.i;
    }
  if (ip <= 5) {
    p->kind = FPK_RADIX;
    return p;
  }
  if (ip < 135) {
    p->kind = FPK_GEN;
    if (!(p->cs = A->fn(A->ctx, 2 * ip * sizeof *p->cs))) return NULL;
    p->cs[0] = 1, p->cs[1] = 0;
    for (size_t i = 2, ic = 2 * ip - 2; i <= ic; i += 2, ic -= 2) {
      FX(cx) w = FX(root)(rt, i / 2 * rf * l1 * ido);
      p->cs[i] = w.r, p->cs[i + 1] = w.i;
      p->cs[ic] = w.r, p->cs[ic + 1] = -w.i;
    }
    return p;
  }
  p->kind = FPK_BLUE;
  if (!(p->cplan = FX(cpass_make)(A, 1, 1, ip, rt))) return NULL;
  p->buf = 2 * ip + p->cplan->buf;
  return p;
}

static FX(rpass) *FX(rplan_make)(const fft_alloc *A, size_t n) {
  fft_roots rt;
  if (!roots_init(&rt, n)) return NULL;
  FX(rpass) *p = FX(rpass_make)(A, 1, 1, n, &rt);
  roots_free(&rt);
  return p;
}
