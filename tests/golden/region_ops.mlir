// Pretty forms of reduce (compact and reducer forms), while and composite
// (pretty_region.c).
func.func @reduces(%arg0: tensor<4x3xf32>, %arg1: tensor<f32>, %arg2: tensor<4x3xi32>, %arg3: tensor<i32>) -> tensor<3xf32> {
  %0 = stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.add across dimensions = [0] : (tensor<4x3xf32>, tensor<f32>) -> tensor<3xf32>
  %1 = stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<4x3xf32>, tensor<f32>) -> tensor<f32>
  // A single commutative op on the arguments in order is printed compactly.
  %2 = stablehlo.reduce(%arg0 init: %arg1) across dimensions = [1] : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
   reducer(%a: tensor<f32>, %b: tensor<f32>)  {
    %r = stablehlo.multiply %a, %b : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }
  // Operands swapped, or a non-commutative op: the reducer form is kept.
  %3 = stablehlo.reduce(%arg0 init: %arg1) across dimensions = [1] : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
   reducer(%a: tensor<f32>, %b: tensor<f32>)  {
    %r = stablehlo.add %b, %a : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }
  %4 = stablehlo.reduce(%arg0 init: %arg1) across dimensions = [0] {mhlo.sharding = "{replicated}"} : (tensor<4x3xf32>, tensor<f32>) -> tensor<3xf32>
   reducer(%a: tensor<f32>, %b: tensor<f32>)  {
    %r = stablehlo.subtract %a, %b : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }
  %5:2 = stablehlo.reduce(%arg0 init: %arg1), (%arg2 init: %arg3) across dimensions = [1] : (tensor<4x3xf32>, tensor<4x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
   reducer(%a: tensor<f32>, %c: tensor<f32>) (%b: tensor<i32>, %d: tensor<i32>)  {
    %6 = stablehlo.maximum %a, %c : tensor<f32>
    %7 = stablehlo.minimum %b, %d : tensor<i32>
    stablehlo.return %6, %7 : tensor<f32>, tensor<i32>
  }
  return %0 : tensor<3xf32>
}

func.func @loops(%arg0: tensor<3x3xf64>) -> tensor<3x3xf64> {
  %c = stablehlo.constant dense<0> : tensor<i64>
  %c_0 = stablehlo.constant dense<10> : tensor<i64>
  %c_1 = stablehlo.constant dense<1> : tensor<i64>
  %0:2 = stablehlo.while(%iterArg = %c, %iterArg_2 = %arg0) : tensor<i64>, tensor<3x3xf64>
   cond {
    %1 = stablehlo.compare  LT, %iterArg, %c_0,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  } do {
    %1 = stablehlo.add %iterArg, %c_1 : tensor<i64>
    %2 = stablehlo.multiply %iterArg_2, %iterArg_2 : tensor<3x3xf64>
    stablehlo.return %1, %2 : tensor<i64>, tensor<3x3xf64>
  }
  %3 = stablehlo.while(%iterArg = %c) : tensor<i64> attributes {mhlo.frontend_attributes = {x = "y"}}
   cond {
    %c_2 = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %c_2 : tensor<i1>
  } do {
    stablehlo.return %iterArg : tensor<i64>
  }
  return %0#1 : tensor<3x3xf64>
}

func.func @composites(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.composite "my.add_n" %arg0 {composite_attributes = {n = 2 : i64}, decomposition = @add_n, version = 1 : i32} : (tensor<3xf32>) -> tensor<3xf32>
  // version = 0 and composite_attributes = {} are the defaults and not printed.
  %1 = stablehlo.composite "my.add_n" %0 {composite_attributes = {}, decomposition = @add_n, version = 0 : i32} : (tensor<3xf32>) -> tensor<3xf32>
  %2 = stablehlo.composite "my.const" {decomposition = @const} : () -> tensor<3xf32>
  return %1 : tensor<3xf32>
}
func.func private @add_n(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func private @const() -> tensor<3xf32> {
  %cst = stablehlo.constant dense<1.0> : tensor<3xf32>
  return %cst : tensor<3xf32>
}
