/* X64SplitLow / X64SplitHigh / X64Combine (x64_split.h). */
#include "x64_split.h"

#include <math.h>
#include <string.h>

static bool is_wide(shl_dtype t) { return t == DT_I64 || t == DT_UI64 || t == DT_F64; }

/* The halves' element type for a t value: f32 for f64, a 32-bit integer otherwise. */
static bool half_ok(shl_dtype wide, shl_dtype half) {
  return wide == DT_F64 ? half == DT_F32 : half == DT_UI32 || half == DT_I32;
}

static bool same_shape(const shl_type *a, const shl_type *b) {
  if (a->kind != TY_TENSOR || b->kind != TY_TENSOR || a->rank != b->rank) return false;
  for (int32_t i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

shl_status jax_x64_check(const shl_op *op, shl_str name, bool combine) {
  uint32_t want = combine ? 2 : 1;
  const shl_type *r = op->n_results == 1 ? op->results[0].type : NULL;
  bool ok = op->n_operands == want && r && r->kind == TY_TENSOR;
  for (uint32_t i = 0; ok && i < want; i++) {
    const shl_type *a = op->operands[i]->type;
    ok = same_shape(a, r) && (combine ? is_wide(r->dtype) && half_ok(r->dtype, a->dtype)
                                      : is_wide(a->dtype) && half_ok(a->dtype, r->dtype));
  }
  if (combine && ok) ok = op->operands[0]->type->dtype == op->operands[1]->type->dtype;
  if (ok) return NULL;
  return op_error(op, SHLOC_ERR_VERIFY,
                  combine ? "target '%.*s' takes two halves (ui32/i32, or f32 for f64) and returns one tensor of "
                            "i64, ui64 or f64 of their shape"
                          : "target '%.*s' takes one tensor of i64, ui64 or f64 and returns its half (ui32/i32, or "
                            "f32 for f64) of the same shape",
                  (int)name.n, name.p);
}

void jax_x64_split(shl_dtype t, const void *x, int64_t n, bool high, void *out) {
  for (int64_t i = 0; i < n; i++) {
    if (t == DT_F64) {
      double v;
      memcpy(&v, (const uint8_t *)x + i * 8, 8);
      float hi = (float)v, lo = isfinite(hi) ? (float)(v - (double)hi) : 0.0f;
      memcpy((uint8_t *)out + i * 4, high ? &hi : &lo, 4);
    } else {
      uint64_t v;
      memcpy(&v, (const uint8_t *)x + i * 8, 8);
      uint32_t h = (uint32_t)(high ? v >> 32 : v);
      memcpy((uint8_t *)out + i * 4, &h, 4);
    }
  }
}

void jax_x64_combine(shl_dtype t, const void *lo, const void *hi, int64_t n, void *out) {
  for (int64_t i = 0; i < n; i++) {
    if (t == DT_F64) {
      float h, l;
      memcpy(&h, (const uint8_t *)hi + i * 4, 4);
      memcpy(&l, (const uint8_t *)lo + i * 4, 4);
      double v = (double)h + (double)l;
      memcpy((uint8_t *)out + i * 8, &v, 8);
    } else {
      uint32_t h, l;
      memcpy(&h, (const uint8_t *)hi + i * 4, 4);
      memcpy(&l, (const uint8_t *)lo + i * 4, 4);
      uint64_t v = (uint64_t)h << 32 | l;
      memcpy((uint8_t *)out + i * 8, &v, 8);
    }
  }
}
