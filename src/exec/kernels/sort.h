/* stablehlo.sort's plan parameters, shared by the comparator recognition
 * and general path (sort.c) and the radix sort of keyed comparators
 * (sort_radix.c). */
#ifndef SHLOC_EXEC_KERNELS_SORT_H
#define SHLOC_EXEC_KERNELS_SORT_H

#include "exec/plan.h"

/* The radix sort's scratch, kept from run to run in the run state (fresh
 * memory costs page faults): taken while a run uses it, so a re-entered
 * sort allocates its own. */
typedef struct sort_cache {
  void *mem;
  size_t size;
} sort_cache;

typedef struct {
  int64_t len, stride, n_slices; /* sorted dimension size, its stride, slices */
  bool keyed;                    /* the radix path applies */
  bool desc;                     /* GT: descending keys */
  bool is_float, canon_nan;      /* canon_nan: NaNs compare as nan_bits (f64) */
  bool nan_fallback;             /* FLOAT compare: a slice with a NaN runs the comparator */
  uint64_t nan_bits;
  uint32_t cache_id;             /* exec_state: the run's sort_cache */
} sort_params;

/* Sorts every slice of the keyed sort p by key.  Slices holding a NaN that
 * the comparator cannot key are left unwritten and listed in
 * nan_slices[0..*n_nan) (room for p->n_slices). */
shl_status sort_keyed(const sort_params *p, sort_cache *c, uint32_t n_ops, shl_buf *const *in, shl_buf *const *out,
                      int64_t *nan_slices, int64_t *n_nan);

#endif
