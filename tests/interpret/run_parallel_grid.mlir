// interpreter.run_parallel programs that hold under both transports (one
// thread per device, and one MPI rank per device under `mpirun -n N shloc
// test --mpi`): the infeed queue is one queue shared by the grid (a send/recv
// pair orders the two readers, so the second reader gets the second entry),
// and an 8-device grid (2 replicas x 4 partitions) mixing flattened-id and
// cross-replica collectives.  Expected values are written out by hand.

module @shared_infeed_ordered_by_send {
  func.func @first(%t: !stablehlo.token) -> (tensor<2xi32>, !stablehlo.token) {
    %a:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
    %s = "stablehlo.send"(%a#0, %a#1) {
      channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>
    } : (tensor<2xi32>, !stablehlo.token) -> !stablehlo.token
    return %a#0, %s : tensor<2xi32>, !stablehlo.token
  }
  func.func @second(%t: !stablehlo.token) -> (tensor<2xi32>, tensor<2xi32>) {
    %r:2 = "stablehlo.recv"(%t) {
      channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>
    } : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
    %b:2 = "stablehlo.infeed"(%r#1) : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
    return %r#0, %b#0 : tensor<2xi32>, tensor<2xi32>
  }
  func.func @q0() -> tensor<2xi32> {
    %c = stablehlo.constant dense<[10, 11]> : tensor<2xi32>
    return %c : tensor<2xi32>
  }
  func.func @q1() -> tensor<2xi32> {
    %c = stablehlo.constant dense<[20, 21]> : tensor<2xi32>
    return %c : tensor<2xi32>
  }
  func.func @main() {
    %t = stablehlo.after_all : !stablehlo.token
    %r:4 = "interpreter.run_parallel"(%t, %t) {
      infeed = [@q0, @q1],
      programs = [[@first], [@second]]
    } : (!stablehlo.token, !stablehlo.token) -> (tensor<2xi32>, !stablehlo.token, tensor<2xi32>, tensor<2xi32>)
    check.expect_eq_const %r#0, dense<[10, 11]> : tensor<2xi32>
    check.expect_eq_const %r#2, dense<[10, 11]> : tensor<2xi32>
    check.expect_eq_const %r#3, dense<[20, 21]> : tensor<2xi32>
    func.return
  }
}

// -----

module @grid_2x4_flattened_then_cross_replica {
  func.func @f(%x: tensor<1xi64>) -> (tensor<4xi64>, tensor<1xi64>) {
    // Flattened ids d = replica * 4 + partition: the even and the odd devices.
    %g = "stablehlo.all_gather"(%x) {
      all_gather_dim = 0 : i64,
      replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>,
      use_global_device_ids
    } : (tensor<1xi64>) -> tensor<4xi64>
    // No channel: cross_replica, the two replicas of each partition.
    %s = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<i64>, %b: tensor<i64>):
        %m = stablehlo.add %a, %b : tensor<i64>
        stablehlo.return %m : tensor<i64>
    }) {
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>
    } : (tensor<1xi64>) -> tensor<1xi64>
    return %g, %s : tensor<4xi64>, tensor<1xi64>
  }
  func.func @main() {
    %x0 = stablehlo.constant dense<[1]> : tensor<1xi64>
    %x1 = stablehlo.constant dense<[2]> : tensor<1xi64>
    %x2 = stablehlo.constant dense<[3]> : tensor<1xi64>
    %x3 = stablehlo.constant dense<[4]> : tensor<1xi64>
    %x4 = stablehlo.constant dense<[5]> : tensor<1xi64>
    %x5 = stablehlo.constant dense<[6]> : tensor<1xi64>
    %x6 = stablehlo.constant dense<[7]> : tensor<1xi64>
    %x7 = stablehlo.constant dense<[8]> : tensor<1xi64>
    %r:16 = "interpreter.run_parallel"(%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7) {
      programs = [[@f, @f, @f, @f], [@f, @f, @f, @f]]
    } : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) ->
        (tensor<4xi64>, tensor<1xi64>, tensor<4xi64>, tensor<1xi64>, tensor<4xi64>, tensor<1xi64>, tensor<4xi64>, tensor<1xi64>,
         tensor<4xi64>, tensor<1xi64>, tensor<4xi64>, tensor<1xi64>, tensor<4xi64>, tensor<1xi64>, tensor<4xi64>, tensor<1xi64>)
    check.expect_eq_const %r#0, dense<[1, 3, 5, 7]> : tensor<4xi64>
    check.expect_eq_const %r#1, dense<[6]> : tensor<1xi64>
    check.expect_eq_const %r#2, dense<[2, 4, 6, 8]> : tensor<4xi64>
    check.expect_eq_const %r#3, dense<[8]> : tensor<1xi64>
    check.expect_eq_const %r#4, dense<[1, 3, 5, 7]> : tensor<4xi64>
    check.expect_eq_const %r#5, dense<[10]> : tensor<1xi64>
    check.expect_eq_const %r#6, dense<[2, 4, 6, 8]> : tensor<4xi64>
    check.expect_eq_const %r#7, dense<[12]> : tensor<1xi64>
    check.expect_eq_const %r#8, dense<[1, 3, 5, 7]> : tensor<4xi64>
    check.expect_eq_const %r#9, dense<[6]> : tensor<1xi64>
    check.expect_eq_const %r#10, dense<[2, 4, 6, 8]> : tensor<4xi64>
    check.expect_eq_const %r#11, dense<[8]> : tensor<1xi64>
    check.expect_eq_const %r#12, dense<[1, 3, 5, 7]> : tensor<4xi64>
    check.expect_eq_const %r#13, dense<[10]> : tensor<1xi64>
    check.expect_eq_const %r#14, dense<[2, 4, 6, 8]> : tensor<4xi64>
    check.expect_eq_const %r#15, dense<[12]> : tensor<1xi64>
    func.return
  }
}
