/* The MPI transport: device d of a run is rank d of a communicator of the
 * first n_devices world ranks; MPI itself sits in libshloc_mpi.so
 * (mpi_abi.h), loaded on demand.
 *
 * Each collective starts with a signature exchange (op kind, operand count
 * and sizes) among the devices of its process group, so devices running
 * different collectives, or one whose program ended, are reported instead
 * of waiting on messages that never come.  Then point-to-point messages follow the
 * routes collectives.c computed (whose operands each device reads), so a
 * permute is one send/receive pair and a broadcast only leaves the root;
 * messages go directly between device ranks, which needs no communicator
 * per process group (creating one is itself a collective over the run).
 * all_reduce moves its own data (whole operands in one round for small
 * operands, else a pipelined reduce-scatter + all-gather) and folds
 * in group order, the same fold the thread transport computes, so results
 * are bit-identical to it and independent of MPI's own (unspecified)
 * reduction order.  send/recv and infeed: transport_mpi_p2p.c.
 *
 * Every wait polls the requests together with a standing receive of fault
 * notices: a device that fails sends one to every rank, which then stops
 * with an error naming it; a timeout bounds a peer stuck in a computation.
 * A rank killed outright is Open MPI's to handle (it ends the job). */
#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shloc/mpi.h"
#include "transport_mpi.h"

/* ---- waiting ---- */

shl_status mpi_fail(const shloc_mpi *m, const shl_op *op, int rc, const char *what) {
  char s[256];
  m->abi->error_string(rc, s, sizeof s);
  return op_error(op, SHLOC_ERR_RUNTIME, "MPI %s failed: %s", what, s);
}

shl_status mpi_peer_failed(const mpi_world *w, const shl_op *op) {
  int f = w->m->failed;
  uint32_t np = w->base.n_part;
  if (f >= 0 && (uint32_t)f < w->n)
    return op_error(op, SHLOC_ERR_RUNTIME, "stopped: rank %d (device #%d, replica %u, partition %u) failed: %s", f, f,
                    f / np, f % np, w->m->rx.msg);
  return op_error(op, SHLOC_ERR_RUNTIME, "stopped: rank %d failed: %s", f, w->m->rx.msg);
}

/* Whether a peer's fault notice arrived. */
bool mpi_notice_arrived(shloc_mpi *m) {
  if (!m->notice_rx || m->abi->test(m->notice_rx) != 1) return m->failed >= 0;
  m->notice_rx = NULL;
  m->rx.msg[sizeof m->rx.msg - 1] = 0;
  if (m->failed < 0) m->failed = m->rx.rank;
  return true;
}


/* Completes reqs[0..n) and, with `flag`, waits until it is set (by serve,
 * on the coordinator); stops when a peer fails or the timeout passes.  The
 * coordinator serves requests meanwhile.  Polls without pause for
 * WAIT_SPIN_NS, then yields the core at every poll (ranks often outnumber
 * cores).  Yielding at once (after a few hundred polls, as before) cost the
 * split all_reduce a time slice whenever a peer was still folding: on a
 * loaded machine 1 MiB on 2 ranks took 8-16 ms instead of 0.2-0.3 ms. */
shl_status mpi_wait_until(mpi_world *w, const shl_op *op, shloc_mpi_req **reqs, const int *peer, uint32_t n,
                          const bool *flag) {
  shloc_mpi *m = w->m;
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  bool yield = false;
  for (uint64_t spin = 0;; spin++) {
    if (w->coord) ST_TRY(mpi_serve(w, op));
    bool done = !flag || *flag;
    for (uint32_t i = 0; i < n; i++) {
      if (!reqs[i]) continue;
      int rc = m->abi->test(reqs[i]);
      if (rc < 0) return mpi_fail(m, op, -rc, "wait");
      if (rc == 1) reqs[i] = NULL;
      else done = false;
    }
    if (done) return NULL;
    shl_status st = NULL;
    if (mpi_notice_arrived(m)) st = mpi_peer_failed(w, op);
    else if (spin % 16 == 15) {
      clock_gettime(CLOCK_MONOTONIC, &t);
      int64_t ns = (int64_t)(t.tv_sec - t0.tv_sec) * 1000000000 + (t.tv_nsec - t0.tv_nsec);
      bool late = ns >= (int64_t)m->timeout_s * 1000000000;
      yield = ns >= WAIT_SPIN_NS;
      for (uint32_t i = 0; late && !st && i < n; i++)
        if (reqs[i])
          st = op_error(op, SHLOC_ERR_RUNTIME, "timed out after %u s waiting for rank %d (device #%d)", m->timeout_s,
                        peer[i], peer[i]);
      if (!st && flag && late)
        st = op_error(op, SHLOC_ERR_RUNTIME, "timed out after %u s waiting for a partner", m->timeout_s);
    }
    if (st) { /* no message may land in buffers the caller frees */
      for (uint32_t i = 0; i < n; i++)
        if (reqs[i]) m->abi->cancel(reqs[i]);
      return st;
    }
    if (yield) sched_yield();
  }
}

