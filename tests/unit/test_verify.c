/* Per-op verification rules: for each op family, invalid modules that must be
 * rejected with a message naming the problem at the op's position, valid
 * edge cases (rank 0, empty tensors, dynamic dimensions) that must pass, and
 * malformed IR (missing or mistyped attributes, out-of-range dimension
 * numbers, empty regions, huge ranks) that must fail cleanly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ir/ir.h"
#include "shloc/shloc.h"

typedef struct {
  const char *name;
  const char *text;
  const char *needle; /* NULL: must verify */
  int line, col;      /* expected error position */
} vcase;

/* Parses and verifies; parse errors fail the test (cases must be well-formed text). */
static shloc_status verify_text(const char *name, const char *text) {
  shloc_context *ctx = shloc_context_create();
  assert_non_null(ctx);
  shloc_module *m = NULL;
  shloc_status st = shloc_module_parse(ctx, "case.mlir", text, strlen(text), 1, &m);
  if (st) {
    char msg[512];
    snprintf(msg, sizeof msg, "%s: parse error: %s", name, shloc_status_message(st));
    shloc_status_free(st);
    shloc_context_destroy(ctx);
    fail_msg("%s", msg);
  }
  st = shloc_module_verify(m);
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
  return st;
}

static void run_cases(const vcase *cases, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const vcase *c = &cases[i];
    shloc_status st = verify_text(c->name, c->text);
    if (!c->needle) {
      if (st) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s: unexpected error: %s", c->name, shloc_status_message(st));
        shloc_status_free(st);
        fail_msg("%s", msg);
      }
      continue;
    }
    if (!st) fail_msg("%s: expected an error containing '%s'", c->name, c->needle);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", shloc_status_message(st));
    const char *file;
    int line, col;
    shloc_status_location(st, &file, &line, &col);
    shloc_code code = shloc_status_code(st);
    shloc_status_free(st);
    if (code != SHLOC_ERR_VERIFY) fail_msg("%s: code %d, expected a verify error: %s", c->name, (int)code, msg);
    if (!strstr(msg, c->needle)) fail_msg("%s: message '%s' lacks '%s'", c->name, msg, c->needle);
    if (line != c->line || col != c->col)
      fail_msg("%s: error at %d:%d, expected %d:%d (%s)", c->name, line, col, c->line, c->col, msg);
  }
}

#define RUN(cases) run_cases(cases, sizeof cases / sizeof cases[0])

/* ------------------------------------------------------------------ elementwise */

static const vcase elementwise[] = {
    {"add shapes",
     "func.func @f(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {\n"
     "  %0 = \"stablehlo.add\"(%b, %a) : (tensor<3xf32>, tensor<2xf32>) -> tensor<3xf32>\n"
     "  return %0 : tensor<3xf32>\n}\n",
     "'stablehlo.add' operand #1 type tensor<2xf32> is incompatible with operand #0 type tensor<3xf32>", 2, 3},
    {"add result",
     "func.func @f(%a: tensor<2xf32>) -> tensor<3xf32> {\n"
     "  %0 = \"stablehlo.add\"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>\n"
     "  return %0 : tensor<3xf32>\n}\n",
     "operand #0 type tensor<2xf32> is incompatible with result type tensor<3xf32>", 2, 3},
    {"add element types",
     "func.func @f(%a: tensor<2xf32>, %b: tensor<2xf16>) -> tensor<2xf32> {\n"
     "  %0 = \"stablehlo.add\"(%a, %b) : (tensor<2xf32>, tensor<2xf16>) -> tensor<2xf32>\n"
     "  return %0 : tensor<2xf32>\n}\n",
     "operand #1 type tensor<2xf16> is incompatible", 2, 3},
    {"and on floats",
     "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
     "  %0 = \"stablehlo.and\"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"
     "  return %0 : tensor<2xf32>\n}\n",
     "operand #0 must be a tensor of integer or boolean values, got tensor<2xf32>", 2, 3},
    {"sqrt on ints",
     "func.func @f(%a: tensor<i32>) -> tensor<i32> {\n"
     "  %0 = \"stablehlo.sqrt\"(%a) : (tensor<i32>) -> tensor<i32>\n"
     "  return %0 : tensor<i32>\n}\n",
     "floating-point or complex values", 2, 3},
    {"abs of complex must be real",
     "func.func @f(%a: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {\n"
     "  %0 = \"stablehlo.abs\"(%a) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>\n"
     "  return %0 : tensor<2xcomplex<f32>>\n}\n",
     "result element type must be f32", 2, 3},
    {"compare without direction",
     "func.func @f(%a: tensor<2xf32>) -> tensor<2xi1> {\n"
     "  %0 = \"stablehlo.compare\"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>\n"
     "  return %0 : tensor<2xi1>\n}\n",
     "requires attribute 'comparison_direction'", 2, 3},
    {"compare bad direction",
     "func.func @f(%a: tensor<2xf32>) -> tensor<2xi1> {\n"
     "  %0 = \"stablehlo.compare\"(%a, %a) {comparison_direction = #stablehlo<comparison_direction XX>} : "
     "(tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>\n"
     "  return %0 : tensor<2xi1>\n}\n",
     "attribute 'comparison_direction' has unknown value 'XX'", 2, 3},
    {"compare result type",
     "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
     "  %0 = stablehlo.compare LT, %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"
     "  return %0 : tensor<2xf32>\n}\n",
     "result element type must be i1", 2, 3},
    {"select predicate",
     "func.func @f(%p: tensor<2xf32>, %a: tensor<2xf32>) -> tensor<2xf32> {\n"
     "  %0 = \"stablehlo.select\"(%p, %a, %a) : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"
     "  return %0 : tensor<2xf32>\n}\n",
     "operand #0 (pred) must be a tensor of i1 values", 2, 3},
    {"select predicate shape",
     "func.func @f(%p: tensor<3xi1>, %a: tensor<2xf32>) -> tensor<2xf32> {\n"
     "  %0 = \"stablehlo.select\"(%p, %a, %a) : (tensor<3xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"
     "  return %0 : tensor<2xf32>\n}\n",
     "operand #0 (pred) type tensor<3xi1> does not have the shape of operand #1", 2, 3},
    {"clamp bounds",
     "func.func @f(%lo: tensor<3xf32>, %a: tensor<2xf32>) -> tensor<2xf32> {\n"
     "  %0 = \"stablehlo.clamp\"(%lo, %a, %lo) : (tensor<3xf32>, tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>\n"
     "  return %0 : tensor<2xf32>\n}\n",
     "operand #0 (min) type tensor<3xf32> does not have the shape", 2, 3},
    {"bitcast widths",
     "func.func @f(%a: tensor<2xf32>) -> tensor<2x2xi8> {\n"
     "  %0 = \"stablehlo.bitcast_convert\"(%a) : (tensor<2xf32>) -> tensor<2x2xi8>\n"
     "  return %0 : tensor<2x2xi8>\n}\n",
     "requires compatible bit widths", 2, 3},
    {"bitcast complex",
     "func.func @f(%a: tensor<2xcomplex<f32>>) -> tensor<2xi64> {\n"
     "  %0 = \"stablehlo.bitcast_convert\"(%a) : (tensor<2xcomplex<f32>>) -> tensor<2xi64>\n"
     "  return %0 : tensor<2xi64>\n}\n",
     "cannot convert between real and complex types", 2, 3},
    {"complex of ints",
     "func.func @f(%a: tensor<2xi32>) -> tensor<2xcomplex<f32>> {\n"
     "  %0 = \"stablehlo.complex\"(%a, %a) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xcomplex<f32>>\n"
     "  return %0 : tensor<2xcomplex<f32>>\n}\n",
     "operand #0 must be a tensor of f32 or f64 values", 2, 3},
    {"reduce_precision bits",
     "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
     "  %0 = \"stablehlo.reduce_precision\"(%a) {exponent_bits = 0 : i32, mantissa_bits = 2 : i32} : "
     "(tensor<2xf32>) -> tensor<2xf32>\n"
     "  return %0 : tensor<2xf32>\n}\n",
     "exponent_bits must be at least 1", 2, 3},
    {"operand count",
     "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
     "  %0 = \"stablehlo.add\"(%a) : (tensor<2xf32>) -> tensor<2xf32>\n"
     "  return %0 : tensor<2xf32>\n}\n",
     "expects 2 operands, got 1", 2, 3},
    {"token operand",
     "func.func @f(%a: !stablehlo.token) -> tensor<f32> {\n"
     "  %0 = \"stablehlo.negate\"(%a) : (!stablehlo.token) -> tensor<f32>\n"
     "  return %0 : tensor<f32>\n}\n",
     "operand #0 must be a tensor", 2, 3},
    /* valid edge cases */
    {"rank 0, empty and dynamic",
     "func.func @f(%s: tensor<f32>, %e: tensor<0x3xf32>, %d: tensor<?x3xf32>, %c: tensor<2xcomplex<f64>>,\n"
     "             %q: tensor<4x!quant.uniform<i8:f32, 0.5:-1>>) -> tensor<?x3xi1> {\n"
     "  %0 = stablehlo.add %s, %s : tensor<f32>\n"
     "  %1 = stablehlo.multiply %e, %e : tensor<0x3xf32>\n"
     "  %2 = \"stablehlo.subtract\"(%d, %e) : (tensor<?x3xf32>, tensor<0x3xf32>) -> tensor<?x3xf32>\n"
     "  %3 = stablehlo.abs %c : (tensor<2xcomplex<f64>>) -> tensor<2xf64>\n"
     "  %4 = stablehlo.compare GT, %d, %d : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xi1>\n"
     "  %5 = \"stablehlo.select\"(%4, %d, %2) : (tensor<?x3xi1>, tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>\n"
     "  %6 = \"stablehlo.clamp\"(%s, %d, %s) : (tensor<f32>, tensor<?x3xf32>, tensor<f32>) -> tensor<?x3xf32>\n"
     "  %7 = \"stablehlo.bitcast_convert\"(%d) : (tensor<?x3xf32>) -> tensor<?x3x2xi16>\n"
     "  %8 = \"stablehlo.real\"(%c) : (tensor<2xcomplex<f64>>) -> tensor<2xf64>\n"
     "  %9 = \"stablehlo.abs\"(%q) : (tensor<4x!quant.uniform<i8:f32, 0.5:-1>>) -> "
     "tensor<4x!quant.uniform<i8:f32, 0.25:-1>>\n"
     "  %10 = \"stablehlo.convert\"(%e) : (tensor<0x3xf32>) -> tensor<0x3xi1>\n"
     "  %11 = \"stablehlo.is_finite\"(%s) : (tensor<f32>) -> tensor<i1>\n"
     "  %12 = \"stablehlo.complex\"(%8, %8) : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xcomplex<f64>>\n"
     "  %13 = \"stablehlo.not\"(%4) : (tensor<?x3xi1>) -> tensor<?x3xi1>\n"
     "  return %4 : tensor<?x3xi1>\n}\n",
     NULL, 0, 0},
    {"unranked",
     "func.func @f(%a: tensor<*xf32>, %b: tensor<2xf32>) -> tensor<*xf32> {\n"
     "  %0 = \"stablehlo.add\"(%a, %b) : (tensor<*xf32>, tensor<2xf32>) -> tensor<*xf32>\n"
     "  return %0 : tensor<*xf32>\n}\n",
     NULL, 0, 0},
};

