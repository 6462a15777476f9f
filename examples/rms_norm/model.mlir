// The rms_norm export extended into a small model, compiled whole by
// `shloc compile` (README: "Compiling through upstream MLIR", section 6 of
// README.md here): RMS norm through the JAX FFI handler of rms_norm.c, a
// matmul, a softmax over the last dimension, then a while loop that runs
// acc = acc * 0.5 + p four times (acc starting at p).
module @model {
  func.func public @main(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x32xf32> {
    %n = stablehlo.custom_call @rms_norm(%x) {mhlo.backend_config = {eps = 9.99999974E-6 : f32}, operand_layouts = [dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %m = stablehlo.dot_general %n, %w, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %max = stablehlo.reduce(%m init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %maxb = stablehlo.broadcast_in_dim %max, dims = [0] : (tensor<8xf32>) -> tensor<8x32xf32>
    %sh = stablehlo.subtract %m, %maxb : tensor<8x32xf32>
    %e = stablehlo.exponential %sh : tensor<8x32xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %sumb = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<8xf32>) -> tensor<8x32xf32>
    %p = stablehlo.divide %e, %sumb : tensor<8x32xf32>
    %i0 = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.while(%i = %i0, %acc = %p) : tensor<i32>, tensor<8x32xf32>
    cond {
      %four = stablehlo.constant dense<4> : tensor<i32>
      %c = stablehlo.compare LT, %i, %four : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %half = stablehlo.constant dense<0.5> : tensor<8x32xf32>
      %i1 = stablehlo.add %i, %one : tensor<i32>
      %a1 = stablehlo.multiply %acc, %half : tensor<8x32xf32>
      %a2 = stablehlo.add %a1, %p : tensor<8x32xf32>
      stablehlo.return %i1, %a2 : tensor<i32>, tensor<8x32xf32>
    }
    return %r#1 : tensor<8x32xf32>
  }
}
