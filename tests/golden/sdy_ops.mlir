// The Shardy ops in their pretty form.  The .expected output is what
// Shardy's own printer writes for these inputs: the CHECK lines of its lit
// tests shardy/dialect/sdy/ir/test/{manual_computation,named_computation,
// propagation_barrier,sharding_group,constant}_parse_print.mlir (the
// sharding_constraint and reshard forms follow their assembly format in
// ops.td: `$input $sharding attr-dict : type($result)`).
sdy.mesh @meshA = <["a"=2, "b"=2]>
sdy.mesh @meshB = <["a"=4]>
sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]>

func.func @manual_computation_no_inputs_outputs() {
  sdy.manual_computation() in_shardings=[] out_shardings=[] manual_axes={} () {
    sdy.return
  } : () -> ()
  sdy.manual_computation() in_shardings=[] out_shardings=[] manual_axes={"x", "y"} () {
    %0 = sdy.constant dense<1.000000e+00> : tensor<8xf32>
    sdy.return
  } : () -> ()
  func.return
}

func.func @manual_computation_sharded(%arg0: tensor<16x32xf32>, %arg1: tensor<16x32xf32>) -> (tensor<16x32xf32>, tensor<8x32xf32>) {
  %0 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@meshA, [{"a", ?}, {?}]>, <@meshA, [{"a",?}, {?}]>] out_shardings=[<@meshA, [{"a", ?}, {?}]>] manual_axes={"a"}  (%arg2: tensor<8x32xf32>, %arg3: tensor<8x32xf32>) {
    %1 = stablehlo.add %arg2, %arg3 : tensor<8x32xf32>
    sdy.return %1 : tensor<8x32xf32>
  } : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  %2 = sdy.manual_computation(%0)
      in_shardings=[<@meshA, [{"a", ?}, {?}]>]
      out_shardings=[<@meshA, [{?}, {?}], replicated={"a"}>]
      manual_axes={"a"} (%arg2: tensor<8x32xf32>) {
    %3 = sdy.manual_computation(%arg2) in_shardings=[<@meshA, [{"b", ?}, {?}]>] out_shardings=[<@meshA, [{"b", ?}, {?}]>] manual_axes={"b"} (%arg3: tensor<4x32xf32>) {
      %4 = stablehlo.add %arg3, %arg3 : tensor<4x32xf32>
      sdy.return %4 : tensor<4x32xf32>
    } : (tensor<8x32xf32>) -> tensor<8x32xf32>
    sdy.return %3 : tensor<8x32xf32>
  } : (tensor<16x32xf32>) -> tensor<8x32xf32>
  func.return %0, %2 : tensor<16x32xf32>, tensor<8x32xf32>
}

func.func @manual_computation_sub_axes_and_tokens(%arg0: tensor<16x32xf32>, %arg1: !stablehlo.token {sdy.sharding = #sdy.sharding<@meshA, []>}, %arg2: tensor<2xi64> {sdy.sharding = #sdy.sharding<@meshA, [{"b"}]>}) -> (tensor<16x32xf32>, !stablehlo.token, tensor<2xi64>) {
  %0 = sdy.manual_computation(%arg0) in_shardings=[<@meshB, [{"a":(1)2}, {}]>] out_shardings=[<@meshB, [{"a":(1)2}, {}]>] manual_axes={} (%arg3: tensor<16x32xf32>) {
    %1 = stablehlo.add %arg3, %arg3 : tensor<16x32xf32>
    sdy.return %1 : tensor<16x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  %2:2 = sdy.manual_computation(%arg1, %arg2)
      in_shardings=[<@meshA, []>, <@meshA, [{"b"}]>]
      out_shardings=[<@meshA, []>, <@meshA, [{"b"}]>]
      manual_axes={"b"} (%arg3: !stablehlo.token, %arg4: tensor<1xi64>) {
    %3 = stablehlo.custom_call @sdy_testonly(%arg3) {sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_0, []>]>} : (!stablehlo.token) -> !stablehlo.token
    sdy.return %3, %arg4 : !stablehlo.token, tensor<1xi64>
  } : (!stablehlo.token, tensor<2xi64>) -> (!stablehlo.token, tensor<2xi64>)
  return %0, %2#0, %2#1 : tensor<16x32xf32>, !stablehlo.token, tensor<2xi64>
}

func.func @named_computations(%arg0: tensor<8x2xi32>, %arg1: !stablehlo.token) -> (tensor<8x2xi32>, tensor<8x2xi32>, !stablehlo.token) {
  %0 = sdy.named_computation<"foo">(%arg0) (%arg2: tensor<8x2xi32>) {
    sdy.return %arg2 : tensor<8x2xi32>
  } : (tensor<8x2xi32>) -> tensor<8x2xi32>
  %1:2 = sdy.named_computation<"foo">(%0, %arg1) in_shardings=[<@meshA, [{"b"}, {}]>, <@meshA, []>] out_shardings=[<@meshA, [{"a"}, {}]>, <@meshA, []>] (%arg2: tensor<8x2xi32>, %arg3: !stablehlo.token) {
    sdy.return %arg2, %arg3 : tensor<8x2xi32>, !stablehlo.token
  } : (tensor<8x2xi32>, !stablehlo.token) -> (tensor<8x2xi32>, !stablehlo.token)
  %2 = sdy.named_computation<"with \"quotes\"">(%1#0) out_shardings=[<@meshA, [{"a"}, {}]>] (%arg2: tensor<8x2xi32>) {
    sdy.return %arg2 : tensor<8x2xi32>
  } {mhlo.frontend_attributes = {xla.sdy.keep = "1"}} : (tensor<8x2xi32>) -> tensor<8x2xi32>
  return %0, %2, %1#1 : tensor<8x2xi32>, tensor<8x2xi32>, !stablehlo.token
}

func.func @annotations(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = sdy.propagation_barrier %arg0 allowed_direction=BACKWARD : tensor<8xf32>
  %1 = sdy.propagation_barrier %0 allowed_direction=FORWARD {sdy.sharding=#sdy.sharding_per_value<[<@meshA, [{"a",?}]>]>} : tensor<8xf32>
  %2 = sdy.propagation_barrier %1 allowed_direction=NONE : tensor<8xf32>
  sdy.sharding_group %2 group_id=21 : tensor<8xf32>
  %3 = sdy.sharding_constraint %2 <@meshA, [{"a", ?}]> : tensor<8xf32>
  %4 = sdy.reshard %3 <@meshA, [{}], replicated={"a"}> {mhlo.frontend_attributes = {x = "y"}} : tensor<8xf32>
  %5 = sdy.sharding_constraint %4 <mesh<["x"=2]>, [{"x"}]> : tensor<8xf32>
  %6 = sdy.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %7 = stablehlo.add %5, %6 : tensor<8xf32>
  return %7 : tensor<8xf32>
}
