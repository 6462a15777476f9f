// Complex arithmetic, fft, cholesky, triangular_solve, CHLO special
// functions and top_k, reduce_precision, f8E4M3FN and i4 element types,
// batch_norm_training, select_and_scatter, an argmax (two-input reduce) and
// map: through shloc_rt_op or native patterns, against `shloc run`.
func.func @main() -> tensor<79xf32> {
  %re = stablehlo.constant dense<[1.5, -2.0, 0.0, 3.0]> : tensor<4xf32>
  %im = stablehlo.constant dense<[0.5, 4.0, -1.0, 0x7F800000]> : tensor<4xf32>
  %z = stablehlo.complex %re, %im : tensor<4xcomplex<f32>>
  %zz = stablehlo.multiply %z, %z : tensor<4xcomplex<f32>>
  %ez = stablehlo.exponential %zz : tensor<4xcomplex<f32>>
  %r1 = stablehlo.real %zz : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %i1 = stablehlo.imag %ez : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %sig = stablehlo.constant dense<[1.0, 2.0, -1.0, 0.5, 0.0, 3.0, 1.0, 1.0]> : tensor<8xf32>
  %f = stablehlo.fft %sig, type = RFFT, length = [8] : (tensor<8xf32>) -> tensor<5xcomplex<f32>>
  %fa = stablehlo.abs %f : (tensor<5xcomplex<f32>>) -> tensor<5xf32>
  %a = stablehlo.constant dense<[[4.0, 2.0, 0.4], [2.0, 5.0, 1.0], [0.4, 1.0, 3.0]]> : tensor<3x3xf32>
  %l = stablehlo.cholesky %a, lower = true : tensor<3x3xf32>
  %b = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %ts = "stablehlo.triangular_solve"(%l, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %tsf = stablehlo.reshape %ts : (tensor<3x2xf32>) -> tensor<6xf32>
  %lf = stablehlo.reshape %l : (tensor<3x3xf32>) -> tensor<9xf32>
  %x = stablehlo.constant dense<[0.5, 2.5, -1.5, 7.0]> : tensor<4xf32>
  %lg = chlo.lgamma %x : tensor<4xf32> -> tensor<4xf32>
  %ei = chlo.erf_inv %re : tensor<4xf32> -> tensor<4xf32>
  %na = chlo.next_after %x, %re : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %tv, %ti = chlo.top_k(%sig, k = 3) : tensor<8xf32> -> (tensor<3xf32>, tensor<3xi32>)
  %tif = stablehlo.convert %ti : (tensor<3xi32>) -> tensor<3xf32>
  %rp = stablehlo.reduce_precision %x, format = e4m2 : tensor<4xf32>
  %f8 = stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
  %f8b = stablehlo.convert %f8 : (tensor<4xf8E4M3FN>) -> tensor<4xf32>
  %q = stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xi4>
  %q2 = stablehlo.add %q, %q : tensor<4xi4>
  %qf = stablehlo.convert %q2 : (tensor<4xi4>) -> tensor<4xf32>
  %bn_x = stablehlo.reshape %sig : (tensor<8xf32>) -> tensor<4x2xf32>
  %sc = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %of = stablehlo.constant dense<[0.0, -1.0]> : tensor<2xf32>
  %bn, %bm, %bv = "stablehlo.batch_norm_training"(%bn_x, %sc, %of) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>)
  %bnf = stablehlo.reshape %bn : (tensor<4x2xf32>) -> tensor<8xf32>
  %src = stablehlo.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %ss = "stablehlo.select_and_scatter"(%sig, %src, %zero) <{window_dimensions = array<i64: 3>, window_strides = array<i64: 3>, padding = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
  ^bb0(%p: tensor<f32>, %q3: tensor<f32>):
    %c = stablehlo.compare GE, %p, %q3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%p: tensor<f32>, %q3: tensor<f32>):
    %s = stablehlo.add %p, %q3 : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<8xf32>, tensor<3xf32>, tensor<f32>) -> tensor<8xf32>
  %io = stablehlo.iota dim = 0 : tensor<8xi32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %izero = stablehlo.constant dense<0> : tensor<i32>
  %am:2 = stablehlo.reduce(%sig init: %ninf), (%io init: %izero) across dimensions = [0] : (tensor<8xf32>, tensor<8xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
    reducer(%av: tensor<f32>, %bv2: tensor<f32>) (%ai: tensor<i32>, %bi: tensor<i32>) {
      %gt = stablehlo.compare GT, %av, %bv2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %mv = stablehlo.select %gt, %av, %bv2 : tensor<i1>, tensor<f32>
      %mi = stablehlo.select %gt, %ai, %bi : tensor<i1>, tensor<i32>
      stablehlo.return %mv, %mi : tensor<f32>, tensor<i32>
    }
  %amf = stablehlo.convert %am#1 : (tensor<i32>) -> tensor<f32>
  %amr = stablehlo.reshape %amf : (tensor<f32>) -> tensor<1xf32>
  %mp = "stablehlo.map"(%re, %x) ({
  ^bb0(%u: tensor<f32>, %v: tensor<f32>):
    %m = stablehlo.multiply %u, %v : tensor<f32>
    %n = stablehlo.subtract %m, %v : tensor<f32>
    stablehlo.return %n : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %all = stablehlo.concatenate %r1, %i1, %fa, %tsf, %lf, %lg, %ei, %na, %tv, %tif, %rp, %f8b, %qf, %bnf, %ss, %amr, %mp, dim = 0 : (tensor<4xf32>, tensor<4xf32>, tensor<5xf32>, tensor<6xf32>, tensor<9xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<1xf32>, tensor<4xf32>) -> tensor<79xf32>
  return %all : tensor<79xf32>
}
