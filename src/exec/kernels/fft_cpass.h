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

static inline FX(cx) FX(cadd)(FX(cx) a, FX(cx) b) { return (FX(cx)){a.r + b.r, a.i + b.i}; }
static inline FX(cx) FX(csub)(FX(cx) a, FX(cx) b) { return (FX(cx)){a.r - b.r, a.i - b.i}; }
static inline FX(cx) FX(cscale)(FX(cx) a, FR s) { return (FX(cx)){a.r * s, a.i * s}; }
static inline FX(cx) FX(cmul)(FX(cx) a, FX(cx) b) { return (FX(cx)){a.r * b.r - a.i * b.i, a.r * b.i + a.i * b.r}; }
/* a * conj(w) going forward, a * w going backward. */
static inline FX(cx) FX(ctw)(bool fwd, FX(cx) a, FX(cx) w) {
  return fwd ? (FX(cx)){a.r * w.r + a.i * w.i, a.i * w.r - a.r * w.i}
             : (FX(cx)){a.r * w.r - a.i * w.i, a.r * w.i + a.i * w.r};
}
/* a * -i going forward, a * i going backward (exact). */
static inline FX(cx) FX(crot90)(bool fwd, FX(cx) a) { return fwd ? (FX(cx)){a.i, -a.r} : (FX(cx)){-a.i, a.r}; }

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

/* ---- butterflies ---- */

static FX(cx) *FX(cpass2)(const FX(cpass) *p, const FX(cx) *cc, FX(cx) *ch, bool fwd) {
  size_t l1 = p->l1, ido = p->ido;
  for (size_t k = 0; k < l1; k++)
    for (size_t i = 0; i < ido; i++) {
      FX(cx) a = cc[i + ido * (0 + 2 * k)], b = cc[i + ido * (1 + 2 * k)];
      ch[i + ido * k] = FX(cadd)(a, b);
      FX(cx) d = FX(csub)(a, b);
      ch[i + ido * (k + l1)] = i ? FX(ctw)(fwd, d, p->wa[i - 1]) : d;
    }
  return ch;
}

static FX(cx) *FX(cpass4)(const FX(cpass) *p, const FX(cx) *cc, FX(cx) *ch, bool fwd) {
  size_t l1 = p->l1, ido = p->ido;
  const FX(cx) *wa = p->wa;
  for (size_t k = 0; k < l1; k++)
    for (size_t i = 0; i < ido; i++) {
      const FX(cx) *c = cc + i + ido * 4 * k;
      FX(cx) t2 = FX(cadd)(c[0], c[2 * ido]), t1 = FX(csub)(c[0], c[2 * ido]);
      FX(cx) t3 = FX(cadd)(c[ido], c[3 * ido]), t4 = FX(crot90)(fwd, FX(csub)(c[ido], c[3 * ido]));
      FX(cx) o[4] = {FX(cadd)(t2, t3), FX(cadd)(t1, t4), FX(csub)(t2, t3), FX(csub)(t1, t4)};
      for (size_t m = 0; m < 4; m++)
        ch[i + ido * (k + l1 * m)] = (i && m) ? FX(ctw)(fwd, o[m], wa[(m - 1) * (ido - 1) + i - 1]) : o[m];
    }
  return ch;
}

/* Eighth turns for radix 8: a * e^(-+i pi/4) and a * e^(-+3i pi/4). */
static inline FX(cx) FX(crot45)(bool fwd, FX(cx) a, FR h) {
  return fwd ? (FX(cx)){h * (a.r + a.i), h * (a.i - a.r)} : (FX(cx)){h * (a.r - a.i), h * (a.i + a.r)};
}
static inline FX(cx) FX(crot135)(bool fwd, FX(cx) a, FR h) {
  return fwd ? (FX(cx)){h * (a.i - a.r), h * (-a.r - a.i)} : (FX(cx)){h * (-a.r - a.i), h * (a.r - a.i)};
}

