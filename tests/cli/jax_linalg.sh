#!/bin/sh
# The built-in JAX CPU LAPACK targets end to end:
# 1. tests/data/jax_linalg.mlir (jnp.linalg.qr / eigh / cholesky / lu as
#    jax.export writes them) through `shloc run` with .npy inputs, checked
#    against NumPy's own LAPACK results.  Skipped (77) without NumPy.
# 2. `shloc lower-custom-calls --shim` names the exported handler
#    (shloc_lapack_dgetrf_ffi) and the shim links against libshloc.a alone;
#    a C driver calls it and checks P·A = L·U.
# 3. Without BLAS/LAPACKE the module still parses; running it fails at the op.
SHLOC=${1:?usage: jax_linalg.sh SHLOC}
SRC=${SHLOC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
LIBSHLOC=$(dirname "$SHLOC")/libshloc.a
CC=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# ---- 2: the shim links the exported handler ----
cat > "$tmp/lu.mlir" <<'MLIR'
func.func @main(%g: tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xi32>, tensor<i32>) {
  %lu:3 = stablehlo.custom_call @lapack_dgetrf_ffi(%g) {mhlo.backend_config = {}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]} : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xi32>, tensor<i32>)
  return %lu#0, %lu#1, %lu#2 : tensor<3x3xf64>, tensor<3xi32>, tensor<i32>
}
MLIR
"$SHLOC" lower-custom-calls "$tmp/lu.mlir" -o "$tmp/lu.low.mlir" --shim "$tmp/shim.c" || fail "lower-custom-calls"
grep -q "^XLA_FFI_Handler shloc_lapack_dgetrf_ffi;" "$tmp/shim.c" || fail "the shim does not call shloc_lapack_dgetrf_ffi"
if command -v "$CC" >/dev/null 2>&1 && [ -f "$LIBSHLOC" ]; then
  cat > "$tmp/driver.c" <<'C'
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
typedef struct { void *allocated, *aligned; int64_t offset, sizes[2], strides[2]; } m2;
typedef struct { void *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } m1;
typedef struct { void *allocated, *aligned; int64_t offset; } m0;
typedef struct { m2 lu; m1 ipiv; m0 info; } results;
void _mlir_ciface_lapack_dgetrf_ffi(results *r, m2 *a);
int main(void) {
  double a[9] = {1, 2, 3, 4, 5, 6, 7, 8, 10}, pa[9];
  m2 in = {a, a, 0, {3, 3}, {3, 1}};
  results r = {{0, 0, 0, {3, 3}, {3, 1}}, {0, 0, 0, {3}, {1}}, {0, 0, 0}};
  _mlir_ciface_lapack_dgetrf_ffi(&r, &in);
  const double *lu = r.lu.aligned;
  const int32_t *ipiv = r.ipiv.aligned;
  for (int i = 0; i < 9; i++) pa[i] = a[i];
  for (int i = 0; i < 3; i++) /* 1-based row interchanges */
    for (int j = 0; j < 3; j++) {
      double t = pa[i * 3 + j];
      pa[i * 3 + j] = pa[(ipiv[i] - 1) * 3 + j];
      pa[(ipiv[i] - 1) * 3 + j] = t;
    }
  double err = 0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double s = 0;
      for (int k = 0; k <= (i < j ? i : j); k++) s += (k == i ? 1 : lu[i * 3 + k]) * lu[k * 3 + j];
      err = fmax(err, fabs(s - pa[i * 3 + j]));
    }
  int info = *(int32_t *)r.info.aligned;
  printf("info %d ipiv %d %d %d err %g\n", info, ipiv[0], ipiv[1], ipiv[2], err);
  free(r.lu.allocated);
  free(r.ipiv.allocated);
  free(r.info.allocated);
  return err < 1e-12 && info == 0 ? 0 : 1;
}
C
  # a sanitizer build of libshloc needs the sanitizer runtimes
  SAN=
  if nm "$LIBSHLOC" 2>/dev/null | grep -q __asan_init; then SAN="-fsanitize=address,undefined"; fi
  "$CC" -std=c11 -O2 $SAN -I"$SRC/include" "$tmp/shim.c" "$tmp/driver.c" "$LIBSHLOC" -fopenmp -lm -ldl -lpthread \
    -o "$tmp/driver" || fail "compiling and linking the shim with libshloc.a"
  "$tmp/driver" || fail "the linked shim gives a wrong LU"
fi

