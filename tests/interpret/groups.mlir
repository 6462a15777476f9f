// Collectives meet per process group: device 1 joins group {1, 2} first and
// then {0, 1} while device 0 already waits in {0, 1} (programs differ per
// device, as interpreter.run_parallel allows).  Expected values by hand:
// 3 * 5 = 15 in {1, 2}, then 2 + 15 = 17 in {0, 1}.

module @overlapping_groups_in_order {
  func.func @a(%x: tensor<i32>) -> tensor<i32> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%p: tensor<i32>, %q: tensor<i32>):
        %s = stablehlo.add %p, %q : tensor<i32>
        stablehlo.return %s : tensor<i32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<i32>) -> tensor<i32>
    return %r : tensor<i32>
  }
  func.func @b(%x: tensor<i32>) -> tensor<i32> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%p: tensor<i32>, %q: tensor<i32>):
        %s = stablehlo.multiply %p, %q : tensor<i32>
        stablehlo.return %s : tensor<i32>
    }) {replica_groups = dense<[[1, 2]]> : tensor<1x2xi64>} : (tensor<i32>) -> tensor<i32>
    %r2 = "stablehlo.all_reduce"(%r) ({
      ^bb0(%p: tensor<i32>, %q: tensor<i32>):
        %s = stablehlo.add %p, %q : tensor<i32>
        stablehlo.return %s : tensor<i32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<i32>) -> tensor<i32>
    return %r2 : tensor<i32>
  }
  func.func @c(%x: tensor<i32>) -> tensor<i32> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%p: tensor<i32>, %q: tensor<i32>):
        %s = stablehlo.multiply %p, %q : tensor<i32>
        stablehlo.return %s : tensor<i32>
    }) {replica_groups = dense<[[1, 2]]> : tensor<1x2xi64>} : (tensor<i32>) -> tensor<i32>
    return %r : tensor<i32>
  }
  func.func @main() {
    %x0 = stablehlo.constant dense<2> : tensor<i32>
    %x1 = stablehlo.constant dense<3> : tensor<i32>
    %x2 = stablehlo.constant dense<5> : tensor<i32>
    %r:3 = "interpreter.run_parallel"(%x0, %x1, %x2) {programs = [[@a], [@b], [@c]]} : (tensor<i32>, tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>, tensor<i32>)
    check.expect_eq_const %r#0, dense<17> : tensor<i32>
    check.expect_eq_const %r#1, dense<17> : tensor<i32>
    check.expect_eq_const %r#2, dense<15> : tensor<i32>
    func.return
  }
}
