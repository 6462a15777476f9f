"""Writes the convert benchmark's inputs and programs into OUT:
f32.npy (N values spread over every exponent that converts to f16/bf16/i32
meaningfully, with NaNs and infinities) and bf16.npy (<u2 bf16 patterns),
plus one module per conversion.  Usage: gen.py OUT N"""
import array, os, struct, sys

out, n = sys.argv[1], int(sys.argv[2])
os.makedirs(out, exist_ok=True)

def npy(path, descr, count, data):
    hdr = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, count)
    hdr += " " * (63 - (len(hdr) + 10) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode() + data)

# xorshift32 over sign, exponents 100..160 (|x| ~ 1e-8 .. 1e18) and mantissas;
# one in 4096 a NaN or infinity.
vals, s = array.array("I", bytes(4 * n)), 2463534242
for i in range(n):
    s ^= (s << 13) & 0xFFFFFFFF; s ^= s >> 17; s ^= (s << 5) & 0xFFFFFFFF
    e = 100 + (s >> 23) % 61
    vals[i] = 0x7F800000 | (s & 0x7FFFFF) if (s & 0xFFF) == 0 else (s & 0x80000000) | e << 23 | (s & 0x7FFFFF)
npy(os.path.join(out, "f32.npy"), "<f4", n, vals.tobytes())
npy(os.path.join(out, "bf16.npy"), "<u2", n, array.array("H", (v >> 16 for v in vals)).tobytes())

for name, a, b in [("f32_bf16", "f32", "bf16"), ("f32_f16", "f32", "f16"), ("f32_i32", "f32", "i32"),
                   ("bf16_f32", "bf16", "f32"), ("f32_f8e4m3fn", "f32", "f8E4M3FN")]:
    with open(os.path.join(out, name + ".mlir"), "w") as f:
        f.write("func.func @main(%%x: tensor<%dx%s>) -> tensor<%dx%s> {\n"
                "  %%0 = stablehlo.convert %%x : (tensor<%dx%s>) -> tensor<%dx%s>\n"
                "  return %%0 : tensor<%dx%s>\n}\n" % (n, a, n, b, n, a, n, b, n, b))
