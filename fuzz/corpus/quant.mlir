func.func @q(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5:10>>) -> tensor<4x!quant.uniform<i8<-127:127>:f32:0, {0.5:1, 0.25:2, 1.0:0, 2.0:3}>> {
  %0 = "stablehlo.uniform_quantize"(%arg0) : (tensor<4x!quant.uniform<i8:f32, 0.5:10>>) -> tensor<4x!quant.uniform<i8<-127:127>:f32:0, {0.5:1, 0.25:2, 1.0:0, 2.0:3}>>
  return %0 : tensor<4x!quant.uniform<i8<-127:127>:f32:0, {0.5:1, 0.25:2, 1.0:0, 2.0:3}>>
}
