/* The reference interpreter's processes: interpreter.run_parallel runs a
 * grid of programs (replica r, partition p) with their own replica_id and
 * partition_id, and gives them an infeed queue (functions whose results the
 * successive stablehlo.infeed ops return) and an outfeed (where
 * stablehlo.outfeed's values go; the interpreter only collects them).
 *
 * The programs run one after another in grid order, so programs that
 * communicate (collectives, send/recv) are not run here: their ops are
 * refused when planned.  Outside run_parallel there is one process (ids 0)
 * and no feed, as in the reference, where infeed/outfeed are errors. */
#include "exec/plan.h"

typedef struct {
  uint32_t n_rep, n_part;
  exec_plan **programs;   /* n_rep * n_part, row-major */
  uint32_t *arg_off, *res_off;
  uint32_t n_infeed;
  exec_plan **infeed;
} grid_params;

struct exec_process {
  uint32_t replica, partition;
  const grid_params *grid;
  uint32_t *next_infeed; /* shared by the grid's processes */
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
      ST_TRY(plan_callee(pc, op, row->u.arr.items[p], &g->programs[k], &f));
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

static shl_status grid_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const grid_params *g = po->params;
  uint32_t next_infeed = 0;
  for (uint32_t k = 0; k < g->n_rep * g->n_part; k++) {
    struct exec_process proc = {k / g->n_part, k % g->n_part, g, &next_infeed};
    exec_ctx sub = *ec;
    sub.proc = &proc;
    shl_buf **res;
    ST_TRY(exec_region(&sub, g->programs[k], in + g->arg_off[k], &res));
    for (uint32_t i = g->res_off[k]; i < g->res_off[k + 1]; i++) copy_buf(out[i], res[i - g->res_off[k]]);
  }
  return NULL;
}

const shl_kernel kernel_run_parallel = {grid_prepare, grid_run};

/* ---- infeed / outfeed ---- */

static shl_status infeed_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  (void)in;
  const shl_op *op = po->op;
  if (!ec->proc) return op_error(op, SHLOC_ERR_UNSUPPORTED, "runs only inside interpreter.run_parallel (its infeed queue)");
  const grid_params *g = ec->proc->grid;
  uint32_t k = (*ec->proc->next_infeed)++;
  if (k >= g->n_infeed) return op_error(op, SHLOC_ERR_RUNTIME, "infeed queue is empty (%u entries)", g->n_infeed);
  shl_buf **res;
  ST_TRY(exec_region(ec, g->infeed[k], NULL, &res));
  uint32_t n = plan_num_results(g->infeed[k]);
  if (n + 1 != po->n_out) return op_error(op, SHLOC_ERR_RUNTIME, "infeed entry #%u returns %u values, the op takes %u", k, n, po->n_out - 1);
  for (uint32_t i = 0; i < n; i++) {
    if (res[i]->nbytes != out[i]->nbytes || res[i]->dtype != out[i]->dtype)
      return op_error(op, SHLOC_ERR_RUNTIME, "infeed entry #%u result #%u has the wrong type", k, i);
    copy_buf(out[i], res[i]);
  }
  return NULL;
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
