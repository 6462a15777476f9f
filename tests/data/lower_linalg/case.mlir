func.func @main(%k: tensor<i32>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %r = "stablehlo.case"(%k) ({
    %a = stablehlo.negate %x : tensor<3xf32>
    stablehlo.return %a : tensor<3xf32>
  }, {
    %b = stablehlo.abs %x : tensor<3xf32>
    stablehlo.return %b : tensor<3xf32>
  }) : (tensor<i32>) -> tensor<3xf32>
  %c = stablehlo.iota dim = 0 : tensor<3xi32>
  %d = stablehlo.convert %c : (tensor<3xi32>) -> tensor<3xf32>
  %e = stablehlo.clamp %d, %r, %d : tensor<3xf32>
  %f = stablehlo.reshape %e : (tensor<3xf32>) -> tensor<3x1xf32>
  %g = stablehlo.reshape %f : (tensor<3x1xf32>) -> tensor<1x3xf32>
  %h = stablehlo.slice %g [0:1, 1:2] : (tensor<1x3xf32>) -> tensor<1x1xf32>
  %i = stablehlo.reshape %h : (tensor<1x1xf32>) -> tensor<f32>
  %j = stablehlo.broadcast_in_dim %i, dims = [] : (tensor<f32>) -> tensor<3xf32>
  return %j : tensor<3xf32>
}
