/* Elementwise fusion (src/exec/fuse.c, fuse_run.c): each program computes
 * the same values twice, fused and with optimization_barrier after every op
 * (so that each op runs on its own), and checks that they agree bit for bit
 * (every fused node rounds to its element type, and folds keep their
 * order); sizes cover chunked rows, several rows per chunk, threads and
 * tails.  A few results are also checked against known values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/fuse.h"
#include "harness.h"

static void count_fused(shloc_executable *x, void *n_fused) {
  *(uint32_t *)n_fused = 0;
  for (uint32_t i = 0; i < x->main->n_ops; i++) *(uint32_t *)n_fused += x->main->ops[i].kernel == &kernel_fused;
}

/* Parses, verifies, plans and runs @main of `text` (no arguments) twice, the
 * second run reusing frames and scratch; the number of fused ops planned in
 * @main goes to *n_fused. */
static void run_fused(const char *text, uint32_t *n_fused) {
  run_main_ok(text, 2, n_fused ? count_fused : NULL, n_fused);
}

#define SAME(a, b, ty) \
  "  stablehlo.custom_call @check.expect_eq(" a ", " b ") {has_side_effect = true} : (" ty ", " ty ") -> ()\n"
#define BAR(v, x, ty) "  " v " = stablehlo.optimization_barrier " x " : " ty "\n"
#define SUM(v, x, init, dims, ity, oty) \
  "  " v " = stablehlo.reduce(" x " init: " init ") applies stablehlo.add across dimensions = " dims " : (" ity ", tensor<f32>) -> " oty "\n"
#define MAX(v, x, init, dims, ity, oty) \
  "  " v " = stablehlo.reduce(" x " init: " init ") applies stablehlo.maximum across dimensions = " dims " : (" ity ", tensor<f32>) -> " oty "\n"

/* tanh(x * 1.5 + 0.25) * logistic(x), logistic spelled as JAX lowers it. */
static void test_chain(void **state) {
  (void)state;
#define T "tensor<70001xf32>"
  uint32_t n_fused;
  run_fused("func.func @main() {\n"
            "  %i = stablehlo.iota dim = 0 : " T "\n"
            "  %k = stablehlo.constant dense<-2.5e-04> : tensor<f32>\n"
            "  %kb = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<f32>) -> " T "\n"
            "  %x0 = stablehlo.multiply %i, %kb : " T "\n"
            BAR("%x", "%x0", T)
            "  %c15 = stablehlo.constant dense<1.5> : tensor<f32>\n"
            "  %c25 = stablehlo.constant dense<0.25> : tensor<f32>\n"
            "  %c1 = stablehlo.constant dense<1.0> : tensor<f32>\n"
            "  %b15 = stablehlo.broadcast_in_dim %c15, dims = [] : (tensor<f32>) -> " T "\n"
            "  %b25 = stablehlo.broadcast_in_dim %c25, dims = [] : (tensor<f32>) -> " T "\n"
            "  %b1 = stablehlo.broadcast_in_dim %c1, dims = [] : (tensor<f32>) -> " T "\n"
            /* fused */
            "  %1 = stablehlo.multiply %x, %b15 : " T "\n"
            "  %2 = stablehlo.add %1, %b25 : " T "\n"
            "  %3 = stablehlo.tanh %2 : " T "\n"
            "  %4 = stablehlo.negate %x : " T "\n"
            "  %5 = stablehlo.exponential %4 : " T "\n"
            "  %6 = stablehlo.add %b1, %5 : " T "\n"
            "  %7 = stablehlo.divide %b1, %6 : " T "\n"
            "  %8 = stablehlo.multiply %3, %7 : " T "\n"
            /* one op at a time */
            "  %u1 = stablehlo.multiply %x, %b15 : " T "\n" BAR("%v1", "%u1", T)
            "  %u2 = stablehlo.add %v1, %b25 : " T "\n" BAR("%v2", "%u2", T)
            "  %u3 = stablehlo.tanh %v2 : " T "\n" BAR("%v3", "%u3", T)
            "  %u4 = stablehlo.negate %x : " T "\n" BAR("%v4", "%u4", T)
            "  %u5 = stablehlo.exponential %v4 : " T "\n" BAR("%v5", "%u5", T)
            "  %u6 = stablehlo.add %b1, %v5 : " T "\n" BAR("%v6", "%u6", T)
            "  %u7 = stablehlo.divide %b1, %v6 : " T "\n" BAR("%v7", "%u7", T)
            "  %u8 = stablehlo.multiply %v3, %v7 : " T "\n"
            SAME("%8", "%u8", T)
            "  return\n"
            "}\n",
            &n_fused);
  /* x; the chain, which shares a pass over x with the unfused copy's first
   * multiply (sibling fusion); the copy's other seven ops */
  assert_int_equal(n_fused, 9);
#undef T
}

/* Row sum, row max and softmax of one matrix in one fused op (three passes
 * per row), for long rows (chunks within a row) and short ones (several
 * rows per chunk). */
