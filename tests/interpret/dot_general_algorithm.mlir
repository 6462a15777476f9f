// dot_general's algorithm on integer operands: integer products and sums are
// exact, so a known algorithm leaves the result as the plain product
// (StableHLO's interpreter ignores the attribute).

func.func @dot_general_i64_with_tf32_algorithm() {
  %lhs = stablehlo.constant dense<[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]> : tensor<2x2x2xi64>
  %rhs = stablehlo.constant dense<[[[1, 0], [0, 1]], [[2, 1], [0, 3]]]> : tensor<2x2x2xi64>
  %result = stablehlo.dot_general %lhs, %rhs, batching_dims = [0] x [0], contracting_dims = [2] x [1],
    algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32,
                 lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1,
                 allow_imprecise_accumulation = false> : (tensor<2x2x2xi64>, tensor<2x2x2xi64>) -> tensor<2x2x2xi64>
  check.expect_eq_const %result, dense<[[[1, 2], [3, 4]], [[10, 23], [14, 31]]]> : tensor<2x2x2xi64>
  func.return
}

// -----

func.func @dot_general_i32_beyond_f32_precision_with_bf16_algorithm() {
  %lhs = stablehlo.constant dense<[[16777217, 3]]> : tensor<1x2xi32>
  %rhs = stablehlo.constant dense<[[1], [1]]> : tensor<2x1xi32>
  %result = stablehlo.dot_general %lhs, %rhs, contracting_dims = [1] x [0],
    algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32,
                 lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1,
                 allow_imprecise_accumulation = false> : (tensor<1x2xi32>, tensor<2x1xi32>) -> tensor<1x1xi32>
  check.expect_eq_const %result, dense<[[16777220]]> : tensor<1x1xi32>
  func.return
}
