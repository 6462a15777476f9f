/* Companion of the rms_norm example:
 *
 *   compare gen X.npy          writes a 10x10 float32 input
 *   compare check X.npy Y.npy  prints Y (what shloc computed) next to RMS norm
 *                              of X computed here, and exits 1 if they differ
 *
 * Reads and writes only C-order little-endian '<f4' .npy files of rank 2. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS 10
#define COLS 10
#define EPS 9.99999974E-6f /* the eps in rms_norm.mlir */

static int write_npy(const char *path, const float *x, int rows, int cols) {
  char header[128];
  int n = snprintf(header, sizeof header, "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }", rows, cols);
  /* Magic (6) + version (2) + length (2) + header, padded with spaces to a
   * multiple of 64 and ended by a newline. */
  int total = (10 + n + 1 + 63) / 64 * 64;
  while (10 + n + 1 < total) header[n++] = ' ';
  header[n++] = '\n';
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(n & 0xff), (unsigned char)(n >> 8)};
  int ok = fwrite(pre, 1, 10, f) == 10 && fwrite(header, 1, (size_t)n, f) == (size_t)n &&
           fwrite(x, sizeof *x, (size_t)rows * cols, f) == (size_t)rows * cols;
  return fclose(f) == 0 && ok ? 0 : -1;
}

/* Reads a rank-2 '<f4' array into a malloc'd buffer. */
static float *read_npy(const char *path, int *rows, int *cols) {
  FILE *f = fopen(path, "rb");
  unsigned char pre[10];
  char header[1024];
  if (!f) return NULL;
  float *x = NULL;
  if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0 || pre[6] != 1) goto out;
  size_t hl = (size_t)pre[8] | (size_t)pre[9] << 8;
  if (hl >= sizeof header || fread(header, 1, hl, f) != hl) goto out;
  header[hl] = '\0';
  const char *shape = strstr(header, "'shape': (");
  if (!strstr(header, "'<f4'") || !strstr(header, "'fortran_order': False") || !shape ||
      sscanf(shape, "'shape': (%d, %d)", rows, cols) != 2)
    goto out;
  size_t n = (size_t)*rows * (size_t)*cols;
  x = malloc(n * sizeof *x + 1);
  if (x && fread(x, sizeof *x, n, f) != n) {
    free(x);
    x = NULL;
  }
out:
  fclose(f);
  return x;
}

static int gen(const char *path) {
  float x[ROWS * COLS];
  for (int i = 0; i < ROWS * COLS; i++) x[i] = (float)(sin(0.37 * i) * 3.0 + 0.25 * (i % 7));
  if (write_npy(path, x, ROWS, COLS)) {
    fprintf(stderr, "compare: cannot write %s\n", path);
    return 1;
  }
  printf("wrote %s: float32[%d, %d]\n", path, ROWS, COLS);
  return 0;
}

static int check(const char *xpath, const char *ypath) {
  int xr, xc, yr, yc;
  float *x = read_npy(xpath, &xr, &xc), *y = read_npy(ypath, &yr, &yc);
  if (!x || !y || xr != yr || xc != yc) {
    fprintf(stderr, "compare: cannot read two float32 matrices of the same shape from %s and %s\n", xpath, ypath);
    free(x);
    free(y);
    return 1;
  }
  double max_err = 0;
  printf("%4s %4s %14s %14s %14s %10s\n", "row", "col", "input", "shloc", "reference", "abs diff");
  for (int r = 0; r < xr; r++) {
    double ss = 0;
    for (int j = 0; j < xc; j++) ss += (double)x[r * xc + j] * x[r * xc + j];
    double scale = 1.0 / sqrt(ss / xc + EPS);
    for (int j = 0; j < xc; j++) {
      double ref = x[r * xc + j] * scale, got = y[r * xc + j], err = fabs(got - ref);
      if (err > max_err) max_err = err;
      /* Every row's first two columns, to keep the table short. */
      if (j < 2) printf("%4d %4d %14.7f %14.7f %14.7f %10.2e\n", r, j, x[r * xc + j], got, ref, err);
    }
  }
  int ok = max_err <= 1e-5;
  printf("max abs difference over all %d elements: %.3e (%s)\n", xr * xc, max_err, ok ? "match" : "MISMATCH");
  free(x);
  free(y);
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "gen") == 0) return gen(argv[2]);
  if (argc == 4 && strcmp(argv[1], "check") == 0) return check(argv[2], argv[3]);
  fprintf(stderr, "usage: compare gen X.npy | compare check X.npy Y.npy\n");
  return 2;
}
