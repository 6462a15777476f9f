/* Internals of the MPI transport shared by transport_mpi.c (collectives,
 * grids, the handle) and transport_mpi_p2p.c (send/recv and the infeed
 * queue through the coordinator). */
#ifndef SHLOC_EXEC_COLLECTIVES_TRANSPORT_MPI_H
#define SHLOC_EXEC_COLLECTIVES_TRANSPORT_MPI_H

#include "shloc/mpi.h"
#include "mpi_abi.h"
#include "transport.h"

#define END_KIND UINT32_MAX      /* signature of a device whose program ended */
#define NOTICE_TAG 0 /* results of a grid go on the notice communicator with tags 1.. */
#define RESULT_TAG(i) (1 + (int)((i) % 30000))
#define SIG_TAG 30001 /* on the run communicator, beside the operand tags (< 30000) */
#define GATHER_TAG 30002
/* Requests to the coordinator (device 0) carry the grid's number: a device
 * may start the next grid and ask (or end) while the coordinator still
 * finishes this one, whose standing receive must not take that request. */
#define P2P_REQ_TAG(epoch) (30100 + (int)((epoch) % 256))
#define P2P_REPLY_TAG 30004 /* from it */
#define P2P_DATA_TAG 30005  /* a send's values, sender to receiver */
#define DATA_TAG(k) ((int)((k) % 30000))
#define DEFAULT_TIMEOUT_S 300
/* all_reduce moves at most this many bytes per device and step (bounds
 * scratch); $SHLOC_MPI_REDUCE_STEP sets it (tests use small steps). */
#define REDUCE_STEP_BYTES ((size_t)64 << 20)
/* all_reduce sends whole operands (one round) up to this many bytes out
 * per device and step; larger ones go as reduce-scatter + all-gather in
 * pieces of REDUCE_PIECE_BYTES, at most MAX_PIECES per chunk (smaller
 * pieces, 32 and 128 KiB, were slower at 1 MiB: each message of Open MPI's
 * shared-memory path costs a handshake). */
#define DIRECT_REDUCE_BYTES ((size_t)64 << 10)
#define REDUCE_PIECE_BYTES ((size_t)1 << 20)
#define MAX_PIECES 16
/* A wait polls this long before it yields the core (mpi_wait_until). */
#define WAIT_SPIN_NS 200000

typedef struct {
  int32_t rank;
  char msg[252];
} notice;

struct shloc_mpi {
  void *dl;
  const shloc_mpi_abi *abi;
  int rank, size;
  unsigned timeout_s;
  size_t reduce_step;       /* bytes */
  void *notice_comm;
  shloc_mpi_req *notice_rx; /* the standing receive of a peer's notice */
  notice rx, tx;
  shloc_mpi_req **notice_tx;
  int failed;               /* first rank known to have failed, or -1 */
  void *run_comm;           /* ranks [0, run_n) of the last grid */
  uint32_t run_n;
  uint32_t epoch;           /* grids started (the same count on every rank) */
  struct sig *sigs;         /* the signatures of the last collective, by rank, then this rank's */
};

typedef struct sig {
  uint32_t kind, n;
  uint64_t seq, sizes;
} sig;

/* send/recv and infeed go through a coordinator, device 0 of the run: the
 * ops name no peer (send and recv pair by channel, the infeed queue is
 * shared), so one place pairs them in the order requests reach it, as the
 * thread transport does under its lock.  It serves requests whenever it
 * waits for anything (every wait polls), including at the end of its
 * program, until every device has ended.  The values then go directly from
 * sender to receiver. */
typedef enum { P2P_SEND, P2P_RECV, P2P_FEED, P2P_DONE } p2p_kind;
typedef enum { REPLY_MATCH, REPLY_BAD, REPLY_STUCK, REPLY_FEED } reply_kind;

typedef struct {
  uint32_t kind, dev;
  int64_t chan;
  uint64_t sizes; /* number, element types and sizes of the values */
} p2p_req;

typedef struct {
  uint32_t kind, peer;
  int64_t value; /* the infeed entry */
} p2p_reply;

/* The coordinator's state. */
typedef struct {
  p2p_req *pend;      /* by device: its waiting send or recv (ticket > 0) */
  uint64_t *ticket, tickets;
  bool *ended;
  uint32_t n_ended, feed_next;
  bool all_ended;
  p2p_req rx;         /* the standing receive of a request */
  shloc_mpi_req *rx_req;
  p2p_reply *tx;      /* by device: the reply in flight */
  shloc_mpi_req **tx_req;
} p2p_coord;

typedef struct {
  coll_world base;
  shloc_mpi *m;
  p2p_coord *coord;     /* on device 0 */
  const shl_op *op;     /* the run's op (run_parallel, or the function), for errors outside ops */
  int req_tag;          /* P2P_REQ_TAG of this grid */
  p2p_req out;          /* this device's request */
  p2p_reply in;         /* and its reply */
  bool replied;
  uint32_t n, dev;
  const coll_entry **all;
  coll_entry *got;      /* entries of the devices this one received from */
  shl_buf *bufs;        /* their operands (scratch data) */
  shl_buf **bufp;
  void *scratch;
  uint32_t *meet, n_meet; /* the devices the last collective met (check_sig) */
  void *reduce_buf;     /* all_reduce scratch, kept from call to call (fresh pages cost page faults) */
  size_t reduce_cap;
} mpi_world;

/* An MPI call failed (rc: its error code). */
shl_status mpi_fail(const shloc_mpi *m, const shl_op *op, int rc, const char *what);
/* "stopped: rank r (device #d, ...) failed: ..." after a peer's notice. */
shl_status mpi_peer_failed(const mpi_world *w, const shl_op *op);
/* Whether a peer's fault notice arrived. */
bool mpi_notice_arrived(shloc_mpi *m);
/* Completes reqs[0..n) (peer[i]: the rank each waits for) and, with
 * `flag`, waits until it is set; stops when a peer fails or the timeout
 * passes; the coordinator serves requests meanwhile. */
shl_status mpi_wait_until(mpi_world *w, const shl_op *op, shloc_mpi_req **reqs, const int *peer, uint32_t n,
                          const bool *flag);
shl_status mpi_wait_all(mpi_world *w, const shl_op *op, shloc_mpi_req **reqs, const int *peer, uint32_t n);

/* transport_mpi_p2p.c: the coordinator's state on device 0 (new: posts its
 * standing receive; w->op and w->req_tag set), its serving of requests
 * that arrived, the end of a device's program, and the transport's
 * send / recv / feed_pop entries. */
shl_status mpi_coord_new(mpi_world *w);
void mpi_coord_free(mpi_world *w);
shl_status mpi_serve(mpi_world *w, const shl_op *op);
void mpi_tell_done(mpi_world *w);
shl_status mpi_send(coll_world *cw, uint32_t dev, const shl_op *op, int64_t chan, shl_buf *const *bufs, uint32_t n);
shl_status mpi_recv(coll_world *cw, uint32_t dev, const shl_op *op, int64_t chan, shl_buf *const *bufs, uint32_t n);
shl_status mpi_feed_pop(coll_world *cw, uint32_t dev, const shl_op *op, uint32_t *k);

#endif
