/* Small float convolutions summed in the order XLA's CPU backend sums them,
 * so that results agree with XLA's to the last bit where that order is
 * known (README, "Round 2: convolution", has the evidence).
 *
 * XLA:CPU (xla/service/cpu: ConvCanonicalization, then
 * PotentiallyImplementedAsEigenConvolution) hands every f32/f16 convolution
 * without window reversal, in NHWC / HWIO / NHWC form, to Eigen: the input
 * patches [positions, window x input features] (window positions row-major,
 * input feature innermost) contracted with the kernel [window x input
 * features, output features] per feature group.  Eigen's GEBP kernel takes
 * the output features as its rows: rows in its two- and three-packet paths
 * (multiples of 16 or 24 features, AVX2) accumulate one fused multiply-add
 * per k in order; rows in its one-packet and half-packet paths (the next
 * multiple of 8, then of 4) alternate between two accumulators for the
 * first K rounded down to a multiple of 8 terms, add them, and continue
 * with the rest in order.  The remaining rows (output features per group
 * mod 4) are summed in order.  Everything else (f64, reversed windows) is
 * XLA's elemental loop: window positions row-major, input feature
 * innermost, one fused multiply-add per term.
 *
 * Only the products change: the im2col blocks and the output placement are
 * conv.c's. */
#include <math.h>

#include "conv.h"

/* At most this many multiply-adds (and K within one Eigen k-block), so the
 * exact order costs little; larger convolutions take the GEMM. */
enum { XLA_MAX_MACS = 1 << 22, XLA_MAX_K = 256 };

bool conv_xla_order_applies(const conv_params *p) {
  if ((p->ck != CK_F32 && p->ck != CK_F64) || p->winograd || p->Kd > XLA_MAX_K) return false;
  return (double)p->P * (double)p->Kd * (double)p->Cq * (double)p->NQ <= XLA_MAX_MACS;
}

/* The output features [seq_end, pair_end) of a group that Eigen's one- and
 * half-packet paths compute (8 floats a packet), for m features a group. */
static void pair_rows(int64_t m, int64_t *seq_end, int64_t *pair_end) {
  int64_t mc3 = m / 24 * 24, mc2 = mc3 + (m - mc3) / 16 * 16, mc1 = mc2 + (m - mc2) / 8 * 8;
  *seq_end = mc2;
  *pair_end = mc1 + (m - mc1) / 4 * 4;
}

static bool any_reversal(const conv_params *p) {
  for (int32_t d = 0; d < p->ns; d++)
    if (p->rev[d]) return true;
  return false;
}

/* C[i, :] = A[i, :] W for m rows (A: m x Kd, W: Kd x Cq, C pitch ldc), the
 * features [s, h) with two accumulators over the first pk terms.  acc and
 * odd hold Cq floats.  Vectorised across output features. */
KU_CLONES static void rows_f32(const conv_params *p, int64_t m, const float *A, const float *W, float *C, int64_t ldc,
                               int64_t s, int64_t h, int64_t pk, float *acc, float *odd) {
  int64_t K = p->Kd, n = p->Cq;
  for (int64_t i = 0; i < m; i++) {
    const float *a = A + i * K;
    for (int64_t c = 0; c < n; c++) acc[c] = odd[c] = 0;
    for (int64_t k = 0; k < pk; k++) {
      const float *w = W + k * n;
      float *t = (k & 1) ? odd : acc;
      for (int64_t c = 0; c < s; c++) acc[c] = fmaf(a[k], w[c], acc[c]);
      for (int64_t c = s; c < h; c++) t[c] = fmaf(a[k], w[c], t[c]);
      for (int64_t c = h; c < n; c++) acc[c] = fmaf(a[k], w[c], acc[c]);
    }
    for (int64_t c = s; c < h; c++) acc[c] += odd[c];
    for (int64_t k = pk; k < K; k++) {
      const float *w = W + k * n;
      for (int64_t c = 0; c < n; c++) acc[c] = fmaf(a[k], w[c], acc[c]);
    }
    for (int64_t c = 0; c < n; c++) C[i * ldc + c] = acc[c];
  }
}

/* The same sums vectorised across 16 rows at a time instead (for few
 * output features): the rows' terms transposed into at[k][16]. */
enum { LANES = 16 };
KU_CLONES static void rows_f32_narrow(const conv_params *p, int64_t m, const float *A, const float *W, float *C,
                                      int64_t ldc, int64_t s, int64_t h, int64_t pk) {
  int64_t K = p->Kd, n = p->Cq;
  float at[LANES * XLA_MAX_K];
  for (int64_t i0 = 0; i0 < m; i0 += LANES) {
    int64_t mm = m - i0 < LANES ? m - i0 : LANES;
    for (int64_t k = 0; k < K; k++)
      for (int64_t i = 0; i < LANES; i++) at[k * LANES + i] = i < mm ? A[(i0 + i) * K + k] : 0;
    for (int64_t c = 0; c < n; c++) {
      float acc[LANES] = {0}, odd[LANES] = {0};
      bool pair = c >= s && c < h;
      for (int64_t k = 0; k < pk; k++) {
        float w = W[k * n + c], *t = pair && (k & 1) ? odd : acc;
        for (int64_t i = 0; i < LANES; i++) t[i] = fmaf(at[k * LANES + i], w, t[i]);
      }
      if (pair)
        for (int64_t i = 0; i < LANES; i++) acc[i] += odd[i];
      for (int64_t k = pk; k < K; k++) {
        float w = W[k * n + c];
        for (int64_t i = 0; i < LANES; i++) acc[i] = fmaf(at[k * LANES + i], w, acc[i]);
      }
      for (int64_t i = 0; i < mm; i++) C[(i0 + i) * ldc + c] = acc[i];
    }
  }
}

KU_CLONES static void rows_f64(const conv_params *p, int64_t m, const double *A, const double *W, double *C,
                               int64_t ldc, double *acc) {
  int64_t K = p->Kd, n = p->Cq;
  for (int64_t i = 0; i < m; i++) {
    const double *a = A + i * K;
    for (int64_t c = 0; c < n; c++) acc[c] = 0;
    for (int64_t k = 0; k < K; k++)
      for (int64_t c = 0; c < n; c++) acc[c] = fma(a[k], W[k * n + c], acc[c]);
    for (int64_t c = 0; c < n; c++) C[i * ldc + c] = acc[c];
  }
}

void conv_xla_rows(const conv_params *p, int64_t m, const void *A, const void *W, void *C, int64_t ldc, void *acc) {
  if (p->ck == CK_F64) {
    rows_f64(p, m, A, W, C, ldc, acc);
    return;
  }
  int64_t s = p->Cq, h = p->Cq, pk = 0;
  /* Eigen's matrix-vector path (one position) and XLA's elemental loop
   * (reversed windows) sum every feature in order. */
  if (p->P > 1 && !any_reversal(p)) {
    pair_rows(p->Cq, &s, &h);
    pk = p->Kd & ~(int64_t)7;
  }
  if (p->Cq < LANES) rows_f32_narrow(p, m, A, W, C, ldc, s, h, pk);
  else rows_f32(p, m, A, W, C, ldc, s, h, pk, acc, (float *)acc + p->Cq);
}
