/* An executable: one function planned once, run many times. */
#include <stdio.h>
#include <stdlib.h>

#include "kernels/probe.h"
#include "plan.h"

shl_status executable_create(shloc_module *m, const shl_op *func, const exec_config *cfg, shloc_executable **out) {
  *out = NULL;
  shloc_executable *x = calloc(1, sizeof *x);
  if (!x) return st_oom();
  x->m = m;
  x->func = func;
  if (cfg) x->cfg = *cfg;
  arena_init(&x->arena);
  x->pc.m = m;
  x->pc.cfg = &x->cfg;
  x->pc.arena = &x->arena;
  strmap_init(&x->pc.funcs, &x->arena);
  shl_status st = plan_function(&x->pc, func, &x->main);
  if (st) {
    executable_destroy(x);
    return st;
  }
  *out = x;
  return NULL;
}

void executable_destroy(shloc_executable *x) {
  if (!x) return;
  for (exec_plan *p = x->pc.all; p; p = p->next_all) plan_release(p);
  for (plan_cleanup *c = x->pc.cleanups; c; c = c->next) c->fn(c->arg);
  probe_log_free(x->probes);
  arena_free(&x->arena);
  free(x);
}

const shl_op *executable_func(const shloc_executable *x) { return x->func; }

uint64_t executable_checks_run(const shloc_executable *x) { return atomic_load(&x->checks_run); }

void exec_count_check(exec_ctx *ec) { atomic_fetch_add_explicit(&ec->x->checks_run, 1, memory_order_relaxed); }

static shl_status check_args(const shloc_executable *x, shl_buf *const *args) {
  const shl_type *ft = func_type(x->func);
  for (uint32_t i = 0; i < ft->n_in; i++)
    if (!type_eq(args[i]->type, ft->in[i]))
      return op_error(x->func, SHLOC_ERR_INVALID_ARG, "argument #%u has the wrong type", i);
  return NULL;
}

shl_status executable_run_into(shloc_executable *x, shl_buf *const *args, void *const *bufs, shl_buf *results) {
  ST_TRY(check_args(x, args));
  const shl_type *ft = func_type(x->func);
  for (uint32_t i = 0; i < ft->n_out; i++) buf_init(&results[i], ft->out[i], bufs[i]);
  probe_log_clear(x->probes);
  exec_ctx ec = {.x = x};
  /* Only allocation failures of the function's own frame arrive here without a position. */
  return st_at(plan_run_into(&ec, x->main, args, results), &x->func->pos, "func.func");
}

shl_status executable_run(shloc_executable *x, shl_buf *const *args, shl_buf *results) {
  const shl_type *ft = func_type(x->func);
  void **bufs = calloc(ft->n_out + 1, sizeof *bufs);
  shl_status st = bufs ? NULL : st_oom();
  for (uint32_t i = 0; !st && i < ft->n_out; i++) {
    int64_t nb = ft->out[i]->kind == TY_TENSOR ? type_num_bytes(ft->out[i]) : 0;
    bufs[i] = exec_malloc(nb > 0 ? (size_t)nb : 0);
    if (!bufs[i]) {
      char what[32];
      snprintf(what, sizeof what, "result #%u", i);
      st = st_at(st_oom_size(what, nb > 0 ? (size_t)nb : 0), &x->func->pos, "func.func");
    }
  }
  if (!st) st = executable_run_into(x, args, bufs, results);
  if (st)
    for (uint32_t i = 0; bufs && i < ft->n_out; i++) free(bufs[i]);
  free(bufs);
  return st;
}
