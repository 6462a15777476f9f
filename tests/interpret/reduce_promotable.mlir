// Reductions whose body computes in a wider element type than their inputs
// (spec: reduce C6, reduce_window C13, "is_promotable").  Expected values are
// exact sums worked out by hand: they overflow the input type (i8, ui8) or
// lose the low bits in it (f16: 2048 + 1 = 2048), so a reduction that folded
// in the input type would fail the checks.
func.func @reduce_i8_in_i32() {
  %x = stablehlo.constant dense<[[100, 100, 100], [-128, -128, 1]]> : tensor<2x3xi8>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %r = "stablehlo.reduce"(%x, %z) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %s = stablehlo.add %a, %b : tensor<i32>
      stablehlo.return %s : tensor<i32>
  }) {dimensions = array<i64: 1>} : (tensor<2x3xi8>, tensor<i32>) -> tensor<2xi32>
  check.expect_eq_const %r, dense<[300, -255]> : tensor<2xi32>
  func.return
}

// -----

func.func @reduce_ui8_in_ui32_narrow_init() {
  %x = stablehlo.constant dense<[200, 200, 255]> : tensor<3xui8>
  %z = stablehlo.constant dense<7> : tensor<ui8>
  %r = "stablehlo.reduce"(%x, %z) ({
    ^bb0(%a: tensor<ui32>, %b: tensor<ui32>):
      %s = stablehlo.add %a, %b : tensor<ui32>
      stablehlo.return %s : tensor<ui32>
  }) {dimensions = array<i64: 0>} : (tensor<3xui8>, tensor<ui8>) -> tensor<ui32>
  check.expect_eq_const %r, dense<662> : tensor<ui32>
  func.return
}

// -----

func.func @reduce_f16_in_f32() {
  %x = stablehlo.constant dense<[2048.0, 1.0, 1.0, 1.0]> : tensor<4xf16>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = "stablehlo.reduce"(%x, %z) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<4xf16>, tensor<f32>) -> tensor<f32>
  check.expect_eq_const %r, dense<2051.0> : tensor<f32>
  func.return
}

// -----

// A body that is not a single op (sum of squares) runs element by element on
// the widened values: 100^2 * 2 + 3^2 = 20009.
func.func @reduce_general_body_i8_in_i32() {
  %x = stablehlo.constant dense<[100, -100, 3]> : tensor<3xi8>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %r = "stablehlo.reduce"(%x, %z) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %q = stablehlo.multiply %b, %b : tensor<i32>
      %s = stablehlo.add %a, %q : tensor<i32>
      stablehlo.return %s : tensor<i32>
  }) {dimensions = array<i64: 0>} : (tensor<3xi8>, tensor<i32>) -> tensor<i32>
  check.expect_eq_const %r, dense<20009> : tensor<i32>
  func.return
}

// -----

func.func @reduce_window_i8_in_i32() {
  %x = stablehlo.constant dense<[100, 100, 100, -128]> : tensor<4xi8>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %w = "stablehlo.reduce_window"(%x, %z) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %s = stablehlo.add %a, %b : tensor<i32>
      stablehlo.return %s : tensor<i32>
  }) {window_dimensions = array<i64: 2>} : (tensor<4xi8>, tensor<i32>) -> tensor<3xi32>
  check.expect_eq_const %w, dense<[200, 200, -28]> : tensor<3xi32>
  func.return
}
