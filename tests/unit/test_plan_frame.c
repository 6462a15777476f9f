/* Frame layout (src/exec/plan_frame.c) and reshape views (src/exec/plan.c):
 * frame sizes against hand-computed peaks of simultaneously live buffers,
 * no two buffers live at once overlapping, and a view staying intact when a
 * scatter could otherwise update its buffer in place. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/plan.h"
#include "exec/plan_frame.h"
#include "harness.h"

/* A plan of n f32 vectors with elems[i] elements, live over [def[i], last[i]]. */
typedef struct {
  shl_arena arena;
  exec_plan p;
  plan_lives lives;
} synth;

static void synth_init(synth *s, uint32_t n, const int64_t *elems, const uint32_t *def, const uint32_t *last,
                       uint32_t n_ops) {
  memset(s, 0, sizeof *s);
  arena_init(&s->arena);
  s->p.n_slots = n;
  s->p.slots = arena_alloc(&s->arena, n * sizeof *s->p.slots);
  s->p.n_ops = n_ops;
  s->p.ops = arena_alloc(&s->arena, (n_ops + 1) * sizeof *s->p.ops);
  assert_non_null(s->p.slots);
  assert_non_null(s->p.ops);
  for (uint32_t i = 0; i < n; i++) {
    s->p.slots[i] = (plan_slot){.type = type_tensor(&s->arena, DT_F32, 1, &elems[i]), .kind = SLOT_FRAME};
    assert_non_null(s->p.slots[i].type);
    assert_true(lives_def(&s->lives, i, def[i]));
    assert_true(lives_use(&s->lives, i, last[i]));
  }
}

/* Lays out the frame; checks that buffers live at the same time do not overlap. */
static size_t synth_layout(synth *s, const uint32_t *def, const uint32_t *last) {
  assert_null(plan_frame_layout(&s->p, &s->lives));
  for (uint32_t i = 0; i < s->p.n_slots; i++)
    for (uint32_t j = i + 1; j < s->p.n_slots; j++) {
      if (def[i] > last[j] || def[j] > last[i]) continue;
      size_t ai = s->p.slots[i].offset, bi = ai + (size_t)type_num_bytes(s->p.slots[i].type);
      size_t aj = s->p.slots[j].offset, bj = aj + (size_t)type_num_bytes(s->p.slots[j].type);
      assert_true(bi <= aj || bj <= ai);
      assert_true(bi <= s->p.frame_bytes && bj <= s->p.frame_bytes);
    }
  return s->p.frame_bytes;
}

static void synth_free(synth *s) {
  lives_free(&s->lives);
  arena_free(&s->arena);
}

/* Attention's shape: Q, K, V (2 KiB), scores (8 KiB) read by the softmax
 * (8 KiB), then the output (2 KiB).  By hand, live at op 3: Q K V S = 14 KiB;
 * op 4: V S P = 18 KiB; op 5: V P O = 12 KiB; so 18 KiB.  Placing in
 * definition order leaves the softmax only holes of 4 KiB (22 KiB). */
static void test_attention_shape(void **state) {
  (void)state;
  const int64_t elems[] = {512, 512, 512, 2048, 2048, 512};
  const uint32_t def[] = {0, 1, 2, 3, 4, 5}, last[] = {3, 3, 5, 4, 5, 6};
  synth s;
  synth_init(&s, 6, elems, def, last, 6);
  assert_int_equal(synth_layout(&s, def, last), 18 * 1024);
  synth_free(&s);
}

/* A chain where each value is read by the next op only: two buffers of the
 * largest size suffice (each op's result may not share its operand's). */
static void test_chain(void **state) {
  (void)state;
  enum { N = 3000 }; /* more than the offline packing takes: the in-order layout */
  int64_t *elems = malloc(N * sizeof *elems);
  uint32_t *def = malloc(N * sizeof *def), *last = malloc(N * sizeof *last);
  assert_non_null(elems);
  assert_non_null(def);
  assert_non_null(last);
  for (uint32_t i = 0; i < N; i++) {
    elems[i] = 16;
    def[i] = i;
    last[i] = i + 1;
  }
  synth s;
  synth_init(&s, N, elems, def, last, N);
  assert_int_equal(synth_layout(&s, def, last), 2 * 64);
  synth_free(&s);
  free(elems);
  free(def);
  free(last);
}

