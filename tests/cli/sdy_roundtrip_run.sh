#!/bin/sh
# Shardy's round-trip export form (xla.sdy.* string frontend attributes,
# GlobalToLocalShape / call / LocalToGlobalShape) on 2 and 4 devices
# (threads): the psum shard_map of spmd_run.sh equals the one-device
# computation and the hand-computed values, with the manual axes and
# shardings on the custom calls or (older form) on the call; per-device
# inputs assembled by the argument's xla.sdy.sharding string; bad strings
# give errors with their location; x64 values as tuples of 32-bit halves
# through the custom calls, with the mesh in both spellings.
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
  single "$n" > "$tmp/single$n.mlir"
  "$SHLOC" run "$tmp/single$n.mlir" --input "$tmp/x.npy" > "$tmp/single.out" 2>&1 || { cat "$tmp/single.out"; fail "single-device $n"; }
  "$SHLOC" run "$tmp/single$n.mlir" --input "$tmp/x.npy" -o "$tmp/y1.npy" || fail "single -o $n"
  for form in cc call; do
    shmap_rt "$n" $form > "$tmp/rt.mlir"
    "$SHLOC" run "$tmp/rt.mlir" --input "$tmp/x.npy" > "$tmp/multi.out" 2>&1 || { cat "$tmp/multi.out"; fail "$form form on $n devices"; }
    cmp -s "$tmp/multi.out" "$tmp/single.out" || { cat "$tmp/multi.out" "$tmp/single.out"; fail "$form form on $n devices differs from one device"; }
    grep -qF "$want" "$tmp/multi.out" || { cat "$tmp/multi.out"; fail "$form form on $n devices: expected $want"; }
    "$SHLOC" run "$tmp/rt.mlir" --input "$tmp/x.npy" -o "$tmp/y.npy" || fail "-o $form $n"
    cmp -s "$tmp/y.npy" "$tmp/y1.npy" || fail "-o: $form form on $n devices differs from one device"
    # The result split over x too: LocalToGlobalShape joins the devices'
    # (equal) psums into one global array, the one-device tile n times.
    shmap_rt "$n" $form split > "$tmp/rts.mlir"
    "$SHLOC" run "$tmp/rts.mlir" --input "$tmp/x.npy" > "$tmp/split.out" 2>&1 || { cat "$tmp/split.out"; fail "$form split on $n devices"; }
    tile=${want#dense<\[}
    tile=${tile%\]>}
    all=$tile
    for k in $(seq 2 "$n"); do all="$all, $tile"; done
    grep -qF "dense<[$all]> : tensor<8xf32>" "$tmp/split.out" || { cat "$tmp/split.out"; fail "$form split on $n devices: expected [$all]"; }
  done
