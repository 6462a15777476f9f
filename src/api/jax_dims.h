/* JAX's symbolic dimensions ("b" in f32[b, 2*b + 1]) and dtype names, for
 * checking arrays against a jax.export envelope's avals. */
#ifndef SHLOC_API_JAX_DIMS_H
#define SHLOC_API_JAX_DIMS_H

#include "shloc/jax_export.h"
#include "support/status.h"

/* Values of dimension variables found in the inputs so far. */
#define JAX_MAX_DIMVARS 32
typedef struct {
  size_t n;
  const char *name[JAX_MAX_DIMVARS];
  long long value[JAX_MAX_DIMVARS];
} jax_dimvars;

/* Binds the variables that are whole dimensions of `a` to the actual dims. */
shl_status jax_dim_bind(const shloc_jax_aval *a, const int64_t *dims, int rank, jax_dimvars *vars);
/* Evaluates every dimension of `a` and compares it with the actual dims. */
shl_status jax_dim_check(const shloc_jax_aval *a, const int64_t *dims, int rank, const jax_dimvars *vars);
/* The MLIR element type name of a schema dtype (bool -> i1, c64 ->
 * complex<f32>, ...); NULL for float0 and PRNG keys. */
const char *jax_mlir_dtype(const char *dtype);

#endif
