// Tuples built and taken apart in one function vanish; a composite becomes
// a call of its decomposition.
func.func @main() -> tensor<4xf32> {
  %a = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = stablehlo.constant dense<[0.5, -1.0, 2.0, 8.0]> : tensor<4xf32>
  %t = stablehlo.tuple %a, %b : tuple<tensor<4xf32>, tensor<4xf32>>
  %n = stablehlo.tuple %t, %a : tuple<tuple<tensor<4xf32>, tensor<4xf32>>, tensor<4xf32>>
  %i = stablehlo.get_tuple_element %n[0] : (tuple<tuple<tensor<4xf32>, tensor<4xf32>>, tensor<4xf32>>) -> tuple<tensor<4xf32>, tensor<4xf32>>
  %x = stablehlo.get_tuple_element %i[1] : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
  %y = stablehlo.get_tuple_element %t[0] : (tuple<tensor<4xf32>, tensor<4xf32>>) -> tensor<4xf32>
  %c = stablehlo.composite "my.axpy" %x, %y {composite_attributes = {alpha = 2.0 : f32}, decomposition = @axpy} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}
func.func private @axpy(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %two = stablehlo.constant dense<2.0> : tensor<4xf32>
  %m = stablehlo.multiply %two, %x : tensor<4xf32>
  %r = stablehlo.add %m, %y : tensor<4xf32>
  return %r : tensor<4xf32>
}
