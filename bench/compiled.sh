#!/bin/sh
# Compiled code against the interpreter on the shared workloads
# (../shared/bench/<name>/module.mlir, inputs from its make_inputs.py):
# each workload is compiled with `shloc compile module.mlir -o prog --native`
# and both `shloc run` and `prog` are timed in the same run (--repeat N
# --time: median per call, parsing/compiling excluded; the compiled time
# includes copying the results out).  Rounds alternate interpreter and
# compiled twice and keep each one's best median (the machine is shared).
# Prints a table with the ratio compiled / interpreter, the largest
# difference between the two programs' results, and `uptime` before and
# after.  A workload that does not compile is listed with the reason.
#
# usage: bench/compiled.sh [SHLOC] [SUITE] [REPEAT] [names...]
SHLOC=${1:-build/shloc}
SUITE=${2:-../shared/bench}
REPEAT=${3:-10}
[ $# -gt 3 ] && shift 3 || set --
NAMES=${*:-ew_chain mlp attention convnet reductions loop gather_scatter sort}
PY=/usr/bin/python3
OUT=${BENCH_OUT:-/tmp/shloc-bench-compiled}
mkdir -p "$OUT/data"
echo "uptime before: $(uptime)"
printf '%-15s %12s %12s %7s %10s  %s\n' workload "interp ms" "compiled ms" ratio "max diff" note
for w in $NAMES; do
  mod=$SUITE/$w/module.mlir
  [ -f "$mod" ] || { echo "$w: no $mod"; continue; }
  [ -f "$OUT/data/$w/in0.npy" ] || "$PY" "$SUITE/make_inputs.py" "$OUT/data" "$w" >/dev/null || { echo "$w: make_inputs failed"; continue; }
  ins=""
  for f in $(ls "$OUT/data/$w"/in*.npy | sort -V); do ins="$ins --input $f"; done
  if ! "$SHLOC" compile "$mod" -o "$OUT/prog_$w" --native 2>"$OUT/$w.err"; then
    printf '%-15s %12s %12s %7s %10s  %s\n' "$w" - - - - "not compiled: $(grep -o "error: .*" "$OUT/$w.err" | head -1 | cut -c8-90)"
    continue
  fi
  best_i=; best_c=
  for round in 1 2; do
    ti=$("$SHLOC" run "$mod" $ins --repeat "$REPEAT" --time 2>&1 >/dev/null | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p')
    tc=$("$OUT/prog_$w" $ins --quiet --repeat "$REPEAT" --time 2>&1 | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p')
    best_i=$(echo "$best_i $ti" | awk '{print (NF == 1 || $2 < $1) ? $NF : $1}')
    best_c=$(echo "$best_c $tc" | awk '{print (NF == 1 || $2 < $1) ? $NF : $1}')
  done
  rm -rf "$OUT/res_$w" && mkdir -p "$OUT/res_$w"
  "$OUT/prog_$w" $ins -o "$OUT/res_$w" --quiet
  n=$(ls "$OUT/res_$w" | wc -l)
  outs=""
  i=0
  while [ $i -lt "$n" ]; do outs="$outs -o $OUT/res_$w/interp$i.npy"; i=$((i + 1)); done
  "$SHLOC" run "$mod" $ins $outs >/dev/null
  diff=$("$PY" -c "
import numpy as np, sys
d = 0.0
for i in range($n):
    a = np.load('$OUT/res_$w/result%d.npy' % i).astype(np.float64); b = np.load('$OUT/res_$w/interp%d.npy' % i).astype(np.float64)
    d = max(d, float(np.max(np.abs(a - b))) if a.size else 0.0)
print('%.2g' % d)")
  ratio=$(echo "$best_c $best_i" | awk '{printf "%.2f", $1 / $2}')
  printf '%-15s %12s %12s %7s %10s\n' "$w" "$best_i" "$best_c" "$ratio" "$diff"
done
echo "uptime after: $(uptime)"
