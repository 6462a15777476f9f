/* The reference interpreter's processes: interpreter.run_parallel runs a
 * grid of programs (replica r, partition p) with their own replica_id and
 * partition_id, and gives them an infeed queue (functions whose results the
 * successive stablehlo.infeed ops return) and an outfeed (where
 * stablehlo.outfeed's values go; the interpreter only collects them).
 *
 * Each program runs on its own thread (one per device) with its own plan
 * (planned once per device, so no run state is shared), and the devices
 * meet in collectives through the thread transport (exec/collectives/).
 * The infeed queue is shared: devices pop it under a lock, in the order
 * they reach their infeed ops, as the reference's processes do.  Outside
 * run_parallel there is one process (ids 0) and no feed, as in the
 * reference, where infeed/outfeed are errors. */
#include <pthread.h>
#include <stdlib.h>

#include "exec/collectives/device.h"
#include "exec/plan.h"

/* Seconds a device waits for its peers before giving up (a last resort:
 * faults and ended programs stop the peers at once). */
#define GRID_TIMEOUT_S 300

typedef struct grid_params {
  uint32_t n_rep, n_part;
  exec_plan **programs;   /* n_rep * n_part, row-major */
  uint32_t *arg_off, *res_off;
  uint32_t n_infeed;
  exec_plan **infeed;
} grid_params;

struct grid_feed {
  pthread_mutex_t mu;
  uint32_t next;
};

static shl_status plan_callee(plan_ctx *pc, const shl_op *op, const shl_attr *ref, exec_plan **out,
                              const shl_op **func) {
  if (!ref || ref->kind != AT_SYMREF) return op_error(op, SHLOC_ERR_VERIFY, "expects function symbols");
  *func = module_find_func(plan_module(pc), ref->u.sym.root);
  if (!*func)
    return op_error(op, SHLOC_ERR_VERIFY, "refers to unknown function '%.*s'", (int)ref->u.sym.root.n, ref->u.sym.root.p);
  exec_plan *saved = pc->cur;
  shl_status st = plan_function(pc, *func, out);
  pc->cur = saved;
  return st;
}

static shl_status grid_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  const shl_attr *progs = op_attr(op, "programs");
  if (!progs || progs->kind != AT_ARRAY || !progs->u.arr.n)
    return op_error(op, SHLOC_ERR_VERIFY, "expects a non-empty 'programs' array of arrays of functions");
  grid_params *g = plan_alloc(pc, sizeof *g);
  if (!g) return st_oom();
  g->n_rep = progs->u.arr.n;
  const shl_attr *row0 = progs->u.arr.items[0];
  g->n_part = row0->kind == AT_ARRAY ? row0->u.arr.n : 0;
  uint32_t n = g->n_rep * g->n_part;
  g->programs = plan_alloc(pc, (n + 1) * sizeof *g->programs);
  g->arg_off = plan_alloc(pc, (n + 1) * sizeof *g->arg_off);
  g->res_off = plan_alloc(pc, (n + 1) * sizeof *g->res_off);
  if (!g->programs || !g->arg_off || !g->res_off) return st_oom();
  uint32_t args = 0, res = 0;
  for (uint32_t r = 0; r < g->n_rep; r++) {
    const shl_attr *row = progs->u.arr.items[r];
    if (row->kind != AT_ARRAY || row->u.arr.n != g->n_part || !g->n_part)
      return op_error(op, SHLOC_ERR_VERIFY, "'programs' rows must be non-empty and of equal length");
    for (uint32_t p = 0; p < g->n_part; p++) {
      uint32_t k = r * g->n_part + p;
      const shl_op *f;
      /* A fresh function cache per device: its plans (and their run state) are its own. */
      shl_strmap saved = pc->funcs;
      strmap_init(&pc->funcs, pc->arena);
      shl_status st = plan_callee(pc, op, row->u.arr.items[p], &g->programs[k], &f);
      pc->funcs = saved;
      ST_TRY(st);
      g->arg_off[k] = args;
      g->res_off[k] = res;
      args += func_type(f)->n_in;
      res += func_type(f)->n_out;
    }
  }
  g->arg_off[n] = args;
  g->res_off[n] = res;
  if (args != op->n_operands || res != op->n_results)
    return op_error(op, SHLOC_ERR_VERIFY, "programs take %u arguments and return %u results, the op has %u and %u", args,
                    res, op->n_operands, op->n_results);
  for (uint32_t i = 0; i < op->n_operands + op->n_results; i++) {
    const shl_type *t = i < op->n_operands ? op->operands[i]->type : op->results[i - op->n_operands].type;
    if (plan_leaf_count(t) != 1) return op_error(op, SHLOC_ERR_UNSUPPORTED, "does not pass tuples to programs");
  }
  const shl_attr *feed = op_attr(op, "infeed");
  if (feed) {
    if (feed->kind != AT_ARRAY) return op_error(op, SHLOC_ERR_VERIFY, "expects an 'infeed' array of functions");
    g->n_infeed = feed->u.arr.n;
    g->infeed = plan_alloc(pc, (g->n_infeed + 1) * sizeof *g->infeed);
    if (!g->infeed) return st_oom();
    for (uint32_t i = 0; i < g->n_infeed; i++) {
      const shl_op *f;
      ST_TRY(plan_callee(pc, op, feed->u.arr.items[i], &g->infeed[i], &f));
      if (func_type(f)->n_in) return op_error(op, SHLOC_ERR_VERIFY, "infeed functions take no arguments");
    }
  }
  *params = g;
  return NULL;
}

