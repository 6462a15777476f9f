// GPT-style pre-LN decoder block: seq 128, d_model 256, 4 heads of 64, MLP 1024.
// Matrix weights are bf16: converted to f32 before the dot_general (what JAX
// exports for f32 activations @ bf16 params), except the MLP's down projection,
// which rounds the activations to bf16 and accumulates in f32.  Layernorm
// parameters and biases are f32.  Arguments: x, ln1 gamma/beta, wqkv, wo, ln2 gamma/beta,
// w1, b1, w2, b2.
module @jit_decoder attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<128x256xf32>, %g1: tensor<256xf32>, %be1: tensor<256xf32>, %wqkv: tensor<256x768xbf16>, %wo: tensor<256x256xbf16>, %g2: tensor<256xf32>, %be2: tensor<256xf32>, %w1: tensor<256x1024xbf16>, %b1: tensor<1024xf32>, %w2: tensor<1024x256xbf16>, %b2: tensor<256xf32>) -> (tensor<128x256xf32> {jax.result_info = "result"}) {
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %n = stablehlo.constant dense<2.560000e+02> : tensor<128xf32>
    %eps = stablehlo.constant dense<9.99999974E-6> : tensor<128xf32>
    // layernorm 1
    %0 = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<128x256xf32>, tensor<f32>) -> tensor<128xf32>
    %1 = stablehlo.divide %0, %n : tensor<128xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0] : (tensor<128xf32>) -> tensor<128x256xf32>
    %3 = stablehlo.subtract %x, %2 : tensor<128x256xf32>
    %4 = stablehlo.multiply %3, %3 : tensor<128x256xf32>
    %5 = stablehlo.reduce(%4 init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<128x256xf32>, tensor<f32>) -> tensor<128xf32>
    %6 = stablehlo.divide %5, %n : tensor<128xf32>
    %7 = stablehlo.add %6, %eps : tensor<128xf32>
    %8 = stablehlo.rsqrt %7 : tensor<128xf32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0] : (tensor<128xf32>) -> tensor<128x256xf32>
    %10 = stablehlo.multiply %3, %9 : tensor<128x256xf32>
    %11 = stablehlo.broadcast_in_dim %g1, dims = [1] : (tensor<256xf32>) -> tensor<128x256xf32>
    %12 = stablehlo.multiply %10, %11 : tensor<128x256xf32>
    %13 = stablehlo.broadcast_in_dim %be1, dims = [1] : (tensor<256xf32>) -> tensor<128x256xf32>
    %14 = stablehlo.add %12, %13 : tensor<128x256xf32>
    // QKV projection, split into heads
    %15 = stablehlo.convert %wqkv : (tensor<256x768xbf16>) -> tensor<256x768xf32>
    %16 = stablehlo.dot_general %14, %15, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<128x256xf32>, tensor<256x768xf32>) -> tensor<128x768xf32>
    %17 = stablehlo.slice %16 [0:128, 0:256] : (tensor<128x768xf32>) -> tensor<128x256xf32>
    %18 = stablehlo.slice %16 [0:128, 256:512] : (tensor<128x768xf32>) -> tensor<128x256xf32>
    %19 = stablehlo.slice %16 [0:128, 512:768] : (tensor<128x768xf32>) -> tensor<128x256xf32>
    %20 = stablehlo.reshape %17 : (tensor<128x256xf32>) -> tensor<128x4x64xf32>
    %21 = stablehlo.reshape %18 : (tensor<128x256xf32>) -> tensor<128x4x64xf32>
    %22 = stablehlo.reshape %19 : (tensor<128x256xf32>) -> tensor<128x4x64xf32>
    // causal attention: scores[h, q, k] / sqrt(64), keys after the query masked out
    %23 = stablehlo.dot_general %20, %21, batching_dims = [1] x [1], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<128x4x64xf32>, tensor<128x4x64xf32>) -> tensor<4x128x128xf32>
    %scale = stablehlo.constant dense<1.250000e-01> : tensor<4x128x128xf32>
    %24 = stablehlo.multiply %23, %scale : tensor<4x128x128xf32>
    %25 = stablehlo.iota dim = 0 : tensor<128x128xi32>
    %26 = stablehlo.iota dim = 1 : tensor<128x128xi32>
    %27 = stablehlo.compare  GE, %25, %26,  SIGNED : (tensor<128x128xi32>, tensor<128x128xi32>) -> tensor<128x128xi1>
    %28 = stablehlo.broadcast_in_dim %27, dims = [1, 2] : (tensor<128x128xi1>) -> tensor<4x128x128xi1>
    %neg = stablehlo.constant dense<-3.40282347E+38> : tensor<4x128x128xf32>
    %29 = stablehlo.select %28, %24, %neg : tensor<4x128x128xi1>, tensor<4x128x128xf32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %30 = stablehlo.reduce(%29 init: %ninf) applies stablehlo.maximum across dimensions = [2] : (tensor<4x128x128xf32>, tensor<f32>) -> tensor<4x128xf32>
    %31 = stablehlo.broadcast_in_dim %30, dims = [0, 1] : (tensor<4x128xf32>) -> tensor<4x128x128xf32>
    %32 = stablehlo.subtract %29, %31 : tensor<4x128x128xf32>
    %33 = stablehlo.exponential %32 : tensor<4x128x128xf32>
    %34 = stablehlo.reduce(%33 init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<4x128x128xf32>, tensor<f32>) -> tensor<4x128xf32>
    %35 = stablehlo.broadcast_in_dim %34, dims = [0, 1] : (tensor<4x128xf32>) -> tensor<4x128x128xf32>
    %36 = stablehlo.divide %33, %35 : tensor<4x128x128xf32>
    %37 = stablehlo.dot_general %36, %22, batching_dims = [0] x [1], contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x128x128xf32>, tensor<128x4x64xf32>) -> tensor<4x128x64xf32>
    %38 = stablehlo.transpose %37, dims = [1, 0, 2] : (tensor<4x128x64xf32>) -> tensor<128x4x64xf32>
    %39 = stablehlo.reshape %38 : (tensor<128x4x64xf32>) -> tensor<128x256xf32>
    %40 = stablehlo.convert %wo : (tensor<256x256xbf16>) -> tensor<256x256xf32>
    %41 = stablehlo.dot_general %39, %40, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<128x256xf32>, tensor<256x256xf32>) -> tensor<128x256xf32>
    %42 = stablehlo.add %x, %41 : tensor<128x256xf32>
    // layernorm 2
    %43 = stablehlo.reduce(%42 init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<128x256xf32>, tensor<f32>) -> tensor<128xf32>
    %44 = stablehlo.divide %43, %n : tensor<128xf32>
    %45 = stablehlo.broadcast_in_dim %44, dims = [0] : (tensor<128xf32>) -> tensor<128x256xf32>
    %46 = stablehlo.subtract %42, %45 : tensor<128x256xf32>
    %47 = stablehlo.multiply %46, %46 : tensor<128x256xf32>
    %48 = stablehlo.reduce(%47 init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<128x256xf32>, tensor<f32>) -> tensor<128xf32>
    %49 = stablehlo.divide %48, %n : tensor<128xf32>
    %50 = stablehlo.add %49, %eps : tensor<128xf32>
    %51 = stablehlo.rsqrt %50 : tensor<128xf32>
    %52 = stablehlo.broadcast_in_dim %51, dims = [0] : (tensor<128xf32>) -> tensor<128x256xf32>
    %53 = stablehlo.multiply %46, %52 : tensor<128x256xf32>
    %54 = stablehlo.broadcast_in_dim %g2, dims = [1] : (tensor<256xf32>) -> tensor<128x256xf32>
    %55 = stablehlo.multiply %53, %54 : tensor<128x256xf32>
    %56 = stablehlo.broadcast_in_dim %be2, dims = [1] : (tensor<256xf32>) -> tensor<128x256xf32>
    %57 = stablehlo.add %55, %56 : tensor<128x256xf32>
    // MLP: gelu_tanh(y @ w1 + b1) @ w2 + b2
    %58 = stablehlo.convert %w1 : (tensor<256x1024xbf16>) -> tensor<256x1024xf32>
    %59 = stablehlo.dot_general %57, %58, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<128x256xf32>, tensor<256x1024xf32>) -> tensor<128x1024xf32>
    %60 = stablehlo.broadcast_in_dim %b1, dims = [1] : (tensor<1024xf32>) -> tensor<128x1024xf32>
    %61 = stablehlo.add %59, %60 : tensor<128x1024xf32>
    %62 = stablehlo.multiply %61, %61 : tensor<128x1024xf32>
    %63 = stablehlo.multiply %62, %61 : tensor<128x1024xf32>
    %c1 = stablehlo.constant dense<4.471500e-02> : tensor<128x1024xf32>
    %64 = stablehlo.multiply %63, %c1 : tensor<128x1024xf32>
    %65 = stablehlo.add %61, %64 : tensor<128x1024xf32>
    %c2 = stablehlo.constant dense<0.797884583> : tensor<128x1024xf32>
    %66 = stablehlo.multiply %65, %c2 : tensor<128x1024xf32>
    %67 = stablehlo.tanh %66 : tensor<128x1024xf32>
    %one = stablehlo.constant dense<1.000000e+00> : tensor<128x1024xf32>
    %68 = stablehlo.add %67, %one : tensor<128x1024xf32>
    %half = stablehlo.constant dense<5.000000e-01> : tensor<128x1024xf32>
    %69 = stablehlo.multiply %68, %half : tensor<128x1024xf32>
    %70 = stablehlo.multiply %61, %69 : tensor<128x1024xf32>
    // Down projection in the other form JAX exports, jnp.dot(h.astype(bf16), w2,
    // preferred_element_type=f32): bf16 operands, f32 result.
    %71 = stablehlo.convert %70 : (tensor<128x1024xf32>) -> tensor<128x1024xbf16>
    %72 = stablehlo.dot_general %71, %w2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<128x1024xbf16>, tensor<1024x256xbf16>) -> tensor<128x256xf32>
    %73 = stablehlo.broadcast_in_dim %b2, dims = [1] : (tensor<256xf32>) -> tensor<128x256xf32>
    %74 = stablehlo.add %72, %73 : tensor<128x256xf32>
    %75 = stablehlo.add %42, %74 : tensor<128x256xf32>
    return %75 : tensor<128x256xf32>
  }
}
