#!/usr/bin/python3
"""How far shloc's convolutions are from the expected values XLA produced.

usage: scripts/conv_ulp.py SHLOC [CORPUS_DIR]

For every conformance program in CORPUS_DIR (default
/work/shared/conformance/testdata) that contains a floating-point
stablehlo.convolution, runs `SHLOC run` on it (its result is the
convolution) and on its @expected function, and prints the largest ULP
distance between the two (the measure check.expect_close uses: bit
patterns of |x| as integers, signs apart add) and how many elements differ.
Needs numpy."""
import glob, os, re, subprocess, sys, tempfile
import numpy as np


def ordered(a):
    """Float bit patterns mapped to integers that count ULPs across zero."""
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    i = a.view(bits).astype(np.int64)
    mag = i & ((1 << (8 * a.dtype.itemsize - 1)) - 1)
    return np.where(i < 0, -mag, mag)


def main():
    shloc = sys.argv[1]
    corpus = sys.argv[2] if len(sys.argv) > 2 else "/work/shared/conformance/testdata"
    with tempfile.TemporaryDirectory() as tmp:
        got, exp = os.path.join(tmp, "r.npy"), os.path.join(tmp, "e.npy")
        for f in sorted(glob.glob(os.path.join(corpus, "*.mlir"))):
            text = open(f).read()
            if not re.search(r"stablehlo\.convolution.*-> tensor<[0-9x]*(f16|bf16|f32|f64)>", text):
                continue
            name = os.path.basename(f)[:-5]
            r = subprocess.run([shloc, "run", f, "-o", got], capture_output=True, text=True)
            e = subprocess.run([shloc, "run", f, "--entry", "expected", "-o", exp], capture_output=True, text=True)
            if r.returncode or e.returncode:
                print(f"{name:60s} error: {(r.stderr or e.stderr).strip()}")
                continue
            a, b = np.load(got), np.load(exp)
            if a.dtype.kind == "V":  # bf16 is read back as raw 16-bit values
                a, b = a.view(np.float16), b.view(np.float16)
            if a.size == 0:
                print(f"{name:60s} empty result")
                continue
            u = np.abs(ordered(a) - ordered(b))
            print(f"{name:60s} max {int(u.max()):5d} ULP, {int((u > 0).sum()):5d} of {a.size:6d} elements differ")


main()
