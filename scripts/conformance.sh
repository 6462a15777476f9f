#!/bin/sh
# Runs shloc over the StableHLO conformance corpus (../shared/conformance):
#   1. `shloc check --roundtrip --match-source` on testdata/ (static programs,
#      printed by MLIR): parse, verify, pretty -> parse -> pretty and
#      generic -> parse -> pretty give the same text, and the pretty text
#      reproduces the source (rules in tools/cli_srcmatch.c);
#   2. `shloc check --roundtrip` on testdata-dynamic/ and testdata-quantized/
#      (hand-written or partly generic sources: no source comparison);
#   3. `shloc test` over testdata/ (every program checks its own results), and
#      `shloc test --split-input-file` over testdata-quantized/;
#   4. scripts/mlir_generic_diff.sh on every file: shloc's generic form equals
#      mlir-opt-22's printing of it, modulo SSA names (skipped, and said so,
#      without mlir-opt-22; CONFORMANCE_MLIR_OPT=0 leaves it out).
# Each stage prints "N passed, M failed" (or identical/differ); exits 1 if
# anything failed or the corpus is missing.
SHLOC=${1:?usage: conformance.sh SHLOC CORPUS_DIR}
CORPUS=${2:?usage: conformance.sh SHLOC CORPUS_DIR}
JOBS=${JOBS:-$(nproc)}
if [ ! -d "$CORPUS/testdata" ]; then
  echo "conformance: FAILED: $CORPUS/testdata not found (set SHARED=... to the directory holding conformance/)"
  exit 1
fi
rc=0
echo "== check --roundtrip --match-source: $CORPUS/testdata"
"$SHLOC" check --match-source "$CORPUS/testdata" || rc=1
for d in "$CORPUS"/testdata-*; do
  [ -d "$d" ] || continue
  echo "== check --roundtrip: $d"
  "$SHLOC" check --roundtrip "$d" || rc=1
done
echo "== shloc test $CORPUS/testdata"
"$SHLOC" test --quiet "$CORPUS/testdata" || rc=1
if [ -d "$CORPUS/testdata-quantized" ]; then
  echo "== shloc test --split-input-file $CORPUS/testdata-quantized"
  "$SHLOC" test --quiet --split-input-file "$CORPUS/testdata-quantized" || rc=1
fi
if [ "${CONFORMANCE_MLIR_OPT:-1}" = 0 ]; then
  echo "== generic form vs mlir-opt-22: left out (CONFORMANCE_MLIR_OPT=0)"
elif ! command -v mlir-opt-22 >/dev/null; then
  echo "== generic form vs mlir-opt-22: SKIPPED (mlir-opt-22 not installed)"
else
  echo "== generic form vs mlir-opt-22 ($JOBS jobs): $CORPUS"
  log=$(mktemp)
  find "$CORPUS"/testdata* -name '*.mlir' | sort |
    xargs -P "$JOBS" -n 100 "$(dirname "$0")/mlir_generic_diff.sh" "$SHLOC" > "$log" 2>&1
  grep -v '^generic vs mlir-opt-22:' "$log"
  same=$(sed -n 's/^generic vs mlir-opt-22: \([0-9]*\) identical.*/\1/p' "$log" | awk '{s += $1} END {print s + 0}')
  differ=$(sed -n 's/^generic vs mlir-opt-22: [0-9]* identical, \([0-9]*\) differ/\1/p' "$log" | awk '{s += $1} END {print s + 0}')
  rm -f "$log"
  echo "generic vs mlir-opt-22: $same identical, $differ differ"
  [ "$differ" -eq 0 ] && [ "$same" -gt 0 ] || rc=1
fi
exit $rc
