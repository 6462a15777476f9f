/* Plan internals shared by the planner and the executor. */
#ifndef SHLOC_EXEC_PLAN_H
#define SHLOC_EXEC_PLAN_H

#include <pthread.h>
#include <stdatomic.h>

#include "exec.h"
#include "support/strmap.h"

/* Frame slots and per-thread scratch buffers start on cache lines. */
static inline size_t plan_align64(size_t n) { return (n + 63) & ~(size_t)63; }

typedef enum { SLOT_FRAME, SLOT_CONST, SLOT_ARG, SLOT_CAPTURE } slot_kind;

typedef struct {
  const shl_type *type;
  slot_kind kind;
  size_t offset;     /* SLOT_FRAME: byte offset in the frame */
  void *const_data;  /* SLOT_CONST */
  bool splat;        /* SLOT_CONST: const_data holds one element of a splat, expanded only when a
                        kernel other than a fused group (which reads it as a scalar) reads the slot */
  uint32_t share;    /* SLOT_FRAME: 1 + the slot whose buffer this one uses (a scatter updating in place, or
                        a reshape's view of it); 0 = its own */
} plan_slot;

typedef struct {
  uint32_t parent_slot, slot;
} plan_capture;

struct exec_plan {
  const shl_region *region;
  exec_plan *parent;
  uint32_t n_slots, cap_slots;
  plan_slot *slots;
  uint32_t n_args;
  uint32_t *arg_slots;
  uint32_t n_results;
  uint32_t *result_slots;
  uint32_t n_captures, cap_captures;
  plan_capture *captures;
  uint32_t n_ops;
  plan_op *ops;
  size_t frame_bytes;
  uint32_t n_argv; /* sum of the ops' operand and result counts */
  uint32_t id;     /* index of its plan_frames in a run state */
  exec_plan *next_all; /* every plan of an executable, for release */
};

/* A plan's run-time state within one run state: a frame reused across
 * invocations unless re-entered (and a second one for loop bodies that
 * alternate frames).  bufs holds the slots' buffers, then pointers to the
 * results and each op's operand and result buffers (bound once per frame). */
typedef struct {
  void *frame[2];
  shl_buf *bufs[2];
  void *frame_spare; /* last temporary frame of a re-entered run (its results are still read) */
  shl_buf *bufs_spare;
  bool busy;
} plan_frames;

/* What one run mutates: frames of every plan and the kernels' per-run
 * state (plan_state_new).  Runs take one from the executable's pool, so
 * plans stay read-only and an executable runs on many threads at once. */
typedef struct exec_run {
  plan_frames *plans; /* by exec_plan.id */
  void **kstate;      /* by plan_state_new id */
  struct exec_run *next;
} exec_run;

typedef struct plan_kstate {
  void (*fn)(void *);
  uint32_t id;
  struct plan_kstate *next;
} plan_kstate;

typedef struct plan_cleanup {
  void (*fn)(void *);
  void *arg;
  struct plan_cleanup *next;
} plan_cleanup;

struct plan_ctx {
  shloc_module *m;
  const exec_config *cfg;
  shl_arena *arena;   /* owned by the executable */
  shl_strmap funcs;   /* callee name -> exec_plan* (planned once per function) */
  exec_plan *cur;     /* plan being built */
  exec_plan *all;     /* every plan built, linked through next_all */
  plan_cleanup *cleanups; /* plan_on_release callbacks, latest first */
  uint32_t n_plans;   /* plans built (their ids) */
  uint32_t n_kstates; /* per-run kernel states (plan_state_new) */
  plan_kstate *kstates;
  /* value -> slot of the plan that defines it, per plan being built */
};

struct exec_ctx {
  shloc_executable *x;
  const struct exec_process *proc; /* inside interpreter.run_parallel (kernels/process.c); NULL: one process */
  shl_buf *slots; /* frame of the plan whose op is running (for captures) */
  exec_plan *plan;
  exec_run *run;  /* this run's state */
};

typedef struct plan_cache plan_cache;
typedef struct plan_entry plan_entry;

struct shloc_executable {
  shloc_module *m;
  const shl_op *func;
  exec_config cfg;
  struct probe_log *probes; /* this run's interpreter.probe values (kernels/probe.c) */
  shl_arena arena;
  plan_ctx pc;
  pthread_mutex_t pool_lock;
  exec_run *pool; /* idle run states */
  exec_plan *main;       /* NULL for a function with dynamic shapes: */
  bool dynamic;          /* planned per input-shape signature, in cache */
  plan_cache *cache;
  pthread_mutex_t cache_lock;
  _Atomic uint64_t checks_run; /* executable_checks_run */
  shloc_executable *counts_to; /* whose checks_run counts this one's checks (itself, or the dynamic executable it was refined for) */
};

/* The cache entry for these arguments' shapes (refined and planned on the
 * first call with them; plan_cache.c), referenced until plan_cache_unref. */
shl_status plan_cache_lookup(shloc_executable *x, shl_buf *const *args, plan_entry **ref);
/* The entry's static executable. */
shloc_executable *plan_cache_executable(const plan_entry *e);
void plan_cache_unref(shloc_executable *x, plan_entry *e);
void plan_cache_destroy(plan_cache *pc);

/* Whether result i of `op` is operand i unchanged: annotations on one device
 * (the ops whose kernel is kernel_forward, annotation custom calls).  The
 * planner binds such results to their operands' buffers and runs nothing. */
bool plan_forwards(const shl_op *op);
/* The custom-call part of plan_forwards (kernels/custom_call.c). */
bool custom_call_forwards(const shl_op *op);
/* The kernel that runs op (the op table's KERNEL column). */
const shl_kernel *plan_kernel_of(const shl_op *op);
/* Buffers a value of type t occupies: 1, or the leaves of a tuple (flattened). */
uint32_t plan_leaf_count(const shl_type *t);
/* Plans a function body (cached per function). */
shl_status plan_function(plan_ctx *pc, const shl_op *func, exec_plan **out);
/* Plans a region of `op` nested in the plan currently being built. */
shl_status plan_region(plan_ctx *pc, const shl_region *r, exec_plan **out);
/* Runs a plan with its arguments bound; results as in exec_region. */
shl_status plan_run(exec_ctx *ec, exec_plan *plan, shl_buf *const *args, shl_buf ***results);
/* The same in the plan's frame #which (0 or 1): a run's results stay valid
 * while the other frame runs, so a loop can feed them back without a copy.
 * The plan must not be running (plan_busy). */
shl_status plan_run_alt(exec_ctx *ec, exec_plan *plan, int which, shl_buf *const *args, shl_buf ***results);
/* Runs a plan with its results written to outs[i].data (outs[i].nbytes
 * each, caller-owned): ops compute results straight into them where they
 * can, the rest is copied (all of them when the plan is re-entered). */
shl_status plan_run_into(exec_ctx *ec, exec_plan *plan, shl_buf *const *args, shl_buf *outs);
/* Whether every result of the plan is computed or captured in it (none
 * returns an argument), so results never alias the next run's arguments. */
bool plan_results_own(const exec_plan *plan);
/* Whether the plan is running in this run (re-entered by recursion). */
bool plan_busy(const exec_ctx *ec, const exec_plan *plan);
/* A run state of x: an idle one from its pool, or a new one (NULL when out
 * of memory); run_state_put gives it back. */
exec_run *run_state_get(shloc_executable *x);
void run_state_put(shloc_executable *x, exec_run *r);
/* Frees x's idle run states. */
void run_state_pool_free(shloc_executable *x);

#endif
