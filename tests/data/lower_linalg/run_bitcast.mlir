// bitcast_convert between element widths (little-endian, low part first):
// i32 -> 4 x ui8 -> i32, f64 -> 2 x f32, 2 x bf16 -> f32, 8 x f8E4M3FN -> i64,
// with negative values, NaN and -0: compiled vs shloc run, bit patterns as i64.
func.func @main() -> tensor<36xi64> {
  %a = stablehlo.constant dense<[-1, 305419896, -2147483648, 7]> : tensor<4xi32>
  %b = stablehlo.bitcast_convert %a : (tensor<4xi32>) -> tensor<4x4xui8>
  %bw = stablehlo.convert %b : (tensor<4x4xui8>) -> tensor<4x4xi64>
  %bf = stablehlo.reshape %bw : (tensor<4x4xi64>) -> tensor<16xi64>
  %c = stablehlo.bitcast_convert %b : (tensor<4x4xui8>) -> tensor<4xi32>
  %cw = stablehlo.convert %c : (tensor<4xi32>) -> tensor<4xi64>
  %d = stablehlo.constant dense<[1.0, -0.0, 0x7FF8000000000123]> : tensor<3xf64>
  %e = stablehlo.bitcast_convert %d : (tensor<3xf64>) -> tensor<3x2xf32>
  %ei = stablehlo.bitcast_convert %e : (tensor<3x2xf32>) -> tensor<3x2xi32>
  %ew = stablehlo.convert %ei : (tensor<3x2xi32>) -> tensor<3x2xi64>
  %ef = stablehlo.reshape %ew : (tensor<3x2xi64>) -> tensor<6xi64>
  %g = stablehlo.constant dense<[[1.0, -2.0], [0.5, 0x7FC0], [-0.0, 3.0], [65280.0, 1.0e-3]]> : tensor<4x2xbf16>
  %h = stablehlo.bitcast_convert %g : (tensor<4x2xbf16>) -> tensor<4xf32>
  %hi = stablehlo.bitcast_convert %h : (tensor<4xf32>) -> tensor<4xi32>
  %hw = stablehlo.convert %hi : (tensor<4xi32>) -> tensor<4xi64>
  %k = stablehlo.constant dense<[[1.0, -1.0, 0.5, 448.0, -0.0, 2.0, 3.0, 0.125], [0.0, 1.5, -3.0, 0.25, 6.0, -448.0, 0.015625, 1.0]]> : tensor<2x8xf8E4M3FN>
  %l = stablehlo.bitcast_convert %k : (tensor<2x8xf8E4M3FN>) -> tensor<2xi64>
  %m = stablehlo.bitcast_convert %l : (tensor<2xi64>) -> tensor<2x2xf32>
  %mi = stablehlo.bitcast_convert %m : (tensor<2x2xf32>) -> tensor<2x2xi32>
  %mw = stablehlo.convert %mi : (tensor<2x2xi32>) -> tensor<2x2xi64>
  %mf = stablehlo.reshape %mw : (tensor<2x2xi64>) -> tensor<4xi64>
  %all = stablehlo.concatenate %bf, %cw, %ef, %hw, %l, %mf, dim = 0 : (tensor<16xi64>, tensor<4xi64>, tensor<6xi64>, tensor<4xi64>, tensor<2xi64>, tensor<4xi64>) -> tensor<36xi64>
  return %all : tensor<36xi64>
}
