// Collectives inside interpreter.run_parallel, one thread per device.
// Expected values are worked out by hand from the spec's process groups.

// all_reduce (add), cross_replica, 2 replicas x 1 partition.
module @all_reduce_add {
  func.func @step(%x: tensor<4xi64>) -> tensor<4xi64> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<i64>, %b: tensor<i64>):
        %s = stablehlo.add %a, %b : tensor<i64>
        stablehlo.return %s : tensor<i64>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>} : (tensor<4xi64>) -> tensor<4xi64>
    return %r : tensor<4xi64>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
    %b = stablehlo.constant dense<[5, 6, 7, 8]> : tensor<4xi64>
    %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@step], [@step]]} :
        (tensor<4xi64>, tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>)
    check.expect_eq_const %r#0, dense<[6, 8, 10, 12]> : tensor<4xi64>
    check.expect_eq_const %r#1, dense<[6, 8, 10, 12]> : tensor<4xi64>
    func.return
  }
}

// -----

// all_reduce (maximum) over uneven groups: {0, 2} and {1} (-1 pads).
module @all_reduce_max_uneven {
  func.func @step(%x: tensor<2xf32>) -> tensor<2xf32> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.maximum %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 2], [1, -1]]> : tensor<2x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
    return %r : tensor<2xf32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[1.0, 9.0]> : tensor<2xf32>
    %b = stablehlo.constant dense<[7.0, -3.0]> : tensor<2xf32>
    %c = stablehlo.constant dense<[4.0, 2.5]> : tensor<2xf32>
    %r:3 = "interpreter.run_parallel"(%a, %b, %c) {programs = [[@step], [@step], [@step]]} :
        (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
    check.expect_eq_const %r#0, dense<[4.0, 9.0]> : tensor<2xf32>
    check.expect_eq_const %r#1, dense<[7.0, -3.0]> : tensor<2xf32>
    check.expect_eq_const %r#2, dense<[4.0, 9.0]> : tensor<2xf32>
    func.return
  }
}

// -----

// all_reduce (multiply) with empty replica_groups (all replicas), two
// operands reduced independently.
module @all_reduce_mul_all {
  func.func @step(%x: tensor<2xi32>, %y: tensor<i32>) -> (tensor<2xi32>, tensor<i32>) {
    %r:2 = "stablehlo.all_reduce"(%x, %y) ({
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        %s = stablehlo.multiply %a, %b : tensor<i32>
        stablehlo.return %s : tensor<i32>
    }) {replica_groups = dense<> : tensor<0x0xi64>} : (tensor<2xi32>, tensor<i32>) -> (tensor<2xi32>, tensor<i32>)
    return %r#0, %r#1 : tensor<2xi32>, tensor<i32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[2, -1]> : tensor<2xi32>
    %b = stablehlo.constant dense<[3, 5]> : tensor<2xi32>
    %c = stablehlo.constant dense<[4, 7]> : tensor<2xi32>
    %s = stablehlo.constant dense<2> : tensor<i32>
    %r:6 = "interpreter.run_parallel"(%a, %s, %b, %s, %c, %s) {programs = [[@step], [@step], [@step]]} :
        (tensor<2xi32>, tensor<i32>, tensor<2xi32>, tensor<i32>, tensor<2xi32>, tensor<i32>) ->
        (tensor<2xi32>, tensor<i32>, tensor<2xi32>, tensor<i32>, tensor<2xi32>, tensor<i32>)
    check.expect_eq_const %r#0, dense<[24, -35]> : tensor<2xi32>
    check.expect_eq_const %r#1, dense<8> : tensor<i32>
    check.expect_eq_const %r#4, dense<[24, -35]> : tensor<2xi32>
    check.expect_eq_const %r#5, dense<8> : tensor<i32>
    func.return
  }
}

// -----

