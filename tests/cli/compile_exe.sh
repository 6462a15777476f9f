#!/bin/sh
# shloc compile to executables and objects (README: "Compiling through
# upstream MLIR"):
#  1. tests/data/compile/dot_layouts.mlir (BLAS call-outs, with operand
#     transpositions where the layout needs them) compiled to an executable, run on random .npy inputs, results
#     compared with numpy's einsum in double precision;
#  1b. tests/data/compile/reduce_split.mlir (split float reductions, tiles on
#     OpenMP threads), scatter_rows.mlir (native row scatters) and
#     exp_logistic.mlir (inlined exp/logistic) pass their own checks, and
#     fail with a wrong expectation; softmax groups (one block, blocks on
#     threads) equal numpy's softmax in double precision and `shloc run`;
#  2. check runtime: a passing program exits 0, a failing check exits 1 naming
#     file:line:col, the op, index, actual and expected; every check form of
#     tests/data/compile/checks.mlir passes;
#  3. an object + header: a C program includes the header, links the object
#     with libshloc.a and calls MODULE_FUNC;
#  4. bad input: an op without a lowering is named with its location; a
#     failing upstream tool shows its own diagnostic and the command line.
# Skipped (exit 77) without mlir-opt-22, mlir-translate-22, clang-22 or numpy.
SHLOC=${1:?usage: compile_exe.sh SHLOC}
SRC=${SHLOC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
DATA=$SRC/tests/data/compile
for tool in mlir-opt-22 mlir-translate-22 clang-22; do
  command -v $tool >/dev/null 2>&1 || { echo "skipped: $tool not installed"; exit 77; }
done
PY=
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import numpy' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || { echo "skipped: python3 with numpy not available"; exit 77; }
# A sanitizer build's libshloc.a needs gcc's sanitizer runtimes where it is linked.
if [ "${SHLOC_SANITIZE:-0}" = 1 ]; then
  export SHLOC_CC=cc
  LINK="--link -fsanitize=address,undefined"
else
  LINK=""
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 1. dot_general layouts against numpy.
"$SHLOC" compile "$DATA/dot_layouts.mlir" -o "$tmp/dot" --keep "$tmp/keep" $LINK || fail "compiling dot_layouts"
n=$(grep -c "func.call @shloc_rt_gemm_" "$tmp/keep/lowered.mlir")
[ "$n" = 10 ] || fail "dot_layouts: expected 10 BLAS calls, got $n"
n=$(grep -c "linalg.transpose" "$tmp/keep/lowered.mlir")
[ "$n" = 3 ] || fail "dot_layouts: expected 3 operand transpositions, got $n"
"$PY" - "$tmp" <<'PY' || fail "dot_layouts: results differ from numpy"
import subprocess, sys, os, numpy as np
tmp = sys.argv[1]
cases = [  # lhs, rhs, lhs/rhs batching, lhs/rhs contracting, dtype (as in dot_layouts.mlir)
    ((4, 3), (3, 5), [], [], [1], [0], np.float32), ((3, 4), (3, 5), [], [], [0], [0], np.float32),
    ((4, 3), (5, 3), [], [], [1], [1], np.float64), ((2, 4, 3), (2, 3, 5), [0], [0], [2], [1], np.float32),
    ((2, 3, 4), (2, 5, 3), [0], [0], [1], [2], np.float64), ((3,), (3, 5), [], [], [0], [0], np.float32),
    ((2, 3, 2), (3, 2, 4), [], [], [1, 2], [0, 1], np.float32), ((4, 3), (3, 5), [], [], [], [], np.float32),
    ((2, 3, 4), (3, 2, 5), [], [], [1], [0], np.float32),
    ((4, 3, 2, 5), (4, 6, 2, 5), [0, 2], [0, 2], [3], [3], np.float32)]
rng = np.random.default_rng(11)
args, want = [], []
for i, (ls, rs, lb, rb, lc, rc, dt) in enumerate(cases):
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    a = rng.standard_normal(ls).astype(dt); b = rng.standard_normal(rs).astype(dt)
    for name, x in (("a", a), ("b", b)):
        p = os.path.join(tmp, "%s%d.npy" % (name, i)); np.save(p, x); args += ["--input", p]
    la = [None] * len(ls); ra = [None] * len(rs); out_b, out_l, out_r = [], [], []
    for x, y in zip(lb, rb):
        c = next(letters); la[x] = ra[y] = c; out_b.append(c)
    for x, y in zip(lc, rc):
        c = next(letters); la[x] = ra[y] = c
    for k in range(len(ls)):
        if la[k] is None: la[k] = c = next(letters); out_l.append(c)
    for k in range(len(rs)):
        if ra[k] is None: ra[k] = c = next(letters); out_r.append(c)
    spec = "%s,%s->%s" % ("".join(la), "".join(ra), "".join(out_b + out_l + out_r))
    want.append(np.einsum(spec, a.astype(np.float64), b.astype(np.float64)))
out = os.path.join(tmp, "out"); os.mkdir(out)
subprocess.run([os.path.join(tmp, "dot")] + args + ["-o", out], check=True)
for i, w in enumerate(want):
    got = np.load(os.path.join(out, "result%d.npy" % i))
    tol = 1e-5 if got.dtype == np.float32 else 1e-12
    assert got.shape == w.shape, (i, got.shape, w.shape)
    err = np.max(np.abs(got - w) / (1 + np.abs(w))) if w.size else 0
    assert err <= tol, (i, err)
print("ok: dot_layouts: 10 products through BLAS equal numpy's")
PY

# 1b. f32 tanh, exp, logistic and expm1 are lowered as the interpreter
# computes them: bit for bit equal to `shloc run` (tanh: XLA's rational
# approximation; exp and logistic: its vector kernels).
cat >"$tmp/math.mlir" <<'M'
func.func @main(%x: tensor<4096xf32>) -> (tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>) {
  %t = stablehlo.tanh %x : tensor<4096xf32>
  %e = stablehlo.exponential_minus_one %x : tensor<4096xf32>
  %x2 = stablehlo.exponential %x : tensor<4096xf32>
  %l = stablehlo.logistic %x : tensor<4096xf32>
  return %t, %e, %x2, %l : tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>
}
M
"$SHLOC" compile "$tmp/math.mlir" -o "$tmp/math" $LINK || fail "compiling math.mlir"
"$PY" - "$tmp" "$SHLOC" <<'PY' || fail "math: compiled results differ from shloc run"
import os, subprocess, sys, numpy as np
tmp, shloc = sys.argv[1:]
rng = np.random.default_rng(2)
x = (rng.standard_normal(4096) * 4).astype(np.float32)
x[2048:] *= 12  # exp and logistic beyond +-87: subnormal results, underflow, overflow
x[:12] = [0, -0.0, 1e-5, -3e-4, 4e-4, 7.9, -7.95, 8.5, np.inf, -np.inf, np.nan, 1e-30]
np.save(os.path.join(tmp, "mx.npy"), x)
os.mkdir(os.path.join(tmp, "mout"))
subprocess.run([os.path.join(tmp, "math"), "--input", os.path.join(tmp, "mx.npy"), "-o", os.path.join(tmp, "mout")], check=True)
subprocess.run([shloc, "run", os.path.join(tmp, "math.mlir"), "--input", os.path.join(tmp, "mx.npy"),
                "-o", os.path.join(tmp, "t.npy"), "-o", os.path.join(tmp, "e.npy"),
                "-o", os.path.join(tmp, "x.npy"), "-o", os.path.join(tmp, "l.npy")], check=True)
t = np.load(os.path.join(tmp, "mout", "result0.npy")); e = np.load(os.path.join(tmp, "mout", "result1.npy"))
tr = np.load(os.path.join(tmp, "t.npy")); er = np.load(os.path.join(tmp, "e.npy"))
for i, name in ((0, "t"), (2, "x"), (3, "l")):
    c = np.load(os.path.join(tmp, "mout", "result%d.npy" % i)).view(np.int32)
    r = np.load(os.path.join(tmp, name + ".npy")).view(np.int32)
    assert (c == r).all(), "%s differs at %s" % (name, np.nonzero(c != r)[0][:5])
# expm1: libm's expm1f against the interpreter's (XLA's) formula: within 4 ULP
ulp = np.abs(e.view(np.int32).astype(np.int64) - er.view(np.int32).astype(np.int64))
fin = np.isfinite(er)
assert (np.isnan(e) == np.isnan(er)).all() and ulp[fin].max() <= 4, ulp[fin].max()
print("ok: tanh, exp, logistic bit-exact, expm1 within %d ULP of shloc run" % ulp[fin].max())
PY

# 1c. Softmax groups (lower_linalg_softmax.c): blocks of rows on threads
# (512 x 256, scaled by 1/8 before the maximum, the attention pattern) and
# one block (3 x 48, x / 2; 2 x 40: rows not a multiple of 16 lanes, not
# matched), against numpy in double precision and `shloc run`.
cat >"$tmp/softmax.mlir" <<'M'
func.func @main(%x: tensor<2x256x256xf32>, %y: tensor<3x48xf32>, %z: tensor<2x40xf32>) -> (tensor<2x256x256xf32>, tensor<3x48xf32>, tensor<2x40xf32>) {
  %c8 = stablehlo.constant dense<8.0> : tensor<f32>
  %b8 = stablehlo.broadcast_in_dim %c8, dims = [] : (tensor<f32>) -> tensor<2x256x256xf32>
  %p = stablehlo.divide %x, %b8 : tensor<2x256x256xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m = stablehlo.reduce(%p init: %ninf) applies stablehlo.maximum across dimensions = [2] : (tensor<2x256x256xf32>, tensor<f32>) -> tensor<2x256xf32>
  %m1 = stablehlo.broadcast_in_dim %m, dims = [0, 1] : (tensor<2x256xf32>) -> tensor<2x256x1xf32>
  %mb = stablehlo.broadcast_in_dim %m1, dims = [0, 1, 2] : (tensor<2x256x1xf32>) -> tensor<2x256x256xf32>
  %d = stablehlo.subtract %p, %mb : tensor<2x256x256xf32>
  %e = stablehlo.exponential %d : tensor<2x256x256xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<2x256x256xf32>, tensor<f32>) -> tensor<2x256xf32>
  %s1 = stablehlo.reshape %s : (tensor<2x256xf32>) -> tensor<2x256x1xf32>
  %sb = stablehlo.broadcast_in_dim %s1, dims = [0, 1, 2] : (tensor<2x256x1xf32>) -> tensor<2x256x256xf32>
  %r = stablehlo.divide %e, %sb : tensor<2x256x256xf32>
  %c2 = stablehlo.constant dense<2.0> : tensor<f32>
  %b2 = stablehlo.broadcast_in_dim %c2, dims = [] : (tensor<f32>) -> tensor<3x48xf32>
  %q = stablehlo.multiply %y, %b2 : tensor<3x48xf32>
  %qm = stablehlo.reduce(%q init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<3x48xf32>, tensor<f32>) -> tensor<3xf32>
  %qmb = stablehlo.broadcast_in_dim %qm, dims = [0] : (tensor<3xf32>) -> tensor<3x48xf32>
  %qd = stablehlo.subtract %q, %qmb : tensor<3x48xf32>
  %qe = stablehlo.exponential %qd : tensor<3x48xf32>
  %qs = stablehlo.reduce(%qe init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<3x48xf32>, tensor<f32>) -> tensor<3xf32>
  %qsb = stablehlo.broadcast_in_dim %qs, dims = [0] : (tensor<3xf32>) -> tensor<3x48xf32>
  %qr = stablehlo.divide %qe, %qsb : tensor<3x48xf32>
  %zm = stablehlo.reduce(%z init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<2x40xf32>, tensor<f32>) -> tensor<2xf32>
  %zmb = stablehlo.broadcast_in_dim %zm, dims = [0] : (tensor<2xf32>) -> tensor<2x40xf32>
  %zd = stablehlo.subtract %z, %zmb : tensor<2x40xf32>
  %ze = stablehlo.exponential %zd : tensor<2x40xf32>
  %zs = stablehlo.reduce(%ze init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<2x40xf32>, tensor<f32>) -> tensor<2xf32>
  %zsb = stablehlo.broadcast_in_dim %zs, dims = [0] : (tensor<2xf32>) -> tensor<2x40xf32>
  %zr = stablehlo.divide %ze, %zsb : tensor<2x40xf32>
  return %r, %qr, %zr : tensor<2x256x256xf32>, tensor<3x48xf32>, tensor<2x40xf32>
}
M
"$SHLOC" compile "$tmp/softmax.mlir" -o "$tmp/softmax" --keep "$tmp/sm_keep" $LINK || fail "compiling softmax.mlir"
n=$(grep -c "scf.forall (" "$tmp/sm_keep/lowered.mlir")
[ "$n" = 1 ] || fail "softmax: expected one scf.forall (the large group), got $n"
"$PY" - "$tmp" "$SHLOC" <<'PY' || fail "softmax: compiled results differ"
import os, subprocess, sys, numpy as np
tmp, shloc = sys.argv[1:]
rng = np.random.default_rng(3)
xs = [(rng.standard_normal(s) * 20).astype(np.float32) for s in ((2, 256, 256), (3, 48), (2, 40))]
xs[0][1, 7, :] = -np.inf  # a row of -inf: max -inf, exp(NaN) = NaN, as numpy
xs[0][1, 8, 5] = np.nan
args = []
for i, x in enumerate(xs):
    np.save(os.path.join(tmp, "sx%d.npy" % i), x)
    args += ["--input", os.path.join(tmp, "sx%d.npy" % i)]
