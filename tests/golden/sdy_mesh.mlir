// Shardy meshes and tensor shardings.  The .expected output is what Shardy's
// own printer writes for these inputs: its lit tests
// shardy/dialect/sdy/ir/test/{mesh,tensor_sharding}_parse_print.mlir give the
// CHECK lines (iota device ids dropped, `{"a", ?}` spacing, replicated before
// unreduced, priorities, sub-axes, inline meshes).
sdy.mesh @empty_mesh = <[]>
sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]>
sdy.mesh @maximal_mesh_3 = <[], device_ids=[3]>
sdy.mesh @single_axis_of_size_1 = <["a"=1]>
sdy.mesh @single_axis_of_size_1_with_device_id = <["a"=1], device_ids=[0]>
sdy.mesh @single_axis_explicit_device_ids = <["a"=2], device_ids=[1, 0]>
sdy.mesh @two_axes_explicit_device_ids = <["a"=2, "b"=1], device_ids=[1, 0]>
sdy.mesh @iota_explicit_device_ids = <["a"=2, "b"=2], device_ids=[0, 1, 2, 3]>
sdy.mesh @foo = <["a"=2, "c"=2, "b"=4, "d"=2]>
sdy.mesh @bar = <["a"=4, "b"=2]>

func.func @no_results(%arg0 : tensor<8x8xf32>) -> tensor<8x8xf32> {
  return {sdy.sharding = #sdy.sharding_per_value<[]>} %arg0 : tensor<8x8xf32>
}

func.func @rank_0(%arg0 : tensor<f32>, %arg1 : tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %arg0, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@foo, [], replicated={"b"}>]>} : tensor<f32>
  return %0 : tensor<f32>
}

func.func @axes(%arg0 : tensor<16x8xf32>, %arg1 : tensor<16x8xf32>) -> tensor<16x8xf32> {
  %0 = stablehlo.add %arg0, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@foo, [{"a"}, {}]>]>} : tensor<16x8xf32>
  %1 = stablehlo.add %0, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@foo, [{}, {}], replicated={"a", "b"}>]>} : tensor<16x8xf32>
  %2 = stablehlo.add %1, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@foo, [{}, {}], unreduced={"a", "b"}>]>} : tensor<16x8xf32>
  %3 = stablehlo.add %2, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@foo, [{}, {}], unreduced=max{"a"}>]>} : tensor<16x8xf32>
  %4 = stablehlo.add %3, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@foo, [{}, {}], unreduced={"b"}, replicated={"a"}>]>} : tensor<16x8xf32>
  %5 = stablehlo.add %4, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@foo, [{"a",?}, {?}]>]>} : tensor<16x8xf32>
  %6 = stablehlo.add %5, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@foo, [{"a", "b", ?}, {}]>]>} : tensor<16x8xf32>
  %7 = stablehlo.add %6, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@foo, [{"a"}, {"b":(2)2}]>]>} : tensor<16x8xf32>
  %8 = stablehlo.add %7, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@foo, [{"a"}, {}], replicated={"b":(2)2}>]>} : tensor<16x8xf32>
  %9 = stablehlo.add %8, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@bar, [{"a":(1)2, "b", "a":(2)2}, {}]>]>} : tensor<16x8xf32>
  %10 = stablehlo.add %9, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@foo, [{"a"}p0, {"b"}p1]>]>} : tensor<16x8xf32>
  %11 = stablehlo.add %10, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@foo, [{"a"}, {}], unreduced=sum{"b"}>]>} : tensor<16x8xf32>
  return %11 : tensor<16x8xf32>
}

func.func @inlined(%arg0 : tensor<8x8xf32>, %arg1 : tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %0 = stablehlo.add %arg0, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<mesh<["x"=2, "y"=2]>, [{"x"}, {}]>]>} : tensor<8x8xf32>
  %1 = stablehlo.add %0, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<mesh<["x"=2], device_ids=[1, 0]>, [{"x"}, {}]>]>} : tensor<8x8xf32>
  %2 = stablehlo.add %1, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<mesh<["x"=2], device_ids=[0, 1]>, [{"x"}, {}]>]>} : tensor<8x8xf32>
  %3:2 = stablehlo.optimization_barrier {sdy.sharding = #sdy.sharding_per_value<[<mesh<["a"=2, "b"=4]>, [{"a"}, {}]>, <@foo, [{"a"}, {}]>]>} %2, %arg1 : tensor<8x8xf32>, tensor<8x8xf32>
  return %3#0, %3#1 : tensor<8x8xf32>, tensor<8x8xf32>
}

func.func @arg_sharding(%arg0 : tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@foo, [{"a"}p0, {"b"}]>}, %arg1: tensor<?x?xf32> {sdy.sharding = #sdy.sharding<@foo, [{}, {"a"}]>, sdy.sharding_origins = {a = "self"}}) -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@foo, [{"a", ?}, {?}]>}) {
  return %arg0 : tensor<8x8xf32>
}

func.func @tuple_and_maximal(%arg0: tensor<8x8xf32>) -> tuple<tensor<8x8xf32>> {
  %0 = stablehlo.custom_call @sdy_testonly(%arg0) {sdy.sharding = #sdy.sharding_per_value<[<@foo, [{"a"}, {}]>]>} : (tensor<8x8xf32>) -> tuple<tensor<8x8xf32>>
  stablehlo.custom_call @foo(%arg0) {has_side_effect = true, sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_0, []>]>} : (tensor<8x8xf32>) -> ()
  stablehlo.custom_call @foo(%arg0) {has_side_effect = true, sdy.sharding = #sdy.sharding_per_value<[<@foo, []>]>} : (tensor<8x8xf32>) -> ()
  return %0 : tuple<tensor<8x8xf32>>
}
