// ARGS: --ffi log_value=my_logger --ffi "legacy.sum=sum_v2"
// UPSTREAM
// Conventions of lower-custom-calls: zero and several results, side-effect
// order, output_operand_aliases, layouts, legacy backend_config strings,
// calls nested in regions, declarations shared by identical calls.
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<2x3xf32>) -> (tensor<4xf32>, tensor<2x3xf32>, tensor<i64>) {
  stablehlo.custom_call @log_value(%arg0) {has_side_effect = true, api_version = 4 : i32, backend_config = {tag = "first"}} : (tensor<4xf32>) -> ()
  %0:2 = stablehlo.custom_call @split(%arg1) {api_version = 4 : i32, backend_config = {axis = 1 : i64, weights = array<i32: 1, 2>}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<i64>)
  stablehlo.custom_call @log_value(%arg0) {has_side_effect = true, api_version = 4 : i32, backend_config = {tag = "second"}} : (tensor<4xf32>) -> ()
  %1 = stablehlo.custom_call @"legacy.sum"(%arg0, %arg0) {api_version = 2 : i32, backend_config = "opaque\00bytes\n"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = stablehlo.custom_call @update(%1) {api_version = 4 : i32, output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>]} : (tensor<4xf32>) -> tensor<4xf32>
  %3 = stablehlo.custom_call @"legacy.sum"(%2, %2) {api_version = 2 : i32, backend_config = "opaque\00bytes\n"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  stablehlo.custom_call @log_value(%3) {has_side_effect = true, api_version = 4 : i32, backend_config = {tag = "first"}} : (tensor<4xf32>) -> ()
  return %3, %0#0, %0#1 : tensor<4xf32>, tensor<2x3xf32>, tensor<i64>
}