os.mkdir(os.path.join(tmp, "sout"))
subprocess.run([os.path.join(tmp, "softmax")] + args + ["-o", os.path.join(tmp, "sout")], check=True)
subprocess.run([shloc, "run", os.path.join(tmp, "softmax.mlir")] + args +
               sum((["-o", os.path.join(tmp, "si%d.npy" % i)] for i in range(3)), []), check=True, stdout=subprocess.DEVNULL)
for i, (x, scale) in enumerate(zip(xs, (1 / 8, 2.0, 1.0))):
    p = x.astype(np.float64) * scale
    with np.errstate(invalid="ignore"):
        e = np.exp(p - p.max(-1, keepdims=True))
        want = e / e.sum(-1, keepdims=True)
    got = np.load(os.path.join(tmp, "sout", "result%d.npy" % i))
    run = np.load(os.path.join(tmp, "si%d.npy" % i))
    assert (np.isnan(got) == np.isnan(want)).all() and (np.isnan(run) == np.isnan(want)).all(), "NaN rows differ (%d)" % i
    ok = ~np.isnan(want)
    err = np.abs(got[ok] - want[ok]).max()
    assert err <= 1e-6, "softmax %d: %g from numpy" % (i, err)
    assert np.abs(got[ok] - run[ok]).max() <= 1e-6, "softmax %d differs from shloc run" % i
