#!/usr/bin/python3
"""Live set of a StableHLO module's @main, from its shapes (for bench/run's memory column).

usage: liveset.py module.mlir    (prints the live set in bytes)

The live set is what an unfused execution must hold at its worst moment: the
arguments (held by the caller throughout) plus the largest total of
top-level values alive at once, where a value is alive from the op that
defines it to the last top-level op that mentions it (uses inside an op's
regions count at that op; returned values live to the end, so the outputs are
included).  Results of broadcast_in_dim and reshape count as views (0 bytes);
every other top-level value counts as materialised, so the figure is what an
unfused executor that frees each value after its last use needs, more than a
fusing one must hold.  Values inside regions (loop bodies, reducers) are not
counted.
Dynamic dimensions count as 0.
"""
import re
import sys

ELEM = {"i1": 1, "i2": 1, "i4": 1, "i8": 1, "ui8": 1, "i16": 2, "ui16": 2, "f16": 2, "bf16": 2, "i32": 4, "ui32": 4,
        "f32": 4, "i64": 8, "ui64": 8, "f64": 8, "complex<f32>": 8, "complex<f64>": 16}
TENSOR = re.compile(r"tensor<((?:[0-9?]+x)*)(complex<\w+>|\w+)")
VALUE = re.compile(r"%[\w$.-]+")


def tensor_bytes(text):
    """Byte sizes of the tensor types in text, in order."""
    out = []
    for dims, elem in TENSOR.findall(text):
        n = ELEM.get(elem, 4)
        for d in dims.split("x")[:-1]:
            n *= int(d) if d != "?" else 0
        out.append(n)
    return out


def _ops(lines):
    """Top-level ops of the function body: lists of lines, one list per op."""
    indent = len(lines[0]) - len(lines[0].lstrip())
    ops = []
    for line in lines:
        if not line.strip() or line.strip().startswith("//"):
            continue
        if len(line) - len(line.lstrip()) == indent and not line.lstrip().startswith(("}", "^")):
            ops.append([line])
        elif ops:
            ops[-1].append(line)
    return ops


def live_set(text):
    head = re.search(r"func\.func\s+(?:public\s+)?@main\((.*?)\)\s*(->|\{)", text, re.S)
    if not head:
        raise ValueError("no @main")
    args = sum(tensor_bytes(head.group(1)))
    body = text[head.end():].split("\n")[1:]
    # The body ends at the first line indented like (or less than) the func line.
    func_indent = len(text[:head.start()].rsplit("\n", 1)[-1])
    end = next(i for i, l in enumerate(body) if l.strip() and len(l) - len(l.lstrip()) <= func_indent)
    ops = _ops(body[:end])
    sizes, last, born = {}, {}, {}
    for i, op in enumerate(ops):
        m = re.match(r"\s*(%[\w$.-]+(?::\d+)?(?:\s*,\s*%[\w$.-]+)*)\s*=", op[0])
        defs = [v.split(":")[0] for v in m.group(1).replace(" ", "").split(",")] if m else []
        for v in VALUE.findall("\n".join(op)[m.end() if m else 0:]):
            last[v.split("#")[0]] = i
        if defs:
            k = int(m.group(1).split(":")[1]) if ":" in m.group(1) else len(defs)
            # The signature: the closing line of a region op, else the op's first line.
            sig = op[-1] if len(op) > 1 and op[-1].lstrip().startswith("}") and ":" in op[-1] else op[0]
            sig = sig.rsplit("->", 1)[1] if "->" in sig else sig.rsplit(" : ", 1)[-1]
            view = re.search(r"stablehlo\.(broadcast_in_dim|reshape)\b", op[0])
            sizes[defs[0]] = 0 if view else sum(tensor_bytes(sig)[-k:])
            born[i] = defs[0]
            for v in defs[1:]:
                sizes[v] = 0  # counted with the first name
    live, peak = set(), 0
    for i, op in enumerate(ops):
        if i in born:
            live.add(born[i])
        peak = max(peak, sum(sizes[v] for v in live))
        live = {v for v in live if last.get(v, -1) > i}
    return args + peak


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        print(live_set(f.read()))
