// Quantized types, in the style of StableHLO's interpreter tests.  Expected
// values are worked out by hand from the spec's quantize / dequantize formulas
// (and, for add, the reference interpreter's integer lowering, which agrees
// here).  Run: shloc test --split-input-file.

func.func @quantize_per_axis() {
  %x = stablehlo.constant dense<[1.0, 7.5]> : tensor<2xf32>
  %q = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32:0, {0.25:-10, 0.5:3}>>
  %s = stablehlo.bitcast_convert %q : (tensor<2x!quant.uniform<i8:f32:0, {0.25:-10, 0.5:3}>>) -> tensor<2xi8>
  check.expect_eq_const %s, dense<[-6, 18]> : tensor<2xi8>
  %r = stablehlo.uniform_quantize %q : (tensor<2x!quant.uniform<i8:f32:0, {0.25:-10, 0.5:3}>>) -> tensor<2x!quant.uniform<i8:f32:0, {0.5, 0.25:-1}>>
  %rs = stablehlo.bitcast_convert %r : (tensor<2x!quant.uniform<i8:f32:0, {0.5, 0.25:-1}>>) -> tensor<2xi8>
  check.expect_eq_const %rs, dense<[2, 29]> : tensor<2xi8>
  %d = stablehlo.uniform_dequantize %r : (tensor<2x!quant.uniform<i8:f32:0, {0.5, 0.25:-1}>>) -> tensor<2xf32>
  check.expect_eq_const %d, dense<[1.0, 7.5]> : tensor<2xf32>
  func.return
}

// -----

func.func @quantize_rounds_half_to_even_and_clamps() {
  %x = stablehlo.constant dense<[2.5, 3.5, -2.5, 1000.0, -1000.0]> : tensor<5xf32>
  %q = stablehlo.uniform_quantize %x : (tensor<5xf32>) -> tensor<5x!quant.uniform<i8:f32, 1.0>>
  %s = stablehlo.bitcast_convert %q : (tensor<5x!quant.uniform<i8:f32, 1.0>>) -> tensor<5xi8>
  check.expect_eq_const %s, dense<[2, 4, -2, 127, -128]> : tensor<5xi8>
  %n = stablehlo.uniform_quantize %x : (tensor<5xf32>) -> tensor<5x!quant.uniform<i8<-20:20>:f32, 1.0:1>>
  %ns = stablehlo.bitcast_convert %n : (tensor<5x!quant.uniform<i8<-20:20>:f32, 1.0:1>>) -> tensor<5xi8>
  check.expect_eq_const %ns, dense<[4, 4, -2, 20, -20]> : tensor<5xi8>
  %u = stablehlo.uniform_quantize %x : (tensor<5xf32>) -> tensor<5x!quant.uniform<u8:f32, 0.5:10>>
  %us = stablehlo.bitcast_convert %u : (tensor<5x!quant.uniform<u8:f32, 0.5:10>>) -> tensor<5xui8>
  check.expect_eq_const %us, dense<[15, 17, 5, 255, 0]> : tensor<5xui8>
  func.return
}

// -----

func.func @quantized_add() {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = stablehlo.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %qa = stablehlo.uniform_quantize %a : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.5>>
  %qb = stablehlo.uniform_quantize %b : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.25>>
  %c = stablehlo.add %qa, %qb : (tensor<2x!quant.uniform<i8:f32, 0.5>>, tensor<2x!quant.uniform<i8:f32, 0.25>>) -> tensor<2x!quant.uniform<i8:f32, 0.25>>
  %d = stablehlo.uniform_dequantize %c : (tensor<2x!quant.uniform<i8:f32, 0.25>>) -> tensor<2xf32>
  check.expect_eq_const %d, dense<[1.5, 2.25]> : tensor<2xf32>
  func.return
}

// -----

