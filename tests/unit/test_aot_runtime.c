/* The runtime compiled code calls (include/shloc/aot_runtime.h), driven with
 * hand-built memref descriptors: the check runtime (pass, failure counting,
 * the first failure's position and message, strided operands, the NaN and
 * ULP rules), the BLAS call-out against products computed by hand,
 * memrefCopy between strided memrefs, and the driver's .npy reading
 * (shape/type mismatch messages) and writing. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "shloc/aot_runtime.h"

/* A ranked descriptor of rank 2; rank 1 uses its words 3 and 4 as
 * sizes[0] and strides[0]. */
typedef struct {
  void *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} desc2;

static shloc_aot_unranked view(desc2 *d, void *data, int64_t s0, int64_t s1, int64_t st0, int64_t st1) {
  *d = (desc2){data, data, 0, {s0, s1}, {st0, st1}};
  return (shloc_aot_unranked){2, d};
}

static shloc_aot_unranked view1(desc2 *d, void *data, int64_t offset, int64_t n, int64_t stride) {
  *d = (desc2){data, data, offset, {n, stride}, {0, 0}};
  return (shloc_aot_unranked){1, d};
}

static void check_counts_and_messages(void **state) {
  (void)state;
  uint64_t run0 = shloc_aot_checks_run(), failed0 = shloc_aot_checks_failed();
  float a[4] = {1, 2, 3, 4}, e[4] = {1, 2, 3, 4};
  desc2 da, de;
  shloc_aot_unranked ua = view(&da, a, 2, 2, 2, 1), ue = view(&de, e, 2, 2, 2, 1);
  _mlir_ciface_shloc_rt_check_f32(&ua, &ue, SHLOC_AOT_EXPECT_EQ, 0, 0, 0, 3, 7);
  assert_int_equal(shloc_aot_checks_run() - run0, 1);
  assert_int_equal(shloc_aot_checks_failed() - failed0, 0);
  /* One ULP off: passes expect_close [0, 1], fails exact equality. */
  uint32_t bits;
  memcpy(&bits, &e[3], 4);
  bits++;
  memcpy(&a[3], &bits, 4);
  _mlir_ciface_shloc_rt_check_f32(&ua, &ue, SHLOC_AOT_EXPECT_CLOSE, 0, 0, 1, 3, 7);
  assert_int_equal(shloc_aot_checks_failed() - failed0, 0);
  _mlir_ciface_shloc_rt_check_f32(&ua, &ue, SHLOC_AOT_EXPECT_EQ, 0, 0, 0, 12, 5);
  assert_int_equal(shloc_aot_checks_failed() - failed0, 1);
  if (failed0 == 0) {
    shloc_status st = shloc_aot_check_first_failure("prog.mlir");
    assert_non_null(st);
    const char *file;
    int line, col;
    shloc_status_location(st, &file, &line, &col);
    assert_string_equal(file, "prog.mlir");
    assert_int_equal(line, 12);
    assert_int_equal(col, 5);
    assert_non_null(strstr(shloc_status_message(st), "'check.expect_eq' check failed at index [1, 1]"));
    shloc_status_free(st);
  }
  /* Absolute tolerance. */
  a[3] = 4.0005f;
  _mlir_ciface_shloc_rt_check_f32(&ua, &ue, SHLOC_AOT_EXPECT_ALMOST_EQ, 1e-3, 0, 0, 1, 1);
  assert_int_equal(shloc_aot_checks_failed() - failed0, 1);
  _mlir_ciface_shloc_rt_check_f32(&ua, &ue, SHLOC_AOT_EXPECT_ALMOST_EQ, 1e-4, 0, 0, 1, 1);
  assert_int_equal(shloc_aot_checks_failed() - failed0, 2);
  assert_int_equal(shloc_aot_checks_run() - run0, 5);
}

static void check_strided_and_nan(void **state) {
  (void)state;
  uint64_t failed0 = shloc_aot_checks_failed();
  /* Column 1 of a 3x2 matrix (stride 2) against a packed vector. */
  double m[6] = {0, 1.5, 0, NAN, 0, -2}, v[3] = {1.5, NAN, -2};
  desc2 dm, dv;
  shloc_aot_unranked um = view1(&dm, m, 1, 3, 2), uv = view1(&dv, v, 0, 3, 1);
  _mlir_ciface_shloc_rt_check_f64(&um, &uv, SHLOC_AOT_EXPECT_EQ, 0, 0, 0, 1, 1); /* NaN matches NaN */
  _mlir_ciface_shloc_rt_check_f64(&um, &uv, SHLOC_AOT_EXPECT_ALMOST_EQ, 1e-9, 0, 0, 1, 1);
  assert_int_equal(shloc_aot_checks_failed() - failed0, 0);
  int32_t i[2] = {7, -3}, j[2] = {7, -4};
  desc2 di, dj;
  shloc_aot_unranked ui = view1(&di, i, 0, 2, 1), uj = view1(&dj, j, 0, 2, 1);
  _mlir_ciface_shloc_rt_check_i32(&ui, &uj, SHLOC_AOT_EXPECT_EQ, 0, 0, 0, 1, 1);
  assert_int_equal(shloc_aot_checks_failed() - failed0, 1);
}

