/* Element semantics (scalar.h) and float literals (floatfmt.h).  Expected
 * printed forms were observed with mlir-opt-22 --allow-unregistered-dialect;
 * expected conversions follow LLVM APFloat (checked against arith.extf and
 * literal parsing in mlir-opt-22). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "support/floatfmt.h"
#include "support/scalar.h"

static uint64_t from_f64(shl_dtype t, double v) { return fp_from_f64(t, v); }

/* ---- conversions ---------------------------------------------------------- */

static void test_f16_edges(void **state) {
  (void)state;
  assert_int_equal(from_f64(DT_F16, 65504.0), 0x7BFF);
  assert_int_equal(from_f64(DT_F16, 65519.99), 0x7BFF);
  assert_int_equal(from_f64(DT_F16, 65520.0), 0x7C00); /* tie at the top rounds to inf */
  assert_int_equal(from_f64(DT_F16, -1e10), 0xFC00);
  assert_int_equal(from_f64(DT_F16, ldexp(1, -24)), 0x0001);           /* smallest subnormal */
  assert_int_equal(from_f64(DT_F16, ldexp(1, -25)), 0x0000);           /* tie to even: zero */
  assert_int_equal(from_f64(DT_F16, ldexp(1, -25) * 1.0000001), 0x0001);
  assert_int_equal(from_f64(DT_F16, ldexp(3, -25)), 0x0002);           /* tie to even: 2 */
  assert_int_equal(from_f64(DT_F16, -0.0), 0x8000);
  assert_int_equal(from_f64(DT_F16, 1.0 + ldexp(1, -11)), 0x3C00);     /* ties to even */
  assert_int_equal(from_f64(DT_F16, 1.0 + ldexp(3, -11)), 0x3C02);
  /* Rounded once from double: via f32 this would be a tie and give 0x3C00. */
  assert_int_equal(from_f64(DT_F16, 1.0 + ldexp(1, -11) + ldexp(1, -40)), 0x3C01);
  assert_int_equal(from_f64(DT_F16, NAN) & 0x7FFF, 0x7E00);
  assert_int_equal(from_f64(DT_F16, fp_bits_f64(0x7FF0000000000001ull)), 0x7E00); /* sNaN is quieted */
  assert_int_equal(from_f64(DT_F16, fp_bits_f64(0xFFF4000000000000ull)), 0xFF00); /* payload kept, quiet */
  assert_true(fp_to_f64(DT_F16, 0x7BFF) == 65504.0);
  assert_true(fp_to_f64(DT_F16, 0x0001) == ldexp(1, -24));
  assert_true(fp_to_f64(DT_F16, 0x83FF) == -ldexp(1023, -24));
  assert_int_equal(fp_f64_bits(fp_to_f64(DT_F16, 0x7C01)), 0x7FF8040000000000ull);
  assert_true(isinf(fp_to_f64(DT_F16, 0xFC00)) && fp_to_f64(DT_F16, 0xFC00) < 0);
}

static void test_bf16_tf32(void **state) {
  (void)state;
  assert_int_equal(from_f64(DT_BF16, 1.0 + ldexp(1, -8)), 0x3F80);
  assert_int_equal(from_f64(DT_BF16, 1.0 + ldexp(3, -8)), 0x3F82);
  assert_int_equal(from_f64(DT_BF16, 3.4e38), 0x7F80); /* above bf16 max + half ulp */
  assert_int_equal(from_f64(DT_BF16, ldexp(1, -133)), 0x0001);
  assert_int_equal(f32_to_bf16(fp_bits_f32(0x7F800001u)), 0x7FC0);
  assert_int_equal(fp_f32_bits(bf16_to_f32(0x7F81)), 0x7FC10000u); /* quieted on widening */
  assert_int_equal(from_f64(DT_TF32, 1.0 + ldexp(1, -11)), 0x3F800000u);
  assert_int_equal(from_f64(DT_TF32, 1.0 + ldexp(3, -11)), 0x3F804000u);
  assert_int_equal(from_f64(DT_TF32, 1.0 + ldexp(1, -10)), 0x3F802000u);
  assert_int_equal(f32_to_tf32(fp_bits_f32(0x7F7FFFFFu)), 0x7F800000u);
  assert_int_equal(fp_pattern_of(DT_TF32, 0x7FC00000u), 0x3FE00);
  uint64_t st = 0;
  assert_true(fp_storage_from_pattern(DT_TF32, 0x3FE00, &st));
  assert_int_equal(st, 0x7FC00000u);
  assert_false(fp_storage_from_pattern(DT_TF32, 0x7FC00000u, &st));
  assert_false(fp_storage_from_pattern(DT_F8E4M3FN, 0x100, &st));
}