done
# Per-device inputs: the tiles of the argument's xla.sdy.sharding string.
mk "$tmp/t.dev0.npy" 'dense<[1.0, 2.0]> : tensor<2xf32>'
mk "$tmp/t.dev1.npy" 'dense<[3.0, 4.0]> : tensor<2xf32>'
mk "$tmp/t.dev2.npy" 'dense<[5.0, 6.0]> : tensor<2xf32>'
mk "$tmp/t.dev3.npy" 'dense<[7.0, 8.0]> : tensor<2xf32>'
shmap_rt 4 cc > "$tmp/rt4.mlir"
"$SHLOC" run "$tmp/rt4.mlir" --input-per-device --input "$tmp/t.npy" -o "$tmp/r.npy" || fail "per-device inputs"
for d in 0 1 2 3; do cmp -s "$tmp/r.dev$d.npy" "$tmp/y1.npy" || fail "per-device output $d"; done
# On one device the per-device shapes cannot run.
sed 's/mhlo.num_partitions = 4/mhlo.num_partitions = 1/' "$tmp/rt4.mlir" > "$tmp/one.mlir"
if "$SHLOC" run "$tmp/one.mlir" --input "$tmp/x.npy" > "$tmp/out" 2>&1; then fail "ran per-device shapes on one device"; fi
grep -q "one.mlir:3:5: error: 'stablehlo.custom_call' changes the values' shapes to per-device ones" "$tmp/out" || { cat "$tmp/out"; fail "one-device message"; }
# Bad strings: file:line:col of the op carrying them, the attribute, the
# character within the string.
bad() { # NAME SED-SCRIPT EXPECTED-MESSAGE
  sed "$2" "$tmp/rt4.mlir" > "$tmp/$1.mlir"
  grep -q . "$tmp/$1.mlir" && ! cmp -s "$tmp/$1.mlir" "$tmp/rt4.mlir" || fail "$1: the edit changed nothing"
  if "$SHLOC" run "$tmp/$1.mlir" --input "$tmp/x.npy" > "$tmp/out" 2>&1; then fail "$1 accepted"; fi
  grep -qF "$3" "$tmp/out" || { cat "$tmp/out"; fail "$1 message"; }
}
bad mesh 's/=4\]>}"}/=4>}"}/' "$tmp/mesh.mlir:3:5: error: 'stablehlo.custom_call' frontend attribute xla.sdy.meshes (on the module), at character 25 of its string: mismatched '>' (expected ']')"
bad nomesh 's/{mesh = #sdy/{other = #sdy/' "$tmp/nomesh.mlir:3:5: error: 'stablehlo.custom_call' xla.sdy.in_shardings: unknown mesh: @mesh"
bad kind 's/xla.sdy.manual_axes = "#sdy<manual_axes{\\22x\\22}>"}} : (tensor<8/xla.sdy.manual_axes = "#sdy.sharding<@mesh, []>"}} : (tensor<8/' "$tmp/kind.mlir:3:5: error: 'stablehlo.custom_call' frontend attribute xla.sdy.manual_axes must hold #sdy<manual_axes{...}>"
bad axis 's/manual_axes{\\22x\\22}>"}} : (tensor<8/manual_axes{\\22y\\22}>"}} : (tensor<8/' "$tmp/axis.mlir:3:5: error: 'stablehlo.custom_call' xla.sdy.manual_axes: the mesh has no axis \"y\""
bad trunc 's/\[<@mesh, \[{}\]>\]>"/[<@mesh, [{}]>"/' "$tmp/trunc.mlir:5:5: error: 'stablehlo.custom_call' frontend attribute xla.sdy.out_shardings, at character 39 of its string: unbalanced '<'"
bad notstr 's/xla.sdy.out_shardings = "[^"]*"/xla.sdy.out_shardings = 3/' "$tmp/notstr.mlir:5:5: error: 'stablehlo.custom_call' frontend attribute xla.sdy.out_shardings must be a string"
bad missing 's/xla.sdy.in_shardings = "[^"]*", //' "$tmp/missing.mlir:3:5: error: 'stablehlo.custom_call' has xla.sdy.manual_axes but no xla.sdy.in_shardings"
# The argument's string is read when the per-device files are assembled.
sed 's/xla.sdy.sharding = "#sdy.sharding<@mesh, \[{\\22x\\22}\]>"/xla.sdy.sharding = "#sdy.sharding<@mesh, [{\\22x\\22}>"/' "$tmp/rt4.mlir" > "$tmp/argstr.mlir"
if "$SHLOC" run "$tmp/argstr.mlir" --input-per-device --input "$tmp/t.npy" > "$tmp/out" 2>&1; then fail "argstr accepted"; fi
grep -qF "argstr.mlir:2:3: error: the sharding of argument #0: 'func.func' frontend attribute xla.sdy.sharding, at character 28 of its string: mismatched '>' (expected ']')" "$tmp/out" || { cat "$tmp/out"; fail "argstr message"; }
# x64 values as tuples of two 32-bit halves (X64SplitLow / X64SplitHigh,
# X64Combine) through the round-trip custom calls, the mesh in the current
# and the older bracket-less spelling, the attributes on the custom calls or
# on the call: equal to the one-device program and to x * y summed over the
# tiles by hand.
mk "$tmp/x64.npy" 'dense<[8589934589, 17179869182, 25769803775, 34359738368, 42949672961, 51539607554, 60129542147, 68719476740]> : tensor<8xi64>'
mk "$tmp/y32.npy" 'dense<[-4, -3, -2, -1, 0, 1, 2, 3]> : tensor<8xi32>'
for case in "2 dense<[-34359738356, 8, 68719476744, 171798691852]>" "4 dense<[34359738388, 171798691860]>"; do
  n=${case%% *}
  want=${case#* }
  single_x64 "$n" > "$tmp/s64.mlir"
  "$SHLOC" run "$tmp/s64.mlir" --input "$tmp/x64.npy" --input "$tmp/y32.npy" > "$tmp/single.out" 2>&1 || { cat "$tmp/single.out"; fail "x64 single-device $n"; }
  for mesh in "new cc" "old cc" "old call"; do
    shmap_rt_x64 "$n" $mesh > "$tmp/x64.mlir"
    "$SHLOC" run "$tmp/x64.mlir" --input "$tmp/x64.npy" --input "$tmp/y32.npy" > "$tmp/multi.out" 2>&1 || { cat "$tmp/multi.out"; fail "x64 $mesh on $n devices"; }
    cmp -s "$tmp/multi.out" "$tmp/single.out" || { cat "$tmp/multi.out" "$tmp/single.out"; fail "x64 $mesh on $n devices differs from one device"; }
    grep -qF "$want" "$tmp/multi.out" || { cat "$tmp/multi.out"; fail "x64 $mesh on $n devices: expected $want"; }
  done
done
# Shardings count the tuples' leaves; the halves' types are checked.
shmap_rt_x64 4 new cc > "$tmp/x64.mlir"
sed 's/xla.sdy.in_shardings = "#sdy.sharding_per_value<\[<@mesh, \[{\\22x\\22}\]>, /xla.sdy.in_shardings = "#sdy.sharding_per_value<[/' "$tmp/x64.mlir" > "$tmp/leaves.mlir"
cmp -s "$tmp/leaves.mlir" "$tmp/x64.mlir" && fail "leaves: the edit changed nothing"
if "$SHLOC" run "$tmp/leaves.mlir" --input "$tmp/x64.npy" --input "$tmp/y32.npy" > "$tmp/out" 2>&1; then fail "leaves accepted"; fi
grep -qF "leaves.mlir:6:5: error: 'stablehlo.custom_call' has 3 operand values, 3 result values and 2 shardings in xla.sdy.in_shardings" "$tmp/out" || { cat "$tmp/out"; fail "leaves message"; }
printf 'func.func @main() -> tensor<2xui32> {\n  %%x = stablehlo.constant dense<[1, 2]> : tensor<2xi32>\n  %%lo = stablehlo.custom_call @X64SplitLow(%%x) : (tensor<2xi32>) -> tensor<2xui32>\n  return %%lo : tensor<2xui32>\n}\n' > "$tmp/half.mlir"
if "$SHLOC" run "$tmp/half.mlir" > "$tmp/out" 2>&1; then fail "half type accepted"; fi
grep -qF "half.mlir:3:3: error: 'stablehlo.custom_call' target 'X64SplitLow' takes one tensor of i64, ui64 or f64 and returns its half" "$tmp/out" || { cat "$tmp/out"; fail "half message"; }
echo "sdy round-trip form: 2 and 4 devices, both forms, x64 tuples, errors: ok"
