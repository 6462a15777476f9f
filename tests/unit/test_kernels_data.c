/* Data-movement kernels (shape.c, index.c, scatter.c, random.c) on small
 * modules that check themselves: edge cases the conformance corpus lacks
 * (empty tensors, rank 0, negative padding, clamped and out-of-bounds
 * indices, region-driven and multi-input scatter, wrapping integer updates). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/exec.h"
#include "group_ctx.h"
#include "harness.h"
#include "shloc/shloc.h"

static void expect_pass(const char *body) {
  char text[8192];
  snprintf(text, sizeof text, "func.func @main() {\n%s\n  return\n}\n", body);
  shloc_status st = run_main(ctx, text, 1, NULL, NULL);
  if (st) {
    fprintf(stderr, "unexpected failure: %s\n%s\n", shloc_status_message(st), text);
    shloc_status_free(st);
    fail();
  }
}

static void expect_code(const char *body, shloc_code code) {
  char text[8192];
  snprintf(text, sizeof text, "func.func @main() {\n%s\n  return\n}\n", body);
  shloc_status st = run_main(ctx, text, 1, NULL, NULL);
  assert_non_null(st);
  assert_int_equal(shloc_status_code(st), code);
  shloc_status_free(st);
}

#define EQ(v, lit, ty) "  \"check.expect_eq_const\"(" v ") {value = dense<" lit "> : " ty "} : (" ty ") -> ()\n"

/* ---- shape ops ---- */

static void test_broadcast_in_dim(void **state) {
  (void)state;
  expect_pass("  %a = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>\n"
              "  %r = \"stablehlo.broadcast_in_dim\"(%a) <{broadcast_dimensions = array<i64: 1>}> : (tensor<3xi32>) -> tensor<2x3xi32>\n"
              EQ("%r", "[[1, 2, 3], [1, 2, 3]]", "tensor<2x3xi32>")
              "  %b = stablehlo.constant dense<[[4], [5]]> : tensor<2x1xi8>\n"
              "  %s = \"stablehlo.broadcast_in_dim\"(%b) <{broadcast_dimensions = array<i64: 0, 2>}> : (tensor<2x1xi8>) -> tensor<2x2x3xi8>\n"
              EQ("%s", "[[[4, 4, 4], [4, 4, 4]], [[5, 5, 5], [5, 5, 5]]]", "tensor<2x2x3xi8>")
              "  %c = stablehlo.constant dense<7.5> : tensor<f64>\n"
              "  %t = \"stablehlo.broadcast_in_dim\"(%c) <{broadcast_dimensions = array<i64>}> : (tensor<f64>) -> tensor<2x2xf64>\n"
              EQ("%t", "7.5", "tensor<2x2xf64>")
              "  %e = \"stablehlo.broadcast_in_dim\"(%a) <{broadcast_dimensions = array<i64: 1>}> : (tensor<3xi32>) -> tensor<0x3xi32>\n"
              EQ("%e", "", "tensor<0x3xi32>")
              "  %u = \"stablehlo.broadcast\"(%a) <{broadcast_sizes = array<i64: 2>}> : (tensor<3xi32>) -> tensor<2x3xi32>\n"
              EQ("%u", "[[1, 2, 3], [1, 2, 3]]", "tensor<2x3xi32>"));
}

