#!/usr/bin/python3
"""The quantized int8 MLP of module.mlir: inputs, a numpy peer and shloc.

usage: bench/quant/peers.py [--shloc PATH] [--out DIR] [--runs N]

  1. writes the inputs to OUT/in0.npy (x, f32), in1.npy, in2.npy (int8
     weights), seeded;
  2. times the numpy peer (median of N calls after one warm-up): quantize x
     as the reference interpreter does (f32 divide, add zero point, clamp,
     round half to even), two int32-accumulating matmuls (int8 operands
     widened to int32 with their zero points subtracted, numpy's integer
     matmul), requantize the first product to int8, dequantize the second;
  3. with --shloc, times `shloc run --repeat N --time` on the same inputs and
     checks its output against the peer's (exactly equal is expected: both
     sum the same integers).

Prints one line per implementation and the ratio shloc / numpy.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np

F32 = np.float32
HERE = os.path.dirname(os.path.abspath(__file__))
M, K, H, N = 256, 1024, 2048, 1024
SX, ZX = 0.03125, -3        # x: i8, scale, zero point
SW = 0.0078125              # weights: i8, zero point 0
SH, ZH = 0.25, 5            # hidden: i8
SACC1 = SX * SW             # first product: i32, zero point 0
SACC2 = SH * SW             # second product: i32, zero point 0


def make_inputs(out):
    rng = np.random.default_rng(1013)
    x = rng.standard_normal((M, K)).astype(F32)
    w1 = rng.integers(-127, 128, (K, H), dtype=np.int8)
    w2 = rng.integers(-127, 128, (H, N), dtype=np.int8)
    for i, a in enumerate((x, w1, w2)):
        np.save(os.path.join(out, "in%d.npy" % i), a)
    return x, w1, w2


def quantize(x, scale, zp, lo, hi):
    r = x / F32(scale) + F32(zp)
    return np.rint(np.clip(r, F32(lo), F32(hi)))


def peer(x, w1, w2):
    xq = quantize(x, SX, ZX, -128, 127).astype(np.int32) - ZX
    acc1 = xq @ w1.astype(np.int32)                       # i32 sums, scale SX*SW
    # requantize as the reference does: acc * (SACC1/SH) + ZH in f32, clamp, round half to even
    hq = quantize(acc1.astype(F32) * F32(SACC1 / SH), 1.0, ZH, -128, 127).astype(np.int32) - ZH
    acc2 = hq @ w2.astype(np.int32)                       # i32 sums, scale SH*SW
    return acc2.astype(F32) * F32(SACC2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shloc")
    ap.add_argument("--out", default=os.path.join(HERE, "..", "out", "quant"))
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    x, w1, w2 = make_inputs(a.out)
    ref = peer(x, w1, w2)
    times = []
    for _ in range(a.runs):
        t = time.perf_counter()
        peer(x, w1, w2)
        times.append((time.perf_counter() - t) * 1e3)
    np_ms = statistics.median(times)
    print("numpy  %9.2f ms  (median of %d, int32 accumulation)" % (np_ms, a.runs))
    if not a.shloc:
        return 0
    res = os.path.join(a.out, "shloc0.npy")
    cmd = [a.shloc, "run", os.path.join(HERE, "module.mlir"), "-o", res, "--repeat", str(a.runs), "--time"]
    for i in range(3):
        cmd += ["-i", os.path.join(a.out, "in%d.npy" % i)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        sys.stderr.write(p.stderr)
        return 1
    m = re.search(r"median ([0-9.]+) ms", p.stderr)
    sh_ms = float(m.group(1))
    got = np.load(res)
    diff = np.abs(got - ref).max()
    print("shloc  %9.2f ms  (median of %d)  max |shloc - numpy| = %g" % (sh_ms, a.runs, diff))
    print("shloc / numpy = %.3fx" % (sh_ms / np_ms))
    return 0 if diff == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
