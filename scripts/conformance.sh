#!/bin/sh
# Runs shloc over the StableHLO conformance corpus:
#   1. `shloc check --roundtrip` on every *.mlir (static, dynamic, quantized sets):
#      parse, verify, and pretty -> parse -> pretty and generic -> parse -> pretty
#      must give the same text;
#   2. `shloc test` over testdata/ (every program checks its own results);
#   3. the shape-polymorphic programs of testdata-dynamic/ run through `shloc run`
#      at two sizes per '?' dimension by ../tools/dyn-run.py (the corpus' own
#      driver; needs python3 with numpy, otherwise the stage says SKIPPED).
# Each stage prints "N passed, M failed"; exits 1 if anything failed.
SHLOC=${1:?usage: conformance.sh SHLOC CORPUS_DIR}
CORPUS=${2:?usage: conformance.sh SHLOC CORPUS_DIR}
if [ ! -d "$CORPUS" ]; then
  echo "conformance: $CORPUS not found; skipped"
  exit 0
fi
rc=0
echo "== check + round trip (pretty and generic): $CORPUS"
"$SHLOC" check --roundtrip "$CORPUS" || rc=1
echo "== shloc test $CORPUS/testdata"
"$SHLOC" test --quiet "$CORPUS/testdata" || rc=1
DYNRUN=$CORPUS/../tools/dyn-run.py
echo "== dynamic shapes: $CORPUS/testdata-dynamic"
PY=
for p in /usr/bin/python3 python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import numpy' 2>/dev/null; then PY=$p; break; fi
done
if [ ! -d "$CORPUS/testdata-dynamic" ] || [ ! -f "$DYNRUN" ]; then
  echo "dynamic: SKIPPED ($DYNRUN or testdata-dynamic missing)"
elif [ -z "$PY" ]; then
  echo "dynamic: SKIPPED (no python3 with numpy)"
else
  "$PY" "$DYNRUN" "$SHLOC" "$CORPUS/testdata-dynamic" --verbose || rc=1
fi
exit $rc
