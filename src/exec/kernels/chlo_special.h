/* Special functions of the CHLO ops, in double precision (the one place
 * they are defined; ew_unary/ew_binary round the results to the op's type). */
#ifndef SHLOC_EXEC_KERNELS_CHLO_SPECIAL_H
#define SHLOC_EXEC_KERNELS_CHLO_SPECIAL_H

double chlo_lgamma(double x);
/* NaN at the poles (zero and negative integers), as XLA's lowering. */
double chlo_digamma(double x);
double chlo_erf_inv(double x);
/* exp(-|x|) * I1(x). */
double chlo_bessel_i1e(double x);
/* Hurwitz zeta(x, q) = sum_k (k + q)^-x. */
double chlo_zeta(double x, double q);
/* polygamma(n, x): the n-th derivative of digamma; NaN unless n is a non-negative integer. */
double chlo_polygamma(double n, double x);

#endif
