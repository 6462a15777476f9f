/* XLA:CPU's f32 approximations (see xla_mathf.h). */
#include "xla_mathf.h"

#include <math.h>

#include "support/scalar.h"

/* e^x = 2^n e^a with n = round(x / ln 2), a = x - n ln 2 (Cody-Waite split),
 * e^a by a degree-6 polynomial. */
float xla_expf(float x) {
  if (isnan(x)) return x;
  x = fminf(fmaxf(x, -87.8f), 88.8f);
  float n = floorf(fmaf(x, 1.44269504088896341f, 0.5f));
  n = fminf(fmaxf(n, -127.0f), 128.0f);
  float a = fmaf(-0.693145751953125f, n, x);
  a = fmaf(-1.4286067653301877e-6f, n, a);
  float z = fmaf(a, 1.9875691500e-4f, 1.3981999507e-3f);
  z = fmaf(z, a, 8.3334519073e-3f);
  z = fmaf(z, a, 4.1665795894e-2f);
  z = fmaf(z, a, 1.6666665459e-1f);
  z = fmaf(z, a, 5.0000001201e-1f);
  z = fmaf(z, a * a, a);
  z = 1.0f + z;
  /* 2^n from its exponent field; n = 128 is split as 2 * 2^127, n = -127 gives 0 */
  int32_t ni = (int32_t)n;
  uint32_t biased = (uint32_t)(ni + 127) << 23, pow2 = biased < 0x7f000000u ? biased : 0x7f000000u;
  z = fp_bits_f32(fp_f32_bits(z) + (biased - pow2));
  return z * fp_bits_f32(pow2);
}

/* Rational approximation of tanh, exact +-1 beyond the clamp. */
float xla_tanhf(float x) {
  static const float num[7] = {-2.76076847742355e-16f, 2.00018790482477e-13f, -8.60467152213735e-11f,
                               5.12229709037114e-08f,  1.48572235717979e-05f, 6.37261928875436e-04f,
                               4.89352455891786e-03f};
  static const float den[4] = {1.19825839466702e-06f, 1.18534705686654e-04f, 2.26843463243900e-03f,
                               4.89352518554385e-03f};
  if (!(fabsf(x) >= 0.0004f)) return x; /* tiny, or NaN (which fminf/fmaxf below would drop) */
  float c = fminf(fmaxf(x, -7.99881172180175781f), 7.99881172180175781f), c2 = c * c, p = num[0], q = den[0];
  for (int i = 1; i < 7; i++) p = fmaf(c2, p, num[i]);
  for (int i = 1; i < 4; i++) q = fmaf(c2, q, den[i]);
  return c * p / q;
}

/* expm1 = e^x - 1 for |x| > 1/2, else tanh(x/2) (e^x + 1). */
float xla_expm1f(float x) {
  if (x * 0.5f == 0) return x;
  float e = xla_expf(x);
  return fabsf(x) > 0.5f ? e - 1.0f : xla_tanhf(x * 0.5f) * (e + 1.0f);
}

/* log x = e ln 2 + log m with m in [sqrt(1/2), sqrt(2)), log m by a
 * degree-8 polynomial in m - 1. */
float xla_logf(float x) {
  if (isnan(x) || x < 0) return NAN;
  if (x == 0) return -INFINITY;
  if (isinf(x)) return x;
  uint32_t u = fp_f32_bits(fmaxf(x, 1.17549435e-38f));
  float e = 1.0f + (float)((int32_t)(u >> 23) - 0x7f);
  float m = fp_bits_f32((u & ~0x7f800000u) | 0x3f000000u);
  bool small = m < 0.707106781186547524f;
  float t = small ? m : 0.0f;
  m = m - 1.0f;
  e = e - (small ? 1.0f : 0.0f);
  m = m + t;
  float m2 = m * m, m3 = m2 * m;
  float y = fmaf(m, 7.0376836292e-2f, -1.1514610310e-1f);
  float y1 = fmaf(m, -1.2420140846e-1f, 1.4249322787e-1f);
  float y2 = fmaf(m, 2.0000714765e-1f, -2.4999993993e-1f);
  y = fmaf(y, m, 1.1676998740e-1f);
  y1 = fmaf(y1, m, -1.6668057665e-1f);
  y2 = fmaf(y2, m, 3.3333331174e-1f);
  y = fmaf(y, m3, y1);
  y = fmaf(y, m3, y2);
  y = y * m3;
  y = fmaf(-2.12194440e-4f, e, y);
  float r = fmaf(-0.5f, m2, m);
  r = r + y;
  return fmaf(0.693359375f, e, r);
}

float xla_cabsf(float a, float b) {
  float x = fabsf(a), y = fabsf(b), mx = fmaxf(x, y), mn = fminf(x, y);
  if (isnan(a) || isnan(b)) return isinf(mx) ? INFINITY : NAN;
  if (mx == 0 || isinf(mx)) return mx;
  float r = mn / mx;
  return mx * sqrtf(fmaf(r, r, 1.0f));
}
