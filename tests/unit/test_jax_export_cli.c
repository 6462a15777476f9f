/* `shloc inspect` and `shloc run` on jax.export envelopes written by the
 * test's own encoder (jax_envelope_build.h): the fields printed, the calling
 * convention applied (platform index, ordered-effect token, dropped input,
 * symbolic dimensions), and, when /work/shared/vhlo is present and the
 * bytecode reader can read it, an envelope around a real portable artifact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "jax_envelope_build.h"

static char dir[64];

/* Two platforms, one ordered effect; the platform index selects what is added
 * to x + z (cpu = 0 adds nothing, so a wrong index shows in the result). */
static const char module_text[] =
    "func.func public @main(%arg0: tensor<i32> {jax.global_constant = \"_platform_index\"}, %arg1: !stablehlo.token, "
    "%arg2: tensor<2xf32>, %arg3: tensor<2xf32>) -> (!stablehlo.token, tensor<2xf32>) "
    "attributes {mhlo.num_partitions = 1 : i32} {\n"
    "  %0 = stablehlo.add %arg2, %arg3 : tensor<2xf32>\n"
    "  %1 = stablehlo.convert %arg0 : (tensor<i32>) -> tensor<f32>\n"
    "  %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<2xf32>\n"
    "  %3 = stablehlo.multiply %2, %2 : tensor<2xf32>\n"
    "  %4 = stablehlo.add %0, %3 : tensor<2xf32>\n"
    "  return %arg1, %4 : !stablehlo.token, tensor<2xf32>\n"
    "}\n";

static char *path_of(const char *name) {
  static char buf[8][160];
  static int k;
  char *p = buf[k++ % 8];
  snprintf(p, 160, "%s/%s", dir, name);
  return p;
}

static void write_file(const char *name, const void *p, size_t n) {
  FILE *f = fopen(path_of(name), "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(p, 1, n, f), n);
  fclose(f);
}

/* A version-1.0 .npy of a little-endian array. */
static void write_npy(const char *name, const char *descr, const int64_t *shape, int rank, const void *data, size_t n) {
  char dims[64] = "";
  for (int i = 0; i < rank; i++) snprintf(dims + strlen(dims), sizeof dims - strlen(dims), "%lld,", (long long)shape[i]);
  char hdr[128];
  int len = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, dims);
  while ((10 + len + 1) % 64) hdr[len++] = ' ';
  hdr[len++] = '\n';
  uint8_t buf[512];
  memcpy(buf, "\x93NUMPY\x01\x00", 8);
  buf[8] = (uint8_t)len, buf[9] = 0;
  memcpy(buf + 10, hdr, (size_t)len);
  memcpy(buf + 10 + len, data, n);
  write_file(name, buf, 10 + (size_t)len + n);
}

