#!/bin/sh
# The MLIR bytecode reader against an independent writer: mlir-opt writes a
# module as bytecode in every version it can (0..6), and shloc must read each
# back as the module it reads from the text.  Skipped (exit 77) without
# mlir-opt-22.
SHLOC=$1
MLIR_OPT=${MLIR_OPT:-mlir-opt-22}
command -v "$MLIR_OPT" >/dev/null || { echo "SKIP: $MLIR_OPT not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cat > "$tmp/m.mlir" <<'MLIR'
module @m attributes {mhlo.num_partitions = 1 : i32, jax.uses_shape_polymorphism = false, mhlo.frontend_attributes = {a = "b"}} {
  func.func private @callee(%a: tensor<2xbf16>) -> tensor<2xbf16> {
    return %a : tensor<2xbf16>
  }
  func.func public @main(%a: tensor<2x3xf32> {jax.arg_info = "x", mhlo.sharding = "{replicated}"}, %b: tensor<3xi1>, %c: tensor<2xbf16>) -> (tensor<2x3xf32> {jax.result_info = ""}) {
    %0 = stablehlo.constant dense<[[1.0, -2.5, 3.0], [4.0, 5.0, 6.0e+20]]> : tensor<2x3xf32>
    %1 = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>
    %2 = stablehlo.constant dense<7> : tensor<4xi64>
    %3 = stablehlo.constant dense<(1.0, 2.0)> : tensor<complex<f32>>
    %4 = stablehlo.add %a, %0 : tensor<2x3xf32> loc("add"("f.py":3:4))
    %5 = stablehlo.and %b, %1 : tensor<3xi1>
    %6 = stablehlo.transpose %4, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %7 = stablehlo.compare LT, %a, %0, FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %8 = stablehlo.custom_call @foo(%6) {backend_config = "cfg", api_version = 2 : i32, has_side_effect = true} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %9 = func.call @callee(%c) : (tensor<2xbf16>) -> tensor<2xbf16>
    %10 = stablehlo.iota dim = 0 : tensor<5xui8>
    return %8 : tensor<2x3xf32>
  }
}
MLIR
# The same module in generic form with StableHLO attributes as discardable
# ones (mlir-opt does not know StableHLO, and keeps only those in versions < 5).
"$SHLOC" fmt --no-verify --generic "$tmp/m.mlir" > "$tmp/g.mlir" 2>"$tmp/err" || { cat "$tmp/err"; fail "fmt --generic"; }
sed '/"stablehlo\./{s/<{/{/g; s/}>/}/g}' "$tmp/g.mlir" > "$tmp/g2.mlir"
"$SHLOC" fmt --no-verify "$tmp/m.mlir" > "$tmp/want" 2>&1
for v in 0 1 2 3 4 5 6; do
  "$MLIR_OPT" --allow-unregistered-dialect --emit-bytecode --emit-bytecode-version=$v "$tmp/g2.mlir" -o "$tmp/m$v.mlirbc" ||
    fail "$MLIR_OPT could not write version $v"
  "$SHLOC" fmt --no-verify "$tmp/m$v.mlirbc" > "$tmp/got$v" 2>&1
  cmp -s "$tmp/want" "$tmp/got$v" || { diff "$tmp/want" "$tmp/got$v" | head -20; fail "bytecode version $v reads differently"; }
done
echo ok
