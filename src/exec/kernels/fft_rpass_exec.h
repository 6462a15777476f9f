/* Real FFT passes (the butterflies of fft_rpass.h), instantiated like
 * fft_cpass_exec.h: FV the lane type, VC the complex type over it, FY(name)
 * the names; twiddles and constants stay scalar (FR).  No include guard on
 * purpose. */

/* a + ib = conj(c + id) * (e + if) */
#define MULPM_(a, b, c, d, e, f) ((a) = (c) * (e) + (d) * (f), (b) = (c) * (f) - (d) * (e))
#define PM_(a, b, c, d) ((a) = (c) + (d), (b) = (c) - (d))

static FV *FY(rpass2)(const FX(rpass) *p, const FV *cc, FV *ch, bool fwd) {
  size_t l1 = p->l1, ido = p->ido;
  const FR *wa = p->wa;
  if (fwd) {
#define CC_(a, b, c) cc[(a) + ido * ((b) + l1 * (c))]
#define CH_(a, b, c) ch[(a) + ido * ((b) + 2 * (c))]
    for (size_t k = 0; k < l1; k++) PM_(CH_(0, 0, k), CH_(ido - 1, 1, k), CC_(0, k, 0), CC_(0, k, 1));
    if ((ido & 1) == 0)
      for (size_t k = 0; k < l1; k++) {
        CH_(0, 1, k) = -CC_(ido - 1, k, 1);
        CH_(ido - 1, 0, k) = CC_(ido - 1, k, 0);
      }
    if (ido <= 2) return ch;
    for (size_t k = 0; k < l1; k++)
      for (size_t i = 2; i < ido; i += 2) {
        size_t ic = ido - i;
        FV tr2, ti2;
        MULPM_(tr2, ti2, wa[i - 2], wa[i - 1], CC_(i - 1, k, 1), CC_(i, k, 1));
        PM_(CH_(i - 1, 0, k), CH_(ic - 1, 1, k), CC_(i - 1, k, 0), tr2);
        PM_(CH_(i, 0, k), CH_(ic, 1, k), ti2, CC_(i, k, 0));
      }
#undef CC_
#undef CH_
  } else {
#define CC_(a, b, c) cc[(a) + ido * ((b) + 2 * (c))]
#define CH_(a, b, c) ch[(a) + ido * ((b) + l1 * (c))]
    for (size_t k = 0; k < l1; k++) PM_(CH_(0, k, 0), CH_(0, k, 1), CC_(0, 0, k), CC_(ido - 1, 1, k));
    if ((ido & 1) == 0)
      for (size_t k = 0; k < l1; k++) {
        CH_(ido - 1, k, 0) = (FR)2 * CC_(ido - 1, 0, k);
        CH_(ido - 1, k, 1) = (FR)-2 * CC_(0, 1, k);
      }
    if (ido <= 2) return ch;
    for (size_t k = 0; k < l1; k++)
      for (size_t i = 2; i < ido; i += 2) {
        size_t ic = ido - i;
        FV ti2, tr2;
        PM_(CH_(i - 1, k, 0), tr2, CC_(i - 1, 0, k), CC_(ic - 1, 1, k));
        PM_(ti2, CH_(i, k, 0), CC_(i, 0, k), CC_(ic, 1, k));
        MULPM_(CH_(i, k, 1), CH_(i - 1, k, 1), wa[i - 2], wa[i - 1], ti2, tr2);
      }
#undef CC_
#undef CH_
  }
  return ch;
}

