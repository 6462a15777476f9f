/* Complex FFT passes (the butterflies of fft_cpass.h), instantiated once
 * per precision and lane type: FV is the lane type (FR for one transform,
 * a vector of FR for several transforms of a batch at once, one per lane),
 * VC the complex type over FV, FY(name) the names of this instantiation.
 * Twiddles and constants stay scalar (FR), so every lane computes exactly
 * what the scalar code computes.  No include guard on purpose. */

static inline VC FY(cadd)(VC a, VC b) { return (VC){a.r + b.r, a.i + b.i}; }
static inline VC FY(csub)(VC a, VC b) { return (VC){a.r - b.r, a.i - b.i}; }
static inline VC FY(cscale)(VC a, FR s) { return (VC){a.r * s, a.i * s}; }
/* a * conj(w) going forward, a * w going backward. */
static inline VC FY(ctw)(bool fwd, VC a, FX(cx) w) {
  return fwd ? (VC){a.r * w.r + a.i * w.i, a.i * w.r - a.r * w.i}
             : (VC){a.r * w.r - a.i * w.i, a.r * w.i + a.i * w.r};
}
/* a * -i going forward, a * i going backward (exact). */
static inline VC FY(crot90)(bool fwd, VC a) { return fwd ? (VC){a.i, -a.r} : (VC){-a.i, a.r}; }

/* ---- butterflies ---- */

static VC *FY(cpass2)(const FX(cpass) *p, const VC *cc, VC *ch, bool fwd) {
  size_t l1 = p->l1, ido = p->ido;
  for (size_t k = 0; k < l1; k++)
    for (size_t i = 0; i < ido; i++) {
      VC a = cc[i + ido * (0 + 2 * k)], b = cc[i + ido * (1 + 2 * k)];
      ch[i + ido * k] = FY(cadd)(a, b);
      VC d = FY(csub)(a, b);
      ch[i + ido * (k + l1)] = i ? FY(ctw)(fwd, d, p->wa[i - 1]) : d;
    }
  return ch;
}

static VC *FY(cpass4)(const FX(cpass) *p, const VC *cc, VC *ch, bool fwd) {
  size_t l1 = p->l1, ido = p->ido;
  const FX(cx) *wa = p->wa;
  for (size_t k = 0; k < l1; k++)
    for (size_t i = 0; i < ido; i++) {
      const VC *c = cc + i + ido * 4 * k;
      VC t2 = FY(cadd)(c[0], c[2 * ido]), t1 = FY(csub)(c[0], c[2 * ido]);
      VC t3 = FY(cadd)(c[ido], c[3 * ido]), t4 = FY(crot90)(fwd, FY(csub)(c[ido], c[3 * ido]));
      VC o[4] = {FY(cadd)(t2, t3), FY(cadd)(t1, t4), FY(csub)(t2, t3), FY(csub)(t1, t4)};
      for (size_t m = 0; m < 4; m++)
        ch[i + ido * (k + l1 * m)] = (i && m) ? FY(ctw)(fwd, o[m], wa[(m - 1) * (ido - 1) + i - 1]) : o[m];
    }
  return ch;
}

/* Eighth turns for radix 8: a * e^(-+i pi/4) and a * e^(-+3i pi/4). */
static inline VC FY(crot45)(bool fwd, VC a, FR h) {
  return fwd ? (VC){h * (a.r + a.i), h * (a.i - a.r)} : (VC){h * (a.r - a.i), h * (a.i + a.r)};
}
static inline VC FY(crot135)(bool fwd, VC a, FR h) {
  return fwd ? (VC){h * (a.i - a.r), h * (-a.r - a.i)} : (VC){h * (-a.r - a.i), h * (a.r - a.i)};
}

