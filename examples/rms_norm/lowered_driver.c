/* Driver for rms_norm.mlir compiled by upstream MLIR (see README.md, "Compile
 * it with upstream MLIR"): calls the compiled @main through MLIR's C interface
 * (`_mlir_ciface_main`, emitted for every function by
 * --llvm-request-c-wrappers), then compares its result with RMS norm
 * computed here.  Exits 1 when the largest difference exceeds 1e-5. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ROWS 10
#define COLS 10
#define EPS 9.99999974E-6f /* the eps in rms_norm.mlir */

/* A rank-2 memref descriptor: MLIR's layout for memref<10x10xf32>. */
typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} memref2;

/* @main(%arg0: tensor<10x10xf32>) -> tensor<10x10xf32>, bufferized to memrefs:
 * the result descriptor comes back through the first pointer. */
void _mlir_ciface_main(memref2 *result, memref2 *arg0);

int main(void) {
  float x[ROWS * COLS];
  for (int i = 0; i < ROWS * COLS; i++) x[i] = (float)(sin(0.37 * i) * 3.0 + 0.25 * (i % 7));
  memref2 in = {x, x, 0, {ROWS, COLS}, {COLS, 1}}, out;
  _mlir_ciface_main(&out, &in);
  if (out.sizes[0] != ROWS || out.sizes[1] != COLS) {
    fprintf(stderr, "lowered_driver: result has shape %lldx%lld\n", (long long)out.sizes[0], (long long)out.sizes[1]);
    return 1;
  }
  double max_err = 0;
  for (int r = 0; r < ROWS; r++) {
    double ss = 0;
    for (int j = 0; j < COLS; j++) ss += (double)x[r * COLS + j] * x[r * COLS + j];
    double scale = 1.0 / sqrt(ss / COLS + EPS);
    for (int j = 0; j < COLS; j++) {
      float got = out.aligned[out.offset + r * out.strides[0] + j * out.strides[1]];
      double err = fabs(got - x[r * COLS + j] * scale);
      if (err > max_err) max_err = err;
    }
  }
  /* The shim allocated the result; releasing `allocated` is the caller's job. */
  free(out.allocated);
  int ok = max_err <= 1e-5;
  printf("compiled main vs C reference: max abs difference %.3e over %d elements (%s)\n", max_err, ROWS * COLS,
         ok ? "match" : "MISMATCH");
  return ok ? 0 : 1;
}
