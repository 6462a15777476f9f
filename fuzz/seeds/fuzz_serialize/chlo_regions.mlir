func.func @main(%x: tensor<3x5xf64>, %n: tensor<i64>) -> (tensor<3x2xf64>, tensor<3x2xi32>, tensor<3x5xf64>) {
  %v, %i = chlo.top_k(%x, k = 2) : tensor<3x5xf64> -> (tensor<3x2xf64>, tensor<3x2xi32>)
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %r:2 = stablehlo.while(%k = %c0, %y = %x) : tensor<i64>, tensor<3x5xf64>
   cond {
    %c = stablehlo.compare LT, %k, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i64>
    %k1 = stablehlo.add %k, %one : tensor<i64>
    %y1 = chlo.digamma %y : tensor<3x5xf64> -> tensor<3x5xf64>
    %y2 = chlo.zeta %y1, %y : tensor<3x5xf64>, tensor<3x5xf64> -> tensor<3x5xf64>
    stablehlo.return %k1, %y2 : tensor<i64>, tensor<3x5xf64>
  }
  return %v, %i, %r#1 : tensor<3x2xf64>, tensor<3x2xi32>, tensor<3x5xf64>
}