print("ok: softmax groups (max error %.2g)" % err)
PY

# 1b. Split float reductions (NaN, -0, f64, several/all dimensions) and
# large ops tiled for OpenMP threads (two of them even on one core).
"$SHLOC" compile "$DATA/reduce_split.mlir" -o "$tmp/rs" --keep "$tmp/rs_keep" $LINK || fail "compiling reduce_split.mlir"
n=$(grep -c "transform.structured.tile_using_forall" "$tmp/rs_keep/schedule.mlir")
[ "$n" = 2 ] || fail "reduce_split: expected 2 tiling steps in the schedule, got $n"
grep -q "__kmpc_fork_call" "$tmp/rs_keep/module.ll" || fail "reduce_split: no OpenMP loop in the LLVM IR"
OMP_NUM_THREADS=2 "$tmp/rs" --quiet || fail "reduce_split.mlir: a check failed"
sed 's/dense<2016.0>/dense<2017.0>/' "$DATA/reduce_split.mlir" >"$tmp/rs_bad.mlir"
"$SHLOC" compile "$tmp/rs_bad.mlir" -o "$tmp/rs_bad" $LINK || fail "compiling rs_bad.mlir"
"$tmp/rs_bad" --quiet 2>/dev/null && fail "reduce_split: a wrong full sum passed"
echo "ok: split reductions and threaded tiles"
"$SHLOC" compile "$DATA/scatter_rows.mlir" -o "$tmp/sr" --keep "$tmp/sr_keep" $LINK || fail "compiling scatter_rows.mlir"
grep -q "shloc_rt_op" "$tmp/sr_keep/lowered.mlir" && fail "scatter_rows: a scatter was called out"
"$tmp/sr" --quiet || fail "scatter_rows.mlir: a check failed"
sed 's/\[5.0, 7.0, 9.0\]/[4.0, 7.0, 9.0]/' "$DATA/scatter_rows.mlir" >"$tmp/sr_bad.mlir"
"$SHLOC" compile "$tmp/sr_bad.mlir" -o "$tmp/sr_bad" $LINK || fail "compiling sr_bad.mlir"
"$tmp/sr_bad" --quiet 2>/dev/null && fail "scatter_rows: a wrong row passed"
echo "ok: row scatters"
# exp and logistic against double-precision values, through underflow (logistic(-100) is e^-100, not 0)
"$SHLOC" compile "$DATA/exp_logistic.mlir" -o "$tmp/el" --keep "$tmp/el_keep" $LINK || fail "compiling exp_logistic.mlir"
grep -q "expf" "$tmp/el_keep/module.ll" && fail "exp_logistic: exp was not inlined"
"$tmp/el" --quiet || fail "exp_logistic.mlir: a check failed"
sed 's/3.783505854e-44, 6.054601485e-39, 9.982351398e-39, 2.061153692e-09, 2.689414322e-01/3.783505854e-44, 6.054601485e-39, 9.982351398e-39, 2.061153692e-09, 2.689415216e-01/' "$DATA/exp_logistic.mlir" >"$tmp/el_bad.mlir"
cmp -s "$DATA/exp_logistic.mlir" "$tmp/el_bad.mlir" && fail "exp_logistic: the broken copy is unchanged"
"$SHLOC" compile "$tmp/el_bad.mlir" -o "$tmp/el_bad" $LINK || fail "compiling el_bad.mlir"
"$tmp/el_bad" --quiet 2>/dev/null && fail "exp_logistic: a logistic 3 ULP off passed"
echo "ok: exp and logistic"

