func.func @main(%a: tensor<4xf32>, %b: tensor<2x4xf32>, %z: tensor<3xcomplex<f64>>, %h: tensor<2xbf16>) -> (tensor<4xf32>, tensor<2x4xf32>, tensor<4xi1>, tensor<3xcomplex<f64>>, tensor<2xbf16>) {
  %0 = chlo.erf %a : tensor<4xf32> -> tensor<4xf32>
  %1 = chlo.broadcast_add %0, %b : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = chlo.is_inf %0 : tensor<4xf32> -> tensor<4xi1>
  %3 = chlo.asinh %z : tensor<3xcomplex<f64>> -> tensor<3xcomplex<f64>>
  %4 = chlo.lgamma %h : tensor<2xbf16> -> tensor<2xbf16>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<2x4xf32>, tensor<4xi1>, tensor<3xcomplex<f64>>, tensor<2xbf16>
}
