#!/bin/sh
# The main job on a bundled example: verify a JAX-exported module that calls
# an FFI custom call, then print it in canonical pretty and generic form.
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
