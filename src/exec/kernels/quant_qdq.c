/* Which kernel runs an op on quantized tensors, and the two generic ones:
 *
 * - storage: ops that only move or pick elements (shape ops, gather, select,
 *   maximum/minimum of one quantized type) run their integer kernel on the
 *   storage values, as the reference interpreter's lowering does;
 * - qdq: everything else the spec defines as dequantize_op_quantize (and the
 *   hybrid form with a float lhs): quantized operands are dequantized to the
 *   expressed type, the op's own float kernel runs, quantized results are
 *   quantized.
 *
 * add, dot_general/dot and convolution have integer kernels (quant_add.c,
 * quant_dot.c); uniform_quantize/dequantize are in quant_convert.c. */
#include <stdlib.h>

#include "quant.h"

static bool is_quant(const shl_type *t) { return t && t->kind == TY_TENSOR && t->dtype == DT_QUANT && t->quant; }

/* Same storage, range, expressed type, scales and zero points; the
 * quantization dimension may move (transpose, reshape, broadcast). */
static bool same_params(const shl_quant *a, const shl_quant *b) {
  if (a->storage != b->storage || a->expressed != b->expressed || a->storage_min != b->storage_min ||
      a->storage_max != b->storage_max || a->n_scales != b->n_scales || (a->axis < 0) != (b->axis < 0))
    return false;
  for (uint32_t i = 0; i < a->n_scales; i++)
    if (a->scales[i] != b->scales[i] || a->zero_points[i] != b->zero_points[i]) return false;
  return true;
}

/* Every quantized operand and result has the first one's parameters. */
static bool uniform_params(const shl_op *op) {
  const shl_quant *q0 = NULL;
  for (uint32_t i = 0; i < op->n_operands + op->n_results; i++) {
    const shl_type *t = i < op->n_operands ? op->operands[i]->type : op->results[i - op->n_operands].type;
    if (!is_quant(t)) continue;
    if (!q0) q0 = t->quant;
    else if (!same_params(q0, t->quant)) return false;
  }
  return true;
}

static bool touches_quant(const shl_op *op) {
  for (uint32_t i = 0; i < op->n_operands; i++)
    if (is_quant(op->operands[i]->type)) return true;
  for (uint32_t i = 0; i < op->n_results; i++)
    if (is_quant(op->results[i].type)) return true;
  return false;
}

/* add in integers: all per-tensor, or one per-axis i32 type throughout
 * (the reference's integer forms); otherwise dequantize_op_quantize. */
static bool add_in_integers(const shl_op *op) {
  const shl_type *l = op->operands[0]->type, *r = op->operands[1]->type, *o = op->results[0].type;
  if (!is_quant(l) || !is_quant(r) || !is_quant(o)) return false;
  if (l->quant->axis < 0 && r->quant->axis < 0 && o->quant->axis < 0) return true;
  return quant_eq(l->quant, r->quant) && quant_eq(l->quant, o->quant) && dtype_bits(o->quant->storage) == 32;
}

const shl_kernel *quant_kernel_for(const shl_op *op) {
  if (!touches_quant(op)) return NULL;
  switch (op_id(op)) {
    case OP_UNIFORM_QUANTIZE:
    case OP_UNIFORM_DEQUANTIZE:
      return NULL;
    case OP_ADD:
      return op->n_operands == 2 && add_in_integers(op) ? &kernel_quant_add : &kernel_quant_qdq;
    case OP_DOT_GENERAL:
    case OP_DOT:
    case OP_CONVOLUTION:
      return op->n_operands == 2 && is_quant(op->operands[0]->type) ? &kernel_quant_dot : &kernel_quant_qdq;
    case OP_MAXIMUM:
    case OP_MINIMUM:
    case OP_SELECT:
    case OP_CLAMP:
    case OP_BITCAST_CONVERT:
    case OP_BROADCAST_IN_DIM:
    case OP_BROADCAST:
    case OP_RESHAPE:
    case OP_TRANSPOSE:
    case OP_REVERSE:
    case OP_SLICE:
    case OP_DYNAMIC_SLICE:
    case OP_DYNAMIC_UPDATE_SLICE:
    case OP_CONCATENATE:
    case OP_PAD:
    case OP_GATHER:
      /* Picking elements commutes with (de)quantization when every value
       * shares one set of parameters (bitcast_convert reinterprets bits). */
      return op_is(op, OP_BITCAST_CONVERT) || uniform_params(op) ? &kernel_quant_storage : &kernel_quant_qdq;
    default:
      /* Ops with regions (reduce, sort, while, scatter, ...) and the rest of
       * the structural ops (constants, tuples, calls, custom calls, checks,
       * probes) keep their own kernel on storage values; region bodies run
       * their ops through this dispatch. */
      if (op->n_regions || !(op->def->traits & T_EW)) {
        switch (op_id(op)) {
          case OP_IOTA:
          case OP_BATCH_NORM_INFERENCE:
          case OP_BATCH_NORM_TRAINING:
          case OP_BATCH_NORM_GRAD:
          case OP_CHOLESKY:
          case OP_TRIANGULAR_SOLVE:
          case OP_REDUCE_PRECISION:
            return &kernel_quant_qdq;
          default:
            return NULL;
        }
      }
      return &kernel_quant_qdq;
  }
}

/* ---- the shadow op: the same op over other element types ---- */

typedef struct {
  const shl_kernel *inner;
  void *inner_params;
  const shl_op *shadow;
  bool *q_in, *q_out; /* which operands / results are quantized */
} wrap_params;

