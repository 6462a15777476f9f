/* rng_bit_generator bit kernels: Random123 known-answer vectors, values taken
 * from the conformance suite's XLA:CPU outputs, and XLA's output layouts.
 *
 * Expected values never come from the code under test: the layout tests use
 * block functions written here from the Random123 paper's definitions
 * (Salmon et al., SC'11: Threefry-2x32 with 20 rounds, Philox-4x32 with 10),
 * themselves checked against Random123's known-answer vectors below, and
 * XLA's layout as openxla/xla's RngBitGeneratorExpander and prng.cc define it
 * (THREE_FRY state {key, counter}; PHILOX u64[3] {key, lo, hi}, u64[2] the
 * reversed state as counter, i.e. {lo = state[1], hi = state[0] = key}, and
 * only its first word written back). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "exec/rng_bits.h"

/* ---- test-local block functions, from the Random123 definitions ---- */

static uint32_t rotl32(uint32_t x, unsigned r) { return (x << r) | (x >> (32 - r)); }

/* Threefry-2x32, 20 rounds: rotation constants R_32x2, key schedule parity
 * constant 0x1BD11BDA, a key injection after every 4 rounds. */
static void ref_threefry(const uint32_t key[2], uint32_t x[2]) {
  static const unsigned rot[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  const uint32_t ks[3] = {key[0], key[1], 0x1BD11BDAu ^ key[0] ^ key[1]};
  x[0] += ks[0];
  x[1] += ks[1];
  for (unsigned r = 0; r < 20; r++) {
    x[0] += x[1];
    x[1] = rotl32(x[1], rot[r % 8]);
    x[1] ^= x[0];
    if (r % 4 == 3) {
      unsigned i = r / 4 + 1;
      x[0] += ks[i % 3];
      x[1] += ks[(i + 1) % 3] + i;
    }
  }
}

/* Philox-4x32, 10 rounds: multipliers 0xD2511F53 / 0xCD9E8D57, Weyl key
 * increments 0x9E3779B9 / 0xBB67AE85 between rounds. */
static void ref_philox(const uint32_t key[2], uint32_t x[4]) {
  uint32_t k0 = key[0], k1 = key[1];
  for (int r = 0; r < 10; r++) {
    if (r) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    uint64_t p0 = (uint64_t)0xD2511F53u * x[0], p1 = (uint64_t)0xCD9E8D57u * x[2];
    uint32_t y[4] = {(uint32_t)(p1 >> 32) ^ x[1] ^ k0, (uint32_t)p1, (uint32_t)(p0 >> 32) ^ x[3] ^ k1, (uint32_t)p0};
    memcpy(x, y, sizeof y);
  }
}

/* ---- block functions (shloc's and the test's) against Random123's kat_vectors ---- */

static void test_threefry_kat(void **state) {
  (void)state;
  static const struct {
    uint32_t ctr[2], key[2], want[2];
  } kat[] = {
      {{0, 0}, {0, 0}, {0x6b200159, 0x99ba4efe}},
      {{~0u, ~0u}, {~0u, ~0u}, {0x1cb996fc, 0xbb002be7}},
      {{0x243f6a88, 0x85a308d3}, {0x13198a2e, 0x03707344}, {0xc4923a9c, 0x483df7a0}},
  };
  for (size_t i = 0; i < sizeof kat / sizeof kat[0]; i++) {
    uint32_t x[2] = {kat[i].ctr[0], kat[i].ctr[1]}, r[2] = {kat[i].ctr[0], kat[i].ctr[1]};
    rng_threefry2x32_20(kat[i].key, x);
    ref_threefry(kat[i].key, r);
    assert_int_equal(x[0], kat[i].want[0]);
    assert_int_equal(x[1], kat[i].want[1]);
    assert_int_equal(r[0], kat[i].want[0]);
    assert_int_equal(r[1], kat[i].want[1]);
  }
}

static void test_philox_kat(void **state) {
  (void)state;
  static const struct {
    uint32_t ctr[4], key[2], want[4];
  } kat[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{~0u, ~0u, ~0u, ~0u}, {~0u, ~0u}, {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (size_t i = 0; i < sizeof kat / sizeof kat[0]; i++) {
    uint32_t x[4], r[4];
    memcpy(x, kat[i].ctr, sizeof x);
    memcpy(r, kat[i].ctr, sizeof r);
    rng_philox4x32_10(kat[i].key, x);
    ref_philox(kat[i].key, r);
    for (int k = 0; k < 4; k++) assert_int_equal(x[k], kat[i].want[k]);
    for (int k = 0; k < 4; k++) assert_int_equal(r[k], kat[i].want[k]);
  }
}

/* ---- THREE_FRY against XLA:CPU (conformance testdata) ---- */

/* rng_bit_generator_uint32_4: state ui32 [1,4,0,1] bitcast to ui64[2],
 * output ui64[100,100]; expected state ui32 [1,4,10000,1]. */
static void test_threefry_u64_100x100(void **state) {
  (void)state;
  static uint64_t out[100 * 100];
  const uint64_t st[2] = {0x0000000400000001ull, 0x0000000100000000ull};
  const int64_t dims[2] = {100, 100};
  uint64_t so[2];
  assert_true(rng_bits_generate(RNG_ALG_THREE_FRY, st, 2, dims, 2, 64, out, so));
  assert_int_equal(so[0], 0x0000000400000001ull);
  assert_int_equal(so[1], 0x0000000100002710ull);
  assert_int_equal(out[0], 0xa3e974730835d3c1ull);
  assert_int_equal(out[1], 0x252e8081823789ceull);
  assert_int_equal(out[2], 0xb4c691df7e36a68eull);
  assert_int_equal(out[3], 0x04e4189ae40ae336ull);
  assert_int_equal(out[101], 0x441938612d0ed3fbull);
  assert_int_equal(out[5000], 0x45735e7a44612b74ull);
  assert_int_equal(out[9999], 0xa39216886a197768ull);
}

/* rng_bit_generator_uint64_2: state [3,3], scalar ui64 output. */
static void test_threefry_u64_scalar(void **state) {
  (void)state;
  uint64_t st[2] = {3, 3}, out = 0;
  /* state_out aliasing state_in is allowed */
  assert_true(rng_bits_generate(RNG_ALG_THREE_FRY, st, 2, NULL, 0, 64, &out, st));
  assert_int_equal(out, 3349939604322698703ull);
  assert_int_equal(st[0], 3);
  assert_int_equal(st[1], 4);
}

/* State {0,0}, ui32[3,2].  Matches (to the printed 5 digits) an XLA:CPU run
 * shown in r-xla/anvil's nvl_rng_bit_generator docs: 1.7973e9 2.5791e9 /
 * 1.3515e9 3.2358e9 / 1.6886e9 4.2293e9, new state {0,3}. */
static void test_threefry_u32_3x2(void **state) {
  (void)state;
  const uint64_t st[2] = {0, 0};
  const int64_t dims[2] = {3, 2};
  const uint32_t want[6] = {1797259609u, 2579123966u, 1351547692u, 3235790642u, 1688610540u, 4229293427u};
  uint32_t out[6];
  uint64_t so[2];
  assert_true(rng_bits_generate(RNG_ALG_THREE_FRY, st, 2, dims, 2, 32, out, so));
  for (int i = 0; i < 6; i++) assert_int_equal(out[i], want[i]);
  assert_int_equal(so[0], 0);
  assert_int_equal(so[1], 3);
}

/* Draws Threefry block `c` for key `key` (64-bit) and returns word `w`. */
static uint32_t tf_word(uint64_t key, uint64_t c, int w) {
  const uint32_t k[2] = {(uint32_t)key, (uint32_t)(key >> 32)};
  uint32_t x[2] = {(uint32_t)c, (uint32_t)(c >> 32)};
  ref_threefry(k, x);
  return x[w];
}

/* Sub-64-bit THREE_FRY output follows XLA's split-shape layout: the first
 * even dimension (else the first largest) is halved; the counter runs over
 * the halved shape in row-major order and its two words fill positions 2h
 * and 2h+1 of the split dimension. */
static void test_threefry_u32_layout(void **state) {
  (void)state;
  const uint64_t key = 0x0123456789abcdefull, ctr = 0xfffffffffffffffeull; /* counter wraps */
  const uint64_t st[2] = {key, ctr};
  uint64_t so[2];
  uint32_t out[20];

  /* [5]: all odd, split dim 0 -> 3 blocks, last second word dropped */
  const int64_t d5[1] = {5};
  assert_true(rng_bits_generate(RNG_ALG_THREE_FRY, st, 2, d5, 1, 32, out, so));
  for (int j = 0; j < 5; j++) assert_int_equal(out[j], tf_word(key, ctr + (uint64_t)(j / 2), j % 2));
  assert_int_equal(so[1], ctr + 3);

  /* [3,4]: split dim 1 (first even) -> half [3,2] */
  const int64_t d34[2] = {3, 4};
  assert_true(rng_bits_generate(RNG_ALG_THREE_FRY, st, 2, d34, 2, 32, out, so));
  for (int r = 0; r < 3; r++)
    for (int j = 0; j < 4; j++)
      assert_int_equal(out[r * 4 + j], tf_word(key, ctr + (uint64_t)(r * 2 + j / 2), j % 2));
  assert_int_equal(so[1], ctr + 6);

  /* [4,5]: split dim 0 -> half [2,5]; pairs run down columns */
  const int64_t d45[2] = {4, 5};
  assert_true(rng_bits_generate(RNG_ALG_THREE_FRY, st, 2, d45, 2, 32, out, so));
  for (int j = 0; j < 4; j++)
    for (int i = 0; i < 5; i++)
      assert_int_equal(out[j * 5 + i], tf_word(key, ctr + (uint64_t)((j / 2) * 5 + i), j % 2));
  assert_int_equal(so[1], ctr + 10);

  /* [3,5]: no even dim, split the largest (dim 1) -> half [3,3] */
  const int64_t d35[2] = {3, 5};
  assert_true(rng_bits_generate(RNG_ALG_THREE_FRY, st, 2, d35, 2, 32, out, so));
  for (int r = 0; r < 3; r++)
    for (int j = 0; j < 5; j++)
      assert_int_equal(out[r * 5 + j], tf_word(key, ctr + (uint64_t)(r * 3 + j / 2), j % 2));
  assert_int_equal(so[1], ctr + 9);

  /* scalar: one block, first word */
  assert_true(rng_bits_generate(RNG_ALG_THREE_FRY, st, 2, NULL, 0, 32, out, so));
  assert_int_equal(out[0], tf_word(key, ctr, 0));
  assert_int_equal(so[1], ctr + 1);
}

/* 8/16-bit outputs are the low bits of the 32-bit draw for the same shape. */
static void test_narrow_truncates(void **state) {
  (void)state;
  const uint64_t st[3] = {42, 7, 9};
  const int64_t dims[2] = {3, 5};
  uint32_t w32[15];
  uint16_t w16[15];
  uint8_t w8[15];
  uint64_t s32[3], s16[3], s8[3];
  for (int alg = RNG_ALG_THREE_FRY; alg <= RNG_ALG_PHILOX; alg++) {
    size_t len = alg == RNG_ALG_THREE_FRY ? 2 : 3;
    assert_true(rng_bits_generate((rng_algorithm)alg, st, len, dims, 2, 32, w32, s32));
    assert_true(rng_bits_generate((rng_algorithm)alg, st, len, dims, 2, 16, w16, s16));
    assert_true(rng_bits_generate((rng_algorithm)alg, st, len, dims, 2, 8, w8, s8));
    for (int i = 0; i < 15; i++) {
      assert_int_equal(w16[i], (uint16_t)w32[i]);
      assert_int_equal(w8[i], (uint8_t)w32[i]);
    }
    assert_memory_equal(s16, s32, len * sizeof(uint64_t));
    assert_memory_equal(s8, s32, len * sizeof(uint64_t));
  }
}

/* ---- PHILOX ----
 * No XLA:CPU ground truth exists in the corpus, so these rest on the
 * Random123 vectors plus XLA's mapping (RngBitGeneratorExpander + prng.cc):
 *   key (2 x u32)      = low, high halves of state[0];
 *   counter (u128)     = u64[3]: state[1] | state[2] << 64,
 *                        u64[2]: state[1] | state[0] << 64 (key reused);
 *   block b encrypts counter + b as 4 x u32, least significant word first;
 *   32-bit outputs take the word stream in order, 64-bit outputs take word
 *   pairs (low first); new counter = counter + blocks, written back as
 *   {key, lo, hi} for u64[3] and {key, lo} (carry dropped) for u64[2]. */

static const uint64_t pi_key = 0x299f31d0a4093822ull;
static const uint64_t pi_lo = 0x85a308d3243f6a88ull;
static const uint64_t pi_hi = 0x0370734413198a2eull;

static void test_philox_u32_kat_state3(void **state) {
  (void)state;
  const uint64_t st[3] = {pi_key, pi_lo, pi_hi};
  const int64_t dims[1] = {4};
  uint32_t out[4];
  uint64_t so[3];
  assert_true(rng_bits_generate(RNG_ALG_PHILOX, st, 3, dims, 1, 32, out, so));
  assert_int_equal(out[0], 0xd16cfe09);
  assert_int_equal(out[1], 0x94fdcceb);
  assert_int_equal(out[2], 0x5001e420);
  assert_int_equal(out[3], 0x24126ea1);
  assert_int_equal(so[0], pi_key);
  assert_int_equal(so[1], pi_lo + 1);
  assert_int_equal(so[2], pi_hi);
}

static void test_philox_u64_kat_state3(void **state) {
  (void)state;
  const uint64_t st[3] = {pi_key, pi_lo, pi_hi};
  const int64_t dims[2] = {1, 2};
  uint64_t out[2], so[3];
  assert_true(rng_bits_generate(RNG_ALG_PHILOX, st, 3, dims, 2, 64, out, so));
  assert_int_equal(out[0], 0x94fdccebd16cfe09ull);
  assert_int_equal(out[1], 0x24126ea15001e420ull);
  assert_int_equal(so[1], pi_lo + 1);
}

/* u64[2]: the key doubles as the counter's high word; no carry is kept. */
static void test_philox_state2(void **state) {
  (void)state;
  uint32_t out[4];
  uint64_t so[2];
  const uint64_t zeros[2] = {0, 0};
  assert_true(rng_bits_generate(RNG_ALG_PHILOX, zeros, 2, NULL, 0, 32, out, so));
  assert_int_equal(out[0], 0x6627e8d5);
  assert_int_equal(so[0], 0);
  assert_int_equal(so[1], 1);

  const uint64_t ones[2] = {~0ull, ~0ull};
  const int64_t dims[1] = {3};
  assert_true(rng_bits_generate(RNG_ALG_PHILOX, ones, 2, dims, 1, 32, out, so));
  assert_int_equal(out[0], 0x408f276d);
  assert_int_equal(out[1], 0x41c83b0e);
  assert_int_equal(out[2], 0xa20bc7c6);
  assert_int_equal(so[0], ~0ull);
  assert_int_equal(so[1], 0);
}

/* Blocks past the first use counter + b with a carry into the high word. */
static void test_philox_multi_block_carry(void **state) {
  (void)state;
  const uint64_t key = 0x0123456789abcdefull;
  const uint64_t st[3] = {key, ~0ull, 5};
  const int64_t dims[1] = {5};
  uint64_t out[5], so[3];
  assert_true(rng_bits_generate(RNG_ALG_PHILOX, st, 3, dims, 1, 64, out, so));
  const uint32_t k[2] = {(uint32_t)key, (uint32_t)(key >> 32)};
  uint32_t b0[4] = {~0u, ~0u, 5, 0}, b1[4] = {0, 0, 6, 0}, b2[4] = {1, 0, 6, 0};
  ref_philox(k, b0);
  ref_philox(k, b1);
  ref_philox(k, b2);
  assert_int_equal(out[0], (uint64_t)b0[1] << 32 | b0[0]);
  assert_int_equal(out[1], (uint64_t)b0[3] << 32 | b0[2]);
  assert_int_equal(out[2], (uint64_t)b1[1] << 32 | b1[0]);
  assert_int_equal(out[3], (uint64_t)b1[3] << 32 | b1[2]);
  assert_int_equal(out[4], (uint64_t)b2[1] << 32 | b2[0]);
  assert_int_equal(so[1], 2); /* ~0 + 3 blocks */
  assert_int_equal(so[2], 6);
}

/* u64[2] over several blocks: the counter is {lo = state[1], hi = key}; the
 * blocks carry into hi, the write-back keeps {key, lo + blocks} only; 32-bit
 * outputs take the four words of each block in order. */
static void test_philox_state2_layout(void **state) {
  (void)state;
  const uint64_t key = 0xfedcba9876543210ull;
  const uint64_t st[2] = {key, ~0ull - 1};
  const int64_t dims[2] = {3, 3};
  uint32_t out[9];
  uint64_t so[2];
  assert_true(rng_bits_generate(RNG_ALG_PHILOX, st, 2, dims, 2, 32, out, so));
  const uint32_t k[2] = {(uint32_t)key, (uint32_t)(key >> 32)};
  uint32_t blocks[3][4] = {
      {~0u - 1, ~0u, (uint32_t)key, (uint32_t)(key >> 32)},
      {~0u, ~0u, (uint32_t)key, (uint32_t)(key >> 32)},
      {0, 0, (uint32_t)key + 1, (uint32_t)(key >> 32)}, /* carry into hi */
  };
  for (int b = 0; b < 3; b++) ref_philox(k, blocks[b]);
  for (int i = 0; i < 9; i++) assert_int_equal(out[i], blocks[i / 4][i % 4]);
  assert_int_equal(so[0], key);
  assert_int_equal(so[1], 1); /* ~0 - 1 + 3 blocks, carry dropped */
}

/* XLA:CPU expands DEFAULT as PHILOX. */
static void test_default_is_philox(void **state) {
  (void)state;
  const uint64_t st[3] = {11, 22, 33};
  const int64_t dims[1] = {7};
  uint32_t a[7], b[7];
  uint64_t sa[3], sb[3];
  assert_int_equal(rng_bits_resolve(RNG_ALG_DEFAULT), RNG_ALG_PHILOX);
  assert_true(rng_bits_generate(RNG_ALG_DEFAULT, st, 3, dims, 1, 32, a, sa));
  assert_true(rng_bits_generate(RNG_ALG_PHILOX, st, 3, dims, 1, 32, b, sb));
  assert_memory_equal(a, b, sizeof a);
  assert_memory_equal(sa, sb, sizeof sa);
}

static void test_invalid_arguments(void **state) {
  (void)state;
  const uint64_t st[4] = {1, 2, 3, 4};
  uint64_t so[4] = {9, 9, 9, 9}, out = 0;
  const int64_t bad_dim[1] = {-1};
  assert_false(rng_bits_state_len_ok(RNG_ALG_THREE_FRY, 3));
  assert_true(rng_bits_state_len_ok(RNG_ALG_PHILOX, 3));
  assert_true(rng_bits_state_len_ok(RNG_ALG_DEFAULT, 2));
  assert_false(rng_bits_state_len_ok(RNG_ALG_PHILOX, 4));
  assert_false(rng_bits_state_len_ok((rng_algorithm)7, 2));
  assert_false(rng_bits_generate(RNG_ALG_THREE_FRY, st, 3, NULL, 0, 64, &out, so));
  assert_false(rng_bits_generate(RNG_ALG_PHILOX, st, 1, NULL, 0, 64, &out, so));
  assert_false(rng_bits_generate(RNG_ALG_PHILOX, st, 3, NULL, 0, 24, &out, so));
  assert_false(rng_bits_generate(RNG_ALG_PHILOX, st, 3, bad_dim, 1, 32, &out, so));
  assert_int_equal(so[0], 9);
  assert_int_equal(out, 0);
}

/* Zero-element outputs leave the counter where it was. */
static void test_empty_output(void **state) {
  (void)state;
  const uint64_t st[3] = {5, 6, 7};
  const int64_t dims[2] = {4, 0};
  uint64_t so[3];
  assert_true(rng_bits_generate(RNG_ALG_THREE_FRY, st, 2, dims, 2, 32, NULL, so));
  assert_int_equal(so[1], 6);
  assert_true(rng_bits_generate(RNG_ALG_PHILOX, st, 3, dims, 2, 64, NULL, so));
  assert_int_equal(so[1], 6);
  assert_int_equal(so[2], 7);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_threefry_kat),
      cmocka_unit_test(test_philox_kat),
      cmocka_unit_test(test_threefry_u64_100x100),
      cmocka_unit_test(test_threefry_u64_scalar),
      cmocka_unit_test(test_threefry_u32_3x2),
      cmocka_unit_test(test_threefry_u32_layout),
      cmocka_unit_test(test_narrow_truncates),
      cmocka_unit_test(test_philox_u32_kat_state3),
      cmocka_unit_test(test_philox_u64_kat_state3),
      cmocka_unit_test(test_philox_state2),
      cmocka_unit_test(test_philox_multi_block_carry),
      cmocka_unit_test(test_philox_state2_layout),
      cmocka_unit_test(test_default_is_philox),
      cmocka_unit_test(test_invalid_arguments),
      cmocka_unit_test(test_empty_output),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
