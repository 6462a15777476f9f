#!/bin/sh
# The CHLO -> StableHLO decomposition (shloc fmt --legalize-chlo, and shloc
# serialize, which applies it):
#   1. for every function of tests/data/chlo_legalize/cases.mlir, the
#      non-constant ops of shloc's decomposition equal, op by op and count by
#      count, those of upstream's chlo-legalize-to-stablehlo output
#      (upstream_ops.txt: recorded from openxla/stablehlo's CHECK lines);
#   2. ragged_dot, scan and top_k on a dynamic shape are refused at the op,
#      naming it; elementwise ops on dynamic
#      shapes decompose (constants broadcast to the run-time shape) and run;
#   3. serialize writes a CHLO module as an artifact holding no CHLO op: the
#      ops XLA preserves as stablehlo.composite "chlo.X" calling @chlo.X.impl
#      (ragged_dot's attributes serialized as XLA does)
#      (from target 0.19.0 on; decomposed in place before, or with
#      --inline-chlo), which reads back as fmt --legalize-chlo=composites
#      prints the module and runs (its check passes); --min-version follows
#      the decomposed ops (chlo.tan -> stablehlo.tan, v1.4.0), and an older
#      target gets tan as sine / cosine.
SHLOC=$1
DATA=${SHLOC_SOURCE_DIR:-$(dirname "$0")/../..}/tests/data/chlo_legalize
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$SHLOC" fmt --legalize-chlo "$DATA/cases.mlir" -o "$tmp/out.mlir" || fail "legalizing cases.mlir"
no_chlo_ops() { ! grep -Eq '(^ *|= )"?chlo\.' "$1"; }
no_chlo_ops "$tmp/out.mlir" || fail "CHLO ops left after --legalize-chlo"
# Per function: "name op=count ..." over stablehlo ops except constants.
awk '
  /^  func\.func / { if (name != "") flush(); name = $2; sub(/^@/, "", name); sub(/\(.*/, "", name); delete c; next }
  /= "?stablehlo\.[a-z_0-9]+/ {
    match($0, /stablehlo\.[a-z_0-9]+/); op = substr($0, RSTART + 10, RLENGTH - 10)
    if (op != "constant") c[op]++
  }
  function flush(   k, s, n, keys, i, j, t) {
    n = 0; for (k in c) keys[++n] = k
    for (i = 2; i <= n; i++) for (j = i; j > 1 && keys[j - 1] > keys[j]; j--) { t = keys[j]; keys[j] = keys[j - 1]; keys[j - 1] = t }
    s = name; for (i = 1; i <= n; i++) s = s " " keys[i] "=" c[keys[i]]
    print s
  }
  END { if (name != "") flush() }' "$tmp/out.mlir" > "$tmp/got.txt"
grep -v '^#' "$DATA/upstream_ops.txt" | sed 's/ *$//' > "$tmp/want.txt"
sed -i 's/ *$//' "$tmp/got.txt"
if ! cmp -s "$tmp/want.txt" "$tmp/got.txt"; then
  diff "$tmp/want.txt" "$tmp/got.txt"
  fail "decomposed ops differ from upstream's (< upstream, > shloc)"
fi
[ "$(wc -l < "$tmp/got.txt")" -ge 50 ] || fail "too few functions compared"

