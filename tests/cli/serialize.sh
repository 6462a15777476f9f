#!/bin/sh
# shloc serialize: the artifact reads back as the module (with and without
# locations), --target=oldest / --min-version follow the ops used, a module
# newer than its target is refused at the op (exit 1, no output file left),
# and targets outside the supported range are refused naming the range.
SHLOC=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cat > "$tmp/m.mlir" <<'MLIR'
module @m attributes {mhlo.num_replicas = 1 : i32} {
  func.func public @main(%a: tensor<2x3xf32> {jax.arg_info = "x"}, %n: tensor<i64>) -> (tensor<2x3xf32>, tensor<i64>) {
    %0 = stablehlo.constant dense<[[1.0, -2.5, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
    %1 = stablehlo.add %a, %0 : tensor<2x3xf32>
    %2 = "stablehlo.sort"(%1) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %c = stablehlo.compare GT, %x, %y, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    }) {dimension = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %one = stablehlo.constant dense<1> : tensor<i64>
    %3 = stablehlo.while(%i = %one) : tensor<i64>
     cond {
      %c = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %s = stablehlo.add %i, %one : tensor<i64>
      stablehlo.return %s : tensor<i64>
    }
    return %2, %3 : tensor<2x3xf32>, tensor<i64>
  }
}
MLIR
"$SHLOC" fmt "$tmp/m.mlir" > "$tmp/want" || fail "fmt"
for t in current oldest 0.9.0 1.0.0 1.14.0; do
  "$SHLOC" serialize --target=$t --strip-debuginfo "$tmp/m.mlir" -o "$tmp/m.bc" || fail "serialize --target=$t"
  "$SHLOC" fmt "$tmp/m.bc" > "$tmp/got" || fail "reading the $t artifact"
  cmp -s "$tmp/want" "$tmp/got" || { diff "$tmp/want" "$tmp/got"; fail "--target=$t reads back differently"; }
done
head -c 24 "$tmp/m.bc" | grep -q "StableHLO_v1.14.0" || fail "producer string"
# Locations are kept unless stripped.
"$SHLOC" serialize "$tmp/m.mlir" -o "$tmp/loc.bc" || fail "serialize with locations"
"$SHLOC" fmt --debuginfo "$tmp/loc.bc" | grep -q 'm.mlir":4:5' || fail "locations not kept"
"$SHLOC" fmt --debuginfo "$tmp/m.bc" | grep -q 'm.mlir"' && fail "--strip-debuginfo kept locations"
[ "$("$SHLOC" serialize --min-version "$tmp/m.mlir")" = "$tmp/m.mlir 0.9.0" ] || fail "--min-version"
# An op newer than the target: refused at the op, no output written.
printf 'func.func @main(%%a: tensor<2xf32>) -> tensor<2xf32> {\n  %%0 = stablehlo.tan %%a : tensor<2xf32>\n  return %%0 : tensor<2xf32>\n}\n' > "$tmp/tan.mlir"
"$SHLOC" serialize --target=1.3.0 "$tmp/tan.mlir" -o "$tmp/tan.bc" 2> "$tmp/err" && fail "tan at 1.3.0 accepted"
grep -q "tan.mlir:2:3: error: 'stablehlo.tan' op first exists in StableHLO v1.4.0" "$tmp/err" || { cat "$tmp/err"; fail "refusal message"; }
[ -e "$tmp/tan.bc" ] && fail "output left behind after a refusal"
[ "$("$SHLOC" serialize --min-version "$tmp/tan.mlir")" = "$tmp/tan.mlir 1.4.0" ] || fail "--min-version of tan"
"$SHLOC" serialize --target=oldest "$tmp/tan.mlir" -o "$tmp/tan.bc" || fail "--target=oldest"
head -c 24 "$tmp/tan.bc" | grep -q "StableHLO_v1.4.0" || fail "oldest is not 1.4.0"
for t in 0.8.0 9.0.0 1.2; do
  "$SHLOC" serialize --target=$t "$tmp/m.mlir" -o "$tmp/x.bc" 2> "$tmp/err" && fail "--target=$t accepted"
  grep -q "0.9.0" "$tmp/err" || { cat "$tmp/err"; fail "--target=$t: range not named"; }
done
echo "ok"
