"""Writes the sort benchmark's inputs and programs into OUT: N keys per key
type (xorshift32 bits; f16/bf16 with some NaNs, i16/i8/i4 integers) plus
i32 payloads, and one module per case.  The cases take the radix sort's
(key, index) path: two operands, or a key type whose keys do not map back
to their values alone.  Usage: gen.py OUT N"""
import array, os, struct, sys

out, n = sys.argv[1], int(sys.argv[2])
os.makedirs(out, exist_ok=True)

def npy(path, descr, data):
    hdr = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, n)
    hdr += " " * (63 - (len(hdr) + 10) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode() + data)

bits, s = array.array("I", bytes(4 * n)), 2463534242
for i in range(n):
    s ^= (s << 13) & 0xFFFFFFFF; s ^= s >> 17; s ^= (s << 5) & 0xFFFFFFFF
    bits[i] = s
npy(os.path.join(out, "f32.npy"), "<f4", array.array("I", (b & 0xBFFFFFFF for b in bits)).tobytes())
npy(os.path.join(out, "f16.npy"), "<f2", array.array("H", (b >> 16 & 0xBFFF for b in bits)).tobytes())
npy(os.path.join(out, "bf16.npy"), "<u2", array.array("H", (b >> 16 & 0xBFFF for b in bits)).tobytes())
npy(os.path.join(out, "i16.npy"), "<i2", array.array("h", (((b >> 8) & 0xFFFF) - 32768 for b in bits)).tobytes())
npy(os.path.join(out, "i32.npy"), "<i4", array.array("i", (((b >> 4) & 0xFFFFFFF) - (1 << 27) for b in bits)).tobytes())

cmp = ("  ^bb0(%%a: tensor<%s>, %%b: tensor<%s>%s):\n"
       "    %%c = stablehlo.compare LT, %%a, %%b : (tensor<%s>, tensor<%s>) -> tensor<i1>\n"
       "    stablehlo.return %%c : tensor<i1>\n")
for key, np_key in [("f16", "f16"), ("bf16", "bf16"), ("i16", "i16"), ("f32", "f32")]:
    # (key, payload): sorts (key, index) items, then permutes both
    with open(os.path.join(out, "%s_i32.mlir" % key), "w") as f:
        f.write("func.func @main(%%k: tensor<%dx%s>, %%v: tensor<%dxi32>) -> (tensor<%dx%s>, tensor<%dxi32>) {\n"
                "  %%0:2 = \"stablehlo.sort\"(%%k, %%v) ({\n" % (n, key, n, n, key, n)
                + cmp % (key, key, ", %p: tensor<i32>, %q: tensor<i32>", key, key) +
                "  }) {dimension = 0 : i64, is_stable = true} : (tensor<%dx%s>, tensor<%dxi32>) -> (tensor<%dx%s>, tensor<%dxi32>)\n"
                "  return %%0#0, %%0#1 : tensor<%dx%s>, tensor<%dxi32>\n}\n" % (n, key, n, n, key, n, n, key, n))
    # the key alone (f16, bf16, i16: no keys-only form)
    with open(os.path.join(out, "%s.mlir" % key), "w") as f:
        f.write("func.func @main(%%k: tensor<%dx%s>) -> tensor<%dx%s> {\n"
                "  %%0 = \"stablehlo.sort\"(%%k) ({\n" % (n, key, n, key)
                + cmp % (key, key, "", key, key) +
                "  }) {dimension = 0 : i64, is_stable = true} : (tensor<%dx%s>) -> tensor<%dx%s>\n"
                "  return %%0 : tensor<%dx%s>\n}\n" % (n, key, n, key, n, key))
