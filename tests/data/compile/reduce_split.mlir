// Float reductions over trailing dimensions (lane partials, then a fold into
// the init value: lower_linalg_split.c; sibling reductions of one operand in
// one pass) and large ops split across OpenMP threads (the compile
// schedule); tests/cli/compile_exe.sh compiles and runs
// it.  Expected values are exact by construction (small integers and halves,
// or integers below 2^53 in f64), written by hand or from closed forms.
module @reduce_split {
  func.func public @main() -> tensor<512xf64> {
    // f32 rows of 32: 0..31; all -0; halves -8..7.5 with a NaN (sum, max and
    // min are siblings: one generic with three results).
    %x = stablehlo.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0], [-0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0], [-8.0, -7.5, -7.0, -6.5, -6.0, 0x7FC00000, -5.0, -4.5, -4.0, -3.5, -3.0, -2.5, -2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 6.5, 7.0, 7.5]]> : tensor<3x32xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %pinf = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %sum = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<3x32xf32>, tensor<f32>) -> tensor<3xf32>
    check.expect_eq_const %sum, dense<[496.0, 0.0, 0x7FC00000]> : tensor<3xf32>
    %max = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<3x32xf32>, tensor<f32>) -> tensor<3xf32>
    check.expect_eq_const %max, dense<[31.0, -0.0, 0x7FC00000]> : tensor<3xf32>
    %min = stablehlo.reduce(%x init: %pinf) applies stablehlo.minimum across dimensions = [1] : (tensor<3x32xf32>, tensor<f32>) -> tensor<3xf32>
    check.expect_eq_const %min, dense<[0.0, -0.0, 0x7FC00000]> : tensor<3xf32>
    %one = stablehlo.constant dense<1.0> : tensor<f32>
    %twos = stablehlo.constant dense<2.0> : tensor<2x32xf32>
    %prod = stablehlo.reduce(%twos init: %one) applies stablehlo.multiply across dimensions = [1] : (tensor<2x32xf32>, tensor<f32>) -> tensor<2xf32>
    check.expect_eq_const %prod, dense<4294967296.0> : tensor<2xf32>
    // Two trailing dimensions listed out of order: 4 x (0 + ... + 7) = 112, plus the init 1.
    %i3 = stablehlo.iota dim = 2 : tensor<2x4x8xf32>
    %s3 = stablehlo.reduce(%i3 init: %one) applies stablehlo.add across dimensions = [2, 1] : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2xf32>
    check.expect_eq_const %s3, dense<113.0> : tensor<2xf32>
    // Everything reduced (rank-0 result), f64 lanes: 0 + ... + 63 = 2016.
    %zd = stablehlo.constant dense<0.0> : tensor<f64>
    %i1 = stablehlo.iota dim = 0 : tensor<64xf64>
    %s1 = stablehlo.reduce(%i1 init: %zd) applies stablehlo.add across dimensions = [0] : (tensor<64xf64>, tensor<f64>) -> tensor<f64>
    check.expect_eq_const %s1, dense<2016.0> : tensor<f64>
    // Two kept dimensions: 0 + ... + 15 = 120.
    %i2 = stablehlo.iota dim = 2 : tensor<2x3x16xf64>
    %s2 = stablehlo.reduce(%i2 init: %zd) applies stablehlo.add across dimensions = [2] : (tensor<2x3x16xf64>, tensor<f64>) -> tensor<2x3xf64>
    check.expect_eq_const %s2, dense<120.0> : tensor<2x3xf64>
    // Large enough for threads: y = 2 (512 r + c) + 1 over 512 x 512 (from a
    // call, which elementwise fusion leaves alone, so the sum and the maximum
    // are siblings: one pass, one generic with two results); row r sums to
    // 524288 r + 262144, its maximum is 1024 r + 1023.
    %y = func.call @rows() : () -> tensor<512x512xf64>
    %ysum = stablehlo.reduce(%y init: %zd) applies stablehlo.add across dimensions = [1] : (tensor<512x512xf64>, tensor<f64>) -> tensor<512xf64>
    %ninfd = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %ymax = stablehlo.reduce(%y init: %ninfd) applies stablehlo.maximum across dimensions = [1] : (tensor<512x512xf64>, tensor<f64>) -> tensor<512xf64>
    %rr = stablehlo.iota dim = 0 : tensor<512xf64>
    %a = stablehlo.constant dense<524288.0> : tensor<512xf64>
    %b = stablehlo.constant dense<262144.0> : tensor<512xf64>
    %ra = stablehlo.multiply %rr, %a : tensor<512xf64>
    %want_sum = stablehlo.add %ra, %b : tensor<512xf64>
    check.expect_eq %ysum, %want_sum : tensor<512xf64>
    %a2 = stablehlo.constant dense<1024.0> : tensor<512xf64>
    %b2 = stablehlo.constant dense<1023.0> : tensor<512xf64>
    %ra2 = stablehlo.multiply %rr, %a2 : tensor<512xf64>
    %want_max = stablehlo.add %ra2, %b2 : tensor<512xf64>
    check.expect_eq %ymax, %want_max : tensor<512xf64>
    return %ysum : tensor<512xf64>
  }
  func.func private @rows() -> tensor<512x512xf64> {
    %r = stablehlo.iota dim = 0 : tensor<512x512xf64>
    %c = stablehlo.iota dim = 1 : tensor<512x512xf64>
    %k512 = stablehlo.constant dense<512.0> : tensor<512x512xf64>
    %k2 = stablehlo.constant dense<2.0> : tensor<512x512xf64>
    %k1 = stablehlo.constant dense<1.0> : tensor<512x512xf64>
    %rc = stablehlo.multiply %r, %k512 : tensor<512x512xf64>
    %x2 = stablehlo.add %rc, %c : tensor<512x512xf64>
    %x3 = stablehlo.multiply %x2, %k2 : tensor<512x512xf64>
    %y = stablehlo.add %x3, %k1 : tensor<512x512xf64>
    return %y : tensor<512x512xf64>
  }
}
