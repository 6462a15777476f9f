func.func @loop(%arg0: tensor<i64>) -> tensor<i64> {
  %c = stablehlo.constant dense<10> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %0 = "stablehlo.while"(%arg0) ({
  ^bb0(%i: tensor<i64>):
    %1 = stablehlo.compare LT, %i, %c : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }, {
  ^bb0(%i: tensor<i64>):
    %1 = stablehlo.add %i, %one : tensor<i64>
    stablehlo.return %1 : tensor<i64>
  }) : (tensor<i64>) -> tensor<i64>
  return %0 : tensor<i64>
}
