// UPSTREAM
// JAX's annotation targets are not calls: the identity ones (here Sharding,
// then SPMDFullToShardShape with an unchanged shape, and a chain of two) are
// removed and their uses take their operands, a dce_sink is removed, and the
// real custom call between them becomes a call of an external function.
func.func @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{replicated}"} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.custom_call @my_kernel(%0) {api_version = 4 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = stablehlo.custom_call @SPMDFullToShardShape(%1) {mhlo.sharding = "{manual}"} : (tensor<4xf32>) -> tensor<4xf32>
  %3 = stablehlo.custom_call @Sharding(%2) {mhlo.sharding = "{replicated}"} : (tensor<4xf32>) -> tensor<4xf32>
  stablehlo.custom_call @dce_sink(%3) : (tensor<4xf32>) -> ()
  return %3, %0 : tensor<4xf32>, tensor<4xf32>
}