static void test_f8_ieee(void **state) {
  (void)state;
  assert_int_equal(from_f64(DT_F8E5M2, 57344.0), 0x7B);
  assert_int_equal(from_f64(DT_F8E5M2, 61440.0), 0x7C); /* tie above max: inf */
  assert_int_equal(from_f64(DT_F8E5M2, -INFINITY), 0xFC);
  assert_int_equal(from_f64(DT_F8E5M2, NAN), 0x7E);
  assert_int_equal(from_f64(DT_F8E4M3, 240.0), 0x77);
  assert_int_equal(from_f64(DT_F8E4M3, INFINITY), 0x78);
  assert_int_equal(from_f64(DT_F8E3M4, 15.5), 0x6F);
  assert_int_equal(from_f64(DT_F8E3M4, 16.0), 0x70);
  assert_int_equal(from_f64(DT_F8E3M4, ldexp(1, -6)), 0x01);
  assert_true(fp_to_f64(DT_F8E3M4, 0x6F) == 15.5);
}

static void test_f8_nan_only(void **state) {
  (void)state;
  /* f8E4M3FN: NaN is all ones, no inf; overflow gives NaN. */
  assert_int_equal(from_f64(DT_F8E4M3FN, 448.0), 0x7E);
  assert_int_equal(from_f64(DT_F8E4M3FN, 464.0), 0x7E); /* tie goes to the even 448 */
  assert_int_equal(from_f64(DT_F8E4M3FN, 465.0), 0x7F);
  assert_int_equal(from_f64(DT_F8E4M3FN, INFINITY), 0x7F);
  assert_int_equal(from_f64(DT_F8E4M3FN, -INFINITY), 0xFF);
  assert_int_equal(from_f64(DT_F8E4M3FN, ldexp(1, -9)), 0x01);
  assert_int_equal(from_f64(DT_F8E4M3FN, -0.0), 0x80);
  assert_int_equal(fp_f64_bits(fp_to_f64(DT_F8E4M3FN, 0x7F)), 0x7FFE000000000000ull); /* as arith.extf */
  assert_true(fp_is_nan(DT_F8E4M3FN, 0xFF) && !fp_is_inf(DT_F8E4M3FN, 0x78));
  /* FNUZ: -0 is the NaN, so negative zero and negative underflow become +0. */
  assert_int_equal(from_f64(DT_F8E4M3FNUZ, -0.0), 0x00);
  assert_int_equal(from_f64(DT_F8E4M3FNUZ, -1e-10), 0x00);
  assert_int_equal(from_f64(DT_F8E4M3FNUZ, NAN), 0x80);
  assert_int_equal(from_f64(DT_F8E4M3FNUZ, -INFINITY), 0x80);
  assert_int_equal(from_f64(DT_F8E4M3FNUZ, 240.0), 0x7F);
  assert_int_equal(from_f64(DT_F8E4M3FNUZ, 248.0), 0x80); /* tie above max rounds up: NaN */
  assert_int_equal(from_f64(DT_F8E5M2FNUZ, 57344.0), 0x7F);
  assert_int_equal(from_f64(DT_F8E4M3B11FNUZ, 30.0), 0x7F);
  assert_int_equal(from_f64(DT_F8E4M3B11FNUZ, -30.0), 0xFF);
  assert_true(fp_is_nan(DT_F8E5M2FNUZ, 0x80));
  assert_true(fp_to_f64(DT_F8E4M3FNUZ, 0x08) == ldexp(1, -7));
  assert_true(fp_to_f64(DT_F8E4M3B11FNUZ, 0x01) == ldexp(1, -13));
}