static FV *FY(rpass3)(const FX(rpass) *p, const FV *cc, FV *ch, bool fwd) {
  size_t l1 = p->l1, ido = p->ido;
  const FR taur = (FR)-0.5, taui = (FR)0.8660254037844386467637231707529362L;
#define WA_(x, i) p->wa[(i) + (x) * (ido - 1)]
  if (fwd) {
#define CC_(a, b, c) cc[(a) + ido * ((b) + l1 * (c))]
#define CH_(a, b, c) ch[(a) + ido * ((b) + 3 * (c))]
    for (size_t k = 0; k < l1; k++) {
      FV cr2 = CC_(0, k, 1) + CC_(0, k, 2);
      CH_(0, 0, k) = CC_(0, k, 0) + cr2;
      CH_(0, 2, k) = taui * (CC_(0, k, 2) - CC_(0, k, 1));
      CH_(ido - 1, 1, k) = CC_(0, k, 0) + taur * cr2;
    }
    if (ido == 1) return ch;
    for (size_t k = 0; k < l1; k++)
      for (size_t i = 2; i < ido; i += 2) {
        size_t ic = ido - i;
        FV dr2, di2, dr3, di3;
        MULPM_(dr2, di2, WA_(0, i - 2), WA_(0, i - 1), CC_(i - 1, k, 1), CC_(i, k, 1));
        MULPM_(dr3, di3, WA_(1, i - 2), WA_(1, i - 1), CC_(i - 1, k, 2), CC_(i, k, 2));
        FV sr = dr2 + dr3, si = di2 + di3, xr = di2 - di3, xi = dr3 - dr2;
        CH_(i - 1, 0, k) = CC_(i - 1, k, 0) + sr;
        CH_(i, 0, k) = CC_(i, k, 0) + si;
        FV tr2 = CC_(i - 1, k, 0) + taur * sr, ti2 = CC_(i, k, 0) + taur * si;
        FV tr3 = taui * xr, ti3 = taui * xi;
        PM_(CH_(i - 1, 2, k), CH_(ic - 1, 1, k), tr2, tr3);
        PM_(CH_(i, 2, k), CH_(ic, 1, k), ti3, ti2);
      }
#undef CC_
#undef CH_
  } else {
#define CC_(a, b, c) cc[(a) + ido * ((b) + 3 * (c))]
#define CH_(a, b, c) ch[(a) + ido * ((b) + l1 * (c))]
    for (size_t k = 0; k < l1; k++) {
      FV tr2 = (FR)2 * CC_(ido - 1, 1, k);
      FV cr2 = CC_(0, 0, k) + taur * tr2;
      CH_(0, k, 0) = CC_(0, 0, k) + tr2;
      FV ci3 = (FR)2 * taui * CC_(0, 2, k);
      PM_(CH_(0, k, 2), CH_(0, k, 1), cr2, ci3);
    }
    if (ido == 1) return ch;
    for (size_t k = 0; k < l1; k++)
      for (size_t i = 2, ic = ido - 2; i < ido; i += 2, ic -= 2) {
        FV tr2 = CC_(i - 1, 2, k) + CC_(ic - 1, 1, k), ti2 = CC_(i, 2, k) - CC_(ic, 1, k);
        FV cr2 = CC_(i - 1, 0, k) + taur * tr2, ci2 = CC_(i, 0, k) + taur * ti2;
        CH_(i - 1, k, 0) = CC_(i - 1, 0, k) + tr2;
        CH_(i, k, 0) = CC_(i, 0, k) + ti2;
        FV cr3 = taui * (CC_(i - 1, 2, k) - CC_(ic - 1, 1, k)), ci3 = taui * (CC_(i, 2, k) + CC_(ic, 1, k));
        FV dr2, dr3, di2, di3;
        PM_(dr3, dr2, cr2, ci3);
        PM_(di2, di3, ci2, cr3);
        MULPM_(CH_(i, k, 1), CH_(i - 1, k, 1), WA_(0, i - 2), WA_(0, i - 1), di2, dr2);
        MULPM_(CH_(i, k, 2), CH_(i - 1, k, 2), WA_(1, i - 2), WA_(1, i - 1), di3, dr3);
      }
#undef CC_
#undef CH_
  }
  return ch;
}