static void test_reshape_transpose(void **state) {
  (void)state;
  expect_pass("  %a = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi16>\n"
              "  %r = \"stablehlo.reshape\"(%a) : (tensor<2x3xi16>) -> tensor<3x2xi16>\n"
              EQ("%r", "[[1, 2], [3, 4], [5, 6]]", "tensor<3x2xi16>")
              "  %t = \"stablehlo.transpose\"(%a) <{permutation = array<i64: 1, 0>}> : (tensor<2x3xi16>) -> tensor<3x2xi16>\n"
              EQ("%t", "[[1, 4], [2, 5], [3, 6]]", "tensor<3x2xi16>")
              "  %s = stablehlo.constant dense<5> : tensor<i32>\n"
              "  %v = \"stablehlo.reshape\"(%s) : (tensor<i32>) -> tensor<1x1xi32>\n"
              EQ("%v", "[[5]]", "tensor<1x1xi32>")
              "  %c = stablehlo.constant dense<[[(1.0, 2.0), (3.0, 4.0)]]> : tensor<1x2xcomplex<f64>>\n"
              "  %w = \"stablehlo.transpose\"(%c) <{permutation = array<i64: 1, 0>}> : (tensor<1x2xcomplex<f64>>) -> tensor<2x1xcomplex<f64>>\n"
              EQ("%w", "[[(1.0, 2.0)], [(3.0, 4.0)]]", "tensor<2x1xcomplex<f64>>"));
}

/* A transpose big enough for the tiled path: x[i][j] = 100*i + j. */
static void test_transpose_tiled(void **state) {
  (void)state;
  expect_pass(
      "  %i = \"stablehlo.iota\"() <{iota_dimension = 0 : i64}> : () -> tensor<67x70xf32>\n"
      "  %j = \"stablehlo.iota\"() <{iota_dimension = 1 : i64}> : () -> tensor<67x70xf32>\n"
      "  %h = stablehlo.constant dense<100.0> : tensor<67x70xf32>\n"
      "  %m = stablehlo.multiply %i, %h : tensor<67x70xf32>\n"
      "  %x = stablehlo.add %m, %j : tensor<67x70xf32>\n"
      "  %t = \"stablehlo.transpose\"(%x) <{permutation = array<i64: 1, 0>}> : (tensor<67x70xf32>) -> tensor<70x67xf32>\n"
      "  %i2 = \"stablehlo.iota\"() <{iota_dimension = 1 : i64}> : () -> tensor<70x67xf32>\n"
      "  %j2 = \"stablehlo.iota\"() <{iota_dimension = 0 : i64}> : () -> tensor<70x67xf32>\n"
      "  %h2 = stablehlo.constant dense<100.0> : tensor<70x67xf32>\n"
      "  %m2 = stablehlo.multiply %i2, %h2 : tensor<70x67xf32>\n"
      "  %y = stablehlo.add %m2, %j2 : tensor<70x67xf32>\n"
      "  \"check.expect_eq\"(%t, %y) : (tensor<70x67xf32>, tensor<70x67xf32>) -> ()\n");
}

static void test_reverse_slice(void **state) {
  (void)state;
  expect_pass("  %a = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>\n"
              "  %r = \"stablehlo.reverse\"(%a) <{dimensions = array<i64: 0, 1>}> : (tensor<2x3xi32>) -> tensor<2x3xi32>\n"
              EQ("%r", "[[6, 5, 4], [3, 2, 1]]", "tensor<2x3xi32>")
              "  %q = \"stablehlo.reverse\"(%a) <{dimensions = array<i64: 1>}> : (tensor<2x3xi32>) -> tensor<2x3xi32>\n"
              EQ("%q", "[[3, 2, 1], [6, 5, 4]]", "tensor<2x3xi32>")
              "  %b = stablehlo.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]> : tensor<10xi64>\n"
              "  %s = \"stablehlo.slice\"(%b) <{start_indices = array<i64: 1>, limit_indices = array<i64: 8>, strides = array<i64: 3>}> : (tensor<10xi64>) -> tensor<3xi64>\n"
              EQ("%s", "[1, 4, 7]", "tensor<3xi64>")
              "  %e = \"stablehlo.slice\"(%b) <{start_indices = array<i64: 4>, limit_indices = array<i64: 4>, strides = array<i64: 1>}> : (tensor<10xi64>) -> tensor<0xi64>\n"
              EQ("%e", "", "tensor<0xi64>")
              "  %t = \"stablehlo.slice\"(%a) <{start_indices = array<i64: 1, 0>, limit_indices = array<i64: 2, 3>, strides = array<i64: 1, 2>}> : (tensor<2x3xi32>) -> tensor<1x2xi32>\n"
              EQ("%t", "[[4, 6]]", "tensor<1x2xi32>"));
}

