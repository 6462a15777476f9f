#!/usr/bin/env python3
"""Differential run of `shloc lower --to=linalg` over a corpus of programs
that check themselves (../shared/conformance/testdata): each program's
check.* custom calls are dropped, @main's single result is converted to a
type mlir-runner can print (i64 for integers and i1, f32 for narrow floats,
the bits for ui64; complex results are skipped), then the program is lowered,
compiled with mlir-opt-22 (the README pipeline), run by mlir-runner-22 with
libshloc loaded for the call-outs, and compared with `shloc run` of the same
program (rel. 1e-5, NaN equals NaN).

  scripts/lower_corpus_run.py SHLOC DIR [--every N] [--jobs J]

Not part of ctest (the corpus lives outside the tree)."""
import concurrent.futures, math, os, re, struct, subprocess, sys, tempfile

PIPE = ["--one-shot-bufferize=bufferize-function-boundaries allow-return-allocs-from-loops "
        "function-boundary-type-conversion=identity-layout-map",
        "--ownership-based-buffer-deallocation", "--buffer-deallocation-simplification",
        "--bufferization-lower-deallocations", "--convert-bufferization-to-memref",
        "--convert-linalg-to-loops", "--convert-scf-to-cf", "--expand-strided-metadata", "--lower-affine",
        "--convert-math-to-llvm", "--convert-math-to-libm", "--convert-arith-to-llvm",
        "--convert-index-to-llvm", "--convert-func-to-llvm", "--convert-cf-to-llvm",
        "--finalize-memref-to-llvm", "--convert-func-to-llvm", "--reconcile-unrealized-casts"]
PRINT = {"f32": "printMemrefF32", "f64": "printMemrefF64", "i32": "printMemrefI32", "i64": "printMemrefI64"}


def printable(text):
    """The program with checks dropped and @main's result made printable, or None."""
    m = re.search(r"func\.func public @main\(\) -> \((tensor<([0-9x]*)([a-z0-9<>]+)>)(?: \{[^}]*\})?\)", text)
    if not m:
        return None, "not a single-result @main()"
    ty, shape, el = m.group(1), m.group(2), m.group(3)
    if el.startswith("complex"):
        return None, "complex result"
    conv = None
    if el in ("f32", "f64", "i32", "i64"):
        out = el
    elif el in ("f16", "bf16") or el.startswith("f8") or el.startswith("f4") or el.startswith("f6"):
        conv, out = "convert", "f32"
    elif el == "ui64":
        conv, out = "bitcast_convert", "i64"
    elif re.fullmatch(r"u?i[0-9]+", el):
        conv, out = "convert", "i64"
    else:
        return None, "result type " + el
    lines = [l for l in text.split("\n") if "@check." not in l]
    body = "\n".join(lines)
    start = body.index(m.group(0))
    ret = re.compile(r"\n(\s*)return (%[\w#]+) : " + re.escape(ty) + r"\n").search(body, start)
    if not ret:
        return None, "no return in @main"
    new_ty = "tensor<%s%s>" % (shape, out)
    repl = "\n"
    val = ret.group(2)
    if conv:
        repl += "%sshloc_out = stablehlo.%s %s : (%s) -> %s\n" % (ret.group(1) + "%", conv, val, ty, new_ty)
        val = "%shloc_out"
    repl += "%sreturn %s : %s\n" % (ret.group(1), val, new_ty)
    body = body[:ret.start()] + repl + body[ret.end():]
    body = body.replace(m.group(0), m.group(0).replace(ty, new_ty, 1), 1)
    return (body, new_ty, out), None


def nums(text, dbl):
    out = []
    for tok in re.findall(r"0x[0-9A-Fa-f]+|-?nan|-?inf|[-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?", text):
        if tok.startswith("0x"):
            v = int(tok, 16)
            out.append(struct.unpack("<d", struct.pack("<Q", v))[0] if dbl or len(tok) > 10
                       else struct.unpack("<f", struct.pack("<I", v))[0])
        else:
            out.append(float(tok))
    return out


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)