# Refusals name the op and its position: ragged_dot and scan on dynamic
# shapes (upstream's dynamic forms are not written here).
cat > "$tmp/ragged.mlir" <<'MLIR'
func.func @main(%l: tensor<2x11x5xf32>, %r: tensor<3x2x5x?xf32>, %g: tensor<3xi64>) -> tensor<2x11x?xf32> {
  %0 = "chlo.ragged_dot"(%l, %r, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]>} : (tensor<2x11x5xf32>, tensor<3x2x5x?xf32>, tensor<3xi64>) -> tensor<2x11x?xf32>
  return %0 : tensor<2x11x?xf32>
}
MLIR
"$SHLOC" fmt --legalize-chlo "$tmp/ragged.mlir" > /dev/null 2> "$tmp/err" && fail "dynamic ragged_dot accepted"
grep -q "ragged.mlir:2:3: error: 'chlo.ragged_dot' has a dynamic shape" "$tmp/err" || { cat "$tmp/err"; fail "ragged_dot message"; }
"$SHLOC" serialize "$tmp/ragged.mlir" -o "$tmp/r.bc" 2> "$tmp/err" && fail "serialize accepted a dynamic ragged_dot"
grep -q "'chlo.ragged_dot'" "$tmp/err" || { cat "$tmp/err"; fail "serialize message"; }
[ -e "$tmp/r.bc" ] && fail "output left behind after a refusal"
cat > "$tmp/scan.mlir" <<'MLIR'
func.func @main(%a: tensor<?xi32>, %i: tensor<i32>) -> (tensor<?xi32>, tensor<i32>) {
  %0:2 = chlo.scan(%a) inits(%i) dimension=0 {
  ^bb0(%x: tensor<i32>, %c: tensor<i32>):
    %1 = stablehlo.add %x, %c : tensor<i32>
    stablehlo.return %1, %1 : tensor<i32>, tensor<i32>
  } : (tensor<?xi32>, tensor<i32>) -> (tensor<?xi32>, tensor<i32>)
  return %0#0, %0#1 : tensor<?xi32>, tensor<i32>
}
MLIR
"$SHLOC" fmt --legalize-chlo "$tmp/scan.mlir" > /dev/null 2> "$tmp/err" && fail "dynamic scan accepted"
grep -q "scan.mlir:2:3: error: 'chlo.scan' has a dynamic shape" "$tmp/err" || { cat "$tmp/err"; fail "scan message"; }
# ragged_dot is preserved as XLA does it: its CHLO attributes serialized as
# builtin ones (chlo_preserve_high_level_ops.mlir's CHECK lines).
sed -n '/@ragged_dot_mode_1(/,/^  }/p' "$DATA/cases.mlir" > "$tmp/rd.mlir"
"$SHLOC" serialize "$tmp/rd.mlir" -o "$tmp/rd.bc" && "$SHLOC" fmt "$tmp/rd.bc" > "$tmp/rd_back.mlir" || fail "serialize ragged_dot"
no_chlo_ops "$tmp/rd_back.mlir" || fail "the ragged_dot artifact holds CHLO ops"
grep -q 'stablehlo.composite "chlo.ragged_dot" .*{composite_attributes = {precision_config = \["DEFAULT", "DEFAULT"\], ragged_dot_dimension_numbers = \[dense<0> : tensor<1xi64>, dense<1> : tensor<1xi64>, dense<2> : tensor<1xi64>, dense<2> : tensor<1xi64>, dense<1> : tensor<1xi64>, dense<0> : tensor<1xi64>\]}, decomposition = @chlo.ragged_dot.impl, version = 1 : i32}' "$tmp/rd_back.mlir" ||
  { cat "$tmp/rd_back.mlir"; fail "ragged_dot composite"; }
