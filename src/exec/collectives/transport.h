/* How devices of one multi-device run meet for a collective.  Every
 * collective is one rendezvous of the devices of its process group (as the
 * reference interpreter keys its rendezvous by group, so disjoint groups do
 * not wait on each other): each device publishes its operand buffers, waits
 * until its group's devices have, computes its own result by reading its
 * group's buffers in process-group order, and waits again before the buffers
 * are reused.  Results therefore never depend on arrival order.  A
 * transport may also meet all devices of the run instead (correct for SPMD
 * programs, where every device runs every collective).
 *
 * The interface is a table of functions so that another transport (MPI) can
 * stand behind the same kernels; coll_threads_new is the in-process one. */
#ifndef SHLOC_EXEC_COLLECTIVES_TRANSPORT_H
#define SHLOC_EXEC_COLLECTIVES_TRANSPORT_H

#include "exec/plan.h"

typedef struct coll_world coll_world;

/* What a device publishes for one collective. */
typedef struct {
  shl_opid kind;          /* the op, to detect devices running different collectives */
  uint64_t seq;           /* the device's collective count, idem */
  uint32_t n;             /* operand buffers */
  shl_buf *const *bufs;
  /* The devices that meet (flattened ids, in process-group order; a device
   * in no group meets only itself; n_ids = 0: all devices of the run) and
   * this device's place among them. */
  const uint32_t *ids;
  uint32_t n_ids, pos;
  /* Routing, for transports that move buffers between processes (the
   * thread transport shares memory and ignores it): the devices whose
   * buffers this one reads and those that read its buffers (both NULL: all
   * the devices that meet). */
  const uint32_t *from, *to;
  uint32_t n_from, n_to;
} coll_entry;

/* dst[i] = body(dst[i], src[i]) for i < n: the op's reduction region. */
typedef struct {
  shl_status (*fn)(void *ctx, shl_dtype t, void *dst, const void *src, int64_t n);
  void *ctx;
} coll_fold;

typedef struct {
  /* Publishes dev's entry and waits for the entries of its group's devices;
   * *all receives the entries by device id (those of the group valid until
   * release). */
  shl_status (*exchange)(coll_world *w, uint32_t dev, const shl_op *op, const coll_entry *mine,
                          const coll_entry *const **all);
  /* Waits until every device of the group has read the exchanged buffers. */
  shl_status (*release)(coll_world *w, uint32_t dev, const shl_op *op);
  /* dev's program ended (failed: with an error); peers waiting for it stop. */
  void (*leave)(coll_world *w, uint32_t dev, bool failed);
  /* The first device that failed, or -1. */
  int64_t (*failed_device)(coll_world *w);
  void (*free)(coll_world *w);
  /* Point-to-point, paired as the reference interpreter pairs stablehlo.send
   * and stablehlo.recv: by channel id only (the op names no peer).  A send
   * waits until some device waits in a recv on the same channel (the
   * longest-waiting one), then hands over its n buffers, which must match
   * the receiver's in number and size; recv waits until it has them. */
  shl_status (*send)(coll_world *w, uint32_t dev, const shl_op *op, int64_t channel, shl_buf *const *bufs, uint32_t n);
  shl_status (*recv)(coll_world *w, uint32_t dev, const shl_op *op, int64_t channel, shl_buf *const *bufs, uint32_t n);
} coll_transport;

struct coll_world {
  const coll_transport *t;
  uint32_t n_rep, n_part;
  /* Optional (NULL: exchange, fold locally, release): an all_reduce whose
   * data movement the transport does itself.  out[k] = fold of the group's
   * operand k, left to right in group order, element by element, exactly as
   * the local fold computes it. */
  shl_status (*all_reduce)(coll_world *w, uint32_t dev, const shl_op *op, const coll_entry *mine, shl_buf *const *out,
                           const coll_fold *fold);
  /* Optional (NULL: the grid's queue in this process): the index of the
   * next entry of the infeed queue shared by the devices of the run. */
  shl_status (*feed_pop)(coll_world *w, uint32_t dev, const shl_op *op, uint32_t *k);
};

/* The thread transport for n_rep x n_part devices in this process
 * (device id = replica * n_part + partition); NULL when out of memory.
 * timeout_s bounds a wait for peers (a last resort: faults are reported
 * through leave at once). */
coll_world *coll_threads_new(uint32_t n_rep, uint32_t n_part, unsigned timeout_s);

/* The MPI transport (transport_mpi.c) for an n_rep x n_part grid on the
 * ranks of `m` (shloc/mpi.h): device d is rank d; *out = NULL on a rank
 * beyond the grid (it only receives the results).  Every rank calls it for
 * the same grids in the same order. */
struct shloc_mpi;
shl_status coll_mpi_world_new(struct shloc_mpi *m, uint32_t n_rep, uint32_t n_part, const shl_op *op, coll_world **out,
                              uint32_t *dev);
/* Ends a grid run on every rank (w: this rank's world or NULL, own: its
 * device's status, which is returned): checks that every device ended its
 * program, then gives every rank every device's results (res[res_off[d] ..
 * res_off[d + 1]) are device d's). */
shl_status coll_mpi_finish(struct shloc_mpi *m, coll_world *w, const shl_op *op, shl_status own, uint32_t n_dev,
                           const uint32_t *res_off, shl_buf *const *res);
/* Gathers n[d] bytes from each device d of an MPI world (`mine` on this
 * device), packed in device order into `all` on device `root`, or on every
 * device with root = COLL_ALL.  Every device calls it at the same point
 * with the same n[]. */
#define COLL_ALL UINT32_MAX
shl_status coll_mpi_gather(coll_world *w, const shl_op *op, const void *mine, const size_t *n, uint32_t root,
                           void *all);

#endif
