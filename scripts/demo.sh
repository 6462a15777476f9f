#!/bin/sh
# The main job on bundled examples: verify a JAX-exported module that calls
# an FFI custom call and print it in canonical pretty and generic form; then
# build an FFI handler in C, run an exported module that calls it, and
# compare the result with a reference.
set -e
SHLOC=${1:-build/shloc}
EX=examples/demo/model.mlir
echo "== shloc check $EX"
"$SHLOC" check "$EX" && echo "ok: module verifies"
echo
echo "== shloc fmt $EX"
"$SHLOC" fmt "$EX"
echo
echo "== shloc fmt --generic $EX"
"$SHLOC" fmt --generic "$EX"
echo
echo "== custom call through the XLA FFI: examples/rms_norm (see its README.md)"
examples/rms_norm/run.sh "$SHLOC"
