/* Threefry-2x32-20 and Philox-4x32-10 as XLA's rng_bit_generator expander
 * lays them out (key/counter split, element order, state update); see
 * rng_bits.h for the state formats. */
#include "exec/rng_bits.h"

/* Threefry-2x32 rotation distances and key-schedule parity (Random123). */
static const unsigned tf_rot[8] = {13, 15, 26, 6, 17, 29, 16, 24};
#define TF_PARITY 0x1BD11BDAu

/* Philox-4x32 multipliers and Weyl key increments (Random123). */
#define PH_M0 0xD2511F53u
#define PH_M1 0xCD9E8D57u
#define PH_W0 0x9E3779B9u
#define PH_W1 0xBB67AE85u

static inline uint32_t lo32(uint64_t v) { return (uint32_t)v; }
static inline uint32_t hi32(uint64_t v) { return (uint32_t)(v >> 32); }
static inline uint32_t rotl32(uint32_t v, unsigned d) { return (v << d) | (v >> (32 - d)); }

void rng_threefry2x32_20(const uint32_t key[2], uint32_t x[2]) {
  const uint32_t ks[3] = {key[0], key[1], TF_PARITY ^ key[0] ^ key[1]};
  x[0] += ks[0];
  x[1] += ks[1];
  /* Five groups of four rounds, each followed by key injection number g. */
  for (uint32_t g = 1; g <= 5; g++) {
    const unsigned *rot = &tf_rot[(g - 1) % 2 * 4];
    for (int r = 0; r < 4; r++) {
      x[0] += x[1];
      x[1] = rotl32(x[1], rot[r]) ^ x[0];
    }
    x[0] += ks[g % 3];
    x[1] += ks[(g + 1) % 3] + g;
  }
}

void rng_philox4x32_10(const uint32_t key[2], uint32_t x[4]) {
  uint32_t k0 = key[0], k1 = key[1];
  for (int r = 0; r < 10; r++) {
    uint64_t p0 = (uint64_t)PH_M0 * x[0];
    uint64_t p1 = (uint64_t)PH_M1 * x[2];
    uint32_t y0 = hi32(p1) ^ x[1] ^ k0;
    uint32_t y2 = hi32(p0) ^ x[3] ^ k1;
    x[0] = y0;
    x[1] = lo32(p1);
    x[2] = y2;
    x[3] = lo32(p0);
    k0 += PH_W0;
    k1 += PH_W1;
  }
}

rng_algorithm rng_bits_resolve(rng_algorithm alg) {
  /* XLA:CPU expands rng_bit_generator with RngBitGeneratorExpander(RNG_PHILOX),
   * so DEFAULT is Philox there (as on GPU). */
  return alg == RNG_ALG_DEFAULT ? RNG_ALG_PHILOX : alg;
}

bool rng_bits_state_len_ok(rng_algorithm alg, size_t state_len) {
  switch (rng_bits_resolve(alg)) {
  case RNG_ALG_THREE_FRY: return state_len == 2;
  case RNG_ALG_PHILOX: return state_len == 2 || state_len == 3;
  default: return false;
  }
}

/* Stores the low `bits` bits of `v` as element `i`; narrower outputs keep the
 * low bits of a 32-bit draw, as XLA's ConvertElementType truncation does. */
static void store_elem(void *out, uint64_t i, unsigned bits, uint64_t v) {
  switch (bits) {
  case 8: ((uint8_t *)out)[i] = (uint8_t)v; break;
  case 16: ((uint16_t *)out)[i] = (uint16_t)v; break;
  case 32: ((uint32_t *)out)[i] = (uint32_t)v; break;
  default: ((uint64_t *)out)[i] = v; break;
  }
}

/* The dimension XLA splits in half for sub-64-bit Threefry output: the first
 * even one, else the first of maximal size. */
static size_t tf_split_dim(const int64_t *dims, size_t rank) {
  for (size_t d = 0; d < rank; d++)
    if (dims[d] % 2 == 0) return d;
  size_t best = 0;
  for (size_t d = 1; d < rank; d++)
    if (dims[d] > dims[best]) best = d;
  return best;
}

/* 64-bit elements: element i uses counter+i and packs both output words
 * (word 0 low).  Returns the number of counter values consumed. */
static uint64_t tf_gen64(const uint32_t key[2], uint64_t ctr, uint64_t n, uint64_t *out) {
  for (uint64_t i = 0; i < n; i++) {
    uint64_t c = ctr + i;
    uint32_t x[2] = {lo32(c), hi32(c)};
    rng_threefry2x32_20(key, x);
    out[i] = (uint64_t)x[0] | (uint64_t)x[1] << 32;
  }
  return n;
}

