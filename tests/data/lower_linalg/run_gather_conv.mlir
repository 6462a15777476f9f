// Call-outs to shloc_rt_op: gather with start indices clamped into the
// operand, scatter-add whose out-of-bounds update is skipped, a convolution
// with padding, lhs/rhs dilation and feature groups, one with batch groups,
// and reduce_window with padding (operands built by native ops, so strided
// slices travel through the call-out ABI too).
func.func @main() -> tensor<81xf32> {
  %i = stablehlo.iota dim = 0 : tensor<24xf32>
  %x = stablehlo.reshape %i : (tensor<24xf32>) -> tensor<4x6xf32>
  %idx = stablehlo.constant dense<[[0, 1], [3, 5], [-2, 9], [2, -1]]> : tensor<4x2xi32>
  %g = "stablehlo.gather"(%x, %idx) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 2>}> : (tensor<4x6xf32>, tensor<4x2xi32>) -> tensor<4x2xf32>
  %gf = stablehlo.reshape %g : (tensor<4x2xf32>) -> tensor<8xf32>
  %sidx = stablehlo.constant dense<[[1], [7], [1], [-1]]> : tensor<4x1xi32>
  %upd = stablehlo.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [7.0, 7.0, 7.0, 7.0, 7.0, 7.0], [0.5, 0.5, 0.5, 0.5, 0.5, 0.5], [9.0, 9.0, 9.0, 9.0, 9.0, 9.0]]> : tensor<4x6xf32>
  %s = "stablehlo.scatter"(%x, %sidx, %upd) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %t = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %t : tensor<f32>
  }) : (tensor<4x6xf32>, tensor<4x1xi32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %sl = stablehlo.slice %s [1:3, 0:6:2] : (tensor<4x6xf32>) -> tensor<2x3xf32>
  %sf = stablehlo.reshape %sl : (tensor<2x3xf32>) -> tensor<6xf32>
  %img = stablehlo.reshape %i : (tensor<24xf32>) -> tensor<1x4x3x2xf32>
  %w = stablehlo.constant dense<[[[[1.0, -1.0]], [[0.5, 2.0]]], [[[-0.25, 1.5]], [[3.0, 0.0]]]]> : tensor<2x2x1x2xf32>
  %c = stablehlo.convolution(%img, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], pad = [[1, 1], [0, 1]], lhs_dilate = [1, 2], rhs_dilate = [2, 1]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x4x3x2xf32>, tensor<2x2x1x2xf32>) -> tensor<1x2x5x2xf32>
  %cf = stablehlo.reshape %c : (tensor<1x2x5x2xf32>) -> tensor<20xf32>
  %bimg = stablehlo.reshape %i : (tensor<24xf32>) -> tensor<4x3x2x1xf32>
  %bw = stablehlo.constant dense<[[[[1.0, 2.0]]], [[[-1.0, 0.5]]]]> : tensor<2x1x1x2xf32>
  %bc = stablehlo.convolution(%bimg, %bw) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 2 : i64, feature_group_count = 1 : i64} : (tensor<4x3x2x1xf32>, tensor<2x1x1x2xf32>) -> tensor<2x2x2x2xf32>
  %bcf = stablehlo.reshape %bc : (tensor<2x2x2x2xf32>) -> tensor<16xf32>
  %z = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %rw = "stablehlo.reduce_window"(%x, %z) <{padding = dense<[[1, 0], [0, 2]]> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %t = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %t : tensor<f32>
  }) : (tensor<4x6xf32>, tensor<f32>) -> tensor<2x3xf32>
  %rwf = stablehlo.reshape %rw : (tensor<2x3xf32>) -> tensor<6xf32>
  %p = stablehlo.transpose %x, dims = [1, 0] : (tensor<4x6xf32>) -> tensor<6x4xf32>
  %sorted = "stablehlo.sort"(%p) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %t = stablehlo.compare GT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %t : tensor<i1>
  }) {dimension = 0 : i64} : (tensor<6x4xf32>) -> tensor<6x4xf32>
  %sof = stablehlo.slice %sorted [0:6:2, 1:4:2] : (tensor<6x4xf32>) -> tensor<3x2xf32>
  %sof1 = stablehlo.reshape %sof : (tensor<3x2xf32>) -> tensor<6xf32>
  %o = stablehlo.concatenate %gf, %sf, %cf, %bcf, %rwf, %sof1, dim = 0 : (tensor<8xf32>, tensor<6xf32>, tensor<20xf32>, tensor<16xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<62xf32>
  %pad = stablehlo.constant dense<0.0> : tensor<f32>
  %o2 = stablehlo.pad %o, %pad, low = [0], high = [19], interior = [0] : (tensor<62xf32>, tensor<f32>) -> tensor<81xf32>
  return %o2 : tensor<81xf32>
}
