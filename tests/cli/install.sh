#!/bin/sh
# Installs the build into a temporary prefix (and once through DESTDIR), checks
# the installed files and that libshloc.so exports only the public API, builds
# tests/install/client.c against the installed package with pkg-config and with
# CMake's find_package (shared and static targets), runs the clients, then
# uninstalls and checks that nothing is left.  Exit 77 (ctest SKIP) when
# pkg-config is missing.
set -eu
SHLOC=${1:?usage: install.sh SHLOC}
SRC=${SHLOC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=$(cd "$(dirname "$SHLOC")" && pwd)
CC=${CC:-cc}
command -v pkg-config >/dev/null 2>&1 || { echo "SKIP: pkg-config not installed"; exit 77; }
# A sanitizer build's library needs the sanitizer runtime in its clients too.
SAN=""
[ "${SHLOC_SANITIZE:-0}" = 1 ] && SAN="-fsanitize=address,undefined"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install.sh: $*" >&2; exit 1; }

# CMake records each install in BUILD/install_manifest.txt; keep a copy per prefix.
DESTDIR="$tmp/stage" cmake --install "$BUILD" --prefix /opt/shloc >/dev/null
[ -x "$tmp/stage/opt/shloc/bin/shloc" ] || fail "DESTDIR not honoured"
cp "$BUILD/install_manifest.txt" "$tmp/staged.txt"
P=$tmp/prefix
cmake --install "$BUILD" --prefix "$P" >/dev/null
cp "$BUILD/install_manifest.txt" "$tmp/installed.txt"

L=$(dirname "$(find "$P" -name libshloc.a)")
[ -e "$P/bin/shloc" ] || fail "missing bin/shloc"
for h in "$SRC"/include/shloc/*.h; do
  f=include/shloc/${h##*/}
  [ -e "$P/$f" ] || fail "missing $f"
done
for f in libshloc.a libshloc.so pkgconfig/shloc.pc cmake/shloc/shlocConfig.cmake \
         cmake/shloc/shlocConfigVersion.cmake; do
  [ -e "$L/$f" ] || fail "missing $L/$f"
done
soname=$(objdump -p "$L/libshloc.so" | awk '/SONAME/ {print $2}')
case $soname in libshloc.so.[0-9]*) ;; *) fail "soname is '$soname'";; esac
[ -e "$L/$soname" ] || fail "no $soname in $L"
# (_mlir_ciface_shloc_rt_*: the run-time functions of aot_runtime.h as upstream's C wrappers call them)
extra=$(nm -D --defined-only "$L/libshloc.so" | awk '{print $3}' | grep -v -E '^(shloc_|XLA_FFI_|XlaCustomCall|_mlir_ciface_shloc_rt_|_mlir_memref_to_llvm_|memrefCopy$)' || true)
[ -z "$extra" ] || fail "libshloc.so exports non-API symbols: $(echo $extra | head -c 300)"
nm -D --defined-only "$L/libshloc.so" | grep -q ' T shloc_executable_run$' || fail "shloc_executable_run not exported"
"$P/bin/shloc" check "$SRC/examples/demo/model.mlir" >/dev/null || fail "installed shloc check failed"

# pkg-config client (shared library).
export PKG_CONFIG_PATH="$L/pkgconfig"
[ "$(pkg-config --modversion shloc)" = "$(sed -n 's/^project(shloc VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")" ] \
  || fail "pkg-config version differs from the project's"
pkg-config --static --libs shloc | grep -q -- '-ldl' || fail "Libs.private lacks the private dependencies"
# shellcheck disable=SC2046
"$CC" -std=c11 -Wall -Werror $SAN "$SRC/tests/install/client.c" -o "$tmp/client_pc" \
  $(pkg-config --cflags --libs shloc) -Wl,-rpath,"$L" -lm
"$tmp/client_pc"

# find_package client: shloc::shloc and shloc::shloc_static.
cmake -S "$SRC/tests/install" -B "$tmp/client" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_C_FLAGS="$SAN" \
  -DCMAKE_EXE_LINKER_FLAGS="$SAN" >/dev/null
cmake --build "$tmp/client" >/dev/null
"$tmp/client/client_shared"
"$tmp/client/client_static"
readelf -d "$tmp/client/client_static" | grep -q 'libshloc' && fail "client_static links libshloc.so"

# Uninstall both installs: nothing of shloc may remain.
"$SRC/scripts/uninstall.sh" "$tmp/installed.txt" >/dev/null
DESTDIR="$tmp/stage" "$SRC/scripts/uninstall.sh" "$tmp/staged.txt" >/dev/null
left=$(find "$P" "$tmp/stage" -type f 2>/dev/null | head -5)
[ -z "$left" ] || fail "left after uninstall: $left"
echo "install.sh: ok"
