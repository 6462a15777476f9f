func.func @ops(%a: tensor<4xf32>, %b: tensor<4xf32>, %p: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xi1>) {
  %0 = stablehlo.compare LT, %a, %b, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = stablehlo.select %p, %a, %b : tensor<4xi1>, tensor<4xf32>
  %2 = stablehlo.custom_call @my_target(%1, %b) {backend_config = "", api_version = 4 : i32} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = stablehlo.tuple %2, %0 : tuple<tensor<4xf32>, tensor<4xi1>>
  %4 = stablehlo.get_tuple_element %3[0] : (tuple<tensor<4xf32>, tensor<4xi1>>) -> tensor<4xf32>
  %5 = stablehlo.maximum %4, %a : tensor<4xf32>
  %6 = stablehlo.convert %5 : (tensor<4xf32>) -> tensor<4xf64>
  %7 = stablehlo.reshape %5 : (tensor<4xf32>) -> tensor<2x2xf32>
  %8:2 = func.call @ops(%a, %b, %p) : (tensor<4xf32>, tensor<4xf32>, tensor<4xi1>) -> (tensor<4xf32>, tensor<4xi1>)
  return %5, %0 : tensor<4xf32>, tensor<4xi1>
}
