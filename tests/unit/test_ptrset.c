/* The pointer set with scoped removal: random nested add/rewind sequences
 * checked member by member against a plain list, with pointers close enough
 * together that many share a home slot (the case backward-shift deletion
 * must get right), across table growth. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "support/ptrset.h"

enum { POOL = 20000 };
static char pool[POOL];

static uint64_t rng_state = 0x853c49e6748fea9bull;
static uint32_t rnd(uint32_t n) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng_state >> 33) % n;
}

static void check_same(const shl_ptrset *s, const uint8_t *in) {
  for (size_t i = 0; i < POOL; i++)
    if (ptrset_has(s, &pool[i]) != (bool)in[i]) fail_msg("pointer %zu: set says %d, expected %d", i, !in[i], in[i]);
}

static void test_random_scopes(void **state) {
  (void)state;
  shl_ptrset s = {0};
  uint8_t *in = calloc(POOL, 1);
  const char **stack = malloc(POOL * sizeof *stack);
  size_t marks[64], depth = 0, n = 0;
  assert_true(in && stack);
  for (int step = 0; step < 4000; step++) {
    uint32_t what = rnd(10);
    if (what < 3 && depth < 64) {
      marks[depth++] = ptrset_mark(&s); /* enter a scope */
      assert_int_equal(marks[depth - 1], n);
    } else if (what < 5 && depth > 0) {
      size_t mark = marks[--depth]; /* leave it */
      ptrset_rewind(&s, mark);
      while (n > mark) in[stack[--n] - pool] = 0;
      check_same(&s, in);
    } else {
      for (uint32_t k = rnd(40); k > 0; k--) { /* define values */
        uint32_t i = rnd(POOL);
        ptrset_add(&s, &pool[i]);
        if (!in[i]) stack[n++] = &pool[i];
        in[i] = 1;
      }
    }
  }
  assert_false(s.oom);
  check_same(&s, in);
  ptrset_rewind(&s, 0);
  for (size_t i = 0; i < POOL; i++) in[i] = 0;
  check_same(&s, in);
  ptrset_free(&s);
  free(in);
  free(stack);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_random_scopes)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
