/* uniform_quantize, uniform_dequantize and requantization, and the bulk
 * conversions the other quantization kernels share (see quant.h for the
 * arithmetic and why it is the reference interpreter's). */
#include <math.h>

#include "quant.h"
#include "support/scalar.h"

quant_layout quant_layout_of(const shl_type *t) {
  quant_layout L = {1, 1, type_num_elements(t)};
  const shl_quant *q = t->quant;
  if (q && q->axis >= 0 && q->axis < t->rank) {
    L.channels = t->dims[q->axis];
    L.outer = 1;
    for (int32_t d = 0; d < q->axis; d++) L.outer *= t->dims[d];
    L.inner = 1;
    for (int32_t d = q->axis + 1; d < t->rank; d++) L.inner *= t->dims[d];
  }
  return L;
}

const shl_type *quant_expressed_type(plan_ctx *pc, const shl_type *t) {
  shl_type *e = plan_alloc(pc, sizeof *e);
  if (!e) return NULL;
  *e = *t;
  e->dtype = t->quant->expressed;
  e->quant = NULL;
  return e;
}

int64_t quant_load(shl_dtype storage, const void *p, int64_t i) {
  return int_load(storage, (const uint8_t *)p + (size_t)i * dtype_bytes(storage));
}

/* Runs BODY(T) with T the C type that holds `storage`'s elements. */
#define QUANT_STORAGE_SWITCH(storage, BODY)                   \
  switch (storage) {                                          \
    case DT_I2: case DT_I4: case DT_I8:                       \
    case DT_SI2: case DT_SI4: case DT_SI8: BODY(int8_t); break; \
    case DT_UI2: case DT_UI4: case DT_UI8: BODY(uint8_t); break; \
    case DT_I16: case DT_SI16: BODY(int16_t); break;          \
    case DT_UI16: BODY(uint16_t); break;                      \
    case DT_I32: case DT_SI32: BODY(int32_t); break;          \
    case DT_UI32: BODY(uint32_t); break;                      \
    default: break;                                           \
  }

void quant_load_run(shl_dtype storage, const void *src, int64_t off, int64_t stride, int64_t n, int64_t *dst) {
#define LOADR(T)                                                            \
  {                                                                         \
    const T *s = (const T *)src + off;                                      \
    for (int64_t i = 0; i < n; i++) dst[i] = s[i * stride];                 \
  }
  QUANT_STORAGE_SWITCH(storage, LOADR)
#undef LOADR
}

void quant_store_run(shl_dtype storage, void *dst, int64_t off, int64_t n, const int64_t *src) {
#define STORER(T)                                                           \
  {                                                                         \
    T *d = (T *)dst + off;                                                  \
    for (int64_t i = 0; i < n; i++) d[i] = (T)src[i];                       \
  }
  QUANT_STORAGE_SWITCH(storage, STORER)
#undef STORER
}

void quant_center16_run(shl_dtype storage, const void *src, int64_t off, int64_t stride, int64_t n, int64_t zp,
                        int16_t *dst) {
#define CENTER(T)                                                           \
  {                                                                         \
    const T *s = (const T *)src + off;                                      \
    int32_t z = (int32_t)zp;                                                \
    if (stride == 1)                                                        \
      for (int64_t i = 0; i < n; i++) dst[i] = (int16_t)((int32_t)s[i] - z); \
    else                                                                    \
      for (int64_t i = 0; i < n; i++) dst[i] = (int16_t)((int32_t)s[i * stride] - z); \
  }
  QUANT_STORAGE_SWITCH(storage, CENTER)
#undef CENTER
}

/* Rounds a double to expressed type e and back. */
static double to_e(shl_dtype e, double v) { return fp_to_f64(e, fp_from_f64(e, v)); }

/* ---- dequantize: (x - zero_point) in i32, then * scale ---- */

