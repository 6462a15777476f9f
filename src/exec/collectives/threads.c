/* The thread transport: devices are threads of this process and meet under
 * one mutex.  A collective waits only for the devices of its group (the
 * entry's ids), so disjoint groups and devices running other programs go
 * on; send/recv pair by channel.  Nothing hangs: a device that fails stops
 * every device, one that ends its program stops the devices waiting for it
 * in a group, and when every device still running waits (a recv nobody
 * sends to, groups that wait on each other) all of them stop at once.  A
 * timed wait bounds the rest. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "transport.h"

typedef enum { RECV_NONE, RECV_WAITING, RECV_CLAIMED, RECV_FILLED, RECV_BAD } recv_state;
typedef enum { WAIT_NONE, WAIT_GROUP, WAIT_SEND, WAIT_RECV } wait_kind; /* what a sleeping device waits for */

typedef struct {
  const coll_entry *e; /* posted for a collective, or NULL */
  bool matched;        /* every device of e's group has posted */
  uint32_t readers;    /* devices still reading e's buffers */
  bool left;
  wait_kind wait;
  int64_t send_chan; /* with WAIT_SEND */
  /* a recv in progress */
  recv_state rs;
  int64_t chan;
  uint64_t ticket; /* arrival order among receivers */
  shl_buf *const *dst;
  uint32_t n_dst, from;
} dev_slot;

typedef struct {
  coll_world base;
  uint32_t n;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  dev_slot *slots;
  const coll_entry **entries; /* by device: the posted entries, for *all */
  int64_t failed;             /* first device that failed, or -1 */
  bool stuck;                 /* every device still running waits */
  uint64_t tickets;
  unsigned timeout_s;
} threads_world;

static uint32_t group_size(const threads_world *tw, const coll_entry *e) { return e->n_ids ? e->n_ids : tw->n; }
static uint32_t group_at(const coll_entry *e, uint32_t j) { return e->n_ids ? e->ids[j] : j; }

static bool same_group(const threads_world *tw, const coll_entry *a, const coll_entry *b) {
  uint32_t n = group_size(tw, a);
  if (n != group_size(tw, b)) return false;
  for (uint32_t j = 0; j < n; j++)
    if (group_at(a, j) != group_at(b, j)) return false;
  return true;
}

static shl_status device_error(const threads_world *tw, const shl_op *op, uint32_t d, const char *what) {
  uint32_t np = tw->base.n_part;
  return op_error(op, SHLOC_ERR_RUNTIME, what, d, d / np, d % np);
}

/* The receiver waiting longest on `chan`, or -1 (lock held). */
static int64_t receiver_of(const threads_world *tw, int64_t chan) {
  int64_t best = -1;
  for (uint32_t d = 0; d < tw->n; d++) {
    const dev_slot *s = &tw->slots[d];
    if (s->rs == RECV_WAITING && s->chan == chan && (best < 0 || s->ticket < tw->slots[best].ticket)) best = d;
  }
  return best;
}

/* Whether every device still running waits for something no device will
 * do (lock held): then none can go on. */
static bool all_stuck(const threads_world *tw) {
  for (uint32_t d = 0; d < tw->n; d++) {
    const dev_slot *s = &tw->slots[d];
    if (s->left) continue;
    switch (s->wait) {
      case WAIT_NONE:
        return false;
      case WAIT_GROUP:
        if (s->matched) return false;
        break;
      case WAIT_SEND:
        if (receiver_of(tw, s->send_chan) >= 0) return false;
        break;
      case WAIT_RECV:
        if (s->rs != RECV_WAITING) return false;
        break;
    }
  }
  return true;
}

/* One wait of device `dev` (lock held) that cannot go on yet: an error when
 * it must stop (a device failed; a device of `grp` ended its program; every
 * device still running waits), NULL to check its condition again. */
static shl_status wait_step(threads_world *tw, const shl_op *op, uint32_t dev, const coll_entry *grp, wait_kind why,
                            const struct timespec *dl) {
  if (tw->failed >= 0)
    return device_error(tw, op, (uint32_t)tw->failed, "stopped: device #%u (replica %u, partition %u) failed");
  for (uint32_t j = 0; grp && j < group_size(tw, grp); j++)
    if (tw->slots[group_at(grp, j)].left)
      return device_error(tw, op, group_at(grp, j),
                          "device #%u (replica %u, partition %u) ended its program without reaching this collective");
  tw->slots[dev].wait = why;
  if (why != WAIT_NONE && !tw->stuck && all_stuck(tw)) {
    tw->stuck = true;
    pthread_cond_broadcast(&tw->cv);
  }
  if (why != WAIT_NONE && tw->stuck) {
    tw->slots[dev].wait = WAIT_NONE;
    return op_error(op, SHLOC_ERR_RUNTIME,
                    "stopped: every device still running waits for another (a send or recv without its partner, "
                    "or collectives over groups that wait on each other)");
  }
  int rc = pthread_cond_timedwait(&tw->cv, &tw->mu, dl);
  tw->slots[dev].wait = WAIT_NONE;
  if (rc == ETIMEDOUT)
    return op_error(op, SHLOC_ERR_RUNTIME, "timed out after %u s waiting for the other devices", tw->timeout_s);
  return NULL;
}

