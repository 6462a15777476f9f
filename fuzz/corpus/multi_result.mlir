func.func @m(%arg0: tensor<i32>) -> tensor<i32> {
  %a, %b = "t.pair"(%arg0) : (tensor<i32>) -> (tensor<i32>, tensor<i32>)
  %c:3, %d = "t.four"(%a, %b) : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>)
  %e = "t.region"(%c#2) ({
  ^bb0(%x: tensor<i32>, %y: tensor<i32>):
    %s = stablehlo.add %x, %d : tensor<i32>
    "t.yield"(%s) : (tensor<i32>) -> ()
  ^bb1(%z: tensor<i32>):
    "t.yield"(%z) : (tensor<i32>) -> ()
  }, {
  }) : (tensor<i32>) -> tensor<i32>
  return %e : tensor<i32>
}