static void test_concatenate_pad(void **state) {
  (void)state;
  expect_pass("  %a = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>\n"
              "  %b = stablehlo.constant dense<[[5], [6]]> : tensor<2x1xi32>\n"
              "  %z = stablehlo.constant dense<> : tensor<2x0xi32>\n"
              "  %c = \"stablehlo.concatenate\"(%a, %z, %b) <{dimension = 1 : i64}> : (tensor<2x2xi32>, tensor<2x0xi32>, tensor<2x1xi32>) -> tensor<2x3xi32>\n"
              EQ("%c", "[[1, 2, 5], [3, 4, 6]]", "tensor<2x3xi32>")
              "  %d = \"stablehlo.concatenate\"(%a, %a) <{dimension = 0 : i64}> : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<4x2xi32>\n"
              EQ("%d", "[[1, 2], [3, 4], [1, 2], [3, 4]]", "tensor<4x2xi32>")
              "  %v = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xbf16>\n"
              "  %pv = stablehlo.constant dense<-1.0> : tensor<bf16>\n"
              "  %p = \"stablehlo.pad\"(%v, %pv) <{edge_padding_low = array<i64: -1>, edge_padding_high = array<i64: 2>, interior_padding = array<i64: 1>}> : (tensor<3xbf16>, tensor<bf16>) -> tensor<6xbf16>\n"
              EQ("%p", "[-1.0, 2.0, -1.0, 3.0, -1.0, -1.0]", "tensor<6xbf16>")
              "  %q = \"stablehlo.pad\"(%v, %pv) <{edge_padding_low = array<i64: -2>, edge_padding_high = array<i64: -1>, interior_padding = array<i64: 0>}> : (tensor<3xbf16>, tensor<bf16>) -> tensor<0xbf16>\n"
              EQ("%q", "", "tensor<0xbf16>")
              "  %zp = stablehlo.constant dense<0> : tensor<i32>\n"
              "  %r = \"stablehlo.pad\"(%a, %zp) <{edge_padding_low = array<i64: 1, -1>, edge_padding_high = array<i64: 0, 1>, interior_padding = array<i64: 0, 0>}> : (tensor<2x2xi32>, tensor<i32>) -> tensor<3x2xi32>\n"
              EQ("%r", "[[0, 0], [2, 0], [4, 0]]", "tensor<3x2xi32>"));
}

static void test_get_dimension_size(void **state) {
  (void)state;
  expect_pass("  %a = stablehlo.constant dense<0.0> : tensor<2x5xf32>\n"
              "  %r = \"stablehlo.get_dimension_size\"(%a) <{dimension = 1 : i64}> : (tensor<2x5xf32>) -> tensor<i32>\n"
              EQ("%r", "5", "tensor<i32>"));
}

/* ---- indexed ops: start indices clamp ---- */

static void test_dynamic_slice_clamps(void **state) {
  (void)state;
  expect_pass("  %a = stablehlo.constant dense<[[0, 1, 2], [3, 4, 5], [6, 7, 8]]> : tensor<3x3xi32>\n"
              "  %big = stablehlo.constant dense<7> : tensor<i64>\n"
              "  %neg = stablehlo.constant dense<-3> : tensor<i64>\n"
              "  %r = \"stablehlo.dynamic_slice\"(%a, %big, %neg) <{slice_sizes = array<i64: 2, 2>}> : (tensor<3x3xi32>, tensor<i64>, tensor<i64>) -> tensor<2x2xi32>\n"
              EQ("%r", "[[3, 4], [6, 7]]", "tensor<2x2xi32>")
              "  %u = stablehlo.constant dense<[[10, 11]]> : tensor<1x2xi32>\n"
              "  %one = stablehlo.constant dense<1> : tensor<ui8>\n"
              "  %ff = stablehlo.constant dense<255> : tensor<ui8>\n"
              "  %d = \"stablehlo.dynamic_update_slice\"(%a, %u, %one, %ff) : (tensor<3x3xi32>, tensor<1x2xi32>, tensor<ui8>, tensor<ui8>) -> tensor<3x3xi32>\n"
              EQ("%d", "[[0, 1, 2], [3, 10, 11], [6, 7, 8]]", "tensor<3x3xi32>")
              "  %s = stablehlo.constant dense<4> : tensor<f32>\n"
              "  %e = \"stablehlo.dynamic_slice\"(%s) <{slice_sizes = array<i64>}> : (tensor<f32>) -> tensor<f32>\n"
              EQ("%e", "4.0", "tensor<f32>"));
}

