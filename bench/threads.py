#!/usr/bin/python3
"""Where 2-thread scaling is lost, measured in CPU time (meaningful under load,
unlike wall-clock speedups).

usage: bench/threads.py [--shloc PATH] [--out DIR] [--repeat N] names...

For each workload (inputs already written by bench/run into OUT/data/<name>),
records `shloc run` with OMP_NUM_THREADS=2 under `perf record -e cpu-clock`
(samples only while a thread runs) twice, with --repeat N and --repeat 1, and
takes the difference, so that reading, parsing and planning drop out; the
same with OMP_NUM_THREADS=1.  Of the CPU time of the N-1 extra runs it prints
the main thread's and the other threads' shares, the total CPU time over the
1-thread run's (work added by splitting), and the 2-thread speedup those allow,
1-thread CPU / main thread CPU (OMP_WAIT_POLICY=passive: idle workers sleep,
so their CPU time is work; time spent waiting at barriers, e.g. for a
descheduled thread or a wake-up, is not counted), then the main thread's
hottest symbols.  Needs perf."""
import argparse
import collections
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))


def module_of(name, suite):
    own = os.path.join(ROOT, "bench", "workloads", name, "module.mlir")
    return own if os.path.exists(own) else os.path.join(suite, name, "module.mlir")


def samples(shloc, module, data, repeat, path, threads=2):
    """{(is_main, symbol): count} of one recorded run."""
    cmd = [shloc, "run", module]
    k = 0
    while os.path.exists(os.path.join(data, "in%d.npy" % k)):
        cmd += ["-i", os.path.join(data, "in%d.npy" % k)]
        k += 1
    cmd += ["--repeat", str(repeat), "--time"]
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_WAIT_POLICY="passive")
    subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", "10000", "-o", path, "--"] + cmd, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = subprocess.run(["perf", "script", "-i", path, "-F", "pid,tid,ip,sym"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True).stdout
    counts = collections.Counter()
    for line in out.splitlines():
        parts = line.split(None, 2)  # "pid/tid", ip, symbol
        if len(parts) < 2 or "/" not in parts[0]:
            continue
        pid, tid = parts[0].split("/")
        counts[(pid == tid, parts[2].strip() if len(parts) > 2 else "?")] += 1
    return counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="+")
    ap.add_argument("--shloc", default=os.path.join(ROOT, "build", "shloc"))
    ap.add_argument("--suite", default=os.path.join(ROOT, "..", "shared", "bench"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "out"))
    ap.add_argument("--repeat", type=int, default=20)
    a = ap.parse_args()
    print("# load average %.1f %.1f %.1f" % os.getloadavg())
    print("| workload | main thread CPU share | other threads | CPU 2 threads / 1 thread | 2-thread speedup allowed "
          "| main thread's top symbols |")
    print("|---|---:|---:|---:|---:|---|")
    for name in a.names:
        data = os.path.join(a.out, "data", name)
        mod = module_of(name, a.suite)
        many = samples(a.shloc, mod, data, a.repeat, os.path.join(a.out, "threads-%s-n.data" % name))
        one = samples(a.shloc, mod, data, 1, os.path.join(a.out, "threads-%s-1.data" % name))
        diff = collections.Counter({k: v - one.get(k, 0) for k, v in many.items()})
        serial = samples(a.shloc, mod, data, a.repeat, os.path.join(a.out, "threads-%s-s.data" % name), threads=1)
        serial1 = samples(a.shloc, mod, data, 1, os.path.join(a.out, "threads-%s-s1.data" % name), threads=1)
        t1 = sum(serial.values()) - sum(serial1.values())
        main_n = sum(v for (m, _), v in diff.items() if m and v > 0)
        other_n = sum(v for (m, _), v in diff.items() if not m and v > 0)
        if main_n <= 0:
            print("| %s | - | - | - | too few samples |" % name)
            continue
        total = main_n + other_n
        top = sorted(((v, s) for (m, s), v in diff.items() if m and v > 0), reverse=True)[:4]
        print("| %s | %.0f%% | %.0f%% | %.2f | %.2fx | %s |" % (
            name, 100.0 * main_n / total, 100.0 * other_n / total, total / t1 if t1 > 0 else float("nan"),
            t1 / main_n,
            ", ".join("%s %.0f%%" % (s, 100.0 * v / main_n) for v, s in top)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
