/* The radix sort behind recognised sort comparators against a plain stable
 * merge sort that applies each comparator's meaning directly: slices long
 * enough for all threads to share (also strided ones), one slice per
 * thread, insertion-sized slices, ties, NaN / -0 / infinities, descending
 * order, payloads, and f32, f64, i32, i64, ui8 keys.  Results must match
 * bit for bit.  Every case runs with 4 threads and with 1. */
#include <math.h>
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

typedef enum { K_F32, K_F64, K_I32, K_I64, K_U8 } key_type;

/* Comparators: JAX's (-0 -> +0, NaN -> one NaN, LT TOTALORDER), LT FLOAT,
 * LT TOTALORDER on raw values, GT SIGNED, LT SIGNED, LT UNSIGNED, and
 * GT FLOAT of the negated values (LT FLOAT in meaning, but not recognised:
 * the general path, whose merges the threads share). */
typedef enum { C_JAX, C_FLOAT, C_TOTAL, C_GT, C_LT, C_ULT, C_NEG } cmp_kind;

typedef struct {
  key_type kt;
  cmp_kind ck;
  int rank;
  int64_t dims[2];
  int dim;       /* sorted dimension */
  bool payload;  /* a second operand: i32 element numbers */
  int specials;  /* 1: NaNs, zeros of both signs and infinities among the keys; 2: no NaNs;
                    3: most keys within 1 +- 5e-4, one in 16 out to +-5e8 (two buckets of the
                    top digit hold almost all keys) */
  int distinct;  /* keys drawn from this many values (0: any) */
} sort_case;

static const char *mlir_type(key_type t) {
  static const char *names[] = {"f32", "f64", "i32", "i64", "ui8"};
  return names[t];
}

static size_t key_size(key_type t) {
  static const size_t sizes[] = {4, 8, 4, 8, 1};
  return sizes[t];
}

static XLA_FFI_DataType ffi_type(key_type t) {
  static const XLA_FFI_DataType types[] = {XLA_FFI_DataType_F32, XLA_FFI_DataType_F64, XLA_FFI_DataType_S32,
                                           XLA_FFI_DataType_S64, XLA_FFI_DataType_U8};
  return types[t];
}

/* %P<c> = JAX's canonical form of %<arg>. */
static int canon(char *o, size_t cap, const char *arg, const char *t, const char *nan) {
  return snprintf(o, cap,
                  "    %%%sz = stablehlo.constant dense<0.0> : tensor<%s>\n"
                  "    %%%se = stablehlo.compare EQ, %%%s, %%%sz, FLOAT : (tensor<%s>, tensor<%s>) -> tensor<i1>\n"
                  "    %%%ss = stablehlo.select %%%se, %%%sz, %%%s : tensor<i1>, tensor<%s>\n"
                  "    %%%sn = stablehlo.compare NE, %%%s, %%%s, FLOAT : (tensor<%s>, tensor<%s>) -> tensor<i1>\n"
                  "    %%%sq = stablehlo.constant dense<%s> : tensor<%s>\n"
                  "    %%%sc = stablehlo.select %%%sn, %%%sq, %%%ss : tensor<i1>, tensor<%s>\n",
                  arg, t, arg, arg, arg, t, t, arg, arg, arg, arg, t, arg, arg, arg, t, t, arg, nan, t, arg, arg, arg,
                  arg, t);
}

