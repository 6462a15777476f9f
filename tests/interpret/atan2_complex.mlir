// Complex atan2(y, x) = -i log((x + i y) / sqrt(x^2 + y^2)) (the spec's
// complex atan2); expected values from that formula in double precision.

func.func @atan2_c128() {
  %y = stablehlo.constant dense<[(1.0, 1.0), (0.5, -2.0), (3.0, 0.0)]> : tensor<3xcomplex<f64>>
  %x = stablehlo.constant dense<[(2.0, 0.0), (-1.0, 0.5), (4.0, 0.0)]> : tensor<3xcomplex<f64>>
  %r = stablehlo.atan2 %y, %x : tensor<3xcomplex<f64>>
  check.expect_almost_eq_const %r, dense<[(0.5535743588970453, 0.4023594781085253),
                                          (1.9634954084936207, 0.37601934919406843),
                                          (0.6435011087932844, 0.0)]> : tensor<3xcomplex<f64>>
  func.return
}

// -----

func.func @atan2_c64() {
  %y = stablehlo.constant dense<[(1.0, 1.0)]> : tensor<1xcomplex<f32>>
  %x = stablehlo.constant dense<[(2.0, 0.0)]> : tensor<1xcomplex<f32>>
  %r = stablehlo.atan2 %y, %x : tensor<1xcomplex<f32>>
  check.expect_almost_eq_const %r, dense<[(0.553574383, 0.402359486)]> : tensor<1xcomplex<f32>>
  func.return
}
