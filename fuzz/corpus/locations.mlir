#loc1 = loc("model.py":10:5)
module @m {
  func.func @f(%arg0: tensor<f32> loc("x"), %arg1: tensor<f32>) -> tensor<f32> {
    %0 = stablehlo.add %arg0, %arg1 : tensor<f32> loc(#loc1)
    %1 = stablehlo.add %0, %arg1 : tensor<f32> loc(callsite("g"("a.py":1:2) at "h"("b.py":3:4 to 3:9)))
    %2 = stablehlo.add %1, %0 : tensor<f32> loc(fused<"meta">["a", #loc2])
    return %2 : tensor<f32> loc(unknown)
  } loc(#loc)
} loc(#loc)
#loc = loc("model.py":1:1)
#loc2 = loc("name"(#loc1))
