#!/usr/bin/python3
"""Time to first result: cold `shloc run` processes, split into phases.

usage: bench/startup.py [--shloc PATH] [--out DIR] [--reps N] [--ops 25000,50000,100000,200000]
                        [--const-mb 500] [--no-bytecode]

Writes (once; bench/parse/gen.py, fixed seeds) into OUT (default bench/out):
  startup_ops_N.mlir   a function of N elementwise ops on tensor<4x8xf32>, for
                       each N of --ops (plan time should grow linearly in N),
  startup_const.mlir   CONST_MB megabytes of dense f32 constants as hex text
                       (the text is twice that), summed by a chain of adds,
  startup_const.mlirbc the same as a portable artifact (`shloc serialize`), whose
                       constants can be borrowed from the file's bytes,
and the two tensor<4x8xf32> .npy inputs of the ops modules.  Then it runs
`shloc run FILE -i ... -o ... --profile-phases` REPS times per file (cold
processes) and prints the median of each phase (read, parse, verify, inputs,
plan, first run, outputs), the process's wall time as seen from here, the
peak RSS the process reports (VmHWM), and for the ops modules the plan time
per op.  Needs /usr/bin/python3 with numpy."""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN = os.path.join(ROOT, "bench", "parse", "gen.py")
PHASES = ["read", "parse", "verify", "inputs", "plan", "first run", "outputs"]
LINE = re.compile(r"shloc run: phases: (.*); peak RSS ([0-9.]+) MB")


def parse_phases(err):
    """{phase: ms} and peak RSS in MB from a --profile-phases line, or None."""
    m = LINE.search(err)
    if not m:
        return None
    ph = {}
    for part in m.group(1).split(", "):
        name, ms, _ = part.rsplit(" ", 2)
        ph[name] = float(ms)
    return ph, float(m.group(2))


def generate(kind, path, arg):
    if not os.path.exists(path):
        print("startup: writing %s" % path, file=sys.stderr, flush=True)
        subprocess.run([sys.executable, GEN, kind, path + ".tmp", str(arg)], check=True)
        os.rename(path + ".tmp", path)


def run(shloc, path, inputs, out, reps):
    """Median phases, median wall ms and the largest peak RSS of reps cold runs."""
    cmd = [shloc, "run", path, "--profile-phases"]
    for i in inputs:
        cmd += ["-i", i]
    cmd += ["-o", out]
    rows, walls, rss = [], [], 0.0
    for _ in range(reps):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        walls.append((time.perf_counter() - t0) * 1e3)
        got = parse_phases(p.stderr)
        if p.returncode or not got:
            sys.exit("startup: %s failed:\n%s" % (" ".join(cmd), p.stderr))
        rows.append(got[0])
        rss = max(rss, got[1])
    return {k: statistics.median(r[k] for r in rows) for k in PHASES}, statistics.median(walls), rss


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shloc", default=os.environ.get("SHLOC", os.path.join(ROOT, "build", "shloc")))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "out"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--ops", default="25000,50000,100000,200000")
    ap.add_argument("--const-mb", type=int, default=500)
    ap.add_argument("--no-bytecode", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng(0)
    ins = []
    for i in range(2):
        ins.append(os.path.join(a.out, "startup_in%d.npy" % i))
        np.save(ins[-1], rng.standard_normal((4, 8)).astype(np.float32))
    files = []
    for n in [int(x) for x in a.ops.split(",") if x]:
        files.append(("%dk ops" % (n // 1000), os.path.join(a.out, "startup_ops_%d.mlir" % n), ins, n))
        generate("ops", files[-1][1], n)
    const = os.path.join(a.out, "startup_const.mlir")
    if a.const_mb:
        # gen.py's size is of the text: two hex digits per byte of constants.
        generate("hex", const, 2 * a.const_mb)
        files.append(("%d MB consts, text" % a.const_mb, const, [], 0))
        bc = const[:-5] + ".mlirbc"
        if not a.no_bytecode:
            if not os.path.exists(bc):
                subprocess.run([a.shloc, "serialize", const, "-o", bc], check=True)
            files.append(("%d MB consts, bytecode" % a.const_mb, bc, [], 0))
    load0 = os.getloadavg()
    print("# %s; load average %.1f %.1f %.1f at start; medians of %d cold runs" % (
        time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), *load0, a.reps))
    hdr = "| module | file MB | " + " | ".join(PHASES) + " | wall ms | plan us/op | peak RSS MB |"
    print(hdr)
    print("|---|" + "---:|" * (len(PHASES) + 4))
    out = os.path.join(a.out, "startup_out.npy")
    for label, path, inputs, n_ops in files:
        ph, wall, rss = run(a.shloc, path, inputs, out, a.reps)
        per_op = "%.2f" % (ph["plan"] * 1e3 / n_ops) if n_ops else "-"
        print("| %s | %.1f | %s | %.1f | %s | %.1f |" % (
            label, os.path.getsize(path) / 1e6, " | ".join("%.1f" % ph[k] for k in PHASES), wall, per_op, rss),
            flush=True)
    print("# load average %.1f %.1f %.1f at end" % os.getloadavg())
    return 0


if __name__ == "__main__":
    sys.exit(main())
