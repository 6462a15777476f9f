/* NumPy .npy files (format versions 1.0, 2.0 and 3.0), C order only.
 *
 * Element types travel as their raw little-endian storage (scalar.h):
 * i1 '|b1', i8..i64 '<i1'..'<i8', ui8..ui64 '<u1'..'<u8', f16 '<f2',
 * f32/tf32 '<f4', f64 '<f8', complex<f32> '<c8', complex<f64> '<c16',
 * bf16 '<V2' and f8/f6/f4 '|V1' (what ml_dtypes writes), i2/i4 '|i1' and
 * ui2/ui4 '|u1' (one byte per element). */
#ifndef SHLOC_SUPPORT_NPY_H
#define SHLOC_SUPPORT_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "status.h"

#define NPY_MAX_RANK 64

typedef struct {
  char descr[8];  /* normalized: '<' or '|' byte order, kind letter, item size ("<f4") */
  size_t itemsize;
  int rank;
  int64_t dims[NPY_MAX_RANK];
  void *data;     /* malloc'd; C order, little-endian (big-endian files are swapped) */
  size_t nbytes;  /* itemsize * product(dims) */
} npy_array;

/* Reads a whole .npy file.  On failure *out is left empty (nothing to free). */
shl_status npy_read_file(const char *path, npy_array *out);
/* The same from memory; `name` is used in messages. */
shl_status npy_read_mem(const void *buf, size_t len, const char *name, npy_array *out);
void npy_array_free(npy_array *a);

/* Writes `data` (nbytes = itemsize(descr) * product(dims)) to a temporary
 * file next to `path`, then renames it over `path`, so readers never see a
 * partial file. */
shl_status npy_write_file_atomic(const char *path, const char *descr, const int64_t *dims, int rank,
                                 const void *data, size_t nbytes);

/* The descr shloc writes for element type t (NULL for types without one). */
const char *npy_descr_for(shl_dtype t);
/* Whether a file with (normalized) descr can be loaded as element type t:
 * same item size and a kind that holds t's storage bits ('|V1' for any f8,
 * '<u2' or '<V2' for bf16, '<i4' or '<u4' for i32, ...). */
bool npy_descr_accepts(const char *descr, shl_dtype t);
/* The element type a descr names on its own, DT_INVALID when it needs the
 * expected type to be read ('|V1': which f8?). */
shl_dtype npy_dtype_for_descr(const char *descr);

#endif
