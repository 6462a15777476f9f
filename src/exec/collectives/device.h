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

#endif