static void copy_buf(shl_buf *dst, const shl_buf *src) {
  if (dst->data != src->data && src->nbytes) memcpy(dst->data, src->data, src->nbytes);
}

typedef struct {
  exec_ctx *ec;
  const grid_params *g;
  uint32_t k;
  struct exec_process proc;
  uint64_t seq;
  shl_buf *const *in, *const *out;
  shl_status st;
} grid_device;

static void *device_main(void *arg) {
  grid_device *d = arg;
  const grid_params *g = d->g;
  exec_ctx sub = *d->ec;
  sub.proc = &d->proc;
  shl_buf **res;
  d->st = exec_region(&sub, g->programs[d->k], d->in + g->arg_off[d->k], &res);
  for (uint32_t i = g->res_off[d->k]; !d->st && i < g->res_off[d->k + 1]; i++) copy_buf(d->out[i], res[i - g->res_off[d->k]]);
  d->proc.world->t->leave(d->proc.world, d->k, d->st != NULL);
  return NULL;
}

/* Under MPI this rank runs only its own device (rank = device id); then
 * every rank receives every device's results, so what follows the grid
 * (checks) runs alike on all ranks. */
static shl_status grid_run_mpi(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const grid_params *g = po->params;
  coll_world *w;
  uint32_t k = 0;
  ST_TRY(coll_mpi_world_new(ec->x->cfg.mpi, g->n_rep, g->n_part, po->op, &w, &k));
  shl_status st = NULL;
  if (w) {
    struct grid_feed feed = {.next = 0};
    pthread_mutex_init(&feed.mu, NULL);
    grid_device d = {ec, g, k, {k / g->n_part, k % g->n_part, g, &feed, w, NULL}, 0, in, out, NULL};
    d.proc.seq = &d.seq;
    device_main(&d);
    pthread_mutex_destroy(&feed.mu);
    if (d.st) st = st_annotate(d.st, "on device #%u (replica %u, partition %u)", k, d.proc.replica, d.proc.partition);
  }
  st = coll_mpi_finish(ec->x->cfg.mpi, w, po->op, st, g->n_rep * g->n_part, g->res_off, out);
  if (w) w->t->free(w);
  return st;
}

