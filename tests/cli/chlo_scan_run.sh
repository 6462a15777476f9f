#!/bin/sh
# chlo.scan's StableHLO decomposition (a while loop) computes what the
# native scan computes, and both what numpy computes: forward and reverse
# scans, several inputs and carries, a scan dimension other than 0, no
# inputs at all, a CHLO op (erf) inside the body and complex values, on
# random inputs run through `shloc run` on the module as written, on
# `shloc fmt --legalize-chlo` of it and on its `shloc serialize` artifact.
# Skipped (exit 77) without /usr/bin/python3 and numpy.
SHLOC=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import numpy" 2>/dev/null ||
  { echo "SKIP: /usr/bin/python3 with numpy not installed"; exit 77; }
/usr/bin/python3 - "$SHLOC" "$tmp" <<'PY'
import math, subprocess, sys
import numpy as np

shloc, tmp = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(7)

# Reverse scan along dim 1; two inputs, two carries (one i32 counter), erf in the body.
REV = """func.func @main(%x: tensor<4x6xf32>, %y: tensor<3x6xf32>, %c: tensor<4xf32>, %d: tensor<i32>) -> (tensor<4x6xf32>, tensor<3x6xf32>, tensor<4xf32>, tensor<i32>) {
  %0:4 = chlo.scan(%x, %y) inits(%c, %d) dimension=1 attributes {is_reverse = true} {
  ^bb0(%a: tensor<4xf32>, %b: tensor<3xf32>, %k: tensor<4xf32>, %n: tensor<i32>):
    %1 = stablehlo.multiply %a, %k : tensor<4xf32>
    %e = chlo.erf %1 : tensor<4xf32> -> tensor<4xf32>
    %2 = stablehlo.add %e, %a : tensor<4xf32>
    %nf = stablehlo.convert %n : (tensor<i32>) -> tensor<f32>
    %nb = stablehlo.broadcast_in_dim %nf, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %4 = stablehlo.multiply %b, %nb : tensor<3xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %3 = stablehlo.add %n, %one : tensor<i32>
    stablehlo.return %2, %4, %2, %3 : tensor<4xf32>, tensor<3xf32>, tensor<4xf32>, tensor<i32>
  } : (tensor<4x6xf32>, tensor<3x6xf32>, tensor<4xf32>, tensor<i32>) -> (tensor<4x6xf32>, tensor<3x6xf32>, tensor<4xf32>, tensor<i32>)
  return %0#0, %0#1, %0#2, %0#3 : tensor<4x6xf32>, tensor<3x6xf32>, tensor<4xf32>, tensor<i32>
}
"""

def rev_ref(x, y, c, d):
    o0, o1 = np.zeros_like(x), np.zeros_like(y)
    k, n = c.astype(np.float64), int(d)
    for p in reversed(range(x.shape[1])):
        a = x[:, p].astype(np.float64)
        v = np.array([math.erf(t) for t in a * k]) + a
        o0[:, p], o1[:, p] = v, y[:, p] * n
        k, n = v, n + 1
    return [o0, o1, k, np.int32(n)]

# Forward complex cumulative product-sum along dim 0 (upstream's scan_complex, widened).
CPLX = """func.func @main(%x: tensor<5x2xcomplex<f64>>, %c: tensor<2xcomplex<f64>>) -> (tensor<5x2xcomplex<f64>>, tensor<2xcomplex<f64>>) {
  %0:2 = chlo.scan(%x) inits(%c) dimension=0 {
  ^bb0(%a: tensor<2xcomplex<f64>>, %k: tensor<2xcomplex<f64>>):
    %1 = stablehlo.multiply %a, %k : tensor<2xcomplex<f64>>
    %2 = stablehlo.add %1, %a : tensor<2xcomplex<f64>>
    stablehlo.return %2, %2 : tensor<2xcomplex<f64>>, tensor<2xcomplex<f64>>
  } : (tensor<5x2xcomplex<f64>>, tensor<2xcomplex<f64>>) -> (tensor<5x2xcomplex<f64>>, tensor<2xcomplex<f64>>)
  return %0#0, %0#1 : tensor<5x2xcomplex<f64>>, tensor<2xcomplex<f64>>
}
"""

