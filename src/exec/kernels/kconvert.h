/* Compute types of the linear-algebra kernels and bulk conversions between
 * buffer element types and them (one dtype dispatch per call). */
#ifndef SHLOC_EXEC_KERNELS_KCONVERT_H
#define SHLOC_EXEC_KERNELS_KCONVERT_H

#include "support/dtype.h"

typedef enum {
  CK_NONE,
  CK_F32,  /* f32 and every narrower float (rounded once at the end) */
  CK_F64,
  CK_C64,
  CK_C128,
  CK_INT,  /* integers as uint64 (wrapping); i1 as 0/1 */
} ku_ck;

/* Compute type for a result element type (CK_NONE: unsupported). */
ku_ck ku_ck_of(shl_dtype result);
size_t ku_ck_bytes(ku_ck ck);
/* n elements of dtype t at src -> compute type ck at dst.  False when the
 * conversion is not defined (e.g. complex into a real compute type). */
bool ku_to_ck(ku_ck ck, shl_dtype t, const void *src, void *dst, int64_t n);
/* n compute values -> dtype t (rounding per scalar.h; ints wrap; i1 is != 0). */
void ku_from_ck(ku_ck ck, shl_dtype t, const void *src, void *dst, int64_t n);
/* n elements of dtype `from` at src -> dtype `to` at dst through to's compute
 * type (widening is exact).  False when that conversion is not defined. */
bool ku_convert(shl_dtype from, shl_dtype to, const void *src, void *dst, int64_t n);

#endif
