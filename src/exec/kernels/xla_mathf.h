/* XLA:CPU's f32 math, bit for bit: XLA replaces f32 exp, log and tanh by its
 * own polynomials (Cephes / Eigen coefficients), LLVM fuses their
 * multiply-adds into FMAs (XLA always allows FP contraction), and expm1 and
 * complex abs are expanded from those by XLA's elemental emitter.  f64 goes
 * to libm, so only f32 (and the narrower floats, computed in f32) need these. */
#ifndef SHLOC_EXEC_KERNELS_XLA_MATHF_H
#define SHLOC_EXEC_KERNELS_XLA_MATHF_H

float xla_expf(float x);
float xla_logf(float x);
float xla_tanhf(float x);
float xla_expm1f(float x);
/* |a + bi| as max * sqrt(1 + (min/max)^2). */
float xla_cabsf(float a, float b);

#endif
