#!/bin/sh
# Nothing passes by being skipped (issue #18).  In the build this script runs
# from: every CLI test has SKIP_RETURN_CODE 77, so ctest reports a missing
# tool or corpus as skipped; scripts/ctest.sh (make test) counts and names the
# skips; scripts/conformance.sh (make conformance, CI) fails on a missing
# corpus; make test-asan runs the whole suite (CLI, golden, corpus, `shloc
# run`), not only the unit tests; configuring without cmocka is an error, not
# a build with zero unit tests.
SHLOC=$1
SRC=${SHLOC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=$(cd "$(dirname "$SHLOC")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 > /dev/null || { echo "skipped: python3 not installed"; exit 77; }

(cd "$BUILD" && ctest --show-only=json-v1) > "$tmp/tests.json" || fail "ctest --show-only=json-v1"
python3 - "$tmp/tests.json" <<'EOF2' || fail "CLI tests without SKIP_RETURN_CODE 77"
import json, sys
tests = json.load(open(sys.argv[1]))["tests"]
cli = [t for t in tests if t["name"].startswith("cli_")]
bad = [t["name"] for t in cli
       if not any(p["name"] == "SKIP_RETURN_CODE" and str(p["value"]) == "77" for p in t.get("properties", []))]
if not cli or bad:
    print("without SKIP_RETURN_CODE 77:", bad or "no cli_ tests")
    sys.exit(1)
EOF2

# A build directory with one passing and one skipping test.
mkdir "$tmp/fake"
cat > "$tmp/fake/CTestTestfile.cmake" <<'EOF2'
add_test(passes "true")
add_test(skips "sh" "-c" "exit 77")
set_tests_properties(skips PROPERTIES SKIP_RETURN_CODE 77)
EOF2
[ -x "$SRC/scripts/ctest.sh" ] || fail "scripts/ctest.sh missing"
"$SRC/scripts/ctest.sh" "$tmp/fake" 1 > "$tmp/ctest.out" 2>&1 || { cat "$tmp/ctest.out"; fail "ctest.sh failed on a skip"; }
grep -qx "== $tmp/fake: 1 passed, 1 skipped, 0 failed ([0-9]* s)" "$tmp/ctest.out" ||
  { cat "$tmp/ctest.out"; fail "ctest.sh count line"; }
grep -qx "  skips" "$tmp/ctest.out" || { cat "$tmp/ctest.out"; fail "ctest.sh names the skipped test"; }

if "$SRC/scripts/conformance.sh" "$SHLOC" "$tmp/no-such-corpus" > "$tmp/conf.out" 2>&1; then
  cat "$tmp/conf.out"
  fail "conformance.sh passed without a corpus"
fi
grep -q "FAILED" "$tmp/conf.out" || { cat "$tmp/conf.out"; fail "conformance.sh message"; }

make -s -n -C "$SRC" test-asan ASAN_BUILD="$tmp/asan" > "$tmp/asan.out" 2>&1 || fail "make -n test-asan"
grep -q "scripts/ctest.sh $tmp/asan" "$tmp/asan.out" || { cat "$tmp/asan.out"; fail "test-asan does not run the ctest suite"; }
if grep -q "ctest.* -R" "$tmp/asan.out"; then cat "$tmp/asan.out"; fail "test-asan runs a subset of the suite"; fi

# cmocka hidden from find_library: configuring must fail and say why.
if cmake -S "$SRC" -B "$tmp/nocmocka" -DCMAKE_FIND_ROOT_PATH=/nonexistent \
     -DCMAKE_FIND_ROOT_PATH_MODE_LIBRARY=ONLY > "$tmp/cmake.out" 2>&1; then
  fail "configured without cmocka"
fi
grep -qi "cmocka" "$tmp/cmake.out" || { cat "$tmp/cmake.out"; fail "configure error does not name cmocka"; }
echo ok
