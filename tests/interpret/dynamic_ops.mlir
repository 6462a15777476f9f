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
