/* Elementwise kernels (unary, binary, convert, compare/select/clamp, iota,
 * bitcast, reduce_precision, chlo special functions and broadcasts): small
 * generic-form modules that check their own results, covering edge cases
 * the conformance corpus lacks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/exec.h"
#include "harness.h"

#define CST(v, val, ty) "  " v " = stablehlo.constant dense<" val "> : " ty "\n"
#define EQ(v, val, ty) "  \"check.expect_eq_const\"(" v ") {value = dense<" val "> : " ty "} : (" ty ") -> ()\n"
#define NEAR(v, val, ty) "  \"check.expect_almost_eq_const\"(" v ") {value = dense<" val "> : " ty "} : (" ty ") -> ()\n"
#define OP1(r, op, a, ti, to) "  " r " = \"" op "\"(" a ") : (" ti ") -> " to "\n"
#define OP2(r, op, a, b, t) "  " r " = \"stablehlo." op "\"(" a ", " b ") : (" t ", " t ") -> " t "\n"
#define CMP(r, dir, type, a, b, t, rt)                                                                          \
  "  " r " = \"stablehlo.compare\"(" a ", " b ") <{comparison_direction = #stablehlo<comparison_direction " dir \
  ">, compare_type = #stablehlo<comparison_type " type ">}> : (" t ", " t ") -> " rt "\n"
#define MAIN(body) "func.func @main() {\n" body "  return\n}\n"

static void test_int_division_and_wrap(void **state) {
  (void)state;
  run_ok(MAIN(CST("%a", "[7, -7, -2147483648, 5]", "tensor<4xi32>") CST("%b", "[0, 2, -1, -3]", "tensor<4xi32>")
      OP2("%q", "divide", "%a", "%b", "tensor<4xi32>") EQ("%q", "[-1, -3, -2147483648, -1]", "tensor<4xi32>")
      OP2("%r", "remainder", "%a", "%b", "tensor<4xi32>") EQ("%r", "[7, -1, 0, 2]", "tensor<4xi32>")
      CST("%u", "[200, 7]", "tensor<2xui8>") CST("%z", "[0, 2]", "tensor<2xui8>")
      OP2("%uq", "divide", "%u", "%z", "tensor<2xui8>") EQ("%uq", "[255, 3]", "tensor<2xui8>")
      OP2("%ur", "remainder", "%u", "%z", "tensor<2xui8>") EQ("%ur", "[200, 1]", "tensor<2xui8>")
      CST("%c", "[100, -128, 127]", "tensor<3xi8>")
      OP2("%s", "add", "%c", "%c", "tensor<3xi8>") EQ("%s", "[-56, 0, -2]", "tensor<3xi8>")
      OP2("%m", "multiply", "%c", "%c", "tensor<3xi8>") EQ("%m", "[16, 0, 1]", "tensor<3xi8>")
      OP1("%n", "stablehlo.negate", "%c", "tensor<3xi8>", "tensor<3xi8>") EQ("%n", "[-100, -128, -127]", "tensor<3xi8>")
      OP1("%ab", "stablehlo.abs", "%c", "tensor<3xi8>", "tensor<3xi8>") EQ("%ab", "[100, -128, 127]", "tensor<3xi8>")
      CST("%pb", "[2, -1, 2, 3]", "tensor<4xi32>") CST("%pe", "[10, -3, -1, 0]", "tensor<4xi32>")
      OP2("%p", "power", "%pb", "%pe", "tensor<4xi32>") EQ("%p", "[1024, -1, 0, 1]", "tensor<4xi32>")));
}

static void test_shifts_and_bits(void **state) {
  (void)state;
  run_ok(MAIN(CST("%a", "[1, -128, -128, 5, 64]", "tensor<5xi8>") CST("%b", "[8, 9, 1, -1, 1]", "tensor<5xi8>")
      OP2("%l", "shift_left", "%a", "%b", "tensor<5xi8>") EQ("%l", "[0, 0, 0, 0, -128]", "tensor<5xi8>")
      OP2("%ra", "shift_right_arithmetic", "%a", "%b", "tensor<5xi8>") EQ("%ra", "[0, -1, -64, 0, 32]", "tensor<5xi8>")
      OP2("%rl", "shift_right_logical", "%a", "%b", "tensor<5xi8>") EQ("%rl", "[0, 0, 64, 0, 32]", "tensor<5xi8>")
      OP1("%pc", "stablehlo.popcnt", "%a", "tensor<5xi8>", "tensor<5xi8>") EQ("%pc", "[1, 1, 1, 2, 1]", "tensor<5xi8>")
      OP1("%cz", "stablehlo.count_leading_zeros", "%a", "tensor<5xi8>", "tensor<5xi8>")
      EQ("%cz", "[7, 0, 0, 5, 1]", "tensor<5xi8>")
      CST("%t", "[true, false]", "tensor<2xi1>")
      OP1("%nt", "stablehlo.not", "%t", "tensor<2xi1>", "tensor<2xi1>") EQ("%nt", "[false, true]", "tensor<2xi1>")
      OP2("%ad", "add", "%t", "%t", "tensor<2xi1>") EQ("%ad", "[true, false]", "tensor<2xi1>")));
}

static void test_float_nan_and_zero(void **state) {
  (void)state;
  run_ok(MAIN(CST("%a", "[0x7FC00000, 1.0, -0.0, 2.0]", "tensor<4xf32>") CST("%b", "[1.0, 0x7FC00000, 0.0, -3.0]", "tensor<4xf32>")
      OP2("%mx", "maximum", "%a", "%b", "tensor<4xf32>") OP2("%mn", "minimum", "%a", "%b", "tensor<4xf32>")
      CMP("%nx", "NE", "FLOAT", "%mx", "%mx", "tensor<4xf32>", "tensor<4xi1>") EQ("%nx", "[true, true, false, false]", "tensor<4xi1>")
      CMP("%nn", "NE", "FLOAT", "%mn", "%mn", "tensor<4xf32>", "tensor<4xi1>") EQ("%nn", "[true, true, false, false]", "tensor<4xi1>")
      OP1("%bx", "stablehlo.bitcast_convert", "%mx", "tensor<4xf32>", "tensor<4xi32>")
      OP1("%bn", "stablehlo.bitcast_convert", "%mn", "tensor<4xf32>", "tensor<4xi32>")
      "  %s2 = \"stablehlo.slice\"(%bx) <{start_indices = array<i64: 2>, limit_indices = array<i64: 4>, strides = array<i64: 1>}>"
      " : (tensor<4xi32>) -> tensor<2xi32>\n" EQ("%s2", "[0, 1073741824]", "tensor<2xi32>")
      "  %s3 = \"stablehlo.slice\"(%bn) <{start_indices = array<i64: 2>, limit_indices = array<i64: 4>, strides = array<i64: 1>}>"
      " : (tensor<4xi32>) -> tensor<2xi32>\n" EQ("%s3", "[-2147483648, -1069547520]", "tensor<2xi32>")
      /* FLOAT vs TOTALORDER on -0/+0 and NaN */
      CST("%z1", "[-0.0, 0x7FC00000, 0xFFC00000]", "tensor<3xf32>") CST("%z2", "[0.0, 0x7F800000, 0xFF800000]", "tensor<3xf32>")
      CMP("%fl", "LT", "FLOAT", "%z1", "%z2", "tensor<3xf32>", "tensor<3xi1>") EQ("%fl", "[false, false, false]", "tensor<3xi1>")
      CMP("%to", "LT", "TOTALORDER", "%z1", "%z2", "tensor<3xf32>", "tensor<3xi1>") EQ("%to", "[true, false, true]", "tensor<3xi1>")
      /* empty and rank-0 operands */
      CST("%e", "", "tensor<0x3xf32>") OP2("%ee", "add", "%e", "%e", "tensor<0x3xf32>")
      CST("%r0", "1.5", "tensor<f64>") OP2("%rr", "multiply", "%r0", "%r0", "tensor<f64>") EQ("%rr", "2.25", "tensor<f64>")
      CST("%h", "[1.0, 2.0]", "tensor<2xbf16>") OP2("%hh", "divide", "%h", "%h", "tensor<2xbf16>") EQ("%hh", "1.0", "tensor<2xbf16>")));
}

