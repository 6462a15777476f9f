/* An executable: one function planned once, run many times. */
#include <stdlib.h>

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
  arena_free(&x->arena);
  free(x);
}

const shl_op *executable_func(const shloc_executable *x) { return x->func; }

shl_status executable_run(shloc_executable *x, shl_buf *const *args, shl_buf *results) {
  const shl_type *ft = func_type(x->func);
  for (uint32_t i = 0; i < ft->n_in; i++) {
    if (!type_eq(args[i]->type, ft->in[i]) && !(args[i]->type && type_eq(args[i]->type, ft->in[i])))
      return op_error(x->func, SHLOC_ERR_INVALID_ARG, "argument #%u has the wrong type", i);
  }
  exec_ctx ec = {.x = x};
  shl_buf **res;
  ST_TRY(plan_run(&ec, x->main, args, &res));
  for (uint32_t i = 0; i < x->main->n_results; i++) {
    results[i] = *res[i];
    results[i].data = malloc(res[i]->nbytes ? res[i]->nbytes : 1);
    if (!results[i].data) {
      for (uint32_t k = 0; k < i; k++) free(results[k].data);
      return st_oom();
    }
    if (res[i]->nbytes) memcpy(results[i].data, res[i]->data, res[i]->nbytes);
  }
  return NULL;
}
