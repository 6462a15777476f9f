/* The executor: binds a plan's slots to memory and runs its ops in order. */
#include <stdlib.h>
#include <sys/mman.h>

#include "plan.h"

void *exec_malloc(size_t n) {
  enum { HUGE = 2u << 20 };
#ifdef MADV_HUGEPAGE
  /* First touches of 4 KiB pages cost microseconds each in VMs: blocks of
   * 2 MiB and more are 2 MiB aligned and sized and ask for transparent huge
   * pages (free() releases them as usual). */
  if (n >= HUGE) {
    size_t len = (n + HUGE - 1) & ~(size_t)(HUGE - 1);
    void *p = len >= n ? aligned_alloc(HUGE, len) : NULL;
    if (p) madvise(p, len, MADV_HUGEPAGE);
    return p;
  }
#endif
  return malloc(n ? n : 1);
}

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
void **exec_state(exec_ctx *ec, uint32_t id) { return &ec->run->kstate[id]; }

/* The pointer arrays that follow a frame's slot buffers. */
static shl_buf **result_ptrs(const exec_plan *plan, shl_buf *bufs) { return (shl_buf **)(bufs + plan->n_slots + 1); }
static shl_buf **op_ptrs(const exec_plan *plan, shl_buf *bufs) { return result_ptrs(plan, bufs) + plan->n_results + 1; }

static size_t bufs_bytes(const exec_plan *plan) {
  return (plan->n_slots + 1) * sizeof(shl_buf) + (plan->n_results + 1 + plan->n_argv) * sizeof(shl_buf *);
}

/* Binds every slot of a new frame and the pointer arrays into it. */
static void bind_frame(exec_plan *plan, void *frame, shl_buf *bufs) {
  for (uint32_t s = 0; s < plan->n_slots; s++) {
    const plan_slot *sl = &plan->slots[s];
    void *data = NULL;
    if (sl->kind == SLOT_FRAME) data = (char *)frame + sl->offset;
    else if (sl->kind == SLOT_CONST) data = sl->const_data;
    buf_init(&bufs[s], sl->type, data);
  }
  shl_buf **res = result_ptrs(plan, bufs), **argv = op_ptrs(plan, bufs);
  for (uint32_t i = 0; i < plan->n_results; i++) res[i] = &bufs[plan->result_slots[i]];
  for (uint32_t i = 0; i < plan->n_ops; i++) {
    const plan_op *po = &plan->ops[i];
    for (uint32_t k = 0; k < po->n_in; k++) *argv++ = &bufs[po->in_slots[k]];
    for (uint32_t k = 0; k < po->n_out; k++) *argv++ = &bufs[po->out_slots[k]];
  }
}

/* What changes between runs of a bound frame: arguments and captured values. */
static void bind_args(exec_ctx *ec, exec_plan *plan, shl_buf *bufs, shl_buf *const *args) {
  for (uint32_t i = 0; i < plan->n_args; i++) bufs[plan->arg_slots[i]] = *args[i];
  for (uint32_t c = 0; c < plan->n_captures; c++) bufs[plan->captures[c].slot] = ec->slots[plan->captures[c].parent_slot];
}

static shl_status run_ops(exec_ctx *ec, exec_plan *plan, shl_buf *bufs) {
  shl_buf **argv = op_ptrs(plan, bufs);
  for (uint32_t i = 0; i < plan->n_ops; i++) {
    const plan_op *po = &plan->ops[i];
    shl_buf **in = argv, **out = argv + po->n_in;
    argv = out + po->n_out;
    shl_buf *saved = ec->slots;
    ec->slots = bufs;
    shl_status st = po->kernel->run(ec, po, in, out);
    ec->slots = saved;
    if (st) return st_at(st, &po->op->pos, op_name_cstr(po->op));
  }
  return NULL;
}

/* A new frame for plan: memory and bound buffers. */
static shl_status new_frame(exec_plan *plan, void **frame, shl_buf **bufs) {
  *frame = exec_malloc(plan->frame_bytes);
  *bufs = malloc(bufs_bytes(plan));
  if (!*frame || !*bufs) {
    free(*frame);
    free(*bufs);
    *frame = NULL;
    *bufs = NULL;
    return st_oom_size("the frame of intermediate values", plan->frame_bytes);
  }
  bind_frame(plan, *frame, *bufs);
  return NULL;
}

bool plan_busy(const exec_ctx *ec, const exec_plan *plan) { return ec->run->plans[plan->id].busy; }