shl_status mpi_wait_all(mpi_world *w, const shl_op *op, shloc_mpi_req **reqs, const int *peer, uint32_t n) {
  return mpi_wait_until(w, op, reqs, peer, n, NULL);
}

/* ---- signatures ---- */

static uint64_t sizes_hash(const coll_entry *e) {
  uint64_t h = 1469598103934665603ull;
  for (uint32_t k = 0; k < e->n; k++) h = (h ^ e->bufs[k]->nbytes) * 1099511628211ull;
  return h;
}

static const char *kind_name(uint32_t kind) {
  return kind == END_KIND ? "the end of its program" : kind < OP_COUNT ? shl_op_table[kind].name : "?";
}

/* The devices this one meets in a collective: its process group and
 * whoever it exchanges operands with (me NULL: the end of its program,
 * where it meets every device of the run).  Ascending ids, self excluded. */
static uint32_t meeting(const mpi_world *w, const coll_entry *me, bool *mark, uint32_t *ids) {
  memset(mark, 0, w->n * sizeof *mark);
  if (!me || !me->n_ids)
    for (uint32_t d = 0; d < w->n; d++) mark[d] = true;
  for (uint32_t i = 0; me && i < me->n_ids + me->n_from + me->n_to; i++) {
    uint32_t d = i < me->n_ids ? me->ids[i]
                 : i < me->n_ids + me->n_from ? me->from[i - me->n_ids]
                                              : me->to[i - me->n_ids - me->n_from];
    if (d < w->n) mark[d] = true;
  }
  mark[w->dev] = false;
  uint32_t n = 0;
  for (uint32_t d = 0; d < w->n; d++)
    if (mark[d]) ids[n++] = d;
  return n;
}

/* A signature exchange in flight. */
typedef struct {
  shloc_mpi_req **reqs;
  int *peer;
  uint32_t q;
} sig_round;

/* Starts the exchange (sig_check completes it; in between, a collective
 * may post its data messages, saving a round trip). */
static shl_status sig_post(mpi_world *w, const shl_op *op, const coll_entry *me, sig_round *r) {
  shloc_mpi *m = w->m;
  *r = (sig_round){NULL, NULL, 0};
  if (m->failed >= 0) return mpi_peer_failed(w, op);
  sig mine = {me ? (uint32_t)me->kind : END_KIND, me ? me->n : 0, me ? me->seq : 0, me ? sizes_hash(me) : 0};
  m->sigs[m->size] = mine;
  m->sigs[w->dev] = mine;
  bool *mark = malloc(w->n * sizeof *mark + 1);
  uint32_t *ids = w->meet;
  r->reqs = calloc(2 * (size_t)w->n + 1, sizeof *r->reqs);
  r->peer = malloc((2 * (size_t)w->n + 1) * sizeof *r->peer);
  shl_status st = mark && r->reqs && r->peer ? NULL : st_oom();
  uint32_t n = w->n_meet = st ? 0 : meeting(w, me, mark, ids);
  free(mark);
  /* Point to point rather than an all-gather: a timeout can name the device missing. */
  for (uint32_t i = 0; !st && i < n; i++) {
    int d = (int)ids[i];
    r->peer[r->q] = d;
    int rc = m->abi->irecv(m->run_comm, &m->sigs[d], sizeof mine, d, SIG_TAG, &r->reqs[r->q++]);
    r->peer[r->q] = d;
    if (!rc) rc = m->abi->isend(m->run_comm, &m->sigs[m->size], sizeof mine, d, SIG_TAG, &r->reqs[r->q++]);
    if (rc) st = mpi_fail(m, op, rc, "signature exchange");
  }
  if (st) {
    for (uint32_t i = 0; i < r->q; i++)
      if (r->reqs[i]) m->abi->cancel(r->reqs[i]);
    free(r->reqs);
    free(r->peer);
    *r = (sig_round){NULL, NULL, 0};
  }
  return st;
}

