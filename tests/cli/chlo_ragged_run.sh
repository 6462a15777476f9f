#!/bin/sh
# chlo.ragged_dot's StableHLO decomposition computes what the native kernel
# (src/exec/kernels/ragged_dot.c, itself checked against a double-precision
# loop in tests/unit/test_chlo.c) computes: for each ragged mode and several
# layouts, group_sizes shapes and element types, random inputs (group sizes
# summing below, to and past the ragged dimension, zeros and a negative one)
# are run through `shloc run` on the module as written, on
# `shloc fmt --legalize-chlo` of it and on its `shloc serialize` artifact
# (the composite's @chlo.ragged_dot.impl); integers must agree exactly, floats to
# 1e-5 relative.  Skipped (exit 77) without /usr/bin/python3 and numpy.
SHLOC=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import numpy" 2>/dev/null ||
  { echo "SKIP: /usr/bin/python3 with numpy not installed"; exit 77; }
/usr/bin/python3 - "$SHLOC" "$tmp" <<'PY'
import subprocess, sys
import numpy as np

shloc, tmp = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(12)
NP = {"f32": np.float32, "f64": np.float64, "i32": np.int32}

def ty(shape, dt):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dt + ">"

def dims(v):
    return "[" + ", ".join(map(str, v)) + "]"

# name, lhs shape, rhs shape, group_sizes shape, result shape, dimension numbers
# (lb, rb, lc, rc, lr, rg), element type, group sizes or None (random)
CASES = [
    ("mode1_upstream", (2, 11, 5), (3, 2, 5, 7), (3,), (2, 11, 7), ([0], [1], [2], [2], [1], [0]), "f32", None),
    ("mode1_per_batch", (2, 11, 5), (3, 2, 5, 7), (2, 3), (2, 11, 7), ([0], [1], [2], [2], [1], [0]), "f64", None),
    ("mode1_no_batch", (9, 4), (4, 4, 6), (4,), (9, 6), ([], [], [1], [1], [0], [0]), "i32", [3, 0, -1, 9]),
    ("mode1_group_mid", (5, 10), (5, 3, 7), (3,), (10, 7), ([], [], [0], [0], [1], [1]), "f32", [2, 5, 1]),
    ("mode2_upstream", (2, 3, 5), (2, 5, 7), (2, 4), (4, 2, 3, 7), ([0], [0], [2], [1], [2], []), "f32", None),
    ("mode2_no_batch", (3, 8), (8, 4), (3,), (3, 3, 4), ([], [], [1], [0], [1], []), "i32", [3, 2, 5]),
    ("mode3_upstream", (2, 3, 5), (2, 5, 7), (2,), (2, 3, 7), ([0], [0], [2], [1], [0], []), "f32", None),
]

def module(c):
    name, ls, rs, gs, os_, (lb, rb, lc, rc, lr, rg), dt, _ = c
    t = (ty(ls, dt), ty(rs, dt), ty(gs, "i64"), ty(os_, dt))
    return (f"func.func @main(%l: {t[0]}, %r: {t[1]}, %g: {t[2]}) -> {t[3]} {{\n"
            f'  %0 = "chlo.ragged_dot"(%l, %r, %g) {{ragged_dot_dimension_numbers = #chlo.ragged_dot<'
            f"lhs_batching_dimensions = {dims(lb)}, rhs_batching_dimensions = {dims(rb)}, "
            f"lhs_contracting_dimensions = {dims(lc)}, rhs_contracting_dimensions = {dims(rc)}, "
            f"lhs_ragged_dimensions = {dims(lr)}, rhs_group_dimensions = {dims(rg)}>, "
            f"precision_config = [#chlo<precision HIGHEST>, #chlo<precision HIGHEST>]}} : "
            f"({t[0]}, {t[1]}, {t[2]}) -> {t[3]}\n  return %0 : {t[3]}\n}}\n")

def data(shape, dt):
    if dt == "i32":
        return rng.integers(-9, 10, size=shape).astype(np.int32)
    return rng.standard_normal(shape).astype(NP[dt])

def run(path, inputs, out):
    cmd = [shloc, "run", path]
    for i in inputs:
        cmd += ["--input", i]
    subprocess.run(cmd + ["-o", out], check=True)
    return np.load(out)

failed = 0
for c in CASES:
    name, ls, rs, gs, os_, dn, dt, fixed = c
    ragged = ls[dn[4][0]]
    src = f"{tmp}/{name}.mlir"
    open(src, "w").write(module(c))
    dec = f"{tmp}/{name}_dec.mlir"
    subprocess.run([shloc, "fmt", "--legalize-chlo", src, "-o", dec], check=True)
    art = f"{tmp}/{name}.bc"
    subprocess.run([shloc, "serialize", src, "-o", art], check=True)
    if "chlo." in open(dec).read().replace("chlo.ragged_dot.impl", ""):
        print(f"FAIL {name}: CHLO left after legalization"); failed += 1; continue
    for trial in range(3):
        if fixed is not None and trial == 0:
            g = np.array(fixed, dtype=np.int64).reshape(gs)
        else:
            # sizes in [0, ragged / groups * 2]: totals below, at and past the dimension
            g = rng.integers(0, 2 * ragged // gs[-1] + 2, size=gs).astype(np.int64)
        ins = []
        for k, arr in enumerate((data(ls, dt), data(rs, dt), g)):
            ins.append(f"{tmp}/{name}_{k}.npy"); np.save(ins[-1], arr)
        want = run(src, ins, f"{tmp}/want.npy")
        got = run(dec, ins, f"{tmp}/got.npy")
        shipped = run(art, ins, f"{tmp}/shipped.npy")
        ok = all(want.shape == r.shape and (np.array_equal(want, r) if dt == "i32"
                                            else np.allclose(r, want, rtol=1e-5, atol=1e-5)) for r in (got, shipped))
        if not ok:
            print(f"FAIL {name} trial {trial}: group sizes {g.tolist()}, max diff "
                  f"{np.max(np.abs(got.astype(np.float64) - want)) if want.shape == got.shape else 'shape'}")
            failed += 1
        if dt != "i32" and not np.any(want):
            print(f"FAIL {name}: all-zero result, the comparison proves nothing"); failed += 1
print(f"{len(CASES)} cases, {failed} failures")
sys.exit(1 if failed else 0)
PY
