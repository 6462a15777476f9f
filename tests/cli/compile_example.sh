#!/bin/sh
# examples/rms_norm/model.mlir (RMS norm through the JAX FFI handler, a
# matmul, a softmax, a while loop) compiled by `shloc compile` into an
# executable linked with librms_norm.so; its result on random inputs must
# match numpy (the same model in double precision) and `shloc run`.
# Skipped (exit 77) without mlir-opt-22, mlir-translate-22, clang-22 or numpy.
SHLOC=${1:?usage: compile_example.sh SHLOC}
SRC=${SHLOC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
EX=$SRC/examples/rms_norm
for tool in mlir-opt-22 mlir-translate-22 clang-22; do
  command -v $tool >/dev/null 2>&1 || { echo "skipped: $tool not installed"; exit 77; }
done
PY=
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import numpy' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || { echo "skipped: python3 with numpy not available"; exit 77; }
LINK=""
if [ "${SHLOC_SANITIZE:-0}" = 1 ]; then
  export SHLOC_CC=cc
  LINK="--link -fsanitize=address,undefined"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

make -s -C "$EX" OUT="$tmp" "$tmp/librms_norm.so" || fail "building librms_norm.so"
"$SHLOC" compile "$EX/model.mlir" -o "$tmp/model" --ffi rms_norm=rms_norm --link "$tmp/librms_norm.so" $LINK ||
  fail "shloc compile"
"$PY" - "$tmp" "$tmp/model" "$SHLOC" "$EX/model.mlir" <<'PY' || fail "results differ"
import os, subprocess, sys, numpy as np
tmp, exe, shloc, model = sys.argv[1:]
rng = np.random.default_rng(5)
x = rng.standard_normal((8, 16)).astype(np.float32)
w = rng.standard_normal((16, 32)).astype(np.float32)
np.save(os.path.join(tmp, "x.npy"), x); np.save(os.path.join(tmp, "w.npy"), w)
xd, wd = x.astype(np.float64), w.astype(np.float64)
n = xd / np.sqrt(np.mean(xd * xd, axis=1, keepdims=True) + 1e-5)
m = n @ wd
e = np.exp(m - m.max(axis=1, keepdims=True))
p = e / e.sum(axis=1, keepdims=True)
acc = p
for _ in range(4):
    acc = acc * 0.5 + p
os.mkdir(os.path.join(tmp, "out"))
subprocess.run([exe, "--input", os.path.join(tmp, "x.npy"), "--input", os.path.join(tmp, "w.npy"),
                "-o", os.path.join(tmp, "out")], check=True)
got = np.load(os.path.join(tmp, "out", "result0.npy"))
err = np.max(np.abs(got - acc) / (1e-6 + np.abs(acc)))
assert got.dtype == np.float32 and got.shape == (8, 32), (got.dtype, got.shape)
assert err < 1e-4, "compiled vs numpy: max rel. error %g" % err
lib = os.path.join(tmp, "librms_norm.so")
subprocess.run([shloc, "run", model, "--input", os.path.join(tmp, "x.npy"), "--input", os.path.join(tmp, "w.npy"),
                "--ffi", "rms_norm=%s:rms_norm" % lib, "-o", os.path.join(tmp, "ref.npy")], check=True)
ref = np.load(os.path.join(tmp, "ref.npy"))
err2 = np.max(np.abs(got - ref) / (1e-6 + np.abs(ref)))
assert err2 < 1e-5, "compiled vs shloc run: max rel. error %g" % err2
print("ok: compiled model matches numpy (max rel. error %.1e) and shloc run (%.1e)" % (err, err2))
PY
