#!/bin/sh
# shloc lower --to=linalg: golden lowered text of tests/golden/lower_linalg; every program of tests/data/lower_linalg lowers to a
# module that mlir-opt-22 parses and verifies (--verify-each); the run_*.mlir
# programs (no arguments, one f32 result) are then compiled by mlir-opt-22 with
# the README's pipeline, executed by mlir-runner-22 (JIT) and their results
# compared with `shloc run` on the same program.  An unsupported op must be
# refused with its name and location.  Skipped (exit 77) without the tools.
SHLOC=${1:?usage: lower_linalg.sh SHLOC}
SRC=${SHLOC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
DATA=$SRC/tests/data/lower_linalg
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Golden: the lowered text of tests/golden/lower_linalg/*.mlir (reviewed by hand).
for f in "$SRC"/tests/golden/lower_linalg/*.mlir; do
  "$SHLOC" lower "$f" --to=linalg -o "$tmp/golden.mlir" || fail "$(basename "$f"): lower"
  cmp -s "$f.expected" "$tmp/golden.mlir" || { diff -u "$f.expected" "$tmp/golden.mlir"; fail "$(basename "$f"): differs"; }
  echo "ok: $(basename "$f") equals its golden output"
done
command -v mlir-opt-22 >/dev/null 2>&1 || { echo "skipped: mlir-opt-22 not installed (Debian: mlir-22-tools)"; exit 77; }
for f in "$SRC"/tests/golden/lower_linalg/*.expected; do
  mlir-opt-22 --verify-each "$f" -o /dev/null || fail "$(basename "$f"): mlir-opt-22 rejects it"
done

for f in "$DATA"/*.mlir; do
  b=$(basename "$f" .mlir)
  "$SHLOC" lower "$f" --to=linalg -o "$tmp/$b.mlir" || fail "$b: lower"
  mlir-opt-22 --verify-each "$tmp/$b.mlir" -o /dev/null || fail "$b: mlir-opt-22 rejects the lowered module"
  # (call-out failure messages name the op)
  if grep -v "cf.assert" "$tmp/$b.mlir" | grep -q "stablehlo\|chlo\."; then fail "$b: StableHLO left in the output"; fi
  echo "ok: $b lowers and verifies"
done

# Refusal: an op without a lowering names itself and its location.
cat >"$tmp/ar.mlir" <<'M'
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
M
if "$SHLOC" lower "$tmp/ar.mlir" --to=linalg -o "$tmp/ar.out" 2>"$tmp/err"; then fail "all_reduce was not refused"; fi
grep -q "ar.mlir:2:3: error: 'stablehlo.all_reduce' cannot be lowered to linalg yet" "$tmp/err" ||
  { cat "$tmp/err"; fail "refusal message"; }
[ -e "$tmp/ar.out" ] && fail "an output was written for a refused program"
echo "ok: unsupported op refused"

# shloc compile: LLVM dialect and LLVM IR always; an object with clang-22, else
# the error must name the missing tool and its Debian package.
"$SHLOC" compile "$DATA/run_softmax.mlir" -o "$tmp/c.mlir" || fail "compile -o .mlir"
grep -q "llvm.func @_mlir_ciface__shloc_c_main" "$tmp/c.mlir" || fail "compile: no C interface for @main"
if command -v mlir-translate-22 >/dev/null 2>&1; then
  "$SHLOC" compile "$DATA/run_softmax.mlir" -o "$tmp/c.ll" || fail "compile -o .ll"
  grep -q "define .*@_mlir_ciface__shloc_c_main" "$tmp/c.ll" || fail "compile: no _mlir_ciface__shloc_c_main in the LLVM IR"
  if command -v clang-22 >/dev/null 2>&1; then
    "$SHLOC" compile "$DATA/run_softmax.mlir" -o "$tmp/c.o" || fail "compile -o .o"
    # The entry point is MODULE_FUNC (MODULE: OUT's stem for a module without a name).
    nm "$tmp/c.o" | grep -q " T c_main$" || fail "compile: object without the entry point c_main"
    grep -q "^int c_main(float \*res0);" "$tmp/c.h" || fail "compile: header without c_main"
  else
    if "$SHLOC" compile "$DATA/run_softmax.mlir" -o "$tmp/c.o" 2>"$tmp/err"; then fail "compile -o .o without clang-22"; fi
    grep -q "clang-22 not found on PATH (Debian package clang-22)" "$tmp/err" || { cat "$tmp/err"; fail "missing clang-22 message"; }
  fi
fi
echo "ok: shloc compile"

command -v mlir-runner-22 >/dev/null 2>&1 || { echo "skipped: mlir-runner-22 not installed"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skipped: python3 not installed"; exit 77; }
LIBDIR=$(dirname "$(readlink -f "$(command -v mlir-runner-22)")")/../lib
RUNLIBS=$(ls "$LIBDIR"/libmlir_runner_utils.so* "$LIBDIR"/libmlir_c_runner_utils.so* 2>/dev/null | sort | head -2 | tr '\n' ',')
[ -n "$RUNLIBS" ] || { echo "skipped: no libmlir_runner_utils in $LIBDIR"; exit 77; }
# Call-outs (shloc_rt_op, the BLAS GEMM of dot_general) resolve in the libshloc next to the shloc binary.
LIBSHLOC=$(dirname "$(readlink -f "$SHLOC")")/libshloc.so
[ -e "$LIBSHLOC" ] || fail "no libshloc.so next to $SHLOC"
RUNLIBS="$RUNLIBS$LIBSHLOC,"
# A sanitized libshloc needs its runtime loaded first, which mlir-runner is not.
if nm -D "$LIBSHLOC" 2>/dev/null | grep -q " __asan_init"; then
  echo "skipped: $LIBSHLOC is built with AddressSanitizer; mlir-runner-22 cannot load it"; exit 77
fi

for f in "$DATA"/run_*.mlir; do
  b=$(basename "$f" .mlir)
  # A sanitizer build's libshloc.so cannot be loaded into mlir-runner-22
  # (the sanitizer runtime must come first); compile_exe.sh covers the call-outs.
  if [ "${SHLOC_SANITIZE:-0}" = 1 ] && grep -q "shloc_rt_" "$tmp/$b.mlir"; then
    echo "skipped: $b calls libshloc's runtime (sanitizer build)"
    continue
  fi
  rt=$(sed -n 's/^  func.func @main() -> (\(tensor<[^)]*>\))\( attributes {[^}]*}\)\{0,1\} {$/\1/p' "$tmp/$b.mlir")
  [ -n "$rt" ] || fail "$b: no @main() -> (tensor) in the lowered module"
  # mlir-runner's printers: one per element type.
  case "$rt" in
    *xf32\>|tensor\<f32\>) el=f32 pf=printMemrefF32 ;;
    *xf64\>|tensor\<f64\>) el=f64 pf=printMemrefF64 ;;
    *xi32\>|tensor\<i32\>) el=i32 pf=printMemrefI32 ;;
    *xi64\>|tensor\<i64\>) el=i64 pf=printMemrefI64 ;;
    *) fail "$b: result $rt has no mlir-runner printer" ;;
  esac
  { sed '$d' "$tmp/$b.mlir"
    echo "  func.func @entry() {"
    echo "    %r = func.call @main() : () -> $rt"
    echo "    %u = tensor.cast %r : $rt to tensor<*x$el>"
    echo "    func.call @$pf(%u) : (tensor<*x$el>) -> ()"
    echo "    func.return"
    echo "  }"
    echo "  func.func private @$pf(tensor<*x$el>)"
    echo "}"; } >"$tmp/$b.run.mlir"
  mlir-opt-22 "$tmp/$b.run.mlir" \
    --one-shot-bufferize="bufferize-function-boundaries allow-return-allocs-from-loops function-boundary-type-conversion=identity-layout-map" \
    --ownership-based-buffer-deallocation --buffer-deallocation-simplification --bufferization-lower-deallocations \
    --convert-bufferization-to-memref --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata \
    --lower-affine --convert-math-to-llvm --convert-math-to-libm --convert-complex-to-llvm --convert-arith-to-llvm --convert-index-to-llvm \
    --convert-func-to-llvm --convert-cf-to-llvm --finalize-memref-to-llvm --convert-func-to-llvm \
    --reconcile-unrealized-casts -o "$tmp/$b.llvm.mlir" || fail "$b: mlir-opt-22 pipeline"
  mlir-runner-22 -e entry -entry-point-result=void -shared-libs="${RUNLIBS%,}" "$tmp/$b.llvm.mlir" >"$tmp/$b.got" ||
    fail "$b: mlir-runner-22"
  "$SHLOC" run "$f" >"$tmp/$b.want" || fail "$b: shloc run"
  python3 - "$tmp/$b.got" "$tmp/$b.want" <<'PY' || fail "$b: compiled results differ from shloc run"
import math, re, struct, sys
def nums(text):
    out = []
    for tok in re.findall(r"0x[0-9A-Fa-f]+|-?nan|-?inf|[-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?", text):
        if tok.startswith("0x") and len(tok) > 10:
            out.append(struct.unpack("<d", struct.pack("<Q", int(tok, 16)))[0])
        elif tok.startswith("0x"):
            out.append(struct.unpack("<f", struct.pack("<I", int(tok, 16)))[0])
        else:
            out.append(float(tok))
    return out
got = open(sys.argv[1]).read()
got = nums(got[got.index("data ="):])
want = open(sys.argv[2]).read()
want = nums(want[want.index("dense<") + 6:want.rindex("> : tensor<")])
if len(got) != len(want):
    sys.exit("count %d != %d" % (len(got), len(want)))
for i, (g, w) in enumerate(zip(got, want)):
    if (math.isnan(w) and math.isnan(g)) or g == w:
        continue
    if not abs(g - w) <= 1e-5 * max(1.0, abs(w)):
        sys.exit("element %d: compiled %r, shloc run %r" % (i, g, w))
print("  %d elements match" % len(got))
PY
  echo "ok: $b compiled with mlir-opt-22 and run by mlir-runner-22 equals shloc run"
done