# 2. The check runtime.
"$SHLOC" compile "$DATA/checks.mlir" -o "$tmp/checks" $LINK || fail "compiling checks.mlir"
"$tmp/checks" --quiet || fail "checks.mlir: a check failed"
sed '/expect_eq_const/ s/-3.0\]/-3.5]/' "$DATA/checks.mlir" >"$tmp/bad_check.mlir"
"$SHLOC" compile "$tmp/bad_check.mlir" -o "$tmp/bad_check" $LINK || fail "compiling bad_check.mlir"
"$tmp/bad_check" --quiet 2>"$tmp/err" && fail "a failing check exited 0"
[ $? = 1 ] || fail "a failing check did not exit 1"
grep -q "bad_check.mlir:[0-9]*:[0-9]*: error: 'check.expect_eq_const' check failed at index \[2\]: actual -3.000000e+00, expected -3.500000e+00" \
  "$tmp/err" || { cat "$tmp/err"; fail "check failure message"; }
grep -q "1 of [0-9]* checks failed" "$tmp/err" || { cat "$tmp/err"; fail "check count"; }
# A complex operand goes through the same runtime (complex_f32).
sed 's/(-1.0, 0.5)\]/(-1.0, 0.75)]/' "$DATA/checks.mlir" >"$tmp/bad_complex.mlir"
"$SHLOC" compile "$tmp/bad_complex.mlir" -o "$tmp/bad_complex" $LINK || fail "compiling bad_complex.mlir"
"$tmp/bad_complex" --quiet 2>"$tmp/err" && fail "a failing complex check exited 0"
grep -q "bad_complex.mlir:[0-9]*:[0-9]*: error: 'check.expect_close' check failed at index \[1\]" "$tmp/err" ||
  { cat "$tmp/err"; fail "complex check failure message"; }