grep -q 'func.func private @chlo.ragged_dot.impl(' "$tmp/rd_back.mlir" || fail "no @chlo.ragged_dot.impl"
printf 'func.func @main(%%a: tensor<?x5xf32>) -> (tensor<?x2xf32>, tensor<?x2xi32>) {\n  %%0:2 = chlo.top_k(%%a, k = 2) : tensor<?x5xf32> -> (tensor<?x2xf32>, tensor<?x2xi32>)\n  return %%0#0, %%0#1 : tensor<?x2xf32>, tensor<?x2xi32>\n}\n' > "$tmp/dyn.mlir"
"$SHLOC" fmt --legalize-chlo "$tmp/dyn.mlir" > /dev/null 2> "$tmp/err" && fail "dynamic top_k accepted"
grep -q "dyn.mlir:2:3: error: 'chlo.top_k' has a dynamic shape" "$tmp/err" || { cat "$tmp/err"; fail "dynamic message"; }
# Elementwise ops on dynamic shapes: constants broadcast to the run-time shape.
cat > "$tmp/dyn2.mlir" <<'MLIR'
func.func @main() {
  %c = stablehlo.constant dense<[0.0, 0.5, -1.5, 3.0]> : tensor<4xf32>
  %n = stablehlo.constant dense<[4]> : tensor<1xi32>
  %d = stablehlo.dynamic_reshape %c, %n : (tensor<4xf32>, tensor<1xi32>) -> tensor<?xf32>
  %e = chlo.erf %d : tensor<?xf32> -> tensor<?xf32>
  %s = stablehlo.dynamic_reshape %e, %n : (tensor<?xf32>, tensor<1xi32>) -> tensor<4xf32>
  %w = stablehlo.constant dense<[0.0, 0.520499877, -0.966105146, 0.999977909]> : tensor<4xf32>
  stablehlo.custom_call @check.expect_almost_eq(%s, %w) {has_side_effect = true} : (tensor<4xf32>, tensor<4xf32>) -> ()
  return
}
MLIR
"$SHLOC" fmt --legalize-chlo "$tmp/dyn2.mlir" > "$tmp/dyn2d.mlir" || fail "dynamic erf"
no_chlo_ops "$tmp/dyn2d.mlir" || fail "dynamic erf left CHLO"
grep -q 'stablehlo.dynamic_broadcast_in_dim %cst.*dims = \[\] : (tensor<f32>, tensor<1xi32>) -> tensor<?xf32>' "$tmp/dyn2d.mlir" ||
  fail "no scalar broadcast to the run-time shape"
"$SHLOC" test "$tmp/dyn2d.mlir" | grep -q '^1 passed' || fail "dynamic erf's check"
"$SHLOC" serialize "$tmp/dyn2.mlir" -o "$tmp/dyn2.bc" && "$SHLOC" test "$tmp/dyn2.bc" | grep -q '^1 passed' || fail "dynamic erf artifact"

# serialize decomposes, the artifact runs.
cat > "$tmp/run.mlir" <<'MLIR'
func.func @main() {
  %x = stablehlo.constant dense<[0.0, 0.5, -1.5, 3.0]> : tensor<4xf32>
  %e = chlo.erf %x : tensor<4xf32> -> tensor<4xf32>
  %t = chlo.tan %x : tensor<4xf32> -> tensor<4xf32>
  %w = stablehlo.constant dense<[0.0, 0.520499877, -0.966105146, 0.999977909]> : tensor<4xf32>
  stablehlo.custom_call @check.expect_almost_eq(%e, %w) {has_side_effect = true} : (tensor<4xf32>, tensor<4xf32>) -> ()
  return
}
MLIR
"$SHLOC" serialize "$tmp/run.mlir" -o "$tmp/run.bc" || fail "serialize of a CHLO module"
"$SHLOC" fmt "$tmp/run.bc" > "$tmp/back.mlir" || fail "reading the artifact"
no_chlo_ops "$tmp/back.mlir" || fail "the artifact holds CHLO ops"
grep -q 'stablehlo.composite "chlo.erf" %.* {decomposition = @chlo.erf.impl, version = 1 : i32}' "$tmp/back.mlir" ||
  fail "no chlo.erf composite"
