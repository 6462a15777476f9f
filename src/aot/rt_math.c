/* Scalar math of compiled code that must round as the interpreter does
 * (include/shloc/aot_runtime.h): libm's expm1f differs from XLA:CPU's in the
 * last bit, which the corpus' checks notice. */
#include "exec/kernels/xla_mathf.h"
#include "shloc/aot_runtime.h"

float shloc_rt_expm1f(float x) { return xla_expm1f(x); }
float shloc_rt_expf(float x) { return xla_expf(x); }
float shloc_rt_logf(float x) { return xla_logf(x); }
