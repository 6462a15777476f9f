/* Memref descriptors as the runtime functions receive them. */
#include "aot/rt_memref.h"

#include <stdlib.h>
#include <string.h>

/* Words of a ranked descriptor: allocated, aligned, offset, sizes, strides. */
typedef struct {
  void *allocated, *aligned;
  int64_t offset;
  int64_t rest[]; /* sizes[rank], then strides[rank] */
} rt_desc;

void *rt_memref_base(const shloc_aot_unranked *u, size_t elem, bool *dense) {
  const rt_desc *d = u->descriptor;
  const int64_t *sizes = d->rest, *strides = d->rest + u->rank;
  int64_t expect = 1;
  *dense = true;
  for (int64_t k = u->rank - 1; k >= 0; k--) {
    if (sizes[k] != 1 && strides[k] != expect) *dense = false;
    expect *= sizes[k];
  }
  return (char *)d->aligned + d->offset * (int64_t)elem;
}

static void copy_strided(const char *src, const int64_t *sizes, const int64_t *strides, int64_t rank, size_t elem,
                         char **dst) {
  if (rank == 0) {
    memcpy(*dst, src, elem);
    *dst += elem;
    return;
  }
  for (int64_t i = 0; i < sizes[0]; i++)
    copy_strided(src + i * strides[0] * (int64_t)elem, sizes + 1, strides + 1, rank - 1, elem, dst);
}

shl_status rt_memref_contiguous(const shloc_aot_unranked *u, size_t elem, rt_memref *out) {
  memset(out, 0, sizeof *out);
  if (!u || !u->descriptor || u->rank < 0 || u->rank > RT_MAX_RANK)
    return st_error(SHLOC_ERR_INVALID_ARG, NULL, NULL, "a tensor of rank %lld reached the runtime",
                    u ? (long long)u->rank : -1LL);
  const rt_desc *d = u->descriptor;
  out->rank = u->rank;
  out->n = 1;
  for (int64_t k = 0; k < u->rank; k++) {
    out->dims[k] = d->rest[k];
    out->n *= d->rest[k];
  }
  bool dense;
  char *base = rt_memref_base(u, elem, &dense);
  if (dense) {
    out->data = base;
    return NULL;
  }
  char *copy = malloc(out->n ? (size_t)out->n * elem : 1);
  if (!copy) return st_oom_size("a strided tensor's copy", (size_t)out->n * elem);
  char *p = copy;
  int64_t strides[RT_MAX_RANK];
  for (int64_t k = 0; k < u->rank; k++) strides[k] = d->rest[u->rank + k];
  if (out->n) copy_strided(base, out->dims, strides, u->rank, elem, &p);
  out->data = copy;
  out->owned = true;
  return NULL;
}

void rt_memref_release(rt_memref *m) {
  if (m->owned) free(m->data);
  m->owned = false;
  m->data = NULL;
}

static void copy_nd(const char *src, const int64_t *ss, char *dst, const int64_t *ds, const int64_t *sizes,
                    int64_t rank, size_t elem) {
  if (rank == 0) {
    memcpy(dst, src, elem);
    return;
  }
  for (int64_t i = 0; i < sizes[0]; i++)
    copy_nd(src + i * ss[0] * (int64_t)elem, ss + 1, dst + i * ds[0] * (int64_t)elem, ds + 1, sizes + 1, rank - 1,
            elem);
}

void memrefCopy(int64_t elem_size, const shloc_aot_unranked *src, const shloc_aot_unranked *dst) {
  if (!src || !dst || src->rank != dst->rank || src->rank < 0 || src->rank > RT_MAX_RANK || elem_size <= 0) return;
  const rt_desc *s = src->descriptor, *d = dst->descriptor;
  bool sd, dd;
  char *sp = rt_memref_base(src, (size_t)elem_size, &sd), *dp = rt_memref_base(dst, (size_t)elem_size, &dd);
  int64_t n = 1;
  for (int64_t k = 0; k < src->rank; k++) n *= s->rest[k];
  if (!n) return;
  if (sd && dd) {
    memmove(dp, sp, (size_t)(n * elem_size));
    return;
  }
  copy_nd(sp, s->rest + src->rank, dp, d->rest + dst->rank, s->rest, src->rank, (size_t)elem_size);
}
