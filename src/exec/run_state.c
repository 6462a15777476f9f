/* Run states: what a run mutates (frames, kernels' per-run state), pooled
 * per executable so that concurrent runs each take their own and a run on
 * one thread costs a lock and a pop. */
#include <stdlib.h>

#include "plan.h"

static void run_state_free(const shloc_executable *x, exec_run *r) {
  for (uint32_t i = 0; i < x->pc.n_plans; i++) {
    plan_frames *pf = &r->plans[i];
    for (int k = 0; k < 2; k++) {
      free(pf->frame[k]);
      free(pf->bufs[k]);
    }
    free(pf->frame_spare);
    free(pf->bufs_spare);
  }
  for (const plan_kstate *k = x->pc.kstates; k; k = k->next)
    if (r->kstate[k->id]) k->fn(r->kstate[k->id]);
  free(r->plans);
  free(r->kstate);
  free(r);
}

exec_run *run_state_get(shloc_executable *x) {
  pthread_mutex_lock(&x->pool_lock);
  exec_run *r = x->pool;
  if (r) x->pool = r->next;
  pthread_mutex_unlock(&x->pool_lock);
  if (r) return r;
  /* Plans are complete once the executable exists: the counts are final. */
  r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->plans = calloc(x->pc.n_plans + 1, sizeof *r->plans);
  r->kstate = calloc(x->pc.n_kstates + 1, sizeof *r->kstate);
  if (!r->plans || !r->kstate) {
    free(r->plans);
    free(r->kstate);
    free(r);
    return NULL;
  }
  return r;
}

void run_state_put(shloc_executable *x, exec_run *r) {
  pthread_mutex_lock(&x->pool_lock);
  r->next = x->pool;
  x->pool = r;
  pthread_mutex_unlock(&x->pool_lock);
}

void run_state_pool_free(shloc_executable *x) {
  for (exec_run *r = x->pool, *next; r; r = next) {
    next = r->next;
    run_state_free(x, r);
  }
  x->pool = NULL;
}
