/* Micro-benchmark (not a test): cost of ffi_site_call for trivial handlers,
 * i.e. the per-call overhead of shloc's custom-call path.  Reports the best
 * of five rounds, since a loaded machine inflates single rounds.
 * Usage: bench_ffi_call [calls per round]   (default 100000) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ffi/ffi.h"

static XLA_FFI_Error *trivial(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  float *x = shloc_ffi_arg(cf, 0)->data, *y = shloc_ffi_ret(cf, 0)->data;
  y[0] = x[0] + 1.0f;
  return NULL;
}

static void trivial_v1(void *out, const void **in) { *(float *)out = *(const float *)in[0] + 1.0f; }

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int run(ffi_registry *r, const char *label, const char *target, int api_version, long calls) {
  ffi_site *s;
  ffi_site_desc d = {.target = target, .api_version = api_version, .n_args = 1, .n_rets = 1};
  shl_status st = ffi_site_prepare(r, &d, &s);
  if (st) {
    fprintf(stderr, "%s\n", shloc_status_message(st));
    shloc_status_free(st);
    return 1;
  }
  float x = 0, y = 0;
  int64_t dims[1] = {1};
  ffi_buffer arg = {DT_F32, &x, 1, dims}, ret = {DT_F32, &y, 1, dims};
  double best = 0;
  for (int round = 0; round < 5 && !st; round++) {
    double t0 = now_ns();
    for (long i = 0; i < calls; i++) {
      st = ffi_site_call(s, NULL, &arg, &ret);
      if (st) break;
      x = y;
    }
    double dt = now_ns() - t0;
    if (round == 0 || dt < best) best = dt;
  }
  ffi_site_destroy(s);
  if (st) {
    fprintf(stderr, "%s\n", shloc_status_message(st));
    shloc_status_free(st);
    return 1;
  }
  printf("%-22s %ld calls x 5 rounds  best %.1f ns/call  (checksum %.0f)\n", label, calls, best / (double)calls,
         (double)y);
  return 0;
}

int main(int argc, char **argv) {
  long calls = argc > 1 ? strtol(argv[1], NULL, 10) : 100000;
  if (calls <= 0) calls = 100000;
  ffi_registry *r;
  if (ffi_registry_create(&r)) return 1;
  XLA_FFI_Handler_Bundle b = {NULL, NULL, NULL, trivial};
  shl_status st = ffi_registry_add_handler(r, "trivial", NULL, &b, 0);
  if (!st) st = ffi_registry_add_legacy(r, "trivial_v1", NULL, (shloc_legacy_fn)trivial_v1);
  if (st) {
    fprintf(stderr, "%s\n", shloc_status_message(st));
    return 1;
  }
  int rc = run(r, "typed FFI (api 4)", "trivial", 4, calls) | run(r, "legacy (api 1)", "trivial_v1", 1, calls);
  ffi_registry_destroy(r);
  return rc;
}
