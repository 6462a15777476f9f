#!/bin/sh
# shloc run on several devices (threads): a shard_map program in the form
# jax.jit(shard_map(f, mesh, in_specs=P('x'), out_specs=P())) exports with a
# psum inside, on meshes of 2 and 4 devices, matches the same computation
# written for one device and hand-computed values; per-device input files
# assembled by mhlo.sharding (iota, transposed iota) and sdy.sharding;
# per-device outputs cut by the result's sharding; the errors.
SHLOC=$1
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
  "$SHLOC" run "$tmp/shmap$n.mlir" --input "$tmp/x.npy" > "$tmp/multi.out" 2>&1 || { cat "$tmp/multi.out"; fail "shard_map on $n devices"; }
  "$SHLOC" run "$tmp/single$n.mlir" --input "$tmp/x.npy" > "$tmp/single.out" 2>&1 || { cat "$tmp/single.out"; fail "single-device $n"; }
  cmp -s "$tmp/multi.out" "$tmp/single.out" || { cat "$tmp/multi.out" "$tmp/single.out"; fail "$n devices differ from one device"; }
  grep -qF "$want" "$tmp/multi.out" || { cat "$tmp/multi.out"; fail "$n devices: expected $want"; }
  # The flags may repeat the module's grid; -o writes the result once.
  "$SHLOC" run "$tmp/shmap$n.mlir" --replicas 1 --partitions "$n" --input "$tmp/x.npy" -o "$tmp/y.npy" || fail "flags $n"
  "$SHLOC" run "$tmp/single$n.mlir" --input "$tmp/x.npy" -o "$tmp/y1.npy" || fail "single -o $n"
  cmp -s "$tmp/y.npy" "$tmp/y1.npy" || fail "-o on $n devices differs from one device"
