/* dot_general `algorithm`: spec check, choice, and the split products. */
#include "dot_algorithm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/scalar.h"

/* The scalar type of a field, or false. */
static bool field_type(const shl_attr *al, const char *name, shl_dtype *out) {
  const shl_attr *f = attr_struct_field(al, name);
  if (!f || f->kind != AT_TYPE || !f->type || f->type->kind != TY_SCALAR) return false;
  *out = f->type->dtype;
  return true;
}

static bool field_bool(const shl_attr *al, const char *name, bool *out) {
  const shl_attr *f = attr_struct_field(al, name);
  if (!f || f->kind != AT_BOOL) return false;
  *out = f->u.b;
  return true;
}

typedef struct {
  shl_dtype lhs, rhs, acc;
  int64_t lc, rc, ops;
  bool imprecise;
} alg_fields;

/* Combinations the StableHLO verifier knows to be supported on some
 * hardware (stablehlo/dialect/Base.cpp isKnownDotAlgorithm); component
 * counts are 1 for all of them. */
static bool known(const alg_fields *f) {
  if (f->lc != 1 || f->rc != 1) return false;
  bool f8l = dtype_is_float(f->lhs) && dtype_bits(f->lhs) == 8, f8r = dtype_is_float(f->rhs) && dtype_bits(f->rhs) == 8;
  if (f8l && f8r) return f->acc == DT_F32 && f->ops == 1;
  if (f->imprecise || f->lhs != f->rhs) return false;
  switch (f->lhs) {
    case DT_F16: return (f->acc == DT_F16 || f->acc == DT_F32) && f->ops == 1;
    case DT_BF16:
      return (f->acc == DT_BF16 && f->ops == 1) ||
             (f->acc == DT_F32 && (f->ops == 1 || f->ops == 3 || f->ops == 6 || f->ops == 9));
    case DT_TF32: return f->acc == DT_F32 && (f->ops == 1 || f->ops == 3);
    case DT_F32: return f->acc == DT_F32 && f->ops == 1;
    case DT_F64: return f->acc == DT_F64 && f->ops == 1;
    default: return false;
  }
}

/* The preset name JAX and XLA use, e.g. BF16_BF16_F32_X3. */
static const char *preset_name(const alg_fields *f, char *buf, size_t n) {
  char l[16], r[16], a[16];
  const char *src[3] = {dtype_name(f->lhs), dtype_name(f->rhs), dtype_name(f->acc)};
  char *dst[3] = {l, r, a};
  for (int k = 0; k < 3; k++) {
    size_t i = 0;
    for (; src[k][i] && i + 1 < sizeof l; i++) dst[k][i] = (char)(src[k][i] >= 'a' && src[k][i] <= 'z' ? src[k][i] - 32 : src[k][i]);
    dst[k][i] = 0;
  }
  if (f->ops > 1) snprintf(buf, n, "%s_%s_%s_X%lld", l, r, a, (long long)f->ops);
  else snprintf(buf, n, "%s_%s_%s", l, r, a);
  return buf;
}

static shl_status choose(const shl_op *op, const alg_fields *f, ku_ck ck, dot_alg *out) {
  char name[96];
  preset_name(f, name, sizeof name);
  bool f32acc = f->acc == DT_F32 && !f->imprecise;
  /* Integer products and sums are exact (wrapping at the result width):
   * there is nothing for float precision types to round, so any known
   * algorithm computes the same values (StableHLO's interpreter ignores it). */
  if (ck == CK_INT) return *out = DOT_ALG_DEFAULT, NULL;
  if (f32acc && ck == CK_F32) {
    if (f->lhs == DT_F32 && f->ops == 1) return *out = DOT_ALG_DEFAULT, NULL;
    if (f->lhs == DT_BF16 && f->ops == 1) return *out = DOT_ALG_BF16, NULL;
    if (f->lhs == DT_TF32 && f->ops == 1) return *out = DOT_ALG_TF32, NULL;
    if (f->lhs == DT_F16 && f->ops == 1) return *out = DOT_ALG_F16, NULL;
    if (f->lhs == DT_BF16 && f->ops == 3) return *out = DOT_ALG_BF16_X3, NULL;
    if (f->lhs == DT_BF16 && f->ops == 6) return *out = DOT_ALG_BF16_X6, NULL;
  }
  if (f->lhs == DT_F64 && ck == CK_F64) return *out = DOT_ALG_DEFAULT, NULL;
  return op_error(op, SHLOC_ERR_UNSUPPORTED,
                  "algorithm %s is not implemented here (shloc runs F32_F32_F32, BF16_BF16_F32, "
                  "BF16_BF16_F32_X3, BF16_BF16_F32_X6, TF32_TF32_F32 and F16_F16_F32 with an f32 product, "
                  "F64_F64_F64 with an f64 product)",
                  name);
}

