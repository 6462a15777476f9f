#!/bin/sh
# The generic form shloc prints must be accepted by upstream MLIR
# (mlir-opt-22 --allow-unregistered-dialect).  Skipped when it is not installed.
SHLOC=$1
MLIR_OPT=$(command -v mlir-opt-22 || true)
[ -n "$MLIR_OPT" ] || { echo "mlir-opt-22 not installed; skipped"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
for f in "$SHLOC_SOURCE_DIR"/examples/demo/model.mlir "$SHLOC_SOURCE_DIR"/tests/golden/*.mlir; do
  [ -f "$f" ] || continue
  "$SHLOC" fmt --generic "$f" -o "$tmp/g.mlir" || { echo "FAIL shloc fmt $f"; rc=1; continue; }
  if ! "$MLIR_OPT" --allow-unregistered-dialect "$tmp/g.mlir" -o /dev/null 2>"$tmp/err"; then
    echo "FAIL mlir-opt-22 rejects the generic form of $f:"; head -5 "$tmp/err"; rc=1
  fi
done
exit $rc
