"t.attrs"() {
  i = 42, j = -3 : i8, k = 0xFF : ui8, b = true, u, f = 1.5 : f32, g = 0x7FF0000000000000 : f64, h = nan : bf16,
  s = "esc \22 \\ \0A \FF", arr = [1, 2.5, "x", [], {}], da = array<i64: 1, -2>, df = array<f32: 1.0>,
  d = {"quoted name" = 1, nested = {x = [@a::@b, @"q sym"]}},
  t = tensor<?x4xf32>, t2 = tensor<*xf32>, ft = (i32, tensor<2xf32>) -> (), tt = tuple<f32, !stablehlo.token>, c = complex<f64>,
  e = #stablehlo<comparison_direction GE>, p = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>],
  gd = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>,
  dd = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>,
  cv = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>,
  sh = #sdy.sharding<@mesh, [{}, {"x"}]>, q = !quant.uniform<i8:f32, 0.5:10>, o = #foo.bar<"x" -> [y]>,
  bounds = tensor<?x2xf32, #stablehlo.bounds<4, ?>>, r = dense_resource<blob> : tensor<2xi8>
} : () -> ()