void quant_dequantize(const shl_type *t, const void *src, void *dst) {
  const shl_quant *q = t->quant;
  quant_layout L = quant_layout_of(t);
  shl_dtype e = q->expressed;
  size_t esz = dtype_bytes(e);
#define DEQ(T)                                                                         \
  {                                                                                    \
    const T *s = src;                                                                  \
    for (int64_t o = 0, k = 0; o < L.outer; o++)                                       \
      for (int64_t c = 0; c < L.channels; c++) {                                       \
        uint32_t zp = (uint32_t)(int32_t)q->zero_points[c];                            \
        if (e == DT_F32) {                                                             \
          float sc = (float)q->scales[c], *d = (float *)dst;                           \
          for (int64_t i = 0; i < L.inner; i++, k++)                                   \
            d[k] = (float)(int32_t)((uint32_t)(int32_t)s[k] - zp) * sc;                \
        } else {                                                                       \
          double sc = to_e(e, q->scales[c]);                                           \
          for (int64_t i = 0; i < L.inner; i++, k++) {                                 \
            double v = to_e(e, (double)(int32_t)((uint32_t)(int32_t)s[k] - zp));       \
            fp_store(e, (uint8_t *)dst + (size_t)k * esz, fp_from_f64(e, v * sc));     \
          }                                                                            \
        }                                                                              \
      }                                                                                \
  }
  QUANT_STORAGE_SWITCH(q->storage, DEQ)
#undef DEQ
}

/* ---- quantize: x / scale + zero_point, clamped, rounded to nearest even ---- */

/* A rounded, clamped value to the storage type's range (NaN -> 0), as
 * stablehlo.convert does. */
static inline int64_t sat(double r, int64_t tmin, int64_t tmax) {
  if (r != r) return 0;
  if (r <= (double)tmin) return tmin;
  if (r >= (double)tmax) return tmax;
  return (int64_t)r;
}

void quant_quantize(const shl_type *t, const void *src, void *dst) {
  const shl_quant *q = t->quant;
  quant_layout L = quant_layout_of(t);
  shl_dtype e = q->expressed;
  size_t esz = dtype_bytes(e);
  int64_t tmin = int_min(q->storage), tmax = (int64_t)int_max(q->storage);
#define QNT(T)                                                                         \
  {                                                                                    \
    T *d = dst;                                                                        \
    for (int64_t o = 0, k = 0; o < L.outer; o++)                                       \
      for (int64_t c = 0; c < L.channels; c++) {                                       \
        if (e == DT_F32) {                                                             \
          const float *s = src;                                                        \
          float sc = (float)q->scales[c], zp = (float)q->zero_points[c];               \
          float lo = (float)q->storage_min, hi = (float)q->storage_max;                \
          for (int64_t i = 0; i < L.inner; i++, k++) {                                 \
            float r = s[k] / sc + zp;                                                  \
            r = r < lo ? lo : r;                                                       \
            r = r > hi ? hi : r;                                                       \
            d[k] = (T)sat(quant_rintf(r), tmin, tmax);                                       \
          }                                                                            \
        } else {                                                                       \
          double sc = to_e(e, q->scales[c]), zp = to_e(e, (double)q->zero_points[c]);  \
          double lo = to_e(e, (double)q->storage_min), hi = to_e(e, (double)q->storage_max); \
          for (int64_t i = 0; i < L.inner; i++, k++) {                                 \
            double x = fp_to_f64(e, fp_load(e, (const uint8_t *)src + (size_t)k * esz)); \
            double r = to_e(e, to_e(e, x / sc) + zp);                                  \
            r = r < lo ? lo : r;                                                       \
            r = r > hi ? hi : r;                                                       \
            d[k] = (T)sat(quant_rint(r), tmin, tmax);                                    \
          }                                                                            \
        }                                                                              \
      }                                                                                \
  }
  QUANT_STORAGE_SWITCH(q->storage, QNT)
#undef QNT
}

/* ---- requantize: x * merged_scale + merged_zero_point in f32 ---- */

