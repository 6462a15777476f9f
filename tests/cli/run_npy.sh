#!/bin/sh
# shloc run: .npy inputs and outputs for every descr family, --print literals,
# --repeat/--time, and the errors for wrong inputs and options.
# Needs python3 with numpy (Debian python3-numpy); reported as skipped (exit 77)
# without it.
SHLOC=$1
PY=
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import numpy' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || { echo "skipped: python3 with numpy not available"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$tmp" || exit 1

"$SHLOC" run --help > help.txt || fail "run --help"
for d in "'<V2'" "'|V1'" "'<c8'" "'<c16'" "'|b1'"; do
  grep -q "$d" help.txt || fail "--help does not document $d"
done

cat > add.mlir <<'EOF'
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi1>) {
  %0 = stablehlo.add %a, %b : tensor<2x3xf32>
  %1 = stablehlo.compare GT, %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xi1>
}
EOF
# Every result type passes through unchanged or computed: bf16, f8, complex, i4 (rank 0),
# an empty tensor, ui8, and an f8 -> f32 convert that checks the f8 bits were read as f8.
cat > types.mlir <<'EOF'
func.func @main(%a: tensor<3xbf16>, %b: tensor<2xf8E4M3FN>, %c: tensor<2xcomplex<f64>>, %d: tensor<i4>, %e: tensor<0x2xf32>, %g: tensor<2xui8>) -> (tensor<3xbf16>, tensor<2xf8E4M3FN>, tensor<2xcomplex<f64>>, tensor<i4>, tensor<0x2xf32>, tensor<2xui8>, tensor<2xf32>) {
  %0 = stablehlo.add %a, %a : tensor<3xbf16>
  %1 = stablehlo.convert %b : (tensor<2xf8E4M3FN>) -> tensor<2xf32>
  return %0, %b, %c, %d, %e, %g, %1 : tensor<3xbf16>, tensor<2xf8E4M3FN>, tensor<2xcomplex<f64>>, tensor<i4>, tensor<0x2xf32>, tensor<2xui8>, tensor<2xf32>
}
EOF
"$PY" - <<'EOF' || fail "writing inputs"
import numpy as np
np.save("a.npy", np.arange(6, dtype=np.float32).reshape(2, 3))
np.save("b.npy", np.full((2, 3), 2.5, np.float32))
np.save("wide.npy", np.zeros((2, 4), np.float32))
np.save("f64.npy", np.zeros((2, 3), np.float64))
bf = (np.array([1.0, -2.5, 3.0], np.float32).view(np.uint32) >> 16).astype(np.uint16)
np.save("bf.npy", bf.view("V2"))       # raw bf16 bits, as ml_dtypes stores them
np.save("bf_u2.npy", bf)                # '<u2' is accepted for bf16 too
np.save("f8.npy", np.array([0x38, 0xC0], np.uint8).view("V1"))  # f8E4M3FN 1.0, -2.0
np.save("c.npy", np.array([1 + 2j, 0.5 - 3j], np.complex128))
np.save("i4.npy", np.array(-3, np.int8))
np.save("empty.npy", np.zeros((0, 2), np.float32))
np.save("u8.npy", np.array([7, 255], np.uint8))
EOF

# Outputs and --print together.
"$SHLOC" run add.mlir --input a.npy --input b.npy -o sum.npy -o gt.npy --print > out.txt || fail "run add"
grep -qx 'dense<\[\[2.500000e+00, 3.500000e+00, 4.500000e+00\], \[5.500000e+00, 6.500000e+00, 7.500000e+00\]\]> : tensor<2x3xf32>' out.txt ||
  { cat out.txt; fail "--print f32"; }
grep -qx 'dense<\[\[false, false, false\], \[true, true, true\]\]> : tensor<2x3xi1>' out.txt || { cat out.txt; fail "--print i1"; }
ls | grep -q '\.tmp\.' && fail "temporary files left behind"
"$PY" - <<'EOF' || fail "output contents"
import numpy as np
s, g = np.load("sum.npy"), np.load("gt.npy")
assert s.dtype == np.float32 and s.shape == (2, 3), s
assert (s == np.arange(6, dtype=np.float32).reshape(2, 3) + 2.5).all(), s
assert g.dtype == np.bool_ and g.tolist() == [[False] * 3, [True] * 3], g
EOF
# Without -o or --print, results are printed.
"$SHLOC" run add.mlir --input a.npy --input b.npy | grep -q 'tensor<2x3xi1>' || fail "default print"

# Every descr family, in and out.
set -- bf.npy f8.npy c.npy i4.npy empty.npy u8.npy
"$SHLOC" run types.mlir -i "$1" -i "$2" -i "$3" -i "$4" -i "$5" -i "$6" \
  -o o0.npy -o o1.npy -o o2.npy -o o3.npy -o o4.npy -o o5.npy -o o6.npy --print > types.txt || fail "run types"
for want in 'dense<[2.000000e+00, -5.000000e+00, 6.000000e+00]> : tensor<3xbf16>' \
            'dense<[1.000000e+00, -2.000000e+00]> : tensor<2xf8E4M3FN>' \
            'dense<[(1.000000e+00,2.000000e+00), (5.000000e-01,-3.000000e+00)]> : tensor<2xcomplex<f64>>' \
            'dense<-3> : tensor<i4>' 'dense<> : tensor<0x2xf32>' 'dense<[7, 255]> : tensor<2xui8>' \
            'dense<[1.000000e+00, -2.000000e+00]> : tensor<2xf32>'; do
  grep -qxF "$want" types.txt || { cat types.txt; fail "--print: $want"; }