static void test_f8e8m0(void **state) {
  (void)state;
  assert_int_equal(from_f64(DT_F8E8M0FNU, 1.0), 0x7F);
  assert_int_equal(from_f64(DT_F8E8M0FNU, 3.0), 0x81); /* 1.5*2^1 rounds up to 4 */
  assert_int_equal(from_f64(DT_F8E8M0FNU, 2.9), 0x80);
  assert_int_equal(from_f64(DT_F8E8M0FNU, 0.0), 0x00); /* no zero: the smallest value */
  assert_int_equal(from_f64(DT_F8E8M0FNU, 1e-50), 0x00);
  assert_int_equal(from_f64(DT_F8E8M0FNU, ldexp(1, 127)), 0xFE);
  assert_int_equal(from_f64(DT_F8E8M0FNU, ldexp(1, 128)), 0xFF);
  assert_int_equal(from_f64(DT_F8E8M0FNU, -2.0), 0xFF);
  assert_int_equal(from_f64(DT_F8E8M0FNU, INFINITY), 0xFF);
  assert_true(fp_to_f64(DT_F8E8M0FNU, 0x00) == ldexp(1, -127));
  assert_true(isnan(fp_to_f64(DT_F8E8M0FNU, 0xFF)));
}

static void test_finite_only(void **state) {
  (void)state;
  assert_int_equal(from_f64(DT_F4E2M1FN, 6.0), 0x7);
  assert_int_equal(from_f64(DT_F4E2M1FN, 100.0), 0x7); /* saturates */
  assert_int_equal(from_f64(DT_F4E2M1FN, -100.0), 0xF);
  assert_int_equal(from_f64(DT_F4E2M1FN, INFINITY), 0x7);
  assert_int_equal(from_f64(DT_F4E2M1FN, NAN), 0x8);
  assert_int_equal(from_f64(DT_F4E2M1FN, 0.25), 0x0); /* ties to even */
  assert_int_equal(from_f64(DT_F4E2M1FN, 0.75), 0x2);
  assert_int_equal(from_f64(DT_F4E2M1FN, 5.0), 0x6);
  assert_int_equal(from_f64(DT_F4E2M1FN, -0.0), 0x8);
  assert_int_equal(from_f64(DT_F6E2M3FN, 7.5), 0x1F);
  assert_int_equal(from_f64(DT_F6E2M3FN, 0.125), 0x01);
  assert_int_equal(from_f64(DT_F6E3M2FN, 28.0), 0x1F);
  assert_int_equal(from_f64(DT_F6E3M2FN, -1e9), 0x3F);
  assert_true(fp_to_f64(DT_F6E3M2FN, 0x01) == 0.0625);
  assert_true(fp_to_f64(DT_F4E2M1FN, 0xF) == -6.0);
  for (unsigned p = 0; p < 16; p++) assert_true(fp_is_finite(DT_F4E2M1FN, p));
}

/* Every pattern of every small format survives decode + encode unchanged
 * (NaNs: to the format's NaN). */
static void test_roundtrip_all_patterns(void **state) {
  (void)state;
  static const shl_dtype types[] = {DT_F4E2M1FN, DT_F6E2M3FN, DT_F6E3M2FN, DT_F8E3M4, DT_F8E4M3, DT_F8E4M3FN,
                                    DT_F8E4M3FNUZ, DT_F8E4M3B11FNUZ, DT_F8E5M2, DT_F8E5M2FNUZ, DT_F8E8M0FNU,
                                    DT_BF16, DT_F16};
  for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
    shl_dtype t = types[k];
    unsigned bits = fp_layout_bits(fp_layout_of(t));
    for (uint64_t p = 0; p < (1ull << bits); p++) {
      uint64_t back = fp_from_f64(t, fp_to_f64(t, p));
      if (fp_is_nan(t, p)) {
        assert_true(fp_is_nan(t, back));
      } else {
        assert_int_equal(back, p);
        assert_int_equal(fp_from_f32(t, fp_to_f32(t, p)), p);
      }
    }
  }
}

