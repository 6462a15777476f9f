/* Special functions for chlo.lgamma/digamma/erf_inv/bessel_i1e/zeta/polygamma.
 * Computed in double with textbook methods (reflection, recurrence plus
 * asymptotic series, Newton refinement, Euler-Maclaurin summation); the
 * results are accurate well beyond f32, so rounding them matches XLA's
 * f32 lowerings within the corpus tolerances. */
#include "chlo_special.h"

#include <math.h>

double chlo_lgamma(double x) {
  int sign;
  if (isinf(x)) return INFINITY;
  return lgamma_r(x, &sign); /* reentrant: kernels may run on several threads */
}

double chlo_digamma(double x) {
  if (isnan(x)) return x;
  if (x <= 0 && x == floor(x)) return NAN;
  if (x == INFINITY) return INFINITY;
  if (x == -INFINITY) return NAN;
  double acc = 0;
  if (x < 0.5) { /* reflection: psi(1-x) - psi(x) = pi / tan(pi x) */
    double r = x - floor(x);
    double t = M_PI / tan(M_PI * r);
    acc -= t;
    x = 1 - x;
  }
  while (x < 10) {
    acc -= 1 / x;
    x += 1;
  }
  /* psi(x) ~ ln x - 1/(2x) - sum B_2k / (2k x^2k) */
  double z = 1 / (x * x);
  double s =
      z * (1.0 / 12 -
           z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12.0))))));
  return acc + log(x) - 0.5 / x - s;
}

double chlo_erf_inv(double x) {
  if (isnan(x) || x < -1 || x > 1) return NAN;
  if (x == 1) return INFINITY;
  if (x == -1) return -INFINITY;
  if (x == 0) return x;
  /* Start from a closed-form approximation, then Newton on erf (or erfc
   * near the tails, where erf loses the information). */
  double a = fabs(x);
  double ln = log((1 - a) * (1 + a));
  double t = 2 / (M_PI * 0.147) + ln / 2;
  double y = sqrt(sqrt(t * t - ln / 0.147) - t);
  for (int i = 0; i < 4; i++) {
    double err = a < 0.5 ? erf(y) - a : (1 - a) - erfc(y);
    double d = 2 / sqrt(M_PI) * exp(-y * y);
    if (d == 0) break;
    y -= err / d;
  }
  return x < 0 ? -y : y;
}

double chlo_bessel_i1e(double x) {
  if (isnan(x)) return x;
  double a = fabs(x), r;
  if (a == 0) return x;
  if (isinf(a)) return copysign(0.0, x); /* e^-a I1(a) ~ 1/sqrt(2 pi a) -> 0; odd */
  if (a <= 30) {
    /* I1(a) = sum (a/2)^(2k+1) / (k! (k+1)!), all terms positive */
    double h = a / 2, term = h, sum = h, q = h * h;
    for (int k = 1; k < 200; k++) {
      term *= q / ((double)k * (k + 1));
      sum += term;
      if (term < sum * 1e-17) break;
    }
    r = sum * exp(-a);
  } else {
    /* e^-a I1(a) ~ 1/sqrt(2 pi a) * sum_k (-1)^k prod_{j<=k} (4 - (2j-1)^2) / (k! (8a)^k) */
    double term = 1, sum = 1;
    for (int k = 1; k < 60; k++) {
      double m = 2.0 * k - 1;
      term *= -(4 - m * m) / (k * 8 * a);
      sum += term;
      if (fabs(term) < 1e-17 * fabs(sum)) break;
    }
    r = sum / sqrt(2 * M_PI * a);
  }
  return x < 0 ? -r : r;
}

double chlo_zeta(double x, double q) {
  if (isnan(x) || isnan(q)) return NAN;
  if (x == 1) return INFINITY;
  if (x < 1) return NAN;
  if (q <= 0) {
    if (q == floor(q)) return INFINITY;
    return NAN; /* XLA's lowering: undefined for negative non-integer q with non-integer x */
  }
  /* Euler-Maclaurin: sum_{k<N} (q+k)^-x + (q+N)^(1-x)/(x-1) + (q+N)^-x/2 + tail */
  static const double b2k[] = {1.0 / 6,       -1.0 / 30,       1.0 / 42,       -1.0 / 30,
                               5.0 / 66,      -691.0 / 2730,   7.0 / 6,        -3617.0 / 510,
                               43867.0 / 798, -174611.0 / 330, 854513.0 / 138, -236364091.0 / 2730};
  const int N = 9;
  double s = 0, a = q;
  for (int k = 0; k < N; k++, a += 1) {
    double t = pow(a, -x);
    s += t;
    if (t < s * 1e-17) return s;
  }
  double w = a; /* q + N */
  double tail = pow(w, 1 - x) / (x - 1) + 0.5 * pow(w, -x);
  double fact = 1, xk = x, powterm = pow(w, -x - 1);
  for (int j = 0; j < 12; j++) {
    /* term_j = B_2(j+1) / (2(j+1))! * x(x+1)...(x+2j) * w^(-x-2j-1) */
    fact *= (j == 0) ? 2 : (double)(2 * j + 1) * (2 * j + 2);
    double t = b2k[j] / fact * xk * powterm;
    tail += t;
    if (fabs(t) < 1e-17 * fabs(s + tail)) break;
    xk *= (x + 2 * j + 1) * (x + 2 * j + 2);
    powterm /= w * w;
  }
  return s + tail;
}

double chlo_polygamma(double n, double x) {
  if (isnan(n) || isnan(x) || n < 0 || n != floor(n)) return NAN;
  if (n == 0) return chlo_digamma(x);
  double nf = tgamma(n + 1);
  double sign = fmod(n, 2) == 0 ? -1 : 1; /* (-1)^(n+1) */
  return sign * nf * chlo_zeta(n + 1, x);
}