static void test_gather(void **state) {
  (void)state;
  expect_pass(
      "  %a = stablehlo.constant dense<[[0, 1, 2], [3, 4, 5], [6, 7, 8]]> : tensor<3x3xi32>\n"
      "  %i = stablehlo.constant dense<[[0, 1], [2, 2]]> : tensor<2x2xi64>\n"
      "  %r = \"stablehlo.gather\"(%a, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], "
      "start_index_map = [0, 1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 2>}> : "
      "(tensor<3x3xi32>, tensor<2x2xi64>) -> tensor<2x2xi32>\n"
      EQ("%r", "[[1, 2], [7, 8]]", "tensor<2x2xi32>")
      /* offset dim before the batch dim */
      "  %j = stablehlo.constant dense<[2, 0]> : tensor<2xi32>\n"
      "  %s = \"stablehlo.gather\"(%a, %j) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], "
      "start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 3, 1>}> : (tensor<3x3xi32>, tensor<2xi32>) -> tensor<3x2xi32>\n"
      EQ("%s", "[[2, 0], [5, 3], [8, 6]]", "tensor<3x2xi32>")
      /* batching dims: row b takes column idx[b] */
      "  %k = stablehlo.constant dense<[[2], [0], [-5]]> : tensor<3x1xi64>\n"
      "  %t = \"stablehlo.gather\"(%a, %k) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], "
      "start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>}> : "
      "(tensor<3x3xi32>, tensor<3x1xi64>) -> tensor<3xi32>\n"
      EQ("%t", "[2, 3, 6]", "tensor<3xi32>")
      /* no indices at all */
      "  %n = stablehlo.constant dense<> : tensor<0x2xi64>\n"
      "  %u = \"stablehlo.gather\"(%a, %n) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], "
      "start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 2>}> : (tensor<3x3xi32>, tensor<0x2xi64>) -> tensor<0x2xi32>\n"
      EQ("%u", "", "tensor<0x2xi32>"));
}

/* ---- scatter ---- */

#define SCATTER_1D(name, ty, op, dn, it, ut)                                                        \
  "  " name " = \"stablehlo.scatter\"(%a, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<" dn \
  ">}> ({\n  ^bb0(%x: tensor<" ty ">, %y: tensor<" ty ">):\n" op "  }) : (tensor<5x" ty ">, " it ", " ut      \
  ") -> tensor<5x" ty ">\n"

#define DN1 "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1"

