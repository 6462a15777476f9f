#!/bin/sh
# make conformance-compiled: every program of CONFORMANCE/testdata (the static
# ones) compiled with `shloc compile F -o EXE` and run; a program passes when
# the executable exits 0 (every check.* passed).  Prints one line per program
# that does not pass, then the counts: passed, refused by the lowering (by op),
# failed in an upstream tool, failed at run time (checks or crash), and the
# time.  JOBS programs at a time (default 2).  Exit 1 when any program ran and
# failed or an upstream tool failed; programs the lowering refuses are
# reported, not failed (they name the ops still missing).
SHLOC=${1:?usage: conformance_compiled.sh SHLOC CONFORMANCE_DIR [JOBS]}
DIR=${2:?usage: conformance_compiled.sh SHLOC CONFORMANCE_DIR [JOBS]}
JOBS=${3:-2}
SHLOC=$(cd "$(dirname "$SHLOC")" && pwd)/$(basename "$SHLOC")
[ -d "$DIR/testdata" ] || { echo "conformance-compiled: no $DIR/testdata" >&2; exit 1; }
for tool in mlir-opt-22 mlir-translate-22 clang-22; do
  command -v $tool >/dev/null 2>&1 || { echo "conformance-compiled: $tool not installed" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
# One worker per program: prints "STATUS FILE DETAIL".
cat >"$tmp/one.sh" <<'W'
#!/bin/sh
f=$1; shloc=$2; tmp=$3
b=$(basename "$f" .mlir)
mkdir -p "$tmp/$b"
exe=$tmp/$b/prog
if ! "$shloc" compile "$f" -o "$exe" >"$tmp/$b.err" 2>&1; then
  op=$(grep -o "error: '[^']*' cannot be lowered" "$tmp/$b.err" | head -1 | cut -d"'" -f2)
  if [ -n "$op" ]; then echo "LOWER $b $op"
  elif grep -q "this command failed" "$tmp/$b.err"; then
    echo "TOOL $b $(grep -A1 'this command failed' "$tmp/$b.err" | tail -1 | awk '{print $1}')"
  else echo "ERROR $b $(head -1 "$tmp/$b.err" | cut -c1-160)"; fi
  rm -rf "$tmp/$b" "$tmp/$b.err"
  exit 0
fi
timeout 120 "$exe" --quiet >"$tmp/$b.err" 2>&1
rc=$?
if [ $rc = 0 ]; then echo "PASS $b"
elif [ $rc = 1 ]; then echo "CHECK $b $(head -1 "$tmp/$b.err" | cut -c1-160)"
else echo "CRASH $b exit $rc: $(head -1 "$tmp/$b.err" | cut -c1-120)"; fi
rm -rf "$tmp/$b" "$tmp/$b.err"
W
chmod +x "$tmp/one.sh"
ls "$DIR"/testdata/*.mlir | xargs -P "$JOBS" -I{} "$tmp/one.sh" {} "$SHLOC" "$tmp" >"$tmp/results"
end=$(date +%s)
total=$(wc -l <"$tmp/results")
count() { grep -c "^$1 " "$tmp/results"; }
grep -v "^PASS \|^LOWER " "$tmp/results" | sort
echo "== refused by the lowering, by op (programs):"
grep "^LOWER " "$tmp/results" | awk '{print $3}' | sort | uniq -c | sort -rn | awk '{printf "   %5d %s\n", $1, $2}'
echo "== conformance-compiled: $total programs: $(count PASS) passed, $(count LOWER) refused by the lowering," \
  "$(count TOOL) failed in an upstream tool, $(count ERROR) other compile errors," \
  "$(count CHECK) failed their checks, $(count CRASH) crashed or timed out ($((end - start)) s, -j$JOBS)"
[ "$(count TOOL)" = 0 ] && [ "$(count ERROR)" = 0 ] && [ "$(count CHECK)" = 0 ] && [ "$(count CRASH)" = 0 ]
