/* Strided boxes: the one loop nest behind the data-movement kernels.  A box
 * is a set of dimensions with a source and a destination stride each, so
 * broadcast (stride 0), transpose (permuted strides), reverse (negative
 * strides), slice, pad, concatenate and the windows of gather/scatter are
 * all "walk this box, handle one row at a time". */
#ifndef SHLOC_EXEC_KERNELS_STRIDED_H
#define SHLOC_EXEC_KERNELS_STRIDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STRIDED_MAX_RANK 64

typedef struct {
  int32_t rank;
  int64_t dims[STRIDED_MAX_RANK];
  int64_t ds[STRIDED_MAX_RANK]; /* destination strides */
  int64_t ss[STRIDED_MAX_RANK]; /* source strides */
} strided_box;

/* Handles one row: n elements, strides in bytes. */
typedef void (*strided_row_fn)(void *ctx, uint8_t *dst, const uint8_t *src, int64_t n, int64_t ds, int64_t ss);

/* Row-major strides (elements) of a shape. */
void strided_row_major(int32_t rank, const int64_t *dims, int64_t *strides);

/* Element count of the box (0 if any dimension is empty; 1 for rank 0). */
int64_t strided_count(const strided_box *b);

/* Drops unit dimensions, merges dimensions that are contiguous in both
 * source and destination, and turns element strides into byte strides. */
void strided_finish(strided_box *b, size_t esz);

/* Calls fn for every row of the box (the innermost dimension).  With
 * `parallel`, large boxes are split across threads (fn must then be safe
 * to call concurrently on disjoint destinations). */
void strided_walk(const strided_box *b, uint8_t *dst, const uint8_t *src, strided_row_fn fn, void *ctx, bool parallel);

/* Copies the box (byte strides, element size esz); transposed inner
 * dimensions are copied in cache-sized tiles. */
void strided_copy(const strided_box *b, void *dst, const void *src, size_t esz);

/* Fills n elements of size esz with the element at `value`. */
void strided_fill(void *dst, int64_t n, const void *value, size_t esz);

#endif
