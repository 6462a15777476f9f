// Dynamic ops with constant shape operands, in the style of StableHLO's
// interpreter tests (run by tests/cli/interpret.sh with shloc test
// --split-input-file); expected values worked out by hand from the spec.

func.func @dynamic_broadcast_in_dim_expanding() {
  %operand = stablehlo.constant dense<[[1], [2]]> : tensor<2x1xi64>
  %shape = stablehlo.constant dense<[3, 2, 2]> : tensor<3xi64>
  %result = "stablehlo.dynamic_broadcast_in_dim"(%operand, %shape) {broadcast_dimensions = array<i64: 1, 2>} : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<3x2x2xi64>
  check.expect_eq_const %result, dense<[[[1, 1], [2, 2]], [[1, 1], [2, 2]], [[1, 1], [2, 2]]]> : tensor<3x2x2xi64>
  func.return
}

// -----

func.func @dynamic_iota_dim1() {
  %shape = stablehlo.constant dense<[2, 3]> : tensor<2xi32>
  %result = stablehlo.dynamic_iota %shape, dim = 1 : (tensor<2xi32>) -> tensor<2x3xi64>
  check.expect_eq_const %result, dense<[[0, 1, 2], [0, 1, 2]]> : tensor<2x3xi64>
  func.return
}

// -----

func.func @real_dynamic_slice_strided() {
  %operand = stablehlo.constant dense<[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15]]> : tensor<4x4xi64>
  %start = stablehlo.constant dense<[1, 0]> : tensor<2xi64>
  %limit = stablehlo.constant dense<[4, 4]> : tensor<2xi64>
  %strides = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
  %result = stablehlo.real_dynamic_slice %operand, %start, %limit, %strides : (tensor<4x4xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x2xi64>
  check.expect_eq_const %result, dense<[[4, 7], [12, 15]]> : tensor<2x2xi64>
  func.return
}

// -----

func.func @dynamic_pad_interior() {
  %operand = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %pad = stablehlo.constant dense<0> : tensor<i64>
  %low = stablehlo.constant dense<[0, 1]> : tensor<2xi64>
  %high = stablehlo.constant dense<[1, 0]> : tensor<2xi64>
  %interior = stablehlo.constant dense<[1, 0]> : tensor<2xi64>
  %result = stablehlo.dynamic_pad %operand, %pad, %low, %high, %interior : (tensor<2x2xi64>, tensor<i64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<4x3xi64>
  check.expect_eq_const %result, dense<[[0, 1, 2], [0, 0, 0], [0, 3, 4], [0, 0, 0]]> : tensor<4x3xi64>
  func.return
}

// -----

func.func @dynamic_reshape_from_dimension_sizes() {
  %operand = stablehlo.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi64>
  %like = stablehlo.constant dense<0> : tensor<3x2xi64>
  %d0 = stablehlo.get_dimension_size %like, dim = 0 : (tensor<3x2xi64>) -> tensor<i32>
  %d1 = stablehlo.get_dimension_size %like, dim = 1 : (tensor<3x2xi64>) -> tensor<i32>
  %r0 = stablehlo.reshape %d0 : (tensor<i32>) -> tensor<1xi32>
  %r1 = stablehlo.reshape %d1 : (tensor<i32>) -> tensor<1xi32>
  %shape = stablehlo.concatenate %r0, %r1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %result = stablehlo.dynamic_reshape %operand, %shape : (tensor<6xi64>, tensor<2xi32>) -> tensor<3x2xi64>
  check.expect_eq_const %result, dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
  func.return
}

// -----

func.func @dynamic_gather_rows() {
  %operand = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6], [7, 8, 9]]> : tensor<3x3xi64>
  %indices = stablehlo.constant dense<[[2], [0]]> : tensor<2x1xi64>
  %sizes = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %result = "stablehlo.dynamic_gather"(%operand, %indices, %sizes) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>} : (tensor<3x3xi64>, tensor<2x1xi64>, tensor<2xi64>) -> tensor<2x2xi64>
  check.expect_eq_const %result, dense<[[7, 8], [1, 2]]> : tensor<2x2xi64>
  func.return
}

// -----

func.func @dynamic_conv_padding_stride() {
  %lhs = stablehlo.constant dense<[[[1], [2], [3], [4], [5]]]> : tensor<1x5x1xi64>
  %rhs = stablehlo.constant dense<[[[1]], [[10]]]> : tensor<2x1x1xi64>
  %padding = stablehlo.constant dense<[[1, 0]]> : tensor<1x2xi64>
  %result = "stablehlo.dynamic_conv"(%lhs, %rhs, %padding) {
    window_strides = array<i64: 2>,
    dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>,
    batch_group_count = 1 : i64,
    feature_group_count = 1 : i64
  } : (tensor<1x5x1xi64>, tensor<2x1x1xi64>, tensor<1x2xi64>) -> tensor<1x3x1xi64>
  check.expect_eq_const %result, dense<[[[10], [32], [54]]]> : tensor<1x3x1xi64>
  func.return
}