static FX(cx) *FX(cpass8)(const FX(cpass) *p, const FX(cx) *cc, FX(cx) *ch, bool fwd) {
  size_t l1 = p->l1, ido = p->ido;
  const FR h = (FR)0.707106781186547524400844362104849L;
  for (size_t k = 0; k < l1; k++)
    for (size_t i = 0; i < ido; i++) {
      const FX(cx) *c = cc + i + ido * 8 * k;
      FX(cx) a1 = FX(cadd)(c[ido], c[5 * ido]), a5 = FX(csub)(c[ido], c[5 * ido]);
      FX(cx) a3 = FX(cadd)(c[3 * ido], c[7 * ido]), a7 = FX(csub)(c[3 * ido], c[7 * ido]);
      FX(cx) s13 = FX(cadd)(a1, a3), d13 = FX(crot90)(fwd, FX(csub)(a1, a3));
      a7 = FX(crot90)(fwd, a7);
      FX(cx) s57 = FX(crot45)(fwd, FX(cadd)(a5, a7), h), d57 = FX(crot135)(fwd, FX(csub)(a5, a7), h);
      FX(cx) a0 = FX(cadd)(c[0], c[4 * ido]), a4 = FX(csub)(c[0], c[4 * ido]);
      FX(cx) a2 = FX(cadd)(c[2 * ido], c[6 * ido]), a6 = FX(crot90)(fwd, FX(csub)(c[2 * ido], c[6 * ido]));
      FX(cx) s02 = FX(cadd)(a0, a2), d02 = FX(csub)(a0, a2), s46 = FX(cadd)(a4, a6), d46 = FX(csub)(a4, a6);
      FX(cx) o[8] = {FX(cadd)(s02, s13), FX(cadd)(s46, s57), FX(cadd)(d02, d13), FX(cadd)(d46, d57),
                     FX(csub)(s02, s13), FX(csub)(s46, s57), FX(csub)(d02, d13), FX(csub)(d46, d57)};
      for (size_t m = 0; m < 8; m++)
        ch[i + ido * (k + l1 * m)] = (i && m) ? FX(ctw)(fwd, o[m], p->wa[(m - 1) * (ido - 1) + i - 1]) : o[m];
    }
  return ch;
}

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

/* Radix 3, 5, 7 or 11: with t_j = x_j + x_(ip-j), d_j = x_j - x_(ip-j),
 * output u and ip-u are a_u +- b_u where a_u = x_0 + sum_j cos(2 pi uj/ip) t_j
 * and b_u = i sum_j -+sin(2 pi uj/ip) d_j, summed left to right. */
static FX(cx) *FX(cpass_odd)(const FX(cpass) *p, const FX(cx) *cc, FX(cx) *ch, bool fwd) {
  size_t l1 = p->l1, ido = p->ido, ip = p->ip, h = ip / 2;
  int row = ip == 3 ? 0 : ip == 5 ? 1 : ip == 7 ? 2 : 3;
  FR cw[6][6], sw[6][6]; /* cw[u][j], sw[u][j] for u, j in 1..h */
  for (size_t u = 1; u <= h; u++)
    for (size_t j = 1; j <= h; j++) {
      size_t m = u * j % ip;
      bool flip = m > h;
      if (flip) m = ip - m;
      FR s = (FR)FX(odd_sin)[row][m - 1];
      cw[u][j] = (FR)FX(odd_cos)[row][m - 1];
      sw[u][j] = (fwd != flip) ? -s : s;
    }
  for (size_t k = 0; k < l1; k++)
    for (size_t i = 0; i < ido; i++) {
      const FX(cx) *c = cc + i + ido * ip * k;
      FX(cx) t[6], d[6];
      t[0] = c[0];
      FX(cx) sum = t[0];
      for (size_t j = 1; j <= h; j++) {
        t[j] = FX(cadd)(c[j * ido], c[(ip - j) * ido]);
        d[j] = FX(csub)(c[j * ido], c[(ip - j) * ido]);
        sum = FX(cadd)(sum, t[j]);
      }
      ch[i + ido * k] = sum;
      for (size_t u = 1; u <= h; u++) {
        FX(cx) a = t[0];
        FR bi = sw[u][1] * d[1].r, br = sw[u][1] * d[1].i;
        for (size_t j = 1; j <= h; j++) {
          a.r = a.r + cw[u][j] * t[j].r;
          a.i = a.i + cw[u][j] * t[j].i;
          if (j > 1) {
            bi = bi + sw[u][j] * d[j].r;
            br = br + sw[u][j] * d[j].i;
          }
        }
        FX(cx) b = {-br, bi}, lo = FX(cadd)(a, b), hi = FX(csub)(a, b);
        if (i) {
          lo = FX(ctw)(fwd, lo, p->wa[(u - 1) * (ido - 1) + i - 1]);
          hi = FX(ctw)(fwd, hi, p->wa[(ip - u - 1) * (ido - 1) + i - 1]);
        }
        ch[i + ido * (k + l1 * u)] = lo;
        ch[i + ido * (k + l1 * (ip - u))] = hi;
      }
    }
  return ch;
}

