/* A device of a multi-device run as the kernels see it (exec_ctx.proc). */
#ifndef SHLOC_EXEC_COLLECTIVES_DEVICE_H
#define SHLOC_EXEC_COLLECTIVES_DEVICE_H

#include "transport.h"

struct grid_params;
struct grid_feed;

struct exec_process {
  uint32_t replica, partition;
  const struct grid_params *grid;
  struct grid_feed *feed; /* the infeed queue, shared by the grid's devices */
  coll_world *world;
  uint64_t *seq;          /* collectives this device has run (its own counter) */
};

/* After a successful exchange: releases (always, so that peers reading this
 * device's buffers finish first) and returns `st`, or release's error. */
static inline shl_status coll_finish(coll_world *w, uint32_t dev, const shl_op *op, shl_status st) {
  shl_status r = w->t->release(w, dev, op);
  if (!st) return r;
  if (r) shloc_status_free(r);
  return st;
}

#endif
