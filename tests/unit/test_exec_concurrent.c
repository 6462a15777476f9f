/* One executable run from many threads at once: 8 threads each run several
 * programs (elementwise + reduce, dot, while loop, sort, a custom call to the
 * rms_norm example handler, a shape-polymorphic function with two shapes)
 * over and over, and every result must equal the one computed before, on
 * one thread (bitwise, or within 1e-6 relative where OpenMP may split a sum
 * differently).  rms_norm is also checked against the formula in double.
 * A second test registers handlers while other threads create executables
 * that look targets up and run them.  Run it under ThreadSanitizer too (see
 * README "Library API"). */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "cc_harness.h"

#if !defined(SHLOC_RMS_NORM_LIB) || !defined(SHLOC_RMS_NORM_MLIR)
#error "built without cmake/custom_call_tests.cmake: SHLOC_RMS_NORM_LIB/_MLIR name the handler to load"
#endif

enum { THREADS = 8, ITERS = 1000, MAX_IN = 2, N_PROG = 6 };

static const char *const programs[N_PROG - 1] = {
    /* elementwise + reduce (fused) */
    "func.func @main(%x: tensor<16x64xf32>, %y: tensor<16x64xf32>) -> (tensor<16xf32>, tensor<16x64xf32>) {\n"
    "  %0 = stablehlo.multiply %x, %y : tensor<16x64xf32>\n"
    "  %1 = stablehlo.exponential %0 : tensor<16x64xf32>\n"
    "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
    "  %2 = stablehlo.reduce(%1 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<16x64xf32>, "
    "tensor<f32>) -> tensor<16xf32>\n"
    "  return %2, %1 : tensor<16xf32>, tensor<16x64xf32>\n"
    "}\n",
    /* dot */
    "func.func @main(%x: tensor<16x64xf32>, %y: tensor<16x64xf32>) -> tensor<16x16xf32> {\n"
    "  %0 = stablehlo.dot_general %x, %y, contracting_dims = [1] x [1] : (tensor<16x64xf32>, tensor<16x64xf32>) -> "
    "tensor<16x16xf32>\n"
    "  return %0 : tensor<16x16xf32>\n"
    "}\n",
    /* while: x <- x * y + 1, 7 times */
    "func.func @main(%x: tensor<16x64xf32>, %y: tensor<16x64xf32>) -> tensor<16x64xf32> {\n"
    "  %c0 = stablehlo.constant dense<0> : tensor<i32>\n"
    "  %c1 = stablehlo.constant dense<1> : tensor<i32>\n"
    "  %n = stablehlo.constant dense<7> : tensor<i32>\n"
    "  %one = stablehlo.constant dense<1.0> : tensor<16x64xf32>\n"
    "  %r:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<16x64xf32>\n"
    "  cond {\n"
    "    %p = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
    "    stablehlo.return %p : tensor<i1>\n"
    "  } do {\n"
    "    %i2 = stablehlo.add %i, %c1 : tensor<i32>\n"
    "    %m = stablehlo.multiply %v, %y : tensor<16x64xf32>\n"
    "    %v2 = stablehlo.add %m, %one : tensor<16x64xf32>\n"
    "    stablehlo.return %i2, %v2 : tensor<i32>, tensor<16x64xf32>\n"
    "  }\n"
    "  return %r#1 : tensor<16x64xf32>\n"
    "}\n",
    /* sort (the radix path with its per-run scratch), with an index payload */
    "func.func @main(%x: tensor<16x64xf32>, %y: tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<16x64xi32>) {\n"
    "  %i = stablehlo.iota dim = 1 : tensor<16x64xi32>\n"
    "  %s:2 = \"stablehlo.sort\"(%x, %i) ({\n"
    "  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):\n"
    "    %p = stablehlo.compare GT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
    "    stablehlo.return %p : tensor<i1>\n"
    "  }) {dimension = 1 : i64, is_stable = true} : (tensor<16x64xf32>, tensor<16x64xi32>) -> (tensor<16x64xf32>, "
    "tensor<16x64xi32>)\n"
    "  return %s#0, %s#1 : tensor<16x64xf32>, tensor<16x64xi32>\n"
    "}\n",
    /* dynamic shapes: planned per input shape in the executable's cache */
    "func.func @main(%x: tensor<?x64xf32>, %y: tensor<?x64xf32>) -> tensor<?x64xf32> {\n"
    "  %0 = stablehlo.subtract %x, %y : tensor<?x64xf32>\n"
    "  %1 = stablehlo.abs %0 : tensor<?x64xf32>\n"
    "  return %1 : tensor<?x64xf32>\n"
    "}\n",
};