/* Freed neighbours merge: after A (1 KiB) and B (1 KiB) die, D (2 KiB) fits
 * where they were, beside C, which is still live: 3 KiB, not 5.  Short-lived
 * 64-byte buffers after them make the plan too large for the offline packing. */
static void test_merge_holes(void **state) {
  (void)state;
  enum { N = 2100 };
  int64_t elems[N];
  uint32_t def[N], last[N];
  const int64_t e0[] = {256, 256, 256, 512};
  const uint32_t d0[] = {0, 0, 0, 2}, l0[] = {1, 1, 3, 3};
  for (uint32_t i = 0; i < N; i++) {
    elems[i] = i < 4 ? e0[i] : 16;
    def[i] = i < 4 ? d0[i] : 10 + i;
    last[i] = i < 4 ? l0[i] : 10 + i;
  }
  synth s;
  synth_init(&s, N, elems, def, last, N + 10);
  assert_int_equal(synth_layout(&s, def, last), 3 * 1024);
  synth_free(&s);
}

static void count_reshapes(shloc_executable *x, void *n) {
  *(uint32_t *)n = 0;
  for (uint32_t i = 0; i < x->main->n_ops; i++) *(uint32_t *)n += op_is(x->main->ops[i].op, OP_RESHAPE);
}

/* A reshape of an intermediate is a view: nothing runs for it, and a
 * scatter into the reshaped value while the view is still read must not
 * update the shared buffer in place. */
static void test_reshape_view(void **state) {
  (void)state;
  uint32_t n = 99;
  run_main_ok("func.func @main() {\n"
              "  %i = stablehlo.iota dim = 0 : tensor<8xf32>\n"
              "  %x = stablehlo.optimization_barrier %i : tensor<8xf32>\n"
              "  %r = stablehlo.reshape %x : (tensor<8xf32>) -> tensor<2x4xf32>\n"
              "  %idx = stablehlo.constant dense<[[1]]> : tensor<1x1xi32>\n"
              "  %u = stablehlo.constant dense<[100.0]> : tensor<1xf32>\n"
              "  %s = \"stablehlo.scatter\"(%x, %idx, %u) ({\n"
              "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
              "    stablehlo.return %b : tensor<f32>\n"
              "  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], "
              "scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : "
              "(tensor<8xf32>, tensor<1x1xi32>, tensor<1xf32>) -> tensor<8xf32>\n"
              "  %rr = stablehlo.reshape %r : (tensor<2x4xf32>) -> tensor<4x2xf32>\n"
              "  %want_s = stablehlo.constant dense<[0.0, 100.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<8xf32>\n"
              "  %want_r = stablehlo.constant dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0]]> : "
              "tensor<4x2xf32>\n"
              "  stablehlo.custom_call @check.expect_eq(%s, %want_s) {has_side_effect = true} : "
              "(tensor<8xf32>, tensor<8xf32>) -> ()\n"
              "  stablehlo.custom_call @check.expect_eq(%rr, %want_r) {has_side_effect = true} : "
              "(tensor<4x2xf32>, tensor<4x2xf32>) -> ()\n"
              "  return\n"
              "}\n",
              2, count_reshapes, &n);
  assert_int_equal(n, 0);
}

/* The scatter's updates are a view of its operand, which dies at the
 * scatter: updating the operand's buffer in place would overwrite updates
 * not yet read (either order of the two rows gives a wrong answer). */
