#!/bin/sh
# Installs the Debian packages shloc needs to build, test and benchmark.
# Idempotent: does nothing when everything is present.
#   scripts/deps.sh          what build, test and demo need
#   scripts/deps.sh bench    that plus the benchmark's PyTorch peer (make bench);
#                            peak RSS comes from `shloc run --profile-phases`
set -e
BENCH_PKGS="python3-torch"
PKGS="cmake make gcc clang pkgconf libcmocka-dev libopenblas-dev liblapacke-dev mlir-22-tools clang-22 libomp-22-dev python3-numpy python3-pytest python3-venv python3-setuptools python3-flatbuffers libopenmpi-dev openmpi-bin"
[ "${1:-}" = bench ] && PKGS="$PKGS $BENCH_PKGS"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
  echo "deps: installing$missing"
  DEBIAN_FRONTEND=noninteractive apt-get install -y $missing >/dev/null || {
    apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y $missing >/dev/null; }
else
  echo "deps: missing packages:$missing" >&2
  echo "deps: run: sudo apt-get install -y$missing" >&2
  exit 1
fi