static shl_status run_in(exec_ctx *ec, exec_plan *plan, int which, shl_buf *const *args, shl_buf ***results) {
  plan_frames *pf = &ec->run->plans[plan->id];
  void *frame = pf->frame[which];
  shl_buf *bufs = pf->bufs[which];
  bool temp = pf->busy || !bufs;
  if (temp) {
    /* First run allocates the cached frame; a re-entered plan (recursion)
     * gets a temporary one. */
    ST_TRY(new_frame(plan, &frame, &bufs));
    if (!pf->busy) {
      pf->frame[which] = frame;
      pf->bufs[which] = bufs;
      temp = false;
    }
  }
  bind_args(ec, plan, bufs, args);
  pf->busy = true;
  shl_status st = run_ops(ec, plan, bufs);
  pf->busy = false;
  *results = result_ptrs(plan, bufs);
  if (temp) {
    /* Results of a temporary frame must outlive it: callers copy right away,
     * so keep the frame until the next temporary run of this plan. */
    free(pf->frame_spare);
    free(pf->bufs_spare);
    pf->frame_spare = frame;
    pf->bufs_spare = bufs;
  }
  return st;
}

shl_status plan_run(exec_ctx *ec, exec_plan *plan, shl_buf *const *args, shl_buf ***results) {
  return run_in(ec, plan, 0, args, results);
}

shl_status plan_run_alt(exec_ctx *ec, exec_plan *plan, int which, shl_buf *const *args, shl_buf ***results) {
  return run_in(ec, plan, which, args, results);
}

/* The slot owning a frame slot's buffer (plan_slot.share). */
static uint32_t slot_root(const exec_plan *plan, uint32_t s) { return plan->slots[s].share ? plan->slots[s].share - 1 : s; }

/* Points every frame slot using root's buffer at data. */
static void bind_shared(const exec_plan *plan, shl_buf *bufs, uint32_t root, void *data) {
  for (uint32_t t = 0; t < plan->n_slots; t++)
    if (plan->slots[t].kind == SLOT_FRAME && slot_root(plan, t) == root) bufs[t].data = data;
}

/* Whether result #i can be computed straight into out: an op of the plan
 * defines it, no earlier result is the same value (or buffer), and out
 * overlaps none of the arguments (which the ops still read). */
static bool result_direct(const exec_plan *plan, uint32_t i, shl_buf *const *args, const shl_buf *out) {
  uint32_t s = plan->result_slots[i];
  if (plan->slots[s].kind != SLOT_FRAME || !out->nbytes) return false;
  for (uint32_t j = 0; j < i; j++)
    if (plan->slots[plan->result_slots[j]].kind == SLOT_FRAME && slot_root(plan, plan->result_slots[j]) == slot_root(plan, s))
      return false;
  const char *lo = out->data, *hi = lo + out->nbytes;
  for (uint32_t k = 0; k < plan->n_args; k++) {
    const char *a = args[k]->data;
    if (a && a < hi && lo < a + args[k]->nbytes) return false;
  }
  return true;
}

shl_status plan_run_into(exec_ctx *ec, exec_plan *plan, shl_buf *const *args, shl_buf *outs) {
  shl_buf **res;
  plan_frames *pf = &ec->run->plans[plan->id];
  if (pf->busy) {
    /* Re-entered (a recursive call of the entry function): a temporary frame. */
    ST_TRY(run_in(ec, plan, 0, args, &res));
    for (uint32_t i = 0; i < plan->n_results; i++)
      if (outs[i].nbytes) memmove(outs[i].data, res[i]->data, outs[i].nbytes);
    return NULL;
  }
  if (!pf->bufs[0]) ST_TRY(new_frame(plan, &pf->frame[0], &pf->bufs[0]));
  shl_buf *bufs = pf->bufs[0];
  for (uint32_t i = 0; i < plan->n_results; i++)
    if (result_direct(plan, i, args, &outs[i])) bind_shared(plan, bufs, slot_root(plan, plan->result_slots[i]), outs[i].data);
  shl_status st = run_in(ec, plan, 0, args, &res);
  for (uint32_t i = 0; i < plan->n_results; i++) {
    uint32_t s = plan->result_slots[i];
    if (bufs[s].data == outs[i].data) continue;
    if (!st && outs[i].nbytes) memmove(outs[i].data, res[i]->data, outs[i].nbytes);
  }
  /* Point the slots back at the frame for runs that bring no buffers. */
  for (uint32_t i = 0; i < plan->n_results; i++) {
    uint32_t s = plan->result_slots[i];
    if (plan->slots[s].kind == SLOT_FRAME)
      bind_shared(plan, bufs, slot_root(plan, s), (char *)pf->frame[0] + plan->slots[s].offset);
  }
  return st;
}

bool plan_results_own(const exec_plan *plan) {
  for (uint32_t i = 0; i < plan->n_results; i++)
    if (plan->slots[plan->result_slots[i]].kind == SLOT_ARG) return false;
  return true;
}

shl_status exec_region(exec_ctx *ec, exec_plan *plan, shl_buf *const *args, shl_buf ***results) {
  return plan_run(ec, plan, args, results);
}
