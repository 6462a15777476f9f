// UPSTREAM
// Symbol names: targets are sanitized into C identifiers, and a name that is
// taken (by a function of the module, or by a declaration with another
// signature or other attributes) gets a "_N" suffix.  Identical calls share
// one declaration.
module @names {
  func.func @main(%arg0: tensor<3xf32>) -> tensor<3xf32> {
    %0 = stablehlo.custom_call @"my.op-v2"(%arg0) {api_version = 4 : i32} : (tensor<3xf32>) -> tensor<3xf32>
    %1 = stablehlo.custom_call @my_op_v2(%0) {api_version = 4 : i32} : (tensor<3xf32>) -> tensor<3xf32>
    %2 = stablehlo.custom_call @"2fast"(%1) {api_version = 4 : i32} : (tensor<3xf32>) -> tensor<3xf32>
    %3 = stablehlo.custom_call @main(%2) {api_version = 4 : i32} : (tensor<3xf32>) -> tensor<3xf32>
    %4 = stablehlo.custom_call @helper(%3) {api_version = 4 : i32} : (tensor<3xf32>) -> tensor<3xf32>
    %5 = stablehlo.custom_call @"my.op-v2"(%4) {api_version = 4 : i32} : (tensor<3xf32>) -> tensor<3xf32>
    %6 = stablehlo.custom_call @"my.op-v2"(%arg0, %5) {api_version = 4 : i32} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %7 = stablehlo.custom_call @""(%6) {api_version = 4 : i32} : (tensor<3xf32>) -> tensor<3xf32>
    %8 = call @helper(%7) : (tensor<3xf32>) -> tensor<3xf32>
    return %8 : tensor<3xf32>
  }
  func.func private @helper(%arg0: tensor<3xf32>) -> tensor<3xf32> {
    return %arg0 : tensor<3xf32>
  }
}
