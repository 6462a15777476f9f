func.func @bad(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %arg0, %undefined : tensor<2xf32>
  %1 = "t.x"() {s = "unterminated
