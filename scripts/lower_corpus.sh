#!/bin/sh
# Lowers every program of a corpus directory with `shloc lower --to=linalg`
# and checks that mlir-opt-22 parses and verifies the result (--verify-each).
# Prints counts (lowered, verified) and the most frequent refusals, by op.
#   scripts/lower_corpus.sh SHLOC DIR [JOBS]
# Not part of ctest: the corpus lives outside the tree (../shared/conformance).
SHLOC=${1:?usage: lower_corpus.sh SHLOC DIR [JOBS]}
DIR=${2:?usage: lower_corpus.sh SHLOC DIR [JOBS]}
JOBS=${3:-2}
command -v mlir-opt-22 >/dev/null 2>&1 || { echo "lower_corpus: mlir-opt-22 not installed (Debian: mlir-22-tools)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SHLOC tmp
ls "$DIR"/*.mlir | xargs -P "$JOBS" -n 1 sh -c '
  f=$1; b=$(basename "$f" .mlir)
  if "$SHLOC" lower "$f" --to=linalg -o "$tmp/$b.out" 2>"$tmp/$b.err"; then
    if mlir-opt-22 --verify-each "$tmp/$b.out" -o /dev/null 2>"$tmp/$b.err"; then echo ok >"$tmp/$b.res"
    else echo verify >"$tmp/$b.res"; fi
    rm -f "$tmp/$b.out"
  else echo lower >"$tmp/$b.res"; fi' sh
total=$(ls "$tmp"/*.res | wc -l)
ok=$(cat "$tmp"/*.res | grep -c '^ok$')
lowered=$(cat "$tmp"/*.res | grep -c -v '^lower$')
echo "lower_corpus: $total programs, $lowered lowered, $ok lowered and verified by mlir-opt-22"
echo "refusals by op:"
for r in "$tmp"/*.res; do
  [ "$(cat "$r")" = lower ] && grep -o "error: '[a-z_.0-9]*' cannot be lowered[^:]*: .*" "${r%.res}.err" | head -1
done | sort | uniq -c | sort -rn | head -25
echo "mlir-opt-22 rejections (first line of each, most frequent):"
for r in "$tmp"/*.res; do
  [ "$(cat "$r")" = verify ] && grep -o "error: .*" "${r%.res}.err" | head -1 | cut -c1-120
done | sort | uniq -c | sort -rn | head -15
[ "$ok" -eq "$total" ]