# ---- 3: LAPACKE is opened at the first call: without it the call fails at the op ----
mkdir "$tmp/nolibs"
for f in libopenblas.so.0 libopenblas.so libblas.so.3 liblapacke.so.3 liblapacke.so; do : > "$tmp/nolibs/$f"; done
cat > "$tmp/luc.mlir" <<'MLIR'
func.func @main() -> tensor<i32> {
  %g = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf64>
  %lu:3 = stablehlo.custom_call @lapack_dgetrf_ffi(%g) {mhlo.backend_config = {}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]} : (tensor<2x2xf64>) -> (tensor<2x2xf64>, tensor<2xi32>, tensor<i32>)
  return %lu#2 : tensor<i32>
}
MLIR
[ "$("$SHLOC" run "$tmp/luc.mlir" --print)" = "dense<0> : tensor<i32>" ] || fail "luc.mlir with the libraries"
LD_LIBRARY_PATH="$tmp/nolibs" "$SHLOC" check "$tmp/luc.mlir" || fail "check"
if LD_LIBRARY_PATH="$tmp/nolibs" "$SHLOC" run "$tmp/luc.mlir" > /dev/null 2> "$tmp/err.txt"; then fail "ran without LAPACKE"; fi
grep -q "luc.mlir:3:3: error: custom call 'lapack_dgetrf_ffi': UNAVAILABLE: BLAS/LAPACKE: cannot load" "$tmp/err.txt" ||
  { cat "$tmp/err.txt"; fail "missing library error"; }

# ---- 1: a jnp.linalg-style module against NumPy ----
PY=
for py in python3 /usr/bin/python3; do
  if "$py" -c "import numpy" >/dev/null 2>&1; then PY=$py; break; fi
done
[ -n "$PY" ] || { echo "SKIP: NumPy not available"; exit 77; }
"$PY" - "$tmp" <<'PYTHON' || fail "writing the inputs"
import sys, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(7)
np.save(d + "/x.npy", rng.standard_normal((2, 4, 3)).astype(np.float32))
s = rng.standard_normal((2, 3, 3)).astype(np.float32)
s[0] = s[0] @ s[0].T + 3 * np.eye(3, dtype=np.float32)   # positive definite
s[1] = s[1] + s[1].T - 10 * np.eye(3, dtype=np.float32)  # not: its Cholesky is masked with NaN
np.save(d + "/s.npy", s)
np.save(d + "/g.npy", rng.standard_normal((3, 3)))
PYTHON
"$SHLOC" run "$SRC/tests/data/jax_linalg.mlir" -i "$tmp/x.npy" -i "$tmp/s.npy" -i "$tmp/g.npy" \
  -o "$tmp/q.npy" -o "$tmp/r.npy" -o "$tmp/v.npy" -o "$tmp/w.npy" -o "$tmp/l.npy" -o "$tmp/lu.npy" \
  -o "$tmp/piv.npy" -o "$tmp/info.npy" || fail "shloc run"
"$PY" - "$tmp" <<'PYTHON' || fail "results differ from NumPy"
import sys, numpy as np
d = sys.argv[1]
ld = lambda n: np.load(d + "/" + n + ".npy")
x, s, g = ld("x"), ld("s"), ld("g")
q, r, v, w, l, lu, piv, info = (ld(n) for n in ("q", "r", "v", "w", "l", "lu", "piv", "info"))
def close(a, b, tol, what):
    if not np.allclose(a, b, rtol=tol, atol=tol):
        print(what, "differs:\n", a, "\n", b); sys.exit(1)
sym = (s + np.swapaxes(s, 1, 2)) / 2
for b in range(2):
    qn, rn = np.linalg.qr(x[b].astype(np.float64))   # the same LAPACK conventions (Householder signs)
    close(q[b], qn, 1e-5, "Q")
    close(r[b], rn, 1e-5, "R")
    close(w[b], np.linalg.eigvalsh(sym[b].astype(np.float64)), 1e-4, "eigenvalues")
    close(sym[b] @ v[b], v[b] * w[b], 1e-4, "A·V = V·diag(w)")
close(l[0], np.linalg.cholesky(sym[0].astype(np.float64)), 1e-5, "Cholesky")
if not np.all(np.isnan(l[1])): print("the masked Cholesky is not NaN:", l[1]); sys.exit(1)
perm = np.arange(3)
for i, p in enumerate(piv): perm[[i, p]] = perm[[p, i]]
L = np.tril(lu, -1) + np.eye(3); U = np.triu(lu)
close(g[perm], L @ U, 1e-12, "P·A = L·U")
if info != 0 or piv[0] != np.argmax(np.abs(g[:, 0])): print("info/pivot", info, piv); sys.exit(1)
print("ok")
PYTHON
