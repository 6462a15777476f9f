#!/usr/bin/python3
"""Generates the parser benchmark inputs (generic op form, so that
mlir-opt --allow-unregistered-dialect reads the same files):

  gen.py hex OUT [MB]    ~MB (default 128) of dense<"0x..."> constants
  gen.py ops OUT [N]     a function of N (default 100000) elementwise ops

Output is deterministic (fixed seed)."""
import random
import sys

T = "tensor<4x8xf32>"


def gen_hex(out, mb):
    rng = random.Random(1)
    rows, cols = 512, 1024  # 2 MiB of f32 per constant
    ty = "tensor<%dx%dxf32>" % (rows, cols)
    n = max(1, (mb << 20) // (rows * cols * 4 * 2))
    out.write("func.func @main() -> %s {\n" % ty)
    for i in range(n):
        blob = rng.randbytes(rows * cols * 4).hex().upper()
        out.write('  %%c%d = "stablehlo.constant"() <{value = dense<"0x%s"> : %s}> : () -> %s\n' % (i, blob, ty, ty))
    acc = "%c0"
    for i in range(1, n):
        out.write('  %%s%d = "stablehlo.add"(%s, %%c%d) : (%s, %s) -> %s\n' % (i, acc, i, ty, ty, ty))
        acc = "%%s%d" % i
    out.write("  return %s : %s\n}\n" % (acc, ty))


def gen_ops(out, n):
    rng = random.Random(2)
    binary = ["add", "subtract", "multiply", "maximum", "minimum", "divide"]
    unary = ["negate", "abs", "exponential", "tanh", "sqrt"]
    out.write("func.func @main(%%arg0: %s, %%arg1: %s) -> %s {\n" % (T, T, T))
    vals = ["%arg0", "%arg1"]
    for i in range(n):
        k = rng.random()
        a = vals[-1]
        b = vals[rng.randrange(max(0, len(vals) - 50), len(vals))]
        if k < 0.6:
            op = rng.choice(binary)
            line = '"stablehlo.%s"(%s, %s) : (%s, %s) -> %s' % (op, a, b, T, T, T)
        elif k < 0.85:
            op = rng.choice(unary)
            line = '"stablehlo.%s"(%s) : (%s) -> %s' % (op, a, T, T)
        elif k < 0.95:
            line = '"stablehlo.constant"() <{value = dense<%.3f> : %s}> : () -> %s' % (rng.uniform(-4, 4), T, T)
        else:
            line = ('"stablehlo.compare"(%s, %s) <{comparison_direction = #stablehlo<comparison_direction LT>}> '
                    ': (%s, %s) -> tensor<4x8xi1>' % (a, b, T, T))
            out.write('  %%p%d = %s\n' % (i, line))
            line = '"stablehlo.select"(%%p%d, %s, %s) : (tensor<4x8xi1>, %s, %s) -> %s' % (i, a, b, T, T, T)
        out.write("  %%v%d = %s\n" % (i, line))
        vals.append("%%v%d" % i)
    out.write("  return %s : %s\n}\n" % (vals[-1], T))


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("hex", "ops"):
        sys.exit(__doc__)
    with open(sys.argv[2], "w") as out:
        if sys.argv[1] == "hex":
            gen_hex(out, int(sys.argv[3]) if len(sys.argv) > 3 else 128)
        else:
            gen_ops(out, int(sys.argv[3]) if len(sys.argv) > 3 else 100000)


main()