static char *module_text(const sort_case *c) {
  enum { CAP = 8192 };
  char *o = malloc(CAP), shape[64], kt[80], vt[80];
  assert_non_null(o);
  const char *t = mlir_type(c->kt);
  if (c->rank == 1) snprintf(shape, sizeof shape, "%lld", (long long)c->dims[0]);
  else snprintf(shape, sizeof shape, "%lldx%lld", (long long)c->dims[0], (long long)c->dims[1]);
  snprintf(kt, sizeof kt, "tensor<%sx%s>", shape, t);
  snprintf(vt, sizeof vt, "tensor<%sxi32>", shape);
  int n = snprintf(o, CAP, "func.func @main(%%k: %s%s%s) -> (%s%s%s) {\n", kt, c->payload ? ", %v: " : "",
                   c->payload ? vt : "", kt, c->payload ? ", " : "", c->payload ? vt : "");
  n += snprintf(o + n, CAP - n,
                "  %%s%s = \"stablehlo.sort\"(%%k%s) <{dimension = %d : i64, is_stable = true}> ({\n"
                "  ^bb0(%%a: tensor<%s>, %%b: tensor<%s>%s):\n",
                c->payload ? ":2" : "", c->payload ? ", %v" : "", c->dim, t, t,
                c->payload ? ", %c: tensor<i32>, %d: tensor<i32>" : "");
  const char *nan = c->kt == K_F32 ? "0x7FC00000" : "0x7FF8000000000000";
  switch (c->ck) {
    case C_JAX:
      n += canon(o + n, CAP - n, "a", t, nan);
      n += canon(o + n, CAP - n, "b", t, nan);
      n += snprintf(o + n, CAP - n, "    %%r = stablehlo.compare LT, %%ac, %%bc, TOTALORDER : (tensor<%s>, tensor<%s>) -> tensor<i1>\n", t, t);
      break;
    case C_FLOAT:
    case C_TOTAL:
    case C_GT:
    case C_LT:
    case C_ULT: {
      static const char *dir[] = {"", "LT", "LT", "GT", "LT", "LT"};
      static const char *ty[] = {"", "FLOAT", "TOTALORDER", "SIGNED", "SIGNED", "UNSIGNED"};
      n += snprintf(o + n, CAP - n, "    %%r = stablehlo.compare %s, %%a, %%b, %s : (tensor<%s>, tensor<%s>) -> tensor<i1>\n",
                    dir[c->ck], ty[c->ck], t, t);
      break;
    }
    case C_NEG:
      n += snprintf(o + n, CAP - n,
                    "    %%na = stablehlo.negate %%a : tensor<%s>\n    %%nb = stablehlo.negate %%b : tensor<%s>\n"
                    "    %%r = stablehlo.compare GT, %%na, %%nb, FLOAT : (tensor<%s>, tensor<%s>) -> tensor<i1>\n",
                    t, t, t, t);
      break;
  }
  n += snprintf(o + n, CAP - n,
                "    stablehlo.return %%r : tensor<i1>\n"
                "  }) : (%s%s%s) -> (%s%s%s)\n"
                "  return %s : %s%s%s\n}\n",
                kt, c->payload ? ", " : "", c->payload ? vt : "", kt, c->payload ? ", " : "", c->payload ? vt : "",
                c->payload ? "%s#0, %s#1" : "%s", kt, c->payload ? ", " : "", c->payload ? vt : "");
  assert_true(n < CAP);
  return o;
}

