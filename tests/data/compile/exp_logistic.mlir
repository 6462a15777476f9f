// f32 exponential and logistic as compiled code computes them (the
// interpreter's vector kernels, inlined: lower_linalg_libm.c), over
// underflow to 0 and to subnormals, tiny and large arguments and overflow.
// Expected values: numpy's exp and 1 / (1 + exp(-x)) in double, rounded to
// f32 (1 ULP allowed for exp, 2 for logistic, as ew_f32.c documents).
// logistic(-100) = 3.78e-44 needs e^x / (1 + e^x) for x < 0: 1 / (1 + e^100)
// overflows f32 and gives 0.
module @exp_logistic {
  func.func public @main() -> tensor<17xf32> {
    %x = stablehlo.constant dense<[-1.100000000e+02, -1.035000000e+02, -1.000000000e+02, -8.800000000e+01, -8.750000000e+01, -2.000000000e+01, -1.000000000e+00, -1.000000047e-03, -0.000000000e+00, 0.000000000e+00, 1.000000047e-03, 5.000000000e-01, 1.000000000e+00, 1.000000000e+01, 8.800000000e+01, 8.869999695e+01, 8.900000000e+01]> : tensor<17xf32>
    %e = stablehlo.exponential %x : tensor<17xf32>
    %want_e = stablehlo.constant dense<[0.000000000e+00, 1.401298464e-45, 3.783505854e-44, 6.054601485e-39, 9.982351398e-39, 2.061153692e-09, 3.678794503e-01, 9.990004897e-01, 1.000000000e+00, 1.000000000e+00, 1.001000524e+00, 1.648721218e+00, 2.718281746e+00, 2.202646484e+04, 1.651636266e+38, 3.325976864e+38, 0x7F800000]> : tensor<17xf32>
    check.expect_close %e, %want_e, max_ulp_difference = 1 : tensor<17xf32>, tensor<17xf32>
    %l = stablehlo.logistic %x : tensor<17xf32>
    %want_l = stablehlo.constant dense<[0.000000000e+00, 1.401298464e-45, 3.783505854e-44, 6.054601485e-39, 9.982351398e-39, 2.061153692e-09, 2.689414322e-01, 4.997499883e-01, 5.000000000e-01, 5.000000000e-01, 5.002499819e-01, 6.224593520e-01, 7.310585976e-01, 9.999545813e-01, 1.000000000e+00, 1.000000000e+00, 1.000000000e+00]> : tensor<17xf32>
    check.expect_close %l, %want_l, max_ulp_difference = 2 : tensor<17xf32>, tensor<17xf32>
    // NaN stays NaN, -inf gives 0, +inf overflows (logistic: 1).
    %s = stablehlo.constant dense<[0x7FC00000, 0xFF800000, 0x7F800000]> : tensor<3xf32>
    %se = stablehlo.exponential %s : tensor<3xf32>
    check.expect_eq_const %se, dense<[0x7FC00000, 0.0, 0x7F800000]> : tensor<3xf32>
    %sl = stablehlo.logistic %s : tensor<3xf32>
    check.expect_eq_const %sl, dense<[0x7FC00000, 0.0, 1.0]> : tensor<3xf32>
    return %e : tensor<17xf32>
  }
}