/* 8/16/32-bit elements: XLA draws over a "half shape" where the split
 * dimension d becomes ceil(d/2); counter = state + row-major index in that
 * half shape, and the two output words land at positions 2h and 2h+1 along d
 * (the second dropped when d is odd).  Scalars behave like shape [1]. */
static uint64_t tf_gen_narrow(const uint32_t key[2], uint64_t ctr, const int64_t *dims, size_t rank,
                              unsigned bits, void *out) {
  size_t s = tf_split_dim(dims, rank);
  uint64_t outer = 1, inner = 1, ds = rank ? (uint64_t)dims[s] : 1;
  for (size_t d = 0; d < rank; d++) {
    if (d < s) outer *= (uint64_t)dims[d];
    if (d > s) inner *= (uint64_t)dims[d];
  }
  uint64_t half = (ds + 1) / 2, used = 0;
  for (uint64_t o = 0; o < outer; o++)
    for (uint64_t h = 0; h < half; h++)
      for (uint64_t i = 0; i < inner; i++) {
        uint64_t c = ctr + used++;
        uint32_t x[2] = {lo32(c), hi32(c)};
        rng_threefry2x32_20(key, x);
        uint64_t j = 2 * h;
        store_elem(out, (o * ds + j) * inner + i, bits, x[0]);
        if (j + 1 < ds) store_elem(out, (o * ds + j + 1) * inner + i, bits, x[1]);
      }
  return used;
}

/* Philox: block b encrypts the 128-bit counter (lo, hi) + b, whose four
 * 32-bit words (least significant first) are the block input.  The output
 * words form one stream: element w for 32-bit-and-narrower types, pairs
 * (low word first) for 64-bit ones.  Returns the number of blocks used. */
static uint64_t ph_gen(const uint32_t key[2], uint64_t lo, uint64_t hi, uint64_t n, unsigned bits, void *out) {
  uint64_t words = bits == 64 ? 2 * n : n;
  uint64_t blocks = (words + 3) / 4;
  for (uint64_t b = 0; b < blocks; b++) {
    uint64_t c_lo = lo + b;
    uint64_t c_hi = hi + (c_lo < lo);
    uint32_t x[4] = {lo32(c_lo), hi32(c_lo), lo32(c_hi), hi32(c_hi)};
    rng_philox4x32_10(key, x);
    if (bits == 64) {
      for (uint64_t k = 0; k < 4 && 2 * b + k / 2 < n; k += 2)
        store_elem(out, 2 * b + k / 2, 64, (uint64_t)x[k] | (uint64_t)x[k + 1] << 32);
    } else {
      for (uint64_t k = 0; k < 4 && 4 * b + k < n; k++) store_elem(out, 4 * b + k, bits, x[k]);
    }
  }
  return blocks;
}

bool rng_bits_generate(rng_algorithm alg, const uint64_t *state_in, size_t state_len, const int64_t *dims,
                       size_t rank, unsigned elem_bits, void *out, uint64_t *state_out) {
  if (!rng_bits_state_len_ok(alg, state_len)) return false;
  if (elem_bits != 8 && elem_bits != 16 && elem_bits != 32 && elem_bits != 64) return false;
  uint64_t n = 1;
  for (size_t d = 0; d < rank; d++) {
    if (dims[d] < 0) return false;
    n *= (uint64_t)dims[d];
  }
  const uint64_t key64 = state_in[0];
  const uint32_t key[2] = {lo32(key64), hi32(key64)};

  if (rng_bits_resolve(alg) == RNG_ALG_THREE_FRY) {
    uint64_t ctr = state_in[1];
    uint64_t used = elem_bits == 64 ? tf_gen64(key, ctr, n, out) : tf_gen_narrow(key, ctr, dims, rank, elem_bits, out);
    state_out[0] = key64;
    state_out[1] = ctr + used;
    return true;
  }

  /* Philox: a 2-word state reuses the key as the high counter word. */
  uint64_t lo = state_in[1];
  uint64_t hi = state_len == 3 ? state_in[2] : key64;
  uint64_t blocks = ph_gen(key, lo, hi, n, elem_bits, out);
  uint64_t new_lo = lo + blocks;
  state_out[0] = key64;
  state_out[1] = new_lo;
  if (state_len == 3) state_out[2] = hi + (new_lo < lo);
  return true;
}
