// Row scatters (x.at[idx].add / .set with whole rows), lowered natively to an
// scf.for over the updates (lower_linalg_scatter.c): duplicates apply in order,
// rows outside [0, 4) (negative, too large, a huge unsigned index) are
// skipped; row gathers (x[idx]) as row copies (lower_linalg_gather.c).
// Expected values are written by hand or from closed forms.
module @scatter_rows {
  func.func public @main() -> tensor<4x3xf32> {
    %z = stablehlo.constant dense<0.0> : tensor<4x3xf32>
    %idx = stablehlo.constant dense<[[1], [-1], [4], [1], [3]]> : tensor<5x1xi32>
    %upd = stablehlo.constant dense<[[1.0, 2.0, 3.0], [10.0, 10.0, 10.0], [20.0, 20.0, 20.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]> : tensor<5x3xf32>
    %add = "stablehlo.scatter"(%z, %idx, %upd) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4x3xf32>, tensor<5x1xi32>, tensor<5x3xf32>) -> tensor<4x3xf32>
    check.expect_eq_const %add, dense<[[0.0, 0.0, 0.0], [5.0, 7.0, 9.0], [0.0, 0.0, 0.0], [7.0, 8.0, 9.0]]> : tensor<4x3xf32>
    // .set with rank-1 unsigned indices (index_vector_dim = rank): the last write wins.
    %base = stablehlo.constant dense<[[1, 1], [2, 2], [3, 3]]> : tensor<3x2xi64>
    %uidx = stablehlo.constant dense<[2, 4294967295, 0, 2]> : tensor<4xui32>
    %uupd = stablehlo.constant dense<[[7, 7], [8, 8], [9, 9], [5, 6]]> : tensor<4x2xi64>
    %set = "stablehlo.scatter"(%base, %uidx, %uupd) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      stablehlo.return %b : tensor<i64>
    }) : (tensor<3x2xi64>, tensor<4xui32>, tensor<4x2xi64>) -> tensor<3x2xi64>
    check.expect_eq_const %set, dense<[[9, 9], [2, 2], [5, 6]]> : tensor<3x2xi64>
    // Updates broadcast along the update index (x.at[idx].add(1.0), and a
    // row vector): read from the broadcast's operand.
    %one = stablehlo.constant dense<1.0> : tensor<f32>
    %ones = stablehlo.broadcast_in_dim %one, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %count = "stablehlo.scatter"(%z, %idx, %ones) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4x3xf32>, tensor<5x1xi32>, tensor<5x3xf32>) -> tensor<4x3xf32>
    check.expect_eq_const %count, dense<[[0.0, 0.0, 0.0], [2.0, 2.0, 2.0], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]> : tensor<4x3xf32>
    %v = stablehlo.constant dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf32>
    %vs = stablehlo.broadcast_in_dim %v, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<5x3xf32>
    %vadd = "stablehlo.scatter"(%z, %idx, %vs) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4x3xf32>, tensor<5x1xi32>, tensor<5x3xf32>) -> tensor<4x3xf32>
    check.expect_eq_const %vadd, dense<[[0.0, 0.0, 0.0], [2.0, 4.0, 6.0], [0.0, 0.0, 0.0], [1.0, 2.0, 3.0]]> : tensor<4x3xf32>
    // Row gathers (x[idx], whole rows): starts clamped into [0, 3]
    // (negative -> 0, too large and a huge unsigned index -> 3).
    %t = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]> : tensor<4x3xf32>
    %g = "stablehlo.gather"(%t, %idx) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>}> : (tensor<4x3xf32>, tensor<5x1xi32>) -> tensor<5x3xf32>
    check.expect_eq_const %g, dense<[[4.0, 5.0, 6.0], [1.0, 2.0, 3.0], [10.0, 11.0, 12.0], [4.0, 5.0, 6.0], [10.0, 11.0, 12.0]]> : tensor<5x3xf32>
    %ug = "stablehlo.gather"(%base, %uidx) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 2>}> : (tensor<3x2xi64>, tensor<4xui32>) -> tensor<4x2xi64>
    check.expect_eq_const %ug, dense<[[3, 3], [3, 3], [1, 1], [3, 3]]> : tensor<4x2xi64>
    // Large enough for threads (512 rows of 512): row n of the result is row
    // 511 - n of x[r, c] = 512 r + c, so element (n, c) is 512 (511 - n) + c.
    %x = stablehlo.iota dim = 0 : tensor<512x512xi32>
    %xc = stablehlo.iota dim = 1 : tensor<512x512xi32>
    %k = stablehlo.constant dense<512> : tensor<512x512xi32>
    %xr = stablehlo.multiply %x, %k : tensor<512x512xi32>
    %xx = stablehlo.add %xr, %xc : tensor<512x512xi32>
    %n = stablehlo.iota dim = 0 : tensor<512xi32>
    %k511 = stablehlo.constant dense<511> : tensor<512xi32>
    %rev = stablehlo.subtract %k511, %n : tensor<512xi32>
    %big = "stablehlo.gather"(%xx, %rev) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 512>}> : (tensor<512x512xi32>, tensor<512xi32>) -> tensor<512x512xi32>
    %k511m = stablehlo.constant dense<511> : tensor<512x512xi32>
    %rn = stablehlo.subtract %k511m, %x : tensor<512x512xi32>
    %rn512 = stablehlo.multiply %rn, %k : tensor<512x512xi32>
    %want = stablehlo.add %rn512, %xc : tensor<512x512xi32>
    check.expect_eq %big, %want : tensor<512x512xi32>
    return %add : tensor<4x3xf32>
  }
}
