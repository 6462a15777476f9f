#!/bin/sh
# shloc run on shape-polymorphic programs: inputs fill the '?' dimensions
# (JAX's dimension arguments included), results come back refined, and
# inputs that contradict each other are errors naming the op, the dimension
# and both sizes.  Needs python3 with numpy; skipped (exit 77) without it.
SHLOC=$1
PY=
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import numpy' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || { echo "python3 with numpy not available; skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$tmp" || exit 1

# JAX's older convention: %n is the number of rows of %a.
cat > dims.mlir <<'EOF'
func.func public @main(%n: tensor<i64>, %a: tensor<?x3xf32>) -> tensor<2x?x3xf32> {
  %c = stablehlo.convert %n : (tensor<i64>) -> tensor<i32>
  %c1 = stablehlo.reshape %c : (tensor<i32>) -> tensor<1xi32>
  %two = stablehlo.constant dense<2> : tensor<1xi32>
  %three = stablehlo.constant dense<3> : tensor<1xi32>
  %s = stablehlo.concatenate %two, %c1, %three, dim = 0 : (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<3xi32>
  %b = stablehlo.dynamic_broadcast_in_dim %a, %s, dims = [1, 2] : (tensor<?x3xf32>, tensor<3xi32>) -> tensor<2x?x3xf32>
  %r = stablehlo.add %b, %b : tensor<2x?x3xf32>
  return %r : tensor<2x?x3xf32>
}
EOF
cat > unranked.mlir <<'EOF'
func.func @main(%a: tensor<*xf32>) -> tensor<*xf32> {
  %0 = stablehlo.negate %a : tensor<*xf32>
  return %0 : tensor<*xf32>
}
EOF
"$PY" - <<'EOF' || fail "writing inputs"
import numpy as np
for n in (1, 4):
    np.save("n%d.npy" % n, np.array(n, np.int64))
    np.save("a%d.npy" % n, np.arange(n * 3, dtype=np.float32).reshape(n, 3))
np.save("c.npy", np.arange(24, dtype=np.float32).reshape(2, 3, 4))
EOF
for n in 1 4; do
  "$SHLOC" run dims.mlir -i n$n.npy -i a$n.npy -o out$n.npy || fail "run with $n rows"
done
"$SHLOC" run unranked.mlir -i c.npy -o neg.npy || fail "unranked run"
"$PY" - <<'EOF' || fail "results"
import numpy as np
for n in (1, 4):
    a = np.arange(n * 3, dtype=np.float32).reshape(n, 3)
    want = np.broadcast_to(a * 2, (2, n, 3))
    got = np.load("out%d.npy" % n)
    assert got.shape == want.shape and (got == want).all(), (n, got.shape)
got = np.load("neg.npy")
assert got.shape == (2, 3, 4) and (got == -np.arange(24, dtype=np.float32).reshape(2, 3, 4)).all()
EOF
# %n says 1 row, %a has 4.
"$SHLOC" run dims.mlir -i n1.npy -i a4.npy 2> err.txt && fail "inconsistent inputs accepted"
grep -q "'stablehlo.dynamic_broadcast_in_dim' operand dimension 0 (4) is neither 1 nor result dimension 1 (1)" err.txt ||
  { cat err.txt; fail "message for inconsistent inputs"; }
grep -q "dims.mlir:7:3" err.txt || { cat err.txt; fail "position of the error"; }
# A rank that the declared type does not allow.
"$SHLOC" run dims.mlir -i n1.npy -i c.npy 2> err.txt && fail "wrong rank accepted"
grep -q "expected tensor<?x3xf32>, got tensor<2x3x4xf32>" err.txt || { cat err.txt; fail "message for a wrong rank"; }
# JAX's stablehlo.dynamic_top_k with k = 2n, refined, then run as its static case.
cat > topk.mlir <<'EOF'
func.func @main(%n: tensor<i64>, %x: tensor<?x10xf32>) -> (tensor<?x?xf32>, tensor<?x?xi32>) {
  %k = stablehlo.add %n, %n : tensor<i64>
  %v:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%x, %k) : (tensor<?x10xf32>, tensor<i64>) -> (tensor<?x?xf32>, tensor<?x?xi32>)
  return %v#0, %v#1 : tensor<?x?xf32>, tensor<?x?xi32>
}
EOF
"$PY" -c "import numpy as np; np.save('x.npy', np.random.default_rng(1).standard_normal((3, 10)).astype(np.float32))" || fail "x.npy"
"$SHLOC" run topk.mlir -i n1.npy -i x.npy -o v.npy -o i.npy || fail "dynamic_top_k"
"$PY" - <<'EOF' || fail "dynamic_top_k results"
import numpy as np
x, v, i = np.load("x.npy"), np.load("v.npy"), np.load("i.npy")
order = np.argsort(-x, axis=1, kind="stable")[:, :2]
assert v.shape == (3, 2) and (i == order).all() and (v == np.take_along_axis(x, order, 1)).all()
EOF
# --repeat reuses the plan refined on the first run.
"$SHLOC" run dims.mlir -i n4.npy -i a4.npy --repeat 3 --time 2> time.txt > /dev/null || fail "--repeat"
grep -q "shloc run: 3 runs" time.txt || fail "--time output"
echo ok
