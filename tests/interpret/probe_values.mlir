// interpreter.probe on more element types and places (callees, branches,
// every loop iteration); expected values worked out by hand.

func.func @probe_f16_and_negative_zero() {
  %0 = stablehlo.constant dense<[-0.0, 65504.0, 0x7C00, 6.0e-08]> : tensor<4xf16>
  %1 = interpreter.probe %0, probe_id = "probe_f16" : tensor<4xf16>
  check.expect_serialized_eq %1, probe_id = "probe_f16" : tensor<4xf16>
  func.return
}

// -----

func.func @probe_ui8_scalar() {
  %0 = stablehlo.constant dense<255> : tensor<ui8>
  %1 = interpreter.probe %0, probe_id = "probe_ui8" : tensor<ui8>
  check.expect_serialized_eq %1, probe_id = "probe_ui8" : tensor<ui8>
  func.return
}

// -----

func.func @probe_c64_empty() {
  %0 = stablehlo.constant dense<> : tensor<0x2xcomplex<f64>>
  %1 = interpreter.probe %0, probe_id = "probe_empty" : tensor<0x2xcomplex<f64>>
  check.expect_serialized_eq %1, probe_id = "probe_empty" : tensor<0x2xcomplex<f64>>
  func.return
}

// -----

func.func private @callee(%x: tensor<2xi32>) -> tensor<2xi32> {
  %y = stablehlo.multiply %x, %x : tensor<2xi32>
  %p = interpreter.probe %y, probe_id = "in_callee" : tensor<2xi32>
  func.return %p : tensor<2xi32>
}

func.func @probe_in_called_function() {
  %a = stablehlo.constant dense<[3, -4]> : tensor<2xi32>
  %b = func.call @callee(%a) : (tensor<2xi32>) -> tensor<2xi32>
  %sq = stablehlo.constant dense<[9, 16]> : tensor<2xi32>
  check.expect_eq_const %b, dense<[9, 16]> : tensor<2xi32>
  check.expect_serialized_eq %sq, probe_id = "in_callee" : tensor<2xi32>
  func.return
}

// -----

func.func @probe_in_taken_branch() {
  %b = stablehlo.constant dense<[9, 16]> : tensor<2xi32>
  %pred = stablehlo.constant dense<true> : tensor<i1>
  %c = "stablehlo.if"(%pred) ({
    %n = stablehlo.negate %b : tensor<2xi32>
    %pn = interpreter.probe %n, probe_id = "in_branch" : tensor<2xi32>
    stablehlo.return %pn : tensor<2xi32>
  }, {
    %pb = interpreter.probe %b, probe_id = "in_branch" : tensor<2xi32>
    stablehlo.return %pb : tensor<2xi32>
  }) : (tensor<i1>) -> tensor<2xi32>
  %neg = stablehlo.constant dense<[-9, -16]> : tensor<2xi32>
  check.expect_eq_const %c, dense<[-9, -16]> : tensor<2xi32>
  check.expect_serialized_eq %neg, probe_id = "in_branch" : tensor<2xi32>
  func.return
}

// -----

func.func @probe_every_iteration() {
  %init = stablehlo.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %three = stablehlo.constant dense<3> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %x = %init) : tensor<i32>, tensor<2xf32>
    cond {
      %c = stablehlo.compare LT, %i, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %y = stablehlo.add %x, %x : tensor<2xf32>
      %p = interpreter.probe %y, probe_id = "doubling" : tensor<2xf32>
      %j = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %j, %p : tensor<i32>, tensor<2xf32>
    }
  %e0 = stablehlo.constant dense<[2.0, -2.0]> : tensor<2xf32>
  %e1 = stablehlo.constant dense<[4.0, -4.0]> : tensor<2xf32>
  %e2 = stablehlo.constant dense<[8.0, -8.0]> : tensor<2xf32>
  check.expect_serialized_eq %e0, probe_id = "doubling", iter = 0 : tensor<2xf32>
  check.expect_serialized_eq %e1, probe_id = "doubling", iter = 1 : tensor<2xf32>
  check.expect_serialized_eq %e2, probe_id = "doubling", iter = 2 : tensor<2xf32>
  check.expect_almost_eq_const %r#1, dense<[8.0, -8.0]> : tensor<2xf32>
  func.return
}