static void test_scatter_fast_ops(void **state) {
  (void)state;
  /* Duplicate index 1 accumulates, index 7 and -1 are out of bounds: skipped. */
  expect_pass(
           "  %a = stablehlo.constant dense<[10, 20, 30, 40, 50]> : tensor<5xi32>\n"
           "  %i = stablehlo.constant dense<[[1], [1], [7], [-1], [4]]> : tensor<5x1xi64>\n"
           "  %u = stablehlo.constant dense<[1, 2, 3, 4, 5]> : tensor<5xi32>\n"
           SCATTER_1D("%add", "i32", "    %s = stablehlo.add %x, %y : tensor<i32>\n    stablehlo.return %s : tensor<i32>\n", DN1,
                      "tensor<5x1xi64>", "tensor<5xi32>")
           EQ("%add", "[10, 23, 30, 40, 55]", "tensor<5xi32>")
           SCATTER_1D("%rep", "i32", "    stablehlo.return %y : tensor<i32>\n", DN1, "tensor<5x1xi64>", "tensor<5xi32>")
           EQ("%rep", "[10, 2, 30, 40, 5]", "tensor<5xi32>")
           SCATTER_1D("%mx", "i32", "    %s = stablehlo.maximum %y, %x : tensor<i32>\n    stablehlo.return %s : tensor<i32>\n", DN1,
                      "tensor<5x1xi64>", "tensor<5xi32>")
           EQ("%mx", "[10, 20, 30, 40, 50]", "tensor<5xi32>")
           /* A computation with no fast loop runs the region: x - y, in order. */
           SCATTER_1D("%sub", "i32", "    %s = stablehlo.subtract %x, %y : tensor<i32>\n    stablehlo.return %s : tensor<i32>\n", DN1,
                      "tensor<5x1xi64>", "tensor<5xi32>")
           EQ("%sub", "[10, 17, 30, 40, 45]", "tensor<5xi32>"));
  /* i8 addition wraps; f16 minimum propagates NaN. */
  expect_pass(
           "  %a = stablehlo.constant dense<[127, -128, 0, 1, 2]> : tensor<5xi8>\n"
           "  %i = stablehlo.constant dense<[[0], [1]]> : tensor<2x1xi32>\n"
           "  %u = stablehlo.constant dense<[1, -1]> : tensor<2xi8>\n"
           SCATTER_1D("%add", "i8", "    %s = stablehlo.add %x, %y : tensor<i8>\n    stablehlo.return %s : tensor<i8>\n", DN1,
                      "tensor<2x1xi32>", "tensor<2xi8>")
           EQ("%add", "[-128, 127, 0, 1, 2]", "tensor<5xi8>")
           "  %f = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf16>\n"
           "  %g = stablehlo.constant dense<[0x7E00, -1.0]> : tensor<2xf16>\n"
           "  %mn = \"stablehlo.scatter\"(%f, %i, %g) <{scatter_dimension_numbers = #stablehlo.scatter<" DN1 ">}> ({\n"
           "  ^bb0(%x: tensor<f16>, %y: tensor<f16>):\n    %s = stablehlo.minimum %x, %y : tensor<f16>\n"
           "    stablehlo.return %s : tensor<f16>\n  }) : (tensor<5xf16>, tensor<2x1xi32>, tensor<2xf16>) -> tensor<5xf16>\n"
           "  %nan = \"stablehlo.compare\"(%mn, %mn) <{comparison_direction = #stablehlo<comparison_direction NE>}> : "
           "(tensor<5xf16>, tensor<5xf16>) -> tensor<5xi1>\n"
           EQ("%nan", "[true, false, false, false, false]", "tensor<5xi1>")
           "  %rest = \"stablehlo.slice\"(%mn) <{start_indices = array<i64: 1>, limit_indices = array<i64: 5>, strides = array<i64: 1>}> : "
           "(tensor<5xf16>) -> tensor<4xf16>\n"
           EQ("%rest", "[-1.0, 3.0, 4.0, 5.0]", "tensor<4xf16>"));
}

/* A scatter large enough to be split between threads by result rows:
 * two-row windows that straddle the split and the edges (starts -1 and 999
 * keep one row, -2 and 1000 none), repeated rows, updates whose sums depend
 * on their order.  Reference: the same scatter with a two-op body, which
 * runs the region serially in scatter order. */
#define BIG_SCATTER(name, body)                                                                                \
  "  " name " = \"stablehlo.scatter\"(%a, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<"              \
  "update_window_dims = [1, 2], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({\n"                \
  "  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n" body "  }) : (tensor<1000x64xf32>, tensor<3000x1xi32>, "          \
  "tensor<3000x2x64xf32>) -> tensor<1000x64xf32>\n"

