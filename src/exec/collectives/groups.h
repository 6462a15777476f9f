/* Process groups of the spec ("Collective ops"): which devices an op's
 * device combines with, in the order the spec lists them. */
#ifndef SHLOC_EXEC_COLLECTIVES_GROUPS_H
#define SHLOC_EXEC_COLLECTIVES_GROUPS_H

#include "exec/plan.h"

typedef enum { COLL_CROSS_REPLICA, COLL_CROSS_PARTITION, COLL_CROSS_REPLICA_AND_PARTITION, COLL_FLATTENED_IDS } coll_mode;

/* The op's channel_handle's handle (0 without one). */
int64_t coll_channel_id(const shl_op *op);
/* The mode the op's channel_handle / use_global_device_ids select. */
shl_status coll_mode_of(const shl_op *op, coll_mode *mode);
/* The group of device (r, p) under `mode` and the op's replica_groups
 * (missing or empty: one group of all ids).  ids (capacity n_rep * n_part)
 * receives flattened device ids (replica * n_part + partition), *pos this
 * device's place; *n = 0 when the device is in no group. */
shl_status coll_group(const shl_op *op, coll_mode mode, uint32_t n_rep, uint32_t n_part, uint32_t r, uint32_t p,
                      uint32_t *ids, uint32_t *n, uint32_t *pos);

#endif
