#!/bin/sh
# shloc test --probe-output-dir: probes write probe<K>.npy and index.csv (the
# reference interpreter's layout), expect_serialized_eq reads them back, and a
# value that differs from the file fails.
SHLOC=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
SRC=${SHLOC_SOURCE_DIR:-$(dirname "$0")/../..}
"$SHLOC" test --split-input-file --probe-output-dir "$tmp" "$SRC/tests/interpret/probe.mlir" > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "probe tests"; }
[ "$(wc -l < "$tmp/index.csv")" -eq 3 ] || { cat "$tmp/index.csv"; fail "index.csv lines (the second chunk's run replaces the first's)"; }
grep -q "^f/32,tensor<2x2xf32>,$tmp/probe1.npy$" "$tmp/index.csv" || { cat "$tmp/index.csv"; fail "index.csv line"; }
[ -s "$tmp/probe3.npy" ] || fail "probe3.npy"
printf 'func.func @main() {\n  %%a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>\n  %%p = interpreter.probe %%a, probe_id = "a" : tensor<2xi32>\n  %%b = stablehlo.constant dense<[1, 3]> : tensor<2xi32>\n  check.expect_serialized_eq %%b, probe_id = "a" : tensor<2xi32>\n  return\n}\n' > "$tmp/bad.mlir"
if "$SHLOC" test --probe-output-dir "$tmp" "$tmp/bad.mlir" > "$tmp/out" 2>&1; then fail "a mismatch passed"; fi
grep -q "check failed at index \[1\]: actual 3, expected 2" "$tmp/out" || { cat "$tmp/out"; fail "mismatch message"; }
if "$SHLOC" test "$tmp/bad.mlir" > "$tmp/out" 2>&1; then fail "a mismatch passed (in memory)"; fi
sed '/expect_serialized_eq/s/probe_id = "a" : /probe_id = "a", iter = 1 : /' "$tmp/bad.mlir" > "$tmp/iter.mlir"
if "$SHLOC" test "$tmp/iter.mlir" > "$tmp/out" 2>&1; then fail "a missing iteration passed"; fi
grep -q "no value #1 of probe 'a'" "$tmp/out" || { cat "$tmp/out"; fail "missing iteration message"; }
exit 0
