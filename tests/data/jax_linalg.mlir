// jnp.linalg on CPU as jax.export writes it (jax-cpu-targets.md §4): reduced
// QR of a batch of 4x3 matrices, eigh and Cholesky of the symmetrised batch
// (results masked with NaN where info != 0), LU of an f64 matrix with the
// pivots made 0-based.  tests/cli/jax_linalg.sh checks it against NumPy.
func.func public @main(%x: tensor<2x4x3xf32>, %s: tensor<2x3x3xf32>, %g: tensor<3x3xf64>) -> (tensor<2x4x3xf32>, tensor<2x3x3xf32>, tensor<2x3x3xf32>, tensor<2x3xf32>, tensor<2x3x3xf32>, tensor<3x3xf64>, tensor<3xi32>, tensor<i32>) {
  %qr:2 = stablehlo.custom_call @lapack_sgeqrf_ffi(%x) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>]} : (tensor<2x4x3xf32>) -> (tensor<2x4x3xf32>, tensor<2x3xf32>)
  %q = stablehlo.custom_call @lapack_sorgqr_ffi(%qr#0, %qr#1) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>]} : (tensor<2x4x3xf32>, tensor<2x3xf32>) -> tensor<2x4x3xf32>
  %r0 = stablehlo.slice %qr#0 [0:2, 0:3, 0:3] : (tensor<2x4x3xf32>) -> tensor<2x3x3xf32>
  %i0 = stablehlo.iota dim = 1 : tensor<2x3x3xi32>
  %i1 = stablehlo.iota dim = 2 : tensor<2x3x3xi32>
  %upper = stablehlo.compare  LE, %i0, %i1,  SIGNED : (tensor<2x3x3xi32>, tensor<2x3x3xi32>) -> tensor<2x3x3xi1>
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<2x3x3xf32>
  %r = stablehlo.select %upper, %r0, %zero : tensor<2x3x3xi1>, tensor<2x3x3xf32>
  %st = stablehlo.transpose %s, dims = [0, 2, 1] : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %sum = stablehlo.add %s, %st : tensor<2x3x3xf32>
  %half = stablehlo.constant dense<5.000000e-01> : tensor<2x3x3xf32>
  %sym = stablehlo.multiply %sum, %half : tensor<2x3x3xf32>
  %ev:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%sym) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>]} : (tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2x3xf32>, tensor<2xi32>)
  %c0 = stablehlo.constant dense<0> : tensor<2xi32>
  %ok = stablehlo.compare  EQ, %ev#2, %c0,  SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
  %okv = stablehlo.broadcast_in_dim %ok, dims = [0] : (tensor<2xi1>) -> tensor<2x3xi1>
  %nanv = stablehlo.constant dense<0x7FC00000> : tensor<2x3xf32>
  %w = stablehlo.select %okv, %ev#1, %nanv : tensor<2x3xi1>, tensor<2x3xf32>
  %okm = stablehlo.broadcast_in_dim %ok, dims = [0] : (tensor<2xi1>) -> tensor<2x3x3xi1>
  %nanm = stablehlo.constant dense<0x7FC00000> : tensor<2x3x3xf32>
  %v = stablehlo.select %okm, %ev#0, %nanm : tensor<2x3x3xi1>, tensor<2x3x3xf32>
  %ch:2 = stablehlo.custom_call @lapack_spotrf_ffi(%sym) {mhlo.backend_config = {uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>]} : (tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<2xi32>)
  %lower = stablehlo.compare  GE, %i0, %i1,  SIGNED : (tensor<2x3x3xi32>, tensor<2x3x3xi32>) -> tensor<2x3x3xi1>
  %tril = stablehlo.select %lower, %ch#0, %zero : tensor<2x3x3xi1>, tensor<2x3x3xf32>
  %okc = stablehlo.compare  EQ, %ch#1, %c0,  SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
  %okcm = stablehlo.broadcast_in_dim %okc, dims = [0] : (tensor<2xi1>) -> tensor<2x3x3xi1>
  %l = stablehlo.select %okcm, %tril, %nanm : tensor<2x3x3xi1>, tensor<2x3x3xf32>
  %lu:3 = stablehlo.custom_call @lapack_dgetrf_ffi(%g) {mhlo.backend_config = {}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]} : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xi32>, tensor<i32>)
  %one = stablehlo.constant dense<1> : tensor<3xi32>
  %piv = stablehlo.subtract %lu#1, %one : tensor<3xi32>
  return %q, %r, %v, %w, %l, %lu#0, %piv, %lu#2 : tensor<2x4x3xf32>, tensor<2x3x3xf32>, tensor<2x3x3xf32>, tensor<2x3xf32>, tensor<2x3x3xf32>, tensor<3x3xf64>, tensor<3xi32>, tensor<i32>
}
