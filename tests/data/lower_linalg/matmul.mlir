func.func @main(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<2x3x4xf32>, %d: tensor<2x4x5xf32>) -> (tensor<5x3xf32>, tensor<2x3x5xf32>, tensor<15xf32>) {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<3x5xf32>) -> tensor<5x3xf32>
  %2 = stablehlo.dot_general %c, %d, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %3 = stablehlo.slice %2 [1:2, 0:3, 0:5] : (tensor<2x3x5xf32>) -> tensor<1x3x5xf32>
  %4 = stablehlo.reshape %3 : (tensor<1x3x5xf32>) -> tensor<15xf32>
  return %1, %2, %4 : tensor<5x3xf32>, tensor<2x3x5xf32>, tensor<15xf32>
}