#define SOFTMAX(R, C)                                                                          \
  "func.func @main() {\n"                                                                     \
  "  %i0 = stablehlo.iota dim = 0 : tensor<" R "x" C "xf32>\n"                               \
  "  %i1 = stablehlo.iota dim = 1 : tensor<" R "x" C "xf32>\n"                               \
  "  %s0 = stablehlo.sine %i0 : tensor<" R "x" C "xf32>\n"                                   \
  "  %s1 = stablehlo.cosine %i1 : tensor<" R "x" C "xf32>\n"                                 \
  "  %x0 = stablehlo.multiply %s0, %s1 : tensor<" R "x" C "xf32>\n"                          \
  BAR("%x", "%x0", "tensor<" R "x" C "xf32>")                                                 \
  "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"                                      \
  "  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"                            \
  SUM("%s", "%x", "%z", "[1]", "tensor<" R "x" C "xf32>", "tensor<" R "xf32>")                \
  MAX("%m", "%x", "%ninf", "[1]", "tensor<" R "x" C "xf32>", "tensor<" R "xf32>")             \
  "  %m1 = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<" R "xf32>) -> tensor<" R "x1xf32>\n" \
  "  %m2 = stablehlo.broadcast_in_dim %m1, dims = [0, 1] : (tensor<" R "x1xf32>) -> tensor<" R "x" C "xf32>\n" \
  "  %d = stablehlo.subtract %x, %m2 : tensor<" R "x" C "xf32>\n"                           \
  "  %e = stablehlo.exponential %d : tensor<" R "x" C "xf32>\n"                             \
  SUM("%es", "%e", "%z", "[1]", "tensor<" R "x" C "xf32>", "tensor<" R "xf32>")              \
  "  %es1 = stablehlo.broadcast_in_dim %es, dims = [0] : (tensor<" R "xf32>) -> tensor<" R "x1xf32>\n" \
  "  %es2 = stablehlo.broadcast_in_dim %es1, dims = [0, 1] : (tensor<" R "x1xf32>) -> tensor<" R "x" C "xf32>\n" \
  "  %p = stablehlo.divide %e, %es2 : tensor<" R "x" C "xf32>\n"                            \
  SUM("%us", "%x", "%z", "[1]", "tensor<" R "x" C "xf32>", "tensor<" R "xf32>")              \
  BAR("%vs", "%us", "tensor<" R "xf32>")                                                      \
  MAX("%um", "%x", "%ninf", "[1]", "tensor<" R "x" C "xf32>", "tensor<" R "xf32>")           \
  BAR("%vm", "%um", "tensor<" R "xf32>")                                                      \
  "  %um2 = stablehlo.broadcast_in_dim %vm, dims = [0] : (tensor<" R "xf32>) -> tensor<" R "x" C "xf32>\n" \
  BAR("%vm2", "%um2", "tensor<" R "x" C "xf32>")                                              \
  "  %ud = stablehlo.subtract %x, %vm2 : tensor<" R "x" C "xf32>\n"                         \
  BAR("%vd", "%ud", "tensor<" R "x" C "xf32>")                                                \
  "  %ue = stablehlo.exponential %vd : tensor<" R "x" C "xf32>\n"                           \
  BAR("%ve", "%ue", "tensor<" R "x" C "xf32>")                                                \
  SUM("%ues", "%ve", "%z", "[1]", "tensor<" R "x" C "xf32>", "tensor<" R "xf32>")            \
  BAR("%ves", "%ues", "tensor<" R "xf32>")                                                    \
  "  %ues2 = stablehlo.broadcast_in_dim %ves, dims = [0] : (tensor<" R "xf32>) -> tensor<" R "x" C "xf32>\n" \
  BAR("%ves2", "%ues2", "tensor<" R "x" C "xf32>")                                            \
  "  %up = stablehlo.divide %ve, %ves2 : tensor<" R "x" C "xf32>\n"                         \
  SAME("%s", "%vs", "tensor<" R "xf32>") SAME("%m", "%vm", "tensor<" R "xf32>")               \
  SAME("%p", "%up", "tensor<" R "x" C "xf32>")                                                \
  "  return\n"                                                                                 \
  "}\n"

static void test_softmax(void **state) {
  (void)state;
  uint32_t n_fused;
  run_fused(SOFTMAX("37", "1500"), &n_fused);
  /* x; the sums, max and softmax in one op, which also takes the unfused
   * copy's first row sum (it reads x too); the copy's other five ops */
  assert_int_equal(n_fused, 7);
  run_fused(SOFTMAX("50", "10"), NULL);
  run_fused(SOFTMAX("1", "3000"), NULL);
}

/* Known values: softmax of [[1, 2, 3], [0, 0, 0]] and its row sums. */
static void test_softmax_values(void **state) {
  (void)state;
  run_fused("func.func @main() {\n"
            "  %x = stablehlo.constant dense<[[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]> : tensor<2x3xf32>\n"
            "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
            "  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
            MAX("%m", "%x", "%ninf", "[1]", "tensor<2x3xf32>", "tensor<2xf32>")
            "  %m2 = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<2xf32>) -> tensor<2x3xf32>\n"
            "  %d = stablehlo.subtract %x, %m2 : tensor<2x3xf32>\n"
            "  %e = stablehlo.exponential %d : tensor<2x3xf32>\n"
            SUM("%es", "%e", "%z", "[1]", "tensor<2x3xf32>", "tensor<2xf32>")
            "  %es2 = stablehlo.broadcast_in_dim %es, dims = [0] : (tensor<2xf32>) -> tensor<2x3xf32>\n"
            "  %p = stablehlo.divide %e, %es2 : tensor<2x3xf32>\n"
            "  \"check.expect_almost_eq_const\"(%p) {value = dense<[[0.09003057, 0.24472847, 0.66524096], "
            "[0.33333334, 0.33333334, 0.33333334]]> : tensor<2x3xf32>} : (tensor<2x3xf32>) -> ()\n"
            "  \"check.expect_almost_eq_const\"(%m) {value = dense<[3.0, 0.0]> : tensor<2xf32>} : (tensor<2xf32>) -> ()\n"
            "  return\n"
            "}\n",
            NULL);
}

/* A full reduction split between threads: the sum of 0 .. 99999 in f64 is exact. */
static void test_full_reduction(void **state) {
  (void)state;
  run_fused("func.func @main() {\n"
            "  %i = stablehlo.iota dim = 0 : tensor<100000xf64>\n"
            "  %z = stablehlo.constant dense<0.0> : tensor<f64>\n"
            "  %s = stablehlo.reduce(%i init: %z) applies stablehlo.add across dimensions = [0] : "
            "(tensor<100000xf64>, tensor<f64>) -> tensor<f64>\n"
            "  \"check.expect_eq_const\"(%s) {value = dense<4999950000.0> : tensor<f64>} : (tensor<f64>) -> ()\n"
            "  %m = stablehlo.reduce(%i init: %z) applies stablehlo.maximum across dimensions = [0] : "
            "(tensor<100000xf64>, tensor<f64>) -> tensor<f64>\n"
            "  \"check.expect_eq_const\"(%m) {value = dense<99999.0> : tensor<f64>} : (tensor<f64>) -> ()\n"
            "  return\n"
            "}\n",
            NULL);
}

