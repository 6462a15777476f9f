/* Scalar math as direct libm calls, for what upstream's math lowering gets
 * wrong: convert-math-to-llvm computes math.expm1 as exp(x) - 1, which
 * loses the precision of small results, and the pipeline runs it before
 * convert-math-to-libm (which rejects the math ops it has no function for).
 * The declarations are readnone, so clang -fveclib=libmvec vectorizes
 * loops calling them; narrower floats compute in f32. */
#include "passes/lower_linalg_emit.h"

static const char *const names[LL_LIBM_COUNT][2] = {
    [LL_LIBM_EXPM1] = {"expm1f", "expm1"},
};

uint32_t ll_libm_call(ll_emit *e, ll_libm fn, uint32_t x, shl_dtype dt) {
  bool f64 = dt == DT_F64;
  shl_dtype ct = f64 ? DT_F64 : DT_F32;
  uint32_t arg = ll_convert(e, x, dt, ct), r = ll_fresh(e);
  pr_newline(&e->pr);
  ll_tmp(e, r);
  pr_printf(&e->pr, " = func.call @%s(", names[fn][f64]);
  ll_tmp(e, arg);
  pr_printf(&e->pr, ") : (%s) -> %s", dtype_name(ct), dtype_name(ct));
  e->libm_used |= 1u << (2 * fn + f64);
  return ll_convert(e, r, ct, dt);
}

void ll_libm_declarations(ll_emit *e) {
  for (int fn = 0; fn < LL_LIBM_COUNT; fn++)
    for (int f64 = 0; f64 < 2; f64++) {
      if (!(e->libm_used & (1u << (2 * fn + f64)))) continue;
      const char *t = f64 ? "f64" : "f32";
      pr_newline(&e->pr);
      pr_printf(&e->pr, "func.func private @%s(%s) -> %s attributes {llvm.readnone}", names[fn][f64], t, t);
    }
}
