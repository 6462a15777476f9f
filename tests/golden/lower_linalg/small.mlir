func.func @main(%x: tensor<2x3xf32>, %i: tensor<3xi32>) -> (tensor<2xf32>, tensor<3xi32>) {
  %n = stablehlo.custom_call @rms_norm(%x) {api_version = 4 : i32, backend_config = {eps = 1.0e-06 : f32}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%n init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  %d = stablehlo.shift_right_logical %i, %i : tensor<3xi32>
  return %s, %d : tensor<2xf32>, tensor<3xi32>
}