static void test_elementwise(void **state) {
  (void)state;
  RUN(elementwise);
}

/* ------------------------------------------------------------------ shapes */

static const vcase shapes[] = {
    {"broadcast_in_dim size",
     "func.func @f(%a: tensor<2x3xf32>) -> tensor<2x4x5xf32> {\n"
     "  %0 = stablehlo.broadcast_in_dim %a, dims = [0, 2] : (tensor<2x3xf32>) -> tensor<2x4x5xf32>\n"
     "  return %0 : tensor<2x4x5xf32>\n}\n",
     "size of operand dimension 1 (3) is not equal to 1 or size of result dimension 2 (5)", 2, 3},
    {"broadcast_in_dim count",
     "func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
     "  %0 = \"stablehlo.broadcast_in_dim\"(%a) {broadcast_dimensions = array<i64: 0>} : "
     "(tensor<2x3xf32>) -> tensor<2x3xf32>\n"
     "  return %0 : tensor<2x3xf32>\n}\n",
     "broadcast_dimensions size (1) does not match operand rank (2)", 2, 3},
    {"broadcast_in_dim range",
     "func.func @f(%a: tensor<2xf32>) -> tensor<2x3xf32> {\n"
     "  %0 = \"stablehlo.broadcast_in_dim\"(%a) {broadcast_dimensions = array<i64: 7>} : "
     "(tensor<2xf32>) -> tensor<2x3xf32>\n"
     "  return %0 : tensor<2x3xf32>\n}\n",
     "broadcast_dimensions value 7 is out of range [0, 2)", 2, 3},
    {"broadcast_in_dim missing attribute",
     "func.func @f(%a: tensor<2xf32>) -> tensor<2x3xf32> {\n"
     "  %0 = \"stablehlo.broadcast_in_dim\"(%a) : (tensor<2xf32>) -> tensor<2x3xf32>\n"
     "  return %0 : tensor<2x3xf32>\n}\n",
     "requires attribute 'broadcast_dimensions'", 2, 3},
    {"broadcast_in_dim string attribute",
     "func.func @f(%a: tensor<2xf32>) -> tensor<2x3xf32> {\n"
     "  %0 = \"stablehlo.broadcast_in_dim\"(%a) {broadcast_dimensions = \"zero\"} : (tensor<2xf32>) -> tensor<2x3xf32>\n"
     "  return %0 : tensor<2x3xf32>\n}\n",
     "attribute 'broadcast_dimensions' must be a list of integers", 2, 3},
    {"transpose permutation",
     "func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {\n"
     "  %0 = stablehlo.transpose %a, dims = [1, 1] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
     "  return %0 : tensor<3x2xf32>\n}\n",
     "permutation has duplicate value 1", 2, 3},
    {"transpose result",
     "func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
     "  %0 = \"stablehlo.transpose\"(%a) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>\n"
     "  return %0 : tensor<2x3xf32>\n}\n",
     "inferred shape [3, 2] is incompatible with result type tensor<2x3xf32>", 2, 3},
    {"transpose huge dimension",
     "func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {\n"
     "  %0 = \"stablehlo.transpose\"(%a) {permutation = array<i64: 9223372036854775807, -9223372036854775807>} : "
     "(tensor<2x3xf32>) -> tensor<3x2xf32>\n"
     "  return %0 : tensor<3x2xf32>\n}\n",
     "permutation value 9223372036854775807 is out of range [0, 2)", 2, 3},
    {"reshape elements",
     "func.func @f(%a: tensor<2x3xf32>) -> tensor<5xf32> {\n"
     "  %0 = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<5xf32>\n"
     "  return %0 : tensor<5xf32>\n}\n",
     "number of result elements (5) does not match the number of operand elements (6)", 2, 3},
    {"reverse dims",
     "func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
     "  %0 = \"stablehlo.reverse\"(%a) {dimensions = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2x3xf32>\n"
     "  return %0 : tensor<2x3xf32>\n}\n",
     "dimensions value 2 is out of range [0, 2)", 2, 3},
    {"slice limit",
     "func.func @f(%a: tensor<4xf32>) -> tensor<2xf32> {\n"
     "  %0 = \"stablehlo.slice\"(%a) {start_indices = array<i64: 3>, limit_indices = array<i64: 5>, "
     "strides = array<i64: 1>} : (tensor<4xf32>) -> tensor<2xf32>\n"
     "  return %0 : tensor<2xf32>\n}\n",
     "limit index 5 is larger than dimension size 4 in dimension 0", 2, 3},
    {"slice result",
     "func.func @f(%a: tensor<7xf32>) -> tensor<3xf32> {\n"
     "  %0 = \"stablehlo.slice\"(%a) {start_indices = array<i64: 1>, limit_indices = array<i64: 7>, "
     "strides = array<i64: 4>} : (tensor<7xf32>) -> tensor<3xf32>\n"
     "  return %0 : tensor<3xf32>\n}\n",
     "inferred shape [2] is incompatible with result type tensor<3xf32>", 2, 3},
    {"slice stride",
     "func.func @f(%a: tensor<7xf32>) -> tensor<3xf32> {\n"
     "  %0 = \"stablehlo.slice\"(%a) {start_indices = array<i64: 1>, limit_indices = array<i64: 7>, "
     "strides = array<i64: 0>} : (tensor<7xf32>) -> tensor<3xf32>\n"
     "  return %0 : tensor<3xf32>\n}\n",
     "stride must be positive but got 0", 2, 3},
    {"dynamic_slice size",
     "func.func @f(%a: tensor<4xf32>, %i: tensor<i32>) -> tensor<5xf32> {\n"
     "  %0 = \"stablehlo.dynamic_slice\"(%a, %i) {slice_sizes = array<i64: 5>} : (tensor<4xf32>, tensor<i32>) -> "
     "tensor<5xf32>\n"
     "  return %0 : tensor<5xf32>\n}\n",
     "has slice size 5 greater than dimension size 4", 2, 3},
    {"dynamic_slice index type",
     "func.func @f(%a: tensor<4xf32>, %i: tensor<f32>) -> tensor<2xf32> {\n"
     "  %0 = \"stablehlo.dynamic_slice\"(%a, %i) {slice_sizes = array<i64: 2>} : (tensor<4xf32>, tensor<f32>) -> "
     "tensor<2xf32>\n"
     "  return %0 : tensor<2xf32>\n}\n",
     "operand #1 (start index) must be a tensor of integer values", 2, 3},
    {"dynamic_update_slice rank",
     "func.func @f(%a: tensor<4x4xf32>, %u: tensor<2xf32>, %i: tensor<i32>) -> tensor<4x4xf32> {\n"
     "  %0 = \"stablehlo.dynamic_update_slice\"(%a, %u, %i, %i) : (tensor<4x4xf32>, tensor<2xf32>, tensor<i32>, "
     "tensor<i32>) -> tensor<4x4xf32>\n"
     "  return %0 : tensor<4x4xf32>\n}\n",
     "update rank (1) does not match operand rank (2)", 2, 3},
    {"concatenate dimension",
     "func.func @f(%a: tensor<2xf32>) -> tensor<4xf32> {\n"
     "  %0 = \"stablehlo.concatenate\"(%a, %a) {dimension = 1 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>\n"
     "  return %0 : tensor<4xf32>\n}\n",
     "dimension 1 is out of range for operand rank 1", 2, 3},
    {"concatenate result",
     "func.func @f(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>) -> tensor<4x3xf32> {\n"
     "  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<4x3xf32>\n"
     "  return %0 : tensor<4x3xf32>\n}\n",
     "inferred shape [3, 3] is incompatible with result type tensor<4x3xf32>", 2, 3},
    {"concatenate other dims",
     "func.func @f(%a: tensor<2x3xf32>, %b: tensor<1x2xf32>) -> tensor<3x3xf32> {\n"
     "  %0 = \"stablehlo.concatenate\"(%a, %b) {dimension = 0 : i64} : (tensor<2x3xf32>, tensor<1x2xf32>) -> "
     "tensor<3x3xf32>\n"
     "  return %0 : tensor<3x3xf32>\n}\n",
     "do not match at non-concat dimension 1", 2, 3},
    {"pad interior",
     "func.func @f(%a: tensor<2xf32>, %p: tensor<f32>) -> tensor<3xf32> {\n"
     "  %0 = \"stablehlo.pad\"(%a, %p) {edge_padding_low = array<i64: 0>, edge_padding_high = array<i64: 0>, "
     "interior_padding = array<i64: -1>} : (tensor<2xf32>, tensor<f32>) -> tensor<3xf32>\n"
     "  return %0 : tensor<3xf32>\n}\n",
     "interior padding cannot be negative", 2, 3},
    {"pad result",
     "func.func @f(%a: tensor<3xf32>, %p: tensor<f32>) -> tensor<8xf32> {\n"
     "  %0 = stablehlo.pad %a, %p, low = [1], high = [-1], interior = [2] : (tensor<3xf32>, tensor<f32>) -> "
     "tensor<8xf32>\n"
     "  return %0 : tensor<8xf32>\n}\n",
     "inferred shape [7] is incompatible with result type tensor<8xf32>", 2, 3},
    {"iota scalar",
     "func.func @f() -> tensor<i32> {\n"
     "  %0 = \"stablehlo.iota\"() {iota_dimension = 0 : i64} : () -> tensor<i32>\n"
     "  return %0 : tensor<i32>\n}\n",
     "does not support scalars", 2, 3},
    {"iota dimension",
     "func.func @f() -> tensor<4xi32> {\n"
     "  %0 = \"stablehlo.iota\"() {iota_dimension = 1 : i64} : () -> tensor<4xi32>\n"
     "  return %0 : tensor<4xi32>\n}\n",
     "iota_dimension 1 is out of range [0, 1)", 2, 3},
    {"get_dimension_size",
     "func.func @f(%a: tensor<4xf32>) -> tensor<i32> {\n"
     "  %0 = \"stablehlo.get_dimension_size\"(%a) {dimension = 1 : i64} : (tensor<4xf32>) -> tensor<i32>\n"
     "  return %0 : tensor<i32>\n}\n",
     "dimension 1 is out of range [0, 1)", 2, 3},
    /* valid edge cases */
    {"valid shapes",
     "func.func @f(%a: tensor<1x3xf32>, %d: tensor<?x3xf32>, %s: tensor<f32>, %e: tensor<0xf32>, %i: tensor<i64>) "
     "-> tensor<?x3xf32> {\n"
     "  %0 = stablehlo.broadcast_in_dim %a, dims = [1, 2] : (tensor<1x3xf32>) -> tensor<4x5x3xf32>\n"
     "  %1 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<0x2xf32>\n"
     "  %2 = stablehlo.broadcast_in_dim %d, dims = [0, 1] : (tensor<?x3xf32>) -> tensor<?x3xf32>\n"
     "  %3 = stablehlo.transpose %d, dims = [1, 0] : (tensor<?x3xf32>) -> tensor<3x?xf32>\n"
     "  %4 = stablehlo.reshape %e : (tensor<0xf32>) -> tensor<0x5xf32>\n"
     "  %5 = stablehlo.concatenate %d, %a, %d, dim = 0 : (tensor<?x3xf32>, tensor<1x3xf32>, tensor<?x3xf32>) -> "
     "tensor<?x3xf32>\n"
     "  %6 = \"stablehlo.slice\"(%a) {start_indices = array<i64: 0, 3>, limit_indices = array<i64: 1, 3>, "
     "strides = array<i64: 1, 2>} : (tensor<1x3xf32>) -> tensor<1x0xf32>\n"
     "  %7 = stablehlo.pad %e, %s, low = [2], high = [1], interior = [5] : (tensor<0xf32>, tensor<f32>) -> "
     "tensor<3xf32>\n"
     "  %8 = \"stablehlo.dynamic_slice\"(%d, %i, %i) {slice_sizes = array<i64: 1, 3>} : (tensor<?x3xf32>, "
     "tensor<i64>, tensor<i64>) -> tensor<1x3xf32>\n"
     "  %9 = \"stablehlo.dynamic_update_slice\"(%d, %8, %i, %i) : (tensor<?x3xf32>, tensor<1x3xf32>, tensor<i64>, "
     "tensor<i64>) -> tensor<?x3xf32>\n"
     "  %10 = \"stablehlo.iota\"() {iota_dimension = 1 : i64} : () -> tensor<2x0xf32>\n"
     "  %11 = \"stablehlo.get_dimension_size\"(%d) {dimension = 0 : i64} : (tensor<?x3xf32>) -> tensor<i32>\n"
     "  %12 = \"stablehlo.reverse\"(%d) {dimensions = array<i64: 0, 1>} : (tensor<?x3xf32>) -> tensor<?x3xf32>\n"
     "  %13 = \"stablehlo.broadcast\"(%a) {broadcast_sizes = array<i64: 2>} : (tensor<1x3xf32>) -> tensor<2x1x3xf32>\n"
     "  return %5 : tensor<?x3xf32>\n}\n",
     NULL, 0, 0},
};

