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
#      without mlir-opt-22; CONFORMANCE_MLIR_OPT=0 leaves it out);
#   5. the shape-polymorphic programs of testdata-dynamic/ run through `shloc run`
#      at two sizes per '?' dimension by ../tools/dyn-run.py (the corpus' own
#      driver; SKIPPED, and said so, without it or without python3 with numpy;
#      CONFORMANCE_DYNAMIC=0 leaves it out).
#   6. portable artifacts: `shloc serialize --roundtrip` over every corpus
#      (text -> artifact -> text equals text -> text, for --target=current and
#      for the oldest version each module's ops allow; a module with CHLO ops
#      is compared after the CHLO decomposition, which is what its artifact
#      holds (with XLA's composites for current, inline for oldest); modules with check-dialect test ops, which no artifact can hold,
#      are counted apart, as are other ops VHLO cannot express); every
#      testdata/ program with CHLO ops serialized and its artifact run by
#      `shloc test` (its own checks, on the decomposed program); and
#      byte identity with upstream: every stablehlo_legalize_to_vhlo.X_Y_Z.mlir
#      of ../vhlo serialized with --target=X.Y.Z --strip-debuginfo equals its
#      .mlir.bc (SKIPPED, and said so, without ../vhlo).
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
echo "== serialize --roundtrip (current and oldest targets): $CORPUS/testdata*"
out=$("$SHLOC" serialize --roundtrip "$CORPUS"/testdata* 2>&1) || rc=1
printf '%s\n' "$out" | grep -v ': refused: \|: check op: '
for kind in refused 'check op'; do
  printf '%s\n' "$out" | sed -n "s/.*: $kind: .*'\([a-z_]*\.[a-z_0-9.]*\)' op .*/\1/p" | sort | uniq -c |
    awk -v k="$kind" '{printf "%s%s x%s", (NR > 1 ? ", " : k " (modules, by first such op): "), $2, $1}
      END {if (NR) print ""}'
done
printf '%s\n' "$out" | grep -q ', [1-9][0-9]* with check ops$' &&
  echo "(check ops: check.* test-harness ops of the check dialect, not StableHLO; VHLO cannot hold them and upstream's serializer refuses them too)"
echo "== serialize CHLO programs, then shloc test their artifacts: $CORPUS/testdata"
tmp=$(mktemp -d)
n=0
for f in $(grep -l 'chlo\.' "$CORPUS"/testdata/*.mlir); do
  if "$SHLOC" serialize "$f" -o "$tmp/$(basename "$f").bc"; then n=$((n + 1)); else rc=1; fi
done
if [ "$n" -gt 0 ]; then
  "$SHLOC" test --quiet "$tmp"/*.bc || rc=1
fi
rm -rf "$tmp"
VHLO=$CORPUS/../vhlo
if ! ls "$VHLO"/stablehlo_legalize_to_vhlo.*.mlir >/dev/null 2>&1; then
  echo "== serialize byte identity with upstream: SKIPPED ($VHLO missing)"
else
  echo "== serialize byte identity with upstream: $VHLO"
  tmp=$(mktemp)
  same=0
  differ=0
  for f in "$VHLO"/stablehlo_legalize_to_vhlo.*.mlir; do
    v=$(basename "$f" .mlir | sed 's/^stablehlo_legalize_to_vhlo\.//; s/_/./g')
    if "$SHLOC" serialize --target="$v" --strip-debuginfo "$f" -o "$tmp" && cmp -s "$tmp" "$f.bc"; then
      same=$((same + 1))
    else
      echo "differs: $f ($(cmp "$tmp" "$f.bc" 2>&1 | head -1))"
      differ=$((differ + 1))
    fi
  done
  rm -f "$tmp"
  echo "serialize vs upstream: $same identical, $differ differ"
  [ "$differ" -eq 0 ] && [ "$same" -gt 0 ] || rc=1
fi
DYNRUN=$CORPUS/../tools/dyn-run.py
PY=
for p in /usr/bin/python3 python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import numpy' 2>/dev/null; then PY=$p; break; fi
done
if [ "${CONFORMANCE_DYNAMIC:-1}" = 0 ]; then
  echo "== dynamic shapes: left out (CONFORMANCE_DYNAMIC=0)"
elif [ ! -d "$CORPUS/testdata-dynamic" ] || [ ! -f "$DYNRUN" ]; then
  echo "== dynamic shapes: SKIPPED ($DYNRUN or testdata-dynamic missing)"
elif [ -z "$PY" ]; then
  echo "== dynamic shapes: SKIPPED (no python3 with numpy)"
else
  echo "== dynamic shapes: $CORPUS/testdata-dynamic"
  "$PY" "$DYNRUN" "$SHLOC" "$CORPUS/testdata-dynamic" --verbose || rc=1
fi
exit $rc
