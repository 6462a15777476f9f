// Generic forms, including the older dense<...> spellings of integer-array
// attributes and inherent attributes written in the discardable dictionary,
// print in their pretty forms.
func.func @generic(%arg0: tensor<4x3xf32>, %arg1: tensor<f32>, %arg2: tensor<3x4xf32>, %arg3: tensor<1x4x4x1xf32>, %arg4: tensor<3x3x1x1xf32>) -> tensor<3xf32> {
  %0 = "stablehlo.broadcast_in_dim"(%arg1) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>) -> tensor<4x3xf32>
  %1 = "stablehlo.transpose"(%arg0) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %2 = "stablehlo.slice"(%arg0) {start_indices = dense<[0, 1]> : tensor<2xi64>, limit_indices = dense<[2, 3]> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} : (tensor<4x3xf32>) -> tensor<2x2xf32>
  %3 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<4xi32>
  %4 = "stablehlo.dot_general"(%arg0, %arg2) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x3xf32>, tensor<3x4xf32>) -> tensor<4x4xf32>
  %5 = "stablehlo.convolution"(%arg3, %arg4) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, padding = dense<1> : tensor<2x2xi64>, window_reversal = dense<false> : tensor<2xi1>, window_strides = dense<1> : tensor<2xi64>} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x4x4x1xf32>
  %6 = "stablehlo.reduce"(%arg0, %arg1) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %r = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%r) : (tensor<f32>) -> ()
  }) {dimensions = dense<0> : tensor<1xi64>} : (tensor<4x3xf32>, tensor<f32>) -> tensor<3xf32>
  %7 = "stablehlo.fft"(%arg0) {fft_type = #stablehlo<fft_type RFFT>, fft_length = dense<3> : tensor<1xi64>} : (tensor<4x3xf32>) -> tensor<4x2xcomplex<f32>>
  %8 = "stablehlo.pad"(%arg0, %arg1) {edge_padding_low = dense<0> : tensor<2xi64>, edge_padding_high = dense<[1, 0]> : tensor<2xi64>, interior_padding = dense<0> : tensor<2xi64>} : (tensor<4x3xf32>, tensor<f32>) -> tensor<5x3xf32>
  "check.expect_close"(%arg1, %arg1) : (tensor<f32>, tensor<f32>) -> ()
  "check.expect_almost_eq_const"(%arg1) <{value = dense<1.0> : tensor<f32>, tolerance = 1.0e-4 : f64}> : (tensor<f32>) -> ()
  return %6 : tensor<3xf32>
}
