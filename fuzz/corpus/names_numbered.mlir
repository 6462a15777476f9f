func.func @f(%arg0: tensor<i32>) -> tensor<i32> {
  %v1 = stablehlo.add %arg0, %arg0 : tensor<i32>
  %v01 = stablehlo.add %v1, %arg0 : tensor<i32>
  %0 = stablehlo.add %v01, %v1 : tensor<i32>
  %4000 = stablehlo.add %0, %0 : tensor<i32>
  %1:2 = "t.pair"(%4000) : (tensor<i32>) -> (tensor<i32>, tensor<i32>)
  %2 = stablehlo.add %1#0, %1#1 : tensor<i32>
  return %2 : tensor<i32>
}