static FV *FY(rpass4)(const FX(rpass) *p, const FV *cc, FV *ch, bool fwd) {
  size_t l1 = p->l1, ido = p->ido;
  if (fwd) {
    const FR hsqt2 = (FR)0.707106781186547524400844362104849L;
#define CC_(a, b, c) cc[(a) + ido * ((b) + l1 * (c))]
#define CH_(a, b, c) ch[(a) + ido * ((b) + 4 * (c))]
    for (size_t k = 0; k < l1; k++) {
      FV tr1, tr2;
      PM_(tr1, CH_(0, 2, k), CC_(0, k, 3), CC_(0, k, 1));
      PM_(tr2, CH_(ido - 1, 1, k), CC_(0, k, 0), CC_(0, k, 2));
      PM_(CH_(0, 0, k), CH_(ido - 1, 3, k), tr2, tr1);
    }
    if ((ido & 1) == 0)
      for (size_t k = 0; k < l1; k++) {
        FV ti1 = -hsqt2 * (CC_(ido - 1, k, 1) + CC_(ido - 1, k, 3));
        FV tr1 = hsqt2 * (CC_(ido - 1, k, 1) - CC_(ido - 1, k, 3));
        PM_(CH_(ido - 1, 0, k), CH_(ido - 1, 2, k), CC_(ido - 1, k, 0), tr1);
        PM_(CH_(0, 3, k), CH_(0, 1, k), ti1, CC_(ido - 1, k, 2));
      }
    if (ido <= 2) return ch;
    for (size_t k = 0; k < l1; k++)
      for (size_t i = 2; i < ido; i += 2) {
        size_t ic = ido - i;
        FV cr2, ci2, cr3, ci3, cr4, ci4, tr1, tr2, tr3, tr4, ti1, ti2, ti3, ti4;
        MULPM_(cr2, ci2, WA_(0, i - 2), WA_(0, i - 1), CC_(i - 1, k, 1), CC_(i, k, 1));
        MULPM_(cr3, ci3, WA_(1, i - 2), WA_(1, i - 1), CC_(i - 1, k, 2), CC_(i, k, 2));
        MULPM_(cr4, ci4, WA_(2, i - 2), WA_(2, i - 1), CC_(i - 1, k, 3), CC_(i, k, 3));
        PM_(tr1, tr4, cr4, cr2);
        PM_(ti1, ti4, ci2, ci4);
        PM_(tr2, tr3, CC_(i - 1, k, 0), cr3);
        PM_(ti2, ti3, CC_(i, k, 0), ci3);
        PM_(CH_(i - 1, 0, k), CH_(ic - 1, 3, k), tr2, tr1);
        PM_(CH_(i, 0, k), CH_(ic, 3, k), ti1, ti2);
        PM_(CH_(i - 1, 2, k), CH_(ic - 1, 1, k), tr3, ti4);
        PM_(CH_(i, 2, k), CH_(ic, 1, k), tr4, ti3);
      }
#undef CC_
#undef CH_
  } else {
    const FR sqrt2 = (FR)1.414213562373095048801688724209698L;
#define CC_(a, b, c) cc[(a) + ido * ((b) + 4 * (c))]
#define CH_(a, b, c) ch[(a) + ido * ((b) + l1 * (c))]
    for (size_t k = 0; k < l1; k++) {
      FV tr1, tr2;
      PM_(tr2, tr1, CC_(0, 0, k), CC_(ido - 1, 3, k));
      FV tr3 = (FR)2 * CC_(ido - 1, 1, k), tr4 = (FR)2 * CC_(0, 2, k);
      PM_(CH_(0, k, 0), CH_(0, k, 2), tr2, tr3);
      PM_(CH_(0, k, 3), CH_(0, k, 1), tr1, tr4);
    }
    if ((ido & 1) == 0)
      for (size_t k = 0; k < l1; k++) {
        FV tr1, tr2, ti1, ti2;
        PM_(ti1, ti2, CC_(0, 3, k), CC_(0, 1, k));
        PM_(tr2, tr1, CC_(ido - 1, 0, k), CC_(ido - 1, 2, k));
        CH_(ido - 1, k, 0) = tr2 + tr2;
        CH_(ido - 1, k, 1) = sqrt2 * (tr1 - ti1);
        CH_(ido - 1, k, 2) = ti2 + ti2;
        CH_(ido - 1, k, 3) = -sqrt2 * (tr1 + ti1);
      }
    if (ido <= 2) return ch;
    for (size_t k = 0; k < l1; k++)
      for (size_t i = 2; i < ido; i += 2) {
        size_t ic = ido - i;
        FV cr2, ci2, cr3, ci3, cr4, ci4, tr1, tr2, tr3, tr4, ti1, ti2, ti3, ti4;
        PM_(tr2, tr1, CC_(i - 1, 0, k), CC_(ic - 1, 3, k));
        PM_(ti1, ti2, CC_(i, 0, k), CC_(ic, 3, k));
        PM_(tr4, ti3, CC_(i, 2, k), CC_(ic, 1, k));
        PM_(tr3, ti4, CC_(i - 1, 2, k), CC_(ic - 1, 1, k));
        PM_(CH_(i - 1, k, 0), cr3, tr2, tr3);
        PM_(CH_(i, k, 0), ci3, ti2, ti3);
        PM_(cr4, cr2, tr1, tr4);
        PM_(ci2, ci4, ti1, ti4);
        MULPM_(CH_(i, k, 1), CH_(i - 1, k, 1), WA_(0, i - 2), WA_(0, i - 1), ci2, cr2);
        MULPM_(CH_(i, k, 2), CH_(i - 1, k, 2), WA_(1, i - 2), WA_(1, i - 1), ci3, cr3);
        MULPM_(CH_(i, k, 3), CH_(i - 1, k, 3), WA_(2, i - 2), WA_(2, i - 1), ci4, cr4);
      }
#undef CC_
#undef CH_
  }
  return ch;
}

