/* Frame layout of a plan: slot lifetimes recorded while the planner walks a
 * block, then frame offsets packed by liveness (plan_frame.c). */
#ifndef SHLOC_EXEC_PLAN_FRAME_H
#define SHLOC_EXEC_PLAN_FRAME_H

#include "plan.h"

/* A slot's lifetime in op indices of its plan (UINT32_MAX = not recorded). */
typedef struct {
  uint32_t def;  /* the op writing it */
  uint32_t last; /* the last op reading it (past the last op: a result of the block) */
} slot_life;

typedef struct {
  slot_life *v; /* by slot */
  size_t cap;
} plan_lives;

/* Records that op `at` writes / reads `slot` (the latest record wins). */
bool lives_def(plan_lives *l, uint32_t slot, uint32_t at);
bool lives_use(plan_lives *l, uint32_t slot, uint32_t at);
void lives_free(plan_lives *l);

/* Sets p's frame slot offsets and frame_bytes once all of its ops are
 * planned: results never read live until their op ends, views (reshapes)
 * keep the buffer they share alive, scatter results take over dead operands'
 * buffers, and the others reuse freed ranges. */
shl_status plan_frame_layout(exec_plan *p, plan_lives *l);

#endif