def one(shloc, runlibs, path, tmp):
    b = os.path.basename(path)[:-5]
    prog, why = printable(open(path).read())
    if not prog:
        return "skip", why
    text, ty, el = prog
    src = os.path.join(tmp, b + ".mlir")
    open(src, "w").write(text)
    want = run([shloc, "run", src])
    if want.returncode:
        return "skip", "shloc run fails on the rewritten program"
    low = run([shloc, "lower", src, "--to=linalg", "-o", src + ".low"])
    if low.returncode:
        return "lower", low.stderr.strip().split("\n")[0]
    lowered = open(src + ".low").read().rstrip()
    assert lowered.endswith("}")
    pf = PRINT[el]
    lowered = lowered[:-1] + (
        "  func.func @entry() {\n    %%r = func.call @main() : () -> %s\n"
        "    %%u = tensor.cast %%r : %s to tensor<*x%s>\n"
        "    func.call @%s(%%u) : (tensor<*x%s>) -> ()\n    func.return\n  }\n"
        "  func.func private @%s(tensor<*x%s>)\n}\n") % (ty, ty, el, pf, el, pf, el)
    open(src + ".run", "w").write(lowered)
    opt = run(["mlir-opt-22", src + ".run"] + PIPE + ["-o", src + ".llvm"])
    if opt.returncode:
        return "compile", opt.stderr.strip().split("\n")[0][:160]
    got = run(["mlir-runner-22", "-e", "entry", "-entry-point-result=void", "-shared-libs=" + runlibs, src + ".llvm"])
    for f in (src, src + ".low", src + ".run", src + ".llvm"):
        os.path.exists(f) and os.remove(f)
    if got.returncode:
        return "run", got.stderr.strip().split("\n")[-1][:160]
    g = nums(got.stdout[got.stdout.index("data =") + 6:], el == "f64")
    w = want.stdout
    w = nums(w[w.index("dense<") + 6:w.rindex("> : tensor<")], el == "f64")
    if len(w) == 1 and len(g) > 1:
        w = w * len(g)  # a splat
    if len(g) != len(w):
        return "differ", "count %d != %d" % (len(g), len(w))
    for i, (x, y) in enumerate(zip(g, w)):
        if x == y or (math.isnan(x) and math.isnan(y)):
            continue
        if not abs(x - y) <= 1e-5 * max(1.0, abs(y)):
            return "differ", "element %d: compiled %r, shloc run %r" % (i, x, y)
    return "ok", ""


def main():
    args = sys.argv[1:]
    every, jobs = 1, 2
    if "--every" in args:
        i = args.index("--every"); every = int(args[i + 1]); del args[i:i + 2]
    if "--jobs" in args:
        i = args.index("--jobs"); jobs = int(args[i + 1]); del args[i:i + 2]
    shloc, corpus = os.path.abspath(args[0]), args[1]
    libdir = os.path.join(os.path.dirname(os.path.realpath(subprocess.check_output(
        ["sh", "-c", "command -v mlir-runner-22"], text=True).strip())), "..", "lib")
    libs = sorted(f for f in os.listdir(libdir) if re.match(r"libmlir_(c_)?runner_utils\.so", f))[:2]
    libshloc = os.path.join(os.path.dirname(os.path.realpath(shloc)), "libshloc.so")
    runlibs = ",".join([os.path.join(libdir, f) for f in libs] + [libshloc])
    files = sorted(f for f in os.listdir(corpus) if f.endswith(".mlir"))[::every]
    counts, notes = {}, []
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        for f, (res, why) in zip(files, ex.map(lambda f: one(shloc, runlibs, os.path.join(corpus, f), tmp), files)):
            counts[res] = counts.get(res, 0) + 1
            if res not in ("ok", "skip"):
                notes.append("%s: %s: %s" % (res, f, why))
    print("lower_corpus_run: %d programs: %s" % (len(files), ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
    for n in notes:
        print("  " + n)
    return 1 if notes else 0


if __name__ == "__main__":
    sys.exit(main())