static VC *FY(cpass8)(const FX(cpass) *p, const VC *cc, VC *ch, bool fwd) {
  size_t l1 = p->l1, ido = p->ido;
  const FR h = (FR)0.707106781186547524400844362104849L;
  for (size_t k = 0; k < l1; k++)
    for (size_t i = 0; i < ido; i++) {
      const VC *c = cc + i + ido * 8 * k;
      VC a1 = FY(cadd)(c[ido], c[5 * ido]), a5 = FY(csub)(c[ido], c[5 * ido]);
      VC a3 = FY(cadd)(c[3 * ido], c[7 * ido]), a7 = FY(csub)(c[3 * ido], c[7 * ido]);
      VC s13 = FY(cadd)(a1, a3), d13 = FY(crot90)(fwd, FY(csub)(a1, a3));
      a7 = FY(crot90)(fwd, a7);
      VC s57 = FY(crot45)(fwd, FY(cadd)(a5, a7), h), d57 = FY(crot135)(fwd, FY(csub)(a5, a7), h);
      VC a0 = FY(cadd)(c[0], c[4 * ido]), a4 = FY(csub)(c[0], c[4 * ido]);
      VC a2 = FY(cadd)(c[2 * ido], c[6 * ido]), a6 = FY(crot90)(fwd, FY(csub)(c[2 * ido], c[6 * ido]));
      VC s02 = FY(cadd)(a0, a2), d02 = FY(csub)(a0, a2), s46 = FY(cadd)(a4, a6), d46 = FY(csub)(a4, a6);
      VC o[8] = {FY(cadd)(s02, s13), FY(cadd)(s46, s57), FY(cadd)(d02, d13), FY(cadd)(d46, d57),
                     FY(csub)(s02, s13), FY(csub)(s46, s57), FY(csub)(d02, d13), FY(csub)(d46, d57)};
      for (size_t m = 0; m < 8; m++)
        ch[i + ido * (k + l1 * m)] = (i && m) ? FY(ctw)(fwd, o[m], p->wa[(m - 1) * (ido - 1) + i - 1]) : o[m];
    }
  return ch;
}

/* Radix 3, 5, 7 or 11: with t_j = x_j + x_(ip-j), d_j = x_j - x_(ip-j),
 * output u and ip-u are a_u +- b_u where a_u = x_0 + sum_j cos(2 pi uj/ip) t_j
 * and b_u = i sum_j -+sin(2 pi uj/ip) d_j, summed left to right. */
static VC *FY(cpass_odd)(const FX(cpass) *p, const VC *cc, VC *ch, bool fwd) {
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
      const VC *c = cc + i + ido * ip * k;
      VC t[6], d[6];
      t[0] = c[0];
      VC sum = t[0];
      for (size_t j = 1; j <= h; j++) {
        t[j] = FY(cadd)(c[j * ido], c[(ip - j) * ido]);
        d[j] = FY(csub)(c[j * ido], c[(ip - j) * ido]);
        sum = FY(cadd)(sum, t[j]);
      }
      ch[i + ido * k] = sum;
      for (size_t u = 1; u <= h; u++) {
        VC a = t[0];
        FV bi = sw[u][1] * d[1].r, br = sw[u][1] * d[1].i;
        for (size_t j = 1; j <= h; j++) {
          a.r = a.r + cw[u][j] * t[j].r;
          a.i = a.i + cw[u][j] * t[j].i;
          if (j > 1) {
            bi = bi + sw[u][j] * d[j].r;
            br = br + sw[u][j] * d[j].i;
          }
        }
        VC b = {-br, bi}, lo = FY(cadd)(a, b), hi = FY(csub)(a, b);
        if (i) {
          lo = FY(ctw)(fwd, lo, p->wa[(u - 1) * (ido - 1) + i - 1]);
          hi = FY(ctw)(fwd, hi, p->wa[(ip - u - 1) * (ido - 1) + i - 1]);
        }
        ch[i + ido * (k + l1 * u)] = lo;
        ch[i + ido * (k + l1 * (ip - u))] = hi;
      }
    }
  return ch;
}