/* Broadcasts along either dimension (a bias row, a per-row value), a
 * reshape between members, and a member that is also read outside the group. */
static void test_broadcasts(void **state) {
  (void)state;
#define M "tensor<300x70xf32>"
  run_fused("func.func @main() {\n"
            "  %i0 = stablehlo.iota dim = 0 : " M "\n"
            "  %i1 = stablehlo.iota dim = 1 : " M "\n"
            "  %x0 = stablehlo.subtract %i0, %i1 : " M "\n"
            BAR("%x", "%x0", M)
            "  %b = stablehlo.iota dim = 0 : tensor<70xf32>\n"
            "  %v0 = stablehlo.iota dim = 0 : tensor<300xf32>\n"
            BAR("%v", "%v0", "tensor<300xf32>")
            "  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<70xf32>) -> " M "\n"
            "  %vb = stablehlo.broadcast_in_dim %v, dims = [0] : (tensor<300xf32>) -> " M "\n"
            "  %1 = stablehlo.multiply %x, %bb : " M "\n"
            "  %2 = stablehlo.subtract %1, %vb : " M "\n"
            "  %3 = stablehlo.reshape %2 : (" M ") -> tensor<21000xf32>\n"
            "  %4 = stablehlo.abs %3 : tensor<21000xf32>\n"
            "  %5 = stablehlo.sqrt %4 : tensor<21000xf32>\n"
            BAR("%w", "%vb", M) /* %vb is also materialised */
            "  %u1 = stablehlo.multiply %x, %bb : " M "\n" BAR("%w1", "%u1", M)
            "  %u2 = stablehlo.subtract %w1, %w : " M "\n" BAR("%w2", "%u2", M)
            "  %u3 = stablehlo.reshape %w2 : (" M ") -> tensor<21000xf32>\n" BAR("%w3", "%u3", "tensor<21000xf32>")
            "  %u4 = stablehlo.abs %w3 : tensor<21000xf32>\n" BAR("%w4", "%u4", "tensor<21000xf32>")
            "  %u5 = stablehlo.sqrt %w4 : tensor<21000xf32>\n"
            SAME("%5", "%u5", "tensor<21000xf32>")
            /* %e is fused and returned through a barrier */
            "  %e = stablehlo.exponential %x : " M "\n"
            "  %f = stablehlo.multiply %e, %e : " M "\n"
            BAR("%eb", "%e", M)
            "  %ue = stablehlo.exponential %x : " M "\n" BAR("%ueb", "%ue", M)
            "  %uf = stablehlo.multiply %ueb, %ueb : " M "\n"
            SAME("%f", "%uf", M) SAME("%eb", "%ueb", M)
            "  return\n"
            "}\n",
            NULL);
#undef M
}

/* Integers and booleans: compare, select with full and scalar predicates, clamp with scalar bounds. */
static void test_select_clamp(void **state) {
  (void)state;
#define V "tensor<2000xi32>"
  run_fused("func.func @main() {\n"
            "  %x0 = stablehlo.iota dim = 0 : " V "\n"
            BAR("%x", "%x0", V)
            "  %c = stablehlo.constant dense<1000> : tensor<i32>\n"
            "  %z = stablehlo.constant dense<0> : tensor<i32>\n"
            "  %lo = stablehlo.constant dense<100> : tensor<i32>\n"
            "  %hi = stablehlo.constant dense<1500> : tensor<i32>\n"
            "  %t = stablehlo.constant dense<true> : tensor<i1>\n"
            "  %cb = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> " V "\n"
            "  %zb = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<i32>) -> " V "\n"
            "  %p = stablehlo.compare  GT, %x, %cb,  SIGNED : (" V ", " V ") -> tensor<2000xi1>\n"
            "  %y = stablehlo.select %p, %x, %zb : tensor<2000xi1>, " V "\n"
            "  %w = stablehlo.clamp %lo, %y, %hi : (tensor<i32>, " V ", tensor<i32>) -> " V "\n"
            "  %q = stablehlo.select %t, %w, %x : tensor<i1>, " V "\n"
            "  %up = stablehlo.compare  GT, %x, %cb,  SIGNED : (" V ", " V ") -> tensor<2000xi1>\n"
            BAR("%vp", "%up", "tensor<2000xi1>")
            "  %uy = stablehlo.select %vp, %x, %zb : tensor<2000xi1>, " V "\n" BAR("%vy", "%uy", V)
            "  %uw = stablehlo.clamp %lo, %vy, %hi : (tensor<i32>, " V ", tensor<i32>) -> " V "\n" BAR("%vw", "%uw", V)
            SAME("%q", "%vw", V)
            "  %s = stablehlo.slice %q [998:1003] : (" V ") -> tensor<5xi32>\n"
            "  \"check.expect_eq_const\"(%s) {value = dense<[100, 100, 100, 1001, 1002]> : tensor<5xi32>} : (tensor<5xi32>) -> ()\n"
            "  return\n"
            "}\n",
            NULL);
#undef V
}