static void gemm_by_hand(void **state) {
  (void)state;
  /* A = [[1, 2, 3], [4, 5, 6]] stored transposed (3x2), B = [[1, 0], [0, 1], [1, 1]] (3x2). */
  float at[6] = {1, 4, 2, 5, 3, 6}, b[6] = {1, 0, 0, 1, 1, 1}, c[4] = {0};
  desc2 da, db, dc;
  shloc_aot_unranked ua = view(&da, at, 3, 2, 2, 1), ub = view(&db, b, 3, 2, 2, 1), uc = view(&dc, c, 2, 2, 2, 1);
  _mlir_ciface_shloc_rt_gemm_f32(&ua, &ub, &uc, 1, 2, 2, 3, 1, 0);
  const float want[4] = {4, 5, 10, 11};
  for (int k = 0; k < 4; k++) assert_true(c[k] == want[k]);
  /* Batched f64, B transposed: C[b] = A[b] B[b]^T. */
  double a2[8] = {1, 2, 3, 4, 1, 0, 0, 1}, b2[8] = {1, 1, 0, 2, 2, 0, 1, 1}, c2[8];
  desc2 d1, d2, d3;
  shloc_aot_unranked u1 = view(&d1, a2, 4, 2, 2, 1), u2 = view(&d2, b2, 4, 2, 2, 1), u3 = view(&d3, c2, 4, 2, 2, 1);
  _mlir_ciface_shloc_rt_gemm_f64(&u1, &u2, &u3, 2, 2, 2, 2, 0, 1);
  const double want2[8] = {3, 4, 7, 8, 2, 1, 0, 1};
  for (int k = 0; k < 8; k++) assert_true(c2[k] == want2[k]);
}

static void memref_copy_strided(void **state) {
  (void)state;
  int16_t src[6] = {1, 2, 3, 4, 5, 6}, dst[6] = {0};
  desc2 ds, dd;
  /* src viewed transposed (2x3 -> 3x2 with strides 1, 3), dst packed 3x2 */
  shloc_aot_unranked us = view(&ds, src, 3, 2, 1, 3), ud = view(&dd, dst, 3, 2, 2, 1);
  memrefCopy(2, &us, &ud);
  const int16_t want[6] = {1, 4, 2, 5, 3, 6};
  assert_memory_equal(dst, want, sizeof want);
}

static void npy_io(void **state) {
  (void)state;
  char dir[] = "/tmp/test_aot_runtime_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[64];
  snprintf(path, sizeof path, "%s/x.npy", dir);
  const int32_t x[6] = {1, -2, 3, -4, 5, -6};
  shloc_status st = shloc_aot_write_npy(path, "tensor<2x3xi32>", x);
  assert_null(st);
  void *data = NULL;
  assert_null(shloc_aot_read_npy(path, "tensor<2x3xi32>", 0, &data));
  assert_memory_equal(data, x, sizeof x);
  free(data);
  st = shloc_aot_read_npy(path, "tensor<3x2xi32>", 1, &data);
  assert_non_null(st);
  assert_non_null(strstr(shloc_status_message(st), "argument #1"));
  assert_non_null(strstr(shloc_status_message(st), "expected tensor<3x2xi32>, got tensor<2x3xi32> (<i4)"));
  shloc_status_free(st);
  st = shloc_aot_read_npy(path, "tensor<2x3xf32>", 0, &data);
  assert_non_null(st);
  shloc_status_free(st);
  char *text = NULL;
  assert_null(shloc_aot_format("tensor<2x3xi32>", x, &text));
  assert_string_equal(text, "dense<[[1, -2, 3], [-4, 5, -6]]> : tensor<2x3xi32>");
  free(text);
  st = shloc_aot_format("tensor<?xi32>", x, &text);
  assert_non_null(st);
  shloc_status_free(st);
  unlink(path);
  rmdir(dir);
}

/* The heap of compiled code: small blocks honour the alignment; a freed big
 * block comes back for the next allocation of that size (no fresh pages),
 * 2 MiB aligned, and is not handed out twice while live. */
static void heap_reuses_big_blocks(void **state) {
  (void)state;
  char *small = _mlir_memref_to_llvm_aligned_alloc(64, 100);
  assert_non_null(small);
  assert_int_equal((uintptr_t)small % 64, 0);
  memset(small, 1, 100);
  _mlir_memref_to_llvm_free(small);
  size_t big = (size_t)5 << 20;
  char *a = _mlir_memref_to_llvm_aligned_alloc(64, big);
  assert_non_null(a);
  assert_int_equal((uintptr_t)a % (2u << 20), 0);
  a[0] = 1;
  a[big - 1] = 2;
  char *b = _mlir_memref_to_llvm_alloc(big);
  assert_non_null(b);
  assert_ptr_not_equal(a, b);
  _mlir_memref_to_llvm_free(a);
  char *c = _mlir_memref_to_llvm_alloc(big - 100);
  assert_ptr_equal(c, a); /* the cached block */
  assert_int_equal(c[big - 1], 2);
  char *d = _mlir_memref_to_llvm_alloc(big / 4); /* far smaller: not that block */
  assert_ptr_not_equal(d, a);
  _mlir_memref_to_llvm_free(b);
  _mlir_memref_to_llvm_free(c);
  _mlir_memref_to_llvm_free(d);
  _mlir_memref_to_llvm_free(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(check_counts_and_messages), cmocka_unit_test(check_strided_and_nan),
      cmocka_unit_test(gemm_by_hand),              cmocka_unit_test(memref_copy_strided),
      cmocka_unit_test(npy_io),                    cmocka_unit_test(heap_reuses_big_blocks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
