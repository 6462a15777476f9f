// Pretty forms of dot_general, dot, convolution, fft, cholesky, einsum and
// chlo.top_k (pretty_linalg.c).
func.func @dots(%arg0: tensor<2x3x4xf32>, %arg1: tensor<2x4x5xf32>, %arg2: tensor<3x4xf32>, %arg3: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %0 = stablehlo.dot_general %arg2, %arg3, contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %1 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, HIGHEST] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %2 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [HIGH, HIGH], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 3, allow_imprecise_accumulation = false> : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %3 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1], algorithm = <lhs_precision_type = f32, rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %4 = stablehlo.dot_general %arg2, %arg3, contracting_dims = [1] x [0] {mhlo.frontend_attributes = {a = "b"}} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %5 = stablehlo.dot %arg2, %arg3 : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %6 = stablehlo.dot %arg2, %arg3, precision = [DEFAULT, DEFAULT] : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

func.func @convolutions(%arg0: tensor<1x4x4x1xf32>, %arg1: tensor<3x3x1x1xf32>, %arg2: tensor<1x3x9x10xf32>, %arg3: tensor<3x3x4x5xf32>) -> tensor<1x2x2x1xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  %1 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [4, 4], pad = [[0, 0], [0, 0]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  %2 = stablehlo.convolution(%arg2, %arg3) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 3], pad = [[1, 2], [0, 1]], rhs_dilate = [1, 2], reverse = [true, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x9x10xf32>, tensor<3x3x4x5xf32>) -> tensor<1x3x5x1xf32>
  %3 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [1, 1]], reverse = [1, 0]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x4x4x1xf32>
  return %0 : tensor<1x2x2x1xf32>
}

func.func @misc(%arg0: tensor<4xcomplex<f32>>, %arg1: tensor<8xf32>, %arg2: tensor<3x3xf64>) -> tensor<3x3xf64> {
  %0 = stablehlo.fft %arg0, type = FFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  %1 = stablehlo.fft %arg1, type = RFFT, length = [8] : (tensor<8xf32>) -> tensor<5xcomplex<f32>>
  %2 = stablehlo.cholesky %arg2, lower = true : tensor<3x3xf64>
  %3 = stablehlo.cholesky %arg2, lower = false : tensor<3x3xf64>
  %4 = stablehlo.cholesky %arg2 : tensor<3x3xf64>
  %5 = stablehlo.einsum %arg2, %arg2, config = "ab,bc->ac" : (tensor<3x3xf64>, tensor<3x3xf64>) -> tensor<3x3xf64>
  %6 = stablehlo.unary_einsum %arg2, config = "ab->a" : (tensor<3x3xf64>) -> tensor<3xf64>
  %values, %indices = chlo.top_k(%arg2, k = 2) : tensor<3x3xf64> -> (tensor<3x2xf64>, tensor<3x2xi32>)
  %7:2 = chlo.top_k(%arg2, k = 1) {largest = true} : tensor<3x3xf64> -> (tensor<3x1xf64>, tensor<3x1xi32>)
  return %2 : tensor<3x3xf64>
}
