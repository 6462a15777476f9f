module @jit_fft attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<64x4096xcomplex<f32>>, %arg1: tensor<64x4096xf32>) -> (tensor<64x4096xcomplex<f32>> {jax.result_info = "[0]"}, tensor<64x2049xcomplex<f32>> {jax.result_info = "[1]"}) {
    %0 = stablehlo.fft %arg0, type =  FFT, length = [4096] : (tensor<64x4096xcomplex<f32>>) -> tensor<64x4096xcomplex<f32>>
    %1 = stablehlo.fft %arg1, type =  RFFT, length = [4096] : (tensor<64x4096xf32>) -> tensor<64x2049xcomplex<f32>>
    return %0, %1 : tensor<64x4096xcomplex<f32>>, tensor<64x2049xcomplex<f32>>
  }
}
