// reduce_precision on f32/f16/bf16/f64 with formats that round the mantissa to
// nearest even (ties), flush exponents to 0 or inf, keep mantissa 0 (NaN -> inf
// pattern rule), on zeros, inf, NaN payloads, f16 overflow and subnormals:
// the bit patterns, compiled vs shloc run.
func.func @main() -> tensor<620xi64> {
  %x = stablehlo.constant dense<[0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x3F800000, 0xBF800000, 0x3FC00000, 0x477FE000, 0x477FF000, 0x47C35000, 0x387FDA40, 0x337FFAE5, 0x32FFFAE5, 0x0DA24260, 0x7F7FC99E, 0x3F801000, 0x3F801800, 0x3F802000, 0xC0200000, 0x3DCCCCCD, 0xC1062980, 0xCD3D3939, 0x4354D407, 0x422595C7, 0xCAF9420C, 0xBFFC0C77, 0xC68805C6, 0xC8F399F2, 0x3B4B4A0D, 0x340E67E1, 0xB4894185, 0x40BC706F, 0xAF6168DB, 0x31AF867D, 0xC2AE6322, 0xC8EA178E, 0xCBF01F3A, 0xC2EC1A1B, 0x4BE01361, 0xC8662D78, 0x3CD79A3F, 0x41E999DB, 0xCC62D508, 0xBBBB50CF, 0xB44E1A78, 0xB527A90D, 0x3DEE536A, 0x4B0ED57F, 0xBFCBBFCA, 0x422ABD83, 0xC218AAEC, 0xB63D48DD, 0x45CEF389, 0x30D4DAAB, 0x43367A23, 0x34AF6255, 0x39CB61F5, 0x4CEDE45F, 0x32135D76, 0x365AF2D9, 0x7FC00001, 0x7F800001]> : tensor<62xf32>
  %r0 = stablehlo.reduce_precision %x, format = e5m10 : tensor<62xf32>
  %b0 = stablehlo.bitcast_convert %r0 : (tensor<62xf32>) -> tensor<62xi32>
  %w0 = stablehlo.convert %b0 : (tensor<62xi32>) -> tensor<62xi64>
  %r1 = stablehlo.reduce_precision %x, format = e8m7 : tensor<62xf32>
  %b1 = stablehlo.bitcast_convert %r1 : (tensor<62xf32>) -> tensor<62xi32>
  %w1 = stablehlo.convert %b1 : (tensor<62xi32>) -> tensor<62xi64>
  %r2 = stablehlo.reduce_precision %x, format = e2m1 : tensor<62xf32>
  %b2 = stablehlo.bitcast_convert %r2 : (tensor<62xf32>) -> tensor<62xi32>
  %w2 = stablehlo.convert %b2 : (tensor<62xi32>) -> tensor<62xi64>
  %r3 = stablehlo.reduce_precision %x, format = e8m0 : tensor<62xf32>
  %b3 = stablehlo.bitcast_convert %r3 : (tensor<62xf32>) -> tensor<62xi32>
  %w3 = stablehlo.convert %b3 : (tensor<62xi32>) -> tensor<62xi64>
  %r4 = stablehlo.reduce_precision %x, format = e3m23 : tensor<62xf32>
  %b4 = stablehlo.bitcast_convert %r4 : (tensor<62xf32>) -> tensor<62xi32>
  %w4 = stablehlo.convert %b4 : (tensor<62xi32>) -> tensor<62xi64>
  %c5 = stablehlo.convert %x : (tensor<62xf32>) -> tensor<62xf16>
  %r5 = stablehlo.reduce_precision %c5, format = e4m3 : tensor<62xf16>
  %b5 = stablehlo.bitcast_convert %r5 : (tensor<62xf16>) -> tensor<62xi16>
  %w5 = stablehlo.convert %b5 : (tensor<62xi16>) -> tensor<62xi64>
  %c6 = stablehlo.convert %x : (tensor<62xf32>) -> tensor<62xbf16>
  %r6 = stablehlo.reduce_precision %c6, format = e5m2 : tensor<62xbf16>
  %b6 = stablehlo.bitcast_convert %r6 : (tensor<62xbf16>) -> tensor<62xi16>
  %w6 = stablehlo.convert %b6 : (tensor<62xi16>) -> tensor<62xi64>
  %c7 = stablehlo.convert %x : (tensor<62xf32>) -> tensor<62xf16>
  %r7 = stablehlo.reduce_precision %c7, format = e5m0 : tensor<62xf16>
  %b7 = stablehlo.bitcast_convert %r7 : (tensor<62xf16>) -> tensor<62xi16>
  %w7 = stablehlo.convert %b7 : (tensor<62xi16>) -> tensor<62xi64>
  %c8 = stablehlo.convert %x : (tensor<62xf32>) -> tensor<62xf64>
  %r8 = stablehlo.reduce_precision %c8, format = e8m23 : tensor<62xf64>
  %b8 = stablehlo.bitcast_convert %r8 : (tensor<62xf64>) -> tensor<62xi64>
  %c9 = stablehlo.convert %x : (tensor<62xf32>) -> tensor<62xf64>
  %r9 = stablehlo.reduce_precision %c9, format = e11m20 : tensor<62xf64>
  %b9 = stablehlo.bitcast_convert %r9 : (tensor<62xf64>) -> tensor<62xi64>
  %all = stablehlo.concatenate %w0, %w1, %w2, %w3, %w4, %w5, %w6, %w7, %b8, %b9, dim = 0 : (tensor<62xi64>, tensor<62xi64>, tensor<62xi64>, tensor<62xi64>, tensor<62xi64>, tensor<62xi64>, tensor<62xi64>, tensor<62xi64>, tensor<62xi64>, tensor<62xi64>) -> tensor<620xi64>
  return %all : tensor<620xi64>
}
