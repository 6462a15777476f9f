#!/bin/sh
# shloc test: a program that runs no check is NOCHECK (counted, not PASS); a
# module without @main runs each public function without arguments as a test
# (the interpreter's *_op_test_* functions merged into one module);
# interpreter.print writes its operand to stdout as the reference interpreter
# does: `%name = ` (the operand's name in the printed function, MLIR's
# naming: %c/%cst for constants) and the tensor in the layout of the FileCheck
# lines of openxla/stablehlo stablehlo/tests/interpret/printing.mlir.
SHLOC=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat > "$tmp/nocheck.mlir" <<'EOF2'
func.func @main() -> tensor<2xi32> {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %1 = stablehlo.add %0, %0 : tensor<2xi32>
  return %1 : tensor<2xi32>
}
EOF2
cat > "$tmp/check.mlir" <<'EOF2'
func.func @main() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %1 = stablehlo.add %0, %0 : tensor<2xi32>
  check.expect_eq_const %1, dense<[2, 4]> : tensor<2xi32>
  return
}
EOF2
"$SHLOC" test "$tmp/nocheck.mlir" "$tmp/check.mlir" > "$tmp/out" || { cat "$tmp/out"; fail "exit status"; }
grep -qx "NOCHECK $tmp/nocheck.mlir (ran, but executed no check)" "$tmp/out" || { cat "$tmp/out"; fail "NOCHECK line"; }
grep -qx "PASS $tmp/check.mlir" "$tmp/out" || { cat "$tmp/out"; fail "PASS line"; }
grep -qx "1 passed, 0 failed, 1 without checks" "$tmp/out" || { cat "$tmp/out"; fail "summary"; }

# Several test functions, no @main: each runs and is reported; private
# helpers and functions with arguments are not tests.
cat > "$tmp/merged.mlir" <<'EOF2'
module {
  func.func @add_op_test_si32() {
    %0 = call @operand() : () -> tensor<2xi32>
    %1 = stablehlo.add %0, %0 : tensor<2xi32>
    check.expect_eq_const %1, dense<[2, 4]> : tensor<2xi32>
    func.return
  }
  func.func @add_op_test_wrong() {
    %0 = call @operand() : () -> tensor<2xi32>
    check.expect_eq_const %0, dense<[9, 9]> : tensor<2xi32>
    func.return
  }
  func.func @add_op_test_silent() {
    %0 = stablehlo.constant dense<1> : tensor<i32>
    func.return
  }
  func.func private @operand() -> tensor<2xi32> {
    %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
    func.return %0 : tensor<2xi32>
  }
  func.func @takes_args(%a: tensor<i32>) -> tensor<i32> {
    func.return %a : tensor<i32>
  }
}
EOF2
if "$SHLOC" test "$tmp/merged.mlir" > "$tmp/out"; then cat "$tmp/out"; fail "a failing test function passed"; fi
grep -qx "PASS $tmp/merged.mlir:@add_op_test_si32" "$tmp/out" || { cat "$tmp/out"; fail "PASS @add_op_test_si32"; }
grep -qx "FAIL $tmp/merged.mlir:@add_op_test_wrong" "$tmp/out" || { cat "$tmp/out"; fail "FAIL @add_op_test_wrong"; }
grep -qx "NOCHECK $tmp/merged.mlir:@add_op_test_silent (ran, but executed no check)" "$tmp/out" ||
  { cat "$tmp/out"; fail "NOCHECK @add_op_test_silent"; }
grep -q "@operand\|@takes_args" "$tmp/out" && { cat "$tmp/out"; fail "helper run as a test"; }
grep -qx "1 passed, 1 failed, 1 without checks" "$tmp/out" || { cat "$tmp/out"; fail "merged summary"; }

# interpreter.print, in the layouts of the reference interpreter's printing test.
cat > "$tmp/print.mlir" <<'EOF2'
func.func @main() {
  %ints = stablehlo.constant dense<[1, 2, -3, -4]> : tensor<4xi8>
  "interpreter.print"(%ints) : (tensor<4xi8>) -> ()
  %floats = stablehlo.constant dense<[1.0, 2.0, -3.0, -4.0]> : tensor<4xf16>
  "interpreter.print"(%floats) : (tensor<4xf16>) -> ()
  %bool = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  "interpreter.print"(%bool) : (tensor<2xi1>) -> ()
  %empty = stablehlo.constant dense<> : tensor<0xui8>
  "interpreter.print"(%empty) : (tensor<0xui8>) -> ()
  %scalar = stablehlo.constant dense<1> : tensor<ui8>
  "interpreter.print"(%scalar) : (tensor<ui8>) -> ()
  %matrix = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
  "interpreter.print"(%matrix) : (tensor<2x2xi8>) -> ()
  %tensor = stablehlo.constant dense<[[[0, 1], [2, 3]], [[4, 0], [1, 2]]]> : tensor<2x2x2xi64>
  "interpreter.print"(%tensor) : (tensor<2x2x2xi64>) -> ()
  check.expect_eq_const %scalar, dense<1> : tensor<ui8>
  return
}
EOF2
"$SHLOC" test --quiet "$tmp/print.mlir" > "$tmp/out" || { cat "$tmp/out"; fail "print module"; }
cat > "$tmp/want" <<'EOF2'
%c = tensor<4xi8> {
  [1, 2, -3, -4]
}
%cst = tensor<4xf16> {
  [1.000000e+00, 2.000000e+00, -3.000000e+00, -4.000000e+00]
}
%c_0 = tensor<2xi1> {
  [true, false]
}
%c_1 = tensor<0xui8> {
  []
}
%c_2 = tensor<ui8> {1}
%c_3 = tensor<2x2xi8> {
  [
    [1, 2],
    [3, 4]
  ]
}
%c_4 = tensor<2x2x2xi64> {
  [
    [
      [0, 1],
      [2, 3]
    ],
    [
      [4, 0],
      [1, 2]
    ]
  ]
}
1 passed, 0 failed, 0 without checks
EOF2
diff -u "$tmp/want" "$tmp/out" || fail "interpreter.print output"
echo ok