/* A fused while body (the loop benchmark's shape), with a value captured from outside the loop. */
static void test_loop_body(void **state) {
  (void)state;
#define V "tensor<1024xf32>"
#define LOOP(NAME, BODY)                                                                              \
  "  %" NAME ":2 = stablehlo.while(%it = %c0, %s = %x) : tensor<i32>, " V "\n"                         \
  "   cond {\n"                                                                                        \
  "    %n = stablehlo.constant dense<50> : tensor<i32>\n"                                             \
  "    %lt = stablehlo.compare  LT, %it, %n,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"    \
  "    stablehlo.return %lt : tensor<i1>\n"                                                           \
  "  } do {\n"                                                                                         \
  "    %one = stablehlo.constant dense<1> : tensor<i32>\n"                                            \
  "    %it1 = stablehlo.add %it, %one : tensor<i32>\n" BODY                                           \
  "    stablehlo.return %it1, %r : tensor<i32>, " V "\n"                                              \
  "  }\n"
  run_fused("func.func @main() {\n"
            "  %c0 = stablehlo.constant dense<0> : tensor<i32>\n"
            "  %x0 = stablehlo.iota dim = 0 : " V "\n"
            "  %k = stablehlo.constant dense<0.01> : tensor<f32>\n"
            "  %kb = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<f32>) -> " V "\n"
            "  %x = stablehlo.multiply %x0, %kb : " V "\n"
            LOOP("a", "    %a1 = stablehlo.multiply %s, %kb : " V "\n"
                      "    %a2 = stablehlo.sine %s : " V "\n"
                      "    %r = stablehlo.add %a1, %a2 : " V "\n")
            LOOP("b", "    %b1 = stablehlo.multiply %s, %kb : " V "\n"
                      "    %c1 = stablehlo.optimization_barrier %b1 : " V "\n"
                      "    %b2 = stablehlo.sine %s : " V "\n"
                      "    %c2 = stablehlo.optimization_barrier %b2 : " V "\n"
                      "    %r = stablehlo.add %c1, %c2 : " V "\n")
            SAME("%a#1", "%b#1", V)
            "  return\n"
            "}\n",
            NULL);
#undef LOOP
#undef V
}

static void count_gathers(shloc_executable *x, void *n) {
  *(uint32_t *)n = 0;
  for (uint32_t i = 0; i < x->main->n_ops; i++) *(uint32_t *)n += x->main->ops[i].kernel == &kernel_gather;
}

#define GATHER_ROWS(v, tab, idx, tt, it, rt, ivd)                                                                  \
  "  " v " = \"stablehlo.gather\"(" tab ", " idx ") <{dimension_numbers = #stablehlo.gather<offset_dims = [" \
  LAST "], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = " ivd ">, slice_sizes = array<i64: 1, " \
  COLS ">}> : (" tt ", " it ") -> " rt "\n"

/* A row gather (jnp.take along axis 0) read only by fused ops becomes a
 * leaf of their group: rows of 70 elements that cross chunks, indices below
 * 0 and beyond the table (clamped), read through a broadcast adding the
 * index vector dimension; f64 rows picked by a 2-D i64 index tensor with an
 * implicit index vector dimension.  Fused and gathered-then-computed agree
 * bit for bit; a few rows are checked against the table's values. */
static void test_row_gather(void **state) {
  (void)state;
  uint32_t n_gather;
#define TT "tensor<500x70xf32>"
#define RT "tensor<3000x70xf32>"
#define LAST "1"
#define COLS "70"
  run_main_ok("func.func @main() {\n"
              "  %r0 = stablehlo.iota dim = 0 : " TT "\n"
              "  %c0 = stablehlo.iota dim = 1 : " TT "\n"
              "  %k = stablehlo.constant dense<1000.0> : " TT "\n"
              "  %rk = stablehlo.multiply %r0, %k : " TT "\n"
              "  %t0 = stablehlo.add %rk, %c0 : " TT "\n"
              BAR("%t", "%t0", TT)
              "  %n = stablehlo.iota dim = 0 : tensor<3000xi32>\n"
              "  %p = stablehlo.constant dense<37> : tensor<3000xi32>\n"
              "  %q = stablehlo.constant dense<520> : tensor<3000xi32>\n"
              "  %ten = stablehlo.constant dense<10> : tensor<3000xi32>\n"
              "  %np = stablehlo.multiply %n, %p : tensor<3000xi32>\n"
              "  %nq = stablehlo.remainder %np, %q : tensor<3000xi32>\n"
              "  %i0 = stablehlo.subtract %nq, %ten : tensor<3000xi32>\n"
              BAR("%i", "%i0", "tensor<3000xi32>")
              "  %ib = stablehlo.broadcast_in_dim %i, dims = [0] : (tensor<3000xi32>) -> tensor<3000x1xi32>\n"
              "  %zero = stablehlo.constant dense<0> : tensor<3000xi32>\n"
              "  %ok = stablehlo.compare GE, %i, %zero, SIGNED : (tensor<3000xi32>, tensor<3000xi32>) -> tensor<3000xi1>\n"
              "  %okb = stablehlo.broadcast_in_dim %ok, dims = [0] : (tensor<3000xi1>) -> tensor<3000x70xi1>\n"
              "  %nan = stablehlo.constant dense<0x7FC00000> : tensor<f32>\n"
              "  %nanb = stablehlo.broadcast_in_dim %nan, dims = [] : (tensor<f32>) -> " RT "\n"
              /* fused */
              GATHER_ROWS("%g", "%t", "%ib", TT, "tensor<3000x1xi32>", RT, "1")
              "  %s = stablehlo.select %okb, %g, %nanb : tensor<3000x70xi1>, " RT "\n"
              "  %two = stablehlo.constant dense<2.0> : tensor<f32>\n"
              "  %twob = stablehlo.broadcast_in_dim %two, dims = [] : (tensor<f32>) -> " RT "\n"
              "  %m = stablehlo.multiply %s, %twob : " RT "\n"
              /* gathered first */
              GATHER_ROWS("%ug", "%t", "%ib", TT, "tensor<3000x1xi32>", RT, "1")
              BAR("%vg", "%ug", RT)
              "  %us = stablehlo.select %okb, %vg, %nanb : tensor<3000x70xi1>, " RT "\n" BAR("%vs", "%us", RT)
              "  %um = stablehlo.multiply %vs, %twob : " RT "\n"
              SAME("%m", "%um", RT)
              /* rows 1-2: indices 27 and 64; row 14: index 508, clamped to 499 */
              "  %e = stablehlo.slice %m [1:3, 68:70] : (" RT ") -> tensor<2x2xf32>\n"
              "  \"check.expect_eq_const\"(%e) {value = dense<[[54136.0, 54138.0], [128136.0, 128138.0]]> : tensor<2x2xf32>} : "
              "(tensor<2x2xf32>) -> ()\n"
              "  %h = stablehlo.slice %m [14:15, 0:2] : (" RT ") -> tensor<1x2xf32>\n"
              "  \"check.expect_eq_const\"(%h) {value = dense<[[998000.0, 998002.0]]> : tensor<1x2xf32>} : (tensor<1x2xf32>) -> ()\n"
              "  return\n"
              "}\n",
              2, count_gathers, &n_gather);
  /* only the copy before the barrier is still a gather */
  assert_int_equal(n_gather, 1);
#undef TT
#undef RT
#undef LAST
#undef COLS
#define TT "tensor<40x8xf64>"
#define RT "tensor<6x5x8xf64>"
#define LAST "2"
#define COLS "8"
  run_main_ok("func.func @main() {\n"
              "  %r0 = stablehlo.iota dim = 0 : " TT "\n"
              "  %c0 = stablehlo.iota dim = 1 : " TT "\n"
              "  %k = stablehlo.constant dense<0.125> : " TT "\n"
              "  %ck = stablehlo.multiply %c0, %k : " TT "\n"
              "  %t0 = stablehlo.add %r0, %ck : " TT "\n"
              BAR("%t", "%t0", TT)
              "  %i0 = stablehlo.iota dim = 0 : tensor<30xi64>\n"
              "  %p = stablehlo.constant dense<7> : tensor<30xi64>\n"
              "  %f = stablehlo.constant dense<-60> : tensor<30xi64>\n"
              "  %ip = stablehlo.multiply %i0, %p : tensor<30xi64>\n"
              "  %i1 = stablehlo.add %ip, %f : tensor<30xi64>\n"
              "  %i2 = stablehlo.reshape %i1 : (tensor<30xi64>) -> tensor<6x5xi64>\n"
              BAR("%i", "%i2", "tensor<6x5xi64>")
              GATHER_ROWS("%g", "%t", "%i", TT, "tensor<6x5xi64>", RT, "2")
              "  %a = stablehlo.negate %g : " RT "\n"
              "  %b = stablehlo.multiply %a, %g : " RT "\n"
              GATHER_ROWS("%ug", "%t", "%i", TT, "tensor<6x5xi64>", RT, "2")
              BAR("%vg", "%ug", RT)
              "  %ua = stablehlo.negate %vg : " RT "\n" BAR("%va", "%ua", RT)
              "  %ub = stablehlo.multiply %va, %vg : " RT "\n"
              SAME("%b", "%ub", RT)
              /* index 0 is -60 -> row 0; index 29 is 143 -> row 39; index 12 is 24 */
              "  %e = stablehlo.reshape %b : (" RT ") -> tensor<240xf64>\n"
              "  %e1 = stablehlo.slice %e [1:2] : (tensor<240xf64>) -> tensor<1xf64>\n"
              "  \"check.expect_eq_const\"(%e1) {value = dense<[-0.015625]> : tensor<1xf64>} : (tensor<1xf64>) -> ()\n"
              "  %e2 = stablehlo.slice %e [232:234] : (tensor<240xf64>) -> tensor<2xf64>\n"
              "  \"check.expect_eq_const\"(%e2) {value = dense<[-1521.0, -1530.765625]> : tensor<2xf64>} : (tensor<2xf64>) -> ()\n"
              "  %e3 = stablehlo.slice %e [96:97] : (tensor<240xf64>) -> tensor<1xf64>\n"
              "  \"check.expect_eq_const\"(%e3) {value = dense<[-576.0]> : tensor<1xf64>} : (tensor<1xf64>) -> ()\n"
              "  return\n"
              "}\n",
              2, count_gathers, &n_gather);
  assert_int_equal(n_gather, 1);
#undef TT
#undef RT
#undef LAST
#undef COLS
}

