// ../shared/bench/mlp with the batch dimension symbolic ("b, 1024"), written as
// jax.export prints a shape-polymorphic function: @main computes b from its
// argument's shape, asserts it, and passes it to the wrapped function as a
// jax.global_constant argument; broadcasts to shapes that involve b are
// dynamic_broadcast_in_dim ops.
module @jit_mlp_dynamic attributes {jax.uses_shape_polymorphism = true, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<?x1024xf32>, %arg1: tensor<1024x4096xf32>, %arg2: tensor<4096xf32>, %arg3: tensor<4096x1024xf32>, %arg4: tensor<1024xf32>) -> (tensor<?x1024xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x1024xf32>) -> tensor<i32>
    %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
    %c = stablehlo.constant dense<1> : tensor<i64>
    %2 = stablehlo.compare  GE, %1, %c,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%2, %1) {api_version = 2 : i32, error_message = "Input shapes do not match the polymorphic shapes specification. Expected value >= 1 for dimension variable 'b'. Using the following polymorphic shapes specifications: args[0].shape = (b, 1024). Obtained dimension variables: 'b' = {0} from specification 'b' for dimension args[0].shape[0] (= {0}), .", has_side_effect = true} : (tensor<i1>, tensor<i64>) -> ()
    %3 = call @_wrapped_jax_export_main(%1, %arg0, %arg1, %arg2, %arg3, %arg4) : (tensor<i64>, tensor<?x1024xf32>, tensor<1024x4096xf32>, tensor<4096xf32>, tensor<4096x1024xf32>, tensor<1024xf32>) -> tensor<?x1024xf32>
    return %3 : tensor<?x1024xf32>
  }
  func.func private @_wrapped_jax_export_main(%arg0: tensor<i64> {jax.global_constant = "b"}, %arg1: tensor<?x1024xf32>, %arg2: tensor<1024x4096xf32>, %arg3: tensor<4096xf32>, %arg4: tensor<4096x1024xf32>, %arg5: tensor<1024xf32>) -> (tensor<?x1024xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg1, %arg2, contracting_dims = [1] x [0] : (tensor<?x1024xf32>, tensor<1024x4096xf32>) -> tensor<?x4096xf32>
    %1 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<4096xf32>) -> tensor<1x4096xf32>
    %2 = stablehlo.convert %arg0 : (tensor<i64>) -> tensor<i32>
    %3 = stablehlo.reshape %2 : (tensor<i32>) -> tensor<1xi32>
    %c = stablehlo.constant dense<4096> : tensor<1xi32>
    %4 = stablehlo.concatenate %3, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %5 = stablehlo.dynamic_broadcast_in_dim %1, %4, dims = [0, 1] : (tensor<1x4096xf32>, tensor<2xi32>) -> tensor<?x4096xf32>
    %6 = stablehlo.add %0, %5 : tensor<?x4096xf32>
    %7 = stablehlo.multiply %6, %6 : tensor<?x4096xf32>
    %8 = stablehlo.multiply %7, %6 : tensor<?x4096xf32>
    %cst = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %9 = stablehlo.dynamic_broadcast_in_dim %cst, %4, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x4096xf32>
    %10 = stablehlo.multiply %9, %8 : tensor<?x4096xf32>
    %11 = stablehlo.add %6, %10 : tensor<?x4096xf32>
    %cst_0 = stablehlo.constant dense<7.978846e-01> : tensor<f32>
    %12 = stablehlo.dynamic_broadcast_in_dim %cst_0, %4, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x4096xf32>
    %13 = stablehlo.multiply %12, %11 : tensor<?x4096xf32>
    %14 = stablehlo.tanh %13 : tensor<?x4096xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %15 = stablehlo.dynamic_broadcast_in_dim %cst_1, %4, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x4096xf32>
    %16 = stablehlo.add %15, %14 : tensor<?x4096xf32>
    %cst_2 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %17 = stablehlo.dynamic_broadcast_in_dim %cst_2, %4, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x4096xf32>
    %18 = stablehlo.multiply %17, %16 : tensor<?x4096xf32>
    %19 = stablehlo.multiply %6, %18 : tensor<?x4096xf32>
    %20 = stablehlo.dot_general %19, %arg4, contracting_dims = [1] x [0] : (tensor<?x4096xf32>, tensor<4096x1024xf32>) -> tensor<?x1024xf32>
    %21 = stablehlo.broadcast_in_dim %arg5, dims = [1] : (tensor<1024xf32>) -> tensor<1x1024xf32>
    %c_3 = stablehlo.constant dense<1024> : tensor<1xi32>
    %22 = stablehlo.concatenate %3, %c_3, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %23 = stablehlo.dynamic_broadcast_in_dim %21, %22, dims = [0, 1] : (tensor<1x1024xf32>, tensor<2xi32>) -> tensor<?x1024xf32>
    %24 = stablehlo.add %20, %23 : tensor<?x1024xf32>
    return %24 : tensor<?x1024xf32>
  }
}