static FV *FY(rpass5)(const FX(rpass) *p, const FV *cc, FV *ch, bool fwd) {
  size_t l1 = p->l1, ido = p->ido;
  const FR tr11 = (FR)0.3090169943749474241022934171828191L, ti11 = (FR)0.9510565162951535721164393333793821L,
           tr12 = (FR)-0.8090169943749474241022934171828191L, ti12 = (FR)0.5877852522924731291687059546390728L;
  if (fwd) {
#define CC_(a, b, c) cc[(a) + ido * ((b) + l1 * (c))]
#define CH_(a, b, c) ch[(a) + ido * ((b) + 5 * (c))]
    for (size_t k = 0; k < l1; k++) {
      FV cr2, cr3, ci4, ci5;
      PM_(cr2, ci5, CC_(0, k, 4), CC_(0, k, 1));
      PM_(cr3, ci4, CC_(0, k, 3), CC_(0, k, 2));
      CH_(0, 0, k) = CC_(0, k, 0) + cr2 + cr3;
      CH_(ido - 1, 1, k) = CC_(0, k, 0) + tr11 * cr2 + tr12 * cr3;
      CH_(0, 2, k) = ti11 * ci5 + ti12 * ci4;
      CH_(ido - 1, 3, k) = CC_(0, k, 0) + tr12 * cr2 + tr11 * cr3;
      CH_(0, 4, k) = ti12 * ci5 - ti11 * ci4;
    }
    if (ido == 1) return ch;
    for (size_t k = 0; k < l1; k++)
      for (size_t i = 2, ic = ido - 2; i < ido; i += 2, ic -= 2) {
        FV dr2, di2, dr3, di3, dr4, di4, dr5, di5;
        MULPM_(dr2, di2, WA_(0, i - 2), WA_(0, i - 1), CC_(i - 1, k, 1), CC_(i, k, 1));
        MULPM_(dr3, di3, WA_(1, i - 2), WA_(1, i - 1), CC_(i - 1, k, 2), CC_(i, k, 2));
        MULPM_(dr4, di4, WA_(2, i - 2), WA_(2, i - 1), CC_(i - 1, k, 3), CC_(i, k, 3));
        MULPM_(dr5, di5, WA_(3, i - 2), WA_(3, i - 1), CC_(i - 1, k, 4), CC_(i, k, 4));
        /* (x, y) -> (x + y, i (y - x)) on the pairs 2/5 and 3/4 */
        FV s2r = dr2 + dr5, s2i = di2 + di5, x5r = di2 - di5, x5i = dr5 - dr2;
        FV s3r = dr3 + dr4, s3i = di3 + di4, x4r = di3 - di4, x4i = dr4 - dr3;
        CH_(i - 1, 0, k) = CC_(i - 1, k, 0) + s2r + s3r;
        CH_(i, 0, k) = CC_(i, k, 0) + s2i + s3i;
        FV tr2 = CC_(i - 1, k, 0) + tr11 * s2r + tr12 * s3r, ti2 = CC_(i, k, 0) + tr11 * s2i + tr12 * s3i;
        FV tr3 = CC_(i - 1, k, 0) + tr12 * s2r + tr11 * s3r, ti3 = CC_(i, k, 0) + tr12 * s2i + tr11 * s3i;
        FV tr5 = ti11 * x5r + ti12 * x4r, ti5 = ti11 * x5i + ti12 * x4i;
        FV tr4 = ti12 * x5r - ti11 * x4r, ti4 = ti12 * x5i - ti11 * x4i;
        PM_(CH_(i - 1, 2, k), CH_(ic - 1, 1, k), tr2, tr5);
        PM_(CH_(i, 2, k), CH_(ic, 1, k), ti5, ti2);
        PM_(CH_(i - 1, 4, k), CH_(ic - 1, 3, k), tr3, tr4);
        PM_(CH_(i, 4, k), CH_(ic, 3, k), ti4, ti3);
      }
#undef CC_
#undef CH_
  } else {
#define CC_(a, b, c) cc[(a) + ido * ((b) + 5 * (c))]
#define CH_(a, b, c) ch[(a) + ido * ((b) + l1 * (c))]
    for (size_t k = 0; k < l1; k++) {
      FV ti5 = CC_(0, 2, k) + CC_(0, 2, k), ti4 = CC_(0, 4, k) + CC_(0, 4, k);
      FV tr2 = CC_(ido - 1, 1, k) + CC_(ido - 1, 1, k), tr3 = CC_(ido - 1, 3, k) + CC_(ido - 1, 3, k);
      CH_(0, k, 0) = CC_(0, 0, k) + tr2 + tr3;
      FV cr2 = CC_(0, 0, k) + tr11 * tr2 + tr12 * tr3, cr3 = CC_(0, 0, k) + tr12 * tr2 + tr11 * tr3;
      FV ci4, ci5;
      MULPM_(ci5, ci4, ti5, ti4, ti11, ti12);
      PM_(CH_(0, k, 4), CH_(0, k, 1), cr2, ci5);
      PM_(CH_(0, k, 3), CH_(0, k, 2), cr3, ci4);
    }
    if (ido == 1) return ch;
    for (size_t k = 0; k < l1; k++)
      for (size_t i = 2, ic = ido - 2; i < ido; i += 2, ic -= 2) {
        FV tr2, tr3, tr4, tr5, ti2, ti3, ti4, ti5;
        PM_(tr2, tr5, CC_(i - 1, 2, k), CC_(ic - 1, 1, k));
        PM_(ti5, ti2, CC_(i, 2, k), CC_(ic, 1, k));
        PM_(tr3, tr4, CC_(i - 1, 4, k), CC_(ic - 1, 3, k));
        PM_(ti4, ti3, CC_(i, 4, k), CC_(ic, 3, k));
        CH_(i - 1, k, 0) = CC_(i - 1, 0, k) + tr2 + tr3;
        CH_(i, k, 0) = CC_(i, 0, k) + ti2 + ti3;
        FV cr2 = CC_(i - 1, 0, k) + tr11 * tr2 + tr12 * tr3, ci2 = CC_(i, 0, k) + tr11 * ti2 + tr12 * ti3;
        FV cr3 = CC_(i - 1, 0, k) + tr12 * tr2 + tr11 * tr3, ci3 = CC_(i, 0, k) + tr12 * ti2 + tr11 * ti3;
        FV cr4, cr5, ci4, ci5, dr2, dr3, dr4, dr5, di2, di3, di4, di5;
        MULPM_(cr5, cr4, tr5, tr4, ti11, ti12);
        MULPM_(ci5, ci4, ti5, ti4, ti11, ti12);
        PM_(dr4, dr3, cr3, ci4);
        PM_(di3, di4, ci3, cr4);
        PM_(dr5, dr2, cr2, ci5);
        PM_(di2, di5, ci2, cr5);
        MULPM_(CH_(i, k, 1), CH_(i - 1, k, 1), WA_(0, i - 2), WA_(0, i - 1), di2, dr2);
        MULPM_(CH_(i, k, 2), CH_(i - 1, k, 2), WA_(1, i - 2), WA_(1, i - 1), di3, dr3);
        MULPM_(CH_(i, k, 3), CH_(i - 1, k, 3), WA_(2, i - 2), WA_(2, i - 1), di4, dr4);
        MULPM_(CH_(i, k, 4), CH_(i - 1, k, 4), WA_(3, i - 2), WA_(3, i - 1), di5, dr5);
      }
#undef CC_
#undef CH_
  }
  return ch;
}

