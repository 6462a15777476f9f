// Attributes StableHLO declares with default values are left out of the
// pretty form when they hold the default (as stablehlo-opt prints them).
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.custom_call"(%a) {call_target_name = "foo", api_version = 1 : i32, has_side_effect = false, called_computations = [], output_operand_aliases = []} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "stablehlo.custom_call"(%0) {call_target_name = "bar", api_version = 2 : i32, has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "stablehlo.exponential"(%1) {result_accuracy = #stablehlo.result_accuracy<atol = 0.000000e+00, rtol = 0.000000e+00, ulps = 0, mode = #stablehlo.result_accuracy_mode<DEFAULT>>} : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "stablehlo.exponential"(%2) {result_accuracy = #stablehlo.result_accuracy<atol = 0.000000e+00, rtol = 0.000000e+00, ulps = 1, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : (tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}
