// The conventions of lower-custom-calls through compiled code (tests/cli/lower_e2e.sh):
// a call without results and with side effects (in order), two results with
// column-major layouts, output_operand_aliases, a legacy api_version 1 call.
func.func @entry(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<i64>, tensor<2x3xf32>, tensor<2x3xf32>) {
  stablehlo.custom_call @record(%x) {api_version = 4 : i32, backend_config = {tag = 1 : i64}, has_side_effect = true} : (tensor<2x3xf32>) -> ()
  %0:2 = stablehlo.custom_call @split(%x) {api_version = 4 : i32, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<i64>)
  %1 = stablehlo.custom_call @inc(%0#0) {api_version = 4 : i32, output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = stablehlo.custom_call @"legacy.neg"(%1) {backend_config = "unused"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  stablehlo.custom_call @record(%2) {api_version = 4 : i32, backend_config = {tag = 2 : i64}, has_side_effect = true} : (tensor<2x3xf32>) -> ()
  return %1, %0#1, %2, %0#0 : tensor<2x3xf32>, tensor<i64>, tensor<2x3xf32>, tensor<2x3xf32>
}
