/* The thread transport: devices are threads of this process, a rendezvous
 * is a generation-counted barrier under one mutex.  A device that leaves
 * (its program ended or failed) wakes every waiter, which then stops with an
 * error naming it, so a fault or a mismatched program never hangs; a timed
 * wait bounds the rest. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "transport.h"

typedef struct {
  coll_world base;
  uint32_t n;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  uint32_t arrived;
  uint64_t gen;
  int64_t failed;   /* first device that failed, or -1 */
  int64_t left;     /* first device that ended its program, or -1 */
  unsigned timeout_s;
  const coll_entry **entries;
} threads_world;

static shl_status peer_error(const threads_world *tw, const shl_op *op) {
  int64_t d = tw->failed >= 0 ? tw->failed : tw->left;
  uint32_t np = tw->base.n_part;
  if (tw->failed >= 0)
    return op_error(op, SHLOC_ERR_RUNTIME, "stopped: device #%lld (replica %lld, partition %lld) failed", (long long)d,
                    (long long)(d / np), (long long)(d % np));
  return op_error(op, SHLOC_ERR_RUNTIME,
                  "device #%lld (replica %lld, partition %lld) ended its program without reaching this collective",
                  (long long)d, (long long)(d / np), (long long)(d % np));
}

/* Waits until all n devices arrive; error when a peer failed or left. */
static shl_status barrier(threads_world *tw, const shl_op *op) {
  pthread_mutex_lock(&tw->mu);
  if (tw->failed >= 0 || tw->left >= 0) {
    shl_status st = peer_error(tw, op);
    pthread_mutex_unlock(&tw->mu);
    return st;
  }
  uint64_t gen = tw->gen;
  if (++tw->arrived == tw->n) {
    tw->arrived = 0;
    tw->gen++;
    pthread_cond_broadcast(&tw->cv);
    pthread_mutex_unlock(&tw->mu);
    return NULL;
  }
  struct timespec dl;
  clock_gettime(CLOCK_REALTIME, &dl);
  dl.tv_sec += tw->timeout_s;
  shl_status st = NULL;
  while (tw->gen == gen) {
    if (tw->failed >= 0 || tw->left >= 0) {
      st = peer_error(tw, op);
      break;
    }
    if (pthread_cond_timedwait(&tw->cv, &tw->mu, &dl) == ETIMEDOUT && tw->gen == gen) {
      st = op_error(op, SHLOC_ERR_RUNTIME, "timed out after %u s waiting for the other devices", tw->timeout_s);
      break;
    }
  }
  pthread_mutex_unlock(&tw->mu);
  return st;
}

static shl_status threads_exchange(coll_world *w, uint32_t dev, const shl_op *op, const coll_entry *mine,
                                   const coll_entry *const **all) {
  threads_world *tw = (threads_world *)w;
  tw->entries[dev] = mine; /* each device writes its own slot; the barrier publishes it */
  ST_TRY(barrier(tw, op));
  /* Every device compares all entries with device #0's, so all report the same. */
  const coll_entry *e0 = tw->entries[0];
  for (uint32_t d = 1; d < tw->n; d++) {
    const coll_entry *e = tw->entries[d];
    if (e->kind != e0->kind || e->seq != e0->seq || e->n != e0->n)
      return op_error(op, SHLOC_ERR_RUNTIME,
                      "devices disagree on collective #%llu: device #0 runs '%s' with %u operands, device #%u runs '%s' "
                      "with %u operands (its collective #%llu)",
                      (unsigned long long)e0->seq, shl_op_table[e0->kind].name, e0->n, d, shl_op_table[e->kind].name,
                      e->n, (unsigned long long)e->seq);
  }
  *all = tw->entries;
  return NULL;
}

static shl_status threads_release(coll_world *w, uint32_t dev, const shl_op *op) {
  (void)dev;
  return barrier((threads_world *)w, op);
}

static void threads_leave(coll_world *w, uint32_t dev, bool failed) {
  threads_world *tw = (threads_world *)w;
  pthread_mutex_lock(&tw->mu);
  if (failed && tw->failed < 0) tw->failed = dev;
  if (!failed && tw->left < 0) tw->left = dev;
  pthread_cond_broadcast(&tw->cv);
  pthread_mutex_unlock(&tw->mu);
}

static int64_t threads_failed(coll_world *w) {
  threads_world *tw = (threads_world *)w;
  pthread_mutex_lock(&tw->mu);
  int64_t f = tw->failed;
  pthread_mutex_unlock(&tw->mu);
  return f;
}

static void threads_free(coll_world *w) {
  threads_world *tw = (threads_world *)w;
  if (!tw) return;
  pthread_mutex_destroy(&tw->mu);
  pthread_cond_destroy(&tw->cv);
  free(tw->entries);
  free(tw);
}

static const coll_transport threads_transport = {threads_exchange, threads_release, threads_leave, threads_failed,
                                                 threads_free};

coll_world *coll_threads_new(uint32_t n_rep, uint32_t n_part, unsigned timeout_s) {
  threads_world *tw = calloc(1, sizeof *tw);
  if (!tw) return NULL;
  tw->n = n_rep * n_part;
  tw->entries = calloc(tw->n + 1, sizeof *tw->entries);
  if (!tw->entries) {
    free(tw);
    return NULL;
  }
  pthread_mutex_init(&tw->mu, NULL);
  pthread_cond_init(&tw->cv, NULL);
  tw->base.t = &threads_transport;
  tw->base.n_rep = n_rep;
  tw->base.n_part = n_part;
  tw->failed = tw->left = -1;
  tw->timeout_s = timeout_s;
  return &tw->base;
}