// A non-commutative body folds left in group order: group [2, 0, 1] gives
// (x2 - x0) - x1 = (100 - 1) - 10 on every device.
module @all_reduce_group_order {
  func.func @step(%x: tensor<i32>) -> tensor<i32> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        %s = stablehlo.subtract %a, %b : tensor<i32>
        stablehlo.return %s : tensor<i32>
    }) {replica_groups = dense<[[2, 0, 1]]> : tensor<1x3xi64>} : (tensor<i32>) -> tensor<i32>
    return %r : tensor<i32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<1> : tensor<i32>
    %b = stablehlo.constant dense<10> : tensor<i32>
    %c = stablehlo.constant dense<100> : tensor<i32>
    %r:3 = "interpreter.run_parallel"(%a, %b, %c) {programs = [[@step], [@step], [@step]]} :
        (tensor<i32>, tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>, tensor<i32>)
    check.expect_eq_const %r#0, dense<89> : tensor<i32>
    check.expect_eq_const %r#1, dense<89> : tensor<i32>
    check.expect_eq_const %r#2, dense<89> : tensor<i32>
    func.return
  }
}

// -----

// cross_replica_and_partition (channel > 0): group [0, 1] of replicas spans
// both partitions, so all 4 devices of the 2x2 grid sum; cross_replica
// (no channel) sums over replicas within each partition.
module @all_reduce_modes {
  func.func @step(%x: tensor<i32>) -> (tensor<i32>, tensor<i32>) {
    %all = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        %s = stablehlo.add %a, %b : tensor<i32>
        stablehlo.return %s : tensor<i32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<i32>) -> tensor<i32>
    %rep = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        %s = stablehlo.add %a, %b : tensor<i32>
        stablehlo.return %s : tensor<i32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<i32>) -> tensor<i32>
    return %all, %rep : tensor<i32>, tensor<i32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<1> : tensor<i32>
    %b = stablehlo.constant dense<2> : tensor<i32>
    %c = stablehlo.constant dense<10> : tensor<i32>
    %d = stablehlo.constant dense<20> : tensor<i32>
    %r:8 = "interpreter.run_parallel"(%a, %b, %c, %d) {programs = [[@step, @step], [@step, @step]]} :
        (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) ->
        (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>)
    check.expect_eq_const %r#0, dense<33> : tensor<i32>
    check.expect_eq_const %r#1, dense<11> : tensor<i32>
    check.expect_eq_const %r#2, dense<33> : tensor<i32>
    check.expect_eq_const %r#3, dense<22> : tensor<i32>
    check.expect_eq_const %r#4, dense<33> : tensor<i32>
    check.expect_eq_const %r#5, dense<11> : tensor<i32>
    check.expect_eq_const %r#6, dense<33> : tensor<i32>
    check.expect_eq_const %r#7, dense<22> : tensor<i32>
    func.return
  }
}

// -----

// all_gather with flattened ids (channel > 0, use_global_device_ids) on a
// 1x2 grid, groups given as device ids [1, 0]: device 1's block comes first.
module @all_gather_flattened {
  func.func @step(%x: tensor<2x1xi32>) -> tensor<2x2xi32> {
    %r = "stablehlo.all_gather"(%x) {all_gather_dim = 1 : i64,
        replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>,
        use_global_device_ids} : (tensor<2x1xi32>) -> tensor<2x2xi32>
    return %r : tensor<2x2xi32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[[1], [2]]> : tensor<2x1xi32>
    %b = stablehlo.constant dense<[[3], [4]]> : tensor<2x1xi32>
    %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@step, @step]]} :
        (tensor<2x1xi32>, tensor<2x1xi32>) -> (tensor<2x2xi32>, tensor<2x2xi32>)
    check.expect_eq_const %r#0, dense<[[3, 1], [4, 2]]> : tensor<2x2xi32>
    check.expect_eq_const %r#1, dense<[[3, 1], [4, 2]]> : tensor<2x2xi32>
    func.return
  }
}

// -----

