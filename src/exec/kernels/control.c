/* Control flow and structure: func.call, while, if, case, composite,
 * optimization_barrier, tokens, annotations that forward their operands.  Nested regions run through exec_region;
 * values are copied between region frames (region frames are reused), except
 * that loop bodies alternate two frames instead of copying their state. */
#include "exec/plan.h"

static void copy_buf(shl_buf *dst, const shl_buf *src) {
  if (dst->data != src->data && src->nbytes) memcpy(dst->data, src->data, src->nbytes);
}

/* ---- func.call / composite ---- */

static shl_status call_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  const char *attr = op_is(op, OP_COMPOSITE) ? "decomposition" : "callee";
  const shl_attr *c = op_attr(op, attr);
  if (!c || c->kind != AT_SYMREF) return op_error(op, SHLOC_ERR_VERIFY, "has no %s symbol", attr);
  shl_str name = c->u.sym.root;
  const shl_op *f = module_find_func(plan_module(pc), name);
  if (!f) return op_error(op, SHLOC_ERR_VERIFY, "calls unknown function '%.*s'", (int)name.n, name.p);
  exec_plan *saved = pc->cur;
  shl_status st = plan_function(pc, f, (exec_plan **)params);
  pc->cur = saved;
  return st;
}

static shl_status call_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  shl_buf **res;
  shl_buf *saved = ec->slots;
  shl_status st = exec_region(ec, po->params, in, &res);
  ec->slots = saved;
  ST_TRY(st);
  for (uint32_t i = 0; i < po->op->n_results; i++) copy_buf(out[i], res[i]);
  return NULL;
}

const shl_kernel kernel_call = {call_prepare, call_run};
const shl_kernel kernel_composite = {call_prepare, call_run};

/* ---- async_start / async_done: executed synchronously (the spec lets a
 * backend do so); the future's buffers are its values ---- */

static shl_status async_start_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  (void)pc;
  (void)params;
  if (op->n_regions != 1 || op->regions[0].n_blocks != 1 || op->n_results != 1 || op->results[0].type->kind != TY_TUPLE ||
      !op->results[0].type->future)
    return op_error(op, SHLOC_ERR_VERIFY, "expects one body and a !stablehlo.future result");
  const shl_block *b = op->regions[0].blocks[0];
  if (b->n_args && b->n_args != op->n_operands)
    return op_error(op, SHLOC_ERR_VERIFY, "body takes %u arguments for %u operands", b->n_args, op->n_operands);
  for (uint32_t i = 0; i < op->results[0].type->n_in; i++)
    if (op->results[0].type->in[i]->kind != TY_TENSOR)
      return op_error(op, SHLOC_ERR_UNSUPPORTED, "runs with futures of tensors only");
  const shl_op *ret = b->last;
  if (!ret || ret->n_operands != op->results[0].type->n_in)
    return op_error(op, SHLOC_ERR_VERIFY, "body must return the future's %u values", op->results[0].type->n_in);
  return NULL;
}

static shl_status async_start_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  shl_buf **res;
  shl_buf *saved = ec->slots;
  exec_plan *body = po->regions[0];
  shl_status st = exec_region(ec, body, po->op->regions[0].blocks[0]->n_args ? in : NULL, &res);
  ec->slots = saved;
  ST_TRY(st);
  for (uint32_t i = 0; i < po->n_out; i++) copy_buf(out[i], res[i]);
  return NULL;
}

const shl_kernel kernel_async_start = {async_start_prepare, async_start_run};

static shl_status async_done_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  (void)ec;
  if (po->n_in != po->n_out) return op_error(po->op, SHLOC_ERR_VERIFY, "results must be the future's values");
  for (uint32_t i = 0; i < po->n_out; i++) copy_buf(out[i], in[i]);
  return NULL;
}

const shl_kernel kernel_async_done = {NULL, async_done_run};

/* ---- while ---- */

static bool pred_true(const shl_buf *b) { return b->nbytes && (*(const uint8_t *)b->data & 1); }

static shl_status while_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  uint32_t n = po->op->n_results;
  exec_plan *cond = po->regions[0], *body = po->regions[1];
  if (!body->busy && plan_results_own(body)) {
    /* The body alternates between two frames and reads the previous
     * iteration's results where they are; the final state is copied once. */
    shl_buf *const *state = in;
    for (int k = 0;; k ^= 1) {
      shl_buf **res;
      ST_TRY(exec_region(ec, cond, state, &res));
      if (!pred_true(res[0])) break;
      ST_TRY(plan_run_alt(ec, body, k, state, &res));
      state = res;
    }
    for (uint32_t i = 0; i < n; i++) copy_buf(out[i], state[i]);
    return NULL;
  }
  /* Otherwise (a body returning an argument, or a re-entered loop) the
   * state lives in the result buffers and body results are copied back
   * after every iteration. */
  for (uint32_t i = 0; i < n; i++) copy_buf(out[i], in[i]);
  for (;;) {
    shl_buf **res;
    ST_TRY(exec_region(ec, cond, out, &res));
    if (!pred_true(res[0])) return NULL;
    ST_TRY(exec_region(ec, body, out, &res));
    for (uint32_t i = 0; i < n; i++) copy_buf(out[i], res[i]);
  }
}

const shl_kernel kernel_while = {NULL, while_run};

/* ---- if / case ---- */

static shl_status branch(exec_ctx *ec, const plan_op *po, uint32_t r, shl_buf *const *out) {
  shl_buf **res;
  ST_TRY(exec_region(ec, po->regions[r], NULL, &res));
  for (uint32_t i = 0; i < po->op->n_results; i++) copy_buf(out[i], res[i]);
  return NULL;
}

static shl_status if_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  return branch(ec, po, pred_true(in[0]) ? 0 : 1, out);
}

static shl_status case_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  int32_t idx;
  memcpy(&idx, in[0]->data, sizeof idx);
  uint32_t n = po->op->n_regions;
  /* Out-of-range indices select the last branch (the spec's default). */
  uint32_t r = (idx < 0 || (uint32_t)idx >= n) ? n - 1 : (uint32_t)idx;
  return branch(ec, po, r, out);
}

const shl_kernel kernel_if = {NULL, if_run};
const shl_kernel kernel_case = {NULL, case_run};

/* ---- identity-like ops ---- */

static shl_status copy_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  for (uint32_t i = 0; i < po->op->n_results && i < po->op->n_operands; i++) copy_buf(out[i], in[i]);
  return NULL;
}

static shl_status token_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) { return NULL; }

/* Every result has its operand's type (the verifier's rule for the ops that use it). */
static bool forwards_all(const shl_op *op) {
  for (uint32_t i = 0; i < op->n_results; i++)
    if (i >= op->n_operands || !type_eq(op->operands[i]->type, op->results[i].type)) return false;
  return true;
}

const shl_kernel kernel_optimization_barrier = {NULL, copy_run};
/* Annotations that mean nothing on one device (sdy.sharding_constraint, ...):
 * the planner forwards their operands (plan_forwards), so they never run. */
const shl_kernel kernel_forward = {NULL, NULL};

bool plan_forwards(const shl_op *op) {
  if (plan_kernel_of(op) == &kernel_forward) return forwards_all(op);
  return op_is(op, OP_CUSTOM_CALL) && custom_call_forwards(op);
}
const shl_kernel kernel_after_all = {NULL, token_run};
