// bitcast_convert to and from types narrower than a byte: the narrow side's
// last dimension holds the wide element's bit fields, least significant first.

func.func @i1_to_i16() {
  %b = stablehlo.constant dense<[true, false, true, false, false, false, false, false,
                                 true, true, true, true, false, false, false, false]> : tensor<16xi1>
  %r = stablehlo.bitcast_convert %b : (tensor<16xi1>) -> tensor<i16>
  check.expect_eq_const %r, dense<3845> : tensor<i16>
  func.return
}

// -----

func.func @i16_to_i1() {
  %x = stablehlo.constant dense<[3845, -1]> : tensor<2xi16>
  %r = stablehlo.bitcast_convert %x : (tensor<2xi16>) -> tensor<2x16xi1>
  check.expect_eq_const %r, dense<[[true, false, true, false, false, false, false, false,
                                    true, true, true, true, false, false, false, false],
                                   [true, true, true, true, true, true, true, true,
                                    true, true, true, true, true, true, true, true]]> : tensor<2x16xi1>
  func.return
}

// -----

func.func @i8_to_i4_and_back() {
  %x = stablehlo.constant dense<[58, -1]> : tensor<2xi8>
  %n = stablehlo.bitcast_convert %x : (tensor<2xi8>) -> tensor<2x2xi4>
  check.expect_eq_const %n, dense<[[-6, 3], [-1, -1]]> : tensor<2x2xi4>
  %u = stablehlo.bitcast_convert %x : (tensor<2xi8>) -> tensor<2x2xui4>
  check.expect_eq_const %u, dense<[[10, 3], [15, 15]]> : tensor<2x2xui4>
  %b = stablehlo.bitcast_convert %n : (tensor<2x2xi4>) -> tensor<2xi8>
  check.expect_eq_const %b, dense<[58, -1]> : tensor<2xi8>
  func.return
}