static void test_convert(void **state) {
  (void)state;
  run_ok(MAIN(CST("%f", "[0x7FC00000, 1.0e10, -1.0e10, -1.9, 2.9]", "tensor<5xf32>")
      OP1("%i", "stablehlo.convert", "%f", "tensor<5xf32>", "tensor<5xi32>")
      EQ("%i", "[0, 2147483647, -2147483648, -1, 2]", "tensor<5xi32>")
      OP1("%u", "stablehlo.convert", "%f", "tensor<5xf32>", "tensor<5xui8>") EQ("%u", "[0, 255, 0, 0, 2]", "tensor<5xui8>")
      OP1("%b", "stablehlo.convert", "%f", "tensor<5xf32>", "tensor<5xi1>") EQ("%b", "true", "tensor<5xi1>")
      CST("%big", "[16777217, -1]", "tensor<2xi64>") OP1("%bf", "stablehlo.convert", "%big", "tensor<2xi64>", "tensor<2xf32>")
      EQ("%bf", "[16777216.0, -1.0]", "tensor<2xf32>")
      CST("%ub", "[18446744073709551615]", "tensor<1xui64>") OP1("%uf", "stablehlo.convert", "%ub", "tensor<1xui64>", "tensor<1xf64>")
      EQ("%uf", "[1.8446744073709552e19]", "tensor<1xf64>")
      CST("%c", "[(1.5, 2.0), (-3.0, 4.0)]", "tensor<2xcomplex<f32>>")
      OP1("%cr", "stablehlo.convert", "%c", "tensor<2xcomplex<f32>>", "tensor<2xf64>") EQ("%cr", "[1.5, -3.0]", "tensor<2xf64>")
      CST("%d", "[1.00048828125]", "tensor<1xf64>") OP1("%dh", "stablehlo.convert", "%d", "tensor<1xf64>", "tensor<1xf16>")
      EQ("%dh", "[1.0]", "tensor<1xf16>")
      CST("%w", "[300, -1]", "tensor<2xi32>") OP1("%w8", "stablehlo.convert", "%w", "tensor<2xi32>", "tensor<2xui8>")
      EQ("%w8", "[44, 255]", "tensor<2xui8>")));
}

