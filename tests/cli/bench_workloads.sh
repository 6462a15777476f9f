#!/bin/sh
# bench/workloads: every module parses and verifies (the benchmark itself is
# not a test), `shloc run --profile-phases` prints the line bench/run and
# bench/startup.py read (its format, not its timings), and bench/liveset.py
# gives a hand-computed live set.  Skipped (exit 77) without /usr/bin/python3
# (with numpy) for the live-set and phases parts only.
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
# --profile-phases: one line with every phase and the peak RSS, which
# bench/startup.py's parser reads back (7 phases and a positive peak RSS).
/usr/bin/python3 -c "import numpy" 2>/dev/null || { echo "SKIP: numpy not installed (phases)"; exit 77; }
/usr/bin/python3 -c "import numpy as np; np.save('$tmp/a.npy', np.arange(4, dtype=np.float32))" || fail "numpy"
"$SHLOC" run "$tmp/m.mlir" -i "$tmp/a.npy" -o "$tmp/r.npy" --profile-phases 2> "$tmp/err.txt" || fail "run --profile-phases"
grep -Eq '^shloc run: phases: read [0-9.]+ ms, parse [0-9.]+ ms, verify [0-9.]+ ms, inputs [0-9.]+ ms, plan [0-9.]+ ms, first run [0-9.]+ ms, outputs [0-9.]+ ms; peak RSS [0-9.]+ MB$' "$tmp/err.txt" ||
  { cat "$tmp/err.txt"; fail "--profile-phases format"; }
/usr/bin/python3 - "$SRC/bench" "$tmp/err.txt" "$tmp/r.npy" <<'PY' || fail "startup.py cannot read the phases line, or wrong result"
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from startup import PHASES, parse_phases
ph, rss = parse_phases(open(sys.argv[2]).read())
assert sorted(ph) == sorted(PHASES), ph
assert rss > 0
# sum((2a)^2 over 2 rows) with a = 0..3: 2 * 4 * (0 + 1 + 4 + 9) = 112
assert float(np.load(sys.argv[3])) == 112.0
PY
echo "ok: $n bench workloads verify; live set 56; phases line"