static void test_shapes(void **state) {
  (void)state;
  RUN(shapes);
}

/* ------------------------------------------------------------------ gather, scatter */

#define SCATTER_BODY                                                                                            \
  "({\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n    %sum = stablehlo.add %x, %y : tensor<f32>\n"            \
  "    stablehlo.return %sum : tensor<f32>\n  })"

static const vcase gathers[] = {
    {"gather operand rank",
     "func.func @f(%a: tensor<3x4xf32>, %i: tensor<2x1xi32>) -> tensor<2x4xf32> {\n"
     "  %0 = \"stablehlo.gather\"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], "
     "start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>} : (tensor<3x4xf32>, "
     "tensor<2x1xi32>) -> tensor<2x4xf32>\n"
     "  return %0 : tensor<2x4xf32>\n}\n",
     "is not equal to operand rank (2)", 2, 3},
    {"gather slice size",
     "func.func @f(%a: tensor<3x4xf32>, %i: tensor<2x1xi32>) -> tensor<2x4xf32> {\n"
     "  %0 = \"stablehlo.gather\"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], "
     "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 2, 4>} : "
     "(tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>\n"
     "  return %0 : tensor<2x4xf32>\n}\n",
     "slice size of collapsed or batching dimension 0 must be <= 1, got 2", 2, 3},
    {"gather index vector",
     "func.func @f(%a: tensor<3x4xf32>, %i: tensor<2x2xi32>) -> tensor<2x4xf32> {\n"
     "  %0 = \"stablehlo.gather\"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], "
     "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>} : "
     "(tensor<3x4xf32>, tensor<2x2xi32>) -> tensor<2x4xf32>\n"
     "  return %0 : tensor<2x4xf32>\n}\n",
     "start_index_map size (1) is not equal to the size of the index vector dimension of the indices (2)", 2, 3},
    {"gather index_vector_dim range",
     "func.func @f(%a: tensor<3x4xf32>, %i: tensor<2x1xi32>) -> tensor<2x4xf32> {\n"
     "  %0 = \"stablehlo.gather\"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], "
     "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 4611686018427387904>, "
     "slice_sizes = array<i64: 1, 4>} : (tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>\n"
     "  return %0 : tensor<2x4xf32>\n}\n",
     "index_vector_dim 4611686018427387904 is out of range [0, 2]", 2, 3},
    {"gather result",
     "func.func @f(%a: tensor<3x4xf32>, %i: tensor<2x1xi32>) -> tensor<2x3xf32> {\n"
     "  %0 = \"stablehlo.gather\"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], "
     "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>} : "
     "(tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>\n"
     "  return %0 : tensor<2x3xf32>\n}\n",
     "inferred shape [2, 4] is incompatible with result type tensor<2x3xf32>", 2, 3},
    {"gather missing dimension numbers",
     "func.func @f(%a: tensor<3x4xf32>, %i: tensor<2x1xi32>) -> tensor<2x4xf32> {\n"
     "  %0 = \"stablehlo.gather\"(%a, %i) {slice_sizes = array<i64: 1, 4>} : (tensor<3x4xf32>, tensor<2x1xi32>) -> "
     "tensor<2x4xf32>\n"
     "  return %0 : tensor<2x4xf32>\n}\n",
     "requires attribute 'dimension_numbers'", 2, 3},
    {"gather batching sizes",
     "func.func @f(%a: tensor<5x3x4xf32>, %i: tensor<6x2x1xi32>) -> tensor<6x2x4xf32> {\n"
     "  %0 = \"stablehlo.gather\"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [2], "
     "collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], "
     "start_index_map = [1], index_vector_dim = 2>, slice_sizes = array<i64: 1, 1, 4>} : "
     "(tensor<5x3x4xf32>, tensor<6x2x1xi32>) -> tensor<6x2x4xf32>\n"
     "  return %0 : tensor<6x2x4xf32>\n}\n",
     "batching dimension sizes must match", 2, 3},
    {"scatter update shape",
     "func.func @f(%a: tensor<3x4xf32>, %i: tensor<2x1xi32>, %u: tensor<2x5xf32>) -> tensor<3x4xf32> {\n"
     "  %0 = \"stablehlo.scatter\"(%a, %i, %u) " SCATTER_BODY
     " {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], "
     "scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<3x4xf32>, tensor<2x1xi32>, "
     "tensor<2x5xf32>) -> tensor<3x4xf32>\n"
     "  return %0 : tensor<3x4xf32>\n}\n",
     "update window dimension 1 has size 5, larger than input dimension 1 (4)", 2, 3},
    {"scatter update rank",
     "func.func @f(%a: tensor<3x4xf32>, %i: tensor<2x1xi32>, %u: tensor<2x4x1xf32>) -> tensor<3x4xf32> {\n"
     "  %0 = \"stablehlo.scatter\"(%a, %i, %u) " SCATTER_BODY
     " {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], "
     "scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<3x4xf32>, tensor<2x1xi32>, "
     "tensor<2x4x1xf32>) -> tensor<3x4xf32>\n"
     "  return %0 : tensor<3x4xf32>\n}\n",
     "expects updates to have rank 2", 2, 3},
    {"scatter body",
     "func.func @f(%a: tensor<3x4xf32>, %i: tensor<2x1xi32>, %u: tensor<2x4xf32>) -> tensor<3x4xf32> {\n"
     "  %0 = \"stablehlo.scatter\"(%a, %i, %u) ({\n  ^bb0(%x: tensor<f32>):\n    stablehlo.return %x : tensor<f32>\n"
     "  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], "
     "scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<3x4xf32>, tensor<2x1xi32>, "
     "tensor<2x4xf32>) -> tensor<3x4xf32>\n"
     "  return %0 : tensor<3x4xf32>\n}\n",
     "reduction region must take 2 arguments, but takes 1", 2, 3},
    {"scatter empty region",
     "func.func @f(%a: tensor<3x4xf32>, %i: tensor<2x1xi32>, %u: tensor<2x4xf32>) -> tensor<3x4xf32> {\n"
     "  %0 = \"stablehlo.scatter\"(%a, %i, %u) ({\n  }) {scatter_dimension_numbers = #stablehlo.scatter<"
     "update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
     "index_vector_dim = 1>} : (tensor<3x4xf32>, tensor<2x1xi32>, tensor<2x4xf32>) -> tensor<3x4xf32>\n"
     "  return %0 : tensor<3x4xf32>\n}\n",
     "region #0 must have exactly one block, got 0", 2, 3},
    {"scatter operand count",
     "func.func @f(%a: tensor<3x4xf32>, %i: tensor<2x1xi32>) -> tensor<3x4xf32> {\n"
     "  %0 = \"stablehlo.scatter\"(%a, %i) " SCATTER_BODY
     " {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1]>} : (tensor<3x4xf32>, "
     "tensor<2x1xi32>) -> tensor<3x4xf32>\n"
     "  return %0 : tensor<3x4xf32>\n}\n",
     "expects N inputs, the scatter indices and N updates, got 2 operands", 2, 3},
    /* valid */
    {"valid gather and scatter",
     "func.func @f(%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi32>, %d: tensor<?x10x10x10xf32>, %j: tensor<?x2xi32>,\n"
     "             %b: tensor<5x3x4xf32>, %k: tensor<5x2x1xi32>, %s: tensor<3x4xf32>, %t: tensor<i32>,\n"
     "             %u: tensor<4xf32>) -> tensor<2x3x2x2xf32> {\n"
     "  %0 = \"stablehlo.gather\"(%a, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], "
     "collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>, indices_are_sorted = true, "
     "slice_sizes = array<i64: 1, 2, 2>}> : (tensor<3x4x2xf32>, tensor<2x3x2xi32>) -> tensor<2x3x2x2xf32>\n"
     "  %1 = \"stablehlo.gather\"(%d, %j) {dimension_numbers = #stablehlo.gather<offset_dims = [1, 2], "
     "collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, "
     "slice_sizes = array<i64: 1, 1, 10, 10>} : (tensor<?x10x10x10xf32>, tensor<?x2xi32>) -> tensor<?x10x10xf32>\n"
     "  %2 = \"stablehlo.gather\"(%b, %k) {dimension_numbers = #stablehlo.gather<offset_dims = [2], "
     "collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], "
     "start_index_map = [1], index_vector_dim = 2>, slice_sizes = array<i64: 1, 1, 4>} : "
     "(tensor<5x3x4xf32>, tensor<5x2x1xi32>) -> tensor<5x2x4xf32>\n"
     "  %3 = \"stablehlo.scatter\"(%s, %t, %u) " SCATTER_BODY
     " {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [0], "
     "scatter_dims_to_operand_dims = [0], index_vector_dim = 0>} : (tensor<3x4xf32>, tensor<i32>, tensor<4xf32>) "
     "-> tensor<3x4xf32>\n"
     "  return %0 : tensor<2x3x2x2xf32>\n}\n",
     NULL, 0, 0},
};

static void test_gather_scatter(void **state) {
  (void)state;
  RUN(gathers);
}

/* ------------------------------------------------------------------ reductions */

#define ADD_BODY(T)                                                                                   \
  "({\n  ^bb0(%x: " T ", %y: " T "):\n    %sum = stablehlo.add %x, %y : " T "\n    stablehlo.return %sum : " T \
  "\n  })"