/* Completes the exchange and compares the signatures. */
static shl_status sig_check(mpi_world *w, const shl_op *op, const coll_entry *me, sig_round *r) {
  shloc_mpi *m = w->m;
  const sig mine = m->sigs[m->size];
  uint32_t *ids = w->meet, n = w->n_meet;
  shl_status st = mpi_wait_all(w, op, r->reqs, r->peer, r->q);
  /* Compared with the lowest device that takes part, so all report alike. */
  uint32_t ref = n && ids[0] < w->dev ? ids[0] : w->dev, np = w->base.n_part;
  const sig *s0 = &m->sigs[ref];
  for (uint32_t i = 0; !st && i <= n; i++) {
    uint32_t d = i < n ? ids[i] : w->dev;
    const sig *s = &m->sigs[d];
    if (s->kind == s0->kind && s->n == s0->n) continue;
    if (s0->kind == END_KIND || s->kind == END_KIND) {
      uint32_t ended = s0->kind == END_KIND ? ref : d, other = ended == d ? ref : d;
      st = op_error(op, SHLOC_ERR_RUNTIME,
                    "device #%u (replica %u, partition %u) ended its program without reaching this collective "
                    "('%s', collective #%llu on device #%u)",
                    ended, ended / np, ended % np, kind_name(m->sigs[other].kind),
                    (unsigned long long)m->sigs[other].seq, other);
    } else {
      st = op_error(op, SHLOC_ERR_RUNTIME,
                    "devices disagree on collective #%llu: device #%u runs '%s' with %u operands, device #%u runs '%s' "
                    "with %u operands (its collective #%llu)",
                    (unsigned long long)s0->seq, ref, kind_name(s0->kind), s0->n, d, kind_name(s->kind), s->n,
                    (unsigned long long)s->seq);
    }
  }
  for (uint32_t i = 0; !st && me && i < me->n_from + me->n_to; i++) {
    uint32_t d = i < me->n_from ? me->from[i] : me->to[i - me->n_from];
    if (m->sigs[d].sizes != mine.sizes)
      st = op_error(op, SHLOC_ERR_RUNTIME, "devices #%u and #%u pass operands of different sizes", w->dev, d);
  }
  free(r->reqs);
  free(r->peer);
  return st;
}

/* sig_check after data messages were posted: st is the posting's status
 * (which wins). */
static shl_status sig_finish(mpi_world *w, const shl_op *op, const coll_entry *me, sig_round *sr, shl_status st) {
  shl_status s2 = sig_check(w, op, me, sr);
  if (!st) return s2;
  if (s2) shloc_status_free(s2);
  return st;
}

/* Exchanges this device's signature with the devices it meets (as the
 * reference keys a rendezvous by process group, so disjoint groups may run
 * different collectives) and checks that they run the same collective with
 * operands of the same sizes.  A device that ended its program meets every
 * device, so one still waiting for it learns that it ended. */
static shl_status check_sig(mpi_world *w, const shl_op *op, const coll_entry *me) {
  sig_round r;
  ST_TRY(sig_post(w, op, me, &r));
  return sig_check(w, op, me, &r);
}

/* ---- the transport ---- */

static void scratch_free(mpi_world *w) {
  free(w->scratch);
  free(w->bufs);
  free(w->bufp);
  w->scratch = NULL;
  w->bufs = NULL;
  w->bufp = NULL;
}

static shl_status mpi_exchange(coll_world *cw, uint32_t dev, const shl_op *op, const coll_entry *me,
                               const coll_entry *const **all) {
  mpi_world *w = (mpi_world *)cw;
  shloc_mpi *m = w->m;
  ST_TRY(check_sig(w, op, me));
  coll_entry routed = *me;
  if (!me->from && !me->to) { /* not routed: every device that meets reads every other's operands */
    routed.from = routed.to = w->meet;
    routed.n_from = routed.n_to = w->n_meet;
    me = &routed;
  }
  size_t per = 0; /* bytes of this device's operands, the size of each peer's */
  for (uint32_t k = 0; k < me->n; k++) per += me->bufs[k]->nbytes;
  uint32_t nf = me->n_from, nt = me->n_to, nr = (nf + nt) * me->n;
  w->scratch = malloc(per * nf + 1);
  w->bufs = malloc(((size_t)nf * me->n + 1) * sizeof *w->bufs);
  w->bufp = malloc(((size_t)nf * me->n + 1) * sizeof *w->bufp);
  shloc_mpi_req **reqs = calloc(nr + 1, sizeof *reqs);
  int *peer = malloc((nr + 1) * sizeof *peer);
  if (!w->scratch || !w->bufs || !w->bufp || !reqs || !peer) {
    free(reqs);
    free(peer);
    scratch_free(w);
    return st_oom_size("collective receive buffers", per * nf);
  }
  shl_status st = NULL;
  uint32_t q = 0;
  size_t off = 0;
  for (uint32_t i = 0; !st && i < nf; i++) {
    w->got[i] = (coll_entry){.kind = me->kind, .seq = me->seq, .n = me->n, .bufs = w->bufp + (size_t)i * me->n};
    for (uint32_t k = 0; !st && k < me->n; k++) {
      shl_buf *b = &w->bufs[(size_t)i * me->n + k];
      *b = *me->bufs[k];
      b->data = (uint8_t *)w->scratch + off;
      off += b->nbytes;
      w->bufp[(size_t)i * me->n + k] = b;
      peer[q] = (int)me->from[i];
      int rc = m->abi->irecv(m->run_comm, b->data, b->nbytes, peer[q], DATA_TAG(k), &reqs[q]);
      if (rc) st = mpi_fail(m, op, rc, "receive");
      q++;
    }
  }
  for (uint32_t i = 0; !st && i < nt; i++)
    for (uint32_t k = 0; !st && k < me->n; k++) {
      peer[q] = (int)me->to[i];
      int rc = m->abi->isend(m->run_comm, me->bufs[k]->data, me->bufs[k]->nbytes, peer[q], DATA_TAG(k), &reqs[q]);
      if (rc) st = mpi_fail(m, op, rc, "send");
      q++;
    }
  if (!st) st = mpi_wait_all(w, op, reqs, peer, q);
  free(reqs);
  free(peer);
  if (st) return st;
  for (uint32_t d = 0; d < w->n; d++) w->all[d] = NULL;
  w->all[dev] = me;
  for (uint32_t i = 0; i < nf; i++) w->all[me->from[i]] = &w->got[i];
  *all = w->all;
  return NULL;
}

