/* send / recv and the infeed queue of the MPI transport, through a
 * coordinator (device 0 of the run; see transport_mpi.h for the message
 * types): requests reach it in some order, it pairs them as the thread
 * transport pairs under its lock, and the values go rank to rank. */
#include <sched.h>
#include <stdlib.h>

#include "transport_mpi.h"

static uint64_t values_hash(shl_buf *const *b, uint32_t n) {
  uint64_t h = (1469598103934665603ull ^ n) * 1099511628211ull;
  for (uint32_t k = 0; k < n; k++) h = (((h ^ b[k]->nbytes) * 1099511628211ull) ^ (uint64_t)b[k]->dtype) * 1099511628211ull;
  return h;
}

/* Reply r to device d (the coordinator's own is set in place). */
static shl_status reply_to(mpi_world *w, const shl_op *op, uint32_t d, p2p_reply r) {
  if (d == w->dev) {
    w->in = r;
    w->replied = true;
    return NULL;
  }
  p2p_coord *c = w->coord;
  shloc_mpi *m = w->m;
  /* d received the previous reply before it asked again: that send completes. */
  while (c->tx_req[d]) {
    int rc = m->abi->test(c->tx_req[d]);
    if (rc < 0) return mpi_fail(m, op, -rc, "reply");
    if (rc == 1) c->tx_req[d] = NULL;
  }
  c->tx[d] = r;
  int rc = m->abi->isend(m->run_comm, &c->tx[d], sizeof r, (int)d, P2P_REPLY_TAG, &c->tx_req[d]);
  return rc ? mpi_fail(m, op, rc, "reply") : NULL;
}

/* The device waiting longest in a `kind` request on `chan`, or UINT32_MAX. */
static uint32_t oldest(const mpi_world *w, uint32_t kind, int64_t chan) {
  const p2p_coord *c = w->coord;
  uint32_t best = UINT32_MAX;
  for (uint32_t d = 0; d < w->n; d++)
    if (c->ticket[d] && c->pend[d].kind == kind && c->pend[d].chan == chan &&
        (best == UINT32_MAX || c->ticket[d] < c->ticket[best]))
      best = d;
  return best;
}

/* When every device has ended or waits in a send or recv nobody pairs, none
 * can go on: the waiting ones stop (devices in collectives are not known
 * here; the timeout bounds those). */
static shl_status stuck_check(mpi_world *w, const shl_op *op) {
  p2p_coord *c = w->coord;
  uint32_t waiting = 0;
  for (uint32_t d = 0; d < w->n; d++) {
    if (!c->ended[d] && !c->ticket[d]) return NULL;
    waiting += c->ticket[d] != 0;
  }
  for (uint32_t d = 0; waiting && d < w->n; d++)
    if (c->ticket[d]) {
      c->ticket[d] = 0;
      ST_TRY(reply_to(w, op, d, (p2p_reply){REPLY_STUCK, d, 0}));
    }
  return NULL;
}

static shl_status handle(mpi_world *w, const shl_op *op, const p2p_req *q) {
  p2p_coord *c = w->coord;
  if (q->kind == P2P_FEED) return reply_to(w, op, q->dev, (p2p_reply){REPLY_FEED, q->dev, c->feed_next++});
  if (q->kind == P2P_DONE) {
    c->n_ended += !c->ended[q->dev];
    c->ended[q->dev] = true;
    c->all_ended = c->n_ended == w->n;
  } else {
    uint32_t other = oldest(w, q->kind == P2P_SEND ? P2P_RECV : P2P_SEND, q->chan);
    if (other == UINT32_MAX) {
      c->pend[q->dev] = *q;
      c->ticket[q->dev] = ++c->tickets;
    } else {
      c->ticket[other] = 0;
      uint32_t snd = q->kind == P2P_SEND ? q->dev : other, rcv = snd == q->dev ? other : q->dev;
      uint32_t kind = c->pend[other].sizes == q->sizes ? REPLY_MATCH : REPLY_BAD;
      ST_TRY(reply_to(w, op, snd, (p2p_reply){kind, rcv, q->chan}));
      ST_TRY(reply_to(w, op, rcv, (p2p_reply){kind, snd, q->chan}));
    }
  }
  return stuck_check(w, op);
}

