#!/bin/sh
# Convolutions of every kind against a numpy double-precision reference
# (tests/cli/conv_reference.py).  Skipped (exit 77) without /usr/bin/python3
# and numpy.
SRC=${SHLOC_SOURCE_DIR:-$(dirname "$0")/../..}
/usr/bin/python3 -c 'import numpy' 2>/dev/null || { echo "SKIP: /usr/bin/python3 with numpy not installed"; exit 77; }
exec /usr/bin/python3 "$SRC/tests/cli/conv_reference.py" "$1"
