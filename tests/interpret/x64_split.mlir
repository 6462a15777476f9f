// XLA's X64SplitLow / X64SplitHigh / X64Combine custom calls (how XLA's
// pipeline carries x64 values as two 32-bit halves; Shardy's round-trip
// export passes them through xla.sdy.GlobalToLocalShape as tuples).
// Integers: the low and high 32 bits (hand-computed); f64: XLA's ef57
// split, high = the value rounded to f32, low = the rest rounded to f32
// (values from xla/ef57_test.cc's cases: 2 - 2^-52 gives 2 and -2^-52; an
// f64 above the f32 range gives inf and 0).

func.func @main() {
  %x = stablehlo.constant dense<[8589934597, -1, -1099511627769, 0]> : tensor<4xi64>
  %lo = stablehlo.custom_call @X64SplitLow(%x) : (tensor<4xi64>) -> tensor<4xui32>
  %hi = stablehlo.custom_call @X64SplitHigh(%x) : (tensor<4xi64>) -> tensor<4xui32>
  check.expect_eq_const %lo, dense<[5, 4294967295, 7, 0]> : tensor<4xui32>
  check.expect_eq_const %hi, dense<[2, 4294967295, 4294967040, 0]> : tensor<4xui32>
  %back = stablehlo.custom_call @X64Combine(%lo, %hi) : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xi64>
  check.expect_eq %back, %x : tensor<4xi64>
  %u = stablehlo.constant dense<[9223372036854775809, 4294967296]> : tensor<2xui64>
  %ulo = stablehlo.custom_call @X64SplitLow(%u) : (tensor<2xui64>) -> tensor<2xi32>
  %uhi = stablehlo.custom_call @X64SplitHigh(%u) : (tensor<2xui64>) -> tensor<2xi32>
  check.expect_eq_const %ulo, dense<[1, 0]> : tensor<2xi32>
  check.expect_eq_const %uhi, dense<[-2147483648, 1]> : tensor<2xi32>
  %f = stablehlo.constant dense<[1.99999999999999977795539507496869191527366638183593750, 1.0e300, -3.5, 1.00000000093132257461547851562500]> : tensor<4xf64>
  %fhi = stablehlo.custom_call @X64SplitHigh(%f) : (tensor<4xf64>) -> tensor<4xf32>
  %flo = stablehlo.custom_call @X64SplitLow(%f) : (tensor<4xf64>) -> tensor<4xf32>
  check.expect_eq_const %fhi, dense<[2.0, 0x7F800000, -3.5, 1.0]> : tensor<4xf32>
  check.expect_eq_const %flo, dense<[-2.2204460492503131e-16, 0.0, 0.0, 9.3132257461547852e-10]> : tensor<4xf32>
  %fb = stablehlo.custom_call @X64Combine(%flo, %fhi) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf64>
  check.expect_eq_const %fb, dense<[1.99999999999999977795539507496869191527366638183593750, 0x7FF0000000000000, -3.5, 1.00000000093132257461547851562500]> : tensor<4xf64>
  func.return
}