grep -q 'func.func private @chlo.erf.impl(' "$tmp/back.mlir" || fail "no @chlo.erf.impl"
grep -q 'composite' "$tmp/back.mlir" && grep -q 'chlo.tan' "$tmp/back.mlir" && fail "tan is not preserved by XLA"
"$SHLOC" fmt --legalize-chlo=composites "$tmp/run.mlir" > "$tmp/dec.mlir" || fail "legalize"
cmp -s "$tmp/dec.mlir" "$tmp/back.mlir" || { diff "$tmp/dec.mlir" "$tmp/back.mlir"; fail "artifact differs from the decomposed module"; }
"$SHLOC" test "$tmp/run.bc" | grep -q '^1 passed' || fail "the artifact's check"
[ "$("$SHLOC" serialize --min-version "$tmp/run.mlir")" = "$tmp/run.mlir 1.4.0" ] || fail "--min-version after decomposition"
"$SHLOC" serialize --inline-chlo "$tmp/run.mlir" -o "$tmp/inl.bc" || fail "--inline-chlo"
"$SHLOC" fmt "$tmp/inl.bc" > "$tmp/inl.mlir" && "$SHLOC" fmt --legalize-chlo "$tmp/run.mlir" > "$tmp/dec2.mlir" || fail "fmt"
cmp -s "$tmp/dec2.mlir" "$tmp/inl.mlir" || fail "--inline-chlo differs from --legalize-chlo"
grep -q composite "$tmp/inl.mlir" && fail "--inline-chlo wrote a composite"
"$SHLOC" test "$tmp/inl.bc" | grep -q '^1 passed' || fail "the inline artifact's check"
# Before v1.4.0, chlo.tan becomes sine / cosine (StableHLO's compatibility
# expander), not stablehlo.tan.
"$SHLOC" serialize --target=1.3.0 "$tmp/run.mlir" -o "$tmp/r13.bc" || fail "--target=1.3.0 with chlo.tan"
"$SHLOC" fmt "$tmp/r13.bc" | grep -q 'stablehlo.tan ' && fail "stablehlo.tan at 1.3.0"
"$SHLOC" test "$tmp/r13.bc" | grep -q '^1 passed' || fail "the 1.3.0 artifact's check"
# Composites exist from 0.19.0 on; before, the ops are decomposed in place.
printf 'func.func @main(%%a: tensor<2xf32>) -> tensor<2xf32> {\n  %%0 = chlo.erf %%a : tensor<2xf32> -> tensor<2xf32>\n  return %%0 : tensor<2xf32>\n}\n' > "$tmp/erf.mlir"
"$SHLOC" serialize --target=0.18.0 "$tmp/erf.mlir" -o "$tmp/e18.bc" && "$SHLOC" fmt "$tmp/e18.bc" > "$tmp/e18.mlir" || fail "0.18.0"
grep -q composite "$tmp/e18.mlir" && fail "composite at 0.18.0"
"$SHLOC" serialize --target=0.19.0 "$tmp/erf.mlir" -o "$tmp/e19.bc" && "$SHLOC" fmt "$tmp/e19.bc" > "$tmp/e19.mlir" || fail "0.19.0"
grep -q 'composite "chlo.erf"' "$tmp/e19.mlir" || fail "no composite at 0.19.0"
# Names and order as XLA's pass gives them: top-level ops last to first, a
# taken name suffixed from one shared counter, each function inserted right
# after the one it came from.
printf 'func.func @a(%%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {\n  %%0 = chlo.erf %%x : tensor<2xf32> -> tensor<2xf32>\n  %%1 = chlo.erf %%0 : tensor<2xf32> -> tensor<2xf32>\n  %%2 = chlo.acosh %%1 : tensor<2xf32> -> tensor<2xf32>\n  return %%0, %%1, %%2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>\n}\nfunc.func @b(%%x: tensor<2xf32>) -> tensor<2xf32> {\n  %%0 = chlo.erf %%x : tensor<2xf32> -> tensor<2xf32>\n  return %%0 : tensor<2xf32>\n}\n' > "$tmp/names.mlir"
"$SHLOC" fmt --legalize-chlo=composites "$tmp/names.mlir" | sed -n 's/.*func.func \(private \)*@\([a-z_.0-9]*\)(.*/\2/p; s/.*decomposition = @\([a-z_.0-9]*\),.*/-> \1/p' | tr '\n' ' ' > "$tmp/names.txt"
[ "$(cat "$tmp/names.txt")" = "a -> chlo.erf.impl_0 -> chlo.erf.impl_1 -> chlo.acosh.impl chlo.acosh.impl chlo.erf.impl_1 chlo.erf.impl_0 b -> chlo.erf.impl chlo.erf.impl " ] ||
  fail "impl names/order: $(cat "$tmp/names.txt")"
echo "ok"