echo "ok: check runtime"

# 3. Object + header, called from C.
"$SHLOC" compile "$DATA/checks.mlir" -o "$tmp/obj.o" || fail "compiling to an object"
grep -q "^int checks_scale(const float \*arg0, float \*res0);" "$tmp/obj.h" || { cat "$tmp/obj.h"; fail "header"; }
cat >"$tmp/client.c" <<'C'
#include <stdio.h>
#include "obj.h"
int main(void) {
  const float x[CHECKS_SCALE_ARG0_BYTES / sizeof(float)] = {1, -2, 0.5f, 4};
  float y[CHECKS_SCALE_RES0_BYTES / sizeof(float)];
  if (checks_scale(x, y) != 0) return 1;
  /* y = 3x + 1, computed by hand */
  const float want[4] = {4, -5, 2.5f, 13};
  for (int i = 0; i < 4; i++)
    if (y[i] != want[i]) { printf("y[%d] = %g, want %g\n", i, y[i], want[i]); return 1; }
  float z[3];
  return checks_main(z) == 0 && z[0] == 1.5f && z[1] == 3.0f && z[2] == -3.75f ? 0 : 1;
}
C
SAN=""
[ "${SHLOC_SANITIZE:-0}" = 1 ] && SAN="-fsanitize=address,undefined"
cc $SAN -std=c11 -Wall -Wextra -Werror -I"$tmp" "$tmp/client.c" "$tmp/obj.o" "$(dirname "$SHLOC")/libshloc.a" \
  -fopenmp -lm -ldl -lpthread -o "$tmp/client" || fail "linking a C client with the object"
