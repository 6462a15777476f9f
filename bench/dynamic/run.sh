#!/bin/sh
# Dynamic-shape overhead: bench/dynamic/{mlp,attention}.mlir (batch and
# sequence '?') against the static ../shared/bench modules, on the same
# inputs, with `shloc run --repeat N --time` (planning, and for the dynamic
# modules refinement, happen before the timed runs).  Builds alternate within
# each round (this machine's speed swings within seconds); prints each
# round's medians, the median over rounds, their ratio, and the load average.
#   usage: bench/dynamic/run.sh SHLOC [ROUNDS] [REPEAT]
# Inputs come from ../shared/bench/make_inputs.py (written to $TMPDIR/shloc-dyn-bench once).
SHLOC=${1:?usage: run.sh SHLOC [ROUNDS] [REPEAT]}
ROUNDS=${2:-5}
REPEAT=${3:-10}
HERE=$(cd "$(dirname "$0")" && pwd)
BENCH=$HERE/../../../shared/bench
[ -d "$BENCH" ] || BENCH=/work/shared/bench
IN=${TMPDIR:-/tmp}/shloc-dyn-bench
[ -d "$IN/attention" ] || /usr/bin/python3 "$BENCH/make_inputs.py" "$IN" mlp attention > /dev/null || exit 1
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
one() { # module workload -> median ms
  "$SHLOC" run "$1" -i "$IN/$2/in0.npy" -i "$IN/$2/in1.npy" -i "$IN/$2/in2.npy" -i "$IN/$2/in3.npy" \
    -i "$IN/$2/in4.npy" --repeat "$REPEAT" --time 2>&1 >/dev/null | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p'
}
for w in ${WORKLOADS:-mlp attention}; do
  : > "$IN/$w.static"; : > "$IN/$w.dynamic"
  r=1
  while [ $r -le "$ROUNDS" ]; do
    if [ $((r % 2)) -eq 1 ]; then
      one "$BENCH/$w/module.mlir" $w >> "$IN/$w.static"; one "$HERE/$w.mlir" $w >> "$IN/$w.dynamic"
    else
      one "$HERE/$w.mlir" $w >> "$IN/$w.dynamic"; one "$BENCH/$w/module.mlir" $w >> "$IN/$w.static"
    fi
    r=$((r + 1))
  done
  s=$(median < "$IN/$w.static"); d=$(median < "$IN/$w.dynamic")
  echo "$w: static $(tr '\n' ' ' < "$IN/$w.static")ms; dynamic $(tr '\n' ' ' < "$IN/$w.dynamic")ms"
  echo "$w: median static $s ms, dynamic $d ms, ratio $(echo "$d $s" | awk '{printf "%.3f", $1 / $2}')"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
