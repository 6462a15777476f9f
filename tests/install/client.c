/* A client of an installed shloc, built by tests/cli/install.sh once with
 * pkg-config and once with find_package(shloc): parses a module from text,
 * runs it with the public executable API and checks the numbers against the
 * same computation in double precision.  Exit 0 on success. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shloc/executable.h>
#include <shloc/shloc.h>

static const char program[] =
    "func.func @main(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>) -> tensor<2x2xf32> {\n"
    "  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> "
    "tensor<2x2xf32>\n"
    "  %1 = stablehlo.tanh %0 : tensor<2x2xf32>\n"
    "  return %1 : tensor<2x2xf32>\n"
    "}\n";

static int fail(shloc_status st) {
  char *msg = shloc_status_render(st, program, sizeof program - 1);
  fprintf(stderr, "client: %s\n", msg ? msg : shloc_status_message(st));
  free(msg);
  shloc_status_free(st);
  return 1;
}

int main(void) {
  float x[6] = {0.5f, -1.0f, 0.25f, 2.0f, 0.125f, -0.75f};
  float w[6] = {1.0f, -0.5f, 0.25f, 0.75f, -1.5f, 0.5f};
  const int64_t xd[2] = {2, 3}, wd[2] = {3, 2};
  shloc_context *ctx = shloc_context_create();
  shloc_module *m = NULL;
  shloc_executable *exe = NULL;
  shloc_status st = shloc_module_parse(ctx, "client.mlir", program, sizeof program - 1, 1, &m);
  if (!st) st = shloc_module_verify(m);
  if (!st) st = shloc_executable_create(m, "main", NULL, &exe);
  shloc_tensor args[2] = {{XLA_FFI_DataType_F32, 2, xd, x, sizeof x}, {XLA_FFI_DataType_F32, 2, wd, w, sizeof w}};
  shloc_tensor out;
  memset(&out, 0, sizeof out);
  if (!st) st = shloc_executable_run(exe, args, 2, &out, 1);
  if (st) return fail(st);
  int bad = out.dtype != XLA_FFI_DataType_F32 || out.rank != 2 || out.dims[0] != 2 || out.dims[1] != 2;
  for (int i = 0; i < 2 && !bad; i++)
    for (int j = 0; j < 2; j++) {
      double acc = 0;
      for (int k = 0; k < 3; k++) acc += (double)x[i * 3 + k] * w[k * 2 + j];
      double got = ((const float *)out.data)[i * 2 + j];
      if (fabs(got - tanh(acc)) > 1e-6) {
        fprintf(stderr, "client: result[%d][%d] = %.9g, expected %.9g\n", i, j, got, tanh(acc));
        bad = 1;
      }
    }
  free(out.data);
  shloc_executable_destroy(exe);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
  if (!bad) printf("client: ok\n");
  return bad;
}
