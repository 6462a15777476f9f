#!/bin/sh
# stablehlo.convert throughput: f32->bf16, f32->f16, f32->i32, bf16->f32 and
# f32->f8E4M3FN over N (default 16M) elements, `shloc run --repeat REPEAT
# --time` (median per run).  With two binaries, runs alternate A, B, A, B...
# ROUNDS times so both see the same machine load; prints each binary's best
# median per conversion and the load average before and after.
#   bench/convert.sh [SHLOC_A [SHLOC_B]]   (default build/shloc)
set -eu
cd "$(dirname "$0")/.."
A=${1:-build/shloc}
B=${2:-}
N=${N:-16777216}
REPEAT=${REPEAT:-10}
ROUNDS=${ROUNDS:-3}
OUT=bench/out/convert
[ -s "$OUT/f32_bf16.mlir" ] && grep -q "tensor<${N}x" "$OUT/f32_bf16.mlir" || /usr/bin/python3 bench/convert/gen.py "$OUT" "$N"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
median() { # binary program input -> median ms
  "$1" run "$OUT/$2.mlir" --input "$OUT/$3.npy" --repeat "$REPEAT" --time 2>&1 >/dev/null |
    sed -n 's/.*median \([0-9.]*\) ms.*/\1/p'
}
for prog in f32_bf16 f32_f16 f32_i32 bf16_f32 f32_f8e4m3fn; do
  src=${prog%%_*}
  ba=999999 bb=999999 r=0
  while [ "$r" -lt "$ROUNDS" ]; do
    t=$(median "$A" "$prog" "$src"); ba=$(awk -v a="$t" -v b="$ba" 'BEGIN { print (a < b ? a : b) }')
    if [ -n "$B" ]; then
      t=$(median "$B" "$prog" "$src"); bb=$(awk -v a="$t" -v b="$bb" 'BEGIN { print (a < b ? a : b) }')
    fi
    r=$((r + 1))
  done
  if [ -n "$B" ]; then printf '%-14s A %8.2f ms   B %8.2f ms   B/A %.2f\n' "$prog" "$ba" "$bb" "$(awk -v a="$ba" -v b="$bb" 'BEGIN { print b / a }')"
  else printf '%-14s %8.2f ms\n' "$prog" "$ba"; fi
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