static void count_broadcasts(shloc_executable *x, void *n) {
  *(uint32_t *)n = 0;
  for (uint32_t i = 0; i < x->main->n_ops; i++) *(uint32_t *)n += op_is(x->main->ops[i].op, OP_BROADCAST_IN_DIM);
}

/* scatter(OPERAND, %i, UPDATES) of 3000 windows of 2 x 64 into 1000 x 64 rows, body BODY */
#define SCATTER_2ROWS(name, operand, updates, body)                                                              \
  "  " name " = \"stablehlo.scatter\"(" operand ", %i, " updates ") <{scatter_dimension_numbers = #stablehlo.scatter<" \
  "update_window_dims = [1, 2], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({\n"                    \
  "  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n" body "  }) : (tensor<1000x64xf32>, tensor<3000x1xi32>, "              \
  "tensor<3000x2x64xf32>) -> tensor<1000x64xf32>\n"
#define ADD_BODY "    %s = stablehlo.add %x, %y : tensor<f32>\n    stablehlo.return %s : tensor<f32>\n"

/* Broadcasts of one element read only as a scatter's input or updates are
 * not materialised (the scatter takes the element; scatter.c fills rows just
 * before their first update): the single-op path, the region path, a
 * replacing scatter and broadcast updates into a full input all give the
 * bits of the same scatters on materialised broadcasts; the sum of the add
 * comes from a hand count. */
