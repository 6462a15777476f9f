/* add on quantized tensors in integers, as the reference interpreter's
 * lowering computes it: both operands requantized to the result's scale and
 * zero point into i32 (x * merged_scale + merged_zero_point in f32, rounded
 * to nearest even; a plain widening when the types are equal), summed, the
 * result's zero point subtracted, clamped to the storage range.  One
 * per-axis i32 type throughout adds the storage values and subtracts the
 * channel's zero point. */
#include <math.h>
#include <stdlib.h>

#include "quant.h"
#include "support/scalar.h"

/* Operand k requantized to the result's parameters, in i32. */
static void to_result_i32(const shl_type *t, const shl_quant *out, const void *src, int32_t *dst) {
  const shl_quant *q = t->quant;
  int64_t n = type_num_elements(t);
  bool same = quant_eq(q, out);
  double ms = q->scales[0] / out->scales[0];
  float msf = (float)ms, mzf = (float)((double)out->zero_points[0] - (double)q->zero_points[0] * ms);
  for (int64_t i = 0; i < n; i++) {
    int64_t x = quant_load(q->storage, src, i);
    if (same) {
      dst[i] = (int32_t)x;
      continue;
    }
    float r = quant_rintf((float)x * msf + mzf);
    dst[i] = r != r ? 0 : r >= 2147483648.0f ? INT32_MAX : r < -2147483648.0f ? INT32_MIN : (int32_t)r;
  }
}

static shl_status qadd_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  (void)ec;
  const shl_op *op = po->op;
  const shl_type *tl = op->operands[0]->type, *tr = op->operands[1]->type, *to = op->results[0].type;
  const shl_quant *q = to->quant;
  int64_t n = out[0]->n;
  size_t osz = dtype_bytes(q->storage);
  uint8_t *dst = out[0]->data;
  if (q->axis >= 0) { /* one per-axis i32 type: l + r - zp[c] */
    quant_layout L = quant_layout_of(to);
    for (int64_t o = 0, k = 0; o < L.outer; o++)
      for (int64_t c = 0; c < L.channels; c++)
        for (int64_t i = 0; i < L.inner; i++, k++) {
          uint32_t s = (uint32_t)quant_load(q->storage, in[0]->data, k) + (uint32_t)quant_load(q->storage, in[1]->data, k) -
                       (uint32_t)q->zero_points[c];
          int_store(q->storage, dst + (size_t)k * osz, (int32_t)s);
        }
    return NULL;
  }
  int32_t *a = malloc((size_t)(n ? n : 1) * 2 * sizeof *a);
  if (!a) return st_oom();
  int32_t *b = a + (n ? n : 1);
  to_result_i32(tl, q, in[0]->data, a);
  to_result_i32(tr, q, in[1]->data, b);
  bool wide = dtype_bits(q->storage) == 32;
  for (int64_t i = 0; i < n; i++) {
    int64_t s = (int32_t)((uint32_t)a[i] + (uint32_t)b[i] - (uint32_t)q->zero_points[0]);
    if (!wide) s = s < q->storage_min ? q->storage_min : s > q->storage_max ? q->storage_max : s;
    int_store(q->storage, dst + (size_t)i * osz, s);
  }
  free(a);
  return NULL;
}

const shl_kernel kernel_quant_add = {NULL, qadd_run};
