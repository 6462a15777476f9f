/* The small-product loops of gemm_small.c, instantiated once per precision
 * with GT (the element type), GV (a 64-byte vector of GT), GL (its lanes)
 * and GX(name) (a per-precision name).  No include guard on purpose. */

/* One block: rows r < mr of x times the w (<= GL) columns of y starting at
 * y, for kc steps of k, into out.  first: the sums start from zero, else
 * from the partial sums already in out. */
GS_INLINE void GX(block)(int mr, int64_t kc, const GT *x, int64_t xrs, int64_t xks, const GT *y, int64_t yks, bool first,
                         GT *out, int64_t ors, int64_t ocs, int w) {
  bool full = ocs == 1 && w == GL;
  GV acc[GS_MR];
  _Pragma("GCC unroll 8") for (int r = 0; r < mr; r++) {
    acc[r] = (GV){0};
    if (first) continue;
    if (full) memcpy(&acc[r], out + r * ors, sizeof acc[r]);
    else
      for (int l = 0; l < w; l++) acc[r][l] = out[r * ors + l * ocs];
  }
  for (int64_t k = 0; k < kc; k++) {
    GV b;
    memcpy(&b, y + k * yks, sizeof b);
    _Pragma("GCC unroll 8") for (int r = 0; r < mr; r++) {
      GV p = x[r * xrs + k * xks] * b;
      acc[r] += p;
    }
  }
  _Pragma("GCC unroll 8") for (int r = 0; r < mr; r++) {
    if (full) memcpy(out + r * ors, &acc[r], sizeof acc[r]);
    else
      for (int l = 0; l < w; l++) out[r * ors + l * ocs] = acc[r][l];
  }
}

/* mr as a constant in each call, so that the accumulators live in registers. */
GS_INLINE void GX(block_rows)(int mr, int64_t kc, const GT *x, int64_t xrs, int64_t xks, const GT *y, int64_t yks,
                              bool first, GT *out, int64_t ors, int64_t ocs, int w) {
  switch (mr) {
#define GS_CASE(n) \
  case n: GX(block)(n, kc, x, xrs, xks, y, yks, first, out, ors, ocs, w); break;
    GS_CASE(1) GS_CASE(2) GS_CASE(3) GS_CASE(4) GS_CASE(5) GS_CASE(6)
#undef GS_CASE
    default: break;
  }
}

KU_CLONES static void GX(product)(const gs_plan *p, const GT *x, const GT *y, GT *out) {
  GT panel[GS_KC * GL];
  for (int64_t c0 = 0; c0 < p->cols; c0 += GL) {
    int w = p->cols - c0 < GL ? (int)(p->cols - c0) : GL;
    for (int64_t k0 = 0; k0 < p->K; k0 += GS_KC) {
      int64_t kc = p->K - k0 < GS_KC ? p->K - k0 : GS_KC;
      const GT *ys = y + k0 * p->yks + c0 * p->ycs;
      int64_t yks = p->yks;
      if (p->ycs != 1 || w < GL) {
        /* columns not contiguous, or a partial block: a zero-padded copy */
        for (int64_t k = 0; k < kc; k++)
          for (int l = 0; l < GL; l++) panel[k * GL + l] = l < w ? ys[k * p->yks + l * p->ycs] : 0;
        ys = panel;
        yks = GL;
      }
      for (int64_t r0 = 0; r0 < p->rows; r0 += GS_MR) {
        int mr = p->rows - r0 < GS_MR ? (int)(p->rows - r0) : GS_MR;
        GX(block_rows)(mr, kc, x + r0 * p->xrs + k0 * p->xks, p->xrs, p->xks, ys, yks, k0 == 0,
                       out + r0 * p->ors + c0 * p->ocs, p->ors, p->ocs, w);
      }
    }
  }
}