// all_to_all: split dimension 1 into 2 blocks; device j receives block j of
// every device, concatenated along dimension 0 in group order.
module @all_to_all {
  func.func @step(%x: tensor<2x4xi64>) -> tensor<4x2xi64> {
    %r = "stablehlo.all_to_all"(%x) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 2 : i64,
        replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xi64>) -> tensor<4x2xi64>
    return %r : tensor<4x2xi64>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[[1, 2, 3, 4], [5, 6, 7, 8]]> : tensor<2x4xi64>
    %b = stablehlo.constant dense<[[9, 10, 11, 12], [13, 14, 15, 16]]> : tensor<2x4xi64>
    %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@step], [@step]]} :
        (tensor<2x4xi64>, tensor<2x4xi64>) -> (tensor<4x2xi64>, tensor<4x2xi64>)
    check.expect_eq_const %r#0, dense<[[1, 2], [5, 6], [9, 10], [13, 14]]> : tensor<4x2xi64>
    check.expect_eq_const %r#1, dense<[[3, 4], [7, 8], [11, 12], [15, 16]]> : tensor<4x2xi64>
    func.return
  }
}

// -----

// reduce_scatter (add) along dimension 1: device j keeps block j of the sum.
module @reduce_scatter {
  func.func @step(%x: tensor<2x4xi64>) -> tensor<2x2xi64> {
    %r = "stablehlo.reduce_scatter"(%x) ({
      ^bb0(%a: tensor<i64>, %b: tensor<i64>):
        %s = stablehlo.add %a, %b : tensor<i64>
        stablehlo.return %s : tensor<i64>
    }) {scatter_dimension = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} :
        (tensor<2x4xi64>) -> tensor<2x2xi64>
    return %r : tensor<2x2xi64>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[[1, 2, 3, 4], [5, 6, 7, 8]]> : tensor<2x4xi64>
    %b = stablehlo.constant dense<[[10, 20, 30, 40], [50, 60, 70, 80]]> : tensor<2x4xi64>
    %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@step], [@step]]} :
        (tensor<2x4xi64>, tensor<2x4xi64>) -> (tensor<2x2xi64>, tensor<2x2xi64>)
    check.expect_eq_const %r#0, dense<[[11, 22], [55, 66]]> : tensor<2x2xi64>
    check.expect_eq_const %r#1, dense<[[33, 44], [77, 88]]> : tensor<2x2xi64>
    func.return
  }
}

// -----

// collective_permute 0 -> 1 -> 2: replica 0 has no source and gets zeros.
module @collective_permute {
  func.func @step(%x: tensor<2xf32>) -> tensor<2xf32> {
    %r = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>} :
        (tensor<2xf32>) -> tensor<2xf32>
    return %r : tensor<2xf32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %b = stablehlo.constant dense<[3.0, 4.0]> : tensor<2xf32>
    %c = stablehlo.constant dense<[5.0, 6.0]> : tensor<2xf32>
    %r:3 = "interpreter.run_parallel"(%a, %b, %c) {programs = [[@step], [@step], [@step]]} :
        (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
    check.expect_eq_const %r#0, dense<[0.0, 0.0]> : tensor<2xf32>
    check.expect_eq_const %r#1, dense<[1.0, 2.0]> : tensor<2xf32>
    check.expect_eq_const %r#2, dense<[3.0, 4.0]> : tensor<2xf32>
    func.return
  }
}

// -----

// collective_permute across partitions (channel > 0) on a 1x2 grid: a swap.
module @collective_permute_partitions {
  func.func @step(%x: tensor<i32>) -> tensor<i32> {
    %r = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<i32>) -> tensor<i32>
    return %r : tensor<i32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<7> : tensor<i32>
    %b = stablehlo.constant dense<8> : tensor<i32>
    %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@step, @step]]} :
        (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
    check.expect_eq_const %r#0, dense<8> : tensor<i32>
    check.expect_eq_const %r#1, dense<7> : tensor<i32>
    func.return
  }
}

// -----

// collective_broadcast: the first of each group sends; replica 2 is in no
// group and gets zeros.
module @collective_broadcast {
  func.func @step(%x: tensor<2xi64>) -> tensor<2xi64> {
    %r = "stablehlo.collective_broadcast"(%x) {replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>} :
        (tensor<2xi64>) -> tensor<2xi64>
    return %r : tensor<2xi64>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %b = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
    %c = stablehlo.constant dense<[5, 6]> : tensor<2xi64>
    %r:3 = "interpreter.run_parallel"(%a, %b, %c) {programs = [[@step], [@step], [@step]]} :
        (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>)
    check.expect_eq_const %r#0, dense<[3, 4]> : tensor<2xi64>
    check.expect_eq_const %r#1, dense<[3, 4]> : tensor<2xi64>
    check.expect_eq_const %r#2, dense<[0, 0]> : tensor<2xi64>
    func.return
  }
}

