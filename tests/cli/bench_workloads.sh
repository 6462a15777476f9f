#!/bin/sh
# bench/workloads: every module parses and verifies (the benchmark itself is
# not a test), and bench/liveset.py gives a hand-computed live set.  Skipped
# (exit 77) without /usr/bin/python3 for the live-set part only.
SHLOC=$1
SRC=${SHLOC_SOURCE_DIR:-$(dirname "$0")/../..}
fail() { echo "FAIL: $*"; exit 1; }
n=0
for m in "$SRC"/bench/workloads/*/module.mlir; do
  "$SHLOC" check "$m" || fail "shloc check $m"
  n=$((n + 1))
done
[ "$n" -ge 3 ] || fail "expected at least 3 bench workloads, found $n"
[ -x /usr/bin/python3 ] || { echo "SKIP: /usr/bin/python3 not installed (live set)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# By hand: argument 16 B; at the reduce, %2 (32 B), %z (4 B) and %3 (4 B) are
# live (%0 died at the broadcast, which is a view): 16 + 40 = 56.
cat > "$tmp/m.mlir" <<'MLIR'
module @m {
  func.func public @main(%a: tensor<4xf32>) -> tensor<f32> {
    %0 = stablehlo.add %a, %a : tensor<4xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [1] : (tensor<4xf32>) -> tensor<2x4xf32>
    %2 = stablehlo.multiply %1, %1 : tensor<2x4xf32>
    %z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = "stablehlo.reduce"(%2, %z) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {dimensions = array<i64: 0, 1>} : (tensor<2x4xf32>, tensor<f32>) -> tensor<f32>
    return %3 : tensor<f32>
  }
}
MLIR
"$SHLOC" check "$tmp/m.mlir" || fail "shloc check of the live-set module"
got=$(/usr/bin/python3 "$SRC/bench/liveset.py" "$tmp/m.mlir") || fail "liveset.py failed"
[ "$got" = 56 ] || fail "live set $got, expected 56"
echo "ok: $n bench workloads verify; live set 56"
