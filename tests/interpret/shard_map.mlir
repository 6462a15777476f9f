// shard_map programs in the form jax.jit(shard_map(...)) exports with
// Shardy (sdy.mesh, sdy.sharding on the arguments, sdy.manual_computation
// whose body sees per-device shapes, psum as an all_reduce with a channel
// and use_global_device_ids), run on several devices by
// interpreter.run_parallel: every device gets the global input, cuts its
// tile entering the manual computation and rebuilds the global result
// leaving it.  Expected values are computed by hand.

// in_specs=P('x'), out_specs=P(), psum over a 1-D mesh of 4.
module @psum_mesh4 attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> (tensor<2xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{}]>}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{}]>] manual_axes={"x"} (%arg1: tensor<2xf32>) {
      %1 = stablehlo.multiply %arg1, %arg1 : tensor<2xf32>
      %cst = stablehlo.constant dense<1.000000e+00> : tensor<2xf32>
      %2 = stablehlo.add %1, %cst : tensor<2xf32>
      %3 = "stablehlo.all_reduce"(%2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %4 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %4 : tensor<f32>
      }) : (tensor<2xf32>) -> tensor<2xf32>
      sdy.return %3 : tensor<2xf32>
    } : (tensor<8xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
  func.func @main() {
    %x = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
    %r:4 = "interpreter.run_parallel"(%x, %x, %x, %x) {programs = [[@f, @f, @f, @f]]} :
        (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
    // x*x + 1 = [2, 5, 10, 17, 26, 37, 50, 65]; tiles summed: [2+10+26+50, 5+17+37+65].
    check.expect_eq_const %r#0, dense<[88.0, 124.0]> : tensor<2xf32>
    check.expect_eq_const %r#1, dense<[88.0, 124.0]> : tensor<2xf32>
    check.expect_eq_const %r#2, dense<[88.0, 124.0]> : tensor<2xf32>
    check.expect_eq_const %r#3, dense<[88.0, 124.0]> : tensor<2xf32>
    func.return
  }
}

// -----

// out_specs=P('x'): the tiles of the result are gathered back in mesh order.
module @sharded_result attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @f(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%arg1: tensor<2xf32>) {
      %1 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %4 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %4 : tensor<f32>
      }) : (tensor<2xf32>) -> tensor<2xf32>
      %2 = stablehlo.multiply %arg1, %1 : tensor<2xf32>
      sdy.return %2 : tensor<2xf32>
    } : (tensor<8xf32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
  func.func @main() {
    %x = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
    %r:4 = "interpreter.run_parallel"(%x, %x, %x, %x) {programs = [[@f, @f, @f, @f]]} :
        (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
    // psum of the tiles = [16, 20]; x * it, tile by tile.
    check.expect_eq_const %r#0, dense<[16.0, 40.0, 48.0, 80.0, 80.0, 120.0, 112.0, 160.0]> : tensor<8xf32>
    check.expect_eq_const %r#3, dense<[16.0, 40.0, 48.0, 80.0, 80.0, 120.0, 112.0, 160.0]> : tensor<8xf32>
    func.return
  }
}

// -----

// A 2x2 mesh, manual over "x" only: the body's dimension 0 is cut by x, the
// psum over x meets devices {0, 2} and {1, 3} (ids x * 2 + y), and the free
// axis "y" leaves the columns whole.
module @mesh2x2_manual_x attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @f(%arg0: tensor<4x2xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) -> (tensor<2x2xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {"y"}]>] out_shardings=[<@mesh, [{}, {"y"}]>] manual_axes={"x"} (%arg1: tensor<2x2xi32>) {
      %1 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<i32>, %arg3: tensor<i32>):
        %4 = stablehlo.add %arg2, %arg3 : tensor<i32>
        stablehlo.return %4 : tensor<i32>
      }) : (tensor<2x2xi32>) -> tensor<2x2xi32>
      sdy.return %1 : tensor<2x2xi32>
    } : (tensor<4x2xi32>) -> tensor<2x2xi32>
    return %0 : tensor<2x2xi32>
  }
  func.func @main() {
    %x = stablehlo.constant dense<[[1, 2], [3, 4], [50, 60], [70, 80]]> : tensor<4x2xi32>
    %r:4 = "interpreter.run_parallel"(%x, %x, %x, %x) {programs = [[@f, @f, @f, @f]]} :
        (tensor<4x2xi32>, tensor<4x2xi32>, tensor<4x2xi32>, tensor<4x2xi32>) -> (tensor<2x2xi32>, tensor<2x2xi32>, tensor<2x2xi32>, tensor<2x2xi32>)
    check.expect_eq_const %r#0, dense<[[51, 62], [73, 84]]> : tensor<2x2xi32>
    check.expect_eq_const %r#1, dense<[[51, 62], [73, 84]]> : tensor<2x2xi32>
    check.expect_eq_const %r#2, dense<[[51, 62], [73, 84]]> : tensor<2x2xi32>
    check.expect_eq_const %r#3, dense<[[51, 62], [73, 84]]> : tensor<2x2xi32>
    func.return
  }
}

