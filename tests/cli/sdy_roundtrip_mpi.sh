#!/bin/sh
# Shardy's round-trip export form under mpirun -n 2 and 4 (one device per
# rank): the psum shard_map in both attribute placements equals the
# one-device computation, the hand-computed values and the thread run;
# per-device inputs by the argument's xla.sdy.sharding string; x64 values
# as tuples of 32-bit halves, both mesh spellings.
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
  single "$n" > "$tmp/single$n.mlir"
  "$SHLOC" run "$tmp/single$n.mlir" --input "$tmp/x.npy" > "$tmp/single.out" 2>&1 || { cat "$tmp/single.out"; fail "single-device $n"; }
  "$SHLOC" run "$tmp/single$n.mlir" --input "$tmp/x.npy" -o "$tmp/y1.npy" || fail "single -o $n"
  for form in cc call; do
    shmap_rt "$n" $form > "$tmp/rt.mlir"
    timeout 60 mpirun -n "$n" --oversubscribe "$SHLOC" run --mpi "$tmp/rt.mlir" --input "$tmp/x.npy" > "$tmp/multi.out" 2>&1 || { cat "$tmp/multi.out"; fail "$form form on $n ranks"; }
    cmp -s "$tmp/multi.out" "$tmp/single.out" || { cat "$tmp/multi.out" "$tmp/single.out"; fail "$form form on $n ranks differs from one device"; }
    grep -qF "$want" "$tmp/multi.out" || { cat "$tmp/multi.out"; fail "$form form on $n ranks: expected $want"; }
    timeout 60 mpirun -n "$n" --oversubscribe "$SHLOC" run --mpi "$tmp/rt.mlir" --input "$tmp/x.npy" -o "$tmp/y.npy" || fail "-o $form $n ranks"
    cmp -s "$tmp/y.npy" "$tmp/y1.npy" || fail "-o: $form form on $n ranks differs from one device"
    shmap_rt "$n" $form split > "$tmp/rts.mlir"
    timeout 60 mpirun -n "$n" --oversubscribe "$SHLOC" run --mpi "$tmp/rts.mlir" --input "$tmp/x.npy" -o "$tmp/s.npy" || fail "split $form $n ranks"
    "$SHLOC" run "$tmp/rts.mlir" --input "$tmp/x.npy" -o "$tmp/s1.npy" || fail "split $form $n threads"
    cmp -s "$tmp/s.npy" "$tmp/s1.npy" || fail "split: $form form on $n ranks differs from threads"
  done
done
# Per-device tiles by the argument's xla.sdy.sharding string: each rank reads its own.
mk "$tmp/t.dev0.npy" 'dense<[1.0, 2.0]> : tensor<2xf32>'
mk "$tmp/t.dev1.npy" 'dense<[3.0, 4.0]> : tensor<2xf32>'
mk "$tmp/t.dev2.npy" 'dense<[5.0, 6.0]> : tensor<2xf32>'
mk "$tmp/t.dev3.npy" 'dense<[7.0, 8.0]> : tensor<2xf32>'
shmap_rt 4 call > "$tmp/rt4.mlir"
timeout 60 mpirun -n 4 --oversubscribe "$SHLOC" run --mpi "$tmp/rt4.mlir" --input-per-device --input "$tmp/t.npy" -o "$tmp/r.npy" || fail "per-device inputs"
for d in 0 1 2 3; do cmp -s "$tmp/r.dev$d.npy" "$tmp/y1.npy" || fail "per-device output $d"; done
# x64 values as tuples of 32-bit halves, both mesh spellings: as on one device.
mk "$tmp/x64.npy" 'dense<[8589934589, 17179869182, 25769803775, 34359738368, 42949672961, 51539607554, 60129542147, 68719476740]> : tensor<8xi64>'
mk "$tmp/y32.npy" 'dense<[-4, -3, -2, -1, 0, 1, 2, 3]> : tensor<8xi32>'
for case in "2 dense<[-34359738356, 8, 68719476744, 171798691852]>" "4 dense<[34359738388, 171798691860]>"; do
  n=${case%% *}
  want=${case#* }
  single_x64 "$n" > "$tmp/s64.mlir"
  "$SHLOC" run "$tmp/s64.mlir" --input "$tmp/x64.npy" --input "$tmp/y32.npy" > "$tmp/single.out" 2>&1 || { cat "$tmp/single.out"; fail "x64 single-device $n"; }
  for mesh in new old; do
    shmap_rt_x64 "$n" $mesh > "$tmp/x64.mlir"
    timeout 60 mpirun -n "$n" --oversubscribe "$SHLOC" run --mpi "$tmp/x64.mlir" --input "$tmp/x64.npy" --input "$tmp/y32.npy" > "$tmp/multi.out" 2>&1 || { cat "$tmp/multi.out"; fail "x64 $mesh mesh on $n ranks"; }
    cmp -s "$tmp/multi.out" "$tmp/single.out" || { cat "$tmp/multi.out" "$tmp/single.out"; fail "x64 $mesh mesh on $n ranks differs from one device"; }
    grep -qF "$want" "$tmp/multi.out" || { cat "$tmp/multi.out"; fail "x64 $mesh mesh on $n ranks: expected $want"; }
  done
done
echo "sdy round-trip form under MPI: 2 and 4 ranks, both forms, x64 tuples: ok"