/* Builds the op with quantized element types replaced by their expressed
 * (qdq) or storage (storage) types, and prepares its own kernel on it. */
static shl_status wrap_prepare(plan_ctx *pc, const shl_op *op, bool expressed, wrap_params **out) {
  wrap_params *wp = plan_alloc(pc, sizeof *wp);
  shl_value **ins = plan_alloc(pc, (op->n_operands + 1) * sizeof *ins);
  const shl_type **outs = plan_alloc(pc, (op->n_results + 1) * sizeof *outs);
  if (!wp || !ins || !outs) return st_oom();
  memset(wp, 0, sizeof *wp);
  wp->q_in = plan_alloc(pc, op->n_operands + 1);
  wp->q_out = plan_alloc(pc, op->n_results + 1);
  if (!wp->q_in || !wp->q_out) return st_oom();
  for (uint32_t i = 0; i < op->n_operands + op->n_results; i++) {
    bool is_in = i < op->n_operands;
    const shl_type *t = is_in ? op->operands[i]->type : op->results[i - op->n_operands].type;
    if (t && (t->kind == TY_TUPLE || (t->kind == TY_TENSOR && !type_is_static(t))))
      return op_error(op, SHLOC_ERR_UNSUPPORTED, "on quantized tensors needs statically shaped tensor operands");
    const shl_type *nt = t;
    if (is_quant(t)) {
      shl_type *c = plan_alloc(pc, sizeof *c);
      if (!c) return st_oom();
      *c = *t;
      c->dtype = expressed ? t->quant->expressed : t->quant->storage;
      c->quant = NULL;
      nt = c;
    }
    if (is_in) {
      wp->q_in[i] = nt != t;
      ins[i] = op->operands[i];
      if (nt != t) {
        shl_value *v = plan_alloc(pc, sizeof *v);
        if (!v) return st_oom();
        *v = *op->operands[i];
        v->type = nt;
        ins[i] = v;
      }
    } else {
      wp->q_out[i - op->n_operands] = nt != t;
      outs[i - op->n_operands] = nt;
    }
  }
  shl_arena *a = pc->arena;
  shl_op *sh = op_create(a, op->def, op->name, op->n_operands, ins, op->n_results, outs, op->n_attrs, op->attrs, 0);
  if (!sh) return st_oom();
  sh->pos = op->pos;
  sh->loc = op->loc;
  sh->block = op->block;
  wp->shadow = sh;
  wp->inner = plan_kernel_of(sh);
  if (!wp->inner->run) return op_error(op, SHLOC_ERR_UNSUPPORTED, "is not supported by the executor");
  if (wp->inner->prepare) ST_TRY(wp->inner->prepare(pc, sh, &wp->inner_params));
  *out = wp;
  return NULL;
}

static shl_status run_inner(exec_ctx *ec, const plan_op *po, const wrap_params *wp, shl_buf *const *in,
                            shl_buf *const *out) {
  plan_op ipo = *po;
  ipo.op = wp->shadow;
  ipo.kernel = wp->inner;
  ipo.params = wp->inner_params;
  return wp->inner->run(ec, &ipo, in, out);
}

/* ---- storage: the integer kernel on the storage values ---- */

static shl_status storage_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  wrap_params *wp;
  ST_TRY(wrap_prepare(pc, op, false, &wp));
  *params = wp;
  return NULL;
}

static shl_status storage_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  return run_inner(ec, po, po->params, in, out);
}

const shl_kernel kernel_quant_storage = {storage_prepare, storage_run};

/* ---- qdq: dequantize, the float op, quantize ---- */

static shl_status qdq_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  wrap_params *wp;
  ST_TRY(wrap_prepare(pc, op, true, &wp));
  *params = wp;
  return NULL;
}

static shl_status qdq_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const wrap_params *wp = po->params;
  const shl_op *op = po->op, *sh = wp->shadow;
  uint32_t n_in = op->n_operands, n_out = op->n_results;
  shl_buf *bufs = calloc(n_in + n_out + 1, sizeof *bufs);
  shl_buf **ptrs = calloc(n_in + n_out + 1, sizeof *ptrs);
  shl_status st = NULL;
  if (!bufs || !ptrs) {
    st = st_oom();
    goto out;
  }
  for (uint32_t i = 0; i < n_in + n_out; i++) {
    bool is_in = i < n_in;
    bool q = is_in ? wp->q_in[i] : wp->q_out[i - n_in];
    if (!q) {
      ptrs[i] = is_in ? in[i] : out[i - n_in];
      continue;
    }
    const shl_type *t = is_in ? sh->operands[i]->type : sh->results[i - n_in].type;
    int64_t nb = type_num_bytes(t);
    void *d = malloc(nb > 0 ? (size_t)nb : 1);
    if (!d) {
      st = st_oom();
      goto out;
    }
    buf_init(&bufs[i], t, d);
    ptrs[i] = &bufs[i];
    if (is_in) quant_dequantize(op->operands[i]->type, in[i]->data, d);
  }
  st = run_inner(ec, po, wp, ptrs, ptrs + n_in);
  for (uint32_t i = 0; !st && i < n_out; i++)
    if (wp->q_out[i]) quant_quantize(op->results[i].type, bufs[n_in + i].data, out[i]->data);
out:
  for (uint32_t i = 0; bufs && i < n_in + n_out; i++) free(bufs[i].data);
  free(bufs);
  free(ptrs);
  return st;
}

const shl_kernel kernel_quant_qdq = {qdq_prepare, qdq_run};
