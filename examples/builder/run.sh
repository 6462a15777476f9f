#!/bin/sh
# Builds examples/builder/rms_norm_builder.c against libshloc and the
# rms_norm FFI handler of examples/rms_norm, then runs it: the program builds
# f(x) = rms_norm(x) * 2 with the builder API, prints it (pretty, generic) and
# runs it through the handler, comparing with RMS norm computed in C.
#   examples/builder/run.sh [BUILD_DIR]      (default: build)
set -eu
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
CC=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -f "$BUILD/libshloc.a" ] || { echo "run.sh: $BUILD/libshloc.a not found (build first)"; exit 1; }
"$CC" -O2 -fPIC -shared -Iinclude examples/rms_norm/rms_norm.c -o "$tmp/librms_norm.so" -lm
# -rdynamic: the handler library resolves XLA_FFI_GetApi & co. in the program.
"$CC" -std=c11 -O2 -Wall -Wextra -Werror -Iinclude examples/builder/rms_norm_builder.c "$BUILD/libshloc.a" \
  -fopenmp -lm -ldl -lpthread -rdynamic -o "$tmp/rms_norm_builder"
"$tmp/rms_norm_builder" "$tmp/librms_norm.so"
