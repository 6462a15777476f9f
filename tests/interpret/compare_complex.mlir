// compare on complex operands: the spec orders (real, imag) pairs
// lexicographically, each part compared as FLOAT (a NaN part compares
// unordered); expected values worked out by hand.
// lhs: (+NaN, +0), (+0, +NaN), (-0, +0), (2, 2), (1, 5), (1, -1)
// rhs: (+NaN, -0), (-0, +NaN), (+0, +0), (2, 1), (2, 0), (1, -1)

func.func @compare_complex_ge() {
  %lhs = stablehlo.constant dense<[(0x7FF0000000000001, 0.0), (0.0, 0x7FF0000000000001), (-0.0, 0.0), (2.0, 2.0), (1.0, 5.0), (1.0, -1.0)]> : tensor<6xcomplex<f64>>
  %rhs = stablehlo.constant dense<[(0x7FF0000000000001, -0.0), (-0.0, 0x7FF0000000000001), (0.0, 0.0), (2.0, 1.0), (2.0, 0.0), (1.0, -1.0)]> : tensor<6xcomplex<f64>>
  %result = stablehlo.compare GE, %lhs, %rhs, FLOAT : (tensor<6xcomplex<f64>>, tensor<6xcomplex<f64>>) -> tensor<6xi1>
  check.expect_eq_const %result, dense<[false, false, true, true, false, true]> : tensor<6xi1>
  func.return
}

// -----

func.func @compare_complex_gt() {
  %lhs = stablehlo.constant dense<[(0x7FF0000000000001, 0.0), (0.0, 0x7FF0000000000001), (-0.0, 0.0), (2.0, 2.0), (1.0, 5.0), (1.0, -1.0)]> : tensor<6xcomplex<f64>>
  %rhs = stablehlo.constant dense<[(0x7FF0000000000001, -0.0), (-0.0, 0x7FF0000000000001), (0.0, 0.0), (2.0, 1.0), (2.0, 0.0), (1.0, -1.0)]> : tensor<6xcomplex<f64>>
  %result = stablehlo.compare GT, %lhs, %rhs, FLOAT : (tensor<6xcomplex<f64>>, tensor<6xcomplex<f64>>) -> tensor<6xi1>
  check.expect_eq_const %result, dense<[false, false, false, true, false, false]> : tensor<6xi1>
  func.return
}

// -----

func.func @compare_complex_le_f32() {
  %lhs = stablehlo.constant dense<[(0x7FC00000, 0.0), (0.0, 0x7FC00000), (-0.0, 0.0), (2.0, 2.0), (1.0, 5.0), (1.0, -1.0)]> : tensor<6xcomplex<f32>>
  %rhs = stablehlo.constant dense<[(0x7FC00000, -0.0), (-0.0, 0x7FC00000), (0.0, 0.0), (2.0, 1.0), (2.0, 0.0), (1.0, -1.0)]> : tensor<6xcomplex<f32>>
  %result = stablehlo.compare LE, %lhs, %rhs, FLOAT : (tensor<6xcomplex<f32>>, tensor<6xcomplex<f32>>) -> tensor<6xi1>
  check.expect_eq_const %result, dense<[false, false, true, false, true, true]> : tensor<6xi1>
  func.return
}

// -----

func.func @compare_complex_lt_f32() {
  %lhs = stablehlo.constant dense<[(0x7FC00000, 0.0), (0.0, 0x7FC00000), (-0.0, 0.0), (2.0, 2.0), (1.0, 5.0), (1.0, -1.0)]> : tensor<6xcomplex<f32>>
  %rhs = stablehlo.constant dense<[(0x7FC00000, -0.0), (-0.0, 0x7FC00000), (0.0, 0.0), (2.0, 1.0), (2.0, 0.0), (1.0, -1.0)]> : tensor<6xcomplex<f32>>
  %result = stablehlo.compare LT, %lhs, %rhs, FLOAT : (tensor<6xcomplex<f32>>, tensor<6xcomplex<f32>>) -> tensor<6xi1>
  check.expect_eq_const %result, dense<[false, false, false, false, true, false]> : tensor<6xi1>
  func.return
}
