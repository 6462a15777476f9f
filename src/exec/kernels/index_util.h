/* Index plumbing shared by gather and scatter: dimension-number lists,
 * batch positions (dimensions of the result/updates that walk the index
 * tensor) and start-index vectors read from the index tensor. */
#ifndef SHLOC_EXEC_KERNELS_INDEX_UTIL_H
#define SHLOC_EXEC_KERNELS_INDEX_UTIL_H

#include "exec/plan.h"
#include "kutil.h"
#include "strided.h"

typedef struct {
  size_t n;
  int64_t v[STRIDED_MAX_RANK];
} index_list;

/* An integer-list field of a dimension-numbers struct (missing = empty). */
shl_status index_field(const shl_op *op, const shl_attr *dn, const char *name, index_list *out);
bool index_has(const index_list *l, int64_t d);
shl_status index_static_tensor(const shl_op *op, const shl_type *t, const char *what);

/* One start index as int64, kept within +-2^62 so that offset arithmetic
 * cannot overflow (ui64 values above INT64_MAX count as huge, not negative). */
static inline int64_t index_load(shl_dtype dt, const void *p) {
  int64_t v = int_load(dt, p);
  const int64_t lim = (int64_t)1 << 62;
  if (dtype_class(dt) == DTC_UINT && v < 0) return lim;
  return v > lim ? lim : v < -lim ? -lim : v;
}

/* Batch dimensions: positions of the result (gather) or updates (scatter)
 * that correspond to the index tensor's dimensions other than index_vector_dim. */
typedef struct {
  int32_t n;
  int64_t count;
  int64_t dims[STRIDED_MAX_RANK];
  int64_t out_stride[STRIDED_MAX_RANK]; /* result / updates, elements */
  int64_t si_stride[STRIDED_MAX_RANK];  /* index tensor, elements */
  int64_t op_stride[STRIDED_MAX_RANK];  /* operand, from batching dimensions */
  int32_t si_dim[STRIDED_MAX_RANK];
} index_batch;

/* out_dims/out_strides describe the result or updates; batch_dims lists its
 * nb batch dimensions in order. */
shl_status index_batch_init(const shl_op *op, index_batch *b, const shl_type *sit, int64_t ivd, int32_t nb,
                            const int32_t *batch_dims, const int64_t *out_dims, const int64_t *out_strides);
/* Ties the index tensor's batching dimension si_dim to an operand batching
 * dimension of the given stride. */
shl_status index_batch_bind(const shl_op *op, index_batch *b, int64_t si_dim, int64_t op_stride);

static inline void index_batch_offsets(const index_batch *b, int64_t lin, int64_t *dofs, int64_t *sofs, int64_t *oofs) {
  int64_t d = 0, s = 0, o = 0;
  for (int32_t j = b->n - 1; j >= 0; j--) {
    int64_t c = lin % b->dims[j];
    lin /= b->dims[j];
    d += c * b->out_stride[j];
    s += c * b->si_stride[j];
    o += c * b->op_stride[j];
  }
  *dofs = d, *sofs = s, *oofs = o;
}

/* The start-index vector: component k goes to operand dimension op_dim[k]. */
typedef struct {
  int32_t n;
  int64_t iv_stride; /* index tensor stride along index_vector_dim */
  shl_dtype dt;
  size_t isz;
  int32_t op_dim[STRIDED_MAX_RANK];
  int64_t op_stride[STRIDED_MAX_RANK];
  int64_t max[STRIDED_MAX_RANK]; /* gather: largest start that keeps the slice inside */
} index_vec;

shl_status index_vec_init(const shl_op *op, index_vec *iv, const shl_type *sit, int64_t ivd, const index_list *map,
                          int32_t op_rank);

static inline int64_t index_vec_value(const index_vec *iv, const shl_buf *si, int64_t sofs, int32_t k) {
  return index_load(iv->dt, (const uint8_t *)si->data + (size_t)(sofs + k * iv->iv_stride) * iv->isz);
}

/* Operand offset (elements) of the clamped start vector at index position sofs. */
static inline int64_t index_vec_offset(const index_vec *iv, const shl_buf *si, int64_t sofs, bool clamp) {
  int64_t off = 0;
  for (int32_t k = 0; k < iv->n; k++) {
    int64_t v = index_vec_value(iv, si, sofs, k);
    if (clamp) v = v < 0 ? 0 : v > iv->max[k] ? iv->max[k] : v;
    off += v * iv->op_stride[k];
  }
  return off;
}

#endif
