// Pretty forms of the shape and data-movement ops (pretty_shape.c).
func.func @shapes(%arg0: tensor<4x3xf32>, %arg1: tensor<f32>, %arg2: tensor<i64>, %arg3: tensor<3xf32>) -> tensor<4x3xf32> {
  %0 = stablehlo.iota dim = 1 : tensor<4x3xi32>
  %1 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>
  %2 = stablehlo.broadcast_in_dim %arg1, dims = [] {mhlo.sharding = "{replicated}"} : (tensor<f32>) -> tensor<2x4x3xf32>
  %3 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %4 = stablehlo.reverse %arg0, dims = [0, 1] : tensor<4x3xf32>
  %5 = stablehlo.broadcast %arg3, sizes = [2, 5] : (tensor<3xf32>) -> tensor<2x5x3xf32>
  %6 = stablehlo.slice %arg0 [1:4, 0:3:2] : (tensor<4x3xf32>) -> tensor<3x2xf32>
  %7 = stablehlo.slice %arg1 [] : (tensor<f32>) -> tensor<f32>
  %8 = stablehlo.dynamic_slice %arg0, %arg2, %arg2, sizes = [2, 3] : (tensor<4x3xf32>, tensor<i64>, tensor<i64>) -> tensor<2x3xf32>
  %9 = stablehlo.concatenate %arg0, %4, %arg0, dim = 0 : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<12x3xf32>
  %10 = stablehlo.pad %arg0, %arg1, low = [0, 1], high = [2, -1], interior = [1, 0] : (tensor<4x3xf32>, tensor<f32>) -> tensor<9x3xf32>
  %11 = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<4x3xf32>) -> tensor<i32>
  %12 = stablehlo.reduce_precision %arg0, format = e5m10 : tensor<4x3xf32>
  %13 = stablehlo.reduce_precision %arg3, format = e8m23 {foo = 1 : i32} : tensor<3xf32>
  return %4 : tensor<4x3xf32>
}

func.func @dynamic(%arg0: tensor<?x3xf32>, %arg1: tensor<2xi32>) -> tensor<?x3xi64> {
  %0 = stablehlo.dynamic_iota %arg1, dim = 0 : (tensor<2xi32>) -> tensor<?x3xi64>
  %1 = stablehlo.dynamic_broadcast_in_dim %arg0, %arg1, dims = [0, 1] : (tensor<?x3xf32>, tensor<2xi32>) -> tensor<?x3xf32>
  %2 = stablehlo.dynamic_broadcast_in_dim %arg0, %arg1, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>} : (tensor<?x3xf32>, tensor<2xi32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xi64>
}

func.func @random(%arg0: tensor<2xui64>) -> tensor<3x3xf32> {
  %0 = stablehlo.constant dense<0.0> : tensor<f32>
  %1 = stablehlo.constant dense<1.0> : tensor<f32>
  %2 = stablehlo.constant dense<[3, 3]> : tensor<2xi64>
  %3 = stablehlo.rng %0, %1, %2, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x3xf32>
  %4 = stablehlo.rng %0, %1, %2, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x3xf32>
  %output_state, %output = stablehlo.rng_bit_generator %arg0, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui64>)
  %5:2 = stablehlo.rng_bit_generator %arg0, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  return %3 : tensor<3x3xf32>
}
