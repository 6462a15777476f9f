// One function per CHLO decomposition case; tests/cli/chlo_legalize.sh
// compares the ops `shloc fmt --legalize-chlo` produces for each with
// upstream_ops.txt.  Same functions (names, ops, types) as the static cases
// of openxla/stablehlo stablehlo/tests/chlo/chlo_legalize_to_stablehlo.mlir.
module {
  func.func @asin_bf16(%arg0: tensor<bf16>) -> tensor<bf16> {
    %0 = chlo.asin %arg0 : tensor<bf16> -> tensor<bf16>
    return %0 : tensor<bf16>
  }
  func.func @asin_f16(%arg0: tensor<f16>) -> tensor<f16> {
    %0 = chlo.asin %arg0 : tensor<f16> -> tensor<f16>
    return %0 : tensor<f16>
  }
  func.func @asin_f32(%arg0: tensor<f32>) -> tensor<f32> {
    %0 = chlo.asin %arg0 : tensor<f32> -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func @asin_f64(%arg0: tensor<f64>) -> tensor<f64> {
    %0 = chlo.asin %arg0 : tensor<f64> -> tensor<f64>
    return %0 : tensor<f64>
  }
  func.func @asin_complex_f32(%arg0: tensor<complex<f32>>) -> tensor<complex<f32>> {
    %0 = chlo.asin %arg0 : tensor<complex<f32>> -> tensor<complex<f32>>
    return %0 : tensor<complex<f32>>
  }
  func.func @asinh_bf16(%arg0: tensor<bf16>) -> tensor<bf16> {
    %0 = chlo.asinh %arg0 : tensor<bf16> -> tensor<bf16>
    return %0 : tensor<bf16>
  }
  func.func @asinh_f16(%arg0: tensor<f16>) -> tensor<f16> {
    %0 = chlo.asinh %arg0 : tensor<f16> -> tensor<f16>
    return %0 : tensor<f16>
  }
  func.func @asinh_f32(%arg0: tensor<f32>) -> tensor<f32> {
    %0 = chlo.asinh %arg0 : tensor<f32> -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func @asinh_f64(%arg0: tensor<f64>) -> tensor<f64> {
    %0 = chlo.asinh %arg0 : tensor<f64> -> tensor<f64>
    return %0 : tensor<f64>
  }
  func.func @asinh_complex_f32(%arg0: tensor<complex<f32>>) -> tensor<complex<f32>> {
    %0 = chlo.asinh %arg0 : tensor<complex<f32>> -> tensor<complex<f32>>
    return %0 : tensor<complex<f32>>
  }
  func.func @constant_like_static_shape(%arg0: tensor<1x2xi64>) -> tensor<1x2xf32> {
    %0 = "chlo.constant_like"(%arg0) <{value = 3.200000e+00 : f32}> : (tensor<1x2xi64>) -> tensor<1x2xf32>
    return %0 : tensor<1x2xf32>
  }
  func.func @conj(%arg0: tensor<3xcomplex<f32>>) -> tensor<3xcomplex<f32>> {
    %0 = chlo.conj %arg0 : tensor<3xcomplex<f32>> -> tensor<3xcomplex<f32>>
    return %0 : tensor<3xcomplex<f32>>
  }
  func.func @conj_real(%arg0: tensor<3xf32>) -> tensor<3xf32> {
    %0 = chlo.conj %arg0 : tensor<3xf32> -> tensor<3xf32>
    return %0 : tensor<3xf32>
  }
  func.func @erf_f64(%arg0: tensor<f64>) -> tensor<f64> {
    %0 = chlo.erf %arg0 : tensor<f64> -> tensor<f64>
    return %0 : tensor<f64>
  }
  func.func @erf_f32(%arg0: tensor<f32>) -> tensor<f32> {
    %0 = chlo.erf %arg0 : tensor<f32> -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func @erf_f16(%arg0: tensor<f16>) -> tensor<f16> {
    %0 = chlo.erf %arg0 : tensor<f16> -> tensor<f16>
    return %0 : tensor<f16>
  }
  func.func @erf_bf16(%arg0: tensor<bf16>) -> tensor<bf16> {
    %0 = chlo.erf %arg0 : tensor<bf16> -> tensor<bf16>
    return %0 : tensor<bf16>
  }
  func.func @acosh(%arg0: tensor<f16>) -> tensor<f16> {
    %0 = chlo.acosh %arg0 : tensor<f16> -> tensor<f16>
    return %0 : tensor<f16>
  }
  func.func @acosh_complex_f32(%arg0: tensor<complex<f32>>) -> tensor<complex<f32>> {
    %0 = chlo.acosh %arg0 : tensor<complex<f32>> -> tensor<complex<f32>>
    return %0 : tensor<complex<f32>>
  }
  func.func @erfc_f64(%arg0: tensor<f64>) -> tensor<f64> {
    %0 = chlo.erfc %arg0 : tensor<f64> -> tensor<f64>
    return %0 : tensor<f64>
  }
  func.func @erfc_f32(%arg0: tensor<f32>) -> tensor<f32> {
    %0 = chlo.erfc %arg0 : tensor<f32> -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func @erfc_f16(%arg0: tensor<f16>) -> tensor<f16> {
    %0 = chlo.erfc %arg0 : tensor<f16> -> tensor<f16>
    return %0 : tensor<f16>
  }
  func.func @erfc_bf16(%arg0: tensor<bf16>) -> tensor<bf16> {
    %0 = chlo.erfc %arg0 : tensor<bf16> -> tensor<bf16>
    return %0 : tensor<bf16>
  }
  func.func @is_inf_f32(%arg0: tensor<f32>) -> tensor<i1> {
    %0 = chlo.is_inf %arg0 : tensor<f32> -> tensor<i1>
    return %0 : tensor<i1>
  }
  func.func @is_pos_inf_f32(%arg0: tensor<f32>) -> tensor<i1> {
    %0 = chlo.is_pos_inf %arg0 : tensor<f32> -> tensor<i1>
    return %0 : tensor<i1>
  }
  func.func @is_neg_inf_f32(%arg0: tensor<f32>) -> tensor<i1> {
    %0 = chlo.is_neg_inf %arg0 : tensor<f32> -> tensor<i1>
    return %0 : tensor<i1>
  }
  func.func @lgamma_f64(%arg0: tensor<f64>) -> tensor<f64> {
    %0 = chlo.lgamma %arg0 : tensor<f64> -> tensor<f64>
    return %0 : tensor<f64>
  }
  func.func @lgamma_f32(%arg0: tensor<f32>) -> tensor<f32> {
    %0 = chlo.lgamma %arg0 : tensor<f32> -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func @lgamma_f16(%arg0: tensor<f16>) -> tensor<f16> {
    %0 = chlo.lgamma %arg0 : tensor<f16> -> tensor<f16>
    return %0 : tensor<f16>
  }
  func.func @digamma_f64(%arg0: tensor<f64>) -> tensor<f64> {
    %0 = chlo.digamma %arg0 : tensor<f64> -> tensor<f64>
    return %0 : tensor<f64>
  }
  func.func @digamma_f32(%arg0: tensor<f32>) -> tensor<f32> {
    %0 = chlo.digamma %arg0 : tensor<f32> -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func @digamma_f16(%arg0: tensor<f16>) -> tensor<f16> {
    %0 = chlo.digamma %arg0 : tensor<f16> -> tensor<f16>
    return %0 : tensor<f16>
  }
  func.func @zeta_f16(%arg0: tensor<f16>, %arg1: tensor<f16>) -> tensor<f16> {
    %0 = chlo.zeta %arg0, %arg1 : tensor<f16>, tensor<f16> -> tensor<f16>
    return %0 : tensor<f16>
  }
  func.func @polygamma_f32(%arg0: tensor<f32>, %arg1: tensor<f32>) -> tensor<f32> {
    %0 = chlo.polygamma %arg0, %arg1 : tensor<f32>, tensor<f32> -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func @polygamma_f64(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
    %0 = chlo.polygamma %arg0, %arg1 : tensor<f64>, tensor<f64> -> tensor<f64>
    return %0 : tensor<f64>
  }
  func.func @polygamma_f16(%arg0: tensor<f16>, %arg1: tensor<f16>) -> tensor<f16> {
    %0 = chlo.polygamma %arg0, %arg1 : tensor<f16>, tensor<f16> -> tensor<f16>
    return %0 : tensor<f16>
  }
  func.func @sinh_f32(%arg0: tensor<f32>) -> tensor<f32> {
    %0 = chlo.sinh %arg0 : tensor<f32> -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func @sinh_f16(%arg0: tensor<f16>) -> tensor<f16> {
    %0 = chlo.sinh %arg0 : tensor<f16> -> tensor<f16>
    return %0 : tensor<f16>
  }
  func.func @sinh_complex(%arg0: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
    %0 = chlo.sinh %arg0 : tensor<2xcomplex<f32>> -> tensor<2xcomplex<f32>>
    return %0 : tensor<2xcomplex<f32>>
  }
  func.func @cosh_f32(%arg0: tensor<f32>) -> tensor<f32> {
    %0 = chlo.cosh %arg0 : tensor<f32> -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func @cosh_f16(%arg0: tensor<f16>) -> tensor<f16> {
    %0 = chlo.cosh %arg0 : tensor<f16> -> tensor<f16>
    return %0 : tensor<f16>
  }
  func.func @cosh_complex_f32(%arg0: tensor<complex<f32>>) -> tensor<complex<f32>> {
    %0 = chlo.cosh %arg0 : tensor<complex<f32>> -> tensor<complex<f32>>
    return %0 : tensor<complex<f32>>
  }
  func.func @atanh_f32(%arg0: tensor<f32>) -> tensor<f32> {
    %0 = chlo.atanh %arg0 : tensor<f32> -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func @atanh_complex_f32(%arg0: tensor<complex<f32>>) -> tensor<complex<f32>> {
    %0 = chlo.atanh %arg0 : tensor<complex<f32>> -> tensor<complex<f32>>
    return %0 : tensor<complex<f32>>
  }
  func.func @next_after_f32(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> tensor<2xf32> {
    %0 = chlo.broadcast_next_after %arg0, %arg1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
  func.func @tan_f32(%arg0: tensor<f32>) -> tensor<f32> {
    %0 = chlo.tan %arg0 : tensor<f32> -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func @tan_complexf32(%arg0: tensor<1xf32>, %arg1: tensor<1xf32>) -> (tensor<1xf32>, tensor<1xf32>) {
    %0 = stablehlo.complex %arg0, %arg1 : tensor<1xcomplex<f32>>
    %1 = chlo.tan %0 : tensor<1xcomplex<f32>> -> tensor<1xcomplex<f32>>
    %2 = stablehlo.real %1 : (tensor<1xcomplex<f32>>) -> tensor<1xf32>
    %3 = stablehlo.imag %1 : (tensor<1xcomplex<f32>>) -> tensor<1xf32>
    return %2, %3 : tensor<1xf32>, tensor<1xf32>
  }
  func.func @top_k(%arg0: tensor<16x16xf32>) -> (tensor<16x8xf32>, tensor<16x8xi32>) {
    %values, %indices = chlo.top_k(%arg0, k = 8) : tensor<16x16xf32> -> (tensor<16x8xf32>, tensor<16x8xi32>)
    return %values, %indices : tensor<16x8xf32>, tensor<16x8xi32>
  }
  func.func @bessel_i1e_f16(%arg0: tensor<16x16xf16>) -> tensor<16x16xf16> {
    %0 = chlo.bessel_i1e %arg0 : tensor<16x16xf16> -> tensor<16x16xf16>
    return %0 : tensor<16x16xf16>
  }
  func.func @bessel_i1e_f32(%arg0: tensor<16x16xf32>) -> tensor<16x16xf32> {
    %0 = chlo.bessel_i1e %arg0 : tensor<16x16xf32> -> tensor<16x16xf32>
    return %0 : tensor<16x16xf32>
  }
  func.func @bessel_i1e_f64(%arg0: tensor<16x16xf64>) -> tensor<16x16xf64> {
    %0 = chlo.bessel_i1e %arg0 : tensor<16x16xf64> -> tensor<16x16xf64>
    return %0 : tensor<16x16xf64>
  }
  func.func @erf_inv(%arg0: tensor<16x16xf32>) {
    %0 = chlo.erf_inv %arg0 : tensor<16x16xf32> -> tensor<16x16xf32>
    return
  }
  func.func @erf_inv_wide(%arg0: tensor<16x16xf64>) {
    %0 = chlo.erf_inv %arg0 : tensor<16x16xf64> -> tensor<16x16xf64>
    return
  }
  func.func @square_complex_f32(%arg0: tensor<complex<f32>>) -> tensor<complex<f32>> {
    %0 = chlo.square %arg0 : tensor<complex<f32>> -> tensor<complex<f32>>
    return %0 : tensor<complex<f32>>
  }
  func.func @square_f32(%arg0: tensor<f32>) -> tensor<f32> {
    %0 = chlo.square %arg0 : tensor<f32> -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func @mulhi_i32(%arg0: tensor<4xi32>, %arg1: tensor<4xi32>) -> tensor<4xi32> {
    %0 = chlo.mulhi %arg0, %arg1 : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
    return %0 : tensor<4xi32>
  }
  func.func @mulhi_ui32(%arg0: tensor<4xui32>, %arg1: tensor<4xui32>) -> tensor<4xui32> {
    %0 = chlo.mulhi %arg0, %arg1 : tensor<4xui32>, tensor<4xui32> -> tensor<4xui32>
    return %0 : tensor<4xui32>
  }
  func.func @mulhi_i16(%arg0: tensor<4xi16>, %arg1: tensor<4xi16>) -> tensor<4xi16> {
    %0 = chlo.mulhi %arg0, %arg1 : tensor<4xi16>, tensor<4xi16> -> tensor<4xi16>
    return %0 : tensor<4xi16>
  }
  func.func @mulhi_ui16(%arg0: tensor<4xui16>, %arg1: tensor<4xui16>) -> tensor<4xui16> {
    %0 = chlo.mulhi %arg0, %arg1 : tensor<4xui16>, tensor<4xui16> -> tensor<4xui16>
    return %0 : tensor<4xui16>
  }
  func.func @mulhi_ui64(%arg0: tensor<4xui64>, %arg1: tensor<4xui64>) -> tensor<4xui64> {
    %0 = chlo.mulhi %arg0, %arg1 : tensor<4xui64>, tensor<4xui64> -> tensor<4xui64>
    return %0 : tensor<4xui64>
  }
  func.func @mulhi_i64(%arg0: tensor<4xi64>, %arg1: tensor<4xi64>) -> tensor<4xi64> {
    %0 = chlo.mulhi %arg0, %arg1 : tensor<4xi64>, tensor<4xi64> -> tensor<4xi64>
    return %0 : tensor<4xi64>
  }
  func.func @ragged_dot_mode_1(%lhs : tensor<2x11x5xf32>, %rhs : tensor<3x2x5x7xf32>, %group_sizes : tensor<3xi64>) -> tensor<2x11x7xf32> {
    %0 = "chlo.ragged_dot"(%lhs, %rhs, %group_sizes) {
      ragged_dot_dimension_numbers = #chlo.ragged_dot<
        lhs_batching_dimensions = [0],
        rhs_batching_dimensions = [1],
        lhs_contracting_dimensions = [2],
        rhs_contracting_dimensions = [2],
        lhs_ragged_dimensions = [1],
        rhs_group_dimensions = [0]
      >,
      precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>]
    } : (tensor<2x11x5xf32>, tensor<3x2x5x7xf32>, tensor<3xi64>) -> tensor<2x11x7xf32>
    func.return %0 : tensor<2x11x7xf32>
  }
  func.func @ragged_dot_mode_2(%lhs : tensor<2x3x5xf32>, %rhs : tensor<2x5x7xf32>, %group_sizes : tensor<2x4xi64>) -> tensor<4x2x3x7xf32> {
    %0 = "chlo.ragged_dot"(%lhs, %rhs, %group_sizes) {
      ragged_dot_dimension_numbers = #chlo.ragged_dot<
        lhs_batching_dimensions = [0],
        rhs_batching_dimensions = [0],
        lhs_contracting_dimensions = [2],
        rhs_contracting_dimensions = [1],
        lhs_ragged_dimensions = [2],
        rhs_group_dimensions = []
      >,
      precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>]
    } : (tensor<2x3x5xf32>, tensor<2x5x7xf32>, tensor<2x4xi64>) -> tensor<4x2x3x7xf32>
    func.return %0 : tensor<4x2x3x7xf32>
  }
  func.func @ragged_dot_mode_3(%lhs : tensor<2x3x5xf32>, %rhs : tensor<2x5x7xf32>, %group_sizes : tensor<2xi64>) -> tensor<2x3x7xf32> {
    %0 = "chlo.ragged_dot"(%lhs, %rhs, %group_sizes) {
      ragged_dot_dimension_numbers = #chlo.ragged_dot<
        lhs_batching_dimensions = [0],
        rhs_batching_dimensions = [0],
        lhs_contracting_dimensions = [2],
        rhs_contracting_dimensions = [1],
        lhs_ragged_dimensions = [0],
        rhs_group_dimensions = []
      >,
      precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>]
    } : (tensor<2x3x5xf32>, tensor<2x5x7xf32>, tensor<2xi64>) -> tensor<2x3x7xf32>
    func.return %0 : tensor<2x3x7xf32>
  }
  func.func @scan(%arg0: tensor<2xi32>, %arg1: tensor<i32>) -> (tensor<2xi32>, tensor<i32>) {
    %0:2 = chlo.scan(%arg0) inits(%arg1) dimension=0 {
    ^bb0(%scan_arg0: tensor<i32>, %scan_arg1: tensor<i32>):
      %1 = stablehlo.add %scan_arg0, %scan_arg1 : tensor<i32>
      stablehlo.return %1, %1 : tensor<i32>, tensor<i32>
    } : (tensor<2xi32>, tensor<i32>) -> (tensor<2xi32>, tensor<i32>)
    func.return %0#0, %0#1 : tensor<2xi32>, tensor<i32>
  }
  func.func @scan_complex(%arg0: tensor<2xcomplex<f32>>, %arg1: tensor<complex<f32>>) -> (tensor<2xcomplex<f32>>, tensor<complex<f32>>) {
    %0:2 = chlo.scan(%arg0) inits(%arg1) dimension=0 {
    ^bb0(%scan_arg0: tensor<complex<f32>>, %scan_arg1: tensor<complex<f32>>):
      %1 = stablehlo.add %scan_arg0, %scan_arg1 : tensor<complex<f32>>
      stablehlo.return %1, %1 : tensor<complex<f32>>, tensor<complex<f32>>
    } : (tensor<2xcomplex<f32>>, tensor<complex<f32>>) -> (tensor<2xcomplex<f32>>, tensor<complex<f32>>)
    func.return %0#0, %0#1 : tensor<2xcomplex<f32>>, tensor<complex<f32>>
  }
}
