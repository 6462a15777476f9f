/* The check runtime of compiled programs (include/shloc/aot_runtime.h):
 * check.* ops lowered by src/passes/lower_linalg_check.c call
 * _mlir_ciface_shloc_rt_check_<T>, which compares with the interpreter's own
 * rules (src/exec/kernels/check.c) and records the outcome in process-wide
 * counters; the first failure is kept for the executable to report. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "aot/rt_memref.h"
#include "exec/kernels/check.h"
#include "shloc/aot_runtime.h"

static atomic_uint_fast64_t checks_run, checks_failed;
static _Atomic(shl_status) first_failure;

uint64_t shloc_aot_checks_run(void) { return atomic_load(&checks_run); }
uint64_t shloc_aot_checks_failed(void) { return atomic_load(&checks_failed); }

shloc_status shloc_aot_check_first_failure(const char *file) {
  shl_status f = atomic_load(&first_failure);
  if (!f) return NULL;
  shl_srcpos pos = {file, f->line, f->col};
  return st_error(f->code, &pos, f->op, "%s", f->message);
}

static const char *const kind_names[] = {"check.expect_eq", "check.expect_almost_eq", "check.expect_close",
                                         "check.expect_eq_const", "check.expect_almost_eq_const"};

static void record(shl_status st) {
  atomic_fetch_add(&checks_run, 1);
  if (!st) return;
  atomic_fetch_add(&checks_failed, 1);
  shl_status none = NULL;
  if (!atomic_compare_exchange_strong(&first_failure, &none, st)) shloc_status_free(st);
}

static void run_check(shl_dtype dt, const shloc_aot_unranked *actual, const shloc_aot_unranked *expected, int32_t kind,
                      double tol, int64_t min_ulp, int64_t max_ulp, int32_t line, int32_t col) {
  shl_srcpos pos = {NULL, line, col};
  bool known = kind >= 0 && kind < (int32_t)(sizeof kind_names / sizeof *kind_names);
  const char *name = known ? kind_names[kind] : "check";
  rt_memref a, e;
  shl_status st = rt_memref_contiguous(actual, dtype_bytes(dt), &a);
  if (!st) st = rt_memref_contiguous(expected, dtype_bytes(dt), &e);
  else e = (rt_memref){0};
  if (st) {
    record(st_at(st, &pos, name));
  } else if (!known || a.n != e.n) {
    record(st_error(SHLOC_ERR_INVALID_ARG, &pos, name, "'%s' compared tensors of %lld and %lld elements", name,
                    (long long)a.n, (long long)e.n));
  } else {
    check_mode mode = kind == SHLOC_AOT_EXPECT_CLOSE                                                ? CHECK_ULP
                      : kind == SHLOC_AOT_EXPECT_ALMOST_EQ || kind == SHLOC_AOT_EXPECT_ALMOST_EQ_CONST ? CHECK_ALMOST
                                                                                                    : CHECK_EXACT;
    shl_buf b = {.dtype = dt, .rank = (int32_t)a.rank, .dims = a.dims, .n = a.n, .data = a.data};
    bool ok;
    record(check_compare_at(&pos, name, mode, &b, e.data, tol, (uint64_t)min_ulp, (uint64_t)max_ulp, &ok));
  }
  rt_memref_release(&a);
  rt_memref_release(&e);
}

#define RT_CHECK(name, dt)                                                                                         \
  void _mlir_ciface_shloc_rt_check_##name(const shloc_aot_unranked *actual, const shloc_aot_unranked *expected,  \
                                          int32_t kind, double tolerance, int64_t min_ulp, int64_t max_ulp,     \
                                          int32_t line, int32_t col) {                                         \
    run_check(dt, actual, expected, kind, tolerance, min_ulp, max_ulp, line, col);                             \
  }
RT_CHECK(i1, DT_I1)
RT_CHECK(i8, DT_I8)
RT_CHECK(i16, DT_I16)
RT_CHECK(i32, DT_I32)
RT_CHECK(i64, DT_I64)
RT_CHECK(ui8, DT_UI8)
RT_CHECK(ui16, DT_UI16)
RT_CHECK(ui32, DT_UI32)
RT_CHECK(ui64, DT_UI64)
RT_CHECK(f16, DT_F16)
RT_CHECK(bf16, DT_BF16)
RT_CHECK(f32, DT_F32)
RT_CHECK(f64, DT_F64)
RT_CHECK(complex_f32, DT_C64)
RT_CHECK(complex_f64, DT_C128)