/* The coordinator takes the requests that arrived. */
shl_status mpi_serve(mpi_world *w, const shl_op *op) {
  p2p_coord *c = w->coord;
  shloc_mpi *m = w->m;
  while (c->rx_req) {
    int rc = m->abi->test(c->rx_req);
    if (rc < 0) return mpi_fail(m, op, -rc, "request");
    if (!rc) return NULL;
    p2p_req q = c->rx;
    c->rx_req = NULL;
    rc = m->abi->irecv(m->run_comm, &c->rx, sizeof c->rx, SHLOC_MPI_ANY_SOURCE, w->req_tag, &c->rx_req);
    if (rc) return mpi_fail(m, op, rc, "request");
    if (q.dev < w->n && q.kind <= P2P_DONE) ST_TRY(handle(w, op, &q));
  }
  return NULL;
}

/* Asks the coordinator and waits for its reply. */
static shl_status ask(mpi_world *w, const shl_op *op, p2p_req q, p2p_reply *out) {
  if (w->m->failed >= 0) return mpi_peer_failed(w, op);
  w->replied = false;
  w->out = q;
  if (w->coord) {
    ST_TRY(handle(w, op, &w->out));
    ST_TRY(mpi_wait_until(w, op, NULL, NULL, 0, &w->replied));
  } else {
    shloc_mpi *m = w->m;
    shloc_mpi_req *reqs[2] = {NULL, NULL};
    int peer[2] = {0, 0};
    int rc = m->abi->irecv(m->run_comm, &w->in, sizeof w->in, 0, P2P_REPLY_TAG, &reqs[0]);
    if (!rc) rc = m->abi->isend(m->run_comm, &w->out, sizeof w->out, 0, w->req_tag, &reqs[1]);
    if (rc) {
      if (reqs[0]) m->abi->cancel(reqs[0]);
      return mpi_fail(m, op, rc, "request");
    }
    ST_TRY(mpi_wait_all(w, op, reqs, peer, 2));
  }
  *out = w->in;
  return NULL;
}

static shl_status paired(const mpi_world *w, const shl_op *op, const p2p_reply *r, bool send, int64_t chan) {
  if (r->kind == REPLY_STUCK)
    return op_error(op, SHLOC_ERR_RUNTIME,
                    "stopped: every device still running waits for another (a send or recv without its partner)");
  if (r->kind == REPLY_BAD && send)
    return op_error(op, SHLOC_ERR_RUNTIME, "sends on channel %lld values that device #%u's recv does not take",
                    (long long)chan, r->peer);
  if (r->kind == REPLY_BAD)
    return op_error(op, SHLOC_ERR_RUNTIME, "device #%u sent on channel %lld values that do not match this op's results",
                    r->peer, (long long)chan);
  if (r->kind != REPLY_MATCH || r->peer >= w->n)
    return op_error(op, SHLOC_ERR_RUNTIME, "unexpected reply from the coordinator");
  return NULL;
}

/* The values of a paired send move directly between the two ranks. */
static shl_status p2p_move(mpi_world *w, const shl_op *op, bool send, int64_t chan, shl_buf *const *bufs,
                           uint32_t n) {
  p2p_reply r;
  ST_TRY(ask(w, op, (p2p_req){send ? P2P_SEND : P2P_RECV, w->dev, chan, values_hash(bufs, n)}, &r));
  ST_TRY(paired(w, op, &r, send, chan));
  shloc_mpi *m = w->m;
  shloc_mpi_req **reqs = calloc(n + 1, sizeof *reqs);
  int *peer = malloc((n + 1) * sizeof *peer);
  shl_status st = reqs && peer ? NULL : st_oom();
  uint32_t q = 0;
  for (uint32_t k = 0; !st && k < n; k++) {
    peer[q] = (int)r.peer;
    int rc = send ? m->abi->isend(m->run_comm, bufs[k]->data, bufs[k]->nbytes, (int)r.peer, P2P_DATA_TAG, &reqs[q++])
                  : m->abi->irecv(m->run_comm, bufs[k]->data, bufs[k]->nbytes, (int)r.peer, P2P_DATA_TAG, &reqs[q++]);
    if (rc) st = mpi_fail(m, op, rc, send ? "send" : "recv");
  }
  if (!st) st = mpi_wait_all(w, op, reqs, peer, q);
  free(reqs);
  free(peer);
  return st;
}

