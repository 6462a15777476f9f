/* One executable on every device of an SPMD run.  An executable can run
 * on several threads at once (each run has its own run state), so the
 * devices share one plan; each has its own exec_process (ids, collective
 * counter) and they meet through one thread transport. */
#include <pthread.h>
#include <stdlib.h>

#include "device.h"
#include "spmd.h"

/* Seconds a device waits for its peers before giving up (a last resort:
 * faults, ended programs and deadlocks stop the peers at once). */
#define SPMD_TIMEOUT_S 300

typedef struct {
  shloc_executable *x;
  struct exec_process proc;
  uint64_t seq;
  shl_buf *const *args;
  shl_buf *results;
  shl_status st;
  bool failed;
} spmd_device;

static void *device_main(void *arg) {
  spmd_device *d = arg;
  coll_world *w = d->proc.world;
  d->st = executable_run_device(d->x, &d->proc, d->args, d->results);
  d->failed = d->st != NULL;
  w->t->leave(w, d->proc.replica * w->n_part + d->proc.partition, d->st != NULL);
  return NULL;
}

shl_status spmd_run(shloc_executable *x, uint32_t n_rep, uint32_t n_part, shl_buf *const *const *args,
                    shl_buf *results) {
  uint32_t n = n_rep * n_part, n_out = func_type(executable_func(x))->n_out;
  spmd_device *devs = calloc(n, sizeof *devs);
  pthread_t *th = calloc(n, sizeof *th);
  coll_world *w = coll_threads_new(n_rep, n_part, SPMD_TIMEOUT_S);
  if (!devs || !th || !w) {
    free(devs);
    free(th);
    if (w) w->t->free(w);
    return st_oom();
  }
  shl_status st = NULL;
  uint32_t started = 0;
  for (uint32_t k = 0; k < n; k++) {
    spmd_device *d = &devs[k];
    *d = (spmd_device){.x = x,
                       .proc = {k / n_part, k % n_part, NULL, NULL, w, NULL},
                       .args = args[k],
                       .results = results + (size_t)k * n_out};
    d->proc.seq = &d->seq;
    if (pthread_create(&th[k], NULL, device_main, d)) {
      st = st_error(SHLOC_ERR_RUNTIME, NULL, NULL, "could not start a thread for device #%u", k);
      w->t->leave(w, k, true);
      break;
    }
    started++;
  }
  for (uint32_t k = 0; k < started; k++) pthread_join(th[k], NULL);
  /* Report the device that failed first; the others only stopped because of it. */
  int64_t first = w->t->failed_device(w);
  for (uint32_t k = 0; k < started; k++) {
    if (!st && (first < 0 || (int64_t)k == first) && devs[k].st) {
      st = st_annotate(devs[k].st, "on device #%u (replica %u, partition %u)", k, k / n_part, k % n_part);
      continue;
    }
    if (devs[k].st) shloc_status_free(devs[k].st);
  }
  if (st) /* a failed run hands back no results (a failed device's were released already) */
    for (uint32_t k = 0; k < n; k++)
      for (uint32_t i = 0; i < n_out; i++) {
        shl_buf *b = &results[(size_t)k * n_out + i];
        if (k < started && !devs[k].failed) free(b->data);
        b->data = NULL;
      }
  w->t->free(w);
  free(devs);
  free(th);
  return st;
}

shl_status spmd_run_mpi(shloc_executable *x, struct shloc_mpi *m, coll_world *w, uint32_t dev,
                        shl_buf *const *args, shl_buf *results) {
  uint32_t n = w->n_rep * w->n_part, n_out = func_type(executable_func(x))->n_out;
  uint64_t seq = 0;
  struct exec_process proc = {dev / w->n_part, dev % w->n_part, NULL, NULL, w, &seq};
  shl_status st = executable_run_device(x, &proc, args, results);
  w->t->leave(w, dev, st != NULL);
  if (st) {
    for (uint32_t i = 0; i < n_out; i++) results[i].data = NULL; /* released by the run */
    st = st_annotate(st, "on device #%u (replica %u, partition %u)", dev, proc.replica, proc.partition);
  }
  /* Every device meets the others once more: one that ended early, or a
   * failure elsewhere, is reported here.  No results move. */
  uint32_t *none = calloc(n + 1, sizeof *none);
  if (!none && !st) st = st_oom();
  if (none) st = coll_mpi_finish(m, w, executable_func(x), st, n, none, NULL);
  free(none);
  return st;
}