static void test_scatter_threads(void **state) {
  (void)state;
  expect_pass("  %z = stablehlo.constant dense<0.25> : tensor<f32>\n"
              "  %a = stablehlo.broadcast_in_dim %z, dims = [] : (tensor<f32>) -> tensor<1000x64xf32>\n"
              "  %n = stablehlo.iota dim = 0 : tensor<3000x1xi32>\n"
              "  %p = stablehlo.constant dense<7919> : tensor<3000x1xi32>\n"
              "  %m = stablehlo.constant dense<1003> : tensor<3000x1xi32>\n"
              "  %two = stablehlo.constant dense<2> : tensor<3000x1xi32>\n"
              "  %np = stablehlo.multiply %n, %p : tensor<3000x1xi32>\n"
              "  %r = stablehlo.remainder %np, %m : tensor<3000x1xi32>\n"
              "  %i = stablehlo.subtract %r, %two : tensor<3000x1xi32>\n"
              "  %f = stablehlo.iota dim = 2 : tensor<3000x2x64xf32>\n"
              "  %g = stablehlo.iota dim = 0 : tensor<3000x2x64xf32>\n"
              "  %h = stablehlo.add %f, %g : tensor<3000x2x64xf32>\n"
              "  %u = stablehlo.sine %h : tensor<3000x2x64xf32>\n"
              BIG_SCATTER("%fast", "    %s = stablehlo.add %x, %y : tensor<f32>\n    stablehlo.return %s : tensor<f32>\n")
              BIG_SCATTER("%slow", "    %s = stablehlo.add %x, %y : tensor<f32>\n    %t = stablehlo.negate %s : tensor<f32>\n"
                                   "    %v = stablehlo.negate %t : tensor<f32>\n    stablehlo.return %v : tensor<f32>\n")
              "  stablehlo.custom_call @check.expect_eq(%fast, %slow) {has_side_effect = true} : "
              "(tensor<1000x64xf32>, tensor<1000x64xf32>) -> ()\n"
              /* Counting: 3000 windows of two rows; the starts are -2 and 1000
               * three times each (no row lands) and -1 and 999 three times each
               * (one row lands), so 6000 - 12 - 6 = 5982 rows of 64 land. */
              "  %one = stablehlo.constant dense<1.0> : tensor<f32>\n"
              "  %ones = stablehlo.broadcast_in_dim %one, dims = [] : (tensor<f32>) -> tensor<3000x2x64xf32>\n"
              "  %a0 = stablehlo.constant dense<0.0> : tensor<1000x64xf32>\n"
              "  %cnt = \"stablehlo.scatter\"(%a0, %i, %ones) <{scatter_dimension_numbers = #stablehlo.scatter<"
              "update_window_dims = [1, 2], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({\n"
              "  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n    %s = stablehlo.add %x, %y : tensor<f32>\n"
              "    stablehlo.return %s : tensor<f32>\n  }) : (tensor<1000x64xf32>, tensor<3000x1xi32>, "
              "tensor<3000x2x64xf32>) -> tensor<1000x64xf32>\n"
              "  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n"
              "  %tot = stablehlo.reduce(%cnt init: %zero) applies stablehlo.add across dimensions = [0, 1] : "
              "(tensor<1000x64xf32>, tensor<f32>) -> tensor<f32>\n"
              EQ("%tot", "382848.0", "tensor<f32>"));
}