done
# A grid that contradicts the module.
if "$SHLOC" run "$tmp/shmap2.mlir" --partitions 4 --input "$tmp/x.npy" > "$tmp/out" 2>&1; then fail "accepted --partitions 4"; fi
grep -q "partitions 4 contradicts the module's mhlo.num_partitions = 2" "$tmp/out" || { cat "$tmp/out"; fail "grid message"; }
# Per-device inputs: each device's tile of the sdy-sharded argument.
mk "$tmp/t.dev0.npy" 'dense<[1.0, 2.0]> : tensor<2xf32>'
mk "$tmp/t.dev1.npy" 'dense<[3.0, 4.0]> : tensor<2xf32>'
mk "$tmp/t.dev2.npy" 'dense<[5.0, 6.0]> : tensor<2xf32>'
mk "$tmp/t.dev3.npy" 'dense<[7.0, 8.0]> : tensor<2xf32>'
"$SHLOC" run "$tmp/shmap4.mlir" --input-per-device --input "$tmp/t.npy" -o "$tmp/r.npy" || fail "per-device inputs"
for d in 0 1 2 3; do cmp -s "$tmp/r.dev$d.npy" "$tmp/y1.npy" || fail "per-device output $d"; done
# A tile of the wrong shape names the device's file.
mk "$tmp/t.dev2.npy" 'dense<[5.0, 6.0, 0.0]> : tensor<3xf32>'
if "$SHLOC" run "$tmp/shmap4.mlir" --input-per-device --input "$tmp/t.npy" > "$tmp/out" 2>&1; then fail "accepted a bad tile"; fi
grep -q "argument #0 (.*t.npy): expected the sharding's tile shape" "$tmp/out" || { cat "$tmp/out"; fail "tile message"; }
# GSPMD form: mhlo.sharding with a transposed iota; device k's tile is the
# block the tile assignment [[0, 2], [1, 3]] gives it.  The program sums
# the global array by columns.
gspmd "$tmp/gspmd.mlir"
mk "$tmp/g.dev0.npy" 'dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>'
mk "$tmp/g.dev1.npy" 'dense<[[10, 20], [30, 40]]> : tensor<2x2xi32>'
mk "$tmp/g.dev2.npy" 'dense<[[100, 200], [300, 400]]> : tensor<2x2xi32>'
mk "$tmp/g.dev3.npy" 'dense<[[1000, 2000], [3000, 4000]]> : tensor<2x2xi32>'
# Global: [[1, 2, 100, 200], [3, 4, 300, 400], [10, 20, 1000, 2000], [30, 40, 3000, 4000]];
# column sums [44, 66, 4400, 6600]; the result's rows go to devices 0..3.
"$SHLOC" run "$tmp/gspmd.mlir" --input-per-device --input "$tmp/g.npy" -o "$tmp/h.npy" --print > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "gspmd"; }
grep -q "device #1:" "$tmp/out" || { cat "$tmp/out"; fail "per-device print"; }
tr -d '\n' < "$tmp/out" | grep -q "device #0:dense<\[\[45, 68, 4500, 6800\]\]> : tensor<1x4xi32>device #1:dense<\[\[47, 70, 4700, 7000\]\]> : tensor<1x4xi32>device #2:dense<\[\[54, 86, 5400, 8600\]\]> : tensor<1x4xi32>device #3:dense<\[\[74, 106, 7400, 10600\]\]> : tensor<1x4xi32>" || { cat "$tmp/out"; fail "gspmd values"; }
# Results that differ between devices need per-device outputs.
cat > "$tmp/ids.mlir" <<'MLIR'
module attributes {mhlo.num_partitions = 2 : i32} {
  func.func @main() -> tensor<ui32> {
    %p = stablehlo.partition_id : tensor<ui32>
    return %p : tensor<ui32>
  }
}
MLIR
if "$SHLOC" run "$tmp/ids.mlir" > "$tmp/out" 2>&1; then fail "accepted differing results"; fi
grep -q "result #0 differs between device #0 and device #1" "$tmp/out" || { cat "$tmp/out"; fail "differ message"; }
"$SHLOC" run "$tmp/ids.mlir" --input-per-device > "$tmp/out" || fail "per-device ids"
tr -d '\n' < "$tmp/out" | grep -q "device #0:dense<0> : tensor<ui32>device #1:dense<1> : tensor<ui32>" || { cat "$tmp/out"; fail "ids values"; }
# send/recv between the partitions of a shloc run; a recv nobody serves
# stops every device with an error (bounded by timeout) instead of hanging.
p2p 3 > "$tmp/p2p.mlir"
mk "$tmp/v.dev0.npy" 'dense<[5, 7]> : tensor<2xi32>'
mk "$tmp/v.dev1.npy" 'dense<[0, 0]> : tensor<2xi32>'
"$SHLOC" run "$tmp/p2p.mlir" --input-per-device --input "$tmp/v.npy" > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "send/recv run"; }
tr -d '\n' < "$tmp/out" | grep -q "device #0:dense<\[5, 7\]> : tensor<2xi32>device #1:dense<\[10, 14\]> : tensor<2xi32>" || { cat "$tmp/out"; fail "send/recv values"; }
if command -v timeout >/dev/null; then
  p2p 4 > "$tmp/stuck.mlir"
  timeout 60 "$SHLOC" run "$tmp/stuck.mlir" --input-per-device --input "$tmp/v.npy" > "$tmp/out" 2>&1
  rc=$?
  [ $rc -eq 124 ] && fail "a recv without a sender hangs"
  [ $rc -eq 0 ] && fail "a recv without a sender succeeded"
  grep -q "every device still running waits for another" "$tmp/out" || { cat "$tmp/out"; fail "stuck message"; }
fi
# Uneven tiles (7 elements on 4 devices): padded as XLA pads, the padding
# dropped when the tiles are gathered; per-device outputs keep it (zeros).
uneven > "$tmp/uneven.mlir"
mk "$tmp/x7.npy" 'dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<7xf32>'
"$SHLOC" run "$tmp/uneven.mlir" --input "$tmp/x7.npy" > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "uneven tiles"; }
grep -qx "dense<\[2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00\]> : tensor<7xf32>" "$tmp/out" || { cat "$tmp/out"; fail "uneven values"; }
mk "$tmp/u.dev0.npy" 'dense<[1.0, 2.0]> : tensor<2xf32>'
mk "$tmp/u.dev1.npy" 'dense<[3.0, 4.0]> : tensor<2xf32>'
mk "$tmp/u.dev2.npy" 'dense<[5.0, 6.0]> : tensor<2xf32>'
mk "$tmp/u.dev3.npy" 'dense<[7.0, 9.0]> : tensor<2xf32>'
"$SHLOC" run "$tmp/uneven.mlir" --input-per-device --input "$tmp/u.npy" --print > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "uneven per-device"; }
tr -d '\n' < "$tmp/out" | grep -q "device #2:dense<\[6.000000e+00, 7.000000e+00\]> : tensor<2xf32>device #3:dense<\[8.000000e+00, 0.000000e+00\]> : tensor<2xf32>" || { cat "$tmp/out"; fail "uneven per-device values (the padding reads 0)"; }
echo PASS
