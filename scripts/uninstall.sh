#!/bin/sh
# Removes what `make install` installed: every file listed in the manifest it
# saved (paths without DESTDIR, as CMake records them; DESTDIR is honoured
# here as it was there), then the package's own directories left empty.
#   scripts/uninstall.sh MANIFEST
set -eu
MANIFEST=${1:?usage: uninstall.sh MANIFEST}
[ -f "$MANIFEST" ] || { echo "uninstall: $MANIFEST not found (nothing installed from this build)" >&2; exit 1; }
DESTDIR=${DESTDIR:-}
n=0
while IFS= read -r f || [ -n "$f" ]; do  # the last line has no newline
  [ -n "$f" ] || continue
  if [ -e "$DESTDIR$f" ] || [ -L "$DESTDIR$f" ]; then rm -f "$DESTDIR$f"; n=$((n + 1)); fi
  # The package's own directories (include/shloc, lib/cmake/shloc) go when
  # empty; shared ones such as lib/pkgconfig stay.
  d=$(dirname "$DESTDIR$f")
  [ "$(basename "$d")" = shloc ] && rmdir "$d" 2>/dev/null || true
done <"$MANIFEST"
echo "uninstall: removed $n files"
