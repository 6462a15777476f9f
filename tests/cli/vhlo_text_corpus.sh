#!/bin/sh
# The text modules of the VHLO corpus (upstream's stablehlo/tests/vhlo/*.mlir,
# all accepted by stablehlo-opt) pass `shloc check`, and `shloc fmt` output is
# a fixed point (printing it again gives the same text).  The corpus lives
# outside the tree: SHLOC_VHLO_DIR, default /work/shared/vhlo; without it the
# test is skipped (exit 77).  invalid_*.mlir are upstream's deliberately
# unparsable examples and are left out.
SHLOC=$1
dir=${SHLOC_VHLO_DIR:-/work/shared/vhlo}
if ! ls "$dir"/*.mlir >/dev/null 2>&1; then
  echo "SKIP: no VHLO corpus in $dir"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
bad=0
for f in "$dir"/*.mlir; do
  case $(basename "$f") in invalid_*) continue ;; esac
  n=$((n + 1))
  if ! "$SHLOC" check "$f" 2>"$tmp/err"; then
    echo "FAIL check: $f"; head -3 "$tmp/err"; bad=$((bad + 1)); continue
  fi
  "$SHLOC" fmt "$f" -o "$tmp/a.mlir" 2>"$tmp/err" || { echo "FAIL fmt: $f"; head -3 "$tmp/err"; bad=$((bad + 1)); continue; }
  "$SHLOC" fmt "$tmp/a.mlir" -o "$tmp/b.mlir" 2>"$tmp/err" || { echo "FAIL fmt of fmt output: $f"; head -3 "$tmp/err"; bad=$((bad + 1)); continue; }
  cmp -s "$tmp/a.mlir" "$tmp/b.mlir" || { echo "FAIL round trip: $f"; diff "$tmp/a.mlir" "$tmp/b.mlir" | head -5; bad=$((bad + 1)); }
done
[ "$n" -gt 0 ] || { echo "SKIP: no text modules in $dir"; exit 77; }
echo "$n modules, $bad failures"
[ "$bad" -eq 0 ]
