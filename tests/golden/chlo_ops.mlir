// chlo.scan, chlo.mulhi, chlo.ragged_dot and chlo._asin_acos_kernel as
// stablehlo-opt prints them (ChloOps.td / ChloOps.cpp at StableHLO HEAD).
func.func @scan(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>) -> tensor<2x3xf32> {
  %c = stablehlo.constant dense<1> : tensor<i32>
  %0, %1 = chlo.scan (%arg0) inits (%arg1) dimension = 0 attributes {} {
  ^bb0(%input0: tensor<3xf32>, %carry0: tensor<3xf32>):
    %2 = stablehlo.add %input0, %carry0 : tensor<3xf32>
    stablehlo.return %2, %2 : tensor<3xf32>, tensor<3xf32>
  } : (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>)
  func.return %0 : tensor<2x3xf32>
}

// -----

func.func @scan_attrs(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<2x3xi32>, %arg3: tensor<3xi32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {
  %0:4 = chlo.scan(%arg0, %arg2) inits (%arg1, %arg3) dimension = 0 attributes { is_reverse = true, scan_dim_size = 2 : i64 } {
  ^bb0(%arg4: tensor<3xf32>, %arg5: tensor<3xi32>, %arg6: tensor<3xf32>, %arg7: tensor<3xi32>):
    %1 = stablehlo.add %arg4, %arg6 : tensor<3xf32>
    %2 = stablehlo.add %arg5, %arg7 : tensor<3xi32>
    stablehlo.return %1, %2, %1, %2 : tensor<3xf32>, tensor<3xi32>, tensor<3xf32>, tensor<3xi32>
  } : (tensor<2x3xf32>, tensor<2x3xi32>, tensor<3xf32>, tensor<3xi32>) -> (tensor<2x3xf32>, tensor<2x3xi32>, tensor<3xf32>, tensor<3xi32>)
  func.return %0#0, %0#1 : tensor<2x3xf32>, tensor<2x3xi32>
}

// -----

func.func @scan_no_inits(%arg0: tensor<4xi32>) -> tensor<4xi32> {
  %0 = chlo.scan(%arg0) inits() dimension=0 {
  ^bb0(%x: tensor<i32>):
    stablehlo.return %x : tensor<i32>
  } : (tensor<4xi32>) -> tensor<4xi32>
  func.return %0 : tensor<4xi32>
}

// -----

func.func @mulhi(%arg0: tensor<4xi32>, %arg1: tensor<4xi32>, %arg2: tensor<2xui64>) -> (tensor<4xi32>, tensor<2xui64>) {
  %0 = "chlo.mulhi"(%arg0, %arg1) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = chlo.mulhi %arg2, %arg2 : tensor<2xui64>, tensor<2xui64> -> tensor<2xui64>
  func.return %0, %1 : tensor<4xi32>, tensor<2xui64>
}

// -----

func.func @ragged_dot(%lhs: tensor<11x5xf32>, %rhs: tensor<3x5x7xf32>, %gs: tensor<3xi64>) -> tensor<11x7xf32> {
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) {
    ragged_dot_dimension_numbers = #chlo.ragged_dot<
      lhs_batching_dimensions = [],
      rhs_batching_dimensions = [],
      lhs_contracting_dimensions = [1],
      rhs_contracting_dimensions = [1],
      lhs_ragged_dimensions = [0],
      rhs_group_dimensions = [0]
    >,
    precision_config = [#chlo<precision DEFAULT>, #chlo<precision HIGHEST>]
  } : (tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<3xi64>) -> tensor<11x7xf32>
  func.return %0 : tensor<11x7xf32>
}

// -----

func.func @ragged_dot_contracting(%lhs: tensor<2x11x5xf32>, %rhs: tensor<2x5x7xf32>, %gs: tensor<2x3xi32>) -> tensor<3x2x11x7xf32> {
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) {ragged_dot_dimension_numbers = #chlo.ragged_dot<rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [2], lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2]>} : (tensor<2x11x5xf32>, tensor<2x5x7xf32>, tensor<2x3xi32>) -> tensor<3x2x11x7xf32>
  func.return %0 : tensor<3x2x11x7xf32>
}

// -----

func.func @asin_acos_kernel(%arg0: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  %0 = chlo._asin_acos_kernel %arg0 : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
  func.return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @top_k(%arg0: tensor<16x16xf32>) -> (tensor<16x8xf32>, tensor<16x8xi32>) {
  %0:2 = chlo.top_k(%arg0, k=8) : tensor<16x16xf32> -> (tensor<16x8xf32>, tensor<16x8xi32>)
  %1:2 = chlo.top_k(%arg0, k = 8, is_stable = false) : tensor<16x16xf32> -> (tensor<16x8xf32>, tensor<16x8xi32>)
  func.return %1#0, %0#1 : tensor<16x8xf32>, tensor<16x8xi32>
}

// -----

func.func @memref_and_rng(%arg0: memref<2x3xf32, affine_map<(d0, d1) -> (d0, d1)>>, %arg1: memref<4xi8, strided<[2], offset: 1>, 3>, %arg2: tensor<f32>) -> (memref<2x3xf32>, tensor<f32>) {
  %0:2 = "stablehlo.rng_bit_generator"(%arg2) {rng_algorithm = #stablehlo<rng_algorithm DEFAULT>} : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  func.return %arg0, %0#1 : memref<2x3xf32>, tensor<f32>
}

// -----

// chlo ops on bounded dynamic shapes parse, verify and print (not run).
func.func @constant_like_bounded(%arg0: tensor<2xi64>, %arg1: tensor<i32>) -> tensor<?xi32, #stablehlo.bounds<2>> {
  %0 = stablehlo.set_dimension_size %arg0, %arg1, dim = 0 : (tensor<2xi64>, tensor<i32>) -> tensor<?xi64, #stablehlo.bounds<2>>
  %1 = "chlo.constant_like"(%0) <{value = 1 : i32}> : (tensor<?xi64, #stablehlo.bounds<2>>) -> tensor<?xi32, #stablehlo.bounds<2>>
  %2 = chlo.broadcast_add %1, %1 : (tensor<?xi32, #stablehlo.bounds<2>>, tensor<?xi32, #stablehlo.bounds<2>>) -> tensor<?xi32, #stablehlo.bounds<2>>
  return %2 : tensor<?xi32, #stablehlo.bounds<2>>
}
