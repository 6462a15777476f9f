#!/bin/sh
# The multi-device tests under MPI (one rank per device): every chunk of
# tests/interpret/collectives*.mlir, send_recv.mlir (send/recv through the
# coordinator), run_parallel*.mlir (the shared infeed queue, a 2x4 grid)
# and shard_map.mlir whose grid fits runs under mpirun -n 2
# and -n 4 (all_reduce in steps of a few KiB, so large operands take many
# steps), and all of them under -n 8 (ranks beyond a grid idle).  The
# checks hold exact expected values, so passing them on both transports
# means bit-identical results.  Only rank 0 reports.
SHLOC=$1
. "$(dirname "$0")/mpi_common.inc"
src=${SHLOC_SOURCE_DIR:-$(dirname "$0")/../..}/tests/interpret
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# The CLI (and libshloc) load MPI only through the plugin.
if command -v ldd >/dev/null; then ldd "$SHLOC" | grep -q libmpi && fail "shloc links libmpi"; fi
# $1: ranks; writes the chunks whose run_parallel grid has at most $1 devices.
fit() {
  awk -v max="$1" -v out="$tmp/fit$1.mlir" '
    function flush() { if (buf != "" && devs <= max) { printf "%s%s", (n++ ? "// -----\n" : ""), buf > out } buf = ""; devs = 0 }
    FNR == 1 { flush() }
    /^\/\/ -----$/ { flush(); next }
    { buf = buf $0 "\n"; if ($0 ~ /programs = \[\[/) { s = $0; sub(/.*programs = /, "", s); sub(/\]\].*/, "", s); c = gsub(/@/, "", s); if (c > devs) devs = c } }
    END { flush(); print n }' "$src/collectives.mlir" "$src/collectives_order.mlir" "$src/send_recv.mlir" \
    "$src/run_parallel.mlir" "$src/run_parallel_grid.mlir" "$src/shard_map.mlir"
}
for n in 2 4 8; do
  want=$(fit $n)
  [ "$want" -gt 0 ] || fail "no chunks for $n ranks"
  SHLOC_MPI_REDUCE_STEP=4096 timeout 60 sh -c 'mpirun -n "$1" --oversubscribe "$2" test --mpi --split-input-file "$3"' _ $n "$SHLOC" "$tmp/fit$n.mlir" >"$tmp/out" 2>&1
  rc=$?
  [ $rc -eq 124 ] && fail "hang with $n ranks"
  grep -q "^$want passed, 0 failed, 0 without checks$" "$tmp/out" || { cat "$tmp/out"; fail "$n ranks: expected $want passed"; }
  [ $rc -eq 0 ] || { cat "$tmp/out"; fail "$n ranks: exit status $rc"; }
  [ "$(grep -c "passed, " "$tmp/out")" -eq 1 ] || { cat "$tmp/out"; fail "$n ranks: more than one summary"; }
  echo "ok: $want tests under mpirun -n $n"
done
# A grid larger than the world is an error.
printf 'module {\n  func.func @s(%%x: tensor<i32>) -> tensor<i32> { return %%x : tensor<i32> }\n  func.func @main() {\n    %%a = stablehlo.constant dense<1> : tensor<i32>\n    %%r:3 = "interpreter.run_parallel"(%%a, %%a, %%a) {programs = [[@s], [@s], [@s]]} : (tensor<i32>, tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>, tensor<i32>)\n    check.expect_eq_const %%r#2, dense<1> : tensor<i32>\n    func.return\n  }\n}\n' >"$tmp/big.mlir"
timeout 60 mpirun -n 2 --oversubscribe "$SHLOC" test --mpi "$tmp/big.mlir" >"$tmp/out" 2>&1 && { cat "$tmp/out"; fail "3-device grid on 2 ranks accepted"; }
grep -q "needs 3 devices (3 replicas x 1 partitions), mpirun started 2 ranks" "$tmp/out" || { cat "$tmp/out"; fail "grid too large: message"; }
echo PASS