// -----

// The GSPMD form of a shard_map (JAX without Shardy): @Sharding and
// SPMDFullToShardShape enter the body (a private function), @Sharding
// {manual} and SPMDShardToFullShape leave it; results replicated (P()) and
// split (P('x')).
module @gspmd_shard_map attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @f(%arg0: tensor<8xf32> {mhlo.sharding = "{devices=[2]<=[2]}"}) -> (tensor<4xf32> {jax.result_info = "[0]", mhlo.sharding = "{replicated}"}, tensor<8xf32> {jax.result_info = "[1]", mhlo.sharding = "{devices=[2]<=[2]}"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[2]<=[2]}"} : (tensor<8xf32>) -> tensor<8xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<8xf32>) -> tensor<4xf32>
    %2:2 = call @shmap_body(%1) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    %3 = stablehlo.custom_call @Sharding(%2#0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4xf32>) -> tensor<4xf32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<4xf32>) -> tensor<4xf32>
    %5 = stablehlo.custom_call @Sharding(%2#1) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4xf32>) -> tensor<4xf32>
    %6 = stablehlo.custom_call @SPMDShardToFullShape(%5) {backend_config = "", mhlo.sharding = "{devices=[2]<=[2]}"} : (tensor<4xf32>) -> tensor<8xf32>
    return %4, %6 : tensor<4xf32>, tensor<8xf32>
  }
  func.func private @shmap_body(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "[0]"}, tensor<4xf32> {jax.result_info = "[1]"}) {
    %0 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = stablehlo.subtract %arg0, %0 : tensor<4xf32>
    return %0, %1 : tensor<4xf32>, tensor<4xf32>
  }
  func.func @main() {
    %x = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0, 10.0, 20.0, 30.0, 40.0]> : tensor<8xf32>
    %r:4 = "interpreter.run_parallel"(%x, %x) {programs = [[@f, @f]]} :
        (tensor<8xf32>, tensor<8xf32>) -> (tensor<4xf32>, tensor<8xf32>, tensor<4xf32>, tensor<8xf32>)
    // psum = [11, 22, 33, 44]; x - psum tile by tile.
    check.expect_eq_const %r#0, dense<[11.0, 22.0, 33.0, 44.0]> : tensor<4xf32>
    check.expect_eq_const %r#1, dense<[-10.0, -20.0, -30.0, -40.0, -1.0, -2.0, -3.0, -4.0]> : tensor<8xf32>
    check.expect_eq_const %r#2, dense<[11.0, 22.0, 33.0, 44.0]> : tensor<4xf32>
    check.expect_eq_const %r#3, dense<[-10.0, -20.0, -30.0, -40.0, -1.0, -2.0, -3.0, -4.0]> : tensor<8xf32>
    func.return
  }
}
