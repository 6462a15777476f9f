/* Attributes that would change an op's results and that the executor does
 * not carry out: refused at plan time instead of being ignored. */
#ifndef SHLOC_EXEC_PLAN_ATTRS_H
#define SHLOC_EXEC_PLAN_ATTRS_H

#include "ir/ir.h"

/* An error naming the op and attribute, or NULL when every such attribute
 * of the op is honoured.  (dot_general's algorithm is handled by its kernel:
 * see kernels/dot_algorithm.h.) */
shl_status plan_check_result_attrs(const shl_op *op);

#endif
