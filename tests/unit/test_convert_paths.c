/* stablehlo.convert's bulk loops (one dtype dispatch per call: via f32 for
 * narrow floats, typed float -> integer saturation) against the per-element
 * definitions: scalar.h's fp_to_f64 / fp_from_f64 for float -> float (one
 * rounding from the exact value), and XLA's float -> integer rule written out
 * here (truncate, NaN -> 0, saturate; -> bool is != 0).  Inputs cover every
 * class of value: every bit pattern of the 8- and 16-bit formats, and for
 * f32/f64 zeros, subnormals, normals, ties, infinities, NaNs with payloads,
 * integer-range edges and pseudo-random patterns. */
#include <math.h>
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
#include "support/scalar.h"

static const char *const floats[] = {"f64", "f32", "bf16", "f16", "f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ", "f8E4M3B11FNUZ"};
static const char *const ints[] = {"i1", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64"};

static shl_dtype dt(const char *name) { return dtype_from_name(name, strlen(name)); }

/* Inputs of dtype t (storage bytes, little-endian): *n elements. */
static uint8_t *inputs(shl_dtype t, size_t *n) {
  size_t w = dtype_bytes(t);
  if (w <= 2) {
    *n = (size_t)1 << (8 * w);
    uint8_t *v = malloc(*n * w);
    for (size_t i = 0; i < *n; i++) memcpy(v + i * w, &i, w); /* every pattern */
    return v;
  }
  static const double edges[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 127.5, 128.0, 255.5, 256.0, -129.0,
                                 32767.5, 65535.9, 2147483647.0, 2147483648.0, -2147483648.0, -2147483649.0,
                                 4294967295.5, 4294967296.0, 9223372036854775807.0, -9223372036854775808.0,
                                 18446744073709551616.0, 1e30, -1e30, 65504.0, 65520.0, 3.4e38, 1e-40, -1e-45,
                                 6e-8, 3e-5, 448.0, 464.0, 57344.0, 61440.0};
  size_t ne = sizeof edges / sizeof *edges, nr = 20000;
  *n = ne + 6 + nr;
  uint8_t *v = malloc(*n * w);
  size_t k = 0;
  uint64_t seed = 88172645463325252ull;
  for (; k < ne; k++) {
    uint64_t s = fp_from_f64(t, edges[k]);
    memcpy(v + k * w, &s, w);
  }
  uint64_t spec4[6] = {0x7F800000u, 0xFF800000u, 0x7FC00000u, 0x7F800001u, 0xFFBFFFFFu, 0x00000001u};
  uint64_t spec8[6] = {0x7FF0000000000000ull, 0xFFF0000000000000ull, 0x7FF8000000000000ull, 0x7FF0000000000001ull,
                       0xFFF7FFFFFFFFFFFFull, 1};
  for (int i = 0; i < 6; i++, k++) memcpy(v + k * w, w == 4 ? &spec4[i] : &spec8[i], w);
  for (; k < *n; k++) { /* xorshift64: every exponent and payload */
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    memcpy(v + k * w, &seed, w);
  }
  return v;
}

static void hex(char *out, const uint8_t *b, size_t nb) {
  static const char digits[] = "0123456789ABCDEF";
  for (size_t i = 0; i < nb; i++) out[2 * i] = digits[b[i] >> 4], out[2 * i + 1] = digits[b[i] & 15];
  out[2 * nb] = 0;
}

/* Runs convert(src of type from) -> `to`; returns the result storage. */
static uint8_t *convert(const char *from, const char *to, const uint8_t *src, size_t n) {
  size_t wi = dtype_bytes(dt(from)), wo = dtype_bytes(dt(to));
  size_t cap = 2 * n * wi + 512;
  char *text = malloc(cap), *h = malloc(2 * n * wi + 1);
  hex(h, src, n * wi);
  snprintf(text, cap,
           "func.func @main() -> tensor<%zux%s> {\n"
           "  %%c = stablehlo.constant dense<\"0x%s\"> : tensor<%zux%s>\n"
           "  %%0 = stablehlo.convert %%c : (tensor<%zux%s>) -> tensor<%zux%s>\n"
           "  return %%0 : tensor<%zux%s>\n}\n",
           n, to, h, n, from, n, from, n, to, n, to);
  shloc_context *ctx = shloc_context_create();
  shloc_module *m;
  shloc_executable *x;
  OK(shloc_module_parse(ctx, "c.mlir", text, strlen(text), 1, &m));
  OK(shloc_executable_create(m, "main", NULL, &x));
  uint8_t *out = malloc(n * wo + 1);
  shloc_tensor res[1] = {{.data = out, .nbytes = n * wo}};
  OK(shloc_executable_run_into(x, NULL, 0, res, 1));
  shloc_executable_destroy(x);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
  free(text);
  free(h);
  return out;
}

static uint64_t load(const uint8_t *p, size_t w) {
  uint64_t u = 0;
  memcpy(&u, p, w);
  return u;
}

static void test_float_to_float(void **s) {
  (void)s;
  for (size_t a = 0; a < sizeof floats / sizeof *floats; a++)
    for (size_t b = 0; b < sizeof floats / sizeof *floats; b++) {
      if (a == b) continue;
      shl_dtype ti = dt(floats[a]), to = dt(floats[b]);
      size_t n, wi = dtype_bytes(ti), wo = dtype_bytes(to);
      uint8_t *in = inputs(ti, &n), *out = convert(floats[a], floats[b], in, n);
      for (size_t i = 0; i < n; i++) {
        uint64_t want = fp_from_f64(to, fp_to_f64(ti, load(in + i * wi, wi))), got = load(out + i * wo, wo);
        if (want != got)
          fail_msg("%s -> %s: input 0x%llx gives 0x%llx, want 0x%llx", floats[a], floats[b],
                   (unsigned long long)load(in + i * wi, wi), (unsigned long long)got, (unsigned long long)want);
      }
      free(in);
      free(out);
    }
}

/* XLA's float -> integer conversion of an exact value d. */
static uint64_t want_int(double d, shl_dtype t) {
  unsigned bits = dtype_bits(t);
  uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
  if (t == DT_I1) return d != 0;
  if (isnan(d)) return 0;
  d = trunc(d);
  if (dtype_is_signed(t)) {
    double lim = ldexp(1.0, (int)bits - 1);
    if (d >= lim) return (uint64_t)((1ull << (bits - 1)) - 1) & mask;
    if (d <= -lim) return (1ull << (bits - 1)) & mask;
    return (uint64_t)(int64_t)d & mask;
  }
  if (d <= 0) return 0;
  if (d >= ldexp(1.0, (int)bits)) return mask;
  return (uint64_t)d;
}

static void test_float_to_int(void **s) {
  (void)s;
  for (size_t a = 0; a < sizeof floats / sizeof *floats; a++)
    for (size_t b = 0; b < sizeof ints / sizeof *ints; b++) {
      shl_dtype ti = dt(floats[a]), to = dt(ints[b]);
      size_t n, wi = dtype_bytes(ti), wo = dtype_bytes(to);
      uint8_t *in = inputs(ti, &n), *out = convert(floats[a], ints[b], in, n);
      for (size_t i = 0; i < n; i++) {
        double d = fp_to_f64(ti, load(in + i * wi, wi));
        uint64_t want = want_int(d, to), got = load(out + i * wo, wo);
        if (want != got)
          fail_msg("%s -> %s: %.17g gives 0x%llx, want 0x%llx", floats[a], ints[b], d, (unsigned long long)got,
                   (unsigned long long)want);
      }
      free(in);
      free(out);
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_float_to_float), cmocka_unit_test(test_float_to_int)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
