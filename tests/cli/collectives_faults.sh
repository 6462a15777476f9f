#!/bin/sh
# Multi-device faults on threads: a device that fails, a device that runs a
# different collective, a device that ends early and a recv without a sender
# make the others stop with an error naming the device, never a hang
# (bounded by `timeout`).
SHLOC=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/fault_program.inc"
command -v timeout >/dev/null || { echo "SKIP: no timeout(1)"; exit 77; }
# $1: the second device's program body; $2: the text the error must contain.
run_case() {
  fault_program "$1" "$tmp/f.mlir"
  timeout 60 "$SHLOC" test "$tmp/f.mlir" >"$tmp/out" 2>&1
  rc=$?
  [ $rc -eq 124 ] && fail "hang ($2)"
  [ $rc -eq 0 ] && { cat "$tmp/out"; fail "accepted ($2)"; }
  grep -q "$2" "$tmp/out" || { cat "$tmp/out"; fail "message ($2)"; }
}
# Device #1 fails (its infeed queue is empty) while device #0 waits in all_reduce.
run_case '    %v:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
    return %v#0 : tensor<2xf32>' "on device #1 (replica 1, partition 0): 'stablehlo.infeed' infeed queue is empty"
# Device #1 runs a different collective.
run_case '    %g = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<4xf32>
    %s = stablehlo.slice %g [0:2] : (tensor<4xf32>) -> tensor<2xf32>
    return %s : tensor<2xf32>' "devices disagree on collective #0"
# Device #1 ends its program without reaching the collective.
run_case '    return %x : tensor<2xf32>' "device #1 (replica 1, partition 0) ended its program without reaching this collective"
# Device #1 waits in a recv that no device sends to, device #0 in the
# all_reduce it never joins: every device waits, both stop at once.
run_case '    %v:2 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>} : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
    return %v#0 : tensor<2xf32>' "every device still running waits for another"
echo PASS
