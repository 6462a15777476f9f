/* libFuzzer target for the .npy reader (src/support/npy.c): any input is
 * read or rejected with a status, never a crash, an out-of-bounds access or
 * an allocation larger than the input allows.  An accepted array must be
 * consistent: descr normalized and known, rank within bounds, nbytes =
 * itemsize * product(dims) and every data byte readable; the descr helpers
 * must agree with it for every element type. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every data byte is read into this, so the reads are not optimized away. */
static volatile unsigned sink;

static void die(const char *what, const npy_array *a) {
  fprintf(stderr, "fuzz_npy: %s (descr '%s', rank %d, itemsize %zu, nbytes %zu)\n", what, a->descr, a->rank,
          a->itemsize, a->nbytes);
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  npy_array a;
  shl_status st = npy_read_mem(data, size, "fuzz.npy", &a);
  if (st) {
    shloc_status_free(st);
    return 0;
  }
  if (a.rank < 0 || a.rank > NPY_MAX_RANK) die("rank out of range", &a);
  if (strnlen(a.descr, sizeof a.descr) == sizeof a.descr) die("descr not terminated", &a);
  if (a.descr[0] != '<' && a.descr[0] != '|') die("descr not normalized", &a);
  /* The element count; a zero dimension makes it 0 however large the others. */
  uint64_t n = 1;
  bool zero = false;
  for (int i = 0; i < a.rank; i++) {
    if (a.dims[i] < 0) die("negative dimension", &a);
    zero |= a.dims[i] == 0;
  }
  for (int i = 0; i < a.rank && !zero; i++) {
    if (n > UINT64_MAX / (uint64_t)a.dims[i]) die("element count overflows", &a);
    n *= (uint64_t)a.dims[i];
  }
  if (zero) n = 0;
  if (!a.itemsize || n > SIZE_MAX / a.itemsize || n * a.itemsize != a.nbytes) die("nbytes != itemsize * elements", &a);
  /* The payload came from the input: it cannot be larger. */
  if (a.nbytes > size) die("more data than input", &a);
  unsigned sum = 0;
  for (size_t i = 0; i < a.nbytes; i++) sum += ((const uint8_t *)a.data)[i];
  sink = sum;
  shl_dtype own = npy_dtype_for_descr(a.descr);
  if (own != DT_INVALID && !npy_descr_accepts(a.descr, own)) die("descr does not accept its own dtype", &a);
  for (int t = 0; t < DT_COUNT; t++)
    if (npy_descr_accepts(a.descr, (shl_dtype)t) && dtype_bytes((shl_dtype)t) > a.itemsize)
      die("descr accepted for a wider element type", &a);
  npy_array_free(&a);
  return 0;
}
