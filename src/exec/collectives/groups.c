#include <stdlib.h>

#include "groups.h"
#include "exec/kernels/kutil.h"

int64_t coll_channel_id(const shl_op *op) {
  const shl_attr *a = op_attr(op, "channel_handle");
  int64_t h = 0;
  if (a && a->kind == AT_STRUCT)
    for (uint32_t i = 0; i < a->u.st.n; i++)
      if (str_eq_c(a->u.st.fields[i].name, "handle")) attr_as_int(a->u.st.fields[i].attr, &h);
  return h;
}

shl_status coll_mode_of(const shl_op *op, coll_mode *mode) {
  const shl_attr *ug = op_attr(op, "use_global_device_ids");
  bool ch = coll_channel_id(op) > 0, global = ug && (ug->kind == AT_UNIT || (ug->kind == AT_BOOL && ug->u.b));
  if (op_is(op, OP_ALL_TO_ALL) || op_is(op, OP_COLLECTIVE_PERMUTE) || op_is(op, OP_COLLECTIVE_BROADCAST)) {
    *mode = ch ? COLL_CROSS_PARTITION : COLL_CROSS_REPLICA;
    return NULL;
  }
  if (global && !ch) return op_error(op, SHLOC_ERR_VERIFY, "use_global_device_ids needs a channel_handle with handle > 0");
  *mode = !ch ? COLL_CROSS_REPLICA : global ? COLL_FLATTENED_IDS : COLL_CROSS_REPLICA_AND_PARTITION;
  return NULL;
}

/* Appends device (rr, pp) to the group being built; whether it is (r, p). */
static void put(uint32_t *ids, uint32_t *n, uint32_t *pos, uint32_t n_part, uint32_t rr, uint32_t pp, uint32_t r,
                uint32_t p, bool *mine) {
  if (rr == r && pp == p) {
    *pos = *n;
    *mine = true;
  }
  ids[(*n)++] = rr * n_part + pp;
}

shl_status coll_group(const shl_op *op, coll_mode mode, uint32_t n_rep, uint32_t n_part, uint32_t r, uint32_t p,
                      uint32_t *ids, uint32_t *n, uint32_t *pos) {
  *n = 0;
  *pos = 0;
  const shl_attr *a = op_attr(op, "replica_groups");
  int64_t rows = 0, cols = 0;
  uint32_t limit = mode == COLL_CROSS_REPLICA ? n_rep
                   : mode == COLL_CROSS_PARTITION ? n_part
                   : mode == COLL_FLATTENED_IDS ? n_rep * n_part
                                                : n_rep;
  if (a && a->kind == AT_DENSE && a->type && a->type->rank == 2) {
    rows = a->type->dims[0];
    cols = a->type->dims[1];
  } else if (a) {
    return op_error(op, SHLOC_ERR_VERIFY, "expects replica_groups as a 2-D tensor of integers");
  }
  int64_t *g = NULL;
  if (rows * cols > 0) {
    if (cols > limit) return op_error(op, SHLOC_ERR_VERIFY, "has replica_groups longer than the %u ids", limit);
    g = malloc((size_t)(rows * cols) * sizeof *g);
    size_t got;
    if (!g) return st_oom();
    if (!attr_as_ints(a, g, (size_t)(rows * cols), &got) || got != (size_t)(rows * cols)) {
      free(g);
      return op_error(op, SHLOC_ERR_VERIFY, "expects integer replica_groups");
    }
    for (int64_t i = 0; i < rows * cols; i++)
      if (g[i] < -1 || g[i] >= limit) {
        long long bad = g[i];
        free(g);
        return op_error(op, SHLOC_ERR_VERIFY, "replica_groups entry %lld is out of range [0, %u)", bad, limit);
      }
  } else {
    rows = 1;
    cols = limit; /* empty: all ids, in order */
  }
  for (int64_t i = 0; i < rows; i++) {
    bool mine = false;
    *n = 0;
    for (int64_t pass = 0; pass < (mode == COLL_CROSS_REPLICA_AND_PARTITION ? n_part : 1); pass++)
      for (int64_t j = 0; j < cols; j++) {
        int64_t id = g ? g[i * cols + j] : j;
        if (id < 0) continue; /* padding of uneven groups */
        switch (mode) {
        case COLL_CROSS_REPLICA: put(ids, n, pos, n_part, (uint32_t)id, p, r, p, &mine); break;
        case COLL_CROSS_PARTITION: put(ids, n, pos, n_part, r, (uint32_t)id, r, p, &mine); break;
        case COLL_CROSS_REPLICA_AND_PARTITION: put(ids, n, pos, n_part, (uint32_t)id, (uint32_t)pass, r, p, &mine); break;
        case COLL_FLATTENED_IDS: put(ids, n, pos, n_part, (uint32_t)id / n_part, (uint32_t)id % n_part, r, p, &mine); break;
        }
      }
    if (mine) {
      free(g);
      return NULL;
    }
  }
  free(g);
  *n = 0;
  return NULL;
}