static const vcase reductions[] = {
    {"reduce dimension",
     "func.func @f(%a: tensor<2x3xf32>, %z: tensor<f32>) -> tensor<2xf32> {\n"
     "  %0 = \"stablehlo.reduce\"(%a, %z) " ADD_BODY("tensor<f32>")
     " {dimensions = array<i64: 2>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>\n"
     "  return %0 : tensor<2xf32>\n}\n",
     "dimensions value 2 is out of range [0, 2)", 2, 3},
    {"reduce result",
     "func.func @f(%a: tensor<2x3xf32>, %z: tensor<f32>) -> tensor<3xf32> {\n"
     "  %0 = \"stablehlo.reduce\"(%a, %z) " ADD_BODY("tensor<f32>")
     " {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>\n"
     "  return %0 : tensor<3xf32>\n}\n",
     "inferred shape [2] is incompatible with result #0 type tensor<3xf32>", 2, 3},
    {"reduce body type",
     "func.func @f(%a: tensor<2x3xi32>, %z: tensor<i32>) -> tensor<2xi32> {\n"
     "  %0 = \"stablehlo.reduce\"(%a, %z) " ADD_BODY("tensor<f32>")
     " {dimensions = array<i64: 1>} : (tensor<2x3xi32>, tensor<i32>) -> tensor<2xi32>\n"
     "  return %0 : tensor<2xi32>\n}\n",
     "reduction region argument #1 type tensor<f32> must be promotable from the element type of tensor<2x3xi32>", 2, 3},
    /* is_promotable (spec reduce C6): no narrowing, no change of kind. */
    {"reduce narrowing body",
     "func.func @f(%a: tensor<2x3xi32>, %z: tensor<i8>) -> tensor<2xi8> {\n"
     "  %0 = \"stablehlo.reduce\"(%a, %z) " ADD_BODY("tensor<i8>")
     " {dimensions = array<i64: 1>} : (tensor<2x3xi32>, tensor<i8>) -> tensor<2xi8>\n"
     "  return %0 : tensor<2xi8>\n}\n",
     "reduction region argument #1 type tensor<i8> must be promotable from the element type of tensor<2x3xi32>", 2,
     3},
    {"reduce init of another kind",
     "func.func @f(%a: tensor<2x3xi8>, %z: tensor<f32>) -> tensor<2xi32> {\n"
     "  %0 = \"stablehlo.reduce\"(%a, %z) " ADD_BODY("tensor<i32>")
     " {dimensions = array<i64: 1>} : (tensor<2x3xi8>, tensor<f32>) -> tensor<2xi32>\n"
     "  return %0 : tensor<2xi32>\n}\n",
     "reduction region result #0 type tensor<i32> must be promotable from the element type of tensor<f32>", 2, 3},
    {"reduce init rank",
     "func.func @f(%a: tensor<2x3xf32>, %z: tensor<1xf32>) -> tensor<2xf32> {\n"
     "  %0 = \"stablehlo.reduce\"(%a, %z) " ADD_BODY("tensor<f32>")
     " {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2xf32>\n"
     "  return %0 : tensor<2xf32>\n}\n",
     "init value #0 must have rank 0", 2, 3},
    {"reduce missing terminator",
     "func.func @f(%a: tensor<2x3xf32>, %z: tensor<f32>) -> tensor<2xf32> {\n"
     "  %0 = \"stablehlo.reduce\"(%a, %z) ({\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
     "    %sum = stablehlo.add %x, %y : tensor<f32>\n  }) {dimensions = array<i64: 1>} : "
     "(tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>\n"
     "  return %0 : tensor<2xf32>\n}\n",
     "region #0 must end with 'stablehlo.return'", 2, 3},
    {"reduce_window result",
     "func.func @f(%a: tensor<8x9xf32>, %z: tensor<f32>) -> tensor<8x9xf32> {\n"
     "  %0 = \"stablehlo.reduce_window\"(%a, %z) " ADD_BODY("tensor<f32>")
     " {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 2, 1>} : (tensor<8x9xf32>, tensor<f32>) -> "
     "tensor<8x9xf32>\n"
     "  return %0 : tensor<8x9xf32>\n}\n",
     "inferred shape [4, 9] is incompatible with result #0 type tensor<8x9xf32>", 2, 3},
    {"reduce_window padding shape",
     "func.func @f(%a: tensor<8x9xf32>, %z: tensor<f32>) -> tensor<8x9xf32> {\n"
     "  %0 = \"stablehlo.reduce_window\"(%a, %z) " ADD_BODY("tensor<f32>")
     " {padding = dense<0> : tensor<3x2xi64>, window_dimensions = array<i64: 1, 1>} : (tensor<8x9xf32>, tensor<f32>)"
     " -> tensor<8x9xf32>\n"
     "  return %0 : tensor<8x9xf32>\n}\n",
     "expects 'padding' to have shape [2, 2], got tensor<3x2xi64>", 2, 3},
    {"reduce_window zero window",
     "func.func @f(%a: tensor<8x9xf32>, %z: tensor<f32>) -> tensor<8x9xf32> {\n"
     "  %0 = \"stablehlo.reduce_window\"(%a, %z) " ADD_BODY("tensor<f32>")
     " {window_dimensions = array<i64: 0, 1>} : (tensor<8x9xf32>, tensor<f32>) -> tensor<8x9xf32>\n"
     "  return %0 : tensor<8x9xf32>\n}\n",
     "expects window dimension 0 to be positive, got 0", 2, 3},
    {"select_and_scatter source",
     "func.func @f(%a: tensor<4x6xf32>, %s: tensor<2x2xf32>, %z: tensor<f32>) -> tensor<4x6xf32> {\n"
     "  %0 = \"stablehlo.select_and_scatter\"(%a, %s, %z) ({\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
     "    %c = stablehlo.compare GE, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
     "    stablehlo.return %c : tensor<i1>\n  }, {\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
     "    %t = stablehlo.add %x, %y : tensor<f32>\n    stablehlo.return %t : tensor<f32>\n  }) "
     "{window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>} : (tensor<4x6xf32>, "
     "tensor<2x2xf32>, tensor<f32>) -> tensor<4x6xf32>\n"
     "  return %0 : tensor<4x6xf32>\n}\n",
     "inferred shape [2, 3] is incompatible with source type tensor<2x2xf32>", 2, 3},
    {"select_and_scatter select result",
     "func.func @f(%a: tensor<4x6xf32>, %s: tensor<2x3xf32>, %z: tensor<f32>) -> tensor<4x6xf32> {\n"
     "  %0 = \"stablehlo.select_and_scatter\"(%a, %s, %z) ({\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
     "    stablehlo.return %x : tensor<f32>\n  }, {\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
     "    %t = stablehlo.add %x, %y : tensor<f32>\n    stablehlo.return %t : tensor<f32>\n  }) "
     "{window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>} : (tensor<4x6xf32>, "
     "tensor<2x3xf32>, tensor<f32>) -> tensor<4x6xf32>\n"
     "  return %0 : tensor<4x6xf32>\n}\n",
     "select region must return tensor<i1>, got tensor<f32>", 2, 3},
    {"sort comparator",
     "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
     "  %0 = \"stablehlo.sort\"(%a) ({\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
     "    stablehlo.return %x : tensor<f32>\n  }) {dimension = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>\n"
     "  return %0 : tensor<4xf32>\n}\n",
     "comparator must return tensor<i1>, got tensor<f32>", 2, 3},
    {"sort dimension",
     "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
     "  %0 = \"stablehlo.sort\"(%a) ({\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
     "    %c = stablehlo.compare LT, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
     "    stablehlo.return %c : tensor<i1>\n  }) {dimension = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>\n"
     "  return %0 : tensor<4xf32>\n}\n",
     "dimension 1 is out of range [-1, 1)", 2, 3},
    {"map dimensions",
     "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
     "  %0 = \"stablehlo.map\"(%a, %a) " ADD_BODY("tensor<f32>")
     " {dimensions = array<i64: 1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n"
     "  return %0 : tensor<4xf32>\n}\n",
     "requires dimensions to be [0, 1, ..., rank - 1]", 2, 3},
    /* valid */
    {"valid reductions",
     "func.func @f(%a: tensor<2x0xf32>, %z: tensor<f32>, %d: tensor<?x3xi32>, %zi: tensor<i32>,\n"
     "             %w: tensor<8x9xf32>, %s: tensor<f32>) -> tensor<2xf32> {\n"
     "  %0 = \"stablehlo.reduce\"(%a, %z) " ADD_BODY("tensor<f32>")
     " {dimensions = array<i64: 1>} : (tensor<2x0xf32>, tensor<f32>) -> tensor<2xf32>\n"
     "  %1:2 = \"stablehlo.reduce\"(%d, %d, %zi, %zi) ({\n"
     "  ^bb0(%x: tensor<i32>, %y: tensor<i32>, %u: tensor<i32>, %v: tensor<i32>):\n"
     "    stablehlo.return %x, %v : tensor<i32>, tensor<i32>\n  }) {dimensions = array<i64: 0, 1>} : "
     "(tensor<?x3xi32>, tensor<?x3xi32>, tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)\n"
     "  %2 = \"stablehlo.reduce_window\"(%w, %z) " ADD_BODY("tensor<f32>")
     " {padding = dense<[[7, 0], [0, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 8, 1>} : "
     "(tensor<8x9xf32>, tensor<f32>) -> tensor<8x9xf32>\n"
     "  %3:2 = \"stablehlo.sort\"(%d, %d) ({\n"
     "  ^bb0(%x: tensor<i32>, %y: tensor<i32>, %u: tensor<i32>, %v: tensor<i32>):\n"
     "    %c = stablehlo.compare LT, %x, %y : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
     "    stablehlo.return %c : tensor<i1>\n  }) {dimension = -1 : i64, is_stable = true} : "
     "(tensor<?x3xi32>, tensor<?x3xi32>) -> (tensor<?x3xi32>, tensor<?x3xi32>)\n"
     "  %4 = \"stablehlo.map\"(%w, %w) " ADD_BODY("tensor<f32>")
     " {dimensions = array<i64: 0, 1>} : (tensor<8x9xf32>, tensor<8x9xf32>) -> tensor<8x9xf32>\n"
     "  %5 = \"stablehlo.reduce\"(%s, %z) " ADD_BODY("tensor<f32>")
     " {dimensions = array<i64>} : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
     "  return %0 : tensor<2xf32>\n}\n",
     NULL, 0, 0},
};

static void test_reductions(void **state) {
  (void)state;
  RUN(reductions);
}

/* ------------------------------------------------------------------ linear algebra */