"$tmp/client" || fail "the C client got wrong results"
echo "ok: object + header"

# 4. Bad input.
# An op that needs other devices cannot be compiled (collectives, replica ids).
cat >"$tmp/rid.mlir" <<'M'
func.func @main() -> tensor<ui32> {
  %r = stablehlo.replica_id : tensor<ui32>
  return %r : tensor<ui32>
}
M
"$SHLOC" compile "$tmp/rid.mlir" -o "$tmp/rid" 2>"$tmp/err" && fail "replica_id was not refused"
grep -q "rid.mlir:2:3: error: 'stablehlo.replica_id' cannot be lowered to linalg yet" "$tmp/err" ||
  { cat "$tmp/err"; fail "refusal message"; }
[ -e "$tmp/rid" ] && fail "an output was written for a refused program"
mkdir "$tmp/bin"
printf '#!/bin/sh\necho "fake-mlir-opt: error: pass failed" >&2\nexit 3\n' >"$tmp/bin/mlir-opt-22"
chmod +x "$tmp/bin/mlir-opt-22"
PATH="$tmp/bin:$PATH" "$SHLOC" compile "$DATA/checks.mlir" -o "$tmp/x" 2>"$tmp/err" && fail "a failing tool was ignored"
grep -q "fake-mlir-opt: error: pass failed" "$tmp/err" || { cat "$tmp/err"; fail "the tool's diagnostic"; }
grep -q "shloc compile: this command failed:" "$tmp/err" && grep -q "  mlir-opt-22 .*lowered.mlir --linalg-fuse-elementwise-ops" "$tmp/err" ||
  { cat "$tmp/err"; fail "the failing command line"; }
echo "ok: bad input"