def cplx_ref(x, c):
    o, k = np.zeros_like(x), c.copy()
    for p in range(x.shape[0]):
        k = x[p] * k + x[p]
        o[p] = k
    return [o, k]

# No inputs: outputs from the carry alone (the size comes from the result type).
NOIN = """func.func @main(%c: tensor<3xi32>) -> (tensor<7x3xi32>, tensor<3xi32>) {
  %0:2 = chlo.scan() inits(%c) dimension=0 {
  ^bb0(%k: tensor<3xi32>):
    %1 = stablehlo.multiply %k, %k : tensor<3xi32>
    %2 = stablehlo.add %1, %k : tensor<3xi32>
    stablehlo.return %k, %2 : tensor<3xi32>, tensor<3xi32>
  } : (tensor<3xi32>) -> (tensor<7x3xi32>, tensor<3xi32>)
  return %0#0, %0#1 : tensor<7x3xi32>, tensor<3xi32>
}
"""

def noin_ref(c):
    o, k = np.zeros((7, 3), np.int32), c.copy()
    for p in range(7):
        o[p] = k
        k = (k * k + k).astype(np.int32)
    return [o, k]

def cnormal(shape):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)) * 0.5

CASES = [
    ("reverse", REV, rev_ref, lambda: [rng.standard_normal((4, 6)).astype(np.float32),
                                       rng.standard_normal((3, 6)).astype(np.float32),
                                       rng.standard_normal(4).astype(np.float32), np.int32(rng.integers(-5, 5))]),
    ("complex", CPLX, cplx_ref, lambda: [cnormal((5, 2)), cnormal(2)]),
    ("no_inputs", NOIN, noin_ref, lambda: [rng.integers(-3, 4, size=3).astype(np.int32)]),
]

def run(path, ins, n_out):
    outs = [f"{tmp}/o{i}.npy" for i in range(n_out)]
    cmd = [shloc, "run", path]
    for i in ins:
        cmd += ["--input", i]
    for o in outs:
        cmd += ["-o", o]
    subprocess.run(cmd, check=True)
    return [np.load(o) for o in outs]

def close(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "iu":
        return np.array_equal(a, b)
    return np.allclose(a, b, rtol=1e-5, atol=1e-6)

failed = 0
for name, text, ref, gen in CASES:
    src, dec = f"{tmp}/{name}.mlir", f"{tmp}/{name}_dec.mlir"
    open(src, "w").write(text)
    subprocess.run([shloc, "fmt", "--legalize-chlo", src, "-o", dec], check=True)
    art = f"{tmp}/{name}.bc"
    subprocess.run([shloc, "serialize", src, "-o", art], check=True)
    d = open(dec).read()
    if "chlo." in d or "stablehlo.while" not in d:
        print(f"FAIL {name}: not decomposed into a while"); failed += 1; continue
    for trial in range(3):
        args = gen()
        ins = []
        for k, a in enumerate(args):
            ins.append(f"{tmp}/{name}_{k}.npy"); np.save(ins[-1], np.asarray(a))
        want = ref(*args)
        native = run(src, ins, len(want))
        got = run(dec, ins, len(want))
        shipped = run(art, ins, len(want))
        for i, w in enumerate(want):
            if not close(native[i], w):
                print(f"FAIL {name} trial {trial}: native result {i} differs from numpy"); failed += 1
            if not close(got[i], native[i]):
                print(f"FAIL {name} trial {trial}: decomposed result {i} differs from native"); failed += 1
            if not close(shipped[i], native[i]):
                print(f"FAIL {name} trial {trial}: serialized result {i} differs from native"); failed += 1
print(f"{len(CASES)} cases, {failed} failures")
sys.exit(1 if failed else 0)
PY