/* Operands were copied in exchange: nothing to wait for. */
static shl_status mpi_release(coll_world *cw, uint32_t dev, const shl_op *op) {
  (void)dev;
  (void)op;
  scratch_free((mpi_world *)cw);
  return NULL;
}

/* A failed device tells every rank (small messages: they go out at once). */
static void mpi_leave(coll_world *cw, uint32_t dev, bool failed) {
  mpi_world *w = (mpi_world *)cw;
  shloc_mpi *m = w->m;
  scratch_free(w);
  if (!failed) {
    mpi_tell_done(w);
    return;
  }
  /* A device that stopped because another failed stays quiet: that one told everybody. */
  if (m->failed >= 0) return;
  m->failed = m->rank;
  m->tx.rank = m->rank;
  snprintf(m->tx.msg, sizeof m->tx.msg, "its program stopped with an error (reported by rank %d)", m->rank);
  m->notice_tx = calloc((size_t)m->size + 1, sizeof *m->notice_tx);
  for (int r = 0; m->notice_tx && r < m->size; r++)
    if (r != m->rank) m->abi->isend(m->notice_comm, &m->tx, sizeof m->tx, r, NOTICE_TAG, &m->notice_tx[r]);
  (void)dev;
}

static int64_t mpi_failed_device(coll_world *cw) {
  mpi_world *w = (mpi_world *)cw;
  return w->m->failed >= 0 && (uint32_t)w->m->failed < w->n ? w->m->failed : -1;
}

static void mpi_free(coll_world *cw) {
  mpi_world *w = (mpi_world *)cw;
  if (!w) return;
  scratch_free(w);
  mpi_coord_free(w);
  free(w->reduce_buf);
  free(w->all);
  free(w->got);
  free(w->meet);
  free(w);
}

/* Chunk j of a span of n elements split among g devices. */
static int64_t chunk_start(int64_t n, uint32_t g, uint32_t j) { return (int64_t)((__int128)n * j / g); }

static void cancel_all(shloc_mpi *m, shloc_mpi_req **reqs, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (reqs[i]) m->abi->cancel(reqs[i]);
}

/* Whole operands in one round: every member sends its operand to every
 * other and folds all of them ((g-1) times the operand out and in), for
 * small operands, where latency counts more than bytes.  Member j's
 * operand arrives in its own slot (member 0's directly in out) and is
 * folded as soon as it and all before it are in, left to right in group
 * order.  With `sr` (the first step), the signature exchange completes
 * after the data messages are posted: one round trip instead of two. */
static shl_status reduce_direct(mpi_world *w, const shl_op *op, const coll_entry *me, shl_dtype dt, const uint8_t *in,
                                uint8_t *out, int64_t len, const coll_fold *fold, shloc_mpi_req **reqs, int *peer,
                                sig_round *sr) {
  shloc_mpi *m = w->m;
  uint32_t g = me->n_ids, pos = me->pos;
  size_t bytes = (size_t)len * dtype_bytes(dt);
  uint8_t *scratch = w->reduce_buf;
  /* reqs[j]: the receive from member j; reqs[g + j]: the send to it. */
  for (uint32_t j = 0; j < 2 * g; j++) reqs[j] = NULL;
  shl_status st = NULL;
  for (uint32_t j = 0; !st && j < g; j++) {
    if (j == pos) continue;
    void *slot = j == 0 ? (void *)out : scratch + (size_t)(j - 1) * bytes;
    peer[j] = peer[g + j] = (int)me->ids[j];
    int rc = m->abi->irecv(m->run_comm, slot, bytes, (int)me->ids[j], 0, &reqs[j]);
    if (!rc) rc = m->abi->isend(m->run_comm, in, bytes, (int)me->ids[j], 0, &reqs[g + j]);
    if (rc) st = mpi_fail(m, op, rc, "all_reduce exchange");
  }
  if (sr) st = sig_finish(w, op, me, sr, st);
  if (st) {
    cancel_all(m, reqs, 2 * g);
    return st;
  }
  if (pos == 0 && bytes) memcpy(out, in, bytes);
  for (uint32_t j = 0; j < g; j++) {
    if (j != pos) ST_TRY(mpi_wait_all(w, op, &reqs[j], &peer[j], 1));
    if (j == 0) continue;
    st = fold->fn(fold->ctx, dt, out, j == pos ? in : scratch + (size_t)(j - 1) * bytes, len);
    if (st) {
      cancel_all(m, reqs, 2 * g);
      return st;
    }
  }
  return mpi_wait_all(w, op, reqs + g, peer + g, g);
}

