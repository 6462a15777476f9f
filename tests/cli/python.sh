#!/bin/sh
# The Python package's tests (python/tests, pytest) and examples/python
# against this build's libshloc.so and rms_norm handler.  Exit 77 (ctest SKIP) when Debian's
# python3 lacks numpy or pytest, or for a sanitizer build (Python cannot load
# an ASan-instrumented library without preloading the runtime).
set -eu
SHLOC=${1:?usage: python.sh SHLOC}
SRC=${SHLOC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=$(cd "$(dirname "$SHLOC")" && pwd)
PY=${PYTHON:-/usr/bin/python3}
[ "${SHLOC_SANITIZE:-0}" = 1 ] && { echo "SKIP: sanitizer build"; exit 77; }
"$PY" -c "import numpy, pytest" 2>/dev/null || { echo "SKIP: $PY lacks numpy or pytest"; exit 77; }
export SHLOC_LIBRARY="$BUILD/libshloc.so"
(cd "$SRC/python" && "$PY" -m pytest -q -p no:cacheprovider tests)
# The example of README's "Python" section.
PYTHONPATH="$SRC/python" "$PY" "$SRC/examples/python/run_jax_export.py" "$SHLOC_RMS_NORM_LIB"