shl_status quant_requantize_check(const shl_op *op, const shl_type *tin, const shl_type *tout) {
  const shl_quant *a = tin->quant, *b = tout->quant;
  if (a->axis >= 0 && b->axis >= 0 && a->axis != b->axis)
    return op_error(op, SHLOC_ERR_VERIFY, "cannot requantize while changing the quantization dimension (%d to %d)",
                    a->axis, b->axis);
  return NULL;
}

void quant_requantize(const shl_type *tin, const shl_type *tout, const void *src, void *dst) {
  const shl_quant *a = tin->quant, *b = tout->quant;
  int64_t n = type_num_elements(tout);
  if (quant_eq(a, b)) {
    memcpy(dst, src, (size_t)n * dtype_bytes(b->storage));
    return;
  }
  quant_layout L = quant_layout_of(a->axis >= 0 ? tin : tout);
  int64_t tmin = int_min(b->storage), tmax = (int64_t)int_max(b->storage);
  float lo = (float)b->storage_min, hi = (float)b->storage_max;
  int64_t buf[256];
  for (int64_t o = 0, k = 0; o < L.outer; o++)
    for (int64_t c = 0; c < L.channels; c++) {
      uint32_t ca = a->axis >= 0 ? (uint32_t)c : 0, cb = b->axis >= 0 ? (uint32_t)c : 0;
      double ms = a->scales[ca] / b->scales[cb];
      float msf = (float)ms, mzf = (float)((double)b->zero_points[cb] - (double)a->zero_points[ca] * ms);
      for (int64_t i = 0; i < L.inner; i += 256) {
        int64_t m = L.inner - i < 256 ? L.inner - i : 256;
        quant_load_run(a->storage, src, k, 1, m, buf);
        for (int64_t j = 0; j < m; j++) {
          float r = (float)buf[j] * msf + mzf;
          r = r < lo ? lo : r;
          r = r > hi ? hi : r;
          buf[j] = sat(quant_rintf(r), tmin, tmax);
        }
        quant_store_run(b->storage, dst, k, m, buf);
        k += m;
      }
    }
}

/* ---- the ops ---- */

static shl_status uq_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  (void)pc;
  (void)params;
  const shl_type *in = op->operands[0]->type, *out = op->results[0].type;
  if (out->dtype != DT_QUANT || !out->quant)
    return op_error(op, SHLOC_ERR_VERIFY, "result must be a quantized tensor");
  if (in->dtype == DT_QUANT) return quant_requantize_check(op, in, out);
  if (in->dtype != out->quant->expressed)
    return op_error(op, SHLOC_ERR_VERIFY, "operand element type must be the result's expressed type");
  return NULL;
}

static shl_status uq_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  (void)ec;
  const shl_type *ti = po->op->operands[0]->type, *to = po->op->results[0].type;
  if (ti->dtype == DT_QUANT) quant_requantize(ti, to, in[0]->data, out[0]->data);
  else quant_quantize(to, in[0]->data, out[0]->data);
  return NULL;
}

const shl_kernel kernel_uniform_quantize = {uq_prepare, uq_run};

static shl_status udq_prepare(plan_ctx *pc, const shl_op *op, void **params) {
  (void)pc;
  (void)params;
  const shl_type *in = op->operands[0]->type, *out = op->results[0].type;
  if (in->dtype != DT_QUANT || !in->quant) return op_error(op, SHLOC_ERR_VERIFY, "operand must be a quantized tensor");
  if (out->dtype != in->quant->expressed)
    return op_error(op, SHLOC_ERR_VERIFY, "result element type must be the operand's expressed type");
  return NULL;
}

static shl_status udq_run(exec_ctx *ec, const plan_op *po, shl_buf *const *in, shl_buf *const *out) {
  (void)ec;
  quant_dequantize(po->op->operands[0]->type, in[0]->data, out[0]->data);
  return NULL;
}

const shl_kernel kernel_uniform_dequantize = {udq_prepare, udq_run};