/* Generic odd radix.  Forward works in cc (ch is scratch) and returns cc,
 * backward the other way round. */
static FV *FY(rpass_gen)(const FX(rpass) *p, FV *cc, FV *ch, bool fwd) {
  size_t l1 = p->l1, ido = p->ido, ip = p->ip, ipph = (ip + 1) / 2, idl1 = ido * l1;
  const FR *cs = p->cs, *wa = p->wa;
  /* fwd: X = cc (the data), Y = ch; bwd: X = ch, Y = cc. */
  FV *X = fwd ? cc : ch, *Y = fwd ? ch : cc;
#define XP_(a, b, c) X[(a) + ido * ((b) + ip * (c))]
#define X1_(a, b, c) X[(a) + ido * ((b) + l1 * (c))]
#define Y1_(a, b, c) Y[(a) + ido * ((b) + l1 * (c))]
#define X2_(a, b) X[(a) + idl1 * (b)]
#define Y2_(a, b) Y[(a) + idl1 * (b)]
  if (fwd) {
    if (ido > 1)
      for (size_t j = 1, jc = ip - 1; j < ipph; j++, jc--) {
        size_t is = (j - 1) * (ido - 1), is2 = (jc - 1) * (ido - 1);
        for (size_t k = 0; k < l1; k++)
          for (size_t i = 1, w = is, w2 = is2; i <= ido - 2; i += 2, w += 2, w2 += 2) {
            FV t1 = X1_(i, k, j), t2 = X1_(i + 1, k, j), t3 = X1_(i, k, jc), t4 = X1_(i + 1, k, jc);
            FV x1 = wa[w] * t1 + wa[w + 1] * t2, x2 = wa[w] * t2 - wa[w + 1] * t1;
            FV x3 = wa[w2] * t3 + wa[w2 + 1] * t4, x4 = wa[w2] * t4 - wa[w2 + 1] * t3;
            PM_(X1_(i, k, j), X1_(i + 1, k, jc), x3, x1);
            PM_(X1_(i + 1, k, j), X1_(i, k, jc), x2, x4);
          }
      }
    for (size_t j = 1, jc = ip - 1; j < ipph; j++, jc--)
      for (size_t k = 0; k < l1; k++) {
        FV a = X1_(0, k, jc), b = X1_(0, k, j);
        X1_(0, k, jc) = a - b;
        X1_(0, k, j) = a + b;
      }
  } else {
    for (size_t k = 0; k < l1; k++)
      for (size_t i = 0; i < ido; i++) X1_(i, k, 0) = Y[i + ido * ip * k];
    for (size_t j = 1, jc = ip - 1; j < ipph; j++, jc--) {
      size_t j2 = 2 * j - 1;
      for (size_t k = 0; k < l1; k++) {
        X1_(0, k, j) = (FR)2 * Y[ido - 1 + ido * (j2 + ip * k)];
        X1_(0, k, jc) = (FR)2 * Y[ido * (j2 + 1 + ip * k)];
      }
    }
    if (ido != 1)
      for (size_t j = 1, jc = ip - 1; j < ipph; j++, jc--) {
        size_t j2 = 2 * j - 1;
        for (size_t k = 0; k < l1; k++)
          for (size_t i = 1, ic = ido - i - 2; i <= ido - 2; i += 2, ic -= 2) {
            FV a = Y[i + ido * (j2 + 1 + ip * k)], b = Y[ic + ido * (j2 + ip * k)];
            FV c = Y[i + 1 + ido * (j2 + 1 + ip * k)], d = Y[ic + 1 + ido * (j2 + ip * k)];
            X1_(i, k, j) = a + b;
            X1_(i, k, jc) = a - b;
            X1_(i + 1, k, j) = c - d;
            X1_(i + 1, k, jc) = c + d;
          }
      }
  }
  /* the O(ip^2) core: X (blocks 0..ip-1) -> Y */
  for (size_t l = 1, lc = ip - 1; l < ipph; l++, lc--) {
    for (size_t ik = 0; ik < idl1; ik++) {
      Y2_(ik, l) = X2_(ik, 0) + cs[2 * l] * X2_(ik, 1) + cs[4 * l] * X2_(ik, 2);
      Y2_(ik, lc) = cs[2 * l + 1] * X2_(ik, ip - 1) + cs[4 * l + 1] * X2_(ik, ip - 2);
    }
    size_t ia = 2 * l, j = 3, jc = ip - 3;
    for (; j + 3 < ipph; j += 4, jc -= 4) {
      FR ar[4], ai[4];
      for (int q = 0; q < 4; q++) {
        ia += l;
        if (ia >= ip) ia -= ip;
        ar[q] = cs[2 * ia], ai[q] = cs[2 * ia + 1];
      }
      for (size_t ik = 0; ik < idl1; ik++) {
        Y2_(ik, l) += ar[0] * X2_(ik, j) + ar[1] * X2_(ik, j + 1) + ar[2] * X2_(ik, j + 2) + ar[3] * X2_(ik, j + 3);
        Y2_(ik, lc) +=
            ai[0] * X2_(ik, jc) + ai[1] * X2_(ik, jc - 1) + ai[2] * X2_(ik, jc - 2) + ai[3] * X2_(ik, jc - 3);
      }
    }
    for (; j + 1 < ipph; j += 2, jc -= 2) {
      FR ar[2], ai[2];
      for (int q = 0; q < 2; q++) {
        ia += l;
        if (ia >= ip) ia -= ip;
        ar[q] = cs[2 * ia], ai[q] = cs[2 * ia + 1];
      }
      for (size_t ik = 0; ik < idl1; ik++) {
        Y2_(ik, l) += ar[0] * X2_(ik, j) + ar[1] * X2_(ik, j + 1);
        Y2_(ik, lc) += ai[0] * X2_(ik, jc) + ai[1] * X2_(ik, jc - 1);
      }
    }
    for (; j < ipph; j++, jc--) {
      ia += l;
      if (ia >= ip) ia -= ip;
      FR ar = cs[2 * ia], ai = cs[2 * ia + 1];
      for (size_t ik = 0; ik < idl1; ik++) {
        Y2_(ik, l) += ar * X2_(ik, j);
        Y2_(ik, lc) += ai * X2_(ik, jc);
      }
    }
  }
  if (fwd) {
    for (size_t ik = 0; ik < idl1; ik++) Y2_(ik, 0) = X2_(ik, 0);
    for (size_t j = 1; j < ipph; j++)
      for (size_t ik = 0; ik < idl1; ik++) Y2_(ik, 0) += X2_(ik, j);
    for (size_t k = 0; k < l1; k++)
      for (size_t i = 0; i < ido; i++) XP_(i, 0, k) = Y1_(i, k, 0);
    for (size_t j = 1, jc = ip - 1; j < ipph; j++, jc--) {
      size_t j2 = 2 * j - 1;
      for (size_t k = 0; k < l1; k++) {
        XP_(ido - 1, j2, k) = Y1_(0, k, j);
        XP_(0, j2 + 1, k) = Y1_(0, k, jc);
      }
    }
    if (ido == 1) return X;
    for (size_t j = 1, jc = ip - 1; j < ipph; j++, jc--) {
      size_t j2 = 2 * j - 1;
      for (size_t k = 0; k < l1; k++)
        for (size_t i = 1, ic = ido - i - 2; i <= ido - 2; i += 2, ic -= 2) {
          XP_(i, j2 + 1, k) = Y1_(i, k, j) + Y1_(i, k, jc);
          XP_(ic, j2, k) = Y1_(i, k, j) - Y1_(i, k, jc);
          XP_(i + 1, j2 + 1, k) = Y1_(i + 1, k, j) + Y1_(i + 1, k, jc);
          XP_(ic + 1, j2, k) = Y1_(i + 1, k, jc) - Y1_(i + 1, k, j);
        }
    }
    return X;
  }
  for (size_t j = 1; j < ipph; j++)
    for (size_t ik = 0; ik < idl1; ik++) X2_(ik, 0) += X2_(ik, j);
  for (size_t j = 1, jc = ip - 1; j < ipph; j++, jc--)
    for (size_t k = 0; k < l1; k++) PM_(X1_(0, k, jc), X1_(0, k, j), Y1_(0, k, j), Y1_(0, k, jc));
  if (ido == 1) return X;
  for (size_t j = 1, jc = ip - 1; j < ipph; j++, jc--)
    for (size_t k = 0; k < l1; k++)
      for (size_t i = 1; i <= ido - 2; i += 2) {
        X1_(i, k, j) = Y1_(i, k, j) - Y1_(i + 1, k, jc);
        X1_(i, k, jc) = Y1_(i, k, j) + Y1_(i + 1, k, jc);
        X1_(i + 1, k, j) = Y1_(i + 1, k, j) + Y1_(i, k, jc);
        X1_(i + 1, k, jc) = Y1_(i + 1, k, j) - Y1_(i, k, jc);
      }
  for (size_t j = 1; j < ip; j++)
    for (size_t k = 0; k < l1; k++)
      for (size_t i = 1, w = (j - 1) * (ido - 1); i <= ido - 2; i += 2, w += 2) {
        FV t1 = X1_(i, k, j), t2 = X1_(i + 1, k, j);
        X1_(i, k, j) = wa[w] * t1 - wa[w + 1] * t2;
        X1_(i + 1, k, j) = wa[w] * t2 + wa[w + 1] * t1;
      }
#undef XP_
#undef X1_
#undef Y1_
#undef X2_
#undef Y2_
  return X;
}

