func.func @main() -> tensor<2x6x3xf32> {
  %a = stablehlo.iota dim = 1 : tensor<2x3x4xf32>
  %b = stablehlo.iota dim = 2 : tensor<2x4x5xf32>
  %c = stablehlo.constant dense<0.25> : tensor<2x3x4xf32>
  %a2 = stablehlo.add %a, %c : tensor<2x3x4xf32>
  %d = stablehlo.dot_general %a2, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %t = stablehlo.transpose %d, dims = [0, 2, 1] : (tensor<2x3x5xf32>) -> tensor<2x5x3xf32>
  %s = stablehlo.slice %t [0:2, 1:5, 0:3] : (tensor<2x5x3xf32>) -> tensor<2x4x3xf32>
  %f = stablehlo.reshape %s : (tensor<2x4x3xf32>) -> tensor<24xf32>
  %g = stablehlo.reshape %f : (tensor<24xf32>) -> tensor<2x4x3xf32>
  %h = stablehlo.slice %t [0:2, 0:2, 0:3] : (tensor<2x5x3xf32>) -> tensor<2x2x3xf32>
  %k = stablehlo.concatenate %g, %h, dim = 1 : (tensor<2x4x3xf32>, tensor<2x2x3xf32>) -> tensor<2x6x3xf32>
  return %k : tensor<2x6x3xf32>
}
