// Collectives whose results depend on the order of the fold: both
// transports must combine in the spec's process-group order (expected
// values: f32 left folds in that order, computed separately in double and
// rounded to f32 after each step).  Run on threads here and under MPI by
// tests/cli/mpi_collectives.sh (-n 2 and -n 4).

// all_reduce (add) of f32 where the order matters, group order 2, 0, 3, 1
// (10 elements over 4 devices: uneven chunks for the MPI reduce-scatter).
module @all_reduce_f32_order_2031 {
  func.func @step(%x: tensor<10xf32>) -> tensor<10xf32> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[2, 0, 3, 1]]> : tensor<1x4xi64>} : (tensor<10xf32>) -> tensor<10xf32>
    return %r : tensor<10xf32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[1.0, 1.0e8, 3.0, 0.5, 7.0, 1.0e-3, -2.0, 5.0, 1.0e7, 0.1]> : tensor<10xf32>
    %b = stablehlo.constant dense<[-1.0e8, 1.0, 1.0e8, 0.25, -7.0, 1.0e4, 2.0, -5.0, 1.0, 0.2]> : tensor<10xf32>
    %c = stablehlo.constant dense<[1.0e8, -1.0e8, -1.0e8, 1.0e-8, 1.0e-7, -1.0e4, 3.0e-8, 1.0, -1.0e7, 0.3]> : tensor<10xf32>
    %d = stablehlo.constant dense<[1.0, 1.0, 1.0, 1.0e8, 7.0, 1.0e-3, -1.0, 0.0, 0.5, 0.4]> : tensor<10xf32>
    %r:4 = "interpreter.run_parallel"(%a, %b, %c, %d) {programs = [[@step], [@step], [@step], [@step]]} :
        (tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>) -> (tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>)
    check.expect_eq_const %r#0, dense<[0.0, 2.0, 0.0, 1.0e8, 7.0, 0.001953125, -1.0, 1.0, 1.5, 1.0]> : tensor<10xf32>
    check.expect_eq_const %r#3, dense<[0.0, 2.0, 0.0, 1.0e8, 7.0, 0.001953125, -1.0, 1.0, 1.5, 1.0]> : tensor<10xf32>
    func.return
  }
}

// -----

// The same operands in group order 0, 1, 2, 3: a different f32 result.
module @all_reduce_f32_order_0123 {
  func.func @step(%x: tensor<10xf32>) -> tensor<10xf32> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<> : tensor<0x0xi64>} : (tensor<10xf32>) -> tensor<10xf32>
    return %r : tensor<10xf32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[1.0, 1.0e8, 3.0, 0.5, 7.0, 1.0e-3, -2.0, 5.0, 1.0e7, 0.1]> : tensor<10xf32>
    %b = stablehlo.constant dense<[-1.0e8, 1.0, 1.0e8, 0.25, -7.0, 1.0e4, 2.0, -5.0, 1.0, 0.2]> : tensor<10xf32>
    %c = stablehlo.constant dense<[1.0e8, -1.0e8, -1.0e8, 1.0e-8, 1.0e-7, -1.0e4, 3.0e-8, 1.0, -1.0e7, 0.3]> : tensor<10xf32>
    %d = stablehlo.constant dense<[1.0, 1.0, 1.0, 1.0e8, 7.0, 1.0e-3, -1.0, 0.0, 0.5, 0.4]> : tensor<10xf32>
    %r:4 = "interpreter.run_parallel"(%a, %b, %c, %d) {programs = [[@step], [@step], [@step], [@step]]} :
        (tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>) -> (tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>)
    check.expect_eq_const %r#1, dense<[1.0, 1.0, 1.0, 1.0e8, 7.0, 0.001976562663912773, -0.9999999403953552, 1.0, 1.5, 1.0]> : tensor<10xf32>
    check.expect_eq_const %r#2, dense<[1.0, 1.0, 1.0, 1.0e8, 7.0, 0.001976562663912773, -0.9999999403953552, 1.0, 1.5, 1.0]> : tensor<10xf32>
    func.return
  }
}

// -----

// A reduction region that is not commutative, f(a, b) = 2a + b, on 2
// devices: the result is f(x0, x1), the fold in group order.
module @all_reduce_noncommutative {
  func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %two = stablehlo.constant dense<2.0> : tensor<f32>
        %m = stablehlo.multiply %a, %two : tensor<f32>
        %s = stablehlo.add %m, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    return %r : tensor<4xf32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[1.5, -2.0, 3.0e7, 0.1]> : tensor<4xf32>
    %b = stablehlo.constant dense<[4.0, 0.25, 1.0, 0.7]> : tensor<4xf32>
    %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@step], [@step]]} :
        (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    check.expect_eq_const %r#0, dense<[7.0, -3.75, 6.0e7, 0.8999999761581421]> : tensor<4xf32>
    check.expect_eq_const %r#1, dense<[7.0, -3.75, 6.0e7, 0.8999999761581421]> : tensor<4xf32>
    func.return
  }
}

// -----

// A large all_reduce (300001 f32 per device, more than one MPI step when
// SHLOC_MPI_REDUCE_STEP is small) against the fold written out with
// stablehlo.add in group order 1, 0.
module @all_reduce_large {
  func.func @step(%x: tensor<300001xf32>) -> tensor<300001xf32> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>} : (tensor<300001xf32>) -> tensor<300001xf32>
    return %r : tensor<300001xf32>
  }
  func.func @main() {
    %i = stablehlo.iota dim = 0 : tensor<300001xf32>
    %k0 = stablehlo.constant dense<0.3> : tensor<300001xf32>
    %k1 = stablehlo.constant dense<-1.7e3> : tensor<300001xf32>
    %s0 = stablehlo.multiply %i, %k0 : tensor<300001xf32>
    %a = stablehlo.sine %s0 : tensor<300001xf32>
    %b = stablehlo.add %s0, %k1 : tensor<300001xf32>
    %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@step], [@step]]} :
        (tensor<300001xf32>, tensor<300001xf32>) -> (tensor<300001xf32>, tensor<300001xf32>)
    %want = stablehlo.add %b, %a : tensor<300001xf32>
    check.expect_eq %r#0, %want : tensor<300001xf32>
    check.expect_eq %r#1, %want : tensor<300001xf32>
    func.return
  }
}

