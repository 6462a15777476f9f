#!/bin/sh
# The CLI is a client of the public API (issue #18): tools/ includes only its
# own headers, shloc/*.h from include/shloc, and system headers -- never a
# header of src/.  CMake gives the shloc executable no src/ include path, so
# such an include fails the build; this check names the offending line and
# also catches the spelling a build might still resolve (<ir/ir.h> with an
# extra -I, "../src/ir/ir.h").
SRC=${SHLOC_SOURCE_DIR:?SHLOC_SOURCE_DIR not set}
bad=0
for f in "$SRC"/tools/*.c "$SRC"/tools/*.h; do
  grep -n '^[[:space:]]*#[[:space:]]*include' "$f" | while IFS= read -r line; do
    n=${line%%:*}
    inc=$(printf '%s\n' "$line" | sed -n 's/.*#[[:space:]]*include[[:space:]]*[<"]\([^>"]*\)[>"].*/\1/p')
    case "$line" in
      *'"'*) quoted=1 ;;
      *) quoted=0 ;;
    esac
    ok=0
    case "$inc" in
      shloc/*) [ -f "$SRC/include/$inc" ] && ok=1 ;;
      */*) [ $quoted = 0 ] && ok=1 ;; # <sys/stat.h>; a quoted path leads into another tree
      *) if [ $quoted = 1 ]; then [ -f "$SRC/tools/$inc" ] && ok=1; else ok=1; fi ;;
    esac
    # A system header never shares its path with an internal one (<ir/ir.h>).
    [ $ok = 1 ] && [ $quoted = 0 ] && [ -f "$SRC/src/$inc" ] && ok=0
    [ $ok = 1 ] || echo "FAIL: ${f#"$SRC"/}:$n includes $inc, which is not a public header (include/shloc/)"
  done
done > "${TMPDIR:-/tmp}/public_api.$$"
if [ -s "${TMPDIR:-/tmp}/public_api.$$" ]; then
  cat "${TMPDIR:-/tmp}/public_api.$$"
  bad=1
fi
rm -f "${TMPDIR:-/tmp}/public_api.$$"
[ $bad = 0 ] || exit 1
echo "tools/ includes public headers only"
