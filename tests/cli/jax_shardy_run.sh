#!/bin/sh
# Modules in the form jax.export writes with Shardy on one CPU device run:
# sdy.mesh, sharded arguments and results, sharding_constraint, a
# manual_computation (shard_map) body, the placement/sharding annotation
# custom calls and a passing shape_assertion.  Expected values come from the
# program's arithmetic: x * 2 + x = 3x.  Then the errors: a failing
# shape_assertion prints JAX's message with its inputs filled in, at the op;
# a manual computation over 2 devices is reported as needing them.
SHLOC=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cat > "$tmp/export.mlir" <<'MLIR'
module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.frontend_attributes = {xla.sdy.meshes = "{mesh = #sdy.mesh<[\22x\22=1]>}"}, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=1]>
  func.func public @f(%arg0: tensor<8xf32> {mhlo.layout_mode = "default", mhlo.memory_kind = "device", mhlo.sharding = "{replicated}", sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> (tensor<8xf32> {jax.result_info = "result", mhlo.layout_mode = "default", mhlo.memory_kind = "device", sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) {
    %c = stablehlo.constant dense<true> : tensor<i1>
    %c_0 = stablehlo.constant dense<8> : tensor<i64>
    stablehlo.custom_call @shape_assertion(%c, %c_0) {api_version = 2 : i32, error_message = "Expected {0} rows", has_side_effect = true} : (tensor<i1>, tensor<i64>) -> ()
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"x", ?}]> : tensor<8xf32>
    %1 = sdy.manual_computation(%0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%arg1: tensor<8xf32>) {
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<8xf32>
      %5 = stablehlo.multiply %arg1, %cst : tensor<8xf32>
      sdy.return %5 : tensor<8xf32>
    } : (tensor<8xf32>) -> tensor<8xf32>
    %2 = stablehlo.custom_call @Sharding(%1) {mhlo.sharding = "{replicated}"} : (tensor<8xf32>) -> tensor<8xf32>
    %3 = stablehlo.custom_call @annotate_device_placement(%2) {has_side_effect = true, mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<8xf32>) -> tensor<8xf32>
    %4 = stablehlo.add %3, %arg0 : tensor<8xf32>
    return %4 : tensor<8xf32>
  }
  func.func @main() {
    %cst = stablehlo.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00]> : tensor<8xf32>
    %0 = call @f(%cst) : (tensor<8xf32>) -> tensor<8xf32>
    check.expect_eq_const %0, dense<[0.000000e+00, 3.000000e+00, 6.000000e+00, 9.000000e+00, 1.200000e+01, 1.500000e+01, 1.800000e+01, 2.100000e+01]> : tensor<8xf32>
    return
  }
}
MLIR
"$SHLOC" test "$tmp/export.mlir" | grep -q "^PASS" || fail "JAX export with Shardy does not pass"
# The round trip keeps every attribute (pretty form = input).
"$SHLOC" fmt "$tmp/export.mlir" -o "$tmp/pretty.mlir" || fail "fmt"
cmp -s "$tmp/export.mlir" "$tmp/pretty.mlir" || { diff "$tmp/export.mlir" "$tmp/pretty.mlir"; fail "round trip"; }
# A wrong expectation fails (the test above can fail).
sed 's/2.100000e+01\]/2.200000e+01]/' "$tmp/export.mlir" > "$tmp/wrong.mlir"
if "$SHLOC" test "$tmp/wrong.mlir" >/dev/null 2>&1; then fail "a wrong expected value passed"; fi
# A false assertion: JAX's message with {0} filled in, at the custom call.
sed 's/dense<true>/dense<false>/' "$tmp/export.mlir" > "$tmp/assert.mlir"
if "$SHLOC" test "$tmp/assert.mlir" >"$tmp/out" 2>&1; then fail "a false shape_assertion passed"; fi
grep -q "assert.mlir:6:5: error: shape_assertion failed: Expected 8 rows" "$tmp/out" || { cat "$tmp/out"; fail "assertion message"; }
# Manual over an axis of size 2: needs 2 devices.
sed 's/\["x"=1\]>$/["x"=2]>/; s/(%arg1: tensor<8xf32>)/(%arg1: tensor<4xf32>)/; s/dense<2.000000e+00> : tensor<8xf32>/dense<2.000000e+00> : tensor<4xf32>/; s/%5 = stablehlo.multiply %arg1, %cst : tensor<8xf32>/%5 = stablehlo.multiply %arg1, %cst : tensor<4xf32>/; s/sdy.return %5 : tensor<8xf32>/sdy.return %5 : tensor<4xf32>/' "$tmp/export.mlir" > "$tmp/two.mlir"
"$SHLOC" check "$tmp/two.mlir" || fail "the 2-device module does not verify"
if "$SHLOC" test "$tmp/two.mlir" >"$tmp/out" 2>&1; then fail "a 2-device manual computation ran"; fi
grep -q "two.mlir:8:5: error: 'sdy.manual_computation' is manual over axes spanning 2 devices" "$tmp/out" || { cat "$tmp/out"; fail "multi-device message"; }
exit 0