/* Pieces of `pe` elements in a chunk of cn. */
static int64_t n_pieces(int64_t cn, int64_t pe) { return (cn + pe - 1) / pe; }

/* Reduce-scatter + all-gather, as MPI's large-message algorithms move
 * bytes: the span is cut into one chunk per member, member j receives
 * chunk j of every other member, folds the g contributions left to right
 * in group order into out (the thread transport's fold, so the same bits),
 * and sends the folded chunk to every other member ((g-1)/g of the operand
 * out and in, twice; each member folds 1/g of it).  Chunks go in pieces of
 * `pe` elements, every message posted up front except the all-gather's
 * sends, which leave as soon as their piece is folded: a piece is folded
 * while later ones arrive (and while it is in cache), and peers fetch the
 * folded pieces while the next ones are folded.  Member 0's piece arrives
 * directly in out (only member 0 copies its own).  reqs / peer hold
 * 4 * g * pieces-per-chunk entries. */
static shl_status reduce_split(mpi_world *w, const shl_op *op, const coll_entry *me, shl_dtype dt, const uint8_t *in,
                               uint8_t *out, int64_t len, int64_t pe, const coll_fold *fold, shloc_mpi_req **reqs,
                               int *peer, sig_round *sr) {
  shloc_mpi *m = w->m;
  uint32_t g = me->n_ids, pos = me->pos;
  size_t es = dtype_bytes(dt);
  int64_t c0 = chunk_start(len, g, pos), cn = chunk_start(len, g, pos + 1) - c0, stride = len / g + 1;
  uint32_t np = (uint32_t)n_pieces(stride, pe), mp = (uint32_t)n_pieces(cn, pe);
  /* rx[j * np + p]: piece p of this member's chunk from member j; rest: every other message. */
  shloc_mpi_req **rx = reqs, **rest = reqs + (size_t)g * np;
  int *rx_peer = peer, *rest_peer = peer + (size_t)g * np;
  uint32_t nr = 0;
  for (size_t i = 0; i < 4 * (size_t)g * np; i++) reqs[i] = NULL;
  uint8_t *scratch = w->reduce_buf, *dst = out + c0 * es;
  const uint8_t *mine = in + c0 * es;
  shl_status st = NULL;
  for (uint32_t j = 0; !st && j < g; j++) {
    if (j == pos) continue;
    int r = (int)me->ids[j], rc = 0;
    int64_t s = chunk_start(len, g, j), sn = chunk_start(len, g, j + 1) - s;
    uint8_t *slot = j == 0 ? dst : scratch + (size_t)(j - 1) * stride * es;
    for (int64_t o = 0; !rc && o < cn; o += pe) {
      size_t b = (size_t)(cn - o < pe ? cn - o : pe) * es;
      rx_peer[j * np + o / pe] = r;
      rc = m->abi->irecv(m->run_comm, slot + o * es, b, r, 0, &rx[j * np + o / pe]);
    }
    for (int64_t o = 0; !rc && o < sn; o += pe) { /* its folded chunk, then my contribution to it */
      size_t b = (size_t)(sn - o < pe ? sn - o : pe) * es;
      rest_peer[nr] = r;
      rc = m->abi->irecv(m->run_comm, out + (s + o) * es, b, r, 1, &rest[nr++]);
    }
    for (int64_t o = 0; !rc && o < sn; o += pe) {
      size_t b = (size_t)(sn - o < pe ? sn - o : pe) * es;
      rest_peer[nr] = r;
      rc = m->abi->isend(m->run_comm, in + (s + o) * es, b, r, 0, &rest[nr++]);
    }
    if (rc) st = mpi_fail(m, op, rc, "all_reduce exchange");
  }
  if (sr) st = sig_finish(w, op, me, sr, st);
  for (uint32_t p = 0; !st && p < mp; p++) {
    int64_t o = (int64_t)p * pe, n = cn - o < pe ? cn - o : pe;
    uint8_t *d = dst + o * es;
    for (uint32_t j = 0; !st && j < g; j++) {
      if (j != pos) st = mpi_wait_all(w, op, &rx[j * np + p], &rx_peer[j * np + p], 1);
      if (!st && j == 0 && pos == 0) memcpy(d, mine + o * es, (size_t)n * es);
      if (st || j == 0) continue;
      st = fold->fn(fold->ctx, dt, d, j == pos ? mine + o * es : scratch + ((size_t)(j - 1) * stride + o) * es, n);
    }
    for (uint32_t j = 0; !st && j < g; j++) {
      if (j == pos) continue;
      rest_peer[nr] = (int)me->ids[j];
      int rc = m->abi->isend(m->run_comm, d, (size_t)n * es, (int)me->ids[j], 1, &rest[nr++]);
      if (rc) st = mpi_fail(m, op, rc, "all_reduce exchange");
    }
  }
  if (!st) return mpi_wait_all(w, op, rest, rest_peer, nr);
  cancel_all(m, reqs, (uint32_t)(4 * (size_t)g * np));
  return st;
}
static shl_status mpi_all_reduce(coll_world *cw, uint32_t dev, const shl_op *op, const coll_entry *me, shl_buf *const *out,
                                 const coll_fold *fold) {
  mpi_world *w = (mpi_world *)cw;
  (void)dev;
  sig_round sr;
  ST_TRY(sig_post(w, op, me, &sr));
  uint32_t g = me->n_ids;
  shloc_mpi_req **reqs = NULL;
  int *peer = NULL;
  shl_status st = NULL;
  for (uint32_t k = 0; !st && k < me->n; k++) {
    const shl_buf *in = me->bufs[k];
    size_t es = dtype_bytes(in->dtype);
    if (out[k]->nbytes != in->nbytes) {
      st = op_error(op, SHLOC_ERR_RUNTIME, "result #%u has a different size than its operand", k);
      break;
    }
    /* Small operands are latency-bound: one round of whole operands. */
    bool direct = (size_t)in->n * es * (g - 1) <= DIRECT_REDUCE_BYTES;
    /* Elements per step: each device sends at most reduce_step bytes. */
    int64_t per = (int64_t)(w->m->reduce_step / (es ? es : 1));
    int64_t step = direct ? per / (g > 1 ? g - 1 : 1) + 1 : (per + 1) * g;
    int64_t span = in->n < step ? in->n : step;
    /* Pieces of REDUCE_PIECE_BYTES (a quarter of a small step, so tests
     * cover several), at most MAX_PIECES per chunk: the same on every
     * member, which all know span and g. */
    size_t pb = w->m->reduce_step / 4 < REDUCE_PIECE_BYTES ? w->m->reduce_step / 4 : REDUCE_PIECE_BYTES;
    int64_t pe = (int64_t)(pb / (es ? es : 1)), most = n_pieces(span / g + 1, MAX_PIECES);
    if (pe < most) pe = most;
    if (pe < 1) pe = 1;
    size_t need = direct ? (size_t)span * es * (g - 1) + 1 : (size_t)(span / g + 1) * es * g;
    size_t nq = direct ? 2 * (size_t)g : 4 * (size_t)g * (size_t)n_pieces(span / g + 1, pe);
    if (need > w->reduce_cap) {
      free(w->reduce_buf);
      w->reduce_cap = 0;
      if (!(w->reduce_buf = malloc(need))) {
        st = st_oom_size("all_reduce buffers", need);
        break;
      }
      w->reduce_cap = need;
    }
    free(reqs);
    free(peer);
    reqs = calloc(nq + 1, sizeof *reqs);
    peer = calloc(nq + 1, sizeof *peer);
    if (!reqs || !peer) {
      st = st_oom();
      break;
    }
    for (int64_t off = 0; !st && off < in->n; off += step) {
      int64_t len = in->n - off < step ? in->n - off : step;
      const uint8_t *src = (const uint8_t *)in->data + off * es;
      uint8_t *dst = (uint8_t *)out[k]->data + off * es;
      sig_round *first = sr.reqs ? &sr : NULL;
      st = direct ? reduce_direct(w, op, me, in->dtype, src, dst, len, fold, reqs, peer, first)
                  : reduce_split(w, op, me, in->dtype, src, dst, len, pe, fold, reqs, peer, first);
      sr.reqs = NULL; /* completed (and freed) by the first step */
    }
  }
  /* No step ran (no operands, or none with elements): the signatures still meet. */
  if (sr.reqs) st = sig_finish(w, op, me, &sr, st);
  free(reqs);
  free(peer);
  return st;
}

