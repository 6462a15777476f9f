/* stablehlo.rng_bit_generator with the DEFAULT algorithm must give XLA:CPU's
 * exact bits (JAX compares them exactly).  XLA:CPU expands DEFAULT as PHILOX
 * (cpu_compiler's RngBitGeneratorExpander), and the expansion is re-derived
 * here, independently of src/exec/rng_bits.c, from openxla/xla:
 *
 *   rng_bit_generator_expander.cc: key = state[0]; the 128-bit counter is
 *     (state[1], state[2]) for a u64[3] state and (state[1], state[0]) -- the
 *     state reversed -- for u64[2]; the new state is [key, counter'] (only the
 *     low counter word for u64[2]).
 *   prng.cc PhiloxBitGenerator: blocks i = 0..ceil(words/4)-1 run
 *     Philox4x32-10 on the four 32-bit words of counter + i (low word first,
 *     128-bit add) with the key's two halves (low first), no key scrambling;
 *     32-bit outputs take word (e % 4) of block (e / 4); 64-bit outputs take
 *     word pair (2 (e % 2), 2 (e % 2) + 1) of block (e / 2), low word first;
 *     narrower outputs are the 32-bit outputs truncated; counter' = counter +
 *     number of blocks.
 *
 * The block function itself is checked against Random123's published
 * known-answer vectors (kat_vectors, philox4x32_10) before it is trusted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/exec.h"
#include "shloc/shloc.h"

/* ---- the reference ---- */

static void philox_block(uint32_t key0, uint32_t key1, uint32_t x[4]) {
  for (int round = 0; round < 10; round++) {
    uint64_t p0 = (uint64_t)x[0] * 0xD2511F53u, p1 = (uint64_t)x[2] * 0xCD9E8D57u;
    uint32_t y0 = (uint32_t)(p1 >> 32) ^ x[1] ^ key0, y1 = (uint32_t)p1;
    uint32_t y2 = (uint32_t)(p0 >> 32) ^ x[3] ^ key1, y3 = (uint32_t)p0;
    x[0] = y0, x[1] = y1, x[2] = y2, x[3] = y3;
    key0 += 0x9E3779B9u;
    key1 += 0xBB67AE85u;
  }
}

/* One output word stream element: word w of block b. */
static uint32_t word(uint64_t key, uint64_t lo, uint64_t hi, uint64_t b, int w) {
  uint64_t l = lo + b, h = hi + (l < lo);
  uint32_t x[4] = {(uint32_t)l, (uint32_t)(l >> 32), (uint32_t)h, (uint32_t)(h >> 32)};
  philox_block((uint32_t)key, (uint32_t)(key >> 32), x);
  return x[w];
}

/* XLA:CPU's DEFAULT rng_bit_generator: `n` elements of `bits` bits into
 * out (bits / 8 bytes each), the new state into st_out. */
static void xla_default(const uint64_t *st, int n_state, int64_t n, int bits, void *out, uint64_t *st_out) {
  uint64_t key = st[0], lo = st[1], hi = n_state >= 3 ? st[2] : st[0];
  int64_t words = bits == 64 ? 2 * n : n, blocks = (words + 3) / 4;
  for (int64_t e = 0; e < n; e++) {
    if (bits == 64) {
      uint64_t b = (uint64_t)(e / 2);
      int p = (int)(e % 2);
      uint64_t v = (uint64_t)word(key, lo, hi, b, 2 * p) | (uint64_t)word(key, lo, hi, b, 2 * p + 1) << 32;
      memcpy((uint8_t *)out + e * 8, &v, 8);
    } else {
      uint32_t v = word(key, lo, hi, (uint64_t)(e / 4), (int)(e % 4));
      memcpy((uint8_t *)out + e * (bits / 8), &v, (size_t)(bits / 8)); /* little-endian truncation */
    }
  }
  uint64_t nl = lo + (uint64_t)blocks, nh = hi + (nl < lo);
  st_out[0] = key;
  st_out[1] = nl;
  if (n_state >= 3) st_out[2] = nh;
}

