#!/bin/sh
# Multi-device faults under MPI: a rank whose program fails, runs another
# collective, ends early, hangs past the timeout or is killed (SIGKILL)
# makes every rank stop within seconds, with an error naming the rank;
# never a hang (each run is bounded by `timeout`, and must end well before).
SHLOC=$1
. "$(dirname "$0")/mpi_common.inc"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/fault_program.inc"
# $1: the second device's program body.
program() {
  fault_program "$1" "$tmp/f.mlir"
}
# $1: what the case is; $2: seconds the job may take; then the texts the output must contain.
# Runs "$tmp/run" (a command line) under mpirun -n 2.
expect_stop() {
  what=$1 limit=$2
  shift 2
  t0=$(date +%s)
  timeout 60 sh -c "$RUN" >"$tmp/out" 2>&1
  rc=$? t=$(($(date +%s) - t0))
  [ $rc -eq 124 ] && fail "$what: hang"
  [ $rc -eq 0 ] && { cat "$tmp/out"; fail "$what: exit status 0"; }
  [ $t -le "$limit" ] || { cat "$tmp/out"; fail "$what: took $t s (limit $limit s)"; }
  for text in "$@"; do grep -q "$text" "$tmp/out" || { cat "$tmp/out"; fail "$what: no '$text'"; }; done
  echo "ok: $what (stopped after $t s, exit status $rc)"
}
RUN="mpirun -n 2 --oversubscribe $SHLOC test --mpi $tmp/f.mlir"
# Rank 1's program fails (its infeed queue is empty) while rank 0 waits in all_reduce.
program '    %v:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
    return %v#0 : tensor<2xf32>'
expect_stop "failing program" 20 "on device #1 (replica 1, partition 0): 'stablehlo.infeed' infeed queue is empty" \
  "on device #0 (replica 0, partition 0): 'stablehlo.all_reduce' stopped: rank 1 (device #1, replica 1, partition 0) failed"
# Rank 1 runs a different collective: detected by the signature exchange.
program '    %g = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<4xf32>
    %s = stablehlo.slice %g [0:2] : (tensor<4xf32>) -> tensor<2xf32>
    return %s : tensor<2xf32>'
expect_stop "mismatched collective" 20 "devices disagree on collective #0: device #0 runs 'stablehlo.all_reduce' with 1 operands, device #1 runs 'stablehlo.all_gather'"
# Rank 1 ends its program without reaching the collective.
program '    return %x : tensor<2xf32>'
expect_stop "program ended early" 20 "device #1 (replica 1, partition 0) ended its program without reaching this collective"
# Rank 1 computes for a long time: rank 0 gives up after SHLOC_MPI_TIMEOUT and ends the job.
program '    %c0 = stablehlo.constant dense<0> : tensor<i64>
    %one = stablehlo.constant dense<1> : tensor<i64>
    %lim = stablehlo.constant dense<4000000000> : tensor<i64>
    %w:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i64>, tensor<2xf32>
      cond {
        %c = stablehlo.compare LT, %i, %lim : (tensor<i64>, tensor<i64>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %n = stablehlo.add %i, %one : tensor<i64>
        stablehlo.return %n, %v : tensor<i64>, tensor<2xf32>
      }
    return %w#1 : tensor<2xf32>'
RUN="SHLOC_MPI_TIMEOUT=3 mpirun -n 2 --oversubscribe -x SHLOC_MPI_TIMEOUT $SHLOC test --mpi $tmp/f.mlir"
expect_stop "peer past the timeout" 20 "'stablehlo.all_reduce' timed out after 3 s waiting for rank 1 (device #1)"
# Rank 1 is killed (SIGKILL) 2 s into the same long computation: Open MPI ends the job.
RUN="mpirun -n 2 --oversubscribe sh -c 'if [ \"\$OMPI_COMM_WORLD_RANK\" = 1 ]; then (sleep 2; kill -9 \$\$) & fi; exec $SHLOC test --mpi $tmp/f.mlir'"
expect_stop "killed rank" 20 "rank 1 with PID .* exited on signal 9"
echo PASS
