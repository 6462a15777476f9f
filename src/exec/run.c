/* The executor: binds a plan's slots to memory and runs its ops in order. */
#include <stdlib.h>

#include "plan.h"

void buf_init(shl_buf *b, const shl_type *t, void *data) {
  b->type = t;
  if (t && t->kind == TY_TENSOR) {
    b->dtype = type_storage_dtype(t);
    b->rank = t->rank;
    b->dims = t->dims;
    b->n = type_num_elements(t);
    int64_t nb = type_num_bytes(t);
    b->nbytes = nb > 0 ? (size_t)nb : 0;
  } else {
    b->dtype = DT_INVALID;
    b->rank = 0;
    b->dims = NULL;
    b->n = 0;
    b->nbytes = 0;
  }
  b->data = data;
}

const shloc_module *exec_module(exec_ctx *ec) { return ec->x->m; }

static shl_status bind(exec_ctx *ec, exec_plan *plan, void *frame, shl_buf *bufs, shl_buf *const *args) {
  for (uint32_t s = 0; s < plan->n_slots; s++) {
    const plan_slot *sl = &plan->slots[s];
    void *data = NULL;
    if (sl->kind == SLOT_FRAME) data = (char *)frame + sl->offset;
    else if (sl->kind == SLOT_CONST) data = sl->const_data;
    buf_init(&bufs[s], sl->type, data);
  }
  for (uint32_t i = 0; i < plan->n_args; i++) bufs[plan->arg_slots[i]] = *args[i];
  for (uint32_t c = 0; c < plan->n_captures; c++) bufs[plan->captures[c].slot] = ec->slots[plan->captures[c].parent_slot];
  return NULL;
}

enum { MAX_STACK_OPERANDS = 16 };

static shl_status run_ops(exec_ctx *ec, exec_plan *plan, shl_buf *bufs) {
  shl_buf *in_stack[MAX_STACK_OPERANDS], *out_stack[MAX_STACK_OPERANDS];
  for (uint32_t i = 0; i < plan->n_ops; i++) {
    const plan_op *po = &plan->ops[i];
    const shl_op *op = po->op;
    shl_buf **in = in_stack, **out = out_stack;
    if (po->n_in > MAX_STACK_OPERANDS || po->n_out > MAX_STACK_OPERANDS) {
      in = malloc((po->n_in + 1) * sizeof *in);
      out = malloc((po->n_out + 1) * sizeof *out);
      if (!in || !out) {
        free(in);
        free(out);
        return st_oom();
      }
    }
    for (uint32_t k = 0; k < po->n_in; k++) in[k] = &bufs[po->in_slots[k]];
    for (uint32_t k = 0; k < po->n_out; k++) out[k] = &bufs[po->out_slots[k]];
    shl_buf *saved = ec->slots;
    ec->slots = bufs;
    shl_status st = po->kernel->run(ec, po, in, out);
    ec->slots = saved;
    if (in != in_stack) {
      free(in);
      free(out);
    }
    if (st) return st_at(st, &op->pos, op_name_cstr(op));
  }
  return NULL;
}

shl_status plan_run(exec_ctx *ec, exec_plan *plan, shl_buf *const *args, shl_buf ***results) {
  void *frame = plan->frame;
  shl_buf *bufs = plan->bufs;
  bool temp = plan->busy || !plan->bufs;
  if (temp) {
    /* First run allocates the cached frame; a re-entered plan (recursion)
     * gets a temporary one. */
    frame = malloc(plan->frame_bytes ? plan->frame_bytes : 1);
    bufs = malloc((plan->n_slots + 1) * sizeof *bufs + (plan->n_results + 1) * sizeof(shl_buf *));
    if (!frame || !bufs) {
      free(frame);
      free(bufs);
      return st_oom();
    }
    if (!plan->busy) {
      plan->frame = frame;
      plan->bufs = bufs;
      temp = false;
    }
  }
  ST_TRY(bind(ec, plan, frame, bufs, args));
  plan->busy = true;
  shl_status st = run_ops(ec, plan, bufs);
  plan->busy = false;
  shl_buf **res = (shl_buf **)(bufs + plan->n_slots + 1);
  for (uint32_t i = 0; i < plan->n_results; i++) res[i] = &bufs[plan->result_slots[i]];
  *results = res;
  if (temp) {
    /* Results of a temporary frame must outlive it: callers copy right away,
     * so keep the frame until the next temporary run of this plan. */
    free(plan->frame_spare);
    free(plan->bufs_spare);
    plan->frame_spare = frame;
    plan->bufs_spare = bufs;
  }
  return st;
}

shl_status exec_region(exec_ctx *ec, exec_plan *plan, shl_buf *const *args, shl_buf ***results) {
  return plan_run(ec, plan, args, results);
}

void plan_release(exec_plan *plan) {
  free(plan->frame);
  free(plan->bufs);
  free(plan->frame_spare);
  free(plan->bufs_spare);
  plan->frame = plan->bufs = NULL;
  plan->frame_spare = NULL;
  plan->bufs_spare = NULL;
}