static void test_scatter_scalars(void **state) {
  (void)state;
  uint32_t n_bcast;
#define OP "tensor<1000x64xf32>"
#define UP "tensor<3000x2x64xf32>"
  run_main_ok("func.func @main() {\n"
              "  %z = stablehlo.constant dense<0.25> : tensor<f32>\n"
              "  %one = stablehlo.constant dense<1.5> : tensor<f32>\n"
              "  %a = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> " OP "\n"
              "  %u = stablehlo.broadcast_in_dim %one, dims = [] : (tensor<f32>) -> " UP "\n"
              "  %a2 = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> " OP "\n"
              "  %u2 = stablehlo.broadcast_in_dim %one, dims = [] : (tensor<f32>) -> " UP "\n"
              BAR("%am", "%a2", OP) BAR("%um", "%u2", UP)
              /* starts 7919 n mod 1003 - 2: -2 and 1000 three times each (no
               * row lands), -1 and 999 three times each (one row lands) */
              "  %n = stablehlo.iota dim = 0 : tensor<3000x1xi32>\n"
              "  %p = stablehlo.constant dense<7919> : tensor<3000x1xi32>\n"
              "  %m = stablehlo.constant dense<1003> : tensor<3000x1xi32>\n"
              "  %two = stablehlo.constant dense<2> : tensor<3000x1xi32>\n"
              "  %np = stablehlo.multiply %n, %p : tensor<3000x1xi32>\n"
              "  %r = stablehlo.remainder %np, %m : tensor<3000x1xi32>\n"
              "  %i = stablehlo.subtract %r, %two : tensor<3000x1xi32>\n"
              SCATTER_2ROWS("%f1", "%a", "%u", ADD_BODY) SCATTER_2ROWS("%g1", "%am", "%um", ADD_BODY)
              SAME("%f1", "%g1", OP)
              SCATTER_2ROWS("%f2", "%a", "%u", "    %s = stablehlo.add %x, %y : tensor<f32>\n    %t = stablehlo.negate %s : tensor<f32>\n"
                                              "    %v = stablehlo.negate %t : tensor<f32>\n    stablehlo.return %v : tensor<f32>\n")
              SAME("%f2", "%g1", OP)
              SCATTER_2ROWS("%f3", "%a", "%u", "    stablehlo.return %y : tensor<f32>\n")
              SCATTER_2ROWS("%g3", "%am", "%um", "    stablehlo.return %y : tensor<f32>\n")
              SAME("%f3", "%g3", OP)
              "  %c0 = stablehlo.iota dim = 0 : " OP "\n"
              BAR("%c", "%c0", OP)
              SCATTER_2ROWS("%f4", "%c", "%u", ADD_BODY) SCATTER_2ROWS("%g4", "%c", "%um", ADD_BODY)
              SAME("%f4", "%g4", OP)
              /* 64000 x 0.25 + (6000 - 12 - 6) rows x 64 x 1.5 */
              "  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n"
              "  %tot = stablehlo.reduce(%f1 init: %zero) applies stablehlo.add across dimensions = [0, 1] : "
              "(" OP ", tensor<f32>) -> tensor<f32>\n"
              "  \"check.expect_eq_const\"(%tot) {value = dense<590272.0> : tensor<f32>} : (tensor<f32>) -> ()\n"
              "  return\n"
              "}\n",
              2, count_broadcasts, &n_bcast);
  /* only the two the barriers read */
  assert_int_equal(n_bcast, 2);
#undef OP
#undef UP
}

/* exp over many chunks where every 16-lane vector mixes ordinary lanes with
 * lanes beyond |x| <= 87 (results that overflow or are subnormal, and a
 * NaN): fused and unfused agree, the ordinary lanes get the values they get
 * among ordinary lanes only, and the largest result is +inf. */
static void test_exp_range(void **state) {
  (void)state;
#define T "tensor<70001xf32>"
#define B "tensor<70001xi1>"
  uint32_t n_fused;
  run_fused("func.func @main() {\n"
            "  %i = stablehlo.iota dim = 0 : " T "\n"
            "  %c61 = stablehlo.constant dense<61.0> : " T "\n"
            "  %c3 = stablehlo.constant dense<3.0> : " T "\n"
            "  %c90 = stablehlo.constant dense<-90.0> : " T "\n"
            "  %c87 = stablehlo.constant dense<87.0> : " T "\n"
            "  %z = stablehlo.constant dense<0.0> : " T "\n"
            "  %r = stablehlo.remainder %i, %c61 : " T "\n"
            "  %s = stablehlo.multiply %r, %c3 : " T "\n"
            "  %x1 = stablehlo.add %s, %c90 : " T "\n"
            /* x = 3 (i mod 61) - 90, and NaN at i = 1000 */
            "  %k = stablehlo.constant dense<1000.0> : " T "\n"
            "  %at = stablehlo.compare EQ, %i, %k : (" T ", " T ") -> " B "\n"
            "  %nan0 = stablehlo.divide %z, %z : " T "\n"
            "  %x0 = stablehlo.select %at, %nan0, %x1 : " B ", " T "\n"
            BAR("%x", "%x0", T)
            "  %ax = stablehlo.abs %x : " T "\n"
            "  %ok0 = stablehlo.compare LE, %ax, %c87 : (" T ", " T ") -> " B "\n"
            BAR("%ok", "%ok0", B)
            "  %y0 = stablehlo.select %ok, %x, %z : " B ", " T "\n"
            BAR("%y", "%y0", T)
            /* fused */
            "  %e = stablehlo.exponential %x : " T "\n"
            "  %e1 = stablehlo.select %ok, %e, %z : " B ", " T "\n"
            "  %f = stablehlo.exponential %y : " T "\n"
            "  %f1 = stablehlo.select %ok, %f, %z : " B ", " T "\n"
            /* unfused */
            "  %u = stablehlo.exponential %x : " T "\n"
            BAR("%v", "%u", T)
            SAME("%e", "%v", T)
            SAME("%e1", "%f1", T)
            "  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
            "  %g = stablehlo.select %at, %z, %v : " B ", " T "\n"
            MAX("%m", "%g", "%ninf", "[0]", T, "tensor<f32>")
            "  \"check.expect_eq_const\"(%m) {value = dense<0x7F800000> : tensor<f32>} : (tensor<f32>) -> ()\n"
            "  return\n"
            "}\n",
            &n_fused);
  assert_true(n_fused >= 1);
#undef B
#undef T
}

/* Fused ops planned in @main, how many of them run as register programs,
 * and how many of those gather a broadcast operand. */
typedef struct {
  uint32_t fused, progs, gathers;
} prog_count;

static void count_progs(shloc_executable *x, void *arg) {
  prog_count *c = arg;
  *c = (prog_count){0, 0, 0};
  for (uint32_t i = 0; i < x->main->n_ops; i++) {
    if (x->main->ops[i].kernel != &kernel_fused) continue;
    const fused_params *fp = x->main->ops[i].params;
    c->fused++;
    c->progs += fp->prog.n_ins > 0;
    bool gathers = false;
    for (uint32_t a = 0; a < fp->n_src; a++) gathers |= fp->nodes[fp->src_node[a]].loc == LOC_FILL;
    c->gathers += fp->prog.n_ins > 0 && gathers;
  }
}

