#include "types.h"

#include "attrs.h"

bool quant_eq(const shl_quant *a, const shl_quant *b) {
  if (!a || !b) return a == b;
  if (a->storage != b->storage || a->expressed != b->expressed || a->storage_min != b->storage_min ||
      a->storage_max != b->storage_max || a->axis != b->axis || a->n_scales != b->n_scales)
    return false;
  for (uint32_t i = 0; i < a->n_scales; i++)
    if (a->scales[i] != b->scales[i] || a->zero_points[i] != b->zero_points[i]) return false;
  return true;
}

bool type_eq(const shl_type *a, const shl_type *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  switch (a->kind) {
    case TY_TENSOR:
      if (a->dtype != b->dtype || a->rank != b->rank || !quant_eq(a->quant, b->quant)) return false;
      for (int i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i]) return false;
      if (!a->encoding || !b->encoding) return a->encoding == b->encoding;
      return attr_eq(a->encoding, b->encoding);
    case TY_SCALAR:
      return a->dtype == b->dtype && quant_eq(a->quant, b->quant);
    case TY_TOKEN:
    case TY_NONE:
      return true;
    case TY_TUPLE:
    case TY_FUNCTION:
      if (a->future != b->future || a->n_in != b->n_in || a->n_out != b->n_out) return false;
      for (uint32_t i = 0; i < a->n_in; i++)
        if (!type_eq(a->in[i], b->in[i])) return false;
      for (uint32_t i = 0; i < a->n_out; i++)
        if (!type_eq(a->out[i], b->out[i])) return false;
      return true;
    case TY_OPAQUE:
      return str_eq(a->text, b->text);
    case TY_MEMREF:
      if (a->dtype != b->dtype || a->rank != b->rank || !quant_eq(a->quant, b->quant)) return false;
      for (int i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i]) return false;
      if (!a->encoding != !b->encoding || (a->encoding && !attr_eq(a->encoding, b->encoding))) return false;
      return !a->memspace == !b->memspace && (!a->memspace || attr_eq(a->memspace, b->memspace));
  }
  return false;
}

bool type_is_static(const shl_type *t) {
  if (t->kind != TY_TENSOR || t->rank < 0) return false;
  for (int i = 0; i < t->rank; i++)
    if (t->dims[i] < 0) return false;
  return true;
}

int64_t type_num_elements(const shl_type *t) {
  if (!type_is_static(t)) return -1;
  int64_t n = 1;
  for (int i = 0; i < t->rank; i++) {
    if (t->dims[i] && n > INT64_MAX / t->dims[i]) return -1;
    n *= t->dims[i];
  }
  return n;
}

shl_dtype type_storage_dtype(const shl_type *t) {
  return t->dtype == DT_QUANT && t->quant ? t->quant->storage : t->dtype;
}

int64_t type_num_bytes(const shl_type *t) {
  int64_t n = type_num_elements(t);
  int64_t sz = (int64_t)dtype_bytes(type_storage_dtype(t));
  if (n < 0 || (sz && n > INT64_MAX / sz)) return -1;
  return n * sz;
}

shl_type *type_tensor(shl_arena *a, shl_dtype dt, int32_t rank, const int64_t *dims) {
  shl_type *t = ARENA_NEW(a, shl_type);
  if (!t) return NULL;
  t->kind = TY_TENSOR;
  t->dtype = dt;
  t->rank = rank;
  if (rank > 0) {
    int64_t *d = ARENA_ARRAY(a, int64_t, (size_t)rank);
    if (!d) return NULL;
    for (int i = 0; i < rank; i++) d[i] = dims[i];
    t->dims = d;
  }
  return t;
}

shl_type *type_scalar(shl_arena *a, shl_dtype dt) {
  shl_type *t = ARENA_NEW(a, shl_type);
  if (!t) return NULL;
  t->kind = TY_SCALAR;
  t->dtype = dt;
  return t;
}

shl_type *type_token(shl_arena *a) {
  shl_type *t = ARENA_NEW(a, shl_type);
  if (t) t->kind = TY_TOKEN;
  return t;
}
