/* Bit generation for stablehlo.rng_bit_generator, bit-exact with XLA:CPU.
 *
 * Pure functions over raw words: no IR, no allocation, only <stdint.h>-level
 * dependencies, so the interpreter kernel and generated C can share them.
 *
 * State layout (a 1-D ui64 tensor, as XLA's rng_bit_generator expander reads it):
 *   THREE_FRY  u64[2]: {key, counter}.  The counter advances by the number of
 *              Threefry-2x32 blocks used; the key is copied through.
 *   PHILOX     u64[3]: {key, counter_lo, counter_hi} (a 128-bit counter, carry
 *              propagated into counter_hi).
 *              u64[2]: {key, counter_lo}; the missing high counter word is the
 *              key itself, and only counter_lo is written back (no carry).
 *   DEFAULT    whatever XLA:CPU picks: PHILOX (see rng_bits_resolve).
 *
 * Output elements are produced as raw little-endian bit patterns of 8, 16, 32
 * or 64 bits; the element type (int or float of that width) does not matter.
 * For THREE_FRY with elements narrower than 64 bits the result depends on the
 * output *shape*, not only on its element count, hence the dims argument. */
#ifndef SHLOC_EXEC_RNG_BITS_H
#define SHLOC_EXEC_RNG_BITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Values match the order of StableHLO's RngAlgorithm enum. */
typedef enum {
  RNG_ALG_DEFAULT = 0,
  RNG_ALG_THREE_FRY = 1,
  RNG_ALG_PHILOX = 2,
} rng_algorithm;

/* Maps DEFAULT to the concrete algorithm XLA:CPU uses; others pass through. */
rng_algorithm rng_bits_resolve(rng_algorithm alg);

/* True if a ui64 state of `state_len` words is valid for `alg`
 * (THREE_FRY: 2; PHILOX and DEFAULT: 2 or 3). */
bool rng_bits_state_len_ok(rng_algorithm alg, size_t state_len);

/* Fills `out` (prod(dims) elements of `elem_bits` bits, row-major, native
 * little-endian) and writes the successor state (`state_len` words) to
 * `state_out`, which may alias `state_in`.  `rank` 0 means a scalar.
 * Returns false, touching nothing, if the algorithm, state length or element
 * width (8, 16, 32, 64) is invalid or a dimension is negative. */
bool rng_bits_generate(rng_algorithm alg, const uint64_t *state_in, size_t state_len, const int64_t *dims,
                       size_t rank, unsigned elem_bits, void *out, uint64_t *state_out);

/* The block functions, exposed for known-answer tests.  Both update `x` in
 * place; word order follows Random123 (element 0 first). */
void rng_threefry2x32_20(const uint32_t key[2], uint32_t x[2]);
void rng_philox4x32_10(const uint32_t key[2], uint32_t x[4]);

#endif
