// pad with negative low/high edges and interior padding, pad that keeps no
// operand element, reverse, dynamic_slice / dynamic_update_slice with start
// indices clamped to [0, dim - size] (negative, too large, unsigned).
func.func @main() -> tensor<66xf32> {
  %x = stablehlo.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %z = stablehlo.constant dense<-1.0> : tensor<f32>
  %p = stablehlo.pad %x, %z, low = [1, -1], high = [-2, 2], interior = [1, 2] : (tensor<3x4xf32>, tensor<f32>) -> tensor<4x11xf32>
  %p1 = stablehlo.reshape %p : (tensor<4x11xf32>) -> tensor<44xf32>
  %e = stablehlo.pad %x, %z, low = [0, -4], high = [0, 0], interior = [0, 0] : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x0xf32>
  %e2 = stablehlo.pad %x, %z, low = [-3, 0], high = [1, 0], interior = [0, 0] : (tensor<3x4xf32>, tensor<f32>) -> tensor<1x4xf32>
  %e3 = stablehlo.reshape %e2 : (tensor<1x4xf32>) -> tensor<4xf32>
  %r = stablehlo.reverse %x, dims = [0, 1] : tensor<3x4xf32>
  %i0 = stablehlo.constant dense<-3> : tensor<i32>
  %i1 = stablehlo.constant dense<7> : tensor<i32>
  %u1 = stablehlo.constant dense<4000000000> : tensor<ui32>
  %ds = stablehlo.dynamic_slice %r, %i0, %i1, sizes = [2, 2] : (tensor<3x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
  %ds1 = stablehlo.reshape %ds : (tensor<2x2xf32>) -> tensor<4xf32>
  %ux = stablehlo.constant dense<1> : tensor<ui32>
  %ds2 = stablehlo.dynamic_slice %x, %ux, %u1, sizes = [1, 3] : (tensor<3x4xf32>, tensor<ui32>, tensor<ui32>) -> tensor<1x3xf32>
  %ds3 = stablehlo.reshape %ds2 : (tensor<1x3xf32>) -> tensor<3xf32>
  %up = stablehlo.constant dense<[[100.0, 200.0, 300.0]]> : tensor<1x3xf32>
  %i8 = stablehlo.constant dense<127> : tensor<i8>
  %i8n = stablehlo.constant dense<-128> : tensor<i8>
  %du = stablehlo.dynamic_update_slice %x, %up, %i8, %i8n : (tensor<3x4xf32>, tensor<1x3xf32>, tensor<i8>, tensor<i8>) -> tensor<3x4xf32>
  %du1 = stablehlo.reshape %du : (tensor<3x4xf32>) -> tensor<12xf32>
  %ez = stablehlo.reshape %e : (tensor<3x0xf32>) -> tensor<0xf32>
  %c = stablehlo.concatenate %p1, %ez, %e3, %ds1, %ds3, %du1, dim = 0 : (tensor<44xf32>, tensor<0xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3xf32>, tensor<12xf32>) -> tensor<67xf32>
  %s = stablehlo.slice %c [1:67] : (tensor<67xf32>) -> tensor<66xf32>
  return %s : tensor<66xf32>
}
