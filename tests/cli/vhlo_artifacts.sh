#!/bin/sh
# Portable artifacts (StableHLO bytecode) read back as the modules they were
# serialized from: for every X.mlir.bc of upstream's VHLO test corpus
# (SHLOC_VHLO_DIR, default /work/shared/vhlo), `shloc fmt X.mlir.bc` must equal
# `shloc fmt X.mlir`; an artifact from a future version is refused naming
# both versions.  Without the corpus the test is skipped (exit 77).
SHLOC=$1
DIR=${SHLOC_VHLO_DIR:-/work/shared/vhlo}
[ -d "$DIR" ] || { echo "SKIP: no VHLO corpus at $DIR"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
for bc in "$DIR"/*.mlir.bc; do
  src=${bc%.bc}
  name=$(basename "$src")
  case "$name" in invalid_*) continue ;; esac
  [ -f "$src" ] || continue
  n=$((n + 1))
  "$SHLOC" fmt "$src" > "$tmp/text.out" 2>&1
  "$SHLOC" fmt "$bc" > "$tmp/bc.out" 2>&1
  if ! cmp -s "$tmp/text.out" "$tmp/bc.out"; then
    echo "FAIL: $name: fmt of the artifact differs from fmt of the text"
    diff "$tmp/text.out" "$tmp/bc.out" | head -10
    fail=1
  fi
done
[ "$n" -gt 0 ] || { echo "SKIP: no artifacts in $DIR"; exit 77; }
future="$DIR/invalid_vhlo_future.mlir.bc"
if [ -f "$future" ]; then
  if "$SHLOC" check "$future" 2>"$tmp/err"; then echo "FAIL: future artifact accepted"; fail=1; fi
  grep -q "error: at byte [0-9]*: artifact is StableHLO v2.0.0, newest readable is v1\.[0-9]*\.[0-9]*" "$tmp/err" ||
    { cat "$tmp/err"; echo "FAIL: future artifact diagnostic"; fail=1; }
fi
# A truncated artifact names the byte offset.
head -c 64 "$(ls "$DIR"/*.mlir.bc | head -1)" > "$tmp/cut.mlir.bc"
if "$SHLOC" check "$tmp/cut.mlir.bc" 2>"$tmp/err"; then echo "FAIL: truncated artifact accepted"; fail=1; fi
grep -q "cut.mlir.bc: error: at byte [0-9]*: " "$tmp/err" || { cat "$tmp/err"; echo "FAIL: truncated diagnostic"; fail=1; }
[ "$fail" -eq 0 ] && echo "ok ($n artifacts)"
exit "$fail"