/* Runs a shell command; returns its stdout+stderr (malloc'd) and exit code. */
static char *run(const char *cmd, int *rc) {
  char full[2048];
  snprintf(full, sizeof full, "%s 2>&1", cmd);
  FILE *p = popen(full, "r");
  assert_non_null(p);
  size_t cap = 1 << 16, n = 0;
  char *out = malloc(cap);
  while ((n < cap - 1) && !feof(p)) n += fread(out + n, 1, cap - 1 - n, p);
  out[n] = 0;
  int st = pclose(p);
  *rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

static void expect(const char *out, const char *needle) {
  if (!strstr(out, needle)) fail_msg("missing '%s' in output:\n%s", needle, out);
}

static void make_envelope(const char *name, const char *const *platforms, int n_platforms, bool no_platform_check) {
  tb_export e = {
      .version = 12, .fun_name = "f", .n_in = 3, .n_out = 1,
      .in = {{JT_F32, 1, {"2"}}, {JT_I32, 2, {"b", "2*b + 1"}}, {JT_F32, 1, {"2"}}},
      .out = {{JT_F32, 1, {"2"}}},
      .n_platforms = n_platforms,
      .n_ordered = 1, .ordered = {"<class 'jax._src.debugging.OrderedDebugEffect'>"},
      .ccv = 10, .n_kept = 2, .kept = {0, 2}, .nr_devices = 1, .check_platform = no_platform_check,
      .module = module_text, .module_len = sizeof module_text - 1, .jax_version = "0.8.1",
  };
  for (int i = 0; i < n_platforms; i++) e.platforms[i] = platforms[i];
  size_t len;
  uint8_t *env = tb_envelope(&e, &len);
  write_file(name, env, len);
  free(env);
}

static int setup(void **state) {
  (void)state;
  strcpy(dir, "/tmp/shloc_jaxcli_XXXXXX");
  if (!mkdtemp(dir)) return -1;
  static const char *const plats[] = {"cuda", "cpu", "tpu"};
  make_envelope("f.jaxexport", plats, 3, false);
  static const char *const gpu[] = {"cuda", "rocm"};
  make_envelope("gpu.jaxexport", gpu, 2, false);
  make_envelope("anywhere.jaxexport", gpu, 2, true);
  float x[2] = {1, 2}, z[2] = {10, 20};
  int32_t y[3 * 7] = {0};
  int64_t s2[1] = {2}, s37[2] = {3, 7}, s36[2] = {3, 6};
  write_npy("x.npy", "<f4", s2, 1, x, sizeof x);
  write_npy("z.npy", "<f4", s2, 1, z, sizeof z);
  write_npy("y.npy", "<i4", s37, 2, y, sizeof y);
  write_npy("ybad.npy", "<i4", s36, 2, y, 3 * 6 * 4);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[160];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static void test_inspect(void **state) {
  (void)state;
  char cmd[512];
  int rc;
  snprintf(cmd, sizeof cmd, "%s inspect %s", SHLOC_BINARY, path_of("f.jaxexport"));
  char *out = run(cmd, &rc);
  assert_int_equal(rc, 0);
  expect(out, "form: jax.export envelope");
  expect(out, "function_name: f\n");
  expect(out, "serialization_version: 12 (fields of schema version 12)\n");
  expect(out, "jax_version: 0.8.1\n");
  expect(out, "calling_convention_version: 10\n");
  expect(out, "platforms: cuda, cpu, tpu\n");
  expect(out, "  1: i32[b, 2*b + 1] memory_space=device sharding=unspecified (not kept");
  expect(out, "module_kept_var_idx: 0, 2\n");
  expect(out, "ordered_effects: <class 'jax._src.debugging.OrderedDebugEffect'>\n");
  expect(out, "mlir_module_serialized: ");
  expect(out, "main_calling_convention: platform index (cpu = 1), 1 token, 2 kept arrays -> 1 token, 1 array\n");
  expect(out, "  0: tensor<i32> {jax.global_constant = \"_platform_index\"}\n");
  expect(out, "mhlo.num_replicas: not set\n");
  free(out);
}

/* A text module: no envelope fields; attributes, signature and verify. */
static void test_inspect_text(void **state) {
  (void)state;
  static const char text[] =
      "module @jit_g attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {\n"
      "  func.func public @main(%arg0: tensor<4xf32> {mhlo.sharding = \"{replicated}\"}) -> (tensor<4xf32> "
      "{jax.result_info = \"result\"}) {\n"
      "    return %arg0 : tensor<4xf32>\n"
      "  }\n"
      "}\n";
  write_file("g.mlir", text, sizeof text - 1);
  char cmd[512];
  int rc;
  snprintf(cmd, sizeof cmd, "%s inspect %s", SHLOC_BINARY, path_of("g.mlir"));
  char *out = run(cmd, &rc);
  assert_int_equal(rc, 0);
  expect(out, "form: MLIR text, ");
  expect(out, "module: @jit_g\n");
  expect(out, "mhlo.num_replicas: 1\nmhlo.num_partitions: 2\n");
  expect(out, "entry: @main\narguments: 1\n  0: tensor<4xf32> {mhlo.sharding = \"{replicated}\"}\n");
  expect(out, "results: 1\n  0: tensor<4xf32> {jax.result_info = \"result\"}\n");
  expect(out, "verify: ok\n");
  assert_null(strstr(out, "function_name"));
  free(out);
}

static void test_run(void **state) {
  (void)state;
  char cmd[1024];
  int rc;
  /* cpu is platform 1: x + z + 1*1. */
  snprintf(cmd, sizeof cmd, "%s run %s --input %s --input %s --input %s", SHLOC_BINARY, path_of("f.jaxexport"),
           path_of("x.npy"), path_of("y.npy"), path_of("z.npy"));
  char *out = run(cmd, &rc);
  if (rc != 0) fail_msg("%s\n%s", cmd, out);
  expect(out, "dense<[1.200000e+01, 2.300000e+01]> : tensor<2xf32>");
  assert_null(strstr(out, "token"));
  free(out);

  /* 2*b + 1 with b = 3 is 7, not 6. */
  snprintf(cmd, sizeof cmd, "%s run %s --input %s --input %s --input %s", SHLOC_BINARY, path_of("f.jaxexport"),
           path_of("x.npy"), path_of("ybad.npy"), path_of("z.npy"));
  out = run(cmd, &rc);
  assert_int_equal(rc, 1);
  expect(out, "input #1");
  expect(out, "expected 2*b + 1 = 7");
  free(out);

  /* The module's own argument count is not what the user passes. */
  snprintf(cmd, sizeof cmd, "%s run %s --input %s --input %s", SHLOC_BINARY, path_of("f.jaxexport"), path_of("x.npy"),
           path_of("z.npy"));
  out = run(cmd, &rc);
  assert_int_equal(rc, 1);
  expect(out, "takes 3 arguments, got 2");
  free(out);

  snprintf(cmd, sizeof cmd, "%s run %s --input %s --input %s --input %s", SHLOC_BINARY, path_of("gpu.jaxexport"),
           path_of("x.npy"), path_of("y.npy"), path_of("z.npy"));
  out = run(cmd, &rc);
  assert_int_equal(rc, 1);
  expect(out, "do not include cpu");
  free(out);

  /* With the platform check disabled JAX runs branch 0: x + z + 0. */
  snprintf(cmd, sizeof cmd, "%s run %s --input %s --input %s --input %s", SHLOC_BINARY, path_of("anywhere.jaxexport"),
           path_of("x.npy"), path_of("y.npy"), path_of("z.npy"));
  out = run(cmd, &rc);
  if (rc != 0) fail_msg("%s\n%s", cmd, out);
  expect(out, "dense<[1.100000e+01, 2.200000e+01]> : tensor<2xf32>");
  free(out);
}

/* Envelopes around upstream's portable artifacts (never copied into the
 * tree: read from /work/shared/vhlo at test time). */
static void test_artifact_envelope(void **state) {
  (void)state;
  const char *bc = "/work/shared/vhlo/vhlo_emit_version_api.1_1_0.mlir.bc";
  const char *text = "/work/shared/vhlo/vhlo_emit_version_api.1_1_0.mlir";
  FILE *f = fopen(bc, "rb");
  if (!f) {
    print_message("SKIP: %s is absent\n", bc);
    skip();
  }
  static uint8_t art[1 << 16];
  size_t n = fread(art, 1, sizeof art, f);
  fclose(f);
  char cmd[1024];
  int rc;
  snprintf(cmd, sizeof cmd, "%s fmt %s > /dev/null", SHLOC_BINARY, bc);
  free(run(cmd, &rc));
  if (rc != 0) {
    print_message("SKIP: this build does not read portable artifacts (%s)\n", bc);
    skip();
  }
  /* @main(%arg0: tensor<f32>) -> tensor<f32> computing x + x, exported for cpu alone. */
  tb_export e = {
      .version = 11, .fun_name = "double", .n_in = 1, .n_out = 1,
      .in = {{JT_F32, 0, {NULL}}}, .out = {{JT_F32, 0, {NULL}}},
      .n_platforms = 1, .platforms = {"cpu"}, .ccv = 9, .n_kept = 1, .kept = {0}, .nr_devices = 1,
      .module = (const char *)art, .module_len = n,
  };
  size_t len;
  uint8_t *env = tb_envelope(&e, &len);
  write_file("art.jaxexport", env, len);
  free(env);
  snprintf(cmd, sizeof cmd, "%s fmt %s > %s && %s fmt %s > %s && cmp %s %s", SHLOC_BINARY, path_of("art.jaxexport"),
           path_of("a.txt"), SHLOC_BINARY, text, path_of("b.txt"), path_of("a.txt"), path_of("b.txt"));
  char *out = run(cmd, &rc);
  if (rc != 0) fail_msg("%s\n%s", cmd, out);
  free(out);
  snprintf(cmd, sizeof cmd, "%s inspect %s", SHLOC_BINARY, path_of("art.jaxexport"));
  out = run(cmd, &rc);
  assert_int_equal(rc, 0);
  expect(out, "StableHLO portable artifact (MLIR bytecode)\n");
  expect(out, "mlir_module_serialized.producer: StableHLO_v1.1.0\n");
  expect(out, "main_calling_convention: 0 tokens, 1 kept array -> 0 tokens, 1 array\n");
  free(out);
  float a = 1.5f;
  write_npy("a.npy", "<f4", NULL, 0, &a, 4);
  snprintf(cmd, sizeof cmd, "%s run %s --input %s", SHLOC_BINARY, path_of("art.jaxexport"), path_of("a.npy"));
  out = run(cmd, &rc);
  if (rc != 0) fail_msg("%s\n%s", cmd, out);
  expect(out, "dense<3.000000e+00> : tensor<f32>");
  free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_inspect),
      cmocka_unit_test(test_inspect_text),
      cmocka_unit_test(test_run),
      cmocka_unit_test(test_artifact_envelope),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
