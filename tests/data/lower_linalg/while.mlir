func.func @main(%x: tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %n = stablehlo.constant dense<5> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %acc = %x) : tensor<i32>, tensor<4xf32>
    cond {
      %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %i1 = stablehlo.add %i, %c1 : tensor<i32>
      %f = stablehlo.convert %i1 : (tensor<i32>) -> tensor<f32>
      %fb = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %a = stablehlo.multiply %acc, %fb : tensor<4xf32>
      %t = func.call @step(%a) : (tensor<4xf32>) -> tensor<4xf32>
      stablehlo.return %i1, %t : tensor<i32>, tensor<4xf32>
    }
  return %r#0, %r#1 : tensor<i32>, tensor<4xf32>
}
func.func private @step(%a: tensor<4xf32>) -> tensor<4xf32> {
  %h = stablehlo.constant dense<0.5> : tensor<4xf32>
  %s = stablehlo.add %a, %h : tensor<4xf32>
  return %s : tensor<4xf32>
}