static const vcase linalg[] = {
    {"dot_general contracting",
     "func.func @f(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {\n"
     "  %0 = \"stablehlo.dot_general\"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = "
     "[1], rhs_contracting_dimensions = [0]>} : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>\n"
     "  return %0 : tensor<2x5xf32>\n}\n",
     "contracting dimension sizes must match for lhs/rhs", 2, 3},
    {"dot_general result",
     "func.func @f(%a: tensor<7x2x3xf32>, %b: tensor<7x3x5xf32>) -> tensor<7x5x2xf32> {\n"
     "  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : "
     "(tensor<7x2x3xf32>, tensor<7x3x5xf32>) -> tensor<7x5x2xf32>\n"
     "  return %0 : tensor<7x5x2xf32>\n}\n",
     "inferred shape [7, 2, 5] is incompatible with result type tensor<7x5x2xf32>", 2, 3},
    {"dot_general duplicate",
     "func.func @f(%a: tensor<3x3xf32>, %b: tensor<3x3xf32>) -> tensor<3xf32> {\n"
     "  %0 = \"stablehlo.dot_general\"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = "
     "[0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [1]>} : "
     "(tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3xf32>\n"
     "  return %0 : tensor<3xf32>\n}\n",
     "has duplicated dimension from lhs_batching_dimensions and lhs_contracting_dimensions: 0", 2, 3},
    {"dot_general range",
     "func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x5xf32> {\n"
     "  %0 = \"stablehlo.dot_general\"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = "
     "[-1], rhs_contracting_dimensions = [0]>} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>\n"
     "  return %0 : tensor<2x5xf32>\n}\n",
     "lhs_contracting_dimensions value -1 is out of range [0, 2)", 2, 3},
    {"dot_general precision",
     "func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x5xf32> {\n"
     "  %0 = \"stablehlo.dot_general\"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = "
     "[1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGH>, "
     "#stablehlo<precision HIGH>, #stablehlo<precision HIGH>]} : (tensor<2x3xf32>, tensor<3x5xf32>) -> "
     "tensor<2x5xf32>\n"
     "  return %0 : tensor<2x5xf32>\n}\n",
     "expects precision_config to be empty or have <= 2 elements", 2, 3},
    {"dot rank",
     "func.func @f(%a: tensor<2x3x4xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {\n"
     "  %0 = \"stablehlo.dot\"(%a, %b) : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3xf32>\n"
     "  return %0 : tensor<2x3xf32>\n}\n",
     "expected both lhs/rhs ranks to be either 1 or 2", 2, 3},
    {"convolution features",
     "func.func @f(%a: tensor<1x8x8x3xf32>, %k: tensor<3x3x4x16xf32>) -> tensor<1x6x6x16xf32> {\n"
     "  %0 = stablehlo.convolution(%a, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} "
     "{batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x4x16xf32>) "
     "-> tensor<1x6x6x16xf32>\n"
     "  return %0 : tensor<1x6x6x16xf32>\n}\n",
     "expects input feature dimension (3) / feature_group_count (1) = kernel input feature dimension (4)", 2, 3},
    {"convolution result",
     "func.func @f(%a: tensor<1x8x8x3xf32>, %k: tensor<3x3x3x16xf32>) -> tensor<1x8x8x16xf32> {\n"
     "  %0 = \"stablehlo.convolution\"(%a, %k) {batch_group_count = 1 : i64, dimension_numbers = "
     "#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, "
     "window_strides = array<i64: 2, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) -> tensor<1x8x8x16xf32>\n"
     "  return %0 : tensor<1x8x8x16xf32>\n}\n",
     "inferred shape [1, 3, 6, 16] is incompatible with result type tensor<1x8x8x16xf32>", 2, 3},
    {"convolution groups",
     "func.func @f(%a: tensor<1x8x8x4xf32>, %k: tensor<3x3x2x16xf32>) -> tensor<1x6x6x16xf32> {\n"
     "  %0 = \"stablehlo.convolution\"(%a, %k) {batch_group_count = 2 : i64, dimension_numbers = "
     "#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 2 : i64} : "
     "(tensor<1x8x8x4xf32>, tensor<3x3x2x16xf32>) -> tensor<1x6x6x16xf32>\n"
     "  return %0 : tensor<1x6x6x16xf32>\n}\n",
     "not to be both greater than 1", 2, 3},
    {"fft element",
     "func.func @f(%a: tensor<8xf32>) -> tensor<8xcomplex<f32>> {\n"
     "  %0 = \"stablehlo.fft\"(%a) {fft_length = array<i64: 8>, fft_type = #stablehlo<fft_type FFT>} : "
     "(tensor<8xf32>) -> tensor<8xcomplex<f32>>\n"
     "  return %0 : tensor<8xcomplex<f32>>\n}\n",
     "FFT, IFFT and IRFFT take a complex operand", 2, 3},
    {"rfft result",
     "func.func @f(%a: tensor<8xf32>) -> tensor<8xcomplex<f32>> {\n"
     "  %0 = \"stablehlo.fft\"(%a) {fft_length = array<i64: 8>, fft_type = #stablehlo<fft_type RFFT>} : "
     "(tensor<8xf32>) -> tensor<8xcomplex<f32>>\n"
     "  return %0 : tensor<8xcomplex<f32>>\n}\n",
     "inferred shape [5] is incompatible with result type tensor<8xcomplex<f32>>", 2, 3},
    {"cholesky square",
     "func.func @f(%a: tensor<3x4xf32>) -> tensor<3x4xf32> {\n"
     "  %0 = \"stablehlo.cholesky\"(%a) {lower = true} : (tensor<3x4xf32>) -> tensor<3x4xf32>\n"
     "  return %0 : tensor<3x4xf32>\n}\n",
     "minor dimensions of the operand must have equal size", 2, 3},
    {"triangular_solve shared",
     "func.func @f(%a: tensor<3x3xf32>, %b: tensor<4x2xf32>) -> tensor<4x2xf32> {\n"
     "  %0 = \"stablehlo.triangular_solve\"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, "
     "transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<3x3xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>\n"
     "  return %0 : tensor<4x2xf32>\n}\n",
     "shared dimension of operands 'a' and 'b' must match", 2, 3},
    {"batch_norm feature index",
     "func.func @f(%a: tensor<2x3xf32>, %v: tensor<3xf32>) -> tensor<2x3xf32> {\n"
     "  %0 = \"stablehlo.batch_norm_inference\"(%a, %v, %v, %v, %v) {epsilon = 1.0e-3 : f32, feature_index = 2 : i64}"
     " : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>\n"
     "  return %0 : tensor<2x3xf32>\n}\n",
     "expects feature_index (2) to be smaller than the operand rank (2)", 2, 3},
    {"batch_norm features",
     "func.func @f(%a: tensor<2x3xf32>, %v: tensor<2xf32>) -> tensor<2x3xf32> {\n"
     "  %0:3 = \"stablehlo.batch_norm_training\"(%a, %v, %v) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64}"
     " : (tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>)\n"
     "  return %0#0 : tensor<2x3xf32>\n}\n",
     "operand #1 type tensor<2xf32> must have the feature count (3) of the operand", 2, 3},
    /* valid */
    {"valid linalg",
     "func.func @f(%a: tensor<?x7x3x4xf32>, %b: tensor<?x7x4xf32>, %v: tensor<3xf32>, %m: tensor<3x3xf32>,\n"
     "             %x: tensor<2x3x10xf32>, %k: tensor<3x3x5xf32>, %c: tensor<4x5xcomplex<f32>>,\n"
     "             %s: tensor<2x3xf32>) -> tensor<?x7x3xf32> {\n"
     "  %0 = \"stablehlo.dot_general\"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = "
     "[0, 1], rhs_batching_dimensions = [0, 1], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2]>,"
     " precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : "
     "(tensor<?x7x3x4xf32>, tensor<?x7x4xf32>) -> tensor<?x7x3xf32>\n"
     "  %1 = \"stablehlo.dot\"(%v, %v) : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>\n"
     "  %2 = \"stablehlo.dot\"(%m, %v) : (tensor<3x3xf32>, tensor<3xf32>) -> tensor<3xf32>\n"
     "  %3 = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {} "
     "{batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x10xf32>, tensor<3x3x5xf32>) -> "
     "tensor<2x3x6xf32>\n"
     "  %4 = \"stablehlo.fft\"(%c) {fft_length = array<i64: 8>, fft_type = #stablehlo<fft_type IRFFT>} : "
     "(tensor<4x5xcomplex<f32>>) -> tensor<4x8xf32>\n"
     "  %5 = \"stablehlo.fft\"(%4) {fft_length = array<i64: 4, 8>, fft_type = #stablehlo<fft_type RFFT>} : "
     "(tensor<4x8xf32>) -> tensor<4x5xcomplex<f32>>\n"
     "  %6 = \"stablehlo.cholesky\"(%m) : (tensor<3x3xf32>) -> tensor<3x3xf32>\n"
     "  %7 = \"stablehlo.triangular_solve\"(%m, %m) {left_side = false, lower = true, unit_diagonal = true, "
     "transpose_a = #stablehlo<transpose ADJOINT>} : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>\n"
     "  %8:3 = \"stablehlo.batch_norm_grad\"(%s, %v, %v, %v, %s) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64}"
     " : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, "
     "tensor<3xf32>, tensor<3xf32>)\n"
     "  %9 = \"stablehlo.convolution\"(%x, %k) {batch_group_count = 1 : i64, dimension_numbers = "
     "#stablehlo.conv<[b, f, 0]x[o, i, 0]->[b, f, 0]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 2>,"
     " padding = dense<[[1, 2]]> : tensor<1x2xi64>, rhs_dilation = array<i64: 2>, window_strides = array<i64: 3>} :"
     " (tensor<2x3x10xf32>, tensor<3x3x5xf32>) -> tensor<2x3x5xf32>\n"
     "  return %0 : tensor<?x7x3xf32>\n}\n",
     NULL, 0, 0},
};

static void test_linalg(void **state) {
  (void)state;
  RUN(linalg);
}

/* ------------------------------------------------------------------ control flow */

