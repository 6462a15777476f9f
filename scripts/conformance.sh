#!/bin/sh
# Runs shloc over the StableHLO conformance corpus:
#   1. `shloc check` on every *.mlir (static, dynamic, quantized sets);
#   2. a round trip: pretty -> parse -> pretty must be a fixed point, and the
#      generic form must parse back to the same pretty text;
#   3. `shloc test` over testdata/ (every program checks itself).
# Prints "N passed, M failed" per stage; exits 1 if anything failed.
SHLOC=${1:?usage: conformance.sh SHLOC CORPUS_DIR}
CORPUS=${2:?usage: conformance.sh SHLOC CORPUS_DIR}
if [ ! -d "$CORPUS" ]; then
  echo "conformance: $CORPUS not found; skipped"
  exit 0
fi
SHLOC=$(cd "$(dirname "$SHLOC")" && pwd)/$(basename "$SHLOC")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
for f in $(find "$CORPUS" -name '*.mlir' | sort); do
  split=""
  grep -q '^// -----' "$f" && split=--split-input-file
  if "$SHLOC" check $split "$f" 2>"$tmp/err" &&
     "$SHLOC" fmt $split "$f" -o "$tmp/a.mlir" 2>>"$tmp/err" &&
     "$SHLOC" fmt $split "$tmp/a.mlir" -o "$tmp/b.mlir" 2>>"$tmp/err" &&
     cmp -s "$tmp/a.mlir" "$tmp/b.mlir" &&
     "$SHLOC" fmt $split --generic "$f" -o "$tmp/g.mlir" 2>>"$tmp/err" &&
     "$SHLOC" fmt $split "$tmp/g.mlir" -o "$tmp/c.mlir" 2>>"$tmp/err" &&
     cmp -s "$tmp/a.mlir" "$tmp/c.mlir"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL (round trip) $f"
    head -c 400 "$tmp/err"
  fi
done
echo "check + round trip: $pass passed, $fail failed"
rc=0
[ "$fail" -eq 0 ] || rc=1
if "$SHLOC" test --help >/dev/null 2>&1; then
  "$SHLOC" test "$CORPUS/testdata" || rc=1
fi
exit $rc
