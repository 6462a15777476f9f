// async_start / async_done: the body (a slice op) runs when async_start does;
// async_done returns the future's values.

func.func @async_slice() {
  %x = stablehlo.constant dense<[1, 2, 3, 4, 5]> : tensor<5xi32>
  %f = "stablehlo.async_start"(%x) ({
    %s = "stablehlo.slice"(%x) {start_indices = array<i64: 1>, limit_indices = array<i64: 4>, strides = array<i64: 1>} : (tensor<5xi32>) -> tensor<3xi32>
    "stablehlo.return"(%s) : (tensor<3xi32>) -> ()
  }) : (tensor<5xi32>) -> !stablehlo.future<tensor<3xi32>>
  %r = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<3xi32>>) -> tensor<3xi32>
  check.expect_eq_const %r, dense<[2, 3, 4]> : tensor<3xi32>
  func.return
}

// -----

func.func @async_dynamic_update_slice() {
  %x = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %u = stablehlo.constant dense<[[9.0]]> : tensor<1x1xf32>
  %i = stablehlo.constant dense<1> : tensor<i64>
  %j = stablehlo.constant dense<0> : tensor<i64>
  %f = "stablehlo.async_start"(%x, %u, %i, %j) ({
    %d = stablehlo.dynamic_update_slice %x, %u, %i, %j : (tensor<2x2xf32>, tensor<1x1xf32>, tensor<i64>, tensor<i64>) -> tensor<2x2xf32>
    "stablehlo.return"(%d) : (tensor<2x2xf32>) -> ()
  }) : (tensor<2x2xf32>, tensor<1x1xf32>, tensor<i64>, tensor<i64>) -> !stablehlo.future<tensor<2x2xf32>>
  %r = "stablehlo.async_done"(%f) : (!stablehlo.future<tensor<2x2xf32>>) -> tensor<2x2xf32>
  check.expect_eq_const %r, dense<[[1.0, 2.0], [9.0, 4.0]]> : tensor<2x2xf32>
  func.return
}