static struct timespec deadline(const threads_world *tw) {
  struct timespec dl;
  clock_gettime(CLOCK_REALTIME, &dl);
  dl.tv_sec += tw->timeout_s;
  return dl;
}

/* Marks e's group matched when all its devices have posted it (lock held). */
static void try_match(threads_world *tw, const coll_entry *e) {
  uint32_t n = group_size(tw, e);
  for (uint32_t j = 0; j < n; j++) {
    const dev_slot *s = &tw->slots[group_at(e, j)];
    if (!s->e || s->matched || !same_group(tw, s->e, e)) return;
  }
  for (uint32_t j = 0; j < n; j++) {
    dev_slot *s = &tw->slots[group_at(e, j)];
    s->matched = true;
    s->readers = n;
  }
  pthread_cond_broadcast(&tw->cv);
}

static shl_status threads_release(coll_world *w, uint32_t dev, const shl_op *op);

static shl_status threads_exchange(coll_world *w, uint32_t dev, const shl_op *op, const coll_entry *mine,
                                   const coll_entry *const **all) {
  threads_world *tw = (threads_world *)w;
  dev_slot *me = &tw->slots[dev];
  struct timespec dl = deadline(tw);
  shl_status st = NULL;
  pthread_mutex_lock(&tw->mu);
  me->e = mine;
  me->matched = false;
  tw->entries[dev] = mine;
  try_match(tw, mine);
  while (!st && !me->matched) st = wait_step(tw, op, dev, mine, WAIT_GROUP, &dl);
  if (st) me->e = NULL;
  pthread_mutex_unlock(&tw->mu);
  ST_TRY(st);
  /* Every device compares its group's entries with the first one's, so all report the same. */
  uint32_t d0 = group_at(mine, 0);
  const coll_entry *e0 = tw->entries[d0];
  for (uint32_t j = 1; j < group_size(tw, mine); j++) {
    uint32_t d = group_at(mine, j);
    const coll_entry *e = tw->entries[d];
    if (e->kind != e0->kind || e->n != e0->n) {
      /* The message first: once this device has released, the others may
       * return and their entries (on their stacks) are gone. */
      shl_status err = op_error(
          op, SHLOC_ERR_RUNTIME,
          "devices disagree on collective #%llu: device #%u runs '%s' with %u operands, device #%u runs '%s' "
          "with %u operands (its collective #%llu)",
          (unsigned long long)e0->seq, d0, shl_op_table[e0->kind].name, e0->n, d, shl_op_table[e->kind].name, e->n,
          (unsigned long long)e->seq);
      shl_status r = threads_release(w, dev, op); /* the others still read this entry */
      if (r) shloc_status_free(r);
      return err;
    }
  }
  *all = tw->entries;
  return NULL;
}

/* Releases dev's part of the rendezvous and waits until its group has read
 * its buffers.  The wait ignores faults: every device that matched calls
 * release, even after an error, so the buffers stay valid while read. */
static shl_status threads_release(coll_world *w, uint32_t dev, const shl_op *op) {
  threads_world *tw = (threads_world *)w;
  dev_slot *me = &tw->slots[dev];
  struct timespec dl = deadline(tw);
  shl_status st = NULL;
  pthread_mutex_lock(&tw->mu);
  const coll_entry *e = me->e;
  for (uint32_t j = 0; j < group_size(tw, e); j++)
    if (--tw->slots[group_at(e, j)].readers == 0) pthread_cond_broadcast(&tw->cv);
  while (!st && me->readers)
    if (pthread_cond_timedwait(&tw->cv, &tw->mu, &dl) == ETIMEDOUT && me->readers)
      st = op_error(op, SHLOC_ERR_RUNTIME, "timed out after %u s waiting for the other devices", tw->timeout_s);
  me->e = NULL;
  me->matched = false;
  pthread_mutex_unlock(&tw->mu);
  return st;
}

