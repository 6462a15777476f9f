func.func @main() -> tensor<6xf32> {
  %x = stablehlo.constant dense<[3.0, -1.0, 0x7FC00000, 2.0, -0.0, 0.0]> : tensor<6xf32>
  %i = stablehlo.iota dim = 0 : tensor<6xi32>
  %r:2 = "stablehlo.sort"(%x, %i) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %c0 = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c0 : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<6xf32>, tensor<6xi32>) -> (tensor<6xf32>, tensor<6xi32>)
  %f = stablehlo.convert %r#1 : (tensor<6xi32>) -> tensor<6xf32>
  %s = stablehlo.add %r#0, %f : tensor<6xf32>
  return %s : tensor<6xf32>
}