typedef struct {
  cc_prog p;
  size_t n_in, n_out;
  int variants;                /* argument shapes it is run with (2 for the dynamic one) */
  shloc_tensor args[2][MAX_IN];
  shloc_tensor ref[2][4];      /* results of the single-threaded run */
} prog;

static float xs[16 * 64], ys[16 * 64];
static const int64_t dims16[2] = {16, 64}, dims9[2] = {9, 64}, dims10[2] = {10, 10};

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (!s || fread(s, 1, (size_t)n, f) != (size_t)n) fail_msg("cannot read %s", path);
  s[n] = '\0';
  fclose(f);
  return s;
}

static shloc_tensor f32_arg(const int64_t *dims, float *data) {
  return (shloc_tensor){XLA_FFI_DataType_F32, 2, dims, data, (size_t)(dims[0] * dims[1]) * sizeof(float)};
}

static void prog_init(prog *g, const char *text, shloc_ffi_registry *reg, bool dynamic) {
  memset(g, 0, sizeof *g);
  assert_ok(cc_build(text, reg, &g->p));
  g->n_in = shloc_executable_num_args(g->p.x);
  g->n_out = shloc_executable_num_results(g->p.x);
  assert_true(g->n_in <= MAX_IN && g->n_out <= 4);
  g->variants = dynamic ? 2 : 1;
  for (int v = 0; v < g->variants; v++) {
    const int64_t *d = g->n_in == 1 ? dims10 : v ? dims9 : dims16;
    g->args[v][0] = f32_arg(d, xs);
    if (g->n_in > 1) g->args[v][1] = f32_arg(d, ys);
    assert_ok(shloc_executable_run(g->p.x, g->args[v], g->n_in, g->ref[v], g->n_out));
  }
}

static void prog_free(prog *g) {
  for (int v = 0; v < g->variants; v++) cc_free_results(g->ref[v], g->n_out);
  cc_free(&g->p);
}

/* Whether a and b hold the same values (floats within 1e-6 relative). */
static bool same(const shloc_tensor *a, const shloc_tensor *b) {
  if (a->nbytes != b->nbytes || a->rank != b->rank || a->dtype != b->dtype) return false;
  if (a->dtype != XLA_FFI_DataType_F32) return memcmp(a->data, b->data, a->nbytes) == 0;
  const float *x = a->data, *y = b->data;
  for (size_t i = 0; i < a->nbytes / sizeof *x; i++)
    if (!(fabsf(x[i] - y[i]) <= 1e-6f * fmaxf(1.0f, fabsf(y[i])))) return false;
  return true;
}

static prog progs[N_PROG];
static int iters = ITERS;

static void *worker(void *arg) {
  intptr_t bad = 0;
  int t = (int)(intptr_t)arg;
  for (int k = 0; k < iters && !bad; k++)
    for (int j = 0; j < N_PROG && !bad; j++) {
      prog *g = &progs[(j + t) % N_PROG]; /* threads start on different programs */
      int v = (k + t) % g->variants;
      shloc_tensor res[4];
      shloc_status st = shloc_executable_run(g->p.x, g->args[v], g->n_in, res, g->n_out);
      if (st) {
        shloc_status_free(st);
        bad = 1;
        break;
      }
      for (size_t i = 0; i < g->n_out; i++) bad |= !same(&res[i], &g->ref[v][i]);
      cc_free_results(res, g->n_out);
    }
  return (void *)bad;
}

static shloc_ffi_registry *rms_registry(void) {
  shloc_ffi_registry *reg = cc_registry();
  assert_ok(shloc_ffi_register_symbol(reg, "rms_norm", SHLOC_RMS_NORM_LIB ":rms_norm", SHLOC_FFI_ANY));
  return reg;
}

