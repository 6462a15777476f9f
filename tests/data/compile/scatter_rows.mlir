// Row scatters (x.at[idx].add / .set with whole rows), lowered natively to an
// scf.for over the updates (lower_linalg_scatter.c): duplicates apply in order,
// rows outside [0, 4) (negative, too large, a huge unsigned index) are
// skipped.  Expected values are written by hand.
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
    return %add : tensor<4x3xf32>
  }
}