static void test_f32_paths_match_generic(void **state) {
  (void)state;
  uint32_t x = 12345;
  for (int i = 0; i < 2000000; i++) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    float f = fp_bits_f32(x);
    assert_int_equal(f32_to_f16(f), fp_from_f64(DT_F16, f));
    assert_int_equal(f32_to_bf16(f), fp_from_f64(DT_BF16, f));
    assert_int_equal(f32_to_tf32(f), fp_from_f64(DT_TF32, f));
    assert_int_equal(fp_from_f32(DT_F8E4M3FN, f), fp_from_f64(DT_F8E4M3FN, f));
  }
  for (uint32_t h = 0; h < 65536; h++) {
    assert_int_equal(fp_f32_bits(f16_to_f32((uint16_t)h)), fp_f32_bits((float)fp_to_f64(DT_F16, h)));
    assert_int_equal(fp_f32_bits(bf16_to_f32((uint16_t)h)), fp_f32_bits((float)fp_to_f64(DT_BF16, h)));
  }
}

static void test_bulk(void **state) {
  (void)state;
  static uint16_t h[65536], h2[65536];
  static float f[65536];
  for (uint32_t i = 0; i < 65536; i++) h[i] = (uint16_t)i;
  fp_to_f32_n(DT_F16, h, f, 65536);
  for (uint32_t i = 0; i < 65536; i++) assert_int_equal(fp_f32_bits(f[i]), fp_f32_bits(f16_to_f32(h[i])));
  fp_from_f32_n(DT_F16, f, h2, 65536);
  for (uint32_t i = 0; i < 65536; i++) assert_int_equal(h2[i], fp_is_nan(DT_F16, i) ? (i | 0x200) : i);
  uint8_t b[256], b2[256];
  for (int i = 0; i < 256; i++) b[i] = (uint8_t)i;
  fp_to_f32_n(DT_F8E5M2, b, f, 256);
  fp_from_f32_n(DT_F8E5M2, f, b2, 256);
  for (int i = 0; i < 256; i++) assert_int_equal(b2[i], fp_is_nan(DT_F8E5M2, (uint64_t)i) ? (i | 2) : i);
  float in[3] = {1.0f, 1.0f + 0x1p-11f, 3.0f}, out32[3];
  uint32_t t32[3];
  fp_from_f32_n(DT_TF32, in, t32, 3);
  assert_int_equal(t32[1], 0x3F800000u);
  fp_to_f32_n(DT_TF32, t32, out32, 3);
  assert_true(out32[2] == 3.0f);
}

/* ---- ULP distance (check-targets.md §4) ----------------------------------- */

static void test_ulp(void **state) {
  (void)state;
  assert_int_equal(fp_ulp_distance(DT_F32, 0x3F800000u, 0x3F800001u), 1);
  assert_int_equal(fp_ulp_distance(DT_F32, 0x3F800001u, 0x3F800000u), 1);
  assert_int_equal(fp_ulp_distance(DT_F32, 0x00000000u, 0x80000000u), 0); /* +0 vs -0 */
  assert_int_equal(fp_ulp_distance(DT_F32, 0x00000001u, 0x80000001u), 2);
  assert_int_equal(fp_ulp_distance(DT_F32, 0xBF800000u, 0x3F800000u), 2 * 0x3F800000ull);
  assert_int_equal(fp_ulp_distance(DT_F32, 0x7FC00000u, 0xFFC00001u), 0); /* two NaNs */
  assert_true(fp_ulp_distance(DT_F32, 0x7FC00000u, 0x3F800000u) == UINT64_MAX);
  assert_int_equal(fp_ulp_distance(DT_F32, 0x7F800000u, 0x7F800000u), 0);
  assert_true(fp_ulp_distance(DT_F32, 0x7F800000u, 0xFF800000u) == UINT64_MAX);
  assert_true(fp_ulp_distance(DT_F32, 0x7F800000u, 0x7F7FFFFFu) == UINT64_MAX);
  assert_int_equal(fp_ulp_distance(DT_F64, 0x3FF0000000000000ull, 0x3FF0000000000003ull), 3);
  assert_int_equal(fp_ulp_distance(DT_BF16, 0x3F80, 0x3F82), 2);
  assert_int_equal(fp_ulp_distance(DT_F16, 0x8001, 0x0001), 2);
  assert_int_equal(fp_ulp_distance(DT_TF32, 0x3F800000u, 0x3F802000u), 1); /* in tf32 units */
  assert_int_equal(fp_ulp_distance(DT_F8E8M0FNU, 0x7F, 0x81), 2);
  assert_int_equal(fp_ulp_distance(DT_F8E4M3FNUZ, 0x01, 0x81), 2);
  assert_int_equal(fp_ulp_distance(DT_F8E4M3FNUZ, 0x80, 0x80), 0);
  assert_true(fp_ulp_distance(DT_F8E4M3FNUZ, 0x80, 0x00) == UINT64_MAX);
  assert_int_equal(fp_ulp_distance(DT_F4E2M1FN, 0x7, 0xF), 14);
  assert_true(fp_ulp_distance(DT_F8E4M3FN, 0x7F, 0x7E) == UINT64_MAX);
}