/* Bluestein for a large prime radix: each column through a complex
 * length-ip transform. */
static FV *FY(rpass_blue)(const FX(rpass) *p, const FV *cc, FV *ch, VC *buf, bool fwd) {
  size_t l1 = p->l1, ido = p->ido, ip = p->ip, ipph = (ip + 1) / 2;
  VC *c2 = buf, *h2 = buf + ip, *sub = buf + 2 * ip;
  const FV zero = {0};
  if (fwd) {
#define CC_(a, b, c) cc[(a) + ido * ((b) + l1 * (c))]
#define CH_(a, b, c) ch[(a) + ido * ((b) + ip * (c))]
    for (size_t k = 0; k < l1; k++) {
      for (size_t m = 0; m < ip; m++) c2[m] = (VC){CC_(0, k, m), zero};
      VC *res = FY(cpass_exec)(p->cplan, c2, h2, sub, true);
      CH_(0, 0, k) = res[0].r;
      for (size_t m = 1; m <= ip / 2; m++) {
        CH_(ido - 1, 2 * m - 1, k) = res[m].r;
        CH_(0, 2 * m, k) = res[m].i;
      }
    }
    if (ido == 1) return ch;
    for (size_t k = 0; k < l1; k++)
      for (size_t i = 2, ic = ido - 2; i < ido; i += 2, ic -= 2) {
        c2[0] = (VC){CC_(i - 1, k, 0), CC_(i, k, 0)};
        for (size_t m = 1; m < ipph; m++) {
          MULPM_(c2[m].r, c2[m].i, WA_(m - 1, i - 2), WA_(m - 1, i - 1), CC_(i - 1, k, m), CC_(i, k, m));
          MULPM_(c2[ip - m].r, c2[ip - m].i, WA_(ip - m - 1, i - 2), WA_(ip - m - 1, i - 1), CC_(i - 1, k, ip - m),
                 CC_(i, k, ip - m));
        }
        VC *res = FY(cpass_exec)(p->cplan, c2, h2, sub, true);
        CH_(i - 1, 0, k) = res[0].r;
        CH_(i, 0, k) = res[0].i;
        for (size_t m = 1; m < ipph; m++) {
          CH_(i - 1, 2 * m, k) = res[m].r;
          CH_(ic - 1, 2 * m - 1, k) = res[ip - m].r;
          CH_(i, 2 * m, k) = res[m].i;
          CH_(ic, 2 * m - 1, k) = -res[ip - m].i;
        }
      }
#undef CC_
#undef CH_
    return ch;
  }
#define CC_(a, b, c) cc[(a) + ido * ((b) + ip * (c))]
#define CH_(a, b, c) ch[(a) + ido * ((b) + l1 * (c))]
  for (size_t k = 0; k < l1; k++) {
    c2[0] = (VC){CC_(0, 0, k), zero};
    for (size_t m = 1; m <= ip / 2; m++) {
      c2[m] = (VC){CC_(ido - 1, 2 * m - 1, k), CC_(0, 2 * m, k)};
      c2[ip - m] = (VC){CC_(ido - 1, 2 * m - 1, k), -CC_(0, 2 * m, k)};
    }
    VC *res = FY(cpass_exec)(p->cplan, c2, h2, sub, false);
    for (size_t m = 0; m < ip; m++) CH_(0, k, m) = res[m].r;
  }
  if (ido == 1) return ch;
  for (size_t k = 0; k < l1; k++)
    for (size_t i = 2, ic = ido - 2; i < ido; i += 2, ic -= 2) {
      c2[0] = (VC){CC_(i - 1, 0, k), CC_(i, 0, k)};
      for (size_t m = 1; m <= ip / 2; m++) {
        c2[m] = (VC){CC_(i - 1, 2 * m, k), CC_(i, 2 * m, k)};
        c2[ip - m] = (VC){CC_(ic - 1, 2 * m - 1, k), -CC_(ic, 2 * m - 1, k)};
      }
      VC *res = FY(cpass_exec)(p->cplan, c2, h2, sub, false);
      CH_(i - 1, k, 0) = res[0].r;
      CH_(i, k, 0) = res[0].i;
      for (size_t m = 1; m < ip; m++)
        MULPM_(CH_(i - 1, k, m), CH_(i, k, m), WA_(m - 1, i - 2), -WA_(m - 1, i - 1), res[m].r, res[m].i);
    }
#undef CC_
#undef CH_
  return ch;
}
#undef WA_

static FV *FY(rpass_exec)(const FX(rpass) *p, FV *cc, FV *ch, VC *buf, bool fwd) {
  switch (p->kind) {
    case FPK_ID: return cc;
    case FPK_GEN: return FY(rpass_gen)(p, cc, ch, fwd);
    case FPK_BLUE: return FY(rpass_blue)(p, cc, ch, buf, fwd);
    case FPK_MULTI: {
      /* forward runs the passes last to first */
      FV *p1 = cc, *p2 = ch;
      for (size_t j = 0; j < p->np; j++) {
        FV *res = FY(rpass_exec)(p->passes[fwd ? p->np - 1 - j : j], p1, p2, buf, fwd);
        if (res == p2) p2 = p1, p1 = res;
      }
      return p1;
    }
    default:
      switch (p->ip) {
        case 2: return FY(rpass2)(p, cc, ch, fwd);
        case 3: return FY(rpass3)(p, cc, ch, fwd);
        case 4: return FY(rpass4)(p, cc, ch, fwd);
        default: return FY(rpass5)(p, cc, ch, fwd);
      }
  }
}
#undef MULPM_
#undef PM_

