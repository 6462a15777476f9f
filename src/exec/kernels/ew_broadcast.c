/* chlo.broadcast_*: numpy-style implicit broadcasting (trailing dimensions
 * aligned, or the mapping given by broadcast_dimensions), then the
 * elementwise op.  Operands that need broadcasting are expanded into a
 * temporary buffer; the strides for that are computed once at plan time. */
#include <stdlib.h>

#include "ew_common.h"
#include "exec/plan.h"
#include "support/scalar.h"

typedef enum { BK_BINARY, BK_COMPARE, BK_SELECT } bcast_kind;

typedef struct {
  bool identity;    /* same shape as the result: used in place */
  int64_t *strides; /* per result dimension, 0 where broadcast */
} bcast_operand;

typedef struct {
  bcast_kind kind;
  ew_binary_op bin;
  ew_compare_op cmp;
  int32_t rank;
  const int64_t *dims;
  bcast_operand ops[3];
} bcast_params;

static shl_opid underlying(shl_opid id) {
  switch (id) {
    case OP_CHLO_BROADCAST_ADD:
      return OP_ADD;
    case OP_CHLO_BROADCAST_SUBTRACT:
      return OP_SUBTRACT;
    case OP_CHLO_BROADCAST_MULTIPLY:
      return OP_MULTIPLY;
    case OP_CHLO_BROADCAST_DIVIDE:
      return OP_DIVIDE;
    case OP_CHLO_BROADCAST_REMAINDER:
      return OP_REMAINDER;
    case OP_CHLO_BROADCAST_POWER:
      return OP_POWER;
    case OP_CHLO_BROADCAST_MAXIMUM:
      return OP_MAXIMUM;
    case OP_CHLO_BROADCAST_MINIMUM:
      return OP_MINIMUM;
    case OP_CHLO_BROADCAST_AND:
      return OP_AND;
    case OP_CHLO_BROADCAST_OR:
      return OP_OR;
    case OP_CHLO_BROADCAST_XOR:
      return OP_XOR;
    case OP_CHLO_BROADCAST_ATAN2:
      return OP_ATAN2;
    case OP_CHLO_BROADCAST_COMPLEX:
      return OP_COMPLEX;
    case OP_CHLO_BROADCAST_SHIFT_LEFT:
      return OP_SHIFT_LEFT;
    case OP_CHLO_BROADCAST_SHIFT_RIGHT_ARITHMETIC:
      return OP_SHIFT_RIGHT_ARITHMETIC;
    case OP_CHLO_BROADCAST_SHIFT_RIGHT_LOGICAL:
      return OP_SHIFT_RIGHT_LOGICAL;
    case OP_CHLO_BROADCAST_NEXT_AFTER:
      return OP_CHLO_NEXT_AFTER;
    case OP_CHLO_BROADCAST_POLYGAMMA:
      return OP_CHLO_POLYGAMMA;
    case OP_CHLO_BROADCAST_ZETA:
      return OP_CHLO_ZETA;
    case OP_CHLO_BROADCAST_COMPARE:
      return OP_COMPARE;
    case OP_CHLO_BROADCAST_SELECT:
      return OP_SELECT;
    default:
      return OP_UNKNOWN;
  }
}

static shl_status map_operand(plan_ctx *pc, const shl_op *op, uint32_t k, const shl_type *rt, bcast_operand *bo) {
  const shl_type *t = op->operands[k]->type;
  if (!type_is_static(t)) return op_error(op, SHLOC_ERR_UNSUPPORTED, "operand #%u has a dynamic shape", k);
  int64_t map[64];
  size_t nb = 0;
  const shl_attr *bd = op_attr(op, "broadcast_dimensions");
  if (t->rank > rt->rank || t->rank > 64)
    return op_error(op, SHLOC_ERR_VERIFY, "operand #%u has a higher rank than the result", k);
  if (bd && t->rank < rt->rank && op->n_operands == 2) {
    if (!attr_as_ints(bd, map, 64, &nb) || nb != (size_t)t->rank)
      return op_error(op, SHLOC_ERR_VERIFY, "broadcast_dimensions does not match operand #%u", k);
  } else {
    for (int32_t i = 0; i < t->rank; i++) map[i] = rt->rank - t->rank + i;
  }
  bo->strides = plan_alloc(pc, (size_t)(rt->rank + 1) * sizeof(int64_t));
  if (!bo->strides) return st_oom();
  memset(bo->strides, 0, (size_t)(rt->rank + 1) * sizeof(int64_t));
  bo->identity = t->rank == rt->rank;
  int64_t s = 1;
  for (int32_t i = t->rank - 1; i >= 0; i--) {
    if (map[i] < 0 || map[i] >= rt->rank) return op_error(op, SHLOC_ERR_VERIFY, "broadcast_dimensions is out of range");
    int64_t od = rt->dims[map[i]];
    if (t->dims[i] == od)
      bo->strides[map[i]] = s;
    else if (t->dims[i] != 1)
      return op_error(op, SHLOC_ERR_VERIFY, "operand #%u is not broadcastable to the result", k);
    if (t->dims[i] != od || map[i] != i) bo->identity = false;
    s *= t->dims[i];
  }
  return NULL;
}

