/* chlo.scan: runs the body once per position along `dimension` (from the end
 * when is_reverse), feeding it the inputs' slices at that position and the
 * carries, and writing the body's first results into the outputs at that
 * position (ChloLegalizeToStablehlo.cpp lowers it to the same loop):
 *
 *   carry = inits
 *   for t in 0..n-1:  p = is_reverse ? n-1-t : t
 *     outs_p, carry = body(inputs[.., p, ..], carry)
 *   results = outputs, carry
 *
 * n is the inputs' size along the dimension, or the outputs' when there are
 * no inputs.  is_associative only permits other evaluation orders. */
#include <stdlib.h>

#include "exec/plan.h"
#include "kutil.h"

typedef struct {
  uint32_t n_in, n_carry, n_out;
  int64_t dim, steps;
  bool reverse;
} scan_params;

static shl_status scan_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  (void)pc;
  int64_t seg[2];
  size_t n = 0;
  if (!attr_as_ints(op_attr(op, "operandSegmentSizes"), seg, 2, &n) || n != 2 || seg[0] < 0 || seg[1] < 0 ||
      seg[0] + seg[1] != (int64_t)op->n_operands || seg[1] > (int64_t)op->n_results || op->n_regions != 1 ||
      op->regions[0].n_blocks != 1 || op->regions[0].blocks[0]->n_args != op->n_operands)
    return op_error(op, SHLOC_ERR_VERIFY, "has an inconsistent operand split or body");
  scan_params *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  p->n_in = (uint32_t)seg[0];
  p->n_carry = (uint32_t)seg[1];
  p->n_out = op->n_results - p->n_carry;
  if (!attr_as_int(op_attr(op, "dimension"), &p->dim) || p->dim < 0)
    return op_error(op, SHLOC_ERR_VERIFY, "needs a non-negative 'dimension'");
  p->reverse = ku_bool(op, "is_reverse", false);
  p->steps = -1;
  for (uint32_t i = 0; i < op->n_operands; i++)
    if (!type_is_static(op->operands[i]->type) || !type_is_static(op->regions[0].blocks[0]->args[i].type))
      return op_error(op, SHLOC_ERR_UNSUPPORTED, "needs static shapes");
  for (uint32_t i = 0; i < op->n_results; i++)
    if (!type_is_static(op->results[i].type)) return op_error(op, SHLOC_ERR_UNSUPPORTED, "needs static shapes");
  /* Inputs and outputs all have the scanned dimension, of one size. */
  for (uint32_t i = 0; i < p->n_in + p->n_out; i++) {
    const shl_type *t = i < p->n_in ? op->operands[i]->type : op->results[i - p->n_in].type;
    if (p->dim >= t->rank) return op_error(op, SHLOC_ERR_VERIFY, "scan dimension is out of bounds");
    if (p->steps >= 0 && t->dims[p->dim] != p->steps)
      return op_error(op, SHLOC_ERR_VERIFY, "inputs and outputs differ in the scan dimension's size");
    p->steps = t->dims[p->dim];
  }
  if (p->steps < 0) return op_error(op, SHLOC_ERR_VERIFY, "needs at least one input or output");
  *params = p;
  return NULL;
}

/* Copies the slice at position `pos` of dimension `dim` between a tensor and
 * a buffer holding one slice (to_slice: tensor -> slice, else slice -> tensor). */
static void slice_copy(const shl_buf *t, int64_t dim, int64_t pos, void *slice, bool to_slice) {
  int64_t outer = 1, inner = (int64_t)dtype_bytes(t->dtype);
  for (int64_t d = 0; d < dim; d++) outer *= t->dims[d];
  for (int32_t d = (int32_t)dim + 1; d < t->rank; d++) inner *= t->dims[d];
  int64_t len = t->dims[dim];
  for (int64_t o = 0; o < outer; o++) {
    uint8_t *tp = (uint8_t *)t->data + (o * len + pos) * inner, *sp = (uint8_t *)slice + o * inner;
    if (to_slice) memcpy(sp, tp, (size_t)inner);
    else memcpy(tp, sp, (size_t)inner);
  }
}

