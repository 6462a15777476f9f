#!/bin/sh
# The rms_norm example end to end: build the handler library, generate an
# input, run the exported module through `shloc run` with the handler, and
# compare the result with RMS norm computed in C.
# Usage: examples/rms_norm/run.sh [SHLOC_BINARY [OUT_DIR]]
#   defaults: build/shloc of this checkout, and OUT_DIR = <shloc's dir>/examples/rms_norm
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
SHLOC=${1:-$HERE/../../build/shloc}
SHLOC=$(cd "$(dirname "$SHLOC")" && pwd)/$(basename "$SHLOC")
OUT=${2:-$(dirname "$SHLOC")/examples/rms_norm}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

echo "== build the handler: $OUT/librms_norm.so"
make -s -C "$HERE" OUT="$OUT"
echo
echo "== generate an input"
"$OUT/compare" gen "$OUT/x.npy"
echo
echo "== shloc run rms_norm.mlir --ffi rms_norm=librms_norm.so:rms_norm --input x.npy --print"
"$SHLOC" run "$HERE/rms_norm.mlir" --ffi "rms_norm=$OUT/librms_norm.so:rms_norm" --input "$OUT/x.npy" --print \
  -o "$OUT/y.npy"
echo
echo "== compare with a reference computed in C"
"$OUT/compare" check "$OUT/x.npy" "$OUT/y.npy"