static const coll_transport mpi_transport = {.exchange = mpi_exchange,
                                             .release = mpi_release,
                                             .leave = mpi_leave,
                                             .failed_device = mpi_failed_device,
                                             .free = mpi_free,
                                             .send = mpi_send,
                                             .recv = mpi_recv};

/* ---- a grid on the world ---- */

shl_status coll_mpi_world_new(shloc_mpi *m, uint32_t n_rep, uint32_t n_part, const shl_op *op, coll_world **out,
                              uint32_t *dev) {
  *out = NULL;
  uint64_t n = (uint64_t)n_rep * n_part;
  if (n > (uint64_t)m->size)
    return op_error(op, SHLOC_ERR_RUNTIME, "needs %llu devices (%u replicas x %u partitions), mpirun started %d ranks",
                    (unsigned long long)n, n_rep, n_part, m->size);
  if (m->failed >= 0)
    return op_error(op, SHLOC_ERR_RUNTIME, "cannot start: rank %d failed in an earlier run", m->failed);
  if (m->run_n != n) { /* every rank reaches the same grids in the same order: a collective split is safe */
    m->abi->comm_free(m->run_comm);
    m->run_comm = NULL;
    m->run_n = 0;
    int rc = m->abi->split((uint64_t)m->rank < n ? 0 : -1, m->rank, &m->run_comm);
    if (rc) return mpi_fail(m, op, rc, "communicator split");
    m->run_n = (uint32_t)n;
  }
  uint32_t epoch = m->epoch++;
  if ((uint64_t)m->rank >= n) return NULL; /* idle */
  mpi_world *w = calloc(1, sizeof *w);
  if (!w) return st_oom();
  w->base.t = &mpi_transport;
  w->base.all_reduce = mpi_all_reduce;
  w->base.n_rep = n_rep;
  w->base.n_part = n_part;
  w->m = m;
  w->n = (uint32_t)n;
  w->dev = (uint32_t)m->rank;
  w->all = calloc(n, sizeof *w->all);
  w->got = calloc(n, sizeof *w->got);
  w->meet = calloc(n, sizeof *w->meet);
  w->base.feed_pop = mpi_feed_pop;
  w->op = op;
  w->req_tag = P2P_REQ_TAG(epoch);
  bool ok = w->all && w->got && w->meet;
  shl_status st = ok ? (w->dev == 0 ? mpi_coord_new(w) : NULL) : st_oom();
  if (st) {
    mpi_free(&w->base);
    return st;
  }
  *dev = w->dev;
  *out = &w->base;
  return NULL;
}

