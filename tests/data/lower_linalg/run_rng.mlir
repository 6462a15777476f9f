// rng_bit_generator (Threefry and Philox) through shloc_rt_op: the state and
// the ui64 bits come back through the call-out ABI; bitcast_convert and
// unsigned -> signed reinterpretation stay native.
func.func @main() -> tensor<20xi64> {
  %s = stablehlo.constant dense<[1, 4000000000000000000]> : tensor<2xui64>
  %st, %bits = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3x2xui64>)
  %s3 = stablehlo.constant dense<[7, 11, 13]> : tensor<3xui64>
  %pst, %pbits = stablehlo.rng_bit_generator %s3, algorithm = PHILOX : (tensor<3xui64>) -> (tensor<3xui64>, tensor<7xui32>)
  %b = stablehlo.reshape %bits : (tensor<3x2xui64>) -> tensor<6xui64>
  %u = stablehlo.concatenate %st, %b, %pst, dim = 0 : (tensor<2xui64>, tensor<6xui64>, tensor<3xui64>) -> tensor<11xui64>
  %i = stablehlo.bitcast_convert %u : (tensor<11xui64>) -> tensor<11xi64>
  %p32 = stablehlo.convert %pbits : (tensor<7xui32>) -> tensor<7xi64>
  %pb = stablehlo.slice %pbits [0:2] : (tensor<7xui32>) -> tensor<2xui32>
  %pb2 = stablehlo.reshape %pb : (tensor<2xui32>) -> tensor<1x2xui32>
  %p64 = stablehlo.bitcast_convert %pb2 : (tensor<1x2xui32>) -> tensor<1xi64>
  %pn = stablehlo.convert %p64 : (tensor<1xi64>) -> tensor<1xi64>
  %h = stablehlo.constant dense<-1> : tensor<1xi64>
  %r = stablehlo.concatenate %i, %p32, %pn, %h, dim = 0 : (tensor<11xi64>, tensor<7xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<20xi64>
  return %r : tensor<20xi64>
}
