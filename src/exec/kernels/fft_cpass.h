/* Complex FFT passes, instantiated by fft.c once per precision with FR (the
 * real type) and FX(name) (a per-precision name).  No include guard on
 * purpose.
 *
 * The passes follow the mixed-radix scheme XLA:CPU uses (DUCC, a pocketfft
 * derivative), operation for operation, so results round the same way: a
 * pass of radix ip works on l1 * ido * ip elements laid out as
 * in[i + ido*(m + ip*k)] and writes out[i + ido*(k + l1*m)] (k < l1, i < ido,
 * m < ip), multiplying output m > 0 of column i > 0 by the twiddle w^(m*l1*i)
 * of the full length N (w = e^(2 pi i/N), conjugated for forward passes).
 * Radices 2, 3, 4, 5, 7, 8 and 11 have their own butterflies, other primes
 * below 110 a generic O(ip^2) pass, larger primes Bluestein's algorithm. */

typedef struct {
  FR r, i;
} FX(cx);

static inline FX(cx) FX(cmul)(FX(cx) a, FX(cx) b) { return (FX(cx)){a.r * b.r - a.i * b.i, a.r * b.i + a.i * b.r}; }

static FX(cx) FX(root)(const fft_roots *rt, size_t idx) {
  double re, im;
  bool neg = roots_get(rt, idx, &re, &im);
  FR i = (FR)im;
  return (FX(cx)){(FR)re, neg ? -i : i};
}

typedef struct FX(cpass) FX(cpass);
struct FX(cpass) {
  fft_pass_kind kind;
  size_t l1, ido, ip;
  FX(cx) *wa;        /* wa[(m-1)*(ido-1) + i-1] = w^(m*l1*i) */
  FX(cx) *cs;        /* generic radix: cs[m] = w^(m*l1*ido) */
  size_t n2;         /* Bluestein: the padded length */
  FX(cpass) *sub;    /* Bluestein: the length-n2 plan */
  FX(cx) *bk, *bkf;  /* Bluestein: chirp and its transform */
  size_t np;         /* multipass: sub-passes */
  FX(cpass) **passes;
  size_t buf;        /* scratch elements exec needs */
};

/* cos and sin of 2 pi j/ip for the odd radices with their own butterfly. */
static const long double FX(odd_cos)[4][5] = {
    {-0.5L},
    {0.3090169943749474241022934171828191L, -0.8090169943749474241022934171828191L},
    {0.6234898018587335305250048840042398L, -0.2225209339563144042889025644967948L,
     -0.9009688679024191262361023195074451L},
    {0.8412535328311811688618116489193677L, 0.4154150130018864255292741492296232L,
     -0.1423148382732851404437926686163697L, -0.6548607339452850640569250724662936L,
     -0.9594929736144973898903680570663277L}};
static const long double FX(odd_sin)[4][5] = {
    {0.8660254037844386467637231707529362L},
    {0.9510565162951535721164393333793821L, 0.5877852522924731291687059546390728L},
    {0.7818314824680298087084445266740578L, 0.9749279121818236070181316829939312L,
     0.433883739117558120475768332848359L},
    {0.5406408174555975821076359543186917L, 0.9096319953545183714117153830790285L,
     0.9898214418809327323760920377767188L, 0.7557495743542582837740358439723444L,
     0.2817325568414296977114179153466169L}};

/* The butterflies, one transform at a time (fft_nd.h instantiates them
 * again over vectors of FR for batches). */
#define FV FR
#define VC FX(cx)
#define FY(name) FX(name)
#include "fft_cpass_exec.h"
#undef FV
#undef VC
#undef FY

/* ---- planning ---- */

static FX(cpass) *FX(cplan_make)(const fft_alloc *A, size_t n);

static FX(cx) *FX(twiddles)(const fft_alloc *A, const fft_roots *rt, size_t l1, size_t ido, size_t ip) {
  size_t cnt = (ip - 1) * (ido - 1), rf = rt->n / (ip * l1 * ido);
  FX(cx) *wa = A->fn(A->ctx, (cnt ? cnt : 1) * sizeof *wa);
  if (!wa) return NULL;
  for (size_t m = 1; m < ip; m++)
    for (size_t i = 1; i < ido; i++) wa[(m - 1) * (ido - 1) + i - 1] = FX(root)(rt, rf * m * l1 * i);
  return wa;
}