// -----

func.func @dynamic_conv_dilations() {
  %lhs = stablehlo.constant dense<[[[1], [2], [3]]]> : tensor<1x3x1xi64>
  %rhs = stablehlo.constant dense<[[[1]], [[10]]]> : tensor<2x1x1xi64>
  %padding = stablehlo.constant dense<0> : tensor<1x2xi32>
  %result = "stablehlo.dynamic_conv"(%lhs, %rhs, %padding) {
    lhs_dilation = array<i64: 2>,
    rhs_dilation = array<i64: 2>,
    dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>,
    batch_group_count = 1 : i64,
    feature_group_count = 1 : i64
  } : (tensor<1x3x1xi64>, tensor<2x1x1xi64>, tensor<1x2xi32>) -> tensor<1x3x1xi64>
  check.expect_eq_const %result, dense<[[[21], [0], [32]]]> : tensor<1x3x1xi64>
  func.return
}

// -----

func.func @dynamic_conv_window_reversal() {
  %lhs = stablehlo.constant dense<[[[1], [2], [3], [4], [5]]]> : tensor<1x5x1xi64>
  %rhs = stablehlo.constant dense<[[[1]], [[10]]]> : tensor<2x1x1xi64>
  %padding = stablehlo.constant dense<[[1, 0]]> : tensor<1x2xi64>
  %result = "stablehlo.dynamic_conv"(%lhs, %rhs, %padding) {
    window_strides = array<i64: 2>,
    window_reversal = array<i1: true>,
    dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>,
    batch_group_count = 1 : i64,
    feature_group_count = 1 : i64
  } : (tensor<1x5x1xi64>, tensor<2x1x1xi64>, tensor<1x2xi64>) -> tensor<1x3x1xi64>
  check.expect_eq_const %result, dense<[[[1], [23], [45]]]> : tensor<1x3x1xi64>
  func.return
}

// -----

func.func @dynamic_conv_feature_groups() {
  %lhs = stablehlo.constant dense<[[[1, 2], [3, 4]]]> : tensor<1x2x2xi64>
  %rhs = stablehlo.constant dense<[[[10, 100]]]> : tensor<1x1x2xi64>
  %padding = stablehlo.constant dense<0> : tensor<1x2xi64>
  %result = "stablehlo.dynamic_conv"(%lhs, %rhs, %padding) {
    dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>,
    batch_group_count = 1 : i64,
    feature_group_count = 2 : i64
  } : (tensor<1x2x2xi64>, tensor<1x1x2xi64>, tensor<1x2xi64>) -> tensor<1x2x2xi64>
  check.expect_eq_const %result, dense<[[[10, 200], [30, 400]]]> : tensor<1x2x2xi64>
  func.return
}

// -----

func.func @dynamic_conv_padding_from_dimension_sizes() {
  %lhs = stablehlo.constant dense<[[[1.0], [2.0], [3.0], [4.0]]]> : tensor<1x4x1xf32>
  %rhs = stablehlo.constant dense<[[[1.0]], [[0.5]], [[0.25]]]> : tensor<3x1x1xf32>
  %k = stablehlo.get_dimension_size %rhs, dim = 0 : (tensor<3x1x1xf32>) -> tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %half = stablehlo.subtract %k, %one : tensor<i32>
  %lo = stablehlo.divide %half, %k : tensor<i32>
  %hi = stablehlo.reshape %half : (tensor<i32>) -> tensor<1x1xi32>
  %lo2 = stablehlo.reshape %lo : (tensor<i32>) -> tensor<1x1xi32>
  %padding = stablehlo.concatenate %lo2, %hi, dim = 1 : (tensor<1x1xi32>, tensor<1x1xi32>) -> tensor<1x2xi32>
  %result = "stablehlo.dynamic_conv"(%lhs, %rhs, %padding) {
    dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>,
    batch_group_count = 1 : i64,
    feature_group_count = 1 : i64
  } : (tensor<1x4x1xf32>, tensor<3x1x1xf32>, tensor<1x2xi32>) -> tensor<1x?x1xf32>
  %expected = stablehlo.constant dense<[[[2.75], [4.5], [5.0], [4.0]]]> : tensor<1x4x1xf32>
  %r = stablehlo.reshape %result : (tensor<1x?x1xf32>) -> tensor<1x4x1xf32>
  check.expect_almost_eq %r, %expected : tensor<1x4x1xf32>
  func.return
}

// -----

