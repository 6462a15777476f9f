// An out-of-range case index takes the last branch; clamp, iota, reshape to
// and from rank 0.
func.func @main() -> tensor<6xf32> {
  %k = stablehlo.constant dense<5> : tensor<i32>
  %k0 = stablehlo.constant dense<0> : tensor<i32>
  %x = stablehlo.constant dense<[-1.5, 0.25, 2.0]> : tensor<3xf32>
  %r = "stablehlo.case"(%k) ({
    %a = stablehlo.negate %x : tensor<3xf32>
    stablehlo.return %a : tensor<3xf32>
  }, {
    %b = stablehlo.abs %x : tensor<3xf32>
    stablehlo.return %b : tensor<3xf32>
  }) : (tensor<i32>) -> tensor<3xf32>
  %s = "stablehlo.case"(%k0) ({
    %a = stablehlo.negate %x : tensor<3xf32>
    stablehlo.return %a : tensor<3xf32>
  }, {
    %b = stablehlo.abs %x : tensor<3xf32>
    stablehlo.return %b : tensor<3xf32>
  }) : (tensor<i32>) -> tensor<3xf32>
  %lo = stablehlo.constant dense<0.5> : tensor<f32>
  %c = stablehlo.iota dim = 0 : tensor<3xf32>
  %e = stablehlo.clamp %lo, %r, %c : (tensor<f32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %h = stablehlo.slice %s [1:2] : (tensor<3xf32>) -> tensor<1xf32>
  %i = stablehlo.reshape %h : (tensor<1xf32>) -> tensor<f32>
  %j = stablehlo.broadcast_in_dim %i, dims = [] : (tensor<f32>) -> tensor<3xf32>
  %o = stablehlo.concatenate %e, %j, dim = 0 : (tensor<3xf32>, tensor<3xf32>) -> tensor<6xf32>
  return %o : tensor<6xf32>
}
