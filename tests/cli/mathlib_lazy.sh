#!/bin/sh
# OpenBLAS/LAPACKE are opened on first use (src/exec/kernels/mathlib.h):
# commands that do not multiply matrices run without them, and a program that
# needs them gets an error at the op when they cannot be loaded.  Unloadable
# stand-ins for the libraries come first on LD_LIBRARY_PATH.
SHLOC=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir "$tmp/nolibs"
for f in libopenblas.so.0 libopenblas.so libblas.so.3 liblapacke.so.3 liblapacke.so; do : > "$tmp/nolibs/$f"; done
cat > "$tmp/dot.mlir" <<'MLIR'
func.func @main() -> tensor<1x1xf32> {
  %a = stablehlo.iota dim = 0 : tensor<64x64xf32>
  %b = stablehlo.iota dim = 1 : tensor<64x64xf32>
  %c = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %d = stablehlo.slice %c [63:64, 63:64] : (tensor<64x64xf32>) -> tensor<1x1xf32>
  return %d : tensor<1x1xf32>
}
MLIR
cat > "$tmp/add.mlir" <<'MLIR'
func.func @main() -> tensor<2xi32> {
  %a = stablehlo.iota dim = 0 : tensor<2xi32>
  %b = stablehlo.add %a, %a : tensor<2xi32>
  return %b : tensor<2xi32>
}
MLIR
# row 63 of iota dim 0 times column 63 of iota dim 1: 64 * 63 * 63
out=$("$SHLOC" run "$tmp/dot.mlir" --print) || fail "dot with the libraries"
[ "$out" = "dense<[[2.540160e+05]]> : tensor<1x1xf32>" ] || fail "dot result: $out"

export LD_LIBRARY_PATH="$tmp/nolibs"
"$SHLOC" check "$tmp/dot.mlir" || fail "check loaded the math libraries"
"$SHLOC" fmt "$tmp/dot.mlir" > /dev/null || fail "fmt loaded the math libraries"
out=$("$SHLOC" run "$tmp/add.mlir" --print) || fail "a program without matrix ops needs the math libraries"
[ "$out" = "dense<[0, 2]> : tensor<2xi32>" ] || fail "add result: $out"
if "$SHLOC" run "$tmp/dot.mlir" > /dev/null 2> "$tmp/err.txt"; then fail "dot ran without BLAS"; fi
grep -q "dot.mlir:4:3: error: 'stablehlo.dot_general' needs BLAS/LAPACKE: cannot load libopenblas.so.0, libopenblas.so, libblas.so.3" "$tmp/err.txt" ||
  { cat "$tmp/err.txt"; fail "missing BLAS error"; }
echo "ok"