/* Generic odd radix: works in place in cc, with ch as scratch. */
static VC *FY(cpass_gen)(const FX(cpass) *p, VC *cc, VC *ch, bool fwd) {
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
        VC a = CC_(i, j, k), b = CC_(i, jc, k);
        CH_(i, k, j) = FY(cadd)(a, b);
        CH_(i, k, jc) = FY(csub)(a, b);
      }
  for (size_t k = 0; k < l1; k++)
    for (size_t i = 0; i < ido; i++) {
      VC tmp = CH_(i, k, 0);
      for (size_t j = 1; j < ipph; j++) tmp = FY(cadd)(tmp, CH_(i, k, j));
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
        VC a = CX_(i, k, j), b = CX_(i, k, jc), s = FY(cadd)(a, b), d = FY(csub)(a, b);
        if (i) {
          s = FY(ctw)(fwd, s, p->wa[(j - 1) * (ido - 1) + i - 1]);
          d = FY(ctw)(fwd, d, p->wa[(jc - 1) * (ido - 1) + i - 1]);
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

static VC *FY(cpass_exec)(const FX(cpass) *p, VC *cc, VC *ch, VC *buf, bool fwd);

/* Bluestein: the length-ip DFT as a convolution with a chirp, done with
 * FFTs of the padded length n2. */
static VC *FY(cpass_blue)(const FX(cpass) *p, const VC *cc, VC *ch, VC *buf, bool fwd) {
  size_t l1 = p->l1, ido = p->ido, ip = p->ip, n2 = p->n2;
  VC *akf = buf, *akf2 = buf + n2, *sub = buf + 2 * n2;
  for (size_t k = 0; k < l1; k++)
    for (size_t i = 0; i < ido; i++) {
      for (size_t m = 0; m < ip; m++) akf[m] = FY(ctw)(fwd, cc[i + ido * (m + ip * k)], p->bk[m]);
      VC zero = FY(cscale)(akf[0], 0);
      for (size_t m = ip; m < n2; m++) akf[m] = zero;
      VC *res = FY(cpass_exec)(p->sub, akf, akf2, sub, true);
      res[0] = FY(ctw)(!fwd, res[0], p->bkf[0]);
      for (size_t m = 1; m < (n2 + 1) / 2; m++) {
        res[m] = FY(ctw)(!fwd, res[m], p->bkf[m]);
        res[n2 - m] = FY(ctw)(!fwd, res[n2 - m], p->bkf[m]);
      }
      if ((n2 & 1) == 0) res[n2 / 2] = FY(ctw)(!fwd, res[n2 / 2], p->bkf[n2 / 2]);
      res = FY(cpass_exec)(p->sub, res, res == akf ? akf2 : akf, sub, false);
      for (size_t m = 0; m < ip; m++) {
        FX(cx) w = (i && m) ? FX(cmul)(p->bk[m], p->wa[(m - 1) * (ido - 1) + i - 1]) : p->bk[m];
        ch[i + ido * (k + l1 * m)] = FY(ctw)(fwd, res[m], w);
      }
    }
  return ch;
}

static VC *FY(cpass_exec)(const FX(cpass) *p, VC *cc, VC *ch, VC *buf, bool fwd) {
  switch (p->kind) {
    case FPK_ID: return cc;
    case FPK_GEN: return FY(cpass_gen)(p, cc, ch, fwd);
    case FPK_BLUE: return FY(cpass_blue)(p, cc, ch, buf, fwd);
    case FPK_MULTI: {
      VC *p1 = cc, *p2 = ch;
      for (size_t j = 0; j < p->np; j++) {
        VC *res = FY(cpass_exec)(p->passes[j], p1, p2, buf, fwd);
        if (res == p2) p2 = p1, p1 = res;
      }
      return p1;
    }
    default:
      switch (p->ip) {
        case 2: return FY(cpass2)(p, cc, ch, fwd);
        case 4: return FY(cpass4)(p, cc, ch, fwd);
        case 8: return FY(cpass8)(p, cc, ch, fwd);
        default: return FY(cpass_odd)(p, cc, ch, fwd);
      }
  }
}

