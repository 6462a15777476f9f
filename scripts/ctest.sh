#!/bin/sh
# Runs the ctest suite of one build directory and ends with one count line:
#   "== BUILD: N passed, S skipped, F failed (T s)"
# A test whose tool or data is missing exits 77 and ctest reports it as
# skipped (SKIP_RETURN_CODE): skips are counted and named, never passed.
#   scripts/ctest.sh BUILD_DIR JOBS [ctest arguments...]
BUILD=${1:?usage: ctest.sh BUILD_DIR JOBS [ctest args]}
JOBS=${2:?usage: ctest.sh BUILD_DIR JOBS [ctest args]}
shift 2
log=$BUILD/ctest.log
start=$(date +%s)
(cd "$BUILD" && ctest --output-on-failure -j "$JOBS" "$@") > "$log" 2>&1
rc=$?
cat "$log"
secs=$(( $(date +%s) - start ))
# One line per finished test: "k/N Test #i: name ...   Passed|***Skipped|***Failed  t sec".
total=$(grep -c '^ *[0-9]*/[0-9]* Test *#' "$log")
passed=$(grep '^ *[0-9]*/[0-9]* Test *#' "$log" | grep -c ' Passed ')
skipped=$(grep '^ *[0-9]*/[0-9]* Test *#' "$log" | grep -c '\*\*\*Skipped')
failed=$((total - passed - skipped))
if [ "$skipped" -gt 0 ]; then
  echo "skipped:"
  grep '^ *[0-9]*/[0-9]* Test *#' "$log" | grep '\*\*\*Skipped' | sed 's/^.*Test *#[0-9]*: \([^ ]*\).*/  \1/'
fi
echo "== $BUILD: $passed passed, $skipped skipped, $failed failed (${secs} s)"
[ "$rc" -eq 0 ] && [ "$failed" -eq 0 ]