static shl_status bcast_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  shl_opid u = underlying(op_id(op));
  bcast_params *p = plan_alloc(pc, sizeof *p);
  if (!p) return st_oom();
  memset(p, 0, sizeof *p);
  uint32_t want = u == OP_SELECT ? 3 : 2;
  if (op->n_operands != want || op->n_results != 1)
    return op_error(op, SHLOC_ERR_VERIFY, "has the wrong number of operands");
  const shl_type *rt = op->results[0].type;
  for (uint32_t k = 0; k < want; k++) {
    if (op->operands[k]->type->dtype == DT_QUANT)
      return op_error(op, SHLOC_ERR_UNSUPPORTED, "quantized operands are not supported");
    ST_TRY(map_operand(pc, op, k, rt, &p->ops[k]));
  }
  p->rank = rt->rank;
  p->dims = rt->dims;
  shl_dtype in = type_storage_dtype(op->operands[want == 3 ? 1 : 0]->type);
  if (u == OP_COMPARE) {
    p->kind = BK_COMPARE;
    ST_TRY(ew_compare_init(op, in, &p->cmp));
  } else if (u == OP_SELECT) {
    p->kind = BK_SELECT;
  } else {
    p->kind = BK_BINARY;
    ST_TRY(ew_binary_init(op, u, in, type_storage_dtype(rt), &p->bin));
  }
  *params = p;
  return NULL;
}

/* Expands src into dst (the result's shape) with the given strides. */
static void expand(const bcast_params *p, const int64_t *strides, const void *src, void *dst, int64_t n, size_t esz) {
  int64_t idx[64] = {0}, off = 0;
  for (int64_t i = 0; i < n; i++) {
    memcpy((uint8_t *)dst + (size_t)i * esz, (const uint8_t *)src + (size_t)off * esz, esz);
    for (int32_t d = p->rank - 1; d >= 0; d--) {
      off += strides[d];
      if (++idx[d] < p->dims[d]) break;
      off -= strides[d] * p->dims[d];
      idx[d] = 0;
    }
  }
}

static shl_status bcast_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  const bcast_params *p = po->params;
  int64_t n = out[0]->n;
  uint32_t k_n = p->kind == BK_SELECT ? 3 : 2;
  const void *args[3];
  void *tmp[3] = {NULL, NULL, NULL};
  shl_status st = NULL;
  for (uint32_t k = 0; k < k_n; k++) {
    if (p->ops[k].identity) {
      args[k] = in[k]->data;
      continue;
    }
    size_t esz = dtype_bytes(in[k]->dtype);
    tmp[k] = malloc(n ? (size_t)n * esz : 1);
    if (!tmp[k]) {
      st = st_oom();
      goto out;
    }
    expand(p, p->ops[k].strides, in[k]->data, tmp[k], n, esz);
    args[k] = tmp[k];
  }
  switch (p->kind) {
    case BK_BINARY:
      ew_binary_apply(&p->bin, args[0], args[1], out[0]->data, n);
      break;
    case BK_COMPARE:
      ew_compare_apply(&p->cmp, args[0], args[1], out[0]->data, n);
      break;
    case BK_SELECT:
      ew_select_apply(args[0], n, args[1], args[2], out[0]->data, n, dtype_bytes(out[0]->dtype));
      break;
  }
out:
  for (uint32_t k = 0; k < 3; k++) free(tmp[k]);
  return st;
}

const shl_kernel kernel_chlo_broadcast = {bcast_prepare, bcast_run};