/* Windows: a partly out-of-bounds window keeps its in-bounds elements (the spec's per-element rule). */
static void test_scatter_windows(void **state) {
  (void)state;
  expect_pass(
      "  %a = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xf32>\n"
      "  %i = stablehlo.constant dense<[1, 2]> : tensor<2xi64>\n"
      "  %u = stablehlo.constant dense<[[10.0, 20.0]]> : tensor<1x2xf32>\n"
      "  %r = \"stablehlo.scatter\"(%a, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0, 1], "
      "scatter_dims_to_operand_dims = [0, 1]>}> ({\n"
      "  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n    %s = stablehlo.add %x, %y : tensor<f32>\n    stablehlo.return %s : tensor<f32>\n"
      "  }) : (tensor<2x3xf32>, tensor<2xi64>, tensor<1x2xf32>) -> tensor<2x3xf32>\n"
      EQ("%r", "[[1.0, 2.0, 3.0], [4.0, 5.0, 16.0]]", "tensor<2x3xf32>")
      /* rows replaced whole; empty updates change nothing */
      "  %j = stablehlo.constant dense<[[1], [0]]> : tensor<2x1xi64>\n"
      "  %v = stablehlo.constant dense<[[7.0, 8.0, 9.0], [0.5, 0.5, 0.5]]> : tensor<2x3xf32>\n"
      "  %q = \"stablehlo.scatter\"(%a, %j, %v) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], "
      "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({\n"
      "  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n    stablehlo.return %y : tensor<f32>\n"
      "  }) : (tensor<2x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<2x3xf32>\n"
      EQ("%q", "[[0.5, 0.5, 0.5], [7.0, 8.0, 9.0]]", "tensor<2x3xf32>")
      "  %k = stablehlo.constant dense<> : tensor<0x1xi64>\n"
      "  %w = stablehlo.constant dense<> : tensor<0x3xf32>\n"
      "  %e = \"stablehlo.scatter\"(%a, %k, %w) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], "
      "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({\n"
      "  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n    stablehlo.return %y : tensor<f32>\n"
      "  }) : (tensor<2x3xf32>, tensor<0x1xi64>, tensor<0x3xf32>) -> tensor<2x3xf32>\n"
      EQ("%e", "[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]", "tensor<2x3xf32>"));
}

static void test_scatter_multi_and_batching(void **state) {
  (void)state;
  expect_pass(
      "  %a = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>\n"
      "  %b = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>\n"
      "  %i = stablehlo.constant dense<[[2], [2]]> : tensor<2x1xi64>\n"
      "  %u = stablehlo.constant dense<[10, 20]> : tensor<2xi32>\n"
      "  %v = stablehlo.constant dense<[2.0, 4.0]> : tensor<2xf32>\n"
      "  %r:2 = \"stablehlo.scatter\"(%a, %b, %i, %u, %v) <{scatter_dimension_numbers = #stablehlo.scatter<"
      "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({\n"
      "  ^bb0(%x0: tensor<i32>, %x1: tensor<f32>, %y0: tensor<i32>, %y1: tensor<f32>):\n"
      "    %s = stablehlo.add %x0, %y0 : tensor<i32>\n    %m = stablehlo.multiply %x1, %y1 : tensor<f32>\n"
      "    stablehlo.return %s, %m : tensor<i32>, tensor<f32>\n"
      "  }) : (tensor<3xi32>, tensor<3xf32>, tensor<2x1xi64>, tensor<2xi32>, tensor<2xf32>) -> (tensor<3xi32>, tensor<3xf32>)\n"
      EQ("%r#0", "[1, 2, 33]", "tensor<3xi32>")
      EQ("%r#1", "[1.0, 2.0, 24.0]", "tensor<3xf32>")
      /* batching: row b of the operand gets update b at column idx[b] */
      "  %o = stablehlo.constant dense<0> : tensor<2x3xi64>\n"
      "  %j = stablehlo.constant dense<[[2], [0]]> : tensor<2x1xi32>\n"
      "  %w = stablehlo.constant dense<[5, 6]> : tensor<2xi64>\n"
      "  %t = \"stablehlo.scatter\"(%o, %j, %w) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], "
      "input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 1>}> ({\n"
      "  ^bb0(%x: tensor<i64>, %y: tensor<i64>):\n    %s = stablehlo.add %x, %y : tensor<i64>\n    stablehlo.return %s : tensor<i64>\n"
      "  }) : (tensor<2x3xi64>, tensor<2x1xi32>, tensor<2xi64>) -> tensor<2x3xi64>\n"
      EQ("%t", "[[0, 0, 5], [6, 0, 0]]", "tensor<2x3xi64>"));
}