static void test_scatter_reads_view(void **state) {
  (void)state;
  run_main_ok("func.func @main() {\n"
              "  %i = stablehlo.iota dim = 0 : tensor<4xf32>\n"
              "  %x = stablehlo.optimization_barrier %i : tensor<4xf32>\n"
              "  %u = stablehlo.reshape %x : (tensor<4xf32>) -> tensor<2x2xf32>\n"
              "  %idx = stablehlo.constant dense<[[2], [0]]> : tensor<2x1xi32>\n"
              "  %s = \"stablehlo.scatter\"(%x, %idx, %u) ({\n"
              "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
              "    stablehlo.return %b : tensor<f32>\n"
              "  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], "
              "scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = true} : "
              "(tensor<4xf32>, tensor<2x1xi32>, tensor<2x2xf32>) -> tensor<4xf32>\n"
              "  %want = stablehlo.constant dense<[2.0, 3.0, 0.0, 1.0]> : tensor<4xf32>\n"
              "  stablehlo.custom_call @check.expect_eq(%s, %want) {has_side_effect = true} : "
              "(tensor<4xf32>, tensor<4xf32>) -> ()\n"
              "  return\n"
              "}\n",
              2, NULL, NULL);
}

static void main_frame_bytes(shloc_executable *x, void *n) { *(size_t *)n = x->main->frame_bytes; }

/* A fused f32 binary op (a maximum with the broadcast of a scalar, one
 * group) writes its result over an operand that dies there: %x and %r share
 * one 4 KiB buffer, where separate buffers need 8 KiB at the maximum.  An
 * operand read again later keeps its buffer (%y: its values are checked
 * after the maximum), and so does the operand of a kernel that may read
 * after writing (exponential).  Expected values by hand: max(1, 2048), and
 * i + 1 for %y (iota i). */
static void test_binary_in_place(void **state) {
  (void)state;
  size_t bytes = 0;
#define V "tensor<1024xf32>"
  run_main_ok("func.func @main() {\n"
              "  %k = stablehlo.constant dense<1.0> : " V "\n"
              "  %x = stablehlo.reverse %k, dims = [0] : " V "\n"
              "  %c0 = stablehlo.constant dense<2048.0> : tensor<f32>\n"
              "  %cb = stablehlo.broadcast_in_dim %c0, dims = [] : (tensor<f32>) -> " V "\n"
              "  %r = stablehlo.maximum %x, %cb : " V "\n"
              "  %want = stablehlo.constant dense<2048.0> : " V "\n"
              "  stablehlo.custom_call @check.expect_eq(%r, %want) {has_side_effect = true} : (" V ", " V ") -> ()\n"
              "  return\n"
              "}\n",
              2, main_frame_bytes, &bytes);
  assert_int_equal(bytes, 4096);
  run_main_ok("func.func @main() {\n"
              "  %i = stablehlo.iota dim = 0 : " V "\n"
              "  %one = stablehlo.constant dense<1.0> : " V "\n"
              "  %y0 = stablehlo.add %i, %one : " V "\n"
              "  %y = stablehlo.optimization_barrier %y0 : " V "\n"
              "  %c0 = stablehlo.constant dense<512.0> : tensor<f32>\n"
              "  %c = stablehlo.broadcast_in_dim %c0, dims = [] : (tensor<f32>) -> " V "\n"
              "  %s = stablehlo.maximum %y, %c : " V "\n"
              "  %z = stablehlo.subtract %s, %s : " V "\n"
              "  %e = stablehlo.exponential %z : " V "\n"
              "  %e2 = stablehlo.add %e, %e : " V "\n"
              "  %w = stablehlo.subtract %y, %i : " V "\n"
              "  %two = stablehlo.constant dense<2.0> : " V "\n"
              "  stablehlo.custom_call @check.expect_eq(%w, %one) {has_side_effect = true} : (" V ", " V ") -> ()\n"
              "  stablehlo.custom_call @check.expect_eq(%e2, %two) {has_side_effect = true} : (" V ", " V ") -> ()\n"
              "  return\n"
              "}\n",
              2, NULL, NULL);
#undef V
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_attention_shape),
      cmocka_unit_test(test_chain),
      cmocka_unit_test(test_merge_holes),
      cmocka_unit_test(test_reshape_view),
      cmocka_unit_test(test_scatter_reads_view),
      cmocka_unit_test(test_binary_in_place),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
