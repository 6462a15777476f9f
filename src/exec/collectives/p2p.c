/* stablehlo.send / stablehlo.recv between the devices of a run, paired by
 * channel id as the reference interpreter pairs them (the channel type and
 * is_host_transfer do not change the pairing: a "host" is another device
 * of the run there too).  send's operands are its values and a token, its
 * result a token; recv returns its values and a token. */
#include "device.h"
#include "groups.h"

static shl_status need_peers(const exec_ctx *ec, const shl_op *op) {
  if (!ec->proc)
    return op_error(
        op, SHLOC_ERR_UNSUPPORTED,
        "needs a peer device: it runs inside interpreter.run_parallel or under `shloc run --replicas/--partitions`");
  if (!ec->proc->world->t->send || !ec->proc->world->t->recv)
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "is not supported by this transport");
  return NULL;
}

static uint32_t device_of(const struct exec_process *pr) { return pr->replica * pr->world->n_part + pr->partition; }

static shl_status send_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  (void)out;
  ST_TRY(need_peers(ec, po->op));
  coll_world *w = ec->proc->world;
  return w->t->send(w, device_of(ec->proc), po->op, coll_channel_id(po->op), in, po->n_in - 1);
}

static shl_status recv_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  (void)in;
  ST_TRY(need_peers(ec, po->op));
  coll_world *w = ec->proc->world;
  return w->t->recv(w, device_of(ec->proc), po->op, coll_channel_id(po->op), out, po->n_out - 1);
}

static shl_status p2p_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  (void)pc;
  (void)params;
  bool is_send = op_is(op, OP_SEND);
  uint32_t n = is_send ? op->n_operands : op->n_results;
  const shl_type *last = n ? (is_send ? op->operands[n - 1]->type : op->results[n - 1].type) : NULL;
  if (!last || last->kind != TY_TOKEN)
    return op_error(op, SHLOC_ERR_VERIFY, "expects a token as its last %s", is_send ? "operand" : "result");
  return NULL;
}

const shl_kernel kernel_send = {p2p_prepare, send_run};
const shl_kernel kernel_recv = {p2p_prepare, recv_run};
