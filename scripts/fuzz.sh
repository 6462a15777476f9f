#!/bin/sh
# Builds the libFuzzer targets (fuzz/fuzz_*.c) with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer into build-fuzz/, then runs each one for
# FUZZ_SECONDS (default 60) seeded with fuzz/corpus (plus fuzz/seeds/<target>/
# when it exists) and fuzz/mlir.dict; a target with its own input format and
# dictionary (fuzz/<target>.dict, e.g. fuzz_npy for .npy files) gets only its
# own seeds and dictionary.  FUZZ_TARGETS="fuzz_npy ..." runs a subset.
# New inputs go to
# build-fuzz/corpus-<target>/, crashes to build-fuzz/crashes/; reproduce one
# with `build-fuzz/fuzz_parse build-fuzz/crashes/crash-...`.
#   FUZZ_SECONDS=600 FUZZ_JOBS=2 scripts/fuzz.sh
#   FUZZ_TARGETS=fuzz_npy FUZZ_SECONDS=300 scripts/fuzz.sh
set -eu
cd "$(dirname "$0")/.."
BUILD=${FUZZ_BUILD:-build-fuzz}
SECS=${FUZZ_SECONDS:-60}
JOBS=${FUZZ_JOBS:-1}
# clang-22 (deps.sh installs it with libomp-22-dev, whose omp.h the library
# needs); Debian's default clang 14 finds no omp.h.
CC=${FUZZ_CC:-$(command -v clang-22 || echo clang)}
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"

command -v "$CC" >/dev/null || { echo "fuzz: $CC not found (apt install clang-22 libomp-22-dev)"; exit 1; }
# The library is instrumented for coverage but not linked with libFuzzer's main.
cmake -S . -B "$BUILD" -DCMAKE_C_COMPILER="$CC" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link $SAN" >/dev/null
cmake --build "$BUILD" -j "$(nproc)" --target shloc
PAR=""
[ "$JOBS" -gt 1 ] && PAR="-fork=$JOBS"
LIBS="-fopenmp -lm -ldl -lpthread"
mkdir -p "$BUILD/crashes"
rc=0
for src in fuzz/fuzz_*.c; do
  name=$(basename "$src" .c)
  case " ${FUZZ_TARGETS:-$name} " in *" $name "*) ;; *) continue ;; esac
  # shellcheck disable=SC2086
  "$CC" -g -O1 -fsanitize=fuzzer $SAN -Iinclude -Isrc "$src" "$BUILD/libshloc.a" $LIBS -o "$BUILD/$name"
  mkdir -p "$BUILD/corpus-$name"
  SEEDS=fuzz/corpus DICT=fuzz/mlir.dict
  [ -d "fuzz/seeds/$name" ] && SEEDS="$SEEDS fuzz/seeds/$name"
  [ -f "fuzz/$name.dict" ] && SEEDS="fuzz/seeds/$name" DICT="fuzz/$name.dict"
  echo "fuzz: running $name for ${SECS}s"
  # shellcheck disable=SC2086
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    "$BUILD/$name" -max_total_time="$SECS" $PAR -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -dict="$DICT" -artifact_prefix="$BUILD/crashes/" -print_final_stats=1 \
    "$BUILD/corpus-$name" $SEEDS || rc=1
done
[ "$rc" -eq 0 ] && echo "fuzz: no crashes" || echo "fuzz: crashes in $BUILD/crashes/"
exit "$rc"