func.func @dynamic_gather_batching_dims() {
  %operand = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %start_indices = stablehlo.constant dense<[[2], [0]]> : tensor<2x1xi64>
  %slice_sizes = stablehlo.constant dense<[1, 1]> : tensor<2xi32>
  %result = "stablehlo.dynamic_gather"(%operand, %start_indices, %slice_sizes) {
    dimension_numbers = #stablehlo.gather<
      collapsed_slice_dims = [1],
      operand_batching_dims = [0],
      start_indices_batching_dims = [0],
      start_index_map = [1],
      index_vector_dim = 1>
  } : (tensor<2x3xi64>, tensor<2x1xi64>, tensor<2xi32>) -> tensor<2xi64>
  check.expect_eq_const %result, dense<[3, 4]> : tensor<2xi64>
  func.return
}

// -----

func.func @dynamic_broadcast_in_dim_scalar() {
  %operand = stablehlo.constant dense<7> : tensor<i64>
  %shape = stablehlo.constant dense<[2, 3]> : tensor<2xi32>
  %result = stablehlo.dynamic_broadcast_in_dim %operand, %shape, dims = [] : (tensor<i64>, tensor<2xi32>) -> tensor<2x3xi64>
  check.expect_eq_const %result, dense<7> : tensor<2x3xi64>
  func.return
}

// -----

func.func @dynamic_reshape_to_scalar_and_back() {
  %operand = stablehlo.constant dense<[[5]]> : tensor<1x1xi64>
  %empty = stablehlo.constant dense<> : tensor<0xi64>
  %scalar = stablehlo.dynamic_reshape %operand, %empty : (tensor<1x1xi64>, tensor<0xi64>) -> tensor<i64>
  check.expect_eq_const %scalar, dense<5> : tensor<i64>
  %shape = stablehlo.constant dense<[1, 1, 1]> : tensor<3xi64>
  %back = stablehlo.dynamic_reshape %scalar, %shape : (tensor<i64>, tensor<3xi64>) -> tensor<?x1x?xi64>
  %r = stablehlo.reshape %back : (tensor<?x1x?xi64>) -> tensor<1xi64>
  check.expect_eq_const %r, dense<[5]> : tensor<1xi64>
  func.return
}

// -----

func.func @dynamic_pad_empty_operand() {
  %operand = stablehlo.constant dense<> : tensor<0xi64>
  %padding_value = stablehlo.constant dense<9> : tensor<i64>
  %low = stablehlo.constant dense<[2]> : tensor<1xi64>
  %high = stablehlo.constant dense<[1]> : tensor<1xi64>
  %interior = stablehlo.constant dense<[4]> : tensor<1xi64>
  %result = stablehlo.dynamic_pad %operand, %padding_value, %low, %high, %interior
    : (tensor<0xi64>, tensor<i64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  check.expect_eq_const %result, dense<9> : tensor<3xi64>
  func.return
}

// -----

func.func @real_dynamic_slice_empty() {
  %operand = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %start = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %limit = stablehlo.constant dense<[2, 2]> : tensor<2xi64>
  %strides = stablehlo.constant dense<[1, 1]> : tensor<2xi64>
  %result = stablehlo.real_dynamic_slice %operand, %start, %limit, %strides : (tensor<2x3xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x0xi64>
  check.expect_eq_const %result, dense<> : tensor<1x0xi64>
  func.return
}

// -----

func.func @dynamic_iota_float_from_dimension_size() {
  %like = stablehlo.constant dense<0.0> : tensor<2x4xf32>
  %d1 = stablehlo.get_dimension_size %like, dim = 1 : (tensor<2x4xf32>) -> tensor<i32>
  %two = stablehlo.constant dense<2> : tensor<i32>
  %n = stablehlo.multiply %d1, %two : tensor<i32>
  %shape = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %iota = stablehlo.dynamic_iota %shape, dim = 0 : (tensor<1xi32>) -> tensor<?xf32>
  %half = stablehlo.constant dense<0.5> : tensor<8xf32>
  %r0 = stablehlo.reshape %iota : (tensor<?xf32>) -> tensor<8xf32>
  %r = stablehlo.multiply %r0, %half : tensor<8xf32>
  check.expect_almost_eq_const %r, dense<[0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5]> : tensor<8xf32>
  func.return
}

// -----

func.func @dynamic_slice_and_update_clamp() {
  %operand = stablehlo.constant dense<[0, 1, 2, 3, 4]> : tensor<5xi64>
  %start = stablehlo.constant dense<4> : tensor<i64>
  %slice = stablehlo.dynamic_slice %operand, %start, sizes = [3] : (tensor<5xi64>, tensor<i64>) -> tensor<3xi64>
  check.expect_eq_const %slice, dense<[2, 3, 4]> : tensor<3xi64>
  %update = stablehlo.constant dense<[7, 8]> : tensor<2xi64>
  %neg = stablehlo.constant dense<-3> : tensor<i64>
  %updated = stablehlo.dynamic_update_slice %operand, %update, %neg : (tensor<5xi64>, tensor<2xi64>, tensor<i64>) -> tensor<5xi64>
  check.expect_eq_const %updated, dense<[7, 8, 2, 3, 4]> : tensor<5xi64>
  func.return
}
