/* Execution: a plan per region (built once), buffers per value slot, and
 * kernels from the op table's KERNEL column (kernel_KERNEL). */
#ifndef SHLOC_EXEC_EXEC_H
#define SHLOC_EXEC_EXEC_H

#include "ir/ir.h"

/* A tensor value at run time: static shape, contiguous row-major storage. */
typedef struct {
  const shl_type *type;
  shl_dtype dtype; /* storage element type */
  int32_t rank;
  const int64_t *dims;
  int64_t n;       /* element count */
  size_t nbytes;
  void *data;
} shl_buf;

typedef struct exec_plan exec_plan;
typedef struct exec_ctx exec_ctx;
typedef struct plan_ctx plan_ctx;

/* One op of a plan. */
typedef struct {
  const shl_op *op;
  const struct shl_kernel *kernel;
  void *params;          /* from kernel->prepare, in the plan arena */
  uint32_t n_in, n_out;  /* operands and results (op's own, except for fused ops) */
  uint32_t *in_slots;    /* n_in */
  uint32_t *out_slots;   /* n_out */
  exec_plan **regions;   /* op->n_regions nested plans */
} plan_op;

typedef struct shl_kernel {
  /* Optional: validates what the kernel supports and precomputes parameters
   * once (into the plan arena via plan_alloc).  Unsupported cases return
   * SHLOC_ERR_UNSUPPORTED here, so they are reported before running. */
  shl_status (*prepare)(plan_ctx *pc, const shl_op *op, void **params);
  /* Runs the op: `in` are the operands, `out` the results (already allocated
   * with the result types; they never alias inputs). */
  shl_status (*run)(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out);
} shl_kernel;

#define OP(id, name, traits, syn, ver, ker) extern const shl_kernel kernel_##ker;
#include "ir/ops.def"
#undef OP

/* ---- planning ---- */
/* What an executable is built with (all optional: NULL or zero = defaults). */
typedef struct ffi_registry ffi_registry;
typedef struct {
  ffi_registry *registry; /* custom-call handlers (src/ffi); NULL = built-in targets only */
  const char *probe_dir;  /* interpreter.probe writes probe<K>.npy + index.csv here; NULL = in memory only */
  /* Where interpreter.print writes its text (the library never prints itself);
   * NULL = the op only passes its operand through. */
  void (*print)(void *user, const char *text, size_t len);
  void *print_user;
} exec_config;


void *plan_alloc(plan_ctx *pc, size_t n);
/* Runs fn(arg) when the executable is destroyed (latest first), for
 * resources a kernel's params hold outside the plan arena. */
shl_status plan_on_release(plan_ctx *pc, void (*fn)(void *), void *arg);
const shloc_module *plan_module(plan_ctx *pc);
const exec_config *plan_config(plan_ctx *pc);
/* Reserves a per-run kernel state (scratch kept from run to run): params
 * are shared by concurrent runs and must not change while running, so a
 * kernel keeps what it mutates in *exec_state(ec, id), NULL in a fresh run
 * state, freed with fn when the executable goes. */
shl_status plan_state_new(plan_ctx *pc, void (*fn)(void *), uint32_t *id);

/* ---- running ---- */
/* Runs a nested region plan with `args` bound to its entry block arguments;
 * *results receives pointers to the values the region returns, valid until
 * the plan runs again.  n_results is the terminator's operand count. */
shl_status exec_region(exec_ctx *ec, exec_plan *plan, shl_buf *const *args, shl_buf ***results);
uint32_t plan_num_results(const exec_plan *plan);
const shloc_module *exec_module(exec_ctx *ec);
/* This run's kernel state `id` (plan_state_new). */
void **exec_state(exec_ctx *ec, uint32_t id);

/* A buffer view for a static tensor type over existing memory. */
void buf_init(shl_buf *b, const shl_type *t, void *data);

/* ---- the executable: a planned function plus run-time state ---- */
typedef struct shloc_executable shloc_executable;

shl_status executable_create(shloc_module *m, const shl_op *func, const exec_config *cfg, shloc_executable **out);
void executable_destroy(shloc_executable *x);
const shl_op *executable_func(const shloc_executable *x);
/* Functions with '?' dimensions, unranked tensors or dynamic ops are
 * refined to the shapes of their arguments before they are planned (once
 * per input-shape signature, cached): their arguments carry concrete types
 * (exec_arg_type), and their results' types are known once the arguments
 * are (executable_result_types). */
/* The concrete type of an argument declared `declared` that has shape
 * (rank, dims): `declared` itself when static, else `storage` filled in
 * (dims borrowed, so it lives as long as they do).  NULL when the shape does
 * not fit the declared type. */
const shl_type *exec_arg_type(const shl_type *declared, int32_t rank, const int64_t *dims, shl_type *storage);
/* The result types of a run on `args`: the declared ones, or those refined
 * for the arguments' shapes (valid while the executable lives). */
shl_status executable_result_types(shloc_executable *x, shl_buf *const *args, const shl_type *const **out);
/* args: one buffer per function argument (shape and dtype must match);
 * results: filled with malloc'd data (caller frees results[i].data). */
shl_status executable_run(shloc_executable *x, shl_buf *const *args, shl_buf *results);
/* The same as device `proc` of a multi-device run (exec/spmd.h; NULL: one device). */
struct exec_process;
shl_status executable_run_device(shloc_executable *x, const struct exec_process *proc, shl_buf *const *args,
                                 shl_buf *results);
/* The same into caller-owned memory: results[i] is filled in (buf_init of
 * the result type) with data = bufs[i], which must hold the result's bytes
 * and overlap no other result buffer (it may overlap arguments: those
 * results are then computed aside and copied).  Buffers can be reused from
 * run to run, which saves first-touch page faults. */
shl_status executable_run_into(shloc_executable *x, shl_buf *const *args, void *const *bufs, shl_buf *results);
/* How many check ops and check.* custom calls have run in this executable
 * (passed or not): `shloc test` tells a program that checked nothing apart. */
uint64_t executable_checks_run(const shloc_executable *x);
/* Counts one check (the check kernels call it). */
void exec_count_check(exec_ctx *ec);
/* malloc (free() releases it) that asks for transparent huge pages for
 * large blocks. */
void *exec_malloc(size_t n);

#endif
