/* stablehlo.custom_call: built-in targets (the check.* targets of the
 * StableHLO test corpus, JAX's annotation targets from src/targets/jax);
 * other targets go through the custom-call registry (ffi_call.c).  Every
 * custom call runs where it stands: the executor never drops or reorders
 * ops, so has_side_effect calls keep their order.  Identity annotations do
 * not run at all: the planner aliases their results (plan_forwards). */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "exec/collectives/manual.h"
#include "exec/plan.h"
#include "ffi_call.h"
#include "targets/jax/annotations.h"
#include "targets/jax/dynamic_targets.h"
#include "targets/jax/x64_split.h"

typedef enum { CC_EXPECT_EQ, CC_EXPECT_ALMOST_EQ, CC_EXPECT_CLOSE, CC_EQ, CC_JAX, CC_DYNAMIC, CC_REGISTRY } builtin_target;

typedef struct {
  builtin_target target;
  jax_target_kind jax; /* CC_JAX */
  void *call;          /* CC_REGISTRY: ffi_call_prepare's params; CC_DYNAMIC: the dyn_target; CC_JAX: manual_rt's */
} cc_params;

static shl_str target_name(const shl_op *op) {
  const shl_attr *t = op_attr(op, "call_target_name");
  return t && t->kind == AT_STRING ? t->u.str : (shl_str){"", 0};
}

bool custom_call_forwards(const shl_op *op) {
  jax_target_kind kind;
  if (!jax_target_lookup(target_name(op), &kind)) return false;
  if ((kind == JAXT_SDY_TO_LOCAL || kind == JAXT_SDY_TO_GLOBAL) && coll_sdy_rt_manual(op, kind == JAXT_SDY_TO_LOCAL))
    return false;
  return jax_target_forwards(op, kind);
}

/* shape_assertion: the predicate, else the message with the inputs filled in. */
static shl_status shape_assertion(const shl_op *op, shl_buf *const *in) {
  if (*(const uint8_t *)in[0]->data & 1) return NULL;
  int64_t vals[32];
  uint32_t n = op->n_operands - 1;
  for (uint32_t i = 0; i < n && i < 32; i++) {
    if (in[i + 1]->dtype == DT_I32) {
      int32_t v;
      memcpy(&v, in[i + 1]->data, sizeof v);
      vals[i] = v;
    } else {
      memcpy(&vals[i], in[i + 1]->data, sizeof vals[i]);
    }
  }
  const shl_attr *msg = op_attr(op, "error_message");
  char *text;
  ST_TRY(jax_format_message(msg->u.str, vals, n, &text));
  shl_status st = st_error(SHLOC_ERR_RUNTIME, &op->pos, op_name_cstr(op), "shape_assertion failed: %s", text);
  free(text);
  return st;
}

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
  shl_str name = target_name(op);
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
  *params = cp;
  if (jax_target_lookup(name, &cp->jax)) {
    cp->target = CC_JAX;
    ST_TRY(jax_target_check(op, name, cp->jax));
    if ((cp->jax == JAXT_SDY_TO_LOCAL || cp->jax == JAXT_SDY_TO_GLOBAL) && !custom_call_forwards(op))
      return coll_sdy_rt_prepare(pc, op, cp->jax == JAXT_SDY_TO_LOCAL, &cp->call);
    return NULL;
  }
  if (dyn_target_is(name)) {
    dyn_target *dt = NULL;
    cp->target = CC_DYNAMIC;
    shl_status st = dyn_target_prepare(pc, op, &dt);
    cp->call = dt;
    return st;
  }
  cp->target = CC_REGISTRY;
  return ffi_call_prepare(pc, op, &cp->call);
}

static shl_status cc_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const cc_params *cp = po->params;
  if (cp->target == CC_REGISTRY) return ffi_call_run(ec, cp->call, in, out);
  if (cp->target == CC_DYNAMIC) return dyn_target_run(ec, cp->call, in, out);
  bool ok = true;
  exec_count_check(ec);
  /* Operand 0 is the actual value, operand 1 the expected one. */
  switch (cp->target) {
    case CC_REGISTRY:
    case CC_DYNAMIC: break;
    case CC_JAX:
      switch (cp->jax) {
        case JAXT_SHAPE_ASSERTION: return shape_assertion(po->op, in);
        case JAXT_ALLOCATE_BUFFER: memset(out[0]->data, 0, out[0]->nbytes); return NULL;
        case JAXT_SPMD_SHAPE: return coll_spmd_shape(ec, po, in[0], out[0]); /* equal types: aliased by the planner */
        case JAXT_SDY_TO_LOCAL:
        case JAXT_SDY_TO_GLOBAL: return coll_sdy_rt_run(ec, po, cp->call, in, out); /* likewise */
        case JAXT_X64_SPLIT_LOW:
        case JAXT_X64_SPLIT_HIGH:
          jax_x64_split(in[0]->dtype, in[0]->data, in[0]->n, cp->jax == JAXT_X64_SPLIT_HIGH, out[0]->data);
          return NULL;
        case JAXT_X64_COMBINE: jax_x64_combine(out[0]->dtype, in[0]->data, in[1]->data, out[0]->n, out[0]->data); return NULL;
        case JAXT_IDENTITY: /* aliased by the planner: prepare rejected the others */
        case JAXT_SINK: return NULL;
      }
      return NULL;
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
