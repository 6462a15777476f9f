#!/bin/sh
# shloc run --mpi: one device per rank.  The shard_map/psum program and the
# GSPMD program of spmd_run.sh under mpirun -n 2 and 4 equal the one-device
# computation and hand-computed values; per-device inputs are read by their
# own rank (tiles gathered over MPI), per-device outputs written by it;
# results written once come from rank 0; send/recv between ranks; the errors.
SHLOC=$1
. "$(dirname "$0")/mpi_common.inc"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/spmd_programs.inc"
mk "$tmp/x.npy" 'dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>'
# x*x + 1 = [2, 5, 10, 17, 26, 37, 50, 65], its tiles summed by hand.
for case in "2 dense<[2.800000e+01, 4.200000e+01, 6.000000e+01, 8.200000e+01]>" "4 dense<[8.800000e+01, 1.240000e+02]>"; do
  n=${case%% *}
  want=${case#* }
  shmap "$n" > "$tmp/shmap$n.mlir"
  single "$n" > "$tmp/single$n.mlir"
  timeout 60 mpirun -n "$n" --oversubscribe "$SHLOC" run --mpi "$tmp/shmap$n.mlir" --input "$tmp/x.npy" > "$tmp/multi.out" 2>&1 || { cat "$tmp/multi.out"; fail "shard_map on $n ranks"; }
  "$SHLOC" run "$tmp/single$n.mlir" --input "$tmp/x.npy" > "$tmp/single.out" 2>&1 || { cat "$tmp/single.out"; fail "single-device $n"; }
  # Only rank 0 prints: the output is the one-device output, once.
  cmp -s "$tmp/multi.out" "$tmp/single.out" || { cat "$tmp/multi.out" "$tmp/single.out"; fail "$n ranks differ from one device"; }
  grep -qF "$want" "$tmp/multi.out" || { cat "$tmp/multi.out"; fail "$n ranks: expected $want"; }
  timeout 60 mpirun -n "$n" --oversubscribe "$SHLOC" run --mpi "$tmp/shmap$n.mlir" --input "$tmp/x.npy" -o "$tmp/y$n.npy" || fail "-o on $n ranks"
  "$SHLOC" run "$tmp/single$n.mlir" --input "$tmp/x.npy" -o "$tmp/y1.npy" || fail "single -o $n"
  cmp -s "$tmp/y$n.npy" "$tmp/y1.npy" || fail "-o on $n ranks differs from one device"
done
# Per-device tiles of the sdy-sharded argument: each rank reads its own.
mk "$tmp/t.dev0.npy" 'dense<[1.0, 2.0]> : tensor<2xf32>'
mk "$tmp/t.dev1.npy" 'dense<[3.0, 4.0]> : tensor<2xf32>'
mk "$tmp/t.dev2.npy" 'dense<[5.0, 6.0]> : tensor<2xf32>'
mk "$tmp/t.dev3.npy" 'dense<[7.0, 8.0]> : tensor<2xf32>'
timeout 60 mpirun -n 4 --oversubscribe "$SHLOC" run --mpi "$tmp/shmap4.mlir" --input-per-device --input "$tmp/t.npy" -o "$tmp/r.npy" || fail "per-device inputs"
for d in 0 1 2 3; do cmp -s "$tmp/r.dev$d.npy" "$tmp/y1.npy" || fail "per-device output $d"; done
# GSPMD: tiles by a transposed iota, result rows per rank; printed by rank 0
# in device order, the same as the threads print.
gspmd "$tmp/gspmd.mlir"
mk "$tmp/g.dev0.npy" 'dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>'
mk "$tmp/g.dev1.npy" 'dense<[[10, 20], [30, 40]]> : tensor<2x2xi32>'
mk "$tmp/g.dev2.npy" 'dense<[[100, 200], [300, 400]]> : tensor<2x2xi32>'
mk "$tmp/g.dev3.npy" 'dense<[[1000, 2000], [3000, 4000]]> : tensor<2x2xi32>'
timeout 60 mpirun -n 4 --oversubscribe "$SHLOC" run --mpi "$tmp/gspmd.mlir" --input-per-device --input "$tmp/g.npy" -o "$tmp/h.npy" --print > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "gspmd"; }
tr -d '\n' < "$tmp/out" | grep -qx "device #0:dense<\[\[45, 68, 4500, 6800\]\]> : tensor<1x4xi32>device #1:dense<\[\[47, 70, 4700, 7000\]\]> : tensor<1x4xi32>device #2:dense<\[\[54, 86, 5400, 8600\]\]> : tensor<1x4xi32>device #3:dense<\[\[74, 106, 7400, 10600\]\]> : tensor<1x4xi32>" || { cat "$tmp/out"; fail "gspmd values"; }
"$SHLOC" run "$tmp/gspmd.mlir" --input-per-device --input "$tmp/g.npy" -o "$tmp/k.npy" || fail "gspmd on threads"
for d in 0 1 2 3; do cmp -s "$tmp/h.dev$d.npy" "$tmp/k.dev$d.npy" || fail "gspmd output $d differs from threads"; done
# The grid must fill the world.
if timeout 60 mpirun -n 3 --oversubscribe "$SHLOC" run --mpi "$tmp/shmap2.mlir" --input "$tmp/x.npy" > "$tmp/out" 2>&1; then fail "accepted 3 ranks for 2 devices"; fi
grep -q "the program runs on 2 devices (1 replicas x 2 partitions), mpirun started 3 ranks" "$tmp/out" || { cat "$tmp/out"; fail "world size message"; }
# Results that differ between ranks need per-device outputs.
cat > "$tmp/ids.mlir" <<'MLIR'
module attributes {mhlo.num_partitions = 2 : i32} {
  func.func @main() -> tensor<ui32> {
    %p = stablehlo.partition_id : tensor<ui32>
    return %p : tensor<ui32>
  }
}
MLIR
if timeout 60 mpirun -n 2 --oversubscribe "$SHLOC" run --mpi "$tmp/ids.mlir" > "$tmp/out" 2>&1; then fail "accepted differing results"; fi
grep -q "result #0 differs between device #0 and device #1" "$tmp/out" || { cat "$tmp/out"; fail "differ message"; }
# A rank whose own input file is missing stops, and the others with it.
rm "$tmp/g.dev2.npy"
start=$(date +%s)
if timeout 60 mpirun -n 4 --oversubscribe "$SHLOC" run --mpi "$tmp/gspmd.mlir" --input-per-device --input "$tmp/g.npy" > "$tmp/out" 2>&1; then fail "accepted a missing file"; fi
[ $(( $(date +%s) - start )) -lt 30 ] || fail "a missing file took more than 30 s to stop the job"
grep -q "g.dev2.npy" "$tmp/out" || { cat "$tmp/out"; fail "missing-file message"; }
grep -q "stopped: rank 2 (device #2, replica 0, partition 2) failed" "$tmp/out" || { cat "$tmp/out"; fail "peers do not name rank 2"; }
# send/recv between the ranks (paired by channel through the coordinator).
p2p 3 > "$tmp/p2p.mlir"
mk "$tmp/v.dev0.npy" 'dense<[5, 7]> : tensor<2xi32>'
mk "$tmp/v.dev1.npy" 'dense<[0, 0]> : tensor<2xi32>'
timeout 60 mpirun -n 2 --oversubscribe "$SHLOC" run --mpi "$tmp/p2p.mlir" --input-per-device --input "$tmp/v.npy" > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "send/recv run"; }
tr -d '\n' < "$tmp/out" | grep -qx "device #0:dense<\[5, 7\]> : tensor<2xi32>device #1:dense<\[10, 14\]> : tensor<2xi32>" || { cat "$tmp/out"; fail "send/recv values"; }
# A send on channel 3 and a recv on channel 4: neither has a partner, so both
# ranks are stopped, not hung; whichever op the coordinator looks at last
# carries the "waits for another" message (the other names that rank).
p2p 4 > "$tmp/stuck.mlir"
start=$(date +%s)
if timeout 60 mpirun -n 2 --oversubscribe "$SHLOC" run --mpi "$tmp/stuck.mlir" --input-per-device --input "$tmp/v.npy" > "$tmp/out" 2>&1; then fail "a recv without a sender succeeded"; fi
[ $(( $(date +%s) - start )) -lt 30 ] || fail "a recv without a sender took more than 30 s to stop"
grep -Eq "'stablehlo\.(send|recv)' stopped: every device still running waits for another" "$tmp/out" || { cat "$tmp/out"; fail "stuck message"; }
# Uneven tiles (7 elements on 4 devices): padded as XLA pads, the padding
# dropped when the tiles are gathered; per-device outputs keep it (zeros).
uneven > "$tmp/uneven.mlir"
mk "$tmp/x7.npy" 'dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<7xf32>'
timeout 60 mpirun -n 4 --oversubscribe "$SHLOC" run --mpi "$tmp/uneven.mlir" --input "$tmp/x7.npy" > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "uneven tiles"; }
grep -qx "dense<\[2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00\]> : tensor<7xf32>" "$tmp/out" || { cat "$tmp/out"; fail "uneven values"; }
mk "$tmp/u.dev0.npy" 'dense<[1.0, 2.0]> : tensor<2xf32>'
mk "$tmp/u.dev1.npy" 'dense<[3.0, 4.0]> : tensor<2xf32>'
mk "$tmp/u.dev2.npy" 'dense<[5.0, 6.0]> : tensor<2xf32>'
mk "$tmp/u.dev3.npy" 'dense<[7.0, 9.0]> : tensor<2xf32>'
timeout 60 mpirun -n 4 --oversubscribe "$SHLOC" run --mpi "$tmp/uneven.mlir" --input-per-device --input "$tmp/u.npy" --print > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "uneven per-device"; }
tr -d '\n' < "$tmp/out" | grep -q "device #2:dense<\[6.000000e+00, 7.000000e+00\]> : tensor<2xf32>device #3:dense<\[8.000000e+00, 0.000000e+00\]> : tensor<2xf32>" || { cat "$tmp/out"; fail "uneven per-device values (the padding reads 0)"; }
echo PASS
