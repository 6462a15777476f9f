// Quantized int8 MLP (static-range quantization, the form TFLite/JAX export):
// x (f32) is quantized per tensor, multiplied with int8 weights (per-tensor
// scale, zero point 0) accumulating in i32, the i32 sums requantized to i8,
// multiplied with the second weight matrix, and the result dequantized.
// Weights arrive as their i8 storage and are reinterpreted as quantized.
module @quant_mlp {
  func.func public @main(%x: tensor<256x1024xf32>, %w1: tensor<1024x2048xi8>, %w2: tensor<2048x1024xi8>) -> tensor<256x1024xf32> {
    %xq = stablehlo.uniform_quantize %x : (tensor<256x1024xf32>) -> tensor<256x1024x!quant.uniform<i8:f32, 0.03125:-3>>
    %w1q = stablehlo.bitcast_convert %w1 : (tensor<1024x2048xi8>) -> tensor<1024x2048x!quant.uniform<i8:f32, 0.0078125>>
    %w2q = stablehlo.bitcast_convert %w2 : (tensor<2048x1024xi8>) -> tensor<2048x1024x!quant.uniform<i8:f32, 0.0078125>>
    %h = stablehlo.dot_general %xq, %w1q, contracting_dims = [1] x [0] : (tensor<256x1024x!quant.uniform<i8:f32, 0.03125:-3>>, tensor<1024x2048x!quant.uniform<i8:f32, 0.0078125>>) -> tensor<256x2048x!quant.uniform<i32:f32, 2.44140625E-4>>
    %hq = stablehlo.uniform_quantize %h : (tensor<256x2048x!quant.uniform<i32:f32, 2.44140625E-4>>) -> tensor<256x2048x!quant.uniform<i8:f32, 0.25:5>>
    %y = stablehlo.dot_general %hq, %w2q, contracting_dims = [1] x [0] : (tensor<256x2048x!quant.uniform<i8:f32, 0.25:5>>, tensor<2048x1024x!quant.uniform<i8:f32, 0.0078125>>) -> tensor<256x1024x!quant.uniform<i32:f32, 0.001953125>>
    %r = stablehlo.uniform_dequantize %y : (tensor<256x1024x!quant.uniform<i32:f32, 0.001953125>>) -> tensor<256x1024xf32>
    return %r : tensor<256x1024xf32>
  }
}
