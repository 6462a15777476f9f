#!/bin/sh
# Runs shloc over the StableHLO conformance corpus:
#   1. `shloc check --roundtrip` on every *.mlir (static, dynamic, quantized sets):
#      parse, verify, and pretty -> parse -> pretty and generic -> parse -> pretty
#      must give the same text;
#   2. `shloc test` over testdata/ (every program checks its own results);
#   3. `shloc test --split-input-file` over testdata-quantized/ (likewise).
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
if [ -d "$CORPUS/testdata-quantized" ]; then
  echo "== shloc test --split-input-file $CORPUS/testdata-quantized"
  "$SHLOC" test --quiet --split-input-file "$CORPUS/testdata-quantized" || rc=1
fi
exit $rc
