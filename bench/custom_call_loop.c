/* Micro-benchmark (not a test): the cost of one custom call in the
 * interpreter.  A stablehlo.while loop of N iterations whose body applies a
 * chain of K ops to a scalar f32 (each v + 1): a tiny typed FFI handler, a
 * tiny legacy handler, or stablehlo.add for comparison.  The time per
 * iteration grows linearly with K; (t(K) - t(0)) / K is the cost of one op,
 * free of the loop's own overhead.  Best of five rounds each.
 * Usage: bench_custom_call_loop [iterations [K]]   (default 100000 8) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shloc/executable.h"
#include "shloc/ffi_registry.h"

static XLA_FFI_Error *tiny(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  const float *x = shloc_ffi_arg(cf, 0)->data;
  float *y = shloc_ffi_ret(cf, 0)->data;
  *y = *x + 1.0f;
  return NULL;
}

static void tiny_v1(void *out, const void **in) { *(float *)out = *(const float *)in[0] + 1.0f; }

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The loop module: the body applies `k` ops `op` (a printf format with two
 * %s: result name, operand name) to %v. */
static char *loop_module(long iters, const char *op, int k) {
  static const char head[] =
      "func.func @main() -> tensor<f32> {\n"
      "  %%c0 = stablehlo.constant dense<0> : tensor<i64>\n"
      "  %%c1 = stablehlo.constant dense<1> : tensor<i64>\n"
      "  %%cn = stablehlo.constant dense<%ld> : tensor<i64>\n"
      "  %%one = stablehlo.constant dense<1.0> : tensor<f32>\n"
      "  %%z = stablehlo.constant dense<0.0> : tensor<f32>\n"
      "  %%w:2 = stablehlo.while(%%i = %%c0, %%v0 = %%z) : tensor<i64>, tensor<f32>\n"
      "    cond {\n"
      "      %%lt = stablehlo.compare LT, %%i, %%cn : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
      "      stablehlo.return %%lt : tensor<i1>\n"
      "    } do {\n";
  static const char tail[] =
      "      %%j = stablehlo.add %%i, %%c1 : tensor<i64>\n"
      "      stablehlo.return %%j, %%v%d : tensor<i64>, tensor<f32>\n"
      "    }\n"
      "  return %%w#1 : tensor<f32>\n"
      "}\n";
  size_t cap = sizeof head + sizeof tail + (size_t)k * (strlen(op) + 64) + 64, n = 0;
  char *s = malloc(cap);
  if (!s) return NULL;
  n += (size_t)snprintf(s + n, cap - n, head, iters);
  for (int i = 0; i < k; i++) {
    char res[32], arg[32];
    snprintf(res, sizeof res, "%%v%d", i + 1);
    snprintf(arg, sizeof arg, "%%v%d", i);
    n += (size_t)snprintf(s + n, cap - n, "      ");
    n += (size_t)snprintf(s + n, cap - n, op, res, arg);
    n += (size_t)snprintf(s + n, cap - n, "\n");
  }
  snprintf(s + n, cap - n, tail, k);
  return s;
}

static void report(shloc_status st) {
  fprintf(stderr, "error: %s\n", shloc_status_message(st));
  shloc_status_free(st);
}

/* Best time per iteration (ns) over five runs; -1 on error. */
static double time_loop(shloc_ffi_registry *reg, long iters, const char *op, int k) {
  char *text = loop_module(iters, op, k);
  shloc_context *ctx = shloc_context_create();
  shloc_module *m = NULL;
  shloc_executable *x = NULL;
  double best = -1;
  if (!text || !ctx) {
    fprintf(stderr, "out of memory\n");
    free(text);
    shloc_context_destroy(ctx);
    return -1;
  }
  shloc_status st = shloc_module_parse(ctx, "loop.mlir", text, strlen(text), 1, &m);
  if (!st) st = shloc_module_verify(m);
  if (!st) st = shloc_executable_create(m, "main", reg, &x);
  for (int round = 0; round < 5 && !st; round++) {
    shloc_tensor out;
    double t0 = now_ns();
    st = shloc_executable_run(x, NULL, 0, &out, 1);
    double t = (now_ns() - t0) / (double)iters;
    if (st) break;
    float want = (float)iters * (float)k;
    if (*(float *)out.data != want && iters < (1l << 24)) fprintf(stderr, "wrong result %g\n", *(float *)out.data);
    free(out.data);
    if (best < 0 || t < best) best = t;
  }
  if (st) {
    report(st);
    best = -1;
  }
  shloc_executable_destroy(x);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
  free(text);
  return best;
}

static const char *const ops[][2] = {
    {"stablehlo.add", "%s = stablehlo.add %s, %%one : tensor<f32>"},
    {"typed FFI custom call", "%s = stablehlo.custom_call @tiny(%s) {mhlo.backend_config = {}, operand_layouts = "
                              "[dense<> : tensor<0xindex>], result_layouts = [dense<> : tensor<0xindex>]} : "
                              "(tensor<f32>) -> tensor<f32>"},
    {"legacy v1 custom call", "%s = stablehlo.custom_call @tiny_v1(%s) : (tensor<f32>) -> tensor<f32>"},
};

int main(int argc, char **argv) {
  long iters = argc > 1 ? atol(argv[1]) : 100000;
  int k = argc > 2 ? atoi(argv[2]) : 8;
  if (iters <= 0) iters = 100000;
  if (k <= 0) k = 8;
  shloc_ffi_registry *reg;
  shloc_status st = shloc_ffi_registry_create(&reg);
  if (!st) st = shloc_ffi_register_handler(reg, "tiny", "cpu", tiny);
  if (!st) st = shloc_ffi_register_legacy(reg, "tiny_v1", "cpu", (shloc_legacy_fn)tiny_v1);
  if (st) {
    report(st);
    return 1;
  }
  double base = time_loop(reg, iters, ops[0][1], 0);
  if (base < 0) return 1;
  printf("while loop of %ld iterations, best of 5 rounds\n", iters);
  printf("  empty body                        %7.1f ns per iteration\n", base);
  int rc = 0;
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    double t = time_loop(reg, iters, ops[i][1], k);
    if (t < 0) {
      rc = 1;
      continue;
    }
    printf("  %d x %-22s  %7.1f ns per iteration -> %5.1f ns per op\n", k, ops[i][0], t, (t - base) / k);
  }
  shloc_ffi_registry_destroy(reg);
  return rc;
}