static const vcase control[] = {
    {"return type",
     "func.func @f(%a: tensor<2xf32>) -> tensor<3xf32> {\n"
     "  return %a : tensor<2xf32>\n}\n",
     "'func.return' type of operand #0 (tensor<2xf32>) does not match the function result type tensor<3xf32>", 2, 3},
    {"return count",
     "func.func @f(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {\n"
     "  return %a : tensor<2xf32>\n}\n",
     "has 1 operands, but the enclosing function returns 2 values", 2, 3},
    {"stablehlo.return in a function",
     "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
     "  stablehlo.return %a : tensor<2xf32>\n}\n",
     "must be inside the region of a stablehlo op", 2, 3},
    {"function without return",
     "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
     "  %0 = stablehlo.add %a, %a : tensor<2xf32>\n}\n",
     "body of @f must end with 'func.return'", 1, 1},
    {"public declaration",
     "func.func @g(tensor<2xf32>) -> tensor<2xf32>\n",
     "symbol declaration cannot have public visibility", 1, 1},
    {"duplicate symbol",
     "func.func @f() {\n  return\n}\nfunc.func @f() {\n  return\n}\n",
     "redefinition of symbol 'f'", 1, 1},
    {"call unresolved",
     "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
     "  %0 = call @missing(%a) : (tensor<2xf32>) -> tensor<2xf32>\n"
     "  return %0 : tensor<2xf32>\n}\n",
     "'callee' @missing does not refer to a function in this module", 2, 3},
    {"call types",
     "func.func private @g(%a: tensor<2xf32>) -> tensor<2xf32> {\n  return %a : tensor<2xf32>\n}\n"
     "func.func @f(%a: tensor<2xi32>) -> tensor<2xf32> {\n"
     "  %0 = call @g(%a) : (tensor<2xi32>) -> tensor<2xf32>\n"
     "  return %0 : tensor<2xf32>\n}\n",
     "operand #0 type tensor<2xi32> does not match input type tensor<2xf32> of @g", 5, 3},
    {"while cond",
     "func.func @f(%a: tensor<i32>) -> tensor<i32> {\n"
     "  %0 = \"stablehlo.while\"(%a) ({\n  ^bb0(%x: tensor<i32>):\n    stablehlo.return %x : tensor<i32>\n"
     "  }, {\n  ^bb0(%x: tensor<i32>):\n    stablehlo.return %x : tensor<i32>\n  }) : (tensor<i32>) -> tensor<i32>\n"
     "  return %0 : tensor<i32>\n}\n",
     "cond must return tensor<i1>, got tensor<i32>", 2, 3},
    {"while body",
     "func.func @f(%a: tensor<i32>, %p: tensor<i1>) -> tensor<i32> {\n"
     "  %0 = \"stablehlo.while\"(%a) ({\n  ^bb0(%x: tensor<i32>):\n    stablehlo.return %p : tensor<i1>\n"
     "  }, {\n  ^bb0(%x: tensor<i32>):\n    stablehlo.return %p : tensor<i1>\n  }) : (tensor<i32>) -> tensor<i32>\n"
     "  return %0 : tensor<i32>\n}\n",
     "body result #0 type tensor<i1> is incompatible with result #0 type tensor<i32>", 2, 3},
    {"if predicate",
     "func.func @f(%p: tensor<i32>, %a: tensor<2xf32>) -> tensor<2xf32> {\n"
     "  %0 = \"stablehlo.if\"(%p) ({\n    stablehlo.return %a : tensor<2xf32>\n  }, {\n"
     "    stablehlo.return %a : tensor<2xf32>\n  }) : (tensor<i32>) -> tensor<2xf32>\n"
     "  return %0 : tensor<2xf32>\n}\n",
     "predicate must be tensor<i1>, got tensor<i32>", 2, 3},
    {"if branch",
     "func.func @f(%p: tensor<i1>, %a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {\n"
     "  %0 = \"stablehlo.if\"(%p) ({\n    stablehlo.return %a : tensor<2xf32>\n  }, {\n"
     "    stablehlo.return %b : tensor<3xf32>\n  }) : (tensor<i1>) -> tensor<2xf32>\n"
     "  return %0 : tensor<2xf32>\n}\n",
     "branch #1 result #0 type tensor<3xf32> is incompatible with result #0 type tensor<2xf32>", 2, 3},
    {"case index",
     "func.func @f(%i: tensor<i64>, %a: tensor<2xf32>) -> tensor<2xf32> {\n"
     "  %0 = \"stablehlo.case\"(%i) ({\n    stablehlo.return %a : tensor<2xf32>\n  }) : (tensor<i64>) -> "
     "tensor<2xf32>\n"
     "  return %0 : tensor<2xf32>\n}\n",
     "index must be tensor<i32>, got tensor<i64>", 2, 3},
    {"custom_call computations",
     "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
     "  %0 = \"stablehlo.custom_call\"(%a) {call_target_name = \"foo\", called_computations = [\"nope\"]} : "
     "(tensor<2xf32>) -> tensor<2xf32>\n"
     "  return %0 : tensor<2xf32>\n}\n",
     "called_computations entry #0 must be a symbol", 2, 3},
    {"custom_call layouts",
     "func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
     "  %0 = \"stablehlo.custom_call\"(%a) {call_target_name = \"foo\", operand_layouts = [dense<[1, 1]> : "
     "tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<2x3xf32>) -> tensor<2x3xf32>\n"
     "  return %0 : tensor<2x3xf32>\n}\n",
     "operand_layouts #0 has duplicate value 1", 2, 3},
    {"custom_call one-sided layouts",
     "func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
     "  %0 = \"stablehlo.custom_call\"(%a) {call_target_name = \"foo\", operand_layouts = [dense<[1, 0]> : "
     "tensor<2xindex>]} : (tensor<2x3xf32>) -> tensor<2x3xf32>\n"
     "  return %0 : tensor<2x3xf32>\n}\n",
     "'operand_layouts' is given without 'result_layouts'", 2, 3},
    {"custom_call results-only layouts",
     "func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
     "  %0 = \"stablehlo.custom_call\"(%a) {call_target_name = \"foo\", result_layouts = [dense<[1, 0]> : "
     "tensor<2xindex>]} : (tensor<2x3xf32>) -> tensor<2x3xf32>\n"
     "  return %0 : tensor<2x3xf32>\n}\n",
     "'result_layouts' is given without 'operand_layouts'", 2, 3},
    {"custom_call alias",
     "func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {\n"
     "  %0 = \"stablehlo.custom_call\"(%a) {call_target_name = \"foo\", output_operand_aliases = "
     "[#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 3, operand_tuple_indices = []>]}"
     " : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
     "  return %0 : tensor<3x2xf32>\n}\n",
     "operand_index 3 is out of range [0, 1)", 2, 3},
    {"custom_call target",
     "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
     "  %0 = \"stablehlo.custom_call\"(%a) {api_version = 2 : i32} : (tensor<2xf32>) -> tensor<2xf32>\n"
     "  return %0 : tensor<2xf32>\n}\n",
     "requires a string attribute 'call_target_name'", 2, 3},
    {"tuple index",
     "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
     "  %t = \"stablehlo.tuple\"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tuple<tensor<2xf32>, tensor<2xf32>>\n"
     "  %0 = \"stablehlo.get_tuple_element\"(%t) {index = 2 : i32} : (tuple<tensor<2xf32>, tensor<2xf32>>) -> "
     "tensor<2xf32>\n"
     "  return %0 : tensor<2xf32>\n}\n",
     "index 2 is out of bounds of a tuple with 2 elements", 3, 3},
    {"tuple type",
     "func.func @f(%a: tensor<2xf32>) -> tuple<tensor<3xf32>> {\n"
     "  %t = \"stablehlo.tuple\"(%a) : (tensor<2xf32>) -> tuple<tensor<3xf32>>\n"
     "  return %t : tuple<tensor<3xf32>>\n}\n",
     "tuple element #0 type tensor<3xf32> does not match operand #0 type tensor<2xf32>", 2, 3},
    {"after_all",
     "func.func @f(%a: tensor<2xf32>) -> !stablehlo.token {\n"
     "  %0 = \"stablehlo.after_all\"(%a) : (tensor<2xf32>) -> !stablehlo.token\n"
     "  return %0 : !stablehlo.token\n}\n",
     "operand #0 must be a token", 2, 3},
    {"optimization_barrier",
     "func.func @f(%a: tensor<2xf32>) -> tensor<3xf32> {\n"
     "  %0 = \"stablehlo.optimization_barrier\"(%a) : (tensor<2xf32>) -> tensor<3xf32>\n"
     "  return %0 : tensor<3xf32>\n}\n",
     "operand #0 type tensor<2xf32> does not match result #0 type tensor<3xf32>", 2, 3},
    {"composite decomposition",
     "func.func private @d(%a: tensor<2xf32>) -> tensor<2xf32> {\n  return %a : tensor<2xf32>\n}\n"
     "func.func @f(%a: tensor<2xf32>) -> tensor<3xf32> {\n"
     "  %0 = \"stablehlo.composite\"(%a) {name = \"my.op\", decomposition = @d} : (tensor<2xf32>) -> tensor<3xf32>\n"
     "  return %0 : tensor<3xf32>\n}\n",
     "result #0 type tensor<3xf32> does not match result type tensor<2xf32> of @d", 5, 3},
    /* valid */
    {"valid control flow",
     "func.func private @g(%a: tensor<?xf32>) -> tensor<?xf32> {\n  return %a : tensor<?xf32>\n}\n"
     "func.func private @decl(tensor<2xf32>) -> tensor<2xf32>\n"
     "func.func @f(%a: tensor<?xf32>, %i: tensor<i32>, %p: tensor<i1>, %t: !stablehlo.token) -> tensor<?xf32> {\n"
     "  %0 = call @g(%a) : (tensor<?xf32>) -> tensor<?xf32>\n"
     "  %1:2 = \"stablehlo.while\"(%i, %a) ({\n  ^bb0(%x: tensor<i32>, %y: tensor<?xf32>):\n"
     "    stablehlo.return %p : tensor<i1>\n  }, {\n  ^bb0(%x: tensor<i32>, %y: tensor<?xf32>):\n"
     "    stablehlo.return %x, %y : tensor<i32>, tensor<?xf32>\n  }) : (tensor<i32>, tensor<?xf32>) -> "
     "(tensor<i32>, tensor<?xf32>)\n"
     "  %2 = \"stablehlo.if\"(%p) ({\n    stablehlo.return %a : tensor<?xf32>\n  }, {\n"
     "    stablehlo.return %0 : tensor<?xf32>\n  }) : (tensor<i1>) -> tensor<?xf32>\n"
     "  %3 = \"stablehlo.case\"(%i) ({\n    stablehlo.return %a : tensor<?xf32>\n  }) : (tensor<i32>) -> "
     "tensor<?xf32>\n"
     "  %4 = \"stablehlo.custom_call\"(%a, %t) {api_version = 4 : i32, backend_config = {x = 1 : i64}, "
     "call_target_name = \"foo\", called_computations = [@g], has_side_effect = true, operand_layouts = "
     "[dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>], result_layouts = [dense<0> : tensor<1xindex>], "
     "output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, "
     "operand_tuple_indices = []>]} : (tensor<?xf32>, !stablehlo.token) -> tensor<?xf32>\n"
     "  %5 = \"stablehlo.tuple\"(%a, %t) : (tensor<?xf32>, !stablehlo.token) -> tuple<tensor<?xf32>, "
     "!stablehlo.token>\n"
     "  %6 = \"stablehlo.get_tuple_element\"(%5) {index = 1 : i32} : (tuple<tensor<?xf32>, !stablehlo.token>) -> "
     "!stablehlo.token\n"
     "  %7 = \"stablehlo.after_all\"(%t, %6) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token\n"
     "  %8 = \"stablehlo.create_token\"() : () -> !stablehlo.token\n"
     "  %9:2 = \"stablehlo.optimization_barrier\"(%a, %t) : (tensor<?xf32>, !stablehlo.token) -> "
     "(tensor<?xf32>, !stablehlo.token)\n"
     "  %10 = \"stablehlo.composite\"(%a) {name = \"my.op\", decomposition = @g, version = 1 : i32, "
     "composite_attributes = {k = 2 : i64}} : (tensor<?xf32>) -> tensor<?xf32>\n"
     "  return %2 : tensor<?xf32>\n}\n",
     NULL, 0, 0},
};

static void test_control(void **state) {
  (void)state;
  RUN(control);
}

/* ------------------------------------------------------------------ misc */

