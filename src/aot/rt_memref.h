/* Reading the memref descriptors compiled code passes to libshloc's runtime
 * functions (src/aot/rt_*.c; layouts in include/shloc/aot_runtime.h). */
#ifndef SHLOC_AOT_RT_MEMREF_H
#define SHLOC_AOT_RT_MEMREF_H

#include "shloc/aot_runtime.h"
#include "support/status.h"

#define RT_MAX_RANK 64

/* A tensor's elements in row-major order: the memref's own memory when it
 * is densely packed, else a malloc'd copy (`owned`). */
typedef struct {
  int64_t rank;
  int64_t dims[RT_MAX_RANK];
  int64_t n;
  void *data;
  bool owned;
} rt_memref;

/* Unpacks `u` (element size `elem`); a copy is made when its strides are not
 * the row-major ones.  On error `out` holds nothing to release. */
shl_status rt_memref_contiguous(const shloc_aot_unranked *u, size_t elem, rt_memref *out);
/* The address of element 0 and whether the memref is densely row-major. */
void *rt_memref_base(const shloc_aot_unranked *u, size_t elem, bool *dense);
void rt_memref_release(rt_memref *m);

#endif