/* ---- random numbers and unsupported values ---- */

static void test_rng(void **state) {
  (void)state;
  expect_pass("  %s = stablehlo.constant dense<[42, 0]> : tensor<2xui64>\n"
              "  %ns, %o = \"stablehlo.rng_bit_generator\"(%s) <{rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>}> : "
              "(tensor<2xui64>) -> (tensor<2xui64>, tensor<0xui32>)\n"
              EQ("%ns", "[42, 0]", "tensor<2xui64>")
              "  %a = stablehlo.constant dense<5> : tensor<i32>\n"
              "  %b = stablehlo.constant dense<6> : tensor<i32>\n"
              "  %sh = stablehlo.constant dense<[3]> : tensor<1xi64>\n"
              "  %r = \"stablehlo.rng\"(%a, %b, %sh) <{rng_distribution = #stablehlo<rng_distribution UNIFORM>}> : "
              "(tensor<i32>, tensor<i32>, tensor<1xi64>) -> tensor<3xi32>\n"
              EQ("%r", "5", "tensor<3xi32>")
              "  %fa = stablehlo.constant dense<2.0> : tensor<f32>\n"
              "  %fb = stablehlo.constant dense<0.0> : tensor<f32>\n"
              "  %n = \"stablehlo.rng\"(%fa, %fb, %sh) <{rng_distribution = #stablehlo<rng_distribution NORMAL>}> : "
              "(tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<3xf32>\n"
              EQ("%n", "2.0", "tensor<3xf32>"));
}

/* Tuples are planned as their leaves: tuple and get_tuple_element copy
 * leaves; ops other than those and custom_call refuse tuple values. */
static void test_tuples(void **state) {
  (void)state;
  expect_pass("  %a = stablehlo.constant dense<1> : tensor<i32>\n"
              "  %b = stablehlo.constant dense<[2.0, 3.0]> : tensor<2xf32>\n"
              "  %t = stablehlo.tuple %a, %b : tuple<tensor<i32>, tensor<2xf32>>\n"
              "  %n = stablehlo.tuple %t, %a : tuple<tuple<tensor<i32>, tensor<2xf32>>, tensor<i32>>\n"
              "  %u = stablehlo.get_tuple_element %n[0] : (tuple<tuple<tensor<i32>, tensor<2xf32>>, tensor<i32>>) -> "
              "tuple<tensor<i32>, tensor<2xf32>>\n"
              "  %v = stablehlo.get_tuple_element %u[1] : (tuple<tensor<i32>, tensor<2xf32>>) -> tensor<2xf32>\n"
              "  %w = stablehlo.get_tuple_element %n[1] : (tuple<tuple<tensor<i32>, tensor<2xf32>>, tensor<i32>>) -> "
              "tensor<i32>\n" EQ("%v", "[2.0, 3.0]", "tensor<2xf32>") EQ("%w", "1", "tensor<i32>"));
  expect_code("  %a = stablehlo.constant dense<1> : tensor<i32>\n"
              "  %t = \"stablehlo.tuple\"(%a) : (tensor<i32>) -> tuple<tensor<i32>>\n"
              "  %o = stablehlo.optimization_barrier %t : tuple<tensor<i32>>\n",
              SHLOC_ERR_UNSUPPORTED);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_broadcast_in_dim),
      cmocka_unit_test(test_reshape_transpose),
      cmocka_unit_test(test_transpose_tiled),
      cmocka_unit_test(test_reverse_slice),
      cmocka_unit_test(test_concatenate_pad),
      cmocka_unit_test(test_get_dimension_size),
      cmocka_unit_test(test_dynamic_slice_clamps),
      cmocka_unit_test(test_gather),
      cmocka_unit_test(test_scatter_fast_ops),
      cmocka_unit_test(test_scatter_windows),
      cmocka_unit_test(test_scatter_threads),
      cmocka_unit_test(test_scatter_multi_and_batching),
      cmocka_unit_test(test_rng),
      cmocka_unit_test(test_tuples),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