/* Generic odd radix: works in place in cc, with ch as scratch. */
static FX(cx) *FX(cpass_gen)(const FX(cpass) *p, FX(cx) *cc, FX(cx) *ch, bool fwd) {
  size_t l1 = p->l1, ido = p->ido, ip = p->ip, ipph = (ip + 1) / 2, idl1 = ido * l1;
#define CH_(a, b, c) ch[(a) + ido * ((b) + l1 * (c))]
#define CC_(a, b, c) cc[(a) + ido * ((b) + ip * (c))]
#define CX_(a, b, c) cc[(a) + ido * ((b) + l1 * (c))]
#define CX2_(a, b) cc[(a) + idl1 * (b)]
#define CH2_(a, b) ch[(a) + idl1 * (b)]
  for (size_t k = 0; k < l1; k++)
    for (size_t i = 0; i < ido; i++) CH_(i, k, 0) = CC_(i, 0, k);
  for (size_t j = 1, jc = ip - 1; j < ipph; j++, jc--)
    for (size_t k = 0; k < l1; k++)
      for (size_t i = 0; i < ido; i++) {
        FX(cx) a = CC_(i, j, k), b = CC_(i, jc, k);
        CH_(i, k, j) = FX(cadd)(a, b);
        CH_(i, k, jc) = FX(csub)(a, b);
      }
  for (size_t k = 0; k < l1; k++)
    for (size_t i = 0; i < ido; i++) {
      FX(cx) tmp = CH_(i, k, 0);
      for (size_t j = 1; j < ipph; j++) tmp = FX(cadd)(tmp, CH_(i, k, j));
      CX_(i, k, 0) = tmp;
    }
  for (size_t l = 1, lc = ip - 1; l < ipph; l++, lc--) {
    FX(cx) w1 = p->cs[l], w2 = p->cs[2 * l];
    if (fwd) w1.i = -w1.i, w2.i = -w2.i;
    for (size_t ik = 0; ik < idl1; ik++) {
      CX2_(ik, l).r = CH2_(ik, 0).r + w1.r * CH2_(ik, 1).r + w2.r * CH2_(ik, 2).r;
      CX2_(ik, l).i = CH2_(ik, 0).i + w1.r * CH2_(ik, 1).i + w2.r * CH2_(ik, 2).i;
      CX2_(ik, lc).r = -w1.i * CH2_(ik, ip - 1).i - w2.i * CH2_(ik, ip - 2).i;
      CX2_(ik, lc).i = w1.i * CH2_(ik, ip - 1).r + w2.i * CH2_(ik, ip - 2).r;
    }
    size_t iw = 2 * l, j = 3, jc = ip - 3;
    for (; j < ipph - 1; j += 2, jc -= 2) {
      iw += l;
      if (iw > ip) iw -= ip;
      FX(cx) x1 = p->cs[iw];
      iw += l;
      if (iw > ip) iw -= ip;
      FX(cx) x2 = p->cs[iw];
      if (fwd) x1.i = -x1.i, x2.i = -x2.i;
      for (size_t ik = 0; ik < idl1; ik++) {
        CX2_(ik, l).r += CH2_(ik, j).r * x1.r + CH2_(ik, j + 1).r * x2.r;
        CX2_(ik, l).i += CH2_(ik, j).i * x1.r + CH2_(ik, j + 1).i * x2.r;
        CX2_(ik, lc).r -= CH2_(ik, jc).i * x1.i + CH2_(ik, jc - 1).i * x2.i;
        CX2_(ik, lc).i += CH2_(ik, jc).r * x1.i + CH2_(ik, jc - 1).r * x2.i;
      }
    }
    for (; j < ipph; j++, jc--) {
      iw += l;
      if (iw > ip) iw -= ip;
      FX(cx) x1 = p->cs[iw];
      if (fwd) x1.i = -x1.i;
      for (size_t ik = 0; ik < idl1; ik++) {
        CX2_(ik, l).r += CH2_(ik, j).r * x1.r;
        CX2_(ik, l).i += CH2_(ik, j).i * x1.r;
        CX2_(ik, lc).r -= CH2_(ik, jc).i * x1.i;
        CX2_(ik, lc).i += CH2_(ik, jc).r * x1.i;
      }
    }
  }
  for (size_t j = 1, jc = ip - 1; j < ipph; j++, jc--)
    for (size_t k = 0; k < l1; k++)
      for (size_t i = 0; i < ido; i++) {
        FX(cx) a = CX_(i, k, j), b = CX_(i, k, jc), s = FX(cadd)(a, b), d = FX(csub)(a, b);
        if (i) {
          s = FX(ctw)(fwd, s, p->wa[(j - 1) * (ido - 1) + i - 1]);
          d = FX(ctw)(fwd, d, p->wa[(jc - 1) * (ido - 1) + i - 1]);
        }
        CX_(i, k, j) = s;
        CX_(i, k, jc) = d;
      }
#undef CH_
#undef CC_
#undef CX_
#undef CX2_
#undef CH2_
  return cc;
}

