// `case` with more regions than the parser's initial region capacity (2):
// every branch is taken once, and an out-of-range index takes the last branch
// (spec: "if index < 0 or index >= N, then index = N - 1").
func.func @case_many_branches() {
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %i2 = stablehlo.constant dense<2> : tensor<i32>
  %i3 = stablehlo.constant dense<3> : tensor<i32>
  %i9 = stablehlo.constant dense<9> : tensor<i32>
  %in = stablehlo.constant dense<-1> : tensor<i32>
  %r0 = func.call @pick(%i0) : (tensor<i32>) -> tensor<f32>
  %r2 = func.call @pick(%i2) : (tensor<i32>) -> tensor<f32>
  %r3 = func.call @pick(%i3) : (tensor<i32>) -> tensor<f32>
  %r9 = func.call @pick(%i9) : (tensor<i32>) -> tensor<f32>
  %rn = func.call @pick(%in) : (tensor<i32>) -> tensor<f32>
  check.expect_eq_const %r0, dense<10.0> : tensor<f32>
  check.expect_eq_const %r2, dense<30.0> : tensor<f32>
  check.expect_eq_const %r3, dense<40.0> : tensor<f32>
  check.expect_eq_const %r9, dense<50.0> : tensor<f32>
  check.expect_eq_const %rn, dense<50.0> : tensor<f32>
  func.return
}

func.func private @pick(%i: tensor<i32>) -> tensor<f32> {
  %0 = "stablehlo.case"(%i) ({
    %c = stablehlo.constant dense<10.0> : tensor<f32>
    stablehlo.return %c : tensor<f32>
  }, {
    %c = stablehlo.constant dense<20.0> : tensor<f32>
    stablehlo.return %c : tensor<f32>
  }, {
    %c = stablehlo.constant dense<30.0> : tensor<f32>
    stablehlo.return %c : tensor<f32>
  }, {
    %c = stablehlo.constant dense<40.0> : tensor<f32>
    stablehlo.return %c : tensor<f32>
  }, {
    %c = stablehlo.constant dense<50.0> : tensor<f32>
    stablehlo.return %c : tensor<f32>
  }) : (tensor<i32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}