static void test_concurrent_runs(void **state) {
  (void)state;
  const char *env = getenv("SHLOC_CONCURRENT_ITERS"); /* fewer under sanitizers */
  if (env && atoi(env) > 0) iters = atoi(env);
  for (int i = 0; i < 16 * 64; i++) {
    xs[i] = (float)sin(0.37 * i);
    ys[i] = (float)cos(0.11 * i) * 0.5f;
  }
  shloc_ffi_registry *reg = rms_registry();
  for (int j = 0; j < N_PROG - 1; j++) prog_init(&progs[j], programs[j], reg, j == N_PROG - 2);
  char *rms = read_file(SHLOC_RMS_NORM_MLIR);
  prog_init(&progs[N_PROG - 1], rms, reg, false);
  free(rms);
  /* The single-threaded rms_norm reference, against the formula. */
  const float *y = progs[N_PROG - 1].ref[0][0].data;
  for (int r = 0; r < 10; r++) {
    double ss = 0;
    for (int j = 0; j < 10; j++) ss += (double)xs[r * 10 + j] * xs[r * 10 + j];
    double scale = 1.0 / sqrt(ss / 10 + 1e-5);
    for (int j = 0; j < 10; j++) assert_true(fabs(y[r * 10 + j] - xs[r * 10 + j] * scale) <= 1e-5);
  }
  pthread_t th[THREADS];
  for (int t = 0; t < THREADS; t++) assert_int_equal(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t), 0);
  int failed = 0;
  for (int t = 0; t < THREADS; t++) {
    void *r;
    pthread_join(th[t], &r);
    failed += r != NULL;
  }
  assert_int_equal(failed, 0);
  for (int j = 0; j < N_PROG; j++) prog_free(&progs[j]);
  shloc_ffi_registry_destroy(reg);
}

/* ---- registration while other threads plan and run ---- */

enum { N_REG = 100 };

typedef struct {
  shloc_ffi_registry *reg;
  const char *text;
  intptr_t bad;
} reg_job;

static void *registrar(void *arg) {
  reg_job *j = arg;
  for (int i = 0; i < N_REG; i++) {
    char name[32];
    snprintf(name, sizeof name, "extra_%d", i);
    shloc_status st = shloc_ffi_register_symbol(j->reg, name, SHLOC_RMS_NORM_LIB ":rms_norm", SHLOC_FFI_ANY);
    if (st) {
      shloc_status_free(st);
      j->bad = 1;
    }
    shloc_ffi_target tg;
    size_t n = shloc_ffi_target_count(j->reg);
    for (size_t k = 0; k < n; k++) j->bad |= !shloc_ffi_target_get(j->reg, k, &tg);
  }
  return NULL;
}

/* Creates executables (which look "rms_norm" up) and runs them. */
static void *planner(void *arg) {
  reg_job *j = arg;
  for (int i = 0; i < 40 && !j->bad; i++) {
    cc_prog p;
    shloc_status st = cc_build(j->text, j->reg, &p);
    if (st) {
      shloc_status_free(st);
      j->bad = 1;
      break;
    }
    void *in[1] = {xs};
    shloc_tensor res;
    for (int k = 0; k < 10 && !j->bad; k++) {
      if ((st = cc_run(&p, in, &res))) {
        shloc_status_free(st);
        j->bad = 1;
        break;
      }
      j->bad |= memcmp(res.data, progs[0].ref[0][0].data, res.nbytes) != 0;
      cc_free_results(&res, 1);
    }
    cc_free(&p);
  }
  return NULL;
}

static void test_concurrent_registration(void **state) {
  (void)state;
  for (int i = 0; i < 100; i++) xs[i] = (float)sin(0.37 * i);
  shloc_ffi_registry *reg = rms_registry();
  char *text = read_file(SHLOC_RMS_NORM_MLIR);
  prog_init(&progs[0], text, reg, false); /* the reference */
  reg_job jobs[4];
  pthread_t th[4];
  for (int t = 0; t < 4; t++) {
    jobs[t] = (reg_job){reg, text, 0};
    assert_int_equal(pthread_create(&th[t], NULL, t == 0 ? registrar : planner, &jobs[t]), 0);
  }
  for (int t = 0; t < 4; t++) {
    pthread_join(th[t], NULL);
    assert_int_equal(jobs[t].bad, 0);
  }
  assert_int_equal(shloc_ffi_target_count(reg), 1 + N_REG);
  prog_free(&progs[0]);
  free(text);
  shloc_ffi_registry_destroy(reg);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_concurrent_runs),
      cmocka_unit_test(test_concurrent_registration),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
