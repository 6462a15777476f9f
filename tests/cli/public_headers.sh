#!/bin/sh
# Every public header compiles on its own, first in a translation unit, with
# warnings as errors: as C11 (this script), or as C++ when the second argument
# is c++ (public_headers_cxx.sh; SKIPPED without a C++ compiler).  Each
# header includes what it uses, so a user may include any one alone.
SRC=${SHLOC_SOURCE_DIR:?SHLOC_SOURCE_DIR not set}
lang=${2:-c}
if [ "$lang" = c++ ]; then
  CXX=${CXX:-}
  for c in g++ c++ clang++; do [ -n "$CXX" ] || ! command -v $c >/dev/null || CXX=$c; done
  if [ -z "$CXX" ]; then
    echo "SKIPPED: no C++ compiler (g++, c++, clang++) found"
    exit 77
  fi
  set -- "$CXX" -x c++ -std=c++17
else
  set -- "${CC:-cc}" -x c -std=c11
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 bad=0
for h in "$SRC"/include/shloc/*.h; do
  name=shloc/${h##*/}
  printf '#include "%s"\n' "$name" > "$tmp/one.src"
  if "$@" -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I "$SRC/include" "$tmp/one.src" 2> "$tmp/err"; then
    n=$((n + 1))
  else
    echo "FAIL: $name does not compile on its own as $lang:"
    cat "$tmp/err"
    bad=1
  fi
done
[ $bad = 0 ] || exit 1
echo "$n public headers compile alone as $lang ($1)"
