/* A product's bits do not depend on the thread count: dot_general products
 * large enough for OpenBLAS, split into pieces by gemm.c, give the same
 * result, bit for bit, with 1, 2 and 3 OpenMP threads.  OpenBLAS sums a
 * piece of a product differently from the whole (its small-product
 * kernels), so pieces chosen per thread count changed results (the
 * decoder's 128x256 @ 256x768 under OMP_NUM_THREADS=1 and 2 differed in
 * 59% of its elements).  Shapes: a single product split by columns, one
 * split by rows, and a batch of 4 (fewer than GEMM_FEW_PRODUCTS: each split)
 * and of 9 (each whole).  Inputs have full mantissas and cancel. */
#include <omp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "shloc/executable.h"
#include "shloc/shloc.h"
#include "ok.h"

typedef struct {
  int64_t B, M, K, N;
} shape;

static void run(const shape *s, const float *a, const float *b, float *out) {
  char text[1024], lt[64], rt[64], ot[64];
  bool bat = s->B > 0;
  if (bat) snprintf(lt, sizeof lt, "tensor<%lldx%lldx%lldxf32>", (long long)s->B, (long long)s->M, (long long)s->K);
  else snprintf(lt, sizeof lt, "tensor<%lldx%lldxf32>", (long long)s->M, (long long)s->K);
  if (bat) snprintf(rt, sizeof rt, "tensor<%lldx%lldx%lldxf32>", (long long)s->B, (long long)s->K, (long long)s->N);
  else snprintf(rt, sizeof rt, "tensor<%lldx%lldxf32>", (long long)s->K, (long long)s->N);
  if (bat) snprintf(ot, sizeof ot, "tensor<%lldx%lldx%lldxf32>", (long long)s->B, (long long)s->M, (long long)s->N);
  else snprintf(ot, sizeof ot, "tensor<%lldx%lldxf32>", (long long)s->M, (long long)s->N);
  snprintf(text, sizeof text,
           "func.func @main(%%a: %s, %%b: %s) -> %s {\n"
           "  %%0 = stablehlo.dot_general %%a, %%b, %scontracting_dims = [%d] x [%d] : (%s, %s) -> %s\n"
           "  return %%0 : %s\n}\n",
           lt, rt, ot, bat ? "batching_dims = [0] x [0], " : "", bat ? 2 : 1, bat ? 1 : 0, lt, rt, ot, ot);
  shloc_context *ctx = shloc_context_create();
  shloc_module *mod;
  shloc_executable *x = NULL;
  OK(shloc_module_parse(ctx, "dot.mlir", text, strlen(text), 1, &mod));
  OK(shloc_module_verify(mod));
  OK(shloc_executable_create(mod, "main", NULL, &x));
  int64_t bn = bat ? s->B : 1, da[3] = {s->B, s->M, s->K}, db[3] = {s->B, s->K, s->N};
  shloc_tensor args[2] = {{XLA_FFI_DataType_F32, bat ? 3 : 2, bat ? da : da + 1, (void *)a, (size_t)(bn * s->M * s->K) * 4},
                          {XLA_FFI_DataType_F32, bat ? 3 : 2, bat ? db : db + 1, (void *)b, (size_t)(bn * s->K * s->N) * 4}};
  shloc_tensor res[1] = {{.data = out, .nbytes = (size_t)(bn * s->M * s->N) * 4}};
  OK(shloc_executable_run_into(x, args, 2, res, 1));
  shloc_executable_destroy(x);
  shloc_module_destroy(mod);
  shloc_context_destroy(ctx);
}

static void fill(float *v, size_t n, uint32_t seed) {
  for (size_t i = 0; i < n; i++) {
    seed = seed * 1664525u + 1013904223u;
    v[i] = (float)((int32_t)(seed >> 7) - (1 << 24)) * 0x1p-22f;
  }
}

static void test_thread_counts(void **state) {
  (void)state;
  static const shape shapes[] = {{0, 128, 256, 768}, {0, 1024, 256, 128}, {4, 128, 64, 128}, {9, 64, 64, 96}};
  int was = omp_get_max_threads();
  for (size_t c = 0; c < sizeof shapes / sizeof *shapes; c++) {
    const shape *s = &shapes[c];
    size_t bn = (size_t)(s->B ? s->B : 1), na = bn * (size_t)(s->M * s->K), nb = bn * (size_t)(s->K * s->N),
           no = bn * (size_t)(s->M * s->N);
    float *a = malloc(na * 4), *b = malloc(nb * 4), *o[3];
    assert_non_null(a);
    assert_non_null(b);
    fill(a, na, 1 + (uint32_t)c);
    fill(b, nb, 100 + (uint32_t)c);
    for (int t = 0; t < 3; t++) {
      o[t] = malloc(no * 4);
      assert_non_null(o[t]);
      omp_set_num_threads(t + 1);
      run(s, a, b, o[t]);
    }
    for (int t = 1; t < 3; t++)
      if (memcmp(o[0], o[t], no * 4)) fail_msg("case %zu: %d threads differ from 1", c, t + 1);
    for (int t = 0; t < 3; t++) free(o[t]);
    free(a);
    free(b);
  }
  omp_set_num_threads(was);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_thread_counts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
