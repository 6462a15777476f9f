#!/bin/sh
# The Python package installed the way users install it offline: a venv with
# Debian's site packages (numpy), `pip install --no-build-isolation --no-index
# ./python` bundling this build's libshloc.so, then a client run from another
# directory with no environment variables.  Exit 77 (ctest SKIP) without
# python3-venv/pip/setuptools/numpy, or for a sanitizer build.
set -eu
SHLOC=${1:?usage: python_install.sh SHLOC}
SRC=${SHLOC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=$(cd "$(dirname "$SHLOC")" && pwd)
PY=${PYTHON:-/usr/bin/python3}
[ "${SHLOC_SANITIZE:-0}" = 1 ] && { echo "SKIP: sanitizer build"; exit 77; }
"$PY" -c "import numpy, setuptools, venv, ensurepip" 2>/dev/null || { echo "SKIP: $PY lacks venv/ensurepip/setuptools/numpy"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$SRC/python" "$tmp/src"   # pip builds in the source tree: keep the checkout clean
"$PY" -m venv --system-site-packages "$tmp/venv"
SHLOC_BUILD_DIR="$BUILD" "$tmp/venv/bin/pip" install -q --no-build-isolation --no-index "$tmp/src" \
  >"$tmp/pip.log" 2>&1 || { cat "$tmp/pip.log"; exit 1; }
cd "$tmp"
env -u SHLOC_LIBRARY -u PYTHONPATH "$tmp/venv/bin/python" - <<'PYEOF'
import os
import numpy as np
import shloc
assert os.path.dirname(shloc.__file__).startswith(os.path.realpath(os.getcwd())), shloc.__file__
m = shloc.load("func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {\n"
               "  %0 = stablehlo.exponential %x : tensor<3xf64>\n  return %0 : tensor<3xf64>\n}\n")
x = np.array([0.0, 1.0, -2.0])
np.testing.assert_allclose(m(x), np.exp(x), rtol=1e-15)
print("python_install.sh: ok")
PYEOF
