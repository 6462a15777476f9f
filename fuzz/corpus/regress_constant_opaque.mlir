"builtin.module"() ({
  "func.func"() <{function_type = () -> tensor<f32>, sym_name = "f"}> ({
    %0 = "stablehlo.constant"() <{value = #sdy.sharding<@mesh, [{}, {"x"}]>}> : () -> tensor<f32>
    "func.return"(%0) : (tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()