static uint64_t rng_next(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* Key i: random bits, or one of `distinct` values; with specials, NaNs of
 * both signs and payloads, zeros of both signs and infinities mixed in, or
 * (3) most keys near 1. */
static void fill_keys(const sort_case *c, void *keys, int64_t n, uint64_t seed) {
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (int64_t i = 0; i < n; i++) {
    uint64_t r = rng_next(&s);
    int64_t small = c->distinct ? (int64_t)(r % (uint64_t)c->distinct) - c->distinct / 2 : 0;
    double d = c->distinct ? (double)small * 0.25 : ((double)(r >> 11) / 9007199254740992.0 - 0.5) * 1e3;
    int sp = c->specials ? (int)(rng_next(&s) % 16) : 15;
    static const double inf = INFINITY;
    double v = sp == 0 ? -0.0 : sp == 1 ? 0.0 : sp == 2 ? inf : sp == 3 ? -inf : d;
    if (c->specials == 3) v = sp == 0 ? d * 1e6 : 1.0 + d * 1e-6;
    switch (c->kt) {
      case K_F32: {
        float f = (float)v;
        uint32_t b;
        memcpy(&b, &f, 4);
        if (sp == 4 && c->specials == 1) b = 0x7FC00000u | (uint32_t)(r & 0xFF);
        if (sp == 5 && c->specials == 1) b = 0xFFC00001u;
        memcpy((float *)keys + i, &b, 4);
        break;
      }
      case K_F64: {
        uint64_t b;
        memcpy(&b, &v, 8);
        if (sp == 4 && c->specials == 1) b = 0x7FF8000000000000ull | (r & 0xFF);
        if (sp == 5 && c->specials == 1) b = 0xFFF8000000000001ull;
        memcpy((double *)keys + i, &b, 8);
        break;
      }
      case K_I32: ((int32_t *)keys)[i] = c->distinct ? (int32_t)small : (int32_t)(uint32_t)r; break;
      case K_I64: ((int64_t *)keys)[i] = c->distinct ? small : (int64_t)r; break;
      case K_U8: ((uint8_t *)keys)[i] = (uint8_t)(c->distinct ? (uint64_t)small + 128 : r); break;
    }
  }
}

/* The total order on float bits: negatives (all bits flipped) below positives. */
static uint64_t total_key(uint64_t b, int bits) {
  uint64_t sign = 1ull << (bits - 1);
  return b & sign ? ~b & (sign | (sign - 1)) : b | sign;
}

static uint64_t float_bits(const sort_case *c, const void *keys, int64_t e) {
  if (c->kt == K_F32) {
    uint32_t b;
    memcpy(&b, (const uint32_t *)keys + e, 4);
    return b;
  }
  uint64_t b;
  memcpy(&b, (const uint64_t *)keys + e, 8);
  return b;
}

static double float_value(const sort_case *c, const void *keys, int64_t e) {
  return c->kt == K_F32 ? (double)((const float *)keys)[e] : ((const double *)keys)[e];
}

/* The comparator: element e goes before element f. */
static bool before(const sort_case *c, const void *keys, int64_t e, int64_t f) {
  int bits = c->kt == K_F32 ? 32 : 64;
  switch (c->ck) {
    case C_JAX: {
      uint64_t a = float_bits(c, keys, e), b = float_bits(c, keys, f);
      double x = float_value(c, keys, e), y = float_value(c, keys, f);
      uint64_t qnan = c->kt == K_F32 ? 0x7FC00000u : 0x7FF8000000000000ull;
      a = x != x ? qnan : x == 0 ? 0 : a;
      b = y != y ? qnan : y == 0 ? 0 : b;
      return total_key(a, bits) < total_key(b, bits);
    }
    case C_FLOAT:
    case C_NEG: return float_value(c, keys, e) < float_value(c, keys, f);
    case C_TOTAL: return total_key(float_bits(c, keys, e), bits) < total_key(float_bits(c, keys, f), bits);
    case C_GT:
    case C_LT:
    case C_ULT: {
      int64_t x, y;
      switch (c->kt) {
        case K_I32: x = ((const int32_t *)keys)[e], y = ((const int32_t *)keys)[f]; break;
        case K_I64: x = ((const int64_t *)keys)[e], y = ((const int64_t *)keys)[f]; break;
        default: x = ((const uint8_t *)keys)[e], y = ((const uint8_t *)keys)[f]; break;
      }
      return c->ck == C_GT ? x > y : x < y;
    }
  }
  return false;
}

/* Stable merge sort of positions p[0..n) (element numbers) by `before`. */
static void merge_sort(const sort_case *c, const void *keys, int64_t *p, int64_t *tmp, int64_t n) {
  if (n < 2) return;
  int64_t h = n / 2, i = 0, j = h, k = 0;
  merge_sort(c, keys, p, tmp, h);
  merge_sort(c, keys, p + h, tmp, n - h);
  while (i < h && j < n) tmp[k++] = before(c, keys, p[j], p[i]) ? p[j++] : p[i++];
  while (i < h) tmp[k++] = p[i++];
  while (j < n) tmp[k++] = p[j++];
  memcpy(p, tmp, (size_t)n * sizeof *p);
}

static void run_case(const sort_case *c, uint64_t seed) {
  int64_t n = c->rank == 1 ? c->dims[0] : c->dims[0] * c->dims[1];
  int64_t len = c->dims[c->dim], st = c->rank == 2 && c->dim == 0 ? c->dims[1] : 1, ns = n / len;
  size_t ks = key_size(c->kt);
  uint8_t *keys = malloc((size_t)n * ks), *got = malloc((size_t)n * ks + 1), *want = malloc((size_t)n * ks + 1);
  int32_t *vals = malloc((size_t)n * 4 + 4), *got_v = malloc((size_t)n * 4 + 4), *want_v = malloc((size_t)n * 4 + 4);
  int64_t *p = malloc((size_t)len * 2 * sizeof *p);
  assert_true(keys && got && want && vals && got_v && want_v && p);
  fill_keys(c, keys, n, seed);
  for (int64_t i = 0; i < n; i++) vals[i] = (int32_t)i;
  for (int64_t q = 0; q < ns; q++) {
    int64_t base = q / st * len * st + q % st;
    for (int64_t i = 0; i < len; i++) p[i] = base + i * st;
    merge_sort(c, keys, p, p + len, len);
    for (int64_t i = 0; i < len; i++) {
      memcpy(want + (size_t)(base + i * st) * ks, keys + (size_t)p[i] * ks, ks);
      want_v[base + i * st] = vals[p[i]];
    }
  }
  char *text = module_text(c);
  shloc_context *ctx = shloc_context_create();
  shloc_module *m = NULL;
  shloc_executable *x = NULL;
  OK(shloc_module_parse(ctx, "sort.mlir", text, strlen(text), 1, &m));
  OK(shloc_module_verify(m));
  OK(shloc_executable_create(m, "main", NULL, &x));
  shloc_tensor args[2] = {{ffi_type(c->kt), c->rank, c->dims, keys, (size_t)n * ks},
                          {XLA_FFI_DataType_S32, c->rank, c->dims, vals, (size_t)n * 4}};
  shloc_tensor res[2] = {{ffi_type(c->kt), c->rank, c->dims, got, (size_t)n * ks},
                         {XLA_FFI_DataType_S32, c->rank, c->dims, got_v, (size_t)n * 4}};
  for (int run = 0; run < 2; run++) { /* the second with the kept scratch */
    memset(got, 0xA5, (size_t)n * ks);
    memset(got_v, 0xA5, (size_t)n * 4);
    OK(shloc_executable_run_into(x, args, c->payload ? 2 : 1, res, c->payload ? 2 : 1));
    if (memcmp(got, want, (size_t)n * ks) || (c->payload && memcmp(got_v, want_v, (size_t)n * 4))) {
      int64_t i = 0;
      while (i < n && !memcmp(got + i * ks, want + i * ks, ks) && (!c->payload || got_v[i] == want_v[i])) i++;
      fail_msg("%s sort of %lld keys differs at %lld (threads %d)", mlir_type(c->kt), (long long)n, (long long)i,
               omp_get_max_threads());
    }
  }
  shloc_executable_destroy(x);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
  free(text);
  free(keys);
  free(got);
  free(want);
  free(vals);
  free(got_v);
  free(want_v);
  free(p);
}

static void run_cases(const sort_case *cases, size_t n) {
  static const int threads[] = {4, 1};
  int was = omp_get_max_threads();
  for (int t = 0; t < 2; t++) {
    omp_set_num_threads(threads[t]);
    for (size_t i = 0; i < n; i++) run_case(&cases[i], i + 1);
  }
  omp_set_num_threads(was);
}

/* Long slices, sorted by all threads together. */
static void test_shared_slices(void **state) {
  (void)state;
  static const sort_case cases[] = {
      /* JAX's comparator, keys alone; with NaN and -0 (which do not map back) */
      {K_F32, C_JAX, 1, {300001}, 0, false, 0, 0},
      {K_F32, C_JAX, 1, {300001}, 0, false, 1, 0},
      /* buckets too large for every thread's scratch to fit in one of n items */
      {K_F32, C_JAX, 1, {300001}, 0, false, 3, 0},
      {K_F64, C_TOTAL, 1, {200001}, 0, true, 3, 0},
      /* strided slices (sorting the outer dimension), few distinct keys */
      {K_F32, C_JAX, 2, {131075, 3}, 0, false, 0, 0},
      {K_F32, C_JAX, 2, {131075, 3}, 0, true, 1, 5},
      /* descending, many ties, with and without a payload */
      {K_I32, C_GT, 1, {200003}, 0, false, 0, 100},
      {K_I32, C_GT, 1, {200003}, 0, true, 0, 0},
      {K_U8, C_ULT, 1, {250000}, 0, true, 0, 0},
      {K_F64, C_JAX, 1, {200001}, 0, false, 0, 0},
      {K_F64, C_JAX, 1, {200001}, 0, true, 1, 0},
      {K_I64, C_LT, 1, {150001}, 0, false, 0, 1000},
      /* all keys equal */
      {K_F32, C_TOTAL, 1, {150000}, 0, true, 0, 1},
      /* FLOAT: -0 equals +0 */
      {K_F32, C_FLOAT, 1, {140001}, 0, true, 2, 9},
  };
  run_cases(cases, sizeof cases / sizeof *cases);
}

/* One slice per thread, and insertion-sized ones. */
static void test_many_slices(void **state) {
  (void)state;
  static const sort_case cases[] = {
      {K_F32, C_JAX, 1, {1}, 0, false, 1, 0},
      {K_F32, C_JAX, 1, {2}, 0, true, 1, 0},
      {K_F32, C_JAX, 1, {47}, 0, false, 1, 0},
      {K_F32, C_JAX, 1, {48}, 0, true, 1, 0},
      {K_F32, C_JAX, 1, {49}, 0, false, 1, 3},
      {K_F32, C_JAX, 1, {4097}, 0, false, 0, 0},
      {K_F32, C_TOTAL, 2, {1000, 37}, 0, false, 1, 0},
      {K_F32, C_TOTAL, 2, {37, 1000}, 1, true, 1, 0},
      {K_F32, C_FLOAT, 2, {9, 20011}, 1, true, 2, 40},
      {K_I32, C_GT, 2, {4097, 3}, 0, true, 0, 0},
      {K_U8, C_ULT, 2, {5, 9999}, 1, false, 0, 0},
      {K_F64, C_JAX, 2, {501, 7}, 0, true, 1, 0},
      {K_I64, C_GT, 2, {7, 3001}, 1, false, 0, 0},
  };
  run_cases(cases, sizeof cases / sizeof *cases);
}

/* A comparator that is not recognised (no NaNs among the keys: with them
 * it is no strict weak order and the merge order would matter): long slices
 * whose merges the threads share, strided ones, several slices, ties of
 * +0 and -0 that only stability orders, and lengths around the threshold. */
static void test_general_comparator(void **state) {
  (void)state;
  static const sort_case cases[] = {
      {K_F32, C_NEG, 1, {40003}, 0, true, 2, 0},
      {K_F32, C_NEG, 1, {40003}, 0, false, 2, 7},
      {K_F64, C_NEG, 2, {20011, 3}, 0, true, 2, 9},
      {K_F32, C_NEG, 2, {3, 5000}, 1, true, 0, 0},
      {K_F32, C_NEG, 1, {4096}, 0, true, 2, 5},
      {K_F32, C_NEG, 1, {4095}, 0, true, 2, 5},
  };
  run_cases(cases, sizeof cases / sizeof *cases);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_shared_slices),
      cmocka_unit_test(test_many_slices),
      cmocka_unit_test(test_general_comparator),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