shl_status dot_algorithm_of(const shl_op *op, ku_ck ck, dot_alg *out) {
  *out = DOT_ALG_DEFAULT;
  const shl_attr *al = op_attr(op, "algorithm");
  if (!al) return NULL;
  if (al->kind != AT_STRUCT) return op_error(op, SHLOC_ERR_VERIFY, "algorithm must be a #stablehlo.dot_algorithm");
  alg_fields f;
  if (!field_type(al, "lhs_precision_type", &f.lhs) || !field_type(al, "rhs_precision_type", &f.rhs) ||
      !field_type(al, "accumulation_type", &f.acc) ||
      !attr_as_int(attr_struct_field(al, "lhs_component_count"), &f.lc) ||
      !attr_as_int(attr_struct_field(al, "rhs_component_count"), &f.rc) ||
      !attr_as_int(attr_struct_field(al, "num_primitive_operations"), &f.ops) ||
      !field_bool(al, "allow_imprecise_accumulation", &f.imprecise))
    return op_error(op, SHLOC_ERR_VERIFY, "algorithm needs lhs/rhs_precision_type, accumulation_type, "
                                          "lhs/rhs_component_count, num_primitive_operations and "
                                          "allow_imprecise_accumulation");
  if (!dtype_is_float(f.lhs) || !dtype_is_float(f.rhs) || !dtype_is_float(f.acc))
    return op_error(op, SHLOC_ERR_VERIFY, "algorithm precision and accumulation types must be float types");
  if (f.lc < 1 || f.rc < 1 || f.ops < 1)
    return op_error(op, SHLOC_ERR_VERIFY, "algorithm component counts and num_primitive_operations must be positive");
  if (!known(&f)) {
    char name[96];
    return op_error(op, SHLOC_ERR_VERIFY, "algorithm %s (components %lld x %lld, imprecise accumulation %s) is not a known dot algorithm",
                    preset_name(&f, name, sizeof name), (long long)f.lc, (long long)f.rc, f.imprecise ? "allowed" : "not allowed");
  }
  return choose(op, &f, ck, out);
}

/* ------------------------------------------------------------------ components */

static float round_bf16(float x) { return bf16_to_f32(f32_to_bf16(x)); }
static float round_tf32(float x) { return fp_bits_f32(f32_to_tf32(x)); }
static float round_f16(float x) { return f16_to_f32(f32_to_f16(x)); }
/* The bf16 head of x by truncation (XLA's split keeps the top 16 bits). */
static float trunc_bf16(float x) { return fp_bits_f32(fp_f32_bits(x) & 0xFFFF0000u); }

/* Components of n values: c[0] = hi, c[1] = mid/lo, c[2] = lo. */
static void split(dot_alg alg, const float *x, int64_t n, float *const *c) {
  switch (alg) {
    case DOT_ALG_BF16:
      for (int64_t i = 0; i < n; i++) c[0][i] = round_bf16(x[i]);
      break;
    case DOT_ALG_TF32:
      for (int64_t i = 0; i < n; i++) c[0][i] = round_tf32(x[i]);
      break;
    case DOT_ALG_F16:
      for (int64_t i = 0; i < n; i++) c[0][i] = round_f16(x[i]);
      break;
    case DOT_ALG_BF16_X3:
      for (int64_t i = 0; i < n; i++) {
        float hi = trunc_bf16(x[i]);
        c[0][i] = round_bf16(hi);
        c[1][i] = round_bf16(x[i] - hi);
      }
      break;
    case DOT_ALG_BF16_X6:
      for (int64_t i = 0; i < n; i++) {
        float hi = trunc_bf16(x[i]), mid = x[i] - hi, mid_t = trunc_bf16(mid);
        c[0][i] = round_bf16(hi);
        c[1][i] = round_bf16(mid_t);
        c[2][i] = round_bf16(mid - mid_t);
      }
      break;
    case DOT_ALG_DEFAULT: break;
  }
}

/* Products (lhs component, rhs component) in XLA's summation order; the
 * last is hi x hi, added after NaNs in the partial sum become 0 (a finite
 * hi x hi with an infinite operand gives inf x 0 = NaN in the low terms). */
static const uint8_t terms_x3[][2] = {{1, 0}, {0, 1}, {0, 0}};
static const uint8_t terms_x6[][2] = {{1, 1}, {0, 2}, {2, 0}, {0, 1}, {1, 0}, {0, 0}};
static const uint8_t terms_one[][2] = {{0, 0}};

shl_status dot_algorithm_run(dot_alg alg, const float *A, int64_t na, const float *B, int64_t nb, float *C, int64_t nc,
                             dot_alg_product product, const void *ctx) {
  int ncomp = alg == DOT_ALG_BF16_X6 ? 3 : alg == DOT_ALG_BF16_X3 ? 2 : 1;
  const uint8_t(*terms)[2] = alg == DOT_ALG_BF16_X6 ? terms_x6 : alg == DOT_ALG_BF16_X3 ? terms_x3 : terms_one;
  int nterms = alg == DOT_ALG_BF16_X6 ? 6 : alg == DOT_ALG_BF16_X3 ? 3 : 1;
  float *ca[3] = {NULL, NULL, NULL}, *cb[3] = {NULL, NULL, NULL}, *t = NULL;
  shl_status st = NULL;
  for (int k = 0; k < ncomp && !st; k++) {
    ca[k] = malloc((size_t)na * sizeof(float) + 16);
    cb[k] = malloc((size_t)nb * sizeof(float) + 16);
    if (!ca[k] || !cb[k]) st = st_oom();
  }
  if (!st && nterms > 1 && !(t = malloc((size_t)nc * sizeof(float)))) st = st_oom();
  if (!st) {
    split(alg, A, na, ca);
    split(alg, B, nb, cb);
    product(ctx, ca[terms[0][0]], cb[terms[0][1]], C);
    for (int k = 1; k < nterms; k++) {
      product(ctx, ca[terms[k][0]], cb[terms[k][1]], t);
      bool last = k == nterms - 1;
      for (int64_t i = 0; i < nc; i++) {
        float s = C[i];
        if (last && isnan(s)) s = 0;
        C[i] = s + t[i];
      }
    }
  }
  for (int k = 0; k < 3; k++) {
    free(ca[k]);
    free(cb[k]);
  }
  free(t);
  return st;
}
