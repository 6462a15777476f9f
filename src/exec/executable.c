/* An executable: one function planned once, run many times (or, with
 * dynamic shapes, planned once per input-shape signature: plan_cache.c). */
#include <stdio.h>
#include <stdlib.h>

#include "kernels/probe.h"
#include "passes/refine_shapes.h"
#include "plan.h"

shl_status executable_create(shloc_module *m, const shl_op *func, const exec_config *cfg, shloc_executable **out) {
  *out = NULL;
  shloc_executable *x = calloc(1, sizeof *x);
  if (!x) return st_oom();
  x->m = m;
  x->func = func;
  x->counts_to = x;
  if (cfg) x->cfg = *cfg;
  arena_init(&x->arena);
  pthread_mutex_init(&x->pool_lock, NULL);
  pthread_mutex_init(&x->cache_lock, NULL);
  x->pc.m = m;
  x->pc.cfg = &x->cfg;
  x->pc.arena = &x->arena;
  strmap_init(&x->pc.funcs, &x->arena);
  x->dynamic = refine_needed(m, func);
  shl_status st = x->dynamic ? NULL : plan_function(&x->pc, func, &x->main);
  if (st) {
    executable_destroy(x);
    return st;
  }
  *out = x;
  return NULL;
}

void executable_destroy(shloc_executable *x) {
  if (!x) return;
  plan_cache_destroy(x->cache);
  run_state_pool_free(x);
  pthread_mutex_destroy(&x->pool_lock);
  pthread_mutex_destroy(&x->cache_lock);
  for (plan_cleanup *c = x->pc.cleanups; c; c = c->next) c->fn(c->arg);
  probe_log_free(x->probes);
  arena_free(&x->arena);
  free(x);
}

const shl_op *executable_func(const shloc_executable *x) { return x->func; }

const shl_type *exec_arg_type(const shl_type *declared, int32_t rank, const int64_t *dims, shl_type *storage) {
  if (declared->kind != TY_TENSOR) return declared;
  if (declared->rank >= 0 && declared->rank != rank) return NULL;
  for (int32_t k = 0; k < rank; k++)
    if (dims[k] < 0 || (declared->rank >= 0 && declared->dims[k] != SHL_DYN && declared->dims[k] != dims[k])) return NULL;
  if (type_is_static(declared)) return declared;
  *storage = *declared;
  storage->rank = rank;
  storage->dims = dims;
  storage->encoding = NULL;
  return storage;
}

/* "[2, 5]" / "[?, 4]" for messages. */
static const char *dims_text(const shl_type *t, char *buf, size_t cap) {
  if (t->kind != TY_TENSOR) return "(not a tensor)";
  if (t->rank < 0) return "[*]";
  size_t n = (size_t)snprintf(buf, cap, "[");
  for (int32_t k = 0; k < t->rank && n < cap; k++)
    n += t->dims[k] == SHL_DYN ? (size_t)snprintf(buf + n, cap - n, k ? ", ?" : "?")
                               : (size_t)snprintf(buf + n, cap - n, k ? ", %lld" : "%lld", (long long)t->dims[k]);
  if (n < cap) snprintf(buf + n, cap - n, "]");
  return buf;
}

uint64_t executable_checks_run(const shloc_executable *x) { return atomic_load(&x->checks_run); }

void exec_count_check(exec_ctx *ec) { atomic_fetch_add_explicit(&ec->x->counts_to->checks_run, 1, memory_order_relaxed); }

static shl_status check_args(const shloc_executable *x, shl_buf *const *args) {
  const shl_type *ft = func_type(x->func);
  for (uint32_t i = 0; i < ft->n_in; i++) {
    const shl_type *t = args[i]->type, *d = ft->in[i];
    if (x->dynamic ? t->kind == d->kind && (t->kind != TY_TENSOR || (type_is_static(t) && t->dtype == d->dtype &&
                                                                     exec_arg_type(d, t->rank, t->dims, &(shl_type){0})))
                   : type_eq(t, d))
      continue;
    char a[256], b[256];
    return op_error(x->func, SHLOC_ERR_INVALID_ARG, "argument #%u has shape %s, which the declared %s does not allow", i,
                    dims_text(t, a, sizeof a), dims_text(d, b, sizeof b));
  }
  return NULL;
}

/* The static executable that runs these arguments: x itself, or the one
 * refined for their shapes (*ref then holds its cache entry until
 * unresolve). */
static shl_status resolve(shloc_executable *x, shl_buf *const *args, shloc_executable **out, plan_entry **ref) {
  *ref = NULL;
  ST_TRY(check_args(x, args));
  if (!x->dynamic) {
    *out = x;
    return NULL;
  }
  ST_TRY(plan_cache_lookup(x, args, ref));
  *out = plan_cache_executable(*ref);
  return NULL;
}

static void unresolve(shloc_executable *x, plan_entry *ref) {
  if (ref) plan_cache_unref(x, ref);
}

shl_status executable_result_types(shloc_executable *x, shl_buf *const *args, const shl_type *const **out) {
  shloc_executable *s;
  plan_entry *ref;
  ST_TRY(resolve(x, args, &s, &ref));
  *out = func_type(s->func)->out;
  unresolve(x, ref);
  return NULL;
}

static shl_status run_into(shloc_executable *x, const struct exec_process *proc, shl_buf *const *args, void *const *bufs,
                           shl_buf *results) {
  shloc_executable *s;
  plan_entry *ref;
  ST_TRY(resolve(x, args, &s, &ref));
  const shl_type *ft = func_type(s->func);
  for (uint32_t i = 0; i < ft->n_out; i++) buf_init(&results[i], ft->out[i], bufs[i]);
  probe_log_clear(s->probes); /* the log of the executable that runs */
  exec_run *run = run_state_get(s);
  shl_status st = run ? NULL : st_oom();
  if (run) {
    exec_ctx ec = {.x = s, .proc = proc, .run = run};
    st = plan_run_into(&ec, s->main, args, results);
    run_state_put(s, run);
  }
  unresolve(x, ref);
  /* Only allocation failures of the function's own frame arrive here without a position. */
  return st_at(st, &x->func->pos, "func.func");
}

shl_status executable_run_into(shloc_executable *x, shl_buf *const *args, void *const *bufs, shl_buf *results) {
  return run_into(x, NULL, args, bufs, results);
}

shl_status executable_run_device(shloc_executable *x, const struct exec_process *proc, shl_buf *const *args,
                                 shl_buf *results) {
  const shl_type *const *out;
  ST_TRY(executable_result_types(x, args, &out));
  uint32_t n_out = func_type(x->func)->n_out;
  void **bufs = calloc(n_out + 1, sizeof *bufs);
  shl_status st = bufs ? NULL : st_oom();
  for (uint32_t i = 0; !st && i < n_out; i++) {
    int64_t nb = out[i]->kind == TY_TENSOR ? type_num_bytes(out[i]) : 0;
    bufs[i] = exec_malloc(nb > 0 ? (size_t)nb : 0);
    if (!bufs[i]) {
      char what[32];
      snprintf(what, sizeof what, "result #%u", i);
      st = st_at(st_oom_size(what, nb > 0 ? (size_t)nb : 0), &x->func->pos, "func.func");
    }
  }
  if (!st) st = run_into(x, proc, args, bufs, results);
  if (st)
    for (uint32_t i = 0; bufs && i < n_out; i++) free(bufs[i]);
  free(bufs);
  return st;
}

shl_status executable_run(shloc_executable *x, shl_buf *const *args, shl_buf *results) {
  return executable_run_device(x, NULL, args, results);
}
