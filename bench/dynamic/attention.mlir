// ../shared/bench/attention with batch and sequence symbolic ("b, s, 512"),
// written as jax.export prints a shape-polymorphic function (see mlp.mlir):
// broadcasts and reshapes whose shapes involve b or s are dynamic ops fed by
// shape vectors built from the jax.global_constant arguments.
module @jit_attention_dynamic attributes {jax.uses_shape_polymorphism = true, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<?x?x512xf32>, %arg1: tensor<512x512xf32>, %arg2: tensor<512x512xf32>, %arg3: tensor<512x512xf32>, %arg4: tensor<512x512xf32>) -> (tensor<?x?x512xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x?x512xf32>) -> tensor<i32>
    %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
    %2 = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<?x?x512xf32>) -> tensor<i32>
    %3 = stablehlo.convert %2 : (tensor<i32>) -> tensor<i64>
    %c = stablehlo.constant dense<1> : tensor<i64>
    %4 = stablehlo.compare  GE, %1, %c,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%4, %1) {api_version = 2 : i32, error_message = "Input shapes do not match the polymorphic shapes specification. Expected value >= 1 for dimension variable 'b'. Obtained dimension variables: 'b' = {0}.", has_side_effect = true} : (tensor<i1>, tensor<i64>) -> ()
    %5 = stablehlo.compare  GE, %3, %c,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%5, %3) {api_version = 2 : i32, error_message = "Input shapes do not match the polymorphic shapes specification. Expected value >= 1 for dimension variable 's'. Obtained dimension variables: 's' = {0}.", has_side_effect = true} : (tensor<i1>, tensor<i64>) -> ()
    %6 = call @_wrapped_jax_export_main(%1, %3, %arg0, %arg1, %arg2, %arg3, %arg4) : (tensor<i64>, tensor<i64>, tensor<?x?x512xf32>, tensor<512x512xf32>, tensor<512x512xf32>, tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<?x?x512xf32>
    return %6 : tensor<?x?x512xf32>
  }
  func.func private @_wrapped_jax_export_main(%arg0: tensor<i64> {jax.global_constant = "b"}, %arg1: tensor<i64> {jax.global_constant = "s"}, %arg2: tensor<?x?x512xf32>, %arg3: tensor<512x512xf32>, %arg4: tensor<512x512xf32>, %arg5: tensor<512x512xf32>, %arg6: tensor<512x512xf32>) -> (tensor<?x?x512xf32> {jax.result_info = "result"}) {
    %b32 = stablehlo.convert %arg0 : (tensor<i64>) -> tensor<i32>
    %b = stablehlo.reshape %b32 : (tensor<i32>) -> tensor<1xi32>
    %s32 = stablehlo.convert %arg1 : (tensor<i64>) -> tensor<i32>
    %s = stablehlo.reshape %s32 : (tensor<i32>) -> tensor<1xi32>
    %c1 = stablehlo.constant dense<1> : tensor<1xi32>
    %c8 = stablehlo.constant dense<8> : tensor<1xi32>
    %c64 = stablehlo.constant dense<64> : tensor<1xi32>
    %c512 = stablehlo.constant dense<512> : tensor<1xi32>
    %bs1 = stablehlo.concatenate %b, %s, %c1, dim = 0 : (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<3xi32>
    %bs512 = stablehlo.concatenate %b, %s, %c512, dim = 0 : (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<3xi32>
    %bs864 = stablehlo.concatenate %b, %s, %c8, %c64, dim = 0 : (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<4xi32>
    %b8s1 = stablehlo.concatenate %b, %c8, %s, %c1, dim = 0 : (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<4xi32>
    %b8ss = stablehlo.concatenate %b, %c8, %s, %s, dim = 0 : (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<4xi32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg2 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<?x?x512xf32>, tensor<f32>) -> tensor<?x?xf32>
    %1 = stablehlo.dynamic_broadcast_in_dim %0, %bs1, dims = [0, 1] : (tensor<?x?xf32>, tensor<3xi32>) -> tensor<?x?x1xf32>
    %cst_0 = stablehlo.constant dense<5.120000e+02> : tensor<f32>
    %2 = stablehlo.dynamic_broadcast_in_dim %cst_0, %bs1, dims = [] : (tensor<f32>, tensor<3xi32>) -> tensor<?x?x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<?x?x1xf32>
    %4 = stablehlo.dynamic_broadcast_in_dim %3, %bs512, dims = [0, 1, 2] : (tensor<?x?x1xf32>, tensor<3xi32>) -> tensor<?x?x512xf32>
    %5 = stablehlo.subtract %arg2, %4 : tensor<?x?x512xf32>
    %6 = stablehlo.multiply %5, %5 : tensor<?x?x512xf32>
    %7 = stablehlo.reduce(%6 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<?x?x512xf32>, tensor<f32>) -> tensor<?x?xf32>
    %8 = stablehlo.dynamic_broadcast_in_dim %7, %bs1, dims = [0, 1] : (tensor<?x?xf32>, tensor<3xi32>) -> tensor<?x?x1xf32>
    %10 = stablehlo.divide %8, %2 : tensor<?x?x1xf32>
    %cst_3 = stablehlo.constant dense<1.000000e-06> : tensor<f32>
    %11 = stablehlo.dynamic_broadcast_in_dim %cst_3, %bs1, dims = [] : (tensor<f32>, tensor<3xi32>) -> tensor<?x?x1xf32>
    %12 = stablehlo.add %10, %11 : tensor<?x?x1xf32>
    %13 = stablehlo.rsqrt %12 : tensor<?x?x1xf32>
    %14 = stablehlo.dynamic_broadcast_in_dim %13, %bs512, dims = [0, 1, 2] : (tensor<?x?x1xf32>, tensor<3xi32>) -> tensor<?x?x512xf32>
    %15 = stablehlo.multiply %5, %14 : tensor<?x?x512xf32>
    %16 = stablehlo.dot_general %15, %arg3, contracting_dims = [2] x [0] : (tensor<?x?x512xf32>, tensor<512x512xf32>) -> tensor<?x?x512xf32>
    %17 = stablehlo.dynamic_reshape %16, %bs864 : (tensor<?x?x512xf32>, tensor<4xi32>) -> tensor<?x?x8x64xf32>
    %18 = stablehlo.dot_general %15, %arg4, contracting_dims = [2] x [0] : (tensor<?x?x512xf32>, tensor<512x512xf32>) -> tensor<?x?x512xf32>
    %19 = stablehlo.dynamic_reshape %18, %bs864 : (tensor<?x?x512xf32>, tensor<4xi32>) -> tensor<?x?x8x64xf32>
    %20 = stablehlo.dot_general %15, %arg5, contracting_dims = [2] x [0] : (tensor<?x?x512xf32>, tensor<512x512xf32>) -> tensor<?x?x512xf32>
    %21 = stablehlo.dynamic_reshape %20, %bs864 : (tensor<?x?x512xf32>, tensor<4xi32>) -> tensor<?x?x8x64xf32>
    %22 = stablehlo.dot_general %17, %19, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3] : (tensor<?x?x8x64xf32>, tensor<?x?x8x64xf32>) -> tensor<?x8x?x?xf32>
    %cst_4 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %23 = stablehlo.dynamic_broadcast_in_dim %cst_4, %b8ss, dims = [] : (tensor<f32>, tensor<4xi32>) -> tensor<?x8x?x?xf32>
    %24 = stablehlo.divide %22, %23 : tensor<?x8x?x?xf32>
    %cst_5 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %25 = stablehlo.reduce(%24 init: %cst_5) applies stablehlo.maximum across dimensions = [3] : (tensor<?x8x?x?xf32>, tensor<f32>) -> tensor<?x8x?xf32>
    %26 = stablehlo.dynamic_broadcast_in_dim %25, %b8s1, dims = [0, 1, 2] : (tensor<?x8x?xf32>, tensor<4xi32>) -> tensor<?x8x?x1xf32>
    %27 = stablehlo.dynamic_broadcast_in_dim %26, %b8ss, dims = [0, 1, 2, 3] : (tensor<?x8x?x1xf32>, tensor<4xi32>) -> tensor<?x8x?x?xf32>
    %28 = stablehlo.subtract %24, %27 : tensor<?x8x?x?xf32>
    %29 = stablehlo.exponential %28 : tensor<?x8x?x?xf32>
    %30 = stablehlo.reduce(%29 init: %cst) applies stablehlo.add across dimensions = [3] : (tensor<?x8x?x?xf32>, tensor<f32>) -> tensor<?x8x?xf32>
    %31 = stablehlo.dynamic_broadcast_in_dim %30, %b8s1, dims = [0, 1, 2] : (tensor<?x8x?xf32>, tensor<4xi32>) -> tensor<?x8x?x1xf32>
    %32 = stablehlo.dynamic_broadcast_in_dim %31, %b8ss, dims = [0, 1, 2, 3] : (tensor<?x8x?x1xf32>, tensor<4xi32>) -> tensor<?x8x?x?xf32>
    %33 = stablehlo.divide %29, %32 : tensor<?x8x?x?xf32>
    %34 = stablehlo.dot_general %33, %21, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1] : (tensor<?x8x?x?xf32>, tensor<?x?x8x64xf32>) -> tensor<?x8x?x64xf32>
    %35 = stablehlo.transpose %34, dims = [0, 2, 1, 3] : (tensor<?x8x?x64xf32>) -> tensor<?x?x8x64xf32>
    %36 = stablehlo.dynamic_reshape %35, %bs512 : (tensor<?x?x8x64xf32>, tensor<3xi32>) -> tensor<?x?x512xf32>
    %37 = stablehlo.dot_general %36, %arg6, contracting_dims = [2] x [0] : (tensor<?x?x512xf32>, tensor<512x512xf32>) -> tensor<?x?x512xf32>
    %38 = stablehlo.add %arg2, %37 : tensor<?x?x512xf32>
    return %38 : tensor<?x?x512xf32>
  }
}
