// Edge values fixed against the spec: tanh of NaN is NaN in every float type,
// and convert from complex to i1 ignores the imaginary part.

func.func @tanh_nan_bf16_f16() {
  %b = stablehlo.constant dense<[0x7FC0, 0x7F80, 0xFF80]> : tensor<3xbf16>
  %tb = stablehlo.tanh %b : tensor<3xbf16>
  check.expect_almost_eq_const %tb, dense<[0x7FC0, 1.0, -1.0]> : tensor<3xbf16>
  %h = stablehlo.constant dense<[0x7E00, 0x7C00, 0xFC00]> : tensor<3xf16>
  %th = stablehlo.tanh %h : tensor<3xf16>
  check.expect_almost_eq_const %th, dense<[0x7E00, 1.0, -1.0]> : tensor<3xf16>
  func.return
}

// -----

func.func @convert_complex_to_i1() {
  %c = stablehlo.constant dense<[(0.0, 1.0), (2.0, 0.0), (0.0, 0.0), (-0.5, -3.0)]> : tensor<4xcomplex<f32>>
  %r = stablehlo.convert %c : (tensor<4xcomplex<f32>>) -> tensor<4xi1>
  check.expect_eq_const %r, dense<[false, true, false, true]> : tensor<4xi1>
  func.return
}