static const vcase misc[] = {
    {"constant value of a foreign dialect",
     "func.func @f() -> tensor<f32> {\n"
     "  %0 = \"stablehlo.constant\"() <{value = #sdy.sharding<@mesh, [{}, {\"x\"}]>}> : () -> tensor<f32>\n"
     "  return %0 : tensor<f32>\n}\n",
     "attribute 'value' must be an elements attribute", 2, 3},
    {"constant from a resource blob",
     "func.func @f() -> tensor<2xf32> {\n"
     "  %0 = \"stablehlo.constant\"() <{value = dense_resource<blob1> : tensor<2xf32>}> : () -> tensor<2xf32>\n"
     "  return %0 : tensor<2xf32>\n}\n",
     NULL, 0, 0},
    {"multi-result alias picks a result",
     "func.func @f(%a: tensor<2xf32>, %b: tensor<3xi32>) -> tensor<3xi32> {\n"
     "  %0:2 = stablehlo.custom_call @t(%a, %b) {output_operand_aliases = [#stablehlo.output_operand_alias<"
     "output_tuple_indices = [1], operand_index = 1, operand_tuple_indices = []>]} : "
     "(tensor<2xf32>, tensor<3xi32>) -> (tensor<2xf32>, tensor<3xi32>)\n"
     "  return %0#1 : tensor<3xi32>\n}\n",
     NULL, 0, 0},
    {"multi-result alias of another type",
     "func.func @f(%a: tensor<2xf32>, %b: tensor<3xi32>) -> tensor<3xi32> {\n"
     "  %0:2 = stablehlo.custom_call @t(%a, %b) {output_operand_aliases = [#stablehlo.output_operand_alias<"
     "output_tuple_indices = [0], operand_index = 1, operand_tuple_indices = []>]} : "
     "(tensor<2xf32>, tensor<3xi32>) -> (tensor<2xf32>, tensor<3xi32>)\n"
     "  return %0#1 : tensor<3xi32>\n}\n",
     "of another type", 2, 3},
    {"constant type",
     "func.func @f() -> tensor<3xf32> {\n"
     "  %0 = \"stablehlo.constant\"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>\n"
     "  return %0 : tensor<3xf32>\n}\n",
     "value type tensor<2xf32> does not match result type tensor<3xf32>", 2, 3},
    {"constant without value",
     "func.func @f() -> tensor<3xf32> {\n"
     "  %0 = \"stablehlo.constant\"() : () -> tensor<3xf32>\n"
     "  return %0 : tensor<3xf32>\n}\n",
     "requires attribute 'value'", 2, 3},
    {"rng shape",
     "func.func @f(%a: tensor<f32>) -> tensor<2x3xf32> {\n"
     "  %s = stablehlo.constant dense<[2, 4]> : tensor<2xi64>\n"
     "  %0 = \"stablehlo.rng\"(%a, %a, %s) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : "
     "(tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x3xf32>\n"
     "  return %0 : tensor<2x3xf32>\n}\n",
     "inferred shape [2, 4] is incompatible with result type tensor<2x3xf32>", 3, 3},
    {"rng normal ints",
     "func.func @f(%a: tensor<i32>, %s: tensor<1xi64>) -> tensor<4xi32> {\n"
     "  %0 = \"stablehlo.rng\"(%a, %a, %s) {rng_distribution = #stablehlo<rng_distribution NORMAL>} : "
     "(tensor<i32>, tensor<i32>, tensor<1xi64>) -> tensor<4xi32>\n"
     "  return %0 : tensor<4xi32>\n}\n",
     "operand #0 (mu) must be a tensor of floating-point values", 2, 3},
    {"rng_bit_generator state",
     "func.func @f(%s: tensor<3xui64>) -> tensor<4xui32> {\n"
     "  %0:2 = \"stablehlo.rng_bit_generator\"(%s) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : "
     "(tensor<3xui64>) -> (tensor<3xui64>, tensor<4xui32>)\n"
     "  return %0#1 : tensor<4xui32>\n}\n",
     "THREE_FRY requires an initial state of 2 elements", 2, 3},
    {"check const",
     "func.func @f(%a: tensor<2xi32>) {\n"
     "  \"check.expect_eq_const\"(%a) <{value = dense<[1, 2, 3]> : tensor<3xi32>}> : (tensor<2xi32>) -> ()\n"
     "  return\n}\n",
     "value type tensor<3xi32> does not match operand type tensor<2xi32>", 2, 3},
    {"check pair",
     "func.func @f(%a: tensor<2xi32>, %b: tensor<2xf32>) {\n"
     "  \"check.expect_eq\"(%a, %b) : (tensor<2xi32>, tensor<2xf32>) -> ()\n"
     "  return\n}\n",
     "operand #0 type tensor<2xi32> is incompatible with operand #1 type tensor<2xf32>", 2, 3},
    {"chlo broadcast",
     "func.func @f(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {\n"
     "  %0 = \"chlo.broadcast_add\"(%a, %b) : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>\n"
     "  return %0 : tensor<2x3xf32>\n}\n",
     "operand #1 type tensor<4xf32> does not broadcast to result type tensor<2x3xf32>", 2, 3},
    {"top_k",
     "func.func @f(%a: tensor<5x3xf32>) -> tensor<5x4xf32> {\n"
     "  %0:2 = \"chlo.top_k\"(%a) {k = 4 : i64} : (tensor<5x3xf32>) -> (tensor<5x4xf32>, tensor<5x4xi32>)\n"
     "  return %0#0 : tensor<5x4xf32>\n}\n",
     "operand's last dimension must be at least 4", 2, 3},
    {"dynamic_broadcast_in_dim",
     "func.func @f(%a: tensor<?xf32>, %s: tensor<3xi32>) -> tensor<?x?xf32> {\n"
     "  %0 = \"stablehlo.dynamic_broadcast_in_dim\"(%a, %s) {broadcast_dimensions = array<i64: 1>} : "
     "(tensor<?xf32>, tensor<3xi32>) -> tensor<?x?xf32>\n"
     "  return %0 : tensor<?x?xf32>\n}\n",
     "operand #1 type tensor<3xi32> must have 2 elements", 2, 3},
    {"dynamic_iota",
     "func.func @f(%s: tensor<2xi32>) -> tensor<?x4xi32> {\n"
     "  %0 = stablehlo.dynamic_iota %s, dim = 2 : (tensor<2xi32>) -> tensor<?x4xi32>\n"
     "  return %0 : tensor<?x4xi32>\n}\n",
     "iota_dimension 2 is out of range [0, 2)", 2, 3},
    {"dynamic_gather",
     "func.func @f(%a: tensor<3x4xf32>, %i: tensor<2x1xi32>, %s: tensor<2xi32>) -> tensor<2x4xf32> {\n"
     "  %0 = \"stablehlo.dynamic_gather\"(%a, %i, %s) {dimension_numbers = #stablehlo.gather<offset_dims = [1], "
     "start_index_map = [0], index_vector_dim = 1>} : (tensor<3x4xf32>, tensor<2x1xi32>, tensor<2xi32>) -> "
     "tensor<2x4xf32>\n"
     "  return %0 : tensor<2x4xf32>\n}\n",
     "is not equal to operand rank (2)", 2, 3},
    /* valid */
    {"valid misc",
     "func.func @f(%a: tensor<f32>, %st: tensor<2xui64>, %d: tensor<?x4xf32>, %sh: tensor<2xi32>,\n"
     "             %x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<2x4xf32> {\n"
     "  %s = stablehlo.constant dense<[2, 4]> : tensor<2xi64>\n"
     "  %0 = \"stablehlo.rng\"(%a, %a, %s) {rng_distribution = #stablehlo<rng_distribution NORMAL>} : "
     "(tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x4xf32>\n"
     "  %1:2 = \"stablehlo.rng_bit_generator\"(%st) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : "
     "(tensor<2xui64>) -> (tensor<2xui64>, tensor<0x3xf32>)\n"
     "  %2 = stablehlo.constant dense<> : tensor<0x2xi8>\n"
     "  %3 = \"stablehlo.constant\"() {value = dense<3> : tensor<2xi8>} : () -> "
     "tensor<2x!quant.uniform<i8:f32, 0.5:-1>>\n"
     "  \"check.expect_almost_eq_const\"(%0) <{value = dense<0.0> : tensor<2x4xf32>}> : (tensor<2x4xf32>) -> ()\n"
     "  \"check.expect_close\"(%0, %0) {max_ulp_difference = 3 : ui64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> ()\n"
     "  %4 = \"chlo.broadcast_add\"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>\n"
     "  %5 = \"chlo.broadcast_compare\"(%x, %y) {comparison_direction = #chlo<comparison_direction LT>} : "
     "(tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>\n"
     "  %6:2 = \"chlo.top_k\"(%d) {k = 2 : i64} : (tensor<?x4xf32>) -> (tensor<?x2xf32>, tensor<?x2xi32>)\n"
     "  %7 = \"stablehlo.dynamic_reshape\"(%d, %sh) : (tensor<?x4xf32>, tensor<2xi32>) -> tensor<?x?xf32>\n"
     "  %8 = \"stablehlo.dynamic_pad\"(%d, %a, %sh, %sh, %sh) : (tensor<?x4xf32>, tensor<f32>, tensor<2xi32>, "
     "tensor<2xi32>, tensor<2xi32>) -> tensor<?x?xf32>\n"
     "  %9 = \"stablehlo.real_dynamic_slice\"(%d, %sh, %sh, %sh) : (tensor<?x4xf32>, tensor<2xi32>, tensor<2xi32>, "
     "tensor<2xi32>) -> tensor<?x?xf32>\n"
     "  %10 = \"stablehlo.dynamic_broadcast_in_dim\"(%y, %sh) {broadcast_dimensions = array<i64: 1>} : "
     "(tensor<3xf32>, tensor<2xi32>) -> tensor<?x3xf32>\n"
     "  %11 = \"stablehlo.replica_id\"() : () -> tensor<ui32>\n"
     "  %12 = \"sdy.anything\"(%d) {whatever} : (tensor<?x4xf32>) -> tensor<1xi8>\n"
     "  return %0 : tensor<2x4xf32>\n}\n",
     NULL, 0, 0},
};

static void test_misc(void **state) {
  (void)state;
  RUN(misc);
}

/* ------------------------------------------------------------------ robustness */

/* A transpose of a rank-`rank` tensor of ones (made by broadcasting a
 * scalar); the permutation is a reversal, or all zeros when !valid. */
static char *big_rank_case(int rank, bool valid) {
  char *ty = malloc((size_t)rank * 2 + 16);
  size_t cap = (size_t)rank * 16 + 512, n = 0;
  char *s = malloc(cap);
  assert_non_null(ty);
  assert_non_null(s);
  size_t t = (size_t)sprintf(ty, "tensor<");
  for (int i = 0; i < rank; i++) t += (size_t)sprintf(ty + t, "1x");
  sprintf(ty + t, "f32>");
  n += (size_t)snprintf(s + n, cap - n,
                        "func.func @f(%%a: tensor<f32>) -> %s {\n"
                        "  %%b = stablehlo.broadcast_in_dim %%a, dims = [] : (tensor<f32>) -> %s\n"
                        "  %%0 = \"stablehlo.transpose\"(%%b) {permutation = array<i64: ",
                        ty, ty);
  for (int i = 0; i < rank; i++) n += (size_t)snprintf(s + n, cap - n, "%s%d", i ? ", " : "", valid ? rank - 1 - i : 0);
  snprintf(s + n, cap - n, ">} : (%s) -> %s\n  return %%0 : %s\n}\n", ty, ty, ty);
  free(ty);
  return s;
}

