func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %i: tensor<2x3xi32>, %j: tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xi1>) {
  %0 = stablehlo.add %a, %b : tensor<2x3xf32>
  %1 = stablehlo.maximum %0, %b : tensor<2x3xf32>
  %2 = stablehlo.exponential %1 : tensor<2x3xf32>
  %3 = stablehlo.divide %i, %j : tensor<2x3xi32>
  %4 = stablehlo.remainder %i, %j : tensor<2x3xi32>
  %5 = stablehlo.shift_left %3, %j : tensor<2x3xi32>
  %6 = stablehlo.add %5, %4 : tensor<2x3xi32>
  %7 = stablehlo.compare LT, %a, %b, FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %8 = stablehlo.select %7, %2, %a : tensor<2x3xi1>, tensor<2x3xf32>
  %9 = stablehlo.convert %8 : (tensor<2x3xf32>) -> tensor<2x3xi32>
  %10 = stablehlo.add %9, %6 : tensor<2x3xi32>
  %11 = stablehlo.convert %10 : (tensor<2x3xi32>) -> tensor<2x3xf32>
  %c = stablehlo.constant dense<1.5> : tensor<2x3xf32>
  %12 = stablehlo.multiply %11, %c : tensor<2x3xf32>
  %13 = stablehlo.sign %12 : tensor<2x3xf32>
  %14 = stablehlo.logistic %13 : tensor<2x3xf32>
  return %14, %10, %7 : tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xi1>
}