func.func @quantized_dot_general_with_zero_points() {
  %l = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
  %r = stablehlo.constant dense<[[2, 0], [1, 3]]> : tensor<2x2xi8>
  %ql = stablehlo.bitcast_convert %l : (tensor<2x2xi8>) -> tensor<2x2x!quant.uniform<i8:f32, 0.5:1>>
  %qr = stablehlo.bitcast_convert %r : (tensor<2x2xi8>) -> tensor<2x2x!quant.uniform<i8:f32, 0.25>>
  %p = stablehlo.dot_general %ql, %qr, contracting_dims = [1] x [0] : (tensor<2x2x!quant.uniform<i8:f32, 0.5:1>>, tensor<2x2x!quant.uniform<i8:f32, 0.25>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.125:-2>>
  %s = stablehlo.bitcast_convert %p : (tensor<2x2x!quant.uniform<i8:f32, 0.125:-2>>) -> tensor<2x2xi8>
  check.expect_eq_const %s, dense<[[-1, 1], [5, 7]]> : tensor<2x2xi8>
  func.return
}

// -----

func.func @quantized_convolution_pads_with_the_zero_point() {
  %l = stablehlo.constant dense<[[[5], [6], [7], [8]]]> : tensor<1x4x1xi8>
  %k = stablehlo.constant dense<[[[1]], [[2]], [[3]]]> : tensor<3x1x1xi8>
  %ql = stablehlo.bitcast_convert %l : (tensor<1x4x1xi8>) -> tensor<1x4x1x!quant.uniform<i8:f32, 1.0:5>>
  %qk = stablehlo.bitcast_convert %k : (tensor<3x1x1xi8>) -> tensor<3x1x1x!quant.uniform<i8:f32, 1.0:2>>
  %c = stablehlo.convolution(%ql, %qk) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {pad = [[1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x1x!quant.uniform<i8:f32, 1.0:5>>, tensor<3x1x1x!quant.uniform<i8:f32, 1.0:2>>) -> tensor<1x4x1x!quant.uniform<i8:f32, 1.0:10>>
  %s = stablehlo.bitcast_convert %c : (tensor<1x4x1x!quant.uniform<i8:f32, 1.0:10>>) -> tensor<1x4x1xi8>
  check.expect_eq_const %s, dense<[[[11], [12], [12], [8]]]> : tensor<1x4x1xi8>
  func.return
}

// -----

func.func @hybrid_dot_general() {
  %l = stablehlo.constant dense<[[1.5, -2.0]]> : tensor<1x2xf32>
  %r = stablehlo.constant dense<[[4], [-2]]> : tensor<2x1xi8>
  %qr = stablehlo.bitcast_convert %r : (tensor<2x1xi8>) -> tensor<2x1x!quant.uniform<i8:f32, 0.5>>
  %p = stablehlo.dot_general %l, %qr, contracting_dims = [1] x [0] : (tensor<1x2xf32>, tensor<2x1x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x1xf32>
  check.expect_eq_const %p, dense<[[5.0]]> : tensor<1x1xf32>
  func.return
}

// -----

func.func @quantized_reduce_and_maximum() {
  %x = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi8>
  %q = stablehlo.bitcast_convert %x : (tensor<4xi8>) -> tensor<4x!quant.uniform<i8:f32, 0.5:-1>>
  %z = stablehlo.constant dense<-1> : tensor<i8>
  %qz = stablehlo.bitcast_convert %z : (tensor<i8>) -> tensor<!quant.uniform<i8:f32, 0.5:-1>>
  %sum = stablehlo.reduce(%q init: %qz) applies stablehlo.add across dimensions = [0] : (tensor<4x!quant.uniform<i8:f32, 0.5:-1>>, tensor<!quant.uniform<i8:f32, 0.5:-1>>) -> tensor<!quant.uniform<i8:f32, 0.5:-1>>
  %d = stablehlo.uniform_dequantize %sum : (tensor<!quant.uniform<i8:f32, 0.5:-1>>) -> tensor<f32>
  check.expect_eq_const %d, dense<7.0> : tensor<f32>
  %m = stablehlo.maximum %q, %q : tensor<4x!quant.uniform<i8:f32, 0.5:-1>>
  %ms = stablehlo.bitcast_convert %m : (tensor<4x!quant.uniform<i8:f32, 0.5:-1>>) -> tensor<4xi8>
  check.expect_eq_const %ms, dense<[1, 2, 3, 4]> : tensor<4xi8>
  func.return
}

// -----

func.func @quantized_constant_iota_compare_sort_tanh() {
  %c = stablehlo.constant dense<[1, -2, 3]> : tensor<3x!quant.uniform<i8:f32, 0.5:1>>
  %d = stablehlo.uniform_dequantize %c : (tensor<3x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<3xf32>
  check.expect_eq_const %d, dense<[0.0, -1.5, 1.0]> : tensor<3xf32>
  %i = stablehlo.iota dim = 0 : tensor<3x!quant.uniform<i8:f32, 0.5:1>>
  %di = stablehlo.uniform_dequantize %i : (tensor<3x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<3xf32>
  check.expect_eq_const %di, dense<[0.0, 1.0, 2.0]> : tensor<3xf32>
  %cmp = stablehlo.compare LT, %c, %i : (tensor<3x!quant.uniform<i8:f32, 0.5:1>>, tensor<3x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<3xi1>
  check.expect_eq_const %cmp, dense<[false, true, true]> : tensor<3xi1>
  %s:1 = "stablehlo.sort"(%c) ({
  ^bb0(%a: tensor<!quant.uniform<i8:f32, 0.5:1>>, %b: tensor<!quant.uniform<i8:f32, 0.5:1>>):
    %l = stablehlo.compare LT, %a, %b : (tensor<!quant.uniform<i8:f32, 0.5:1>>, tensor<!quant.uniform<i8:f32, 0.5:1>>) -> tensor<i1>
    stablehlo.return %l : tensor<i1>
  }) {dimension = 0 : i64} : (tensor<3x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<3x!quant.uniform<i8:f32, 0.5:1>>
  %ss = stablehlo.bitcast_convert %s#0 : (tensor<3x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<3xi8>
  check.expect_eq_const %ss, dense<[-2, 1, 3]> : tensor<3xi8>
  %t = stablehlo.tanh %c : (tensor<3x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<3x!quant.uniform<i8:f32, 0.0078125>>
  %dt = stablehlo.uniform_dequantize %t : (tensor<3x!quant.uniform<i8:f32, 0.0078125>>) -> tensor<3xf32>
  check.expect_almost_eq_const %dt, dense<[0.0, -0.90625, 0.7578125]> : tensor<3xf32>, tolerance = 1.0e-6
  func.return
}

// -----

func.func @quantized_outer_product() {
  %l = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi8>
  %r = stablehlo.constant dense<[4, -5]> : tensor<2xi8>
  %ql = stablehlo.bitcast_convert %l : (tensor<3xi8>) -> tensor<3x!quant.uniform<i8:f32, 1.0:1>>
  %qr = stablehlo.bitcast_convert %r : (tensor<2xi8>) -> tensor<2x!quant.uniform<i8:f32, 1.0>>
  %p = stablehlo.dot_general %ql, %qr, contracting_dims = [] x [] : (tensor<3x!quant.uniform<i8:f32, 1.0:1>>, tensor<2x!quant.uniform<i8:f32, 1.0>>) -> tensor<3x2x!quant.uniform<i8:f32, 1.0>>
  %s = stablehlo.bitcast_convert %p : (tensor<3x2x!quant.uniform<i8:f32, 1.0>>) -> tensor<3x2xi8>
  check.expect_eq_const %s, dense<[[0, 0], [4, -5], [8, -10]]> : tensor<3x2xi8>
  func.return
}

// -----

func.func @uniform_quantize_i4_clamps_and_rounds_half_to_even() {
  %operand = stablehlo.constant dense<[-10.0, -0.26, 0.25, 0.75, 100.0]> : tensor<5xf32>
  %result = stablehlo.uniform_quantize %operand : (tensor<5xf32>) -> tensor<5x!quant.uniform<i4:f32, 5.000000e-01:1>>
  %storage = stablehlo.bitcast_convert %result : (tensor<5x!quant.uniform<i4:f32, 5.000000e-01:1>>) -> tensor<5xi4>
  check.expect_eq_const %storage, dense<[-8, 0, 2, 2, 7]> : tensor<5xi4>
  func.return
}

// -----

func.func @uniform_quantize_storage_range() {
  %operand = stablehlo.constant dense<[-60.0, 0.0, 60.0]> : tensor<3xf32>
  %result = stablehlo.uniform_quantize %operand : (tensor<3xf32>) -> tensor<3x!quant.uniform<u8<0:100>:f32, 1.000000e+00:50>>
  %storage = stablehlo.bitcast_convert %result : (tensor<3x!quant.uniform<u8<0:100>:f32, 1.000000e+00:50>>) -> tensor<3xui8>
  check.expect_eq_const %storage, dense<[0, 50, 100]> : tensor<3xui8>
  func.return
}

// -----

func.func @uniform_dequantize_per_axis_dim1() {
  %storage = stablehlo.constant dense<[[2, 2, 2], [-4, 0, 4]]> : tensor<2x3xi8>
  %operand = stablehlo.bitcast_convert %storage : (tensor<2x3xi8>) -> tensor<2x3x!quant.uniform<i8:f32:1, {1.0:0, 0.5:2, 0.25:-4}>>
  %result = stablehlo.uniform_dequantize %operand : (tensor<2x3x!quant.uniform<i8:f32:1, {1.0:0, 0.5:2, 0.25:-4}>>) -> tensor<2x3xf32>
  check.expect_almost_eq_const %result, dense<[[2.0, 0.0, 1.5], [-4.0, -1.0, 2.0]]> : tensor<2x3xf32>
  func.return
}

// -----

func.func @dot_general_per_axis_rhs() {
  %lhs_storage = stablehlo.constant dense<[[2, 4]]> : tensor<1x2xi8>
  %lhs = stablehlo.bitcast_convert %lhs_storage : (tensor<1x2xi8>) -> tensor<1x2x!quant.uniform<i8:f32, 5.000000e-01>>
  %rhs_storage = stablehlo.constant dense<[[4, 2], [8, 6]]> : tensor<2x2xi8>
  %rhs = stablehlo.bitcast_convert %rhs_storage : (tensor<2x2xi8>) -> tensor<2x2x!quant.uniform<i8:f32:1, {2.500000e-01, 5.000000e-01}>>
  %result = stablehlo.dot_general %lhs, %rhs, contracting_dims = [1] x [0] : (tensor<1x2x!quant.uniform<i8:f32, 5.000000e-01>>, tensor<2x2x!quant.uniform<i8:f32:1, {2.500000e-01, 5.000000e-01}>>) -> tensor<1x2x!quant.uniform<i32:f32:1, {1.250000e-01, 2.500000e-01}>>
  %storage = stablehlo.bitcast_convert %result : (tensor<1x2x!quant.uniform<i32:f32:1, {1.250000e-01, 2.500000e-01}>>) -> tensor<1x2xi32>
  check.expect_eq_const %storage, dense<[[40, 28]]> : tensor<1x2xi32>
  func.return
}

// -----

func.func @requantize_per_tensor_to_narrower_scale() {
  %storage = stablehlo.constant dense<[-100, -3, 0, 5, 100]> : tensor<5xi8>
  %operand = stablehlo.bitcast_convert %storage : (tensor<5xi8>) -> tensor<5x!quant.uniform<i8:f32, 1.000000e+00:0>>
  %result = stablehlo.uniform_quantize %operand : (tensor<5x!quant.uniform<i8:f32, 1.000000e+00:0>>) -> tensor<5x!quant.uniform<i8:f32, 2.000000e+00:10>>
  %out = stablehlo.bitcast_convert %result : (tensor<5x!quant.uniform<i8:f32, 2.000000e+00:10>>) -> tensor<5xi8>
  check.expect_eq_const %out, dense<[-40, 8, 10, 12, 60]> : tensor<5xi8>
  func.return
}

// -----

func.func @quantized_data_movement_keeps_storage() {
  %storage = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi8>
  %q = stablehlo.bitcast_convert %storage : (tensor<2x3xi8>) -> tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:-1>>
  %t = stablehlo.transpose %q, dims = [1, 0] : (tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:-1>>) -> tensor<3x2x!quant.uniform<i8:f32, 5.000000e-01:-1>>
  %s = stablehlo.slice %t [1:3, 0:2] : (tensor<3x2x!quant.uniform<i8:f32, 5.000000e-01:-1>>) -> tensor<2x2x!quant.uniform<i8:f32, 5.000000e-01:-1>>
  %c = stablehlo.concatenate %s, %s, dim = 0 : (tensor<2x2x!quant.uniform<i8:f32, 5.000000e-01:-1>>, tensor<2x2x!quant.uniform<i8:f32, 5.000000e-01:-1>>) -> tensor<4x2x!quant.uniform<i8:f32, 5.000000e-01:-1>>
  %r = stablehlo.reshape %c : (tensor<4x2x!quant.uniform<i8:f32, 5.000000e-01:-1>>) -> tensor<8x!quant.uniform<i8:f32, 5.000000e-01:-1>>
  %out = stablehlo.bitcast_convert %r : (tensor<8x!quant.uniform<i8:f32, 5.000000e-01:-1>>) -> tensor<8xi8>
  check.expect_eq_const %out, dense<[2, 5, 3, 6, 2, 5, 3, 6]> : tensor<8xi8>
  func.return
}

// -----

func.func @quantized_pad_with_quantized_value() {
  %storage = stablehlo.constant dense<[1, 2]> : tensor<2xi8>
  %q = stablehlo.bitcast_convert %storage : (tensor<2xi8>) -> tensor<2x!quant.uniform<i8:f32, 1.000000e+00:3>>
  %pv_storage = stablehlo.constant dense<3> : tensor<i8>
  %pv = stablehlo.bitcast_convert %pv_storage : (tensor<i8>) -> tensor<!quant.uniform<i8:f32, 1.000000e+00:3>>
  %p = stablehlo.pad %q, %pv, low = [1], high = [2], interior = [1] : (tensor<2x!quant.uniform<i8:f32, 1.000000e+00:3>>, tensor<!quant.uniform<i8:f32, 1.000000e+00:3>>) -> tensor<6x!quant.uniform<i8:f32, 1.000000e+00:3>>
  %f = stablehlo.uniform_dequantize %p : (tensor<6x!quant.uniform<i8:f32, 1.000000e+00:3>>) -> tensor<6xf32>
  check.expect_almost_eq_const %f, dense<[0.0, -2.0, 0.0, -1.0, 0.0, 0.0]> : tensor<6xf32>
  func.return
}

// -----

func.func @quantized_multiply_through_float() {
  %a = stablehlo.constant dense<[1.5, -2.0, 3.0]> : tensor<3xf32>
  %b = stablehlo.constant dense<[2.0, 2.0, -0.5]> : tensor<3xf32>
  %qa = stablehlo.uniform_quantize %a : (tensor<3xf32>) -> tensor<3x!quant.uniform<i8:f32, 5.000000e-01>>
  %qb = stablehlo.uniform_quantize %b : (tensor<3xf32>) -> tensor<3x!quant.uniform<i8:f32, 2.500000e-01>>
  %m = stablehlo.multiply %qa, %qb : (tensor<3x!quant.uniform<i8:f32, 5.000000e-01>>, tensor<3x!quant.uniform<i8:f32, 2.500000e-01>>) -> tensor<3x!quant.uniform<i8:f32, 2.500000e-01:4>>
  %out = stablehlo.bitcast_convert %m : (tensor<3x!quant.uniform<i8:f32, 2.500000e-01:4>>) -> tensor<3xi8>
  check.expect_eq_const %out, dense<[16, -12, -2]> : tensor<3xi8>
  func.return
}