static void test_block_kat(void **state) {
  (void)state;
  /* Random123 kat_vectors: philox4x32 10 rounds */
  static const struct {
    uint32_t ctr[4], key[2], want[4];
  } kat[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{~0u, ~0u, ~0u, ~0u}, {~0u, ~0u}, {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (size_t i = 0; i < sizeof kat / sizeof *kat; i++) {
    uint32_t x[4];
    memcpy(x, kat[i].ctr, sizeof x);
    philox_block(kat[i].key[0], kat[i].key[1], x);
    assert_memory_equal(x, kat[i].want, sizeof x);
  }
}

/* ---- through the executor ---- */

static void run_default(const uint64_t *st, int n_state, const char *shape, int64_t n, const char *ety, int bits) {
  char src[1024];
  char state_lit[256] = "";
  size_t k = 0;
  for (int i = 0; i < n_state; i++)
    k += (size_t)snprintf(state_lit + k, sizeof state_lit - k, "%s%llu", i ? ", " : "", (unsigned long long)st[i]);
  snprintf(src, sizeof src,
           "func.func @main() -> (tensor<%dxui64>, tensor<%s%s>) {\n"
           "  %%s = stablehlo.constant dense<[%s]> : tensor<%dxui64>\n"
           "  %%0:2 = \"stablehlo.rng_bit_generator\"(%%s) {rng_algorithm = #stablehlo<rng_algorithm DEFAULT>} : "
           "(tensor<%dxui64>) -> (tensor<%dxui64>, tensor<%s%s>)\n"
           "  return %%0#0, %%0#1 : tensor<%dxui64>, tensor<%s%s>\n}\n",
           n_state, shape, ety, state_lit, n_state, n_state, n_state, shape, ety, n_state, shape, ety);
  shloc_context *c = shloc_context_create();
  shloc_module *m = NULL;
  shloc_executable *x = NULL;
  shl_buf res[2];
  shloc_status s = shloc_module_parse(c, "t.mlir", src, strlen(src), 1, &m);
  if (!s) s = shloc_module_verify(m);
  if (!s) s = executable_create(m, module_find_func(m, str_of("main")), NULL, &x);
  if (!s) s = executable_run(x, NULL, res);
  if (s) fail_msg("%s\n%s", shloc_status_message(s), src);
  void *want = calloc((size_t)n + 1, 8);
  uint64_t want_st[3];
  xla_default(st, n_state, n, bits, want, want_st);
  assert_memory_equal(res[0].data, want_st, (size_t)n_state * 8);
  assert_int_equal(res[1].nbytes, (size_t)n * (size_t)(bits / 8));
  assert_memory_equal(res[1].data, want, (size_t)n * (size_t)(bits / 8));
  free(want);
  free(res[0].data);
  free(res[1].data);
  executable_destroy(x);
  shloc_module_destroy(m);
  shloc_context_destroy(c);
}

static void test_default_u32(void **state) {
  (void)state;
  const uint64_t s3[3] = {0x299f31d0a4093822ull, 0x85a308d3243f6a88ull, 0x0370734413198a2eull};
  run_default(s3, 3, "4x", 4, "ui32", 32);
  run_default(s3, 3, "3x5x", 15, "ui32", 32); /* a partial last block */
  const uint64_t s2[2] = {42, 7};
  run_default(s2, 2, "2x3x", 6, "i32", 32);
  run_default(s2, 2, "7x", 7, "f32", 32);
}

static void test_default_u64(void **state) {
  (void)state;
  const uint64_t s3[3] = {0x0123456789abcdefull, 5, 9};
  run_default(s3, 3, "5x", 5, "ui64", 64);
  run_default(s3, 3, "2x2x", 4, "f64", 64);
  const uint64_t s2[2] = {1234567, 0xfedcba9876543210ull};
  run_default(s2, 2, "3x", 3, "i64", 64);
}

static void test_default_narrow(void **state) {
  (void)state;
  const uint64_t s3[3] = {77, 88, 99};
  run_default(s3, 3, "9x", 9, "ui8", 8);
  run_default(s3, 3, "6x", 6, "ui16", 16);
  run_default(s3, 3, "5x", 5, "f16", 16);
}

/* The 128-bit counter carries into its high word (u64[3]); with u64[2] the
 * carry is dropped since only the low word is written back. */
static void test_default_counter_carry(void **state) {
  (void)state;
  const uint64_t s3[3] = {3, ~0ull - 1, 41};
  run_default(s3, 3, "13x", 13, "ui32", 32);
  const uint64_t s2[2] = {~0ull, ~0ull};
  run_default(s2, 2, "9x", 9, "ui64", 64);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_block_kat),
      cmocka_unit_test(test_default_u32),
      cmocka_unit_test(test_default_u64),
      cmocka_unit_test(test_default_narrow),
      cmocka_unit_test(test_default_counter_carry),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