static void test_select_clamp_iota_compare(void **state) {
  (void)state;
  run_ok(MAIN(CST("%p", "true", "tensor<i1>") CST("%a", "[1, 2, 3]", "tensor<3xi32>") CST("%b", "[4, 5, 6]", "tensor<3xi32>")
      "  %s = \"stablehlo.select\"(%p, %a, %b) : (tensor<i1>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>\n"
      EQ("%s", "[1, 2, 3]", "tensor<3xi32>")
      CST("%pv", "[true, false, true]", "tensor<3xi1>")
      "  %sv = \"stablehlo.select\"(%pv, %a, %b) : (tensor<3xi1>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>\n"
      EQ("%sv", "[1, 5, 3]", "tensor<3xi32>")
      CST("%lo", "2", "tensor<i32>") CST("%hi", "[2, 2, 5]", "tensor<3xi32>")
      "  %c = \"stablehlo.clamp\"(%lo, %b, %hi) : (tensor<i32>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>\n"
      EQ("%c", "[2, 2, 5]", "tensor<3xi32>")
      "  %io = \"stablehlo.iota\"() <{iota_dimension = 1 : i64}> : () -> tensor<2x3xf32>\n"
      EQ("%io", "[[0.0, 1.0, 2.0], [0.0, 1.0, 2.0]]", "tensor<2x3xf32>")
      CST("%ua", "[4294967295, 1]", "tensor<2xui32>") CST("%ub", "[1, 2]", "tensor<2xui32>")
      CMP("%uc", "GT", "UNSIGNED", "%ua", "%ub", "tensor<2xui32>", "tensor<2xi1>") EQ("%uc", "[true, false]", "tensor<2xi1>")
      CST("%ca", "[(1.0, 2.0), (1.0, 3.0)]", "tensor<2xcomplex<f64>>") CST("%cb", "[(1.0, 2.0), (1.0, 2.0)]", "tensor<2xcomplex<f64>>")
      CMP("%ce", "EQ", "FLOAT", "%ca", "%cb", "tensor<2xcomplex<f64>>", "tensor<2xi1>") EQ("%ce", "[true, false]", "tensor<2xi1>")));
}

static void test_bitcast_and_reduce_precision(void **state) {
  (void)state;
  run_ok(MAIN(CST("%w", "16909060", "tensor<i32>")
      OP1("%b", "stablehlo.bitcast_convert", "%w", "tensor<i32>", "tensor<4xi8>") EQ("%b", "[4, 3, 2, 1]", "tensor<4xi8>")
      OP1("%w2", "stablehlo.bitcast_convert", "%b", "tensor<4xi8>", "tensor<i32>") EQ("%w2", "16909060", "tensor<i32>")
      CST("%f", "[1.00390625, 1.01171875, 1.0e5, 0x7FC00000]", "tensor<4xf32>")
      "  %r = \"stablehlo.reduce_precision\"(%f) <{exponent_bits = 8 : i32, mantissa_bits = 7 : i32}> : (tensor<4xf32>) -> tensor<4xf32>\n"
      "  %rs = \"stablehlo.slice\"(%r) <{start_indices = array<i64: 0>, limit_indices = array<i64: 3>, strides = array<i64: 1>}>"
      " : (tensor<4xf32>) -> tensor<3xf32>\n" EQ("%rs", "[1.0, 1.015625, 99840.0]", "tensor<3xf32>")
      "  %h = \"stablehlo.reduce_precision\"(%f) <{exponent_bits = 5 : i32, mantissa_bits = 10 : i32}> : (tensor<4xf32>) -> tensor<4xf32>\n"
      "  %hs = \"stablehlo.slice\"(%h) <{start_indices = array<i64: 2>, limit_indices = array<i64: 3>, strides = array<i64: 1>}>"
      " : (tensor<4xf32>) -> tensor<1xf32>\n" EQ("%hs", "[0x7F800000]", "tensor<1xf32>")
      CMP("%hn", "NE", "FLOAT", "%h", "%h", "tensor<4xf32>", "tensor<4xi1>") EQ("%hn", "[false, false, false, true]", "tensor<4xi1>")));
}