static shl_status grid_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const grid_params *g = po->params;
  uint32_t n = g->n_rep * g->n_part;
  if (ec->x->cfg.mpi) return grid_run_mpi(ec, po, in, out);
  struct grid_feed feed = {.next = 0};
  grid_device *devs = calloc(n, sizeof *devs);
  pthread_t *th = calloc(n, sizeof *th);
  coll_world *w = coll_threads_new(g->n_rep, g->n_part, GRID_TIMEOUT_S);
  if (!devs || !th || !w) {
    free(devs);
    free(th);
    if (w) w->t->free(w);
    return st_oom();
  }
  pthread_mutex_init(&feed.mu, NULL);
  shl_status st = NULL;
  uint32_t started = 0;
  for (uint32_t k = 0; k < n; k++) {
    grid_device *d = &devs[k];
    *d = (grid_device){ec, g, k, {k / g->n_part, k % g->n_part, g, &feed, w, NULL}, 0, in, out, NULL};
    d->proc.seq = &d->seq;
    if (pthread_create(&th[k], NULL, device_main, d)) {
      st = op_error(po->op, SHLOC_ERR_RUNTIME, "could not start a thread for device #%u", k);
      w->t->leave(w, k, true);
      break;
    }
    started++;
  }
  for (uint32_t k = 0; k < started; k++) pthread_join(th[k], NULL);
  /* Report the device that failed first; the others only stopped because of it. */
  int64_t first = w->t->failed_device(w);
  for (uint32_t k = 0; k < started; k++) {
    if (!st && (first < 0 || (int64_t)k == first) && devs[k].st) {
      st = st_annotate(devs[k].st, "on device #%u (replica %u, partition %u)", k, devs[k].proc.replica,
                       devs[k].proc.partition);
      continue;
    }
    if (devs[k].st) shloc_status_free(devs[k].st);
  }
  pthread_mutex_destroy(&feed.mu);
  w->t->free(w);
  free(devs);
  free(th);
  return st;
}

const shl_kernel kernel_run_parallel = {grid_prepare, grid_run};

/* ---- infeed / outfeed ---- */

static shl_status infeed_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  (void)in;
  const shl_op *op = po->op;
  if (!ec->proc || !ec->proc->grid)
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "runs only inside interpreter.run_parallel (its infeed queue)");
  const grid_params *g = ec->proc->grid;
  struct grid_feed *feed = ec->proc->feed;
  coll_world *w = ec->proc->world;
  uint32_t k = 0;
  if (w && w->feed_pop) ST_TRY(w->feed_pop(w, ec->proc->replica * w->n_part + ec->proc->partition, op, &k));
  /* The entry's plan is shared by the devices: run it under the lock. */
  pthread_mutex_lock(&feed->mu);
  if (!w || !w->feed_pop) k = feed->next++;
  shl_status st = k >= g->n_infeed ? op_error(op, SHLOC_ERR_RUNTIME, "infeed queue is empty (%u entries)", g->n_infeed) : NULL;
  shl_buf **res = NULL;
  if (!st) st = exec_region(ec, g->infeed[k], NULL, &res);
  if (st) {
    pthread_mutex_unlock(&feed->mu);
    return st;
  }
  uint32_t n = plan_num_results(g->infeed[k]);
  if (n + 1 != po->n_out)
    st = op_error(op, SHLOC_ERR_RUNTIME, "infeed entry #%u returns %u values, the op takes %u", k, n, po->n_out - 1);
  for (uint32_t i = 0; !st && i < n; i++) {
    if (res[i]->nbytes != out[i]->nbytes || res[i]->dtype != out[i]->dtype)
      st = op_error(op, SHLOC_ERR_RUNTIME, "infeed entry #%u result #%u has the wrong type", k, i);
    else copy_buf(out[i], res[i]);
  }
  pthread_mutex_unlock(&feed->mu);
  return st;
}

static shl_status outfeed_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  (void)in;
  (void)out;
  if (!ec->proc) return op_error(po->op, SHLOC_ERR_UNSUPPORTED, "runs only inside interpreter.run_parallel (its outfeed)");
  return NULL;
}

const shl_kernel kernel_infeed = {NULL, infeed_run};
const shl_kernel kernel_outfeed = {NULL, outfeed_run};

/* ---- replica_id / partition_id ---- */

static shl_status process_id_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  (void)in;
  uint32_t id = !ec->proc ? 0 : op_is(po->op, OP_REPLICA_ID) ? ec->proc->replica : ec->proc->partition;
  memset(out[0]->data, 0, out[0]->nbytes);
  memcpy(out[0]->data, &id, out[0]->nbytes < sizeof id ? out[0]->nbytes : sizeof id);
  return NULL;
}

const shl_kernel kernel_replica_id = {NULL, process_id_run};