/* ---- integers ------------------------------------------------------------- */

static void test_int_helpers(void **state) {
  (void)state;
  assert_int_equal(int_wrap(DT_I4, 8), -8);
  assert_int_equal(int_wrap(DT_I4, 15), -1);
  assert_int_equal(int_wrap(DT_I4, 7), 7);
  assert_int_equal(int_wrap(DT_UI4, -1), 15);
  assert_int_equal(int_wrap(DT_I2, 2), -2);
  assert_int_equal(int_wrap(DT_UI2, 5), 1);
  assert_int_equal(int_wrap(DT_I1, 3), 1);
  assert_int_equal(int_wrap(DT_I8, 200), -56);
  assert_int_equal(int_wrap(DT_UI8, -1), 255);
  assert_int_equal(int_wrap(DT_I16, 0x18000), -32768);
  assert_int_equal(int_wrap(DT_UI32, -1), 0xFFFFFFFFll);
  assert_int_equal(int_wrap(DT_I64, INT64_MIN), INT64_MIN);
  assert_int_equal(int_wrap(DT_UI64, -1), -1);
  assert_int_equal(int_min(DT_I4), -8);
  assert_int_equal(int_max(DT_I4), 7);
  assert_int_equal(int_min(DT_UI4), 0);
  assert_int_equal(int_max(DT_UI4), 15);
  assert_int_equal(int_max(DT_I1), 1);
  assert_true(int_min(DT_I64) == INT64_MIN);
  assert_true(int_max(DT_UI64) == UINT64_MAX);
  uint8_t b = 0xF7;
  assert_int_equal(int_load(DT_I4, &b), 7); /* stray upper bits ignored */
  b = 0x0F;
  assert_int_equal(int_load(DT_I4, &b), -1);
  int_store(DT_I4, &b, -1);
  assert_int_equal(b, 0xFF); /* stored as the int8 value */
  int_store(DT_UI4, &b, 17);
  assert_int_equal(b, 1);
  uint16_t h = 0x8000;
  assert_int_equal(int_load(DT_I16, &h), -32768);
  assert_int_equal(int_load(DT_UI16, &h), 32768);
}