done
"$PY" - <<'EOF' || fail "typed outputs"
import numpy as np
o = [np.load("o%d.npy" % i) for i in range(7)]
want = ["<V2", "|V1", "<c16", "|i1", "<f4", "|u1", "<f4"]
assert [a.dtype.str.replace("|V2", "<V2") for a in o] == want, [a.dtype.str for a in o]
with open("o0.npy", "rb") as f:
    assert b"'<V2'" in f.read(128), "bf16 descr"
bits = o[0].view(np.uint16).astype(np.uint32) << 16
assert bits.view(np.float32).tolist() == [2.0, -5.0, 6.0], bits
assert o[1].view(np.uint8).tolist() == [0x38, 0xC0]
assert o[2].tolist() == [1 + 2j, 0.5 - 3j]
assert o[3].shape == () and int(o[3]) == -3
assert o[4].shape == (0, 2)
assert o[5].tolist() == [7, 255] and o[6].tolist() == [1.0, -2.0]
EOF
# The same bf16 bits from '<u2': [1, -2.5, 3] doubled, and passed through unchanged.
"$SHLOC" run types.mlir -i bf_u2.npy -i f8.npy -i c.npy -i i4.npy -i empty.npy -i u8.npy -o u0.npy -o u1.npy \
  -o u2.npy -o u3.npy -o u4.npy -o u5.npy -o u6.npy --print > u2.txt || fail "bf16 from '<u2'"
grep -qxF 'dense<[2.000000e+00, -5.000000e+00, 6.000000e+00]> : tensor<3xbf16>' u2.txt ||
  { cat u2.txt; fail "bf16 from '<u2': values"; }
"$PY" - <<'EOF2' || fail "bf16 from '<u2': output"
import numpy as np
bits = np.load("u0.npy").view(np.uint16).astype(np.uint32) << 16
assert bits.view(np.float32).tolist() == [2.0, -5.0, 6.0], bits
EOF2

# --repeat/--time: one timing line on stderr, outputs from the last run.
"$SHLOC" run add.mlir -i a.npy -i b.npy -o sum.npy -o gt.npy --repeat 3 --time > out.txt 2> err.txt || fail "--repeat"
grep -q '^shloc run: 3 runs, median [0-9.]* ms, min [0-9.]* ms$' err.txt || { cat err.txt; fail "--time format"; }
[ -s out.txt ] && fail "--time with -o printed results"

# Errors: each names the argument, the file and both types; nothing is written.
expect_error() { # message, then the command
  msg=$1; shift
  if "$@" > /dev/null 2> err.txt; then fail "accepted: $*"; fi
  grep -qF -- "$msg" err.txt || { cat err.txt; fail "message for: $*"; }
}
expect_error 'argument #1 (wide.npy): expected tensor<2x3xf32>, got tensor<2x4xf32> (<f4)' \
  "$SHLOC" run add.mlir -i a.npy -i wide.npy
expect_error 'argument #1 (f64.npy): expected tensor<2x3xf32>, got tensor<2x3xf64> (<f8)' \
  "$SHLOC" run add.mlir -i a.npy -i f64.npy
expect_error 'argument #0 (u8.npy): expected tensor<3xbf16>, got tensor<2xui8> (|u1)' \
  "$SHLOC" run types.mlir -i u8.npy -i f8.npy -i c.npy -i i4.npy -i empty.npy -i u8.npy
expect_error '@main takes 2 arguments, got 1 --input file' "$SHLOC" run add.mlir -i a.npy
expect_error '@main returns 2 results, got 1 -o file' "$SHLOC" run add.mlir -i a.npy -i b.npy -o only.npy
[ -e only.npy ] && fail "output written despite an error"
expect_error 'missing.npy' "$SHLOC" run add.mlir -i a.npy -i missing.npy
expect_error 'no function @nope' "$SHLOC" run add.mlir --entry nope -i a.npy -i b.npy
expect_error "expected TARGET=LIB.so:SYMBOL" "$SHLOC" run add.mlir -i a.npy -i b.npy --ffi bogus
expect_error "no_such_lib.so" "$SHLOC" run add.mlir -i a.npy -i b.npy --ffi t=./no_such_lib.so:f
expect_error "no_such_plugin.so" "$SHLOC" run add.mlir -i a.npy -i b.npy --plugin ./no_such_plugin.so
expect_error "--repeat expects" "$SHLOC" run add.mlir --repeat 0
printf 'func.func @main(%%a: tensor<?xf32>) -> tensor<?xf32> {\n  return %%a : tensor<?xf32>\n}\n' > dyn.mlir
expect_error "argument #0 (a.npy): expected tensor<?xf32>, got tensor<2x3xf32> (<f4)" "$SHLOC" run dyn.mlir -i a.npy
"$SHLOC" run add.mlir --bogus 2> /dev/null
[ $? -eq 2 ] || fail "bad usage exit status"
echo ok
