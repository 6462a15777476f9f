#!/usr/bin/python3
"""Random stablehlo.convolution programs (odd shapes, strides, lhs and rhs
dilation, padding, window reversal, feature and batch groups, permuted
dimension numbers; f32 and f64) run by shloc against a direct convolution
in double computed here with numpy: every element within a few roundings of
the sum of |terms| of its products.  Sizes straddle the small-convolution
(XLA order) path and the matrix-product path."""
import os, subprocess, sys, tempfile
import numpy as np

SHLOC = sys.argv[1]
rng = np.random.default_rng(7)


def reference(x, w, stride, pad, ldil, rdil, rev, G, BG):
    """x [N, C, *S], w [O, I, *K] in double; returns [N/BG, O, *out]."""
    N, C = x.shape[:2]
    O, I = w.shape[:2]
    ns = x.ndim - 2
    # dilate the input, pad it, reverse the window where asked
    dil = np.zeros((N, C) + tuple((s - 1) * d + 1 for s, d in zip(x.shape[2:], ldil)))
    dil[(slice(None), slice(None)) + tuple(slice(None, None, d) for d in ldil)] = x
    padw = [(0, 0), (0, 0)] + [(lo, hi) for lo, hi in pad]
    lo_neg = [max(0, -lo) for lo, _ in pad]
    hi_neg = [max(0, -hi) for _, hi in pad]
    dil = np.pad(dil, [(max(0, a), max(0, b)) for a, b in padw])
    dil = dil[(slice(None), slice(None)) + tuple(slice(l, dil.shape[2 + i] - h) for i, (l, h) in enumerate(zip(lo_neg, hi_neg)))]
    wk = w.copy()
    for d in range(ns):
        if rev[d]:
            wk = np.flip(wk, 2 + d)
    eff = [(k - 1) * r + 1 for k, r in zip(w.shape[2:], rdil)]
    out_sp = [(dil.shape[2 + d] - eff[d]) // stride[d] + 1 for d in range(ns)]
    if min(out_sp) <= 0:
        return None, None
    Nb = N // BG
    out = np.zeros((Nb, O) + tuple(out_sp))
    mag = np.zeros_like(out)
    for o in range(O):
        g, bg = o // (O // G), o // (O // BG)
        xs = dil[bg * Nb:(bg + 1) * Nb, g * I:(g + 1) * I]
        for kidx in np.ndindex(*w.shape[2:]):
            sl = tuple(slice(kidx[d] * rdil[d], kidx[d] * rdil[d] + (out_sp[d] - 1) * stride[d] + 1, stride[d]) for d in range(ns))
            patch = xs[(slice(None), slice(None)) + sl]
            term = patch * wk[(o, slice(None)) + kidx].reshape((1, I) + (1,) * ns)
            out[:, o] += term.sum(1)
            mag[:, o] += np.abs(term).sum(1)
    return out, mag


def ints(v):
    return ", ".join(str(int(a)) for a in v)


def case(tmp, i, dtype):
    ns = int(rng.integers(1, 3))
    G = int(rng.choice([1, 1, 2, 3]))
    BG = 1 if G > 1 else int(rng.choice([1, 1, 2]))
    I = int(rng.integers(1, 5))
    O = int(rng.integers(1, 6)) * G * BG
    N = int(rng.integers(1, 3)) * BG
    big = i % 5 == 4  # some cases large enough for the matrix-product path
    S = [int(rng.integers(3, 40 if big else 10)) for _ in range(ns)]
    K = [int(rng.integers(1, 4)) for _ in range(ns)]
    if big:
        I, O = I * 8, O * 8
    stride = [int(rng.integers(1, 3)) for _ in range(ns)]
    ldil = [int(rng.integers(1, 3)) for _ in range(ns)]
    rdil = [int(rng.integers(1, 3)) for _ in range(ns)]
    pad = [(int(rng.integers(-1, 3)), int(rng.integers(-1, 3))) for _ in range(ns)]
    rev = [bool(rng.integers(0, 4) == 0) for _ in range(ns)]
    x = rng.uniform(-1, 1, (N, C := I * G) + tuple(S)).astype(dtype)
    w = rng.uniform(-1, 1, (O, I) + tuple(K)).astype(dtype)
    ref, mag = reference(x.astype(np.float64), w.astype(np.float64), stride, pad, ldil, rdil, rev, G, BG)
    if ref is None:
        return None
    # operands in permuted layouts: input [b, 0.., f] or [b, f, 0..]; kernel [0.., i, o] or [o, i, 0..]
    sp = [str(d) for d in range(ns)]
    nhwc, hwio = bool(rng.integers(0, 2)), bool(rng.integers(0, 2))
    lhs_dn = ["b"] + sp + ["f"] if nhwc else ["b", "f"] + sp
    rhs_dn = sp + ["i", "o"] if hwio else ["o", "i"] + sp
    out_dn = ["b"] + sp + ["f"] if not nhwc else ["b", "f"] + sp
    xs = np.moveaxis(x, 1, -1) if nhwc else x
    ws = np.moveaxis(w, [0, 1], [-1, -2]) if hwio else w
    refs = np.moveaxis(ref, 1, -1) if not nhwc else ref
    mags = np.moveaxis(mag, 1, -1) if not nhwc else mag
    et = "f32" if dtype == np.float32 else "f64"
    ty = lambda a: "tensor<" + "x".join(str(d) for d in a.shape) + "x" + et + ">"
    win = [f"stride = [{ints(stride)}]", "pad = [" + ", ".join(f"[{a}, {b}]" for a, b in pad) + "]",
           f"lhs_dilate = [{ints(ldil)}]", f"rhs_dilate = [{ints(rdil)}]",
           "reverse = [" + ", ".join("true" if r else "false" for r in rev) + "]"]
    mlir = (f"func.func @main(%x: {ty(xs)}, %w: {ty(ws)}) -> {ty(refs)} {{\n"
            f"  %r = stablehlo.convolution(%x, %w) dim_numbers = [{', '.join(lhs_dn)}]x[{', '.join(rhs_dn)}]->[{', '.join(out_dn)}], "
            f"window = {{{', '.join(win)}}} {{batch_group_count = {BG} : i64, feature_group_count = {G} : i64}} : "
            f"({ty(xs)}, {ty(ws)}) -> {ty(refs)}\n  return %r : {ty(refs)}\n}}\n")
    p = os.path.join(tmp, "c.mlir")
    open(p, "w").write(mlir)
    np.save(os.path.join(tmp, "x.npy"), np.ascontiguousarray(xs))
    np.save(os.path.join(tmp, "w.npy"), np.ascontiguousarray(ws))
    r = subprocess.run([SHLOC, "run", p, "-i", os.path.join(tmp, "x.npy"), "-i", os.path.join(tmp, "w.npy"),
                        "-o", os.path.join(tmp, "r.npy")], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"FAIL case {i}: shloc run failed: {r.stderr}\n{mlir}")
    got = np.load(os.path.join(tmp, "r.npy")).astype(np.float64)
    eps = np.finfo(dtype).eps
    kd = I * int(np.prod(K))
    bad = np.abs(got - refs) > (kd + 2) * eps * mags + 1e-300
    if bad.any():
        sys.exit(f"FAIL case {i}: {int(bad.sum())} elements off, max err {np.abs(got - refs).max()}\n{mlir}")
    return refs.size


n = 0
with tempfile.TemporaryDirectory() as tmp:
    for i in range(60):
        if case(tmp, i, np.float32 if i % 3 else np.float64):
            n += 1
if n < 30:
    sys.exit(f"FAIL: only {n} non-empty cases")
print(f"conv_reference: {n} convolutions match the double-precision reference")
