#!/usr/bin/python3
"""Inputs, float64 references and numpy/PyTorch timings for bench/workloads.

usage: peers.py OUTDIR --json FILE [--runs N] [--no-torch] names...

Each workload is a directory <name>/ holding module.mlir and workload.py
(inputs(rng), numpy_peer, reference (float64), optional torch_peer, TOL,
FLOPS, BYTES).  For each selected name this writes OUTDIR/<name>/in*.npy and
ref*.npy (the reference cast to float32/complex64), times numpy_peer (and
torch_peer when torch imports; otherwise says "torch: not available"): one
warm-up call, then the median of N calls; checks each peer against the
reference with TOL, and writes the JSON that bench/run reads (same fields as
the shared suite's peers.py).  Exit status 1 if a peer is outside TOL.
"""
import argparse
import importlib.util
import json
import os
import platform
import statistics
import sys
import time
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = ["batched_gemm", "fft", "decoder"]


def load(name):
    spec = importlib.util.spec_from_file_location("workload_" + name, os.path.join(HERE, name, "workload.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def within(outs, refs, tols):
    """Worst |error| per result and whether |a - ref| <= atol + rtol*|ref| everywhere."""
    errs, ok = [], len(outs) == len(refs)
    for o, r, (rtol, atol) in zip(outs, refs, tols):
        d = np.abs(np.asarray(o).astype(np.complex128) - r)
        ok &= bool(np.all(d <= atol + rtol * np.abs(r)))
        errs.append(float(d.max()))
    return errs, ok


def timeit(fn, args, runs):
    fn(*args)
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        out = fn(*args)
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times), out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("names", nargs="*")
    ap.add_argument("--json", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-torch", action="store_true")
    a = ap.parse_intermixed_args()
    torch = None
    if not a.no_torch:
        try:
            import torch
            torch.set_num_threads(2)
        except ImportError:
            print("torch: not available")
    results, all_ok = [], True
    for name in a.names or NAMES:
        w = load(name)
        d = os.path.join(a.outdir, name)
        os.makedirs(d, exist_ok=True)
        ins = w.inputs(np.random.default_rng(zlib.crc32(name.encode())))
        for i, x in enumerate(ins):
            np.save(os.path.join(d, "in%d.npy" % i), x)
        refs = w.reference(*ins)
        for i, r in enumerate(refs):
            np.save(os.path.join(d, "ref%d.npy" % i), r.astype(np.complex64 if np.iscomplexobj(r) else np.float32))
        res = {"workload": name, "runs": a.runs, "tol": [list(t) for t in w.TOL], "torch_ms": None}
        res["numpy_ms"], out = timeit(w.numpy_peer, ins, a.runs)
        res["numpy_max_abs_err"], res["numpy_ok"] = within(out, refs, w.TOL)
        line = "%-13s numpy %8.2f ms  worst |err| %s %s" % (name, res["numpy_ms"], res["numpy_max_abs_err"],
                                                           "ok" if res["numpy_ok"] else "OUTSIDE TOL")
        all_ok &= res["numpy_ok"]
        if torch is not None and hasattr(w, "torch_peer"):
            with torch.inference_mode():
                res["torch_ms"], out = timeit(lambda *t: w.torch_peer(torch, *t),
                                              [torch.from_numpy(x) for x in ins], a.runs)
            res["torch_max_abs_err"], res["torch_ok"] = within([t.numpy() for t in out], refs, w.TOL)
            all_ok &= res["torch_ok"]
            line += "; torch %.2f ms %s" % (res["torch_ms"], "ok" if res["torch_ok"] else "OUTSIDE TOL")
        print(line)
        results.append(res)
    machine = {"cpu": next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), ""),
               "nproc": os.cpu_count(), "platform": platform.platform(), "numpy": np.__version__,
               "torch": torch.__version__ if torch else None,
               "env": {k: v for k, v in os.environ.items() if k.startswith(("OPENBLAS", "OMP_", "MALLOC_"))}}
    with open(a.json, "w") as f:
        json.dump({"machine": machine, "results": results}, f, indent=1)
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
