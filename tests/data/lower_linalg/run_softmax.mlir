func.func @main() -> tensor<3x5xf32> {
  %x = stablehlo.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0], [0.5, -1.0, 2.0, 0.0, 1.0], [10.0, 20.0, 30.0, 1.0, -2.0]]> : tensor<3x5xf32>
  %r = func.call @softmax(%x) : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}
func.func private @softmax(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<3x5xf32>, tensor<f32>) -> tensor<3xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<3xf32>) -> tensor<3x5xf32>
  %d = stablehlo.subtract %x, %mb : tensor<3x5xf32>
  %e = stablehlo.exponential %d : tensor<3x5xf32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<3x5xf32>, tensor<f32>) -> tensor<3xf32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<3xf32>) -> tensor<3x5xf32>
  %r = stablehlo.divide %e, %sb : tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}
