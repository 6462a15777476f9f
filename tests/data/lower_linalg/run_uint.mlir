// Unsigned integers (signless storage + unsigned arith ops): x / 0 = all
// ones, x % 0 = x, max/min/compare/clamp/sign as unsigned, arithmetic right shift
// of a set top bit, saturating float -> ui8 (NaN and negatives give 0),
// ui8 -> float, sign-extending i8 -> ui32, zero-extending ui8 -> i32; and
// compare TOTALORDER on floats (-NaN < -inf < -0 < +0 < +inf < +NaN).
func.func @main() -> tensor<78xf64> {
  %a = stablehlo.constant dense<[7, 4000000000, 5, 3000000000, 9, 1]> : tensor<6xui32>
  %b = stablehlo.constant dense<[2, 3, 0, 4000000000, 0, 33]> : tensor<6xui32>
  %q = stablehlo.divide %a, %b : tensor<6xui32>
  %r = stablehlo.remainder %a, %b : tensor<6xui32>
  %mx = stablehlo.maximum %a, %b : tensor<6xui32>
  %mn = stablehlo.minimum %a, %b : tensor<6xui32>
  %sra = stablehlo.shift_right_arithmetic %a, %b : tensor<6xui32>
  %srl = stablehlo.shift_right_logical %a, %b : tensor<6xui32>
  %gt = stablehlo.compare GT, %a, %b, UNSIGNED : (tensor<6xui32>, tensor<6xui32>) -> tensor<6xi1>
  %gtu = stablehlo.convert %gt : (tensor<6xi1>) -> tensor<6xui32>
  %lo = stablehlo.constant dense<5> : tensor<ui32>
  %hi = stablehlo.constant dense<3500000000> : tensor<ui32>
  %cl = stablehlo.clamp %lo, %a, %hi : (tensor<ui32>, tensor<6xui32>, tensor<ui32>) -> tensor<6xui32>
  %sg = stablehlo.sign %b : tensor<6xui32>
  %ab = stablehlo.not %a : tensor<6xui32>
  %t0 = stablehlo.concatenate %q, %r, %mx, %mn, %sra, %srl, %gtu, %cl, %sg, %ab, dim = 0 : (tensor<6xui32>, tensor<6xui32>, tensor<6xui32>, tensor<6xui32>, tensor<6xui32>, tensor<6xui32>, tensor<6xui32>, tensor<6xui32>, tensor<6xui32>, tensor<6xui32>) -> tensor<60xui32>
  %t1 = stablehlo.slice %t0 [0:60] : (tensor<60xui32>) -> tensor<60xui32>
  %f = stablehlo.convert %t1 : (tensor<60xui32>) -> tensor<60xf64>
  %fl = stablehlo.constant dense<[-3.5, 300.7, 0x7FC00000, 255.9, 0.99, 17.2]> : tensor<6xf32>
  %u8 = stablehlo.convert %fl : (tensor<6xf32>) -> tensor<6xui8>
  %u8f = stablehlo.convert %u8 : (tensor<6xui8>) -> tensor<6xf64>
  %i8 = stablehlo.constant dense<[-1, -128, 127]> : tensor<3xi8>
  %i8u = stablehlo.convert %i8 : (tensor<3xi8>) -> tensor<3xui32>
  %i8f = stablehlo.convert %i8u : (tensor<3xui32>) -> tensor<3xf64>
  %w = stablehlo.constant dense<[200, 255, 0]> : tensor<3xui8>
  %wi = stablehlo.convert %w : (tensor<3xui8>) -> tensor<3xi32>
  %wf = stablehlo.convert %wi : (tensor<3xi32>) -> tensor<3xf64>
  %x = stablehlo.constant dense<[0xFFC00000, 0xFF800000, -0.0, 0.0, 0x7F800000, 0x7FC00000]> : tensor<6xf32>
  %y = stablehlo.constant dense<[0xFF800000, -0.0, 0.0, -0.0, 0x7FC00000, 0x7F800000]> : tensor<6xf32>
  %to = stablehlo.compare LT, %x, %y, TOTALORDER : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
  %tof = stablehlo.convert %to : (tensor<6xi1>) -> tensor<6xf64>
  %c = stablehlo.concatenate %f, %u8f, %i8f, %wf, %tof, dim = 0 : (tensor<60xf64>, tensor<6xf64>, tensor<3xf64>, tensor<3xf64>, tensor<6xf64>) -> tensor<78xf64>
  return %c : tensor<78xf64>
}
