// interpreter.run_parallel: a grid of processes with their own replica_id and
// partition_id, one infeed queue consumed in order across the processes, and
// an outfeed.

module @grid {
  func.func @ids() -> (tensor<ui32>, tensor<ui32>) {
    %r = stablehlo.replica_id : tensor<ui32>
    %p = stablehlo.partition_id : tensor<ui32>
    return %r, %p : tensor<ui32>, tensor<ui32>
  }
  func.func @main() {
    %v:8 = "interpreter.run_parallel"() {
      programs = [[@ids, @ids], [@ids, @ids]]
    } : () -> (tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>)
    check.expect_eq_const %v#0, dense<0> : tensor<ui32>
    check.expect_eq_const %v#1, dense<0> : tensor<ui32>
    check.expect_eq_const %v#2, dense<0> : tensor<ui32>
    check.expect_eq_const %v#3, dense<1> : tensor<ui32>
    check.expect_eq_const %v#4, dense<1> : tensor<ui32>
    check.expect_eq_const %v#5, dense<0> : tensor<ui32>
    check.expect_eq_const %v#6, dense<1> : tensor<ui32>
    check.expect_eq_const %v#7, dense<1> : tensor<ui32>
    func.return
  }
}

// -----

module @feeds {
  func.func @reader(%t: !stablehlo.token, %x: tensor<3xf32>) -> (tensor<2xi32>, tensor<2xi32>, !stablehlo.token) {
    %a:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
    %b:2 = "stablehlo.infeed"(%a#1) : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
    %o = "stablehlo.outfeed"(%x, %b#1) : (tensor<3xf32>, !stablehlo.token) -> !stablehlo.token
    return %a#0, %b#0, %o : tensor<2xi32>, tensor<2xi32>, !stablehlo.token
  }
  func.func @q0() -> tensor<2xi32> {
    %c = stablehlo.constant dense<[10, 11]> : tensor<2xi32>
    return %c : tensor<2xi32>
  }
  func.func @q1() -> tensor<2xi32> {
    %c = stablehlo.constant dense<[20, 21]> : tensor<2xi32>
    return %c : tensor<2xi32>
  }
  func.func @q2() -> tensor<2xi32> {
    %c = stablehlo.constant dense<[30, 31]> : tensor<2xi32>
    return %c : tensor<2xi32>
  }
  func.func @main() {
    %t = stablehlo.after_all : !stablehlo.token
    %x = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
    %r:6 = "interpreter.run_parallel"(%t, %x, %t, %x) {
      infeed = [@q0, @q1, @q2, @q0],
      programs = [[@reader], [@reader]]
    } : (!stablehlo.token, tensor<3xf32>, !stablehlo.token, tensor<3xf32>) ->
        (tensor<2xi32>, tensor<2xi32>, !stablehlo.token, tensor<2xi32>, tensor<2xi32>, !stablehlo.token)
    check.expect_eq_const %r#0, dense<[10, 11]> : tensor<2xi32>
    check.expect_eq_const %r#1, dense<[20, 21]> : tensor<2xi32>
    check.expect_eq_const %r#3, dense<[30, 31]> : tensor<2xi32>
    check.expect_eq_const %r#4, dense<[10, 11]> : tensor<2xi32>
    func.return
  }
}
