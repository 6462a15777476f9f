sdy.mesh @mesh = <["a"=4, "b"=1], device_ids=[3, 2, 1, 0]>
sdy.mesh @max = <[], device_ids=[0]>
func.func @main(%arg0: tensor<8x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a", ?}p0, {}], replicated={"b"}>}) -> (tensor<8x2xf32> {sdy.sharding = #sdy.sharding<mesh<["x"=2]>, [{"x"}, {?}], unreduced=max{}>}) {
  %0 = sdy.sharding_constraint %arg0 <@mesh, [{"a":(1)2}, {}]> : tensor<8x2xf32>
  %1 = sdy.manual_computation(%0) in_shardings=[<@mesh, [{"a"}, {}]>] out_shardings=[<@mesh, [{"a"}, {}]>] manual_axes={"a"} (%arg1: tensor<2x2xf32>) {
    %2 = stablehlo.add %arg1, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {"b"}]>]>} : tensor<2x2xf32>
    sdy.return %2 : tensor<2x2xf32>
  } : (tensor<8x2xf32>) -> tensor<8x2xf32>
  %3 = sdy.propagation_barrier %1 allowed_direction=BACKWARD : tensor<8x2xf32>
  sdy.sharding_group %3 group_id=1 : tensor<8x2xf32>
  %4 = sdy.named_computation<"f">(%3) (%arg1: tensor<8x2xf32>) {
    sdy.return %arg1 : tensor<8x2xf32>
  } : (tensor<8x2xf32>) -> tensor<8x2xf32>
  return %4 : tensor<8x2xf32>
}
