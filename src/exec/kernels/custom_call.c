/* stablehlo.custom_call: built-in targets (the check.* targets of the
 * StableHLO test corpus); other targets go through the custom-call registry
 * (ffi_call.c).  Every custom call runs where it stands: the executor never
 * drops or reorders ops, so has_side_effect calls keep their order. */
#include <stdio.h>

#include "check.h"
#include "exec/plan.h"
#include "ffi_call.h"

typedef enum { CC_EXPECT_EQ, CC_EXPECT_ALMOST_EQ, CC_EXPECT_CLOSE, CC_EQ, CC_REGISTRY } builtin_target;

typedef struct {
  builtin_target target;
  void *call; /* CC_REGISTRY: ffi_call_prepare's params */
} cc_params;

static const struct {
  const char *name;
  builtin_target target;
} builtins[] = {
    {"check.expect_eq", CC_EXPECT_EQ},
    {"check.expect_almost_eq", CC_EXPECT_ALMOST_EQ},
    {"check.expect_close", CC_EXPECT_CLOSE},
    {"check.eq", CC_EQ},
};

static shl_status cc_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  const shl_attr *t = op_attr(op, "call_target_name");
  shl_str name = t && t->kind == AT_STRING ? t->u.str : (shl_str){"", 0};
  for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++) {
    if (!str_eq_c(name, builtins[i].name)) continue;
    if (op->n_operands != 2 || !type_eq(op->operands[0]->type, op->operands[1]->type))
      return op_error(op, SHLOC_ERR_VERIFY, "target '%s' needs two operands of the same type", builtins[i].name);
    if (builtins[i].target == CC_EQ ? op->n_results != 1 : op->n_results != 0)
      return op_error(op, SHLOC_ERR_VERIFY, "target '%s' has the wrong number of results", builtins[i].name);
    cc_params *cp = plan_alloc(pc, sizeof *cp);
    if (!cp) return st_oom();
    cp->target = builtins[i].target;
    *params = cp;
    return NULL;
  }
  cc_params *cp = plan_alloc(pc, sizeof *cp);
  if (!cp) return st_oom();
  cp->target = CC_REGISTRY;
  *params = cp;
  return ffi_call_prepare(pc, op, &cp->call);
}

static shl_status cc_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const cc_params *cp = po->params;
  if (cp->target == CC_REGISTRY) return ffi_call_run(cp->call, in, out);
  bool ok = true;
  exec_count_check(ec);
  /* Operand 0 is the actual value, operand 1 the expected one. */
  switch (cp->target) {
    case CC_REGISTRY: break;
    case CC_EXPECT_EQ:
      return check_compare(po->op, CHECK_EXACT, in[0], in[1]->data, 0, 0, 0, &ok);
    case CC_EXPECT_ALMOST_EQ:
      return check_compare(po->op, CHECK_ALMOST, in[0], in[1]->data, 1e-3, 0, 0, &ok);
    case CC_EXPECT_CLOSE:
      return check_compare(po->op, CHECK_ULP, in[0], in[1]->data, 0, 0, 3, &ok);
    case CC_EQ: {
      bool exact = dtype_is_int(in[0]->dtype);
      shl_status st = check_compare(po->op, exact ? CHECK_EXACT : CHECK_ALMOST, in[0], in[1]->data, 1e-4, 0, 0, &ok);
      if (out[0]->nbytes) *(uint8_t *)out[0]->data = ok;
      return st;
    }
  }
  return NULL;
}

const shl_kernel kernel_custom_call = {cc_prepare, cc_run};
