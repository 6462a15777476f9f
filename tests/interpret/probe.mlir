// interpreter.probe and check.expect_serialized_eq: iter = K compares with the
// K-th value recorded under that probe id in the run (also across loop
// iterations and for quantized values, kept as their storage).

func.func @probe_in_a_loop() {
  %init = stablehlo.constant dense<1> : tensor<i32>
  %n = stablehlo.constant dense<3> : tensor<i32>
  %r = stablehlo.while(%x = %init) : tensor<i32>
    cond {
      %c = stablehlo.compare LT, %x, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %p = interpreter.probe %x, probe_id = "x" : tensor<i32>
      %y = stablehlo.add %p, %p : tensor<i32>
      stablehlo.return %y : tensor<i32>
    }
  %one = stablehlo.constant dense<1> : tensor<i32>
  %two = stablehlo.constant dense<2> : tensor<i32>
  check.expect_serialized_eq %one, probe_id = "x" : tensor<i32>
  check.expect_serialized_eq %two, probe_id = "x", iter = 1 : tensor<i32>
  check.expect_eq_const %r, dense<4> : tensor<i32>
  func.return
}

// -----

func.func @probe_types() {
  %f = stablehlo.constant dense<[[1.5, -0.0], [0x7F800000, 3.0]]> : tensor<2x2xf32>
  %pf = interpreter.probe %f, probe_id = "f/32" : tensor<2x2xf32>
  check.expect_serialized_eq %pf, probe_id = "f/32" : tensor<2x2xf32>
  %b = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %pb = interpreter.probe %b, probe_id = "b" : tensor<2xi1>
  check.expect_serialized_eq %pb, probe_id = "b" : tensor<2xi1>
  %x = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %q = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.5:3>>
  %pq = interpreter.probe %q, probe_id = "q" : tensor<2x!quant.uniform<i8:f32, 0.5:3>>
  check.expect_serialized_eq %pq, probe_id = "q" : tensor<2x!quant.uniform<i8:f32, 0.5:3>>
  func.return
}