static shl_status scan_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const scan_params *p = po->params;
  const shl_block *body = po->op->regions[0].blocks[0];
  uint32_t n_args = p->n_in + p->n_carry;
  /* Argument buffers: one slice per input, then the carries, which live in
   * the carry results (out[n_out..]) between steps. */
  shl_buf *args = calloc(n_args + 1, sizeof *args);
  shl_buf **argp = calloc(n_args + 1, sizeof *argp);
  void **slices = calloc(p->n_in + 1, sizeof *slices);
  /* New carries are staged first: a body may return one carry argument in
   * another's place (a swap), and the arguments are the carry results. */
  size_t carry_bytes = 0;
  for (uint32_t c = 0; c < p->n_carry; c++) carry_bytes += out[p->n_out + c]->nbytes;
  uint8_t *stage = malloc(carry_bytes + 1);
  shl_status st = NULL;
  if (!args || !argp || !slices || !stage) {
    st = st_oom();
    goto done;
  }
  for (uint32_t i = 0; i < p->n_in; i++) {
    buf_init(&args[i], body->args[i].type, NULL);
    if (!(slices[i] = malloc(args[i].nbytes + 1))) {
      st = st_oom();
      goto done;
    }
    args[i].data = slices[i];
  }
  for (uint32_t c = 0; c < p->n_carry; c++) {
    shl_buf *cr = out[p->n_out + c];
    if (cr->nbytes != in[p->n_in + c]->nbytes) {
      st = op_error(po->op, SHLOC_ERR_VERIFY, "carry #%u changes its type", c);
      goto done;
    }
    memcpy(cr->data, in[p->n_in + c]->data, cr->nbytes);
    args[p->n_in + c] = *cr;
  }
  for (uint32_t i = 0; i < n_args; i++) argp[i] = &args[i];
  if (plan_num_results(po->regions[0]) != p->n_out + p->n_carry) {
    st = op_error(po->op, SHLOC_ERR_VERIFY, "body returns %u values, expected %u", plan_num_results(po->regions[0]),
                  p->n_out + p->n_carry);
    goto done;
  }
  for (int64_t t = 0; t < p->steps && !st; t++) {
    int64_t pos = p->reverse ? p->steps - 1 - t : t;
    for (uint32_t i = 0; i < p->n_in; i++) slice_copy(in[i], p->dim, pos, slices[i], true);
    shl_buf **res;
    if ((st = exec_region(ec, po->regions[0], argp, &res))) break;
    for (uint32_t i = 0; i < p->n_out + p->n_carry && !st; i++) {
      shl_buf *dst = out[i];
      size_t want = i < p->n_out ? dst->nbytes / (size_t)(p->steps ? p->steps : 1) : dst->nbytes;
      if (res[i]->nbytes != want) st = op_error(po->op, SHLOC_ERR_VERIFY, "body result #%u has the wrong size", i);
    }
    if (st) break;
    for (uint32_t i = 0; i < p->n_out; i++) slice_copy(out[i], p->dim, pos, res[i]->data, false);
    size_t off = 0;
    for (uint32_t c = 0; c < p->n_carry; c++) {
      memcpy(stage + off, res[p->n_out + c]->data, out[p->n_out + c]->nbytes);
      off += out[p->n_out + c]->nbytes;
    }
    off = 0;
    for (uint32_t c = 0; c < p->n_carry; c++) {
      memcpy(out[p->n_out + c]->data, stage + off, out[p->n_out + c]->nbytes);
      off += out[p->n_out + c]->nbytes;
    }
  }
done:
  if (slices)
    for (uint32_t i = 0; i < p->n_in; i++) free(slices[i]);
  free(slices);
  free(stage);
  free(args);
  free(argp);
  return st;
}

const shl_kernel kernel_scan = {scan_prepare, scan_run};
