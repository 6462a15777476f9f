func.func @consts() -> (tensor<2x2xi32>, tensor<4xf32>, tensor<3xi1>, tensor<2xcomplex<f32>>) {
  %0 = stablehlo.constant dense<[[1, 2], [3, -4]]> : tensor<2x2xi32>
  %1 = stablehlo.constant dense<"0x0000803F000000400000404000008040"> : tensor<4xf32>
  %2 = stablehlo.constant dense<"0x05"> : tensor<3xi1>
  %3 = stablehlo.constant dense<[(1.0, 2.0), (0x7FC00000, -inf)]> : tensor<2xcomplex<f32>>
  %4 = stablehlo.constant dense<1.5> : tensor<7x7xbf16>
  %5 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %6 = stablehlo.constant dense<> : tensor<0x3xf64>
  %7 = stablehlo.constant dense<[-8, 7]> : tensor<2xi4>
  %8 = stablehlo.constant dense<[255, 0]> : tensor<2xui8>
  %9 = stablehlo.constant dense<[0.5, 448.0]> : tensor<2xf8E4M3FN>
  return %0, %1, %2, %3 : tensor<2x2xi32>, tensor<4xf32>, tensor<3xi1>, tensor<2xcomplex<f32>>
}