// -----

// Empty operands: all_gather of 0-element tensors.
module @all_gather_empty {
  func.func @step(%x: tensor<0x3xf32>) -> tensor<0x6xf32> {
    %r = "stablehlo.all_gather"(%x) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} :
        (tensor<0x3xf32>) -> tensor<0x6xf32>
    return %r : tensor<0x6xf32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<> : tensor<0x3xf32>
    %r:2 = "interpreter.run_parallel"(%a, %a) {programs = [[@step], [@step]]} :
        (tensor<0x3xf32>, tensor<0x3xf32>) -> (tensor<0x6xf32>, tensor<0x6xf32>)
    check.expect_eq_const %r#0, dense<> : tensor<0x6xf32>
    func.return
  }
}

// -----

// collective_broadcast with a dynamic root per operand: operand 0 from the
// group's place 1 (replica 0 in group [1, 0]), operand 1 from place 0.
module @collective_broadcast_dynamic_root {
  func.func @step(%a: tensor<2xi32>, %b: tensor<i32>, %root: tensor<2xi32>) -> (tensor<2xi32>, tensor<i32>) {
    %r:2 = "stablehlo.collective_broadcast"(%a, %b, %root) {replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>,
        has_dynamic_root} : (tensor<2xi32>, tensor<i32>, tensor<2xi32>) -> (tensor<2xi32>, tensor<i32>)
    return %r#0, %r#1 : tensor<2xi32>, tensor<i32>
  }
  func.func @main() {
    %a0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
    %b0 = stablehlo.constant dense<10> : tensor<i32>
    %a1 = stablehlo.constant dense<[3, 4]> : tensor<2xi32>
    %b1 = stablehlo.constant dense<30> : tensor<i32>
    %root = stablehlo.constant dense<[1, 0]> : tensor<2xi32>
    %r:4 = "interpreter.run_parallel"(%a0, %b0, %root, %a1, %b1, %root) {programs = [[@step], [@step]]} :
        (tensor<2xi32>, tensor<i32>, tensor<2xi32>, tensor<2xi32>, tensor<i32>, tensor<2xi32>) ->
        (tensor<2xi32>, tensor<i32>, tensor<2xi32>, tensor<i32>)
    check.expect_eq_const %r#0, dense<[1, 2]> : tensor<2xi32>
    check.expect_eq_const %r#1, dense<30> : tensor<i32>
    check.expect_eq_const %r#2, dense<[1, 2]> : tensor<2xi32>
    check.expect_eq_const %r#3, dense<30> : tensor<i32>
    func.return
  }
}

// -----

// collective_reduce (minimum): the first device of each group (replica 2
// for [2, 0], replica 1 alone) gets the reduction, the others zeros.
module @collective_reduce_min {
  func.func @step(%x: tensor<2xf32>) -> tensor<2xf32> {
    %r = "stablehlo.collective_reduce"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.minimum %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[2, 0], [1, -1]]> : tensor<2x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
    return %r : tensor<2xf32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[1.0, 9.0]> : tensor<2xf32>
    %b = stablehlo.constant dense<[7.0, -3.0]> : tensor<2xf32>
    %c = stablehlo.constant dense<[4.0, 2.5]> : tensor<2xf32>
    %r:3 = "interpreter.run_parallel"(%a, %b, %c) {programs = [[@step], [@step], [@step]]} :
        (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
    check.expect_eq_const %r#0, dense<[0.0, 0.0]> : tensor<2xf32>
    check.expect_eq_const %r#1, dense<[7.0, -3.0]> : tensor<2xf32>
    check.expect_eq_const %r#2, dense<[1.0, 2.5]> : tensor<2xf32>
    func.return
  }
}