static FX(cpass) *FX(cpass_make)(const fft_alloc *A, size_t l1, size_t ido, size_t ip, const fft_roots *rt) {
  FX(cpass) *p = A->fn(A->ctx, sizeof *p);
  if (!p) return NULL;
  p->l1 = l1, p->ido = ido, p->ip = ip;
  if (ip == 1) {
    p->kind = FPK_ID;
    return p;
  }
  size_t f[64], nf = fft_factorize(ip, true, f);
  if (nf > 1) {
    p->kind = FPK_MULTI;
    p->np = nf;
    p->passes = A->fn(A->ctx, nf * sizeof *p->passes);
    if (!p->passes) return NULL;
    size_t l1l = 1;
    for (size_t j = 0; j < nf; j++) {
      p->passes[j] = FX(cpass_make)(A, l1l, ip / (f[j] * l1l), f[j], rt);
      if (!p->passes[j]) return NULL;
      if (p->passes[j]->buf > p->buf) p->buf = p->passes[j]->buf;
      l1l *= f[j];
    }
    return p;
  }
  if (!(p->wa = FX(twiddles)(A, rt, l1, ido, ip))) return NULL;
  if (ip <= 11 && ip != 9) {
    p->kind = FPK_RADIX;
    return p;
  }
  size_t rf = rt->n / (ip * l1 * ido);
  if (ip < 110) {
    p->kind = FPK_GEN;
    if (!(p->cs = A->fn(A->ctx, ip * sizeof *p->cs))) return NULL;
    for (size_t m = 0; m < ip; m++) p->cs[m] = FX(root)(rt, rf * ido * l1 * m);
    return p;
  }
  p->kind = FPK_BLUE;
  size_t n2 = p->n2 = fft_good_size_cmplx(2 * ip - 1);
  p->sub = FX(cplan_make)(A, n2);
  p->bk = A->fn(A->ctx, ip * sizeof *p->bk);
  p->bkf = A->fn(A->ctx, (n2 / 2 + 1) * sizeof *p->bkf);
  FX(cx) *tmp = malloc((3 * n2 + (p->sub ? p->sub->buf : 0)) * sizeof *tmp);
  fft_roots own = {0};
  const fft_roots *r2 = rt;
  bool ok = p->sub && p->bk && p->bkf && tmp;
  if (ok && rt->n % (2 * ip) != 0) ok = roots_init(&own, 2 * ip), r2 = &own;
  if (ok) {
    /* chirp bk[m] = w2^(m^2) with w2 = e^(i pi/ip); coefficients wrap mod 2 ip */
    size_t rf2 = r2->n / (2 * ip), coeff = 0;
    p->bk[0] = (FX(cx)){1, 0};
    for (size_t m = 1; m < ip; m++) {
      coeff += 2 * m - 1;
      if (coeff >= 2 * ip) coeff -= 2 * ip;
      p->bk[m] = FX(root)(r2, coeff * rf2);
    }
    FR xn2 = (FR)1 / (FR)n2;
    tmp[0] = FX(cscale)(p->bk[0], xn2);
    for (size_t m = 1; m < ip; m++) tmp[m] = tmp[n2 - m] = FX(cscale)(p->bk[m], xn2);
    for (size_t m = ip; m <= n2 - ip; m++) tmp[m] = (FX(cx)){0, 0};
    FX(cx) *res = FX(cpass_exec)(p->sub, tmp, tmp + n2, tmp + 2 * n2, true);
    for (size_t m = 0; m <= n2 / 2; m++) p->bkf[m] = res[m];
    p->buf = 2 * n2 + p->sub->buf;
  }
  roots_free(&own);
  free(tmp);
  return ok ? p : NULL;
}

/* A plan for length n (>= 1). */
static FX(cpass) *FX(cplan_make)(const fft_alloc *A, size_t n) {
  fft_roots rt;
  if (!roots_init(&rt, n)) return NULL;
  FX(cpass) *p = FX(cpass_make)(A, 1, 1, n, &rt);
  roots_free(&rt);
  return p;
}
