// ARGS: --targets step,finish
// Only the selected targets are lowered; other custom calls stay.  Calls
// inside regions are replaced where they are.
func.func @main(%arg0: tensor<f32>) -> tensor<f32> {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg0) : tensor<i32>, tensor<f32>
   cond {
    %c_1 = stablehlo.constant dense<3> : tensor<i32>
    %1 = stablehlo.compare  LT, %iterArg, %c_1 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  } do {
    %c_1 = stablehlo.constant dense<1> : tensor<i32>
    %1 = stablehlo.add %iterArg, %c_1 : tensor<i32>
    %2 = stablehlo.custom_call @step(%iterArg_0) {api_version = 4 : i32, has_side_effect = true} : (tensor<f32>) -> tensor<f32>
    %3 = stablehlo.custom_call @keep(%2) {api_version = 4 : i32} : (tensor<f32>) -> tensor<f32>
    stablehlo.return %1, %3 : tensor<i32>, tensor<f32>
  }
  %1 = stablehlo.custom_call @finish(%0#1) {api_version = 4 : i32, mhlo.frontend_attributes = {note = "kept"}} : (tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}