static FX(cx) *FX(cpass_exec)(const FX(cpass) *p, FX(cx) *cc, FX(cx) *ch, FX(cx) *buf, bool fwd);

/* Bluestein: the length-ip DFT as a convolution with a chirp, done with
 * FFTs of the padded length n2. */
static FX(cx) *FX(cpass_blue)(const FX(cpass) *p, const FX(cx) *cc, FX(cx) *ch, FX(cx) *buf, bool fwd) {
  size_t l1 = p->l1, ido = p->ido, ip = p->ip, n2 = p->n2;
  FX(cx) *akf = buf, *akf2 = buf + n2, *sub = buf + 2 * n2;
  for (size_t k = 0; k < l1; k++)
    for (size_t i = 0; i < ido; i++) {
      for (size_t m = 0; m < ip; m++) akf[m] = FX(ctw)(fwd, cc[i + ido * (m + ip * k)], p->bk[m]);
      FX(cx) zero = FX(cscale)(akf[0], 0);
      for (size_t m = ip; m < n2; m++) akf[m] = zero;
      FX(cx) *res = FX(cpass_exec)(p->sub, akf, akf2, sub, true);
      res[0] = FX(ctw)(!fwd, res[0], p->bkf[0]);
      for (size_t m = 1; m < (n2 + 1) / 2; m++) {
        res[m] = FX(ctw)(!fwd, res[m], p->bkf[m]);
        res[n2 - m] = FX(ctw)(!fwd, res[n2 - m], p->bkf[m]);
      }
      if ((n2 & 1) == 0) res[n2 / 2] = FX(ctw)(!fwd, res[n2 / 2], p->bkf[n2 / 2]);
      res = FX(cpass_exec)(p->sub, res, res == akf ? akf2 : akf, sub, false);
      for (size_t m = 0; m < ip; m++) {
        FX(cx) w = (i && m) ? FX(cmul)(p->bk[m], p->wa[(m - 1) * (ido - 1) + i - 1]) : p->bk[m];
        ch[i + ido * (k + l1 * m)] = FX(ctw)(fwd, res[m], w);
      }
    }
  return ch;
}

static FX(cx) *FX(cpass_exec)(const FX(cpass) *p, FX(cx) *cc, FX(cx) *ch, FX(cx) *buf, bool fwd) {
  switch (p->kind) {
    case FPK_ID: return cc;
    case FPK_GEN: return FX(cpass_gen)(p, cc, ch, fwd);
    case FPK_BLUE: return FX(cpass_blue)(p, cc, ch, buf, fwd);
    case FPK_MULTI: {
      FX(cx) *p1 = cc, *p2 = ch;
      for (size_t j = 0; j < p->np; j++) {
        FX(cx) *res = FX(cpass_exec)(p->passes[j], p1, p2, buf, fwd);
        if (res == p2) p2 = p1, p1 = res;
      }
      return p1;
    }
    default:
      switch (p->ip) {
        case 2: return FX(cpass2)(p, cc, ch, fwd);
        case 4: return FX(cpass4)(p, cc, ch, fwd);
        case 8: return FX(cpass8)(p, cc, ch, fwd);
        default: return FX(cpass_odd)(p, cc, ch, fwd);
      }
  }
}

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
