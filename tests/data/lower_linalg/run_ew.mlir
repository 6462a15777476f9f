// Integer division/remainder by zero and INT_MIN / -1, shifts out of range,
// NaN-propagating maximum, saturating float -> int convert, select, sign.
func.func @main() -> tensor<8xf32> {
  %i = stablehlo.constant dense<[7, -7, 5, -2147483648, 9, 1, -8, 100]> : tensor<8xi32>
  %j = stablehlo.constant dense<[2, 2, 0, -1, -3, 33, 1, -1]> : tensor<8xi32>
  %q = stablehlo.divide %i, %j : tensor<8xi32>
  %r = stablehlo.remainder %i, %j : tensor<8xi32>
  %sl = stablehlo.shift_left %i, %j : tensor<8xi32>
  %sr = stablehlo.shift_right_arithmetic %i, %j : tensor<8xi32>
  %t0 = stablehlo.add %q, %r : tensor<8xi32>
  %t1 = stablehlo.xor %sl, %sr : tensor<8xi32>
  %t2 = stablehlo.convert %t0 : (tensor<8xi32>) -> tensor<8xf32>
  %t3 = stablehlo.convert %t1 : (tensor<8xi32>) -> tensor<8xf32>
  %a = stablehlo.constant dense<[1.0, 0x7FC00000, -0.0, 3.0e10, -3.0e10, 2.5, -2.5, 0.0]> : tensor<8xf32>
  %b = stablehlo.constant dense<[2.0, 1.0, 0.0, 1.0, 1.0, -1.0, 0x7FC00000, -1.0]> : tensor<8xf32>
  %m = stablehlo.maximum %a, %b : tensor<8xf32>
  %ci = stablehlo.convert %a : (tensor<8xf32>) -> tensor<8xi32>
  %cf = stablehlo.convert %ci : (tensor<8xi32>) -> tensor<8xf32>
  %p = stablehlo.compare GT, %t2, %t3, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  %s = stablehlo.select %p, %t2, %t3 : tensor<8xi1>, tensor<8xf32>
  %sg = stablehlo.sign %s : tensor<8xf32>
  %u = stablehlo.add %m, %cf : tensor<8xf32>
  %v = stablehlo.multiply %u, %sg : tensor<8xf32>
  %w = stablehlo.add %v, %t2 : tensor<8xf32>
  return %w : tensor<8xf32>
}