/* stablehlo.convert across classes, as the reference interpreter does it. */
static void test_convert_across_classes(void **state) {
  (void)state;
  /* int -> float rounds once: through double this would be a tie and give 0x5D80. */
  assert_int_equal(fp_from_i64(DT_BF16, (1ll << 60) + (1ll << 52) + 1), 0x5D81);
  assert_int_equal(fp_from_i64(DT_BF16, -3), 0xC040);
  assert_int_equal(fp_from_u64(DT_F16, UINT64_MAX), 0x7C00);
  assert_int_equal(fp_from_u64(DT_BF16, UINT64_MAX), 0x5F80); /* 2^64, sticky bit kept */
  assert_int_equal(fp_from_u64(DT_F32, UINT64_MAX), 0x5F800000u);
  assert_int_equal(fp_from_i64(DT_F64, INT64_MIN), 0xC3E0000000000000ull);
  assert_int_equal(fp_from_i64(DT_F8E4M3FN, 1000), 0x7F);
  assert_int_equal(fp_from_i64(DT_F4E2M1FN, -1000), 0xF);
  assert_int_equal(fp_from_u64(DT_F8E5M2FNUZ, 0), 0x00);
  assert_int_equal(fp_from_i64(DT_F8E8M0FNU, 0), 0x00);
  assert_int_equal(fp_from_i64(DT_F8E8M0FNU, 3), 0x81);
  assert_int_equal(fp_from_i64(DT_TF32, 2049), 0x45000000u); /* tie to even */
  assert_int_equal(fp_from_i64(DT_F16, 2051), 0x6802);      /* tie to even, upwards */
  for (int64_t v = -70000; v <= 70000; v += 7)
    assert_int_equal(fp_from_i64(DT_F16, v), fp_from_f64(DT_F16, (double)v));

  assert_int_equal(fp_to_int(DT_I8, 300.7), 127);
  assert_int_equal(fp_to_int(DT_I8, -300.0), -128);
  assert_int_equal(fp_to_int(DT_I8, -127.9), -127);
  assert_int_equal(fp_to_int(DT_UI8, -5.0), 0);
  assert_int_equal(fp_to_int(DT_UI8, 255.9), 255);
  assert_int_equal(fp_to_int(DT_UI8, 256.0), 255);
  assert_int_equal(fp_to_int(DT_I32, NAN), 0);
  assert_int_equal(fp_to_int(DT_I1, NAN), 1);
  assert_int_equal(fp_to_int(DT_I1, -0.0), 0);
  assert_int_equal(fp_to_int(DT_I1, 0.25), 1);
  assert_int_equal(fp_to_int(DT_UI64, 1e30), -1);
  assert_int_equal(fp_to_int(DT_UI64, 1.8446744073709550e19), (int64_t)18446744073709549568ull);
  assert_true(fp_to_int(DT_I64, 9.3e18) == INT64_MAX);
  assert_true(fp_to_int(DT_I64, -9.3e18) == INT64_MIN);
  assert_true(fp_to_int(DT_I64, -INFINITY) == INT64_MIN);
  assert_int_equal(fp_to_int(DT_I4, 7.9), 7);
  assert_int_equal(fp_to_int(DT_I4, -8.5), -8);
  assert_int_equal(fp_to_int(DT_I4, 8.0), 7);
  assert_int_equal(fp_to_int(DT_UI4, 16.0), 15);
  assert_int_equal(fp_to_int(DT_I64, -0.9), 0);

  assert_int_equal(int_convert(DT_I1, 2), 1);
  assert_int_equal(int_convert(DT_I1, 0), 0);
  assert_int_equal(int_convert(DT_I8, 300), 44);
  assert_int_equal(int_convert(DT_UI8, -1), 255);
  assert_int_equal(int_convert(DT_I4, 9), -7);
}

/* ---- printing: outputs of mlir-opt-22 for the same attributes ------------- */