static bool fits(shl_buf *const *src, uint32_t n, const dev_slot *r) {
  if (n != r->n_dst) return false;
  for (uint32_t i = 0; i < n; i++)
    if (src[i]->nbytes != r->dst[i]->nbytes || src[i]->dtype != r->dst[i]->dtype) return false;
  return true;
}

static shl_status threads_send(coll_world *w, uint32_t dev, const shl_op *op, int64_t chan, shl_buf *const *bufs,
                               uint32_t n) {
  threads_world *tw = (threads_world *)w;
  struct timespec dl = deadline(tw);
  shl_status st = NULL;
  int64_t r = -1;
  pthread_mutex_lock(&tw->mu);
  tw->slots[dev].send_chan = chan;
  while (!st && (r = receiver_of(tw, chan)) < 0) st = wait_step(tw, op, dev, NULL, WAIT_SEND, &dl);
  if (st) {
    pthread_mutex_unlock(&tw->mu);
    return st;
  }
  dev_slot *rs = &tw->slots[r];
  rs->from = dev;
  if (!fits(bufs, n, rs)) {
    rs->rs = RECV_BAD;
    pthread_cond_broadcast(&tw->cv);
    pthread_mutex_unlock(&tw->mu);
    return op_error(op, SHLOC_ERR_RUNTIME, "sends on channel %lld values that device #%u's recv does not take",
                    (long long)chan, (uint32_t)r);
  }
  rs->rs = RECV_CLAIMED; /* the copy runs unlocked; no other sender picks this receiver */
  pthread_mutex_unlock(&tw->mu);
  for (uint32_t i = 0; i < n; i++)
    if (bufs[i]->nbytes && bufs[i]->data != rs->dst[i]->data) memcpy(rs->dst[i]->data, bufs[i]->data, bufs[i]->nbytes);
  pthread_mutex_lock(&tw->mu);
  rs->rs = RECV_FILLED;
  pthread_cond_broadcast(&tw->cv);
  pthread_mutex_unlock(&tw->mu);
  return NULL;
}

static shl_status threads_recv(coll_world *w, uint32_t dev, const shl_op *op, int64_t chan, shl_buf *const *bufs,
                               uint32_t n) {
  threads_world *tw = (threads_world *)w;
  dev_slot *me = &tw->slots[dev];
  struct timespec dl = deadline(tw);
  shl_status st = NULL;
  pthread_mutex_lock(&tw->mu);
  me->rs = RECV_WAITING;
  me->chan = chan;
  me->ticket = tw->tickets++;
  me->dst = bufs;
  me->n_dst = n;
  pthread_cond_broadcast(&tw->cv);
  while (!st && (me->rs == RECV_WAITING || me->rs == RECV_CLAIMED))
    st = wait_step(tw, op, dev, NULL, me->rs == RECV_WAITING ? WAIT_RECV : WAIT_NONE, &dl);
  if (!st && me->rs == RECV_BAD)
    st = op_error(op, SHLOC_ERR_RUNTIME, "device #%u sent on channel %lld values that do not match this op's results",
                  me->from, (long long)chan);
  me->rs = RECV_NONE;
  pthread_mutex_unlock(&tw->mu);
  return st;
}

static void threads_leave(coll_world *w, uint32_t dev, bool failed) {
  threads_world *tw = (threads_world *)w;
  pthread_mutex_lock(&tw->mu);
  if (failed && tw->failed < 0) tw->failed = dev;
  tw->slots[dev].left = true;
  if (!tw->stuck && all_stuck(tw)) tw->stuck = true;
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
  free(tw->slots);
  free(tw);
}

static const coll_transport threads_transport = {
    .exchange = threads_exchange,
    .release = threads_release,
    .leave = threads_leave,
    .failed_device = threads_failed,
    .free = threads_free,
    .send = threads_send,
    .recv = threads_recv,
};

coll_world *coll_threads_new(uint32_t n_rep, uint32_t n_part, unsigned timeout_s) {
  threads_world *tw = calloc(1, sizeof *tw);
  if (!tw) return NULL;
  tw->n = n_rep * n_part;
  tw->entries = calloc(tw->n + 1, sizeof *tw->entries);
  tw->slots = calloc(tw->n + 1, sizeof *tw->slots);
  if (!tw->entries || !tw->slots) {
    free(tw->entries);
    free(tw->slots);
    free(tw);
    return NULL;
  }
  pthread_mutex_init(&tw->mu, NULL);
  pthread_cond_init(&tw->cv, NULL);
  tw->base.t = &threads_transport;
  tw->base.n_rep = n_rep;
  tw->base.n_part = n_part;
  tw->failed = -1;
  tw->timeout_s = timeout_s;
  return &tw->base;
}