shl_status mpi_send(coll_world *cw, uint32_t dev, const shl_op *op, int64_t chan, shl_buf *const *bufs,
                           uint32_t n) {
  (void)dev;
  return p2p_move((mpi_world *)cw, op, true, chan, bufs, n);
}

shl_status mpi_recv(coll_world *cw, uint32_t dev, const shl_op *op, int64_t chan, shl_buf *const *bufs,
                           uint32_t n) {
  (void)dev;
  return p2p_move((mpi_world *)cw, op, false, chan, bufs, n);
}

shl_status mpi_feed_pop(coll_world *cw, uint32_t dev, const shl_op *op, uint32_t *k) {
  mpi_world *w = (mpi_world *)cw;
  p2p_reply r;
  ST_TRY(ask(w, op, (p2p_req){P2P_FEED, dev, 0, 0}, &r));
  if (r.kind != REPLY_FEED) return op_error(op, SHLOC_ERR_RUNTIME, "unexpected reply from the coordinator");
  *k = (uint32_t)r.value;
  return NULL;
}

/* Tells the coordinator that this device's program ended. */
void mpi_tell_done(mpi_world *w) {
  if (w->coord) {
    w->out = (p2p_req){P2P_DONE, w->dev, 0, 0};
    shl_status st = handle(w, w->op, &w->out);
    if (st) shloc_status_free(st);
    return;
  }
  shloc_mpi *m = w->m;
  shloc_mpi_req *req = NULL;
  w->out = (p2p_req){P2P_DONE, w->dev, 0, 0};
  if (m->abi->isend(m->run_comm, &w->out, sizeof w->out, 0, w->req_tag, &req)) return;
  /* A small message: it leaves at once unless the coordinator failed. */
  while (m->abi->test(req) == 0) {
    if (mpi_notice_arrived(m)) {
      m->abi->cancel(req);
      return;
    }
    sched_yield();
  }
}

shl_status mpi_coord_new(mpi_world *w) {
  uint32_t n = w->n;
  p2p_coord *c = w->coord = calloc(1, sizeof *c);
  bool ok = c && (c->pend = calloc(n, sizeof *c->pend)) && (c->ticket = calloc(n, sizeof *c->ticket)) &&
            (c->ended = calloc(n, sizeof *c->ended)) && (c->tx = calloc(n, sizeof *c->tx)) &&
            (c->tx_req = calloc(n, sizeof *c->tx_req));
  if (!ok) return st_oom();
  int rc = w->m->abi->irecv(w->m->run_comm, &c->rx, sizeof c->rx, SHLOC_MPI_ANY_SOURCE, w->req_tag, &c->rx_req);
  return rc ? mpi_fail(w->m, w->op, rc, "request") : NULL;
}

void mpi_coord_free(mpi_world *w) {
  p2p_coord *c = w->coord;
  if (!c) return;
  for (uint32_t d = 0; c->tx_req && d < w->n; d++)
    if (c->tx_req[d]) w->m->abi->cancel(c->tx_req[d]);
  if (c->rx_req) w->m->abi->cancel(c->rx_req);
  free(c->pend);
  free(c->ticket);
  free(c->ended);
  free(c->tx);
  free(c->tx_req);
  free(c);
  w->coord = NULL;
}