/* Appends printf-formatted text to a test program. */
typedef struct {
  char *buf;
  size_t len, cap;
} text_buf;

static void put(text_buf *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  assert_true(n >= 0);
  if (t->len + (size_t)n + 1 > t->cap) {
    t->cap = 2 * (t->len + (size_t)n + 1);
    t->buf = realloc(t->buf, t->cap);
    assert_non_null(t->buf);
  }
  va_start(ap, fmt);
  vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
  va_end(ap);
  t->len += (size_t)n;
}

/* The ops of test_prog_values, named with prefix p; each followed by a
 * barrier (its own op) when `apart`.  Operands: %x, %y (bit patterns of
 * every class), %z (ordinary values), %wb (a broadcast), scalars %b15, %b1. */
static void prog_ops(text_buf *t, const char *p, bool apart, const char *tf) {
  static const char *const ops[][4] = {
      {"a1", "multiply", "x", "b15"}, {"a2", "add", "@a1", "z"},      {"a3", "tanh", "@a2", NULL},
      {"a4", "negate", "x", NULL},    {"a5", "exponential", "@a4", NULL}, {"a6", "subtract", "b1", "@a5"},
      {"a7", "divide", "b1", "@a6"},  {"a8", "multiply", "@a3", "@a7"}, {"a9", "maximum", "@a8", "y"},
      {"a10", "minimum", "z", "@a9"}, {"a11", "abs", "@a10", NULL},     {"a12", "logistic", "y", NULL},
      {"a13", "divide", "@a12", "@a5"}, {"a14", "subtract", "@a13", "@a13"}, {"a15", "exponential", "y", NULL},
      {"a16", "add", "@a15", "@a14"}, {"a17", "maximum", "@a16", "@a11"}, {"a18", "multiply", "wb", "z"},
      {"a19", "chlo.square", "@a18", NULL}, {"a20", "minimum", "@a19", "@a17"}, {"a21", "divide", "@a20", "b15"},
  };
  for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
    const char *const *o = ops[k];
    const char *dialect = strchr(o[1], '.') ? "" : "stablehlo.";
    char a[32], b[32];
    snprintf(a, sizeof a, "%s%s", o[2][0] == '@' ? p : "", o[2] + (o[2][0] == '@'));
    if (o[3]) snprintf(b, sizeof b, "%s%s", o[3][0] == '@' ? p : "", o[3] + (o[3][0] == '@'));
    const char *v = apart ? "_" : "";
    if (o[3]) put(t, "  %%%s%s%s = %s%s %%%s, %%%s : %s\n", p, o[0], v, dialect, o[1], a, b, tf);
    else if (*dialect) put(t, "  %%%s%s%s = %s%s %%%s : %s\n", p, o[0], v, dialect, o[1], a, tf);
    else put(t, "  %%%s%s%s = %s %%%s : %s -> %s\n", p, o[0], v, o[1], a, tf, tf);
    if (apart) put(t, "  %%%s%s = stablehlo.optimization_barrier %%%s%s_ : %s\n", p, o[0], p, o[0], tf);
  }
}

/* check that %a and %b agree bit for bit (+0 and -0 differ), any NaN matching any NaN */
static void same_bits(text_buf *t, const char *a, const char *b, const char *tf, const char *ti, const char *tp) {
  const char *v[2] = {a, b};
  for (int k = 0; k < 2; k++) {
    put(t, "  %%n_%s = stablehlo.compare NE, %%%s, %%%s : (%s, %s) -> %s\n", v[k], v[k], v[k], tf, tf, tp);
    put(t, "  %%c_%s = stablehlo.select %%n_%s, %%qnan, %%%s : %s, %s\n", v[k], v[k], v[k], tp, tf);
    put(t, "  %%i_%s = stablehlo.bitcast_convert %%c_%s : (%s) -> %s\n", v[k], v[k], tf, ti);
  }
  put(t, "  stablehlo.custom_call @check.expect_eq(%%i_%s, %%i_%s) {has_side_effect = true} : (%s, %s) -> ()\n", a, b,
      ti, ti);
}

/* Every op a register program has, on inputs of every class (bit patterns
 * spread over all floats: NaNs, infinities, subnormals, huge values, and
 * ordinary ones), with scalars on either side, an operand used twice,
 * values read again later, intermediate values that are also results and
 * a broadcast operand: the fused group runs as a program, and agrees with
 * the ops run one at a time, for sizes with tails (not multiples of 16 or
 * 64, one element) and sizes split between threads. */
