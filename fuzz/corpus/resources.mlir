module {
  func.func @r() -> tensor<3xi8> {
    %0 = stablehlo.constant dense_resource<blob1> : tensor<3xi8>
    return %0 : tensor<3xi8>
  }
}
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x01000000010203"
    }
  }
#-}