shl_status coll_mpi_finish(shloc_mpi *m, coll_world *cw, const shl_op *op, shl_status own, uint32_t n_dev,
                           const uint32_t *res_off, shl_buf *const *res) {
  mpi_world *w = (mpi_world *)cw, idle = {.m = m, .n = n_dev};
  if (own) return own; /* leave already told the others */
  shl_status st = NULL;
  if (w) {
    st = check_sig(w, op, NULL); /* every device ended its program */
    /* The coordinator serves until every device has told it so (their
     * requests must not reach the next run's coordinator). */
    if (!st && w->coord) st = mpi_wait_until(w, op, NULL, NULL, 0, &w->coord->all_ended);
    if (st) {
      mpi_leave(cw, w->dev, true);
      return st;
    }
  } else {
    idle.base.n_part = 1;
    w = &idle;
  }
  /* Every rank gets every device's results (so checks run on all ranks). */
  size_t cap = (size_t)res_off[n_dev] * (size_t)m->size + 1;
  shloc_mpi_req **reqs = calloc(cap, sizeof *reqs);
  int *peer = malloc(cap * sizeof *peer);
  if (!reqs || !peer) st = st_oom();
  uint32_t q = 0;
  for (uint32_t d = 0; !st && d < n_dev; d++)
    for (uint32_t i = res_off[d]; !st && i < res_off[d + 1]; i++) {
      int rc = 0;
      if ((int)d == m->rank) {
        for (int r = 0; !rc && r < m->size; r++)
          if (r != m->rank) {
            peer[q] = r;
            rc = m->abi->isend(m->notice_comm, res[i]->data, res[i]->nbytes, r, RESULT_TAG(i), &reqs[q++]);
          }
      } else {
        peer[q] = (int)d;
        rc = m->abi->irecv(m->notice_comm, res[i]->data, res[i]->nbytes, (int)d, RESULT_TAG(i), &reqs[q++]);
      }
      if (rc) st = mpi_fail(m, op, rc, "result exchange");
    }
  if (!st) st = mpi_wait_all(w, op, reqs, peer, q);
  free(reqs);
  free(peer);
  return st;
}

/* Outside any collective of the program (inputs and outputs of an SPMD
 * run): every device calls it at the same point, so no signature. */