static void test_prog_values(void **state) {
  (void)state;
  static const int64_t sizes[] = {70001, 4099, 1000, 37, 1};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    int64_t n = sizes[s];
    char tf[64], ti[64], tp[64], tw[64];
    snprintf(tf, sizeof tf, "tensor<%lldxf32>", (long long)(7 * n));
    snprintf(ti, sizeof ti, "tensor<%lldxi32>", (long long)(7 * n));
    snprintf(tp, sizeof tp, "tensor<%lldxi1>", (long long)(7 * n));
    snprintf(tw, sizeof tw, "tensor<7x%lldxf32>", (long long)n);
    text_buf t = {0};
    put(&t, "func.func @main() {\n");
    put(&t, "  %%i = stablehlo.iota dim = 0 : %s\n", ti);
    put(&t, "  %%m1 = stablehlo.constant dense<-1640531535> : %s\n", ti);
    put(&t, "  %%m2 = stablehlo.constant dense<374761393> : %s\n", ti);
    put(&t, "  %%h1 = stablehlo.multiply %%i, %%m1 : %s\n  %%h2 = stablehlo.multiply %%i, %%m2 : %s\n", ti, ti);
    put(&t, "  %%x0 = stablehlo.bitcast_convert %%h1 : (%s) -> %s\n", ti, tf);
    put(&t, "  %%y0 = stablehlo.bitcast_convert %%h2 : (%s) -> %s\n", ti, tf);
    /* z = 3 (i mod 61) - 90: around the ends of exp's range */
    put(&t, "  %%fi = stablehlo.iota dim = 0 : %s\n", tf);
    put(&t, "  %%c61 = stablehlo.constant dense<61.0> : %s\n  %%c3 = stablehlo.constant dense<3.0> : %s\n", tf, tf);
    put(&t, "  %%c90 = stablehlo.constant dense<-90.0> : %s\n", tf);
    put(&t, "  %%r0 = stablehlo.remainder %%fi, %%c61 : %s\n  %%r1 = stablehlo.multiply %%r0, %%c3 : %s\n", tf, tf);
    put(&t, "  %%z0 = stablehlo.add %%r1, %%c90 : %s\n", tf);
    put(&t, "  %%w0 = stablehlo.iota dim = 0 : tensor<7xf32>\n");
    put(&t, "  %%x, %%y, %%z, %%w = stablehlo.optimization_barrier %%x0, %%y0, %%z0, %%w0 : %s, %s, %s, tensor<7xf32>\n",
        tf, tf, tf);
    put(&t, "  %%qnan = stablehlo.constant dense<0x7FC00000> : %s\n", tf);
    put(&t, "  %%s15 = stablehlo.constant dense<1.5> : tensor<f32>\n  %%s1 = stablehlo.constant dense<1.0> : tensor<f32>\n");
    put(&t, "  %%b15 = stablehlo.broadcast_in_dim %%s15, dims = [] : (tensor<f32>) -> %s\n", tf);
    put(&t, "  %%b1 = stablehlo.broadcast_in_dim %%s1, dims = [] : (tensor<f32>) -> %s\n", tf);
    put(&t, "  %%wb0 = stablehlo.broadcast_in_dim %%w, dims = [0] : (tensor<7xf32>) -> %s\n", tw);
    put(&t, "  %%wb = stablehlo.reshape %%wb0 : (%s) -> %s\n", tw, tf);
    prog_ops(&t, "", false, tf);
    prog_ops(&t, "u", true, tf);
    put(&t, "  %%f8, %%f17, %%f3, %%f21 = stablehlo.optimization_barrier %%a8, %%a17, %%a3, %%a21 : %s, %s, %s, %s\n", tf,
        tf, tf, tf);
    same_bits(&t, "f8", "ua8", tf, ti, tp);
    same_bits(&t, "f17", "ua17", tf, ti, tp);
    same_bits(&t, "f3", "ua3", tf, ti, tp);
    same_bits(&t, "f21", "ua21", tf, ti, tp);
    /* a two-dimensional group reading %w broadcast along its rows (gathered per chunk) */
    char ti2[64], tp2[64];
    snprintf(ti2, sizeof ti2, "tensor<7x%lldxi32>", (long long)n);
    snprintf(tp2, sizeof tp2, "tensor<7x%lldxi1>", (long long)n);
    put(&t, "  %%x2 = stablehlo.reshape %%x : (%s) -> %s\n", tf, tw);
    put(&t, "  %%qnan2 = stablehlo.constant dense<0x7FC00000> : %s\n", tw);
    for (int apart = 0; apart < 2; apart++) {
      const char *p = apart ? "u" : "", *v = apart ? "_" : "";
      put(&t, "  %%%sv1%s = stablehlo.multiply %%x2, %%wb0 : %s\n", p, v, tw);
      if (apart) put(&t, "  %%uv1 = stablehlo.optimization_barrier %%uv1_ : %s\n", tw);
      put(&t, "  %%%sv2%s = stablehlo.tanh %%%sv1 : %s\n", p, v, p, tw);
      if (apart) put(&t, "  %%uv2 = stablehlo.optimization_barrier %%uv2_ : %s\n", tw);
      put(&t, "  %%%sv3%s = stablehlo.subtract %%wb0, %%%sv2 : %s\n", p, v, p, tw);
      if (apart) put(&t, "  %%uv3 = stablehlo.optimization_barrier %%uv3_ : %s\n", tw);
    }
    put(&t, "  %%f3b = stablehlo.optimization_barrier %%v3 : %s\n", tw);
    put(&t, "  %%n_f3b = stablehlo.compare NE, %%f3b, %%f3b : (%s, %s) -> %s\n", tw, tw, tp2);
    put(&t, "  %%c_f3b = stablehlo.select %%n_f3b, %%qnan2, %%f3b : %s, %s\n", tp2, tw);
    put(&t, "  %%i_f3b = stablehlo.bitcast_convert %%c_f3b : (%s) -> %s\n", tw, ti2);
    put(&t, "  %%n_uv3 = stablehlo.compare NE, %%uv3, %%uv3 : (%s, %s) -> %s\n", tw, tw, tp2);
    put(&t, "  %%c_uv3 = stablehlo.select %%n_uv3, %%qnan2, %%uv3 : %s, %s\n", tp2, tw);
    put(&t, "  %%j_uv3 = stablehlo.bitcast_convert %%c_uv3 : (%s) -> %s\n", tw, ti2);
    put(&t, "  stablehlo.custom_call @check.expect_eq(%%i_f3b, %%j_uv3) {has_side_effect = true} : (%s, %s) -> ()\n",
        ti2, ti2);
    put(&t, "  return\n}\n");
    prog_count c;
    run_main_ok(t.buf, 2, count_progs, &c);
    assert_true(c.progs >= 2);
    assert_true(c.gathers >= 1);
    free(t.buf);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_chain),          cmocka_unit_test(test_softmax),
      cmocka_unit_test(test_softmax_values), cmocka_unit_test(test_full_reduction),
      cmocka_unit_test(test_broadcasts),     cmocka_unit_test(test_select_clamp),
      cmocka_unit_test(test_loop_body),      cmocka_unit_test(test_exp_range),
      cmocka_unit_test(test_prog_values),      cmocka_unit_test(test_row_gather),
      cmocka_unit_test(test_scatter_scalars),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
