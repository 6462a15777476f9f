#!/bin/sh
# stablehlo.sort throughput on the radix sort's (key, index) path: f16, bf16,
# i16 and f32 keys alone and with an i32 payload, N (default 4M) elements,
# `shloc run --repeat REPEAT --time` (median per run).  With two binaries,
# runs alternate A, B, A, B... ROUNDS times so both see the same machine
# load; prints each binary's best median per case and the load average.
#   bench/sort.sh [SHLOC_A [SHLOC_B]]   (default build/shloc)
set -eu
cd "$(dirname "$0")/.."
A=${1:-build/shloc}
B=${2:-}
N=${N:-4194304}
REPEAT=${REPEAT:-5}
ROUNDS=${ROUNDS:-3}
OUT=bench/out/sort
[ -s "$OUT/f16.mlir" ] && grep -q "tensor<${N}x" "$OUT/f16.mlir" || /usr/bin/python3 bench/sort/gen.py "$OUT" "$N"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
median() { # binary program inputs... -> median ms
  b=$1 prog=$2
  shift 2
  args=
  for i in "$@"; do args="$args --input $OUT/$i.npy"; done
  # shellcheck disable=SC2086
  "$b" run "$OUT/$prog.mlir" $args --repeat "$REPEAT" --time 2>&1 >/dev/null | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p'
}
for prog in f16 bf16 i16 f16_i32 bf16_i32 i16_i32 f32_i32; do
  key=${prog%%_*}
  ins=$key
  [ "$prog" = "$key" ] || ins="$key i32"
  ba=999999 bb=999999 r=0
  while [ "$r" -lt "$ROUNDS" ]; do
    # shellcheck disable=SC2086
    t=$(median "$A" "$prog" $ins); ba=$(awk -v a="$t" -v b="$ba" 'BEGIN { print (a < b ? a : b) }')
    if [ -n "$B" ]; then
      # shellcheck disable=SC2086
      t=$(median "$B" "$prog" $ins); bb=$(awk -v a="$t" -v b="$bb" 'BEGIN { print (a < b ? a : b) }')
    fi
    r=$((r + 1))
  done
  if [ -n "$B" ]; then printf '%-10s A %8.2f ms   B %8.2f ms   B/A %.2f\n' "$prog" "$ba" "$bb" "$(awk -v a="$ba" -v b="$bb" 'BEGIN { print b / a }')"
  else printf '%-10s %8.2f ms\n' "$prog" "$ba"; fi
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
