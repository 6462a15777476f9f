/* Runs the compiled @entry of conventions.mlir through MLIR's C interface and
 * checks every result and the order of the side-effecting calls. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} memref2;
typedef struct {
  int64_t *allocated, *aligned;
  int64_t offset;
} memref0;
/* Several results come back through a pointer to a struct of descriptors. */
typedef struct {
  memref2 r0;
  memref0 r1;
  memref2 r2, r3;
} entry_results;

void _mlir_ciface_entry(entry_results *results, memref2 *x);
extern int record_log_n;
extern long long record_log_tag[8];
extern float record_log_x0[8];

static int failures;
static void expect(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "lower_e2e conventions: %s\n", what);
    failures++;
  }
}

static float at(const memref2 *m, int i, int j) { return m->aligned[m->offset + i * m->strides[0] + j * m->strides[1]]; }

int main(void) {
  float x[6] = {1, 2, 3, 4, 5, 6};
  memref2 in = {x, x, 0, {2, 3}, {3, 1}};
  entry_results r;
  _mlir_ciface_entry(&r, &in);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++) {
      float v = x[i * 3 + j];
      expect(at(&r.r3, i, j) == v, "split result (column-major handler layout) differs from the input");
      expect(at(&r.r0, i, j) == v + 1, "inc result is not input + 1");
      expect(at(&r.r2, i, j) == -(v + 1), "legacy.neg result is not -(input + 1)");
    }
  expect(r.r1.aligned[r.r1.offset] == 6, "split count is not 6");
  expect(record_log_n == 2, "record did not run twice");
  expect(record_log_tag[0] == 1 && record_log_tag[1] == 2, "record calls out of order");
  expect(record_log_x0[0] == 1 && record_log_x0[1] == -2, "record saw wrong operands");
  free(r.r0.allocated);
  free(r.r1.allocated);
  free(r.r2.allocated);
  free(r.r3.allocated);
  if (failures) return 1;
  printf("conventions: all results and the side-effect order match\n");
  return 0;
}
