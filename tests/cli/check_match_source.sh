#!/bin/sh
# `shloc check --match-source`: the pretty output must reproduce the source.
# Comment lines and surrounding blank lines are not compared; dense literals
# compare by value (older MLIR spelled i1 hex one byte per element and complex
# splats as (0.0, 0.0)); anything else that differs is reported at its line.
SHLOC=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# As MLIR prints it, after RUN lines: passes.  Large constants print as hex:
# 200 i1 elements 0,1,1,1,0,1,1,1,... one byte each (bit-packed: 0xEE...).
I1=$(printf '00010101%.0s' $(seq 50))
cat > "$tmp/ok.mlir" <<EOF2
// RUN: stablehlo-translate --interpret %s

module {
  func.func @main() -> (tensor<200xi1>, tensor<0x2xcomplex<f32>>, tensor<2xf32>) {
    %c = stablehlo.constant dense<"0x$I1"> : tensor<200xi1>
    %cst = stablehlo.constant dense<(0.0, 0.0)> : tensor<0x2xcomplex<f32>>
    %cst_0 = stablehlo.constant dense<[0x7FC00000, -2.500000e+00]> : tensor<2xf32>
    return %c, %cst, %cst_0 : tensor<200xi1>, tensor<0x2xcomplex<f32>>, tensor<2xf32>
  }
}
EOF2
"$SHLOC" check --match-source "$tmp/ok.mlir" || fail "MLIR-printed source rejected"
# One byte per element means 00 or 01: a byte 02 (read as true) is reported.
sed 's/0x000101010001/0x000101010002/' "$tmp/ok.mlir" > "$tmp/i1.mlir"
"$SHLOC" check --roundtrip "$tmp/i1.mlir" || fail "i1 variant is valid"
if "$SHLOC" check --match-source "$tmp/i1.mlir" 2> "$tmp/err"; then fail "i1 byte 02 accepted"; fi
grep -q "i1.mlir:5:1: error: pretty output differs from the source" "$tmp/err" || { cat "$tmp/err"; fail "i1 message"; }
# A value the type cannot hold prints rounded: a different value, reported.
sed 's/0x7FC00000, -2.500000e+00\]> : tensor<2xf32>/0x7FC0, 0.1]> : tensor<2xbf16>/; s/tensor<2xf32>/tensor<2xbf16>/g' "$tmp/ok.mlir" > "$tmp/bf.mlir"
if "$SHLOC" check --match-source "$tmp/bf.mlir" 2> "$tmp/err"; then fail "0.1 in bf16 accepted"; fi
grep -q "prints as '.*1.000980e-01\]> : tensor<2xbf16>'" "$tmp/err" || { cat "$tmp/err"; fail "bf16 message"; }
# Numbers by value: 1.0 prints as 1.000000e+00 (same value), 0x7FC00000 stays bits.
sed 's/-2.500000e+00/-2.5/; s/(0.0, 0.0)/(0.000000e+00,0.000000e+00)/' "$tmp/ok.mlir" > "$tmp/num.mlir"
"$SHLOC" check --match-source "$tmp/num.mlir" || fail "-2.5 vs -2.500000e+00"
# Anything outside literals must be identical: a user's SSA name, an extra space.
sed 's/%cst_0/%w/g' "$tmp/ok.mlir" > "$tmp/name.mlir"
if "$SHLOC" check --match-source "$tmp/name.mlir" 2> "$tmp/err"; then fail "renamed value not reported"; fi
grep -q "name.mlir:7:1: error: pretty output differs from the source: line 5 prints as '    %cst_0 = " "$tmp/err" ||
  { cat "$tmp/err"; fail "rename message"; }
sed 's/return %c,/return  %c,/' "$tmp/ok.mlir" > "$tmp/space.mlir"
if "$SHLOC" check --match-source "$tmp/space.mlir" 2> /dev/null; then fail "extra space not reported"; fi
# A line the printer drops (a trailing op the source has twice) is reported too.
printf 'module {\n}\nmodule {\n}\n' > "$tmp/two.mlir"
if "$SHLOC" check --match-source "$tmp/two.mlir" 2> /dev/null; then fail "two modules accepted"; fi
echo ok