// -----

// Large all_reduces on 4 devices in group order 2, 0, 3, 1 (50003 f32 per
// device: uneven chunks, and under MPI with small steps many steps and
// pieces of the reduce-scatter): add, and the non-commutative 2a + b,
// against the folds written out with elementwise ops in that order.
module @all_reduce_large_4 {
  func.func @step(%x: tensor<50003xf32>) -> (tensor<50003xf32>, tensor<50003xf32>) {
    %s = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %t = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[2, 0, 3, 1]]> : tensor<1x4xi64>} : (tensor<50003xf32>) -> tensor<50003xf32>
    %f = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %two = stablehlo.constant dense<2.0> : tensor<f32>
        %m = stablehlo.multiply %a, %two : tensor<f32>
        %t = stablehlo.add %m, %b : tensor<f32>
        stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[2, 0, 3, 1]]> : tensor<1x4xi64>} : (tensor<50003xf32>) -> tensor<50003xf32>
    return %s, %f : tensor<50003xf32>, tensor<50003xf32>
  }
  func.func @main() {
    %i = stablehlo.iota dim = 0 : tensor<50003xf32>
    %k0 = stablehlo.constant dense<0.3> : tensor<50003xf32>
    %k1 = stablehlo.constant dense<-1.7e3> : tensor<50003xf32>
    %k2 = stablehlo.constant dense<1.0e4> : tensor<50003xf32>
    %k3 = stablehlo.constant dense<1.0e-3> : tensor<50003xf32>
    %two = stablehlo.constant dense<2.0> : tensor<50003xf32>
    %s0 = stablehlo.multiply %i, %k0 : tensor<50003xf32>
    %x0 = stablehlo.sine %s0 : tensor<50003xf32>
    %x1 = stablehlo.add %s0, %k1 : tensor<50003xf32>
    %c = stablehlo.cosine %i : tensor<50003xf32>
    %x2 = stablehlo.multiply %c, %k2 : tensor<50003xf32>
    %x3 = stablehlo.multiply %i, %k3 : tensor<50003xf32>
    %r:8 = "interpreter.run_parallel"(%x0, %x1, %x2, %x3) {programs = [[@step], [@step], [@step], [@step]]} :
        (tensor<50003xf32>, tensor<50003xf32>, tensor<50003xf32>, tensor<50003xf32>) ->
        (tensor<50003xf32>, tensor<50003xf32>, tensor<50003xf32>, tensor<50003xf32>,
         tensor<50003xf32>, tensor<50003xf32>, tensor<50003xf32>, tensor<50003xf32>)
    %a1 = stablehlo.add %x2, %x0 : tensor<50003xf32>
    %a2 = stablehlo.add %a1, %x3 : tensor<50003xf32>
    %sum = stablehlo.add %a2, %x1 : tensor<50003xf32>
    %m1 = stablehlo.multiply %x2, %two : tensor<50003xf32>
    %f1 = stablehlo.add %m1, %x0 : tensor<50003xf32>
    %m2 = stablehlo.multiply %f1, %two : tensor<50003xf32>
    %f2 = stablehlo.add %m2, %x3 : tensor<50003xf32>
    %m3 = stablehlo.multiply %f2, %two : tensor<50003xf32>
    %f = stablehlo.add %m3, %x1 : tensor<50003xf32>
    check.expect_eq %r#0, %sum : tensor<50003xf32>
    check.expect_eq %r#1, %f : tensor<50003xf32>
    check.expect_eq %r#4, %sum : tensor<50003xf32>
    check.expect_eq %r#7, %f : tensor<50003xf32>
    func.return
  }
}

// -----

// Empty operands on 2 devices: all_reduce, collective_permute.
module @empty_operands {
  func.func @step(%x: tensor<0xf32>) -> (tensor<0xf32>, tensor<0xf32>) {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<0xf32>) -> tensor<0xf32>
    %p = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} :
        (tensor<0xf32>) -> tensor<0xf32>
    return %r, %p : tensor<0xf32>, tensor<0xf32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<> : tensor<0xf32>
    %r:4 = "interpreter.run_parallel"(%a, %a) {programs = [[@step], [@step]]} :
        (tensor<0xf32>, tensor<0xf32>) -> (tensor<0xf32>, tensor<0xf32>, tensor<0xf32>, tensor<0xf32>)
    check.expect_eq_const %r#0, dense<> : tensor<0xf32>
    check.expect_eq_const %r#3, dense<> : tensor<0xf32>
    func.return
  }
}

// -----

// collective_permute on 2 devices where device 0 is nobody's target: it
// gets zeros, device 1 gets device 0's operand.
module @permute_missing_source {
  func.func @step(%x: tensor<3xi32>) -> tensor<3xi32> {
    %p = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>} :
        (tensor<3xi32>) -> tensor<3xi32>
    return %p : tensor<3xi32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
    %b = stablehlo.constant dense<[4, 5, 6]> : tensor<3xi32>
    %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@step], [@step]]} :
        (tensor<3xi32>, tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>)
    check.expect_eq_const %r#0, dense<[0, 0, 0]> : tensor<3xi32>
    check.expect_eq_const %r#1, dense<[1, 2, 3]> : tensor<3xi32>
    func.return
  }
}
