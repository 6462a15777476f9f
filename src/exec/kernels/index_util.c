/* Index plumbing shared by gather and scatter: see index_util.h. */
#include "index_util.h"

shl_status index_field(const shl_op *op, const shl_attr *dn, const char *name, index_list *out) {
  const shl_attr *a = attr_struct_field(dn, name);
  out->n = 0;
  if (!a) return NULL;
  size_t n;
  if (!attr_as_ints(a, out->v, STRIDED_MAX_RANK, &n) || n > STRIDED_MAX_RANK)
    return op_error(op, SHLOC_ERR_VERIFY, "dimension numbers field '%s' is not a valid list", name);
  out->n = n;
  return NULL;
}

bool index_has(const index_list *l, int64_t d) {
  for (size_t i = 0; i < l->n; i++)
    if (l->v[i] == d) return true;
  return false;
}

shl_status index_static_tensor(const shl_op *op, const shl_type *t, const char *what) {
  if (!t || t->kind != TY_TENSOR || !type_is_static(t))
    return op_error(op, SHLOC_ERR_UNSUPPORTED, "%s must be a statically shaped tensor", what);
  if (t->rank > STRIDED_MAX_RANK) return op_error(op, SHLOC_ERR_UNSUPPORTED, "rank %d is too large", (int)t->rank);
  return NULL;
}

shl_status index_batch_init(const shl_op *op, index_batch *b, const shl_type *sit, int64_t ivd, int32_t nb,
                            const int32_t *batch_dims, const int64_t *out_dims, const int64_t *out_strides) {
  int64_t sis[STRIDED_MAX_RANK];
  strided_row_major(sit->rank, sit->dims, sis);
  if (ivd < 0 || ivd > sit->rank) return op_error(op, SHLOC_ERR_VERIFY, "index_vector_dim is out of range");
  int32_t j = 0;
  b->count = 1;
  for (int32_t d = 0; d < sit->rank; d++) {
    if (d == ivd) continue;
    if (j >= nb || sit->dims[d] != out_dims[batch_dims[j]])
      return op_error(op, SHLOC_ERR_VERIFY, "index tensor dimensions do not match the batch dimensions");
    b->dims[j] = sit->dims[d];
    b->out_stride[j] = out_strides[batch_dims[j]];
    b->si_stride[j] = sis[d];
    b->op_stride[j] = 0;
    b->si_dim[j] = d;
    b->count *= sit->dims[d];
    j++;
  }
  if (j != nb) return op_error(op, SHLOC_ERR_VERIFY, "index tensor dimensions do not match the batch dimensions");
  b->n = nb;
  return NULL;
}

shl_status index_batch_bind(const shl_op *op, index_batch *b, int64_t si_dim, int64_t op_stride) {
  for (int32_t j = 0; j < b->n; j++)
    if (b->si_dim[j] == si_dim) {
      b->op_stride[j] += op_stride;
      return NULL;
    }
  return op_error(op, SHLOC_ERR_VERIFY, "index batching dimension %lld is not a batch dimension", (long long)si_dim);
}

shl_status index_vec_init(const shl_op *op, index_vec *iv, const shl_type *sit, int64_t ivd, const index_list *map,
                          int32_t op_rank) {
  int64_t sis[STRIDED_MAX_RANK];
  strided_row_major(sit->rank, sit->dims, sis);
  iv->n = (int32_t)map->n;
  iv->dt = type_storage_dtype(sit);
  iv->isz = dtype_bytes(iv->dt);
  if (ivd < sit->rank) {
    if (sit->dims[ivd] != (int64_t)map->n)
      return op_error(op, SHLOC_ERR_VERIFY, "index vector length differs from the index map length");
    iv->iv_stride = sis[ivd];
  } else {
    if (map->n != 1) return op_error(op, SHLOC_ERR_VERIFY, "an implicit index vector has length 1");
    iv->iv_stride = 0;
  }
  for (size_t k = 0; k < map->n; k++) {
    if (map->v[k] < 0 || map->v[k] >= op_rank) return op_error(op, SHLOC_ERR_VERIFY, "index map entry is out of range");
    iv->op_dim[k] = (int32_t)map->v[k];
  }
  return NULL;
}