shl_status coll_mpi_gather(coll_world *cw, const shl_op *op, const void *mine, const size_t *n, uint32_t root,
                           void *all) {
  mpi_world *w = (mpi_world *)cw;
  shloc_mpi *m = w->m;
  if (m->failed >= 0) return mpi_peer_failed(w, op);
  bool get = root == COLL_ALL || root == w->dev;
  shloc_mpi_req **reqs = calloc(2 * (size_t)w->n + 1, sizeof *reqs);
  int *peer = malloc((2 * (size_t)w->n + 1) * sizeof *peer);
  shl_status st = reqs && peer ? NULL : st_oom();
  uint32_t q = 0;
  size_t off = 0;
  for (uint32_t d = 0; !st && d < w->n; off += n[d], d++) {
    if (d == w->dev) {
      if (get && n[d]) memcpy((uint8_t *)all + off, mine, n[d]);
      continue;
    }
    int rc = 0;
    if (get) {
      peer[q] = (int)d;
      rc = m->abi->irecv(m->run_comm, (uint8_t *)all + off, n[d], (int)d, GATHER_TAG, &reqs[q++]);
    }
    if (!rc && (root == COLL_ALL || root == d)) {
      peer[q] = (int)d;
      rc = m->abi->isend(m->run_comm, mine, n[w->dev], (int)d, GATHER_TAG, &reqs[q++]);
    }
    if (rc) st = mpi_fail(m, op, rc, "gather");
  }
  if (!st) st = mpi_wait_all(w, op, reqs, peer, q);
  free(reqs);
  free(peer);
  return st;
}

/* ---- the handle ---- */

static void *load_plugin(void) {
  const char *env = getenv("SHLOC_MPI_PLUGIN");
  if (env && *env) return dlopen(env, RTLD_NOW | RTLD_GLOBAL);
  Dl_info info;
  char path[4096];
  /* Open MPI loads its own components, which resolve libmpi's symbols
   * globally: RTLD_GLOBAL. */
  if (dladdr((void *)shloc_mpi_open, &info) && info.dli_fname) {
    const char *slash = strrchr(info.dli_fname, '/');
    int dir = slash ? (int)(slash - info.dli_fname) : 0;
    const char *fmt[] = {"%.*s/libshloc_mpi.so", "%.*s/../lib/libshloc_mpi.so"};
    for (int i = 0; slash && i < 2; i++) {
      snprintf(path, sizeof path, fmt[i], dir, info.dli_fname);
      void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
      if (h) return h;
    }
  }
  return dlopen("libshloc_mpi.so", RTLD_NOW | RTLD_GLOBAL);
}

shloc_status shloc_mpi_open(int *argc, char ***argv, shloc_mpi **out) {
  *out = NULL;
  void *dl = load_plugin();
  if (!dl)
    return st_error(SHLOC_ERR_NOT_FOUND, NULL, NULL,
                    "cannot load libshloc_mpi.so (built where MPI is found; or set SHLOC_MPI_PLUGIN): %s", dlerror());
  shloc_mpi_abi_fn get = (shloc_mpi_abi_fn)dlsym(dl, SHLOC_MPI_ABI_SYMBOL);
  const shloc_mpi_abi *abi = get ? get() : NULL;
  if (!abi || abi->version != SHLOC_MPI_ABI_VERSION) {
    dlclose(dl);
    return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL, "libshloc_mpi.so has another interface version");
  }
  shloc_mpi *m = calloc(1, sizeof *m);
  if (!m) {
    dlclose(dl);
    return st_oom();
  }
  m->dl = dl;
  m->abi = abi;
  m->failed = -1;
  const char *t = getenv("SHLOC_MPI_TIMEOUT");
  m->timeout_s = t && atoi(t) > 0 ? (unsigned)atoi(t) : DEFAULT_TIMEOUT_S;
  const char *rs = getenv("SHLOC_MPI_REDUCE_STEP");
  m->reduce_step = rs && atol(rs) > 0 ? (size_t)atol(rs) : REDUCE_STEP_BYTES;
  int rc = abi->init(argc, argv, &m->rank, &m->size);
  if (!rc && !(m->sigs = calloc((size_t)m->size + 1, sizeof *m->sigs))) rc = -1;
  if (!rc) rc = abi->split(0, m->rank, &m->notice_comm);
  if (!rc) rc = abi->irecv(m->notice_comm, &m->rx, sizeof m->rx, SHLOC_MPI_ANY_SOURCE, NOTICE_TAG, &m->notice_rx);
  if (rc) {
    char s[256];
    abi->error_string(rc, s, sizeof s);
    free(m);
    return st_error(SHLOC_ERR_RUNTIME, NULL, NULL, "MPI initialization failed: %s", s);
  }
  *out = m;
  return NULL;
}

int shloc_mpi_rank(const shloc_mpi *m) { return m->rank; }
int shloc_mpi_size(const shloc_mpi *m) { return m->size; }
int shloc_mpi_failed_rank(const shloc_mpi *m) { return m->failed; }

void shloc_mpi_close(shloc_mpi *m, bool abort_job, int exit_code) {
  if (!m) return;
  if (abort_job) {
    nanosleep(&(struct timespec){1, 0}, NULL);
    m->abi->abort(exit_code ? exit_code : 1);
  }
  if (m->notice_rx) m->abi->cancel(m->notice_rx);
  m->abi->comm_free(m->run_comm);
  m->abi->comm_free(m->notice_comm);
  m->abi->finalize();
  free(m->notice_tx);
  free(m->sigs);
  free(m);
  /* The plugin stays loaded: MPI may have registered exit handlers in it. */
}