static void test_format_against_mlir(void **state) {
  (void)state;
  static const struct {
    shl_dtype t;
    uint64_t bits;
    const char *want;
  } cases[] = {
      {DT_F32, 0x3FC00000u, "1.500000e+00"},
      {DT_F32, 0x3727C5ACu, "9.99999974E-6"}, /* 1.0e-5: six digits do not read back */
      {DT_F32, 0x501502F9u, "1.000000e+10"},
      {DT_F32, 0x7FC00000u, "0x7FC00000"},
      {DT_F32, 0xFF800000u, "0xFF800000"},
      {DT_F32, 0x4CEB79A3u, "0x4CEB79A3"}, /* 123456792: default form has no '.' */
      {DT_F32, 0x3E99999Au, "3.000000e-01"},
      {DT_F32, 0x00000000u, "0.000000e+00"},
      {DT_F32, 0x7F7FFFFFu, "3.40282347E+38"},
      {DT_F32, 0x3EAAAAABu, "0.333333343"},
      {DT_F32, 0x40490FDBu, "3.14159274"},
      {DT_F64, 0x3FB999999999999Aull, "1.000000e-01"},
      {DT_F64, 0x8000000000000000ull, "-0.000000e+00"},
      {DT_F64, 0x4170000010000000ull, "0x4170000010000000"},
      {DT_F64, 0x419D6F3454000000ull, "0x419D6F3454000000"},
      {DT_F64, 0x3FF0020000000000ull, "1.00048828125"},
      {DT_F64, 0x7FEFFFFFFFFFFFFFull, "1.7976931348623157E+308"},
      {DT_F64, 0x0000000000000001ull, "4.940660e-324"},
      {DT_F64, 0x3FD5555555555555ull, "0.33333333333333331"},
      {DT_F64, 0x44B52D02C7E14AF6ull, "9.9999999999999991E+22"},
      {DT_F64, 0x400921FB54442D18ull, "3.1415926535897931"},
      {DT_F64, 0xFFF8000000000000ull, "0xFFF8000000000000"},
      {DT_F64, 0x7FF0000000000000ull, "0x7FF0000000000000"},
      {DT_F16, 0x2E66, "9.997550e-02"}, /* 0.1: digits truncated, not rounded */
      {DT_F16, 0x7C00, "0x7C00"},
      {DT_F16, 0xFC00, "0xFC00"},
      {DT_F16, 0x7BFF, "6.550400e+04"},
      {DT_F16, 0x0001, "5.960460e-08"},
      {DT_F16, 0x3555, "3.332520e-01"},
      {DT_F16, 0x5648, "1.005000e+02"},
      {DT_F16, 0x3C00, "1.000000e+00"},
      {DT_BF16, 0xC020, "-2.500000e+00"},
      {DT_BF16, 0x3A83, "9.994500e-04"},
      {DT_BF16, 0x3F80, "1.000000e+00"},
      {DT_BF16, 0x4049, "3.140630e+00"},
      {DT_BF16, 0x8000, "-0.000000e+00"},
      {DT_TF32, 0x3A832000u, "1.000400e-03"},
      {DT_TF32, 0x7FC00000u, "0x3FE00"}, /* hex is the 19-bit APFloat pattern */
      {DT_TF32, 0x3D556000u, "5.209350e-02"},
      {DT_F8E4M3FN, 0x7E, "4.480000e+02"},
      {DT_F8E4M3FN, 0x7F, "0x7F"},
      {DT_F8E4M3FN, 0x01, "1.953130e-03"},
      {DT_F8E4M3FNUZ, 0x80, "0x80"},
      {DT_F8E4M3FNUZ, 0x00, "0.000000e+00"},
      {DT_F8E5M2, 0x7E, "0x7E"},
      {DT_F8E5M2FNUZ, 0x80, "0x80"},
      {DT_F8E8M0FNU, 0x81, "4.000000e+00"},
      {DT_F8E8M0FNU, 0x00, "5.877470e-39"},
      {DT_F8E8M0FNU, 0xFE, "1.701410e+38"},
      {DT_F8E8M0FNU, 0xFF, "0xFF"},
      {DT_F4E2M1FN, 0x7, "6.000000e+00"},
      {DT_F4E2M1FN, 0x1, "5.000000e-01"},
      {DT_F4E2M1FN, 0xF, "-6.000000e+00"},
      {DT_F6E3M2FN, 0x1F, "2.800000e+01"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char buf[FP_FORMAT_MAX];
    int n = fp_format(cases[i].t, cases[i].bits, buf, sizeof buf);
    assert_string_equal(buf, cases[i].want);
    assert_int_equal(n, (int)strlen(cases[i].want));
  }
  char small[5];
  assert_int_equal(fp_format(DT_F32, 0x3FC00000u, small, sizeof small), 12);
  assert_string_equal(small, "1.50");
}

/* What fp_format prints reads back to the same bits, for every f16 value. */
static void test_format_roundtrip(void **state) {
  (void)state;
  for (uint32_t h = 0; h < 65536; h++) {
    char buf[FP_FORMAT_MAX];
    int n = fp_format(DT_F16, h, buf, sizeof buf);
    if (buf[0] == '0' && buf[1] == 'x') continue;
    uint64_t back = 0;
    assert_true(fp_parse_decimal(DT_F16, buf, (size_t)n, &back));
    assert_int_equal(back, h);
  }
}

/* ---- parsing ---------------------------------------------------------------- */

static void test_parse(void **state) {
  (void)state;
  uint64_t b = 0;
  const char *tie = "1.00048828125000000000001"; /* just above an f16 tie */
  assert_true(fp_parse_decimal(DT_F16, tie, strlen(tie), &b));
  assert_int_equal(b, 0x3C01); /* correctly rounded */
  assert_true(fp_parse_literal(DT_F16, tie, strlen(tie), &b));
  assert_int_equal(b, 0x3C00); /* mlir-opt-22 prints 1.000000e+00 : f16 for it */
  const char *below = "464.0000000000000000000001"; /* f8E4M3FN: above the tie at 464 */
  assert_true(fp_parse_decimal(DT_F8E4M3FN, below, strlen(below), &b));
  assert_int_equal(b, 0x7F);
  assert_true(fp_parse_decimal(DT_F8E4M3FN, "464.0", 5, &b));
  assert_int_equal(b, 0x7E);
  assert_true(fp_parse_decimal(DT_F8E4M3FN, "463.99999999999999999999", 24, &b));
  assert_int_equal(b, 0x7E);
  assert_true(fp_parse_decimal(DT_F32, "1.0e-5", 6, &b));
  assert_int_equal(b, 0x3727C5ACu);
  assert_true(fp_parse_decimal(DT_F64, "-0.1", 4, &b));
  assert_int_equal(b, 0xBFB999999999999Aull);
  assert_true(fp_parse_literal(DT_F16, "70000.0", 7, &b));
  assert_int_equal(b, 0x7C00);
  assert_true(fp_parse_literal(DT_F64, "1.0e400", 7, &b));
  assert_int_equal(b, 0x7FF0000000000000ull); /* mlir-opt-22 accepts it as inf */
  assert_true(fp_parse_literal(DT_F4E2M1FN, "100.0", 5, &b));
  assert_int_equal(b, 0x7);
  assert_true(fp_parse_literal(DT_F8E8M0FNU, "3.0", 3, &b));
  assert_int_equal(b, 0x81);
  assert_true(fp_parse_decimal(DT_BF16, "+2", 2, &b));
  assert_int_equal(b, 0x4000);
  assert_true(fp_parse_decimal(DT_BF16, ".5e1", 4, &b));
  assert_int_equal(b, 0x40A0);
  static const char *bad[] = {"", "-", "1e", "1e+", "inf", "nan", "0x10", "1.0.0", " 1.0", "1.0 ", "e5", "."};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    assert_false(fp_parse_decimal(DT_F32, bad[i], strlen(bad[i]), &b));
  assert_false(fp_parse_decimal(DT_I32, "1.0", 3, &b));
  char longlit[400];
  memset(longlit, '0', sizeof longlit);
  longlit[0] = '1', longlit[1] = '.';
  assert_true(fp_parse_decimal(DT_F16, longlit, sizeof longlit, &b)); /* longer than the stack copy */
  assert_int_equal(b, 0x3C00);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_f16_edges),
      cmocka_unit_test(test_bf16_tf32),
      cmocka_unit_test(test_f8_ieee),
      cmocka_unit_test(test_f8_nan_only),
      cmocka_unit_test(test_f8e8m0),
      cmocka_unit_test(test_finite_only),
      cmocka_unit_test(test_roundtrip_all_patterns),
      cmocka_unit_test(test_f32_paths_match_generic),
      cmocka_unit_test(test_bulk),
      cmocka_unit_test(test_ulp),
      cmocka_unit_test(test_int_helpers),
      cmocka_unit_test(test_convert_across_classes),
      cmocka_unit_test(test_format_against_mlir),
      cmocka_unit_test(test_format_roundtrip),
      cmocka_unit_test(test_parse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
