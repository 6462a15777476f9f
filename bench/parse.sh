#!/bin/sh
# Parser/printer throughput.  Generates (once) into bench/out/ a module of hex
# dense constants (~128 MB) and a function of 100k ops, both in generic op form,
# then times (best of REPS runs, wall clock)
#   shloc fmt --generic FILE      parse + verify + print
#   shloc check FILE              parse + verify
#   mlir-opt-22 --allow-unregistered-dialect --mlir-print-op-generic FILE
# and prints MB/s of input and how many times faster shloc is than mlir-opt.
# Then the same modules as portable artifacts (MLIR bytecode, written once by
# `shloc serialize`, or by mlir-opt --emit-bytecode when shloc cannot): times
# `shloc check X.mlirbc` against `shloc check X.mlir` (same module, same
# verification) and prints the artifact's MB/s and the text/artifact ratio.
#   bench/parse.sh [SHLOC]        SHLOC defaults to build/shloc; REPS=3
set -eu
cd "$(dirname "$0")/.."
SHLOC=${1:-build/shloc}
REPS=${REPS:-3}
MLIR_OPT=${MLIR_OPT:-mlir-opt-22}
OUT=bench/out
mkdir -p "$OUT"
[ -x "$SHLOC" ] || { echo "parse bench: $SHLOC not built (make build)"; exit 1; }
[ -s "$OUT/parse_hex.mlir" ] || /usr/bin/python3 bench/parse/gen.py hex "$OUT/parse_hex.mlir" 128
[ -s "$OUT/parse_ops.mlir" ] || /usr/bin/python3 bench/parse/gen.py ops "$OUT/parse_ops.mlir" 100000

now() { date +%s.%N; }

# Best wall time (seconds) over REPS runs of the command; output discarded.
best() {
  b=999999
  i=0
  while [ "$i" -lt "$REPS" ]; do
    t0=$(now)
    "$@" >/dev/null 2>"$OUT/parse_err.txt" || { echo "failed: $*"; head -5 "$OUT/parse_err.txt"; exit 1; }
    t1=$(now)
    b=$(awk -v a="$t0" -v z="$t1" -v b="$b" 'BEGIN { t = z - a; print (t < b ? t : b) }')
    i=$((i + 1))
  done
  echo "$b"
}

have_mlir=1
command -v "$MLIR_OPT" >/dev/null || have_mlir=0
printf '%-16s %8s  %-22s %-22s %-22s %s\n' file MB "shloc fmt --generic" "shloc check" "$MLIR_OPT" "speedup (fmt, check)"
for f in "$OUT/parse_hex.mlir" "$OUT/parse_ops.mlir"; do
  mb=$(awk -v n="$(wc -c <"$f")" 'BEGIN { printf "%.1f", n / 1e6 }')
  tf=$(best "$SHLOC" fmt --generic "$f" -o -)
  tc=$(best "$SHLOC" check "$f")
  tm=0
  [ "$have_mlir" -eq 1 ] && tm=$(best "$MLIR_OPT" --allow-unregistered-dialect --mlir-print-op-generic "$f" -o /dev/null)
  awk -v f="$(basename "$f")" -v mb="$mb" -v tf="$tf" -v tc="$tc" -v tm="$tm" 'BEGIN {
    m = tm > 0 ? sprintf("%6.3f s %7.0f MB/s", tm, mb / tm) : "not installed";
    r = tm > 0 ? sprintf("%.1fx, %.1fx", tm / tf, tm / tc) : "-";
    printf "%-16s %8.1f  %6.3f s %7.0f MB/s  %6.3f s %7.0f MB/s  %-22s %s\n", f, mb, tf, mb / tf, tc, mb / tc, m, r
  }'
done

printf '\n%-16s %8s %8s  %-22s %-22s %s\n' file "text MB" "bc MB" "shloc check (text)" "shloc check (bc)" "bc speedup"
for f in "$OUT/parse_hex.mlir" "$OUT/parse_ops.mlir"; do
  bc="${f%.mlir}.mlirbc"
  if [ ! -s "$bc" ]; then
    "$SHLOC" serialize "$f" -o "$bc" 2>/dev/null ||
      { [ "$have_mlir" -eq 1 ] && "$MLIR_OPT" --allow-unregistered-dialect --emit-bytecode "$f" -o "$bc"; } ||
      { echo "parse bench: cannot write $bc"; continue; }
  fi
  mb=$(awk -v n="$(wc -c <"$f")" 'BEGIN { printf "%.1f", n / 1e6 }')
  bmb=$(awk -v n="$(wc -c <"$bc")" 'BEGIN { printf "%.1f", n / 1e6 }')
  tt=$(best "$SHLOC" check "$f")
  tb=$(best "$SHLOC" check "$bc")
  awk -v f="$(basename "$bc")" -v mb="$mb" -v bmb="$bmb" -v tt="$tt" -v tb="$tb" 'BEGIN {
    printf "%-16s %8.1f %8.1f  %6.3f s %7.0f MB/s  %6.3f s %7.0f MB/s  %.1fx\n", f, mb, bmb, tt, mb / tt, tb, bmb / tb, tt / tb
  }'
done
