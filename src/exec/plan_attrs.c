/* result_accuracy: DEFAULT (or absent) is what the kernels compute.  HIGHEST
 * and TOLERANCE ask for an accuracy shloc does not guarantee (its f32
 * transcendentals are vectorised approximations, not correctly rounded),
 * so they are refused rather than silently given the default. */
#include "plan_attrs.h"

#include "ir/result_accuracy.h"

shl_status plan_check_result_attrs(const shl_op *op) {
  if (!op_attr(op, "result_accuracy")) return NULL;
  ra_spec ra;
  ST_TRY(result_accuracy_of(op, &ra));
  if (ra.mode == RA_HIGHEST)
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "result_accuracy mode HIGHEST is not supported (shloc does not "
                                               "guarantee correctly rounded results); use DEFAULT");
  if (ra.mode == RA_TOLERANCE)
    return op_error(op, SHLOC_ERR_UNSUPPORTED,
                    "result_accuracy mode TOLERANCE (atol %g, rtol %g, ulps %lld) is not supported; use DEFAULT",
                    ra.atol, ra.rtol, (long long)ra.ulps);
  return NULL;
}