static void test_robustness(void **state) {
  (void)state;
  char *ok = big_rank_case(3000, true);
  vcase good[] = {{"rank 3000 transpose", ok, NULL, 0, 0}};
  run_cases(good, 1);
  free(ok);
  char *bad = big_rank_case(3000, false);
  vcase worse[] = {{"rank 3000 duplicate permutation", bad, "permutation has duplicate value 0", 3, 3}};
  run_cases(worse, 1);
  free(bad);
  static const vcase cases[] = {
      {"dot_general without dimension numbers",
       "func.func @f(%a: tensor<2x3xf32>) -> tensor<2x2xf32> {\n"
       "  %0 = \"stablehlo.dot_general\"(%a, %a) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>\n"
       "  return %0 : tensor<2x2xf32>\n}\n",
       "requires attribute 'dot_dimension_numbers'", 2, 3},
      {"dot_general dimension numbers of the wrong kind",
       "func.func @f(%a: tensor<2x3xf32>) -> tensor<2x2xf32> {\n"
       "  %0 = \"stablehlo.dot_general\"(%a, %a) {dot_dimension_numbers = 3 : i64} : (tensor<2x3xf32>, "
       "tensor<2x3xf32>) -> tensor<2x2xf32>\n"
       "  return %0 : tensor<2x2xf32>\n}\n",
       "attribute 'dot_dimension_numbers' is malformed", 2, 3},
      {"dot_general field of the wrong kind",
       "func.func @f(%a: tensor<2x3xf32>) -> tensor<2x2xf32> {\n"
       "  %0 = \"stablehlo.dot_general\"(%a, %a) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = "
       "\"x\", rhs_contracting_dimensions = [1]>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>\n"
       "  return %0 : tensor<2x2xf32>\n}\n",
       "attribute 'lhs_contracting_dimensions' must be a list of integers", 2, 3},
      {"convolution out-of-range dimension numbers",
       "func.func @f(%a: tensor<1x8x3xf32>, %k: tensor<3x3x16xf32>) -> tensor<1x6x16xf32> {\n"
       "  %0 = \"stablehlo.convolution\"(%a, %k) {dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 9,"
       " input_feature_dimension = 2, input_spatial_dimensions = [1], kernel_input_feature_dimension = 1, "
       "kernel_output_feature_dimension = 2, kernel_spatial_dimensions = [0], output_batch_dimension = 0, "
       "output_feature_dimension = 2, output_spatial_dimensions = [1]>} : (tensor<1x8x3xf32>, tensor<3x3x16xf32>) "
       "-> tensor<1x6x16xf32>\n"
       "  return %0 : tensor<1x6x16xf32>\n}\n",
       "attribute 'dimension_numbers' is malformed", 2, 3},
      {"iota dimension of the wrong kind",
       "func.func @f() -> tensor<4xi32> {\n"
       "  %0 = \"stablehlo.iota\"() {iota_dimension = \"zero\"} : () -> tensor<4xi32>\n"
       "  return %0 : tensor<4xi32>\n}\n",
       "attribute 'iota_dimension' must be an integer", 2, 3},
      {"slice with too few entries",
       "func.func @f(%a: tensor<4x4xf32>) -> tensor<2xf32> {\n"
       "  %0 = \"stablehlo.slice\"(%a) {start_indices = array<i64: 0>, limit_indices = array<i64: 2>, "
       "strides = array<i64: 1>} : (tensor<4x4xf32>) -> tensor<2xf32>\n"
       "  return %0 : tensor<2xf32>\n}\n",
       "start_indices size (1) does not match operand rank (2)", 2, 3},
      {"pad overflow",
       "func.func @f(%a: tensor<4xf32>, %p: tensor<f32>) -> tensor<4xf32> {\n"
       "  %0 = \"stablehlo.pad\"(%a, %p) {edge_padding_low = array<i64: 9223372036854775807>, "
       "edge_padding_high = array<i64: 9223372036854775807>, interior_padding = array<i64: 9223372036854775807>} : "
       "(tensor<4xf32>, tensor<f32>) -> tensor<4xf32>\n"
       "  return %0 : tensor<4xf32>\n}\n",
       "padding results in a too large size for dimension 0", 2, 3},
      {"reduce_window huge window",
       "func.func @f(%a: tensor<8xf32>, %z: tensor<f32>) -> tensor<1xf32> {\n"
       "  %0 = \"stablehlo.reduce_window\"(%a, %z) " ADD_BODY("tensor<f32>")
       " {window_dimensions = array<i64: 9223372036854775807>, window_dilations = array<i64: 9223372036854775807>} :"
       " (tensor<8xf32>, tensor<f32>) -> tensor<1xf32>\n"
       "  return %0 : tensor<1xf32>\n}\n",
       "inferred shape [0] is incompatible with result #0 type tensor<1xf32>", 2, 3},
      {"while without regions",
       "func.func @f(%a: tensor<i32>) -> tensor<i32> {\n"
       "  %0 = \"stablehlo.while\"(%a) : (tensor<i32>) -> tensor<i32>\n"
       "  return %0 : tensor<i32>\n}\n",
       "expects 2 regions (cond, body), got 0", 2, 3},
      {"sort region with no arguments",
       "func.func @f(%a: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {\n"
       "  %0 = \"stablehlo.sort\"(%a) ({\n    stablehlo.return %p : tensor<i1>\n  }) : (tensor<4xf32>) -> "
       "tensor<4xf32>\n"
       "  return %0 : tensor<4xf32>\n}\n",
       "comparator must take 2 arguments, but takes 0", 2, 3},
      {"gather with huge negative dims",
       "func.func @f(%a: tensor<3x4xf32>, %i: tensor<2x1xi32>) -> tensor<2x4xf32> {\n"
       "  %0 = \"stablehlo.gather\"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], "
       "collapsed_slice_dims = [-9223372036854775807], start_index_map = [0], index_vector_dim = 1>, "
       "slice_sizes = array<i64: 1, 4>} : (tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>\n"
       "  return %0 : tensor<2x4xf32>\n}\n",
       "collapsed_slice_dims value -9223372036854775807 is out of range [0, 2)", 2, 3},
      {"custom_call layout of the wrong kind",
       "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
       "  %0 = \"stablehlo.custom_call\"(%a) {call_target_name = \"foo\", operand_layouts = [\"x\"], "
       "result_layouts = [dense<0> : tensor<1xindex>]} : (tensor<2xf32>) -> tensor<2xf32>\n"
       "  return %0 : tensor<2xf32>\n}\n",
       "operand_layouts #0 must be a rank-1 tensor of index", 2, 3},
      {"custom_call layout of i64",
       "func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
       "  %0 = \"stablehlo.custom_call\"(%a) {call_target_name = \"foo\", operand_layouts = [dense<[1, 0]> : "
       "tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xi64>]} : (tensor<2x3xf32>) -> tensor<2x3xf32>\n"
       "  return %0 : tensor<2x3xf32>\n}\n",
       "result_layouts #0 must be a rank-1 tensor of index", 2, 3},
  };
  RUN(cases);
}

/* Thousands of sibling regions, each entered and left, inside a function
 * whose values stay visible throughout: leaving a region must forget exactly
 * its own values while every outer value stays findable (each region reads
 * outer values defined long before), and cost only what the region added. */
static void test_many_regions(void **state) {
  (void)state;
  enum { N = 3000, INNER = 16 };
  size_t cap = 512 + (size_t)N * (INNER + 4) * 120;
  char *text = malloc(cap);
  assert_non_null(text);
#define PUT(...) (len += (size_t)snprintf(text + len, cap - len, __VA_ARGS__))
  size_t len = 0;
  PUT("func.func @f(%%p: tensor<i1>) -> tensor<f32> {\n");
  PUT("  %%r0 = stablehlo.constant dense<1.0> : tensor<f32>\n");
  for (int i = 1; i <= N; i++) {
    PUT("  %%r%d = \"stablehlo.if\"(%%p) ({\n", i);
    for (int k = 0; k < INNER; k++)
      PUT("    %%t%d = stablehlo.add %%%s%d, %%r%d : tensor<f32>\n", k, k ? "t" : "r", k ? k - 1 : i - 1,
          (i * 7 + k * 13) % i);
    PUT("    stablehlo.return %%t%d : tensor<f32>\n  }, {\n", INNER - 1);
    PUT("    stablehlo.return %%r%d : tensor<f32>\n  }) : (tensor<i1>) -> tensor<f32>\n", i / 2);
  }
  PUT("  return %%r%d : tensor<f32>\n}\n", N);
#undef PUT
  vcase good[] = {{"3000 if ops with 16 values per region", text, NULL, 0, 0}};
  run_cases(good, 1);
  free(text);
}

/* Expects verification of m to fail with "does not dominate" (when `bad`)
 * or to succeed. */
static void expect_dominance(shloc_module *m, bool bad, const char *what) {
  shloc_status st = shloc_module_verify(m);
  if (!bad) {
    if (st) fail_msg("%s: unexpected error: %s", what, shloc_status_message(st));
    return;
  }
  if (!st) fail_msg("%s: verified", what);
  bool found = strstr(shloc_status_message(st), "does not dominate this use") != NULL;
  shloc_status_free(st);
  if (!found) fail_msg("%s: wrong error", what);
}

/* The parser rejects undeclared names, so broken dominance can only come
 * from built or edited IR: these cases edit a parsed module, and each edit
 * is undone and verified again (the visibility marks of a failed run must
 * not leak into the next). */
static void test_dominance(void **state) {
  (void)state;
  const char *text =
      "func.func @f(%a: tensor<f32>, %p: tensor<i1>) -> tensor<f32> {\n"
      "  %0 = stablehlo.add %a, %a : tensor<f32>\n"
      "  %1 = stablehlo.multiply %0, %a : tensor<f32>\n"
      "  %2 = \"stablehlo.if\"(%p) ({\n"
      "    %3 = stablehlo.negate %1 : tensor<f32>\n"
      "    stablehlo.return %3 : tensor<f32>\n"
      "  }, {\n"
      "    stablehlo.return %0 : tensor<f32>\n"
      "  }) : (tensor<i1>) -> tensor<f32>\n"
      "  return %2 : tensor<f32>\n"
      "}\n"
      "func.func @g(%b: tensor<f32>) -> tensor<f32> {\n"
      "  %0 = stablehlo.abs %b : tensor<f32>\n"
      "  return %0 : tensor<f32>\n"
      "}\n";
  shloc_context *ctx = shloc_context_create();
  shloc_module *m = NULL;
  assert_null(shloc_module_parse(ctx, "case.mlir", text, strlen(text), 1, &m));
  shl_block *f = func_body(module_find_func(m, str_of("f"))), *g = func_body(module_find_func(m, str_of("g")));
  shl_op *add = f->first, *mul = add->next, *iff = mul->next;
  shl_op *then_ret = iff->regions[0].blocks[0]->last, *else_ret = iff->regions[1].blocks[0]->last;
  expect_dominance(m, false, "as parsed");
  expect_dominance(m, false, "verified twice");

  block_remove(f, mul); /* use before definition */
  block_insert_before(f, add, mul);
  expect_dominance(m, true, "multiply before add");
  block_remove(f, mul);
  block_insert_before(f, iff, mul);
  expect_dominance(m, false, "multiply back in place");

  shl_value *saved = else_ret->operands[0]; /* a value of the sibling region */
  else_ret->operands[0] = then_ret->operands[0];
  expect_dominance(m, true, "value of the then-branch in the else-branch");
  else_ret->operands[0] = saved;
  expect_dominance(m, false, "else-branch restored");

  saved = iff->operands[0]; /* an op's own result */
  iff->operands[0] = &iff->results[0];
  expect_dominance(m, true, "if reading its own result");
  iff->operands[0] = saved;

  saved = g->first->operands[0]; /* a value of another (isolated) function */
  g->first->operands[0] = &f->args[0];
  expect_dominance(m, true, "argument of @f used in @g");
  g->first->operands[0] = saved;
  expect_dominance(m, false, "all restored");
  shloc_module_destroy(m);
  shloc_context_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_elementwise), cmocka_unit_test(test_shapes),  cmocka_unit_test(test_gather_scatter),
      cmocka_unit_test(test_reductions),  cmocka_unit_test(test_linalg),  cmocka_unit_test(test_control),
      cmocka_unit_test(test_misc),        cmocka_unit_test(test_robustness), cmocka_unit_test(test_many_regions),
      cmocka_unit_test(test_dominance),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
