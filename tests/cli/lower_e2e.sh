#!/bin/sh
# End to end through upstream MLIR: lower examples/rms_norm/rms_norm.mlir with
# `shloc lower-custom-calls --shim`, compile it with mlir-opt-22 /
# mlir-translate-22 / clang (the pipeline of examples/rms_norm/README.md),
# link it with the shim, libshloc and the handler library librms_norm.so, run
# the compiled @main from a C driver and compare with RMS norm computed in C.
# Then the same with a handler error, which must abort with the handler's
# message.  Last, tests/data/lower_e2e/conventions.mlir checks the calling
# conventions in compiled code: no result, several results, layouts, aliases,
# a legacy function, side-effect order.  Reported as skipped (exit 77) when the
# tools are missing.
SHLOC=${1:?usage: lower_e2e.sh SHLOC}
SRC=${SHLOC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
EX=$SRC/examples/rms_norm
LIBSHLOC=$(dirname "$SHLOC")/libshloc.a
CC=${CC:-cc}
for tool in mlir-opt-22 mlir-translate-22 "$CC"; do
  command -v "$tool" >/dev/null 2>&1 || { echo "skipped: $tool not installed"; exit 77; }
done
[ -f "$LIBSHLOC" ] || { echo "skipped: no $LIBSHLOC"; exit 77; }
# A clang that reads LLVM 22 IR: clang-22, or an older clang told that
# pointers are opaque (LLVM 15+ default; 14 needs the flag).
if command -v clang-22 >/dev/null 2>&1; then
  CLANG="clang-22"
elif command -v clang >/dev/null 2>&1; then
  major=$(clang -dumpversion | cut -d. -f1)
  if [ "$major" -lt 15 ]; then CLANG="clang -mllvm -opaque-pointers -Wno-override-module"
  else CLANG="clang -Wno-override-module"; fi
else
  echo "skipped: clang not installed"; exit 77
fi
# A sanitizer build's libshloc.a needs the sanitizer runtimes where it is linked.
SAN=""
[ "${SHLOC_SANITIZE:-0}" = 1 ] && SAN="-fsanitize=address,undefined"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

make -s -C "$EX" OUT="$tmp" "$tmp/librms_norm.so" || fail "building librms_norm.so"

# build MODULE.mlir NAME: lowered module + shim -> $tmp/libNAME.so (with -Bsymbolic:
# the module's own @main is a C symbol `main`, which must not bind to the driver's).
build() {
  "$SHLOC" lower-custom-calls "$1" -o "$tmp/$2.mlir" --shim "$tmp/$2_shim.c" --ffi rms_norm=rms_norm ||
    fail "$2: lower-custom-calls"
  mlir-opt-22 "$tmp/$2.mlir" \
    --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
    --llvm-request-c-wrappers --convert-func-to-llvm --finalize-memref-to-llvm --reconcile-unrealized-casts \
    -o "$tmp/$2.llvm.mlir" || fail "$2: mlir-opt-22"
  mlir-translate-22 --mlir-to-llvmir "$tmp/$2.llvm.mlir" -o "$tmp/$2.ll" || fail "$2: mlir-translate-22"
  $CLANG -c -O2 -fPIC "$tmp/$2.ll" -o "$tmp/$2.o" || fail "$2: compiling the LLVM IR"
  "$CC" -c -O2 -fPIC -std=c11 -Wall -Wextra -Werror -I"$SRC/include" "$tmp/$2_shim.c" -o "$tmp/$2_shim.o" ||
    fail "$2: compiling the shim"
  "$CC" $SAN -shared -Wl,-Bsymbolic "$tmp/$2.o" "$tmp/$2_shim.o" "$LIBSHLOC" -L"$tmp" -lrms_norm -Wl,-rpath,"$tmp" \
    -lm -ldl -lpthread -o "$tmp/lib$2.so" || fail "$2: linking"
  "$CC" $SAN -O2 "$EX/lowered_driver.c" -L"$tmp" -l"$2" -Wl,-rpath,"$tmp" -lm -o "$tmp/$2_driver" ||
    fail "$2: linking the driver"
}

build "$EX/rms_norm.mlir" model
"$tmp/model_driver" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "the compiled module gives a wrong result"; }
grep -q "(match)" "$tmp/out" || { cat "$tmp/out"; fail "driver output"; }
cat "$tmp/out"

# A handler error aborts the program with the handler's message.
sed 's/{eps = /{epsilon = /' "$EX/rms_norm.mlir" >"$tmp/bad.mlir"
build "$tmp/bad.mlir" bad
if "$tmp/bad_driver" >"$tmp/out" 2>"$tmp/err"; then fail "a failing handler did not stop the program"; fi
grep -q "error: external function @rms_norm: custom call 'rms_norm': INVALID_ARGUMENT: rms_norm needs an f32 or f64 attribute 'eps'" \
  "$tmp/err" || { cat "$tmp/err"; fail "handler error message"; }
# Conventions: everything linked statically into one program (the entry
# function is not called main).
D=$SRC/tests/data/lower_e2e
"$SHLOC" lower-custom-calls "$D/conventions.mlir" -o "$tmp/conv.mlir" --shim "$tmp/conv_shim.c" ||
  fail "conventions: lower-custom-calls"
mlir-opt-22 "$tmp/conv.mlir" \
  --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
  --llvm-request-c-wrappers --convert-func-to-llvm --finalize-memref-to-llvm --reconcile-unrealized-casts \
  -o "$tmp/conv.llvm.mlir" || fail "conventions: mlir-opt-22"
mlir-translate-22 --mlir-to-llvmir "$tmp/conv.llvm.mlir" -o "$tmp/conv.ll" || fail "conventions: mlir-translate-22"
$CLANG -c -O2 "$tmp/conv.ll" -o "$tmp/conv.o" || fail "conventions: compiling the LLVM IR"
for c in "$tmp/conv_shim.c" "$D/handlers.c" "$D/driver.c"; do
  "$CC" -c -O2 -std=c11 -Wall -Wextra -Werror -I"$SRC/include" "$c" -o "$tmp/$(basename "$c").o" ||
    fail "compiling $c"
done
"$CC" $SAN "$tmp/driver.c.o" "$tmp/conv.o" "$tmp/conv_shim.c.o" "$tmp/handlers.c.o" "$LIBSHLOC" -lm -ldl -lpthread \
  -o "$tmp/conv" || fail "conventions: linking"
"$tmp/conv" || fail "conventions: the compiled module misbehaves"
echo ok
