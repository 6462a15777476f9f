// Every check form shloc compile lowers to the check runtime, all passing;
// tests/cli/compile_exe.sh also breaks one of them and calls @scale from C.
// Expected values are written by hand.
module @checks {
  func.func public @main() -> tensor<3xf32> {
    %x = stablehlo.constant dense<[0.5, 1.0, -1.25]> : tensor<3xf32>
    %two = stablehlo.constant dense<2.0> : tensor<3xf32>
    %y = stablehlo.multiply %x, %two : tensor<3xf32>
    %z = stablehlo.add %y, %x : tensor<3xf32>
    %want_z = stablehlo.constant dense<[1.5, 3.0, -3.75]> : tensor<3xf32>
    stablehlo.custom_call @check.expect_close(%z, %want_z) {has_side_effect = true} : (tensor<3xf32>, tensor<3xf32>) -> ()
    stablehlo.custom_call @check.expect_almost_eq(%z, %want_z) {has_side_effect = true} : (tensor<3xf32>, tensor<3xf32>) -> ()
    %i = stablehlo.constant dense<[7, -3]> : tensor<2xi32>
    %j = stablehlo.add %i, %i : tensor<2xi32>
    %want_j = stablehlo.constant dense<[14, -6]> : tensor<2xi32>
    stablehlo.custom_call @check.expect_eq(%j, %want_j) {has_side_effect = true} : (tensor<2xi32>, tensor<2xi32>) -> ()
    %c = stablehlo.compare GT, %j, %i : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %want_c = stablehlo.constant dense<[true, false]> : tensor<2xi1>
    check.expect_eq %c, %want_c : tensor<2xi1>
    %d = stablehlo.constant dense<[[1.0, 2.5, -3.0]]> : tensor<1x3xf64>
    %d2 = stablehlo.add %d, %d : tensor<1x3xf64>
    %want_d2 = stablehlo.constant dense<[[2.0, 5.0, -6.0]]> : tensor<1x3xf64>
    check.expect_close %d2, %want_d2, max_ulp_difference = 0 : tensor<1x3xf64>, tensor<1x3xf64>
    check.expect_almost_eq %d2, %want_d2, tolerance = 1.0e-9 : tensor<1x3xf64>
    %e = stablehlo.constant dense<[1.0, 2.5, -3.0]> : tensor<3xf32>
    check.expect_eq_const %e, dense<[1.0, 2.5, -3.0]> : tensor<3xf32>
    check.expect_almost_eq_const %z, dense<[1.5001, 3.0, -3.7499]> : tensor<3xf32>, tolerance = 0.001
    %cx = stablehlo.constant dense<[(1.0, 2.0), (-0.5, 0.25)]> : tensor<2xcomplex<f32>>
    %cx2 = stablehlo.add %cx, %cx : tensor<2xcomplex<f32>>
    %want_cx2 = stablehlo.constant dense<[(2.0, 4.0), (-1.0, 0.5)]> : tensor<2xcomplex<f32>>
    stablehlo.custom_call @check.expect_close(%cx2, %want_cx2) {has_side_effect = true} : (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>) -> ()
    // f64 -> bf16 rounds once: 1 + 2^-8 + 2^-30 is above the tie between 1.0 and
    // 1.0078125 (through f32 to nearest it would become the tie and round to 1.0).
    %w = stablehlo.constant dense<[1.003906250931322574615478515625, 1.00390625, -1.003906250931322574615478515625, 1.0e300]> : tensor<4xf64>
    %wb = stablehlo.convert %w : (tensor<4xf64>) -> tensor<4xbf16>
    check.expect_eq_const %wb, dense<[1.0078125, 1.0, -1.0078125, 0x7F80]> : tensor<4xbf16>
    return %z : tensor<3xf32>
  }
  func.func public @scale(%x: tensor<4xf32>) -> tensor<4xf32> {
    %three = stablehlo.constant dense<3.0> : tensor<4xf32>
    %one = stablehlo.constant dense<1.0> : tensor<4xf32>
    %y = stablehlo.multiply %x, %three : tensor<4xf32>
    %z = stablehlo.add %y, %one : tensor<4xf32>
    return %z : tensor<4xf32>
  }
}