static void test_chlo_special(void **state) {
  (void)state;
  run_ok(MAIN(CST("%x", "[0.5, -0.5]", "tensor<2xf64>")
      OP1("%ei", "chlo.erf_inv", "%x", "tensor<2xf64>", "tensor<2xf64>") NEAR("%ei", "[0.4769362762, -0.4769362762]", "tensor<2xf64>")
      OP1("%lg", "chlo.lgamma", "%x", "tensor<2xf64>", "tensor<2xf64>") NEAR("%lg", "[0.5723649429, 1.2655121234]", "tensor<2xf64>")
      CST("%one", "[1.0, -2.0]", "tensor<2xf32>")
      OP1("%dg", "chlo.digamma", "%one", "tensor<2xf32>", "tensor<2xf32>")
      CMP("%dn", "NE", "FLOAT", "%dg", "%dg", "tensor<2xf32>", "tensor<2xi1>") EQ("%dn", "[false, true]", "tensor<2xi1>")
      OP1("%bi", "chlo.bessel_i1e", "%one", "tensor<2xf32>", "tensor<2xf32>") NEAR("%bi", "[0.2079104154, -0.2152692892]", "tensor<2xf32>")
      CST("%inf", "[0x7F800000, 0xFF800000]", "tensor<2xf32>")
      OP1("%bin", "chlo.bessel_i1e", "%inf", "tensor<2xf32>", "tensor<2xf32>")
      OP1("%binb", "stablehlo.bitcast_convert", "%bin", "tensor<2xf32>", "tensor<2xi32>")
      EQ("%binb", "[0, -2147483648]", "tensor<2xi32>")
      CST("%s", "[2.0]", "tensor<1xf64>") CST("%q", "[1.0]", "tensor<1xf64>")
      "  %z = \"chlo.zeta\"(%s, %q) : (tensor<1xf64>, tensor<1xf64>) -> tensor<1xf64>\n" NEAR("%z", "[1.6449340668]", "tensor<1xf64>")
      "  %pg = \"chlo.polygamma\"(%q, %q) : (tensor<1xf64>, tensor<1xf64>) -> tensor<1xf64>\n" NEAR("%pg", "[1.6449340668]", "tensor<1xf64>")
      CST("%na", "[1.0, 0.0]", "tensor<2xf32>") CST("%nb", "[2.0, -1.0]", "tensor<2xf32>")
      "  %nx = \"chlo.next_after\"(%na, %nb) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"
      OP1("%nxb", "stablehlo.bitcast_convert", "%nx", "tensor<2xf32>", "tensor<2xi32>")
      EQ("%nxb", "[1065353217, -2147483647]", "tensor<2xi32>")));
}

static void test_chlo_broadcast(void **state) {
  (void)state;
  run_ok(MAIN(CST("%a", "[[1, 2, 3], [4, 5, 6]]", "tensor<2x3xi32>") CST("%b", "[10, 20, 30]", "tensor<3xi32>")
      "  %s = \"chlo.broadcast_add\"(%a, %b) : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>\n"
      EQ("%s", "[[11, 22, 33], [14, 25, 36]]", "tensor<2x3xi32>")
      CST("%c", "[100, 200]", "tensor<2xi32>")
      "  %t = \"chlo.broadcast_multiply\"(%a, %c) {broadcast_dimensions = array<i64: 0>} : (tensor<2x3xi32>, tensor<2xi32>) -> tensor<2x3xi32>\n"
      EQ("%t", "[[100, 200, 300], [800, 1000, 1200]]", "tensor<2x3xi32>")
      CST("%k", "[[2], [5]]", "tensor<2x1xi32>")
      "  %g = \"chlo.broadcast_compare\"(%a, %k) {comparison_direction = #chlo<comparison_direction GT>} : (tensor<2x3xi32>, tensor<2x1xi32>) -> tensor<2x3xi1>\n"
      EQ("%g", "[[false, false, true], [false, false, true]]", "tensor<2x3xi1>")
      "  %cl = \"chlo.constant_like\"(%a) {value = 7 : i32} : (tensor<2x3xi32>) -> tensor<2x3xi32>\n"
      EQ("%cl", "7", "tensor<2x3xi32>")));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_int_division_and_wrap),
      cmocka_unit_test(test_shifts_and_bits),
      cmocka_unit_test(test_float_nan_and_zero),
      cmocka_unit_test(test_convert),
      cmocka_unit_test(test_select_clamp_iota_compare),
      cmocka_unit_test(test_bitcast_and_reduce_precision),
      cmocka_unit_test(test_chlo_special),
      cmocka_unit_test(test_chlo_broadcast),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
