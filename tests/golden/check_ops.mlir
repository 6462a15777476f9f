// Pretty forms of the check dialect and interpreter ops (pretty_test.c).
// Default-valued attributes (tolerance = 1e-4, min_ulp_difference = 0,
// iteration = 0) are not printed.
func.func @checks(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>, %arg2: tensor<2xi32>) {
  check.expect_eq %arg2, %arg2 : tensor<2xi32>
  check.expect_almost_eq %arg0, %arg1 : tensor<2xf32>
  check.expect_almost_eq %arg0, %arg1, tolerance = 0.001 : tensor<2xf32>
  check.expect_almost_eq %arg0, %arg1, tolerance = 1.0e-4 : f64 : tensor<2xf32>
  check.expect_close %arg0, %arg1, max_ulp_difference = 3 : tensor<2xf32>, tensor<2xf32>
  check.expect_close %arg0, %arg1, max_ulp_difference = 3, min_ulp_difference = 0 : tensor<2xf32>, tensor<2xf32>
  check.expect_close %arg0, %arg1, max_ulp_difference = 18446744073709551615, min_ulp_difference = 2 : tensor<2xf32>, tensor<2xf32>
  check.expect_eq_const %arg2, dense<[1, 2]> : tensor<2xi32>
  check.expect_almost_eq_const %arg0, dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_almost_eq_const %arg0, dense<[1.0, 2.0]> : tensor<2xf32>, tolerance = 0.1
  check.expect_almost_eq_const %arg0, dense<[1.0, 2.0]> : tensor<2xf32> {tolerance = 0.2 : f64}
  %0 = interpreter.probe %arg0, probe_id = "probe0" : tensor<2xf32>
  check.expect_serialized_eq %0, probe_id = "probe0" : tensor<2xf32>
  check.expect_serialized_eq %0, probe_id = "probe0", iter = 0 : tensor<2xf32>
  check.expect_serialized_eq %0, probe_id = "probe0", iter = 1 : tensor<2xf32>
  interpreter.print %0 : tensor<2xf32>
  func.return
}
