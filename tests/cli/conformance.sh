#!/bin/sh
# The conformance corpus (../shared/conformance, or SHLOC_CONFORMANCE_DIR) as
# part of ctest, so `make test-asan` runs every program under the sanitizers:
# scripts/conformance.sh without its slow mlir-opt-22 stage.  Reported as
# skipped (77) when the corpus is not there; `make conformance` fails instead.
SHLOC=$1
SRC=${SHLOC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
DIR=${SHLOC_CONFORMANCE_DIR:-$SRC/../shared/conformance}
[ -d "$DIR/testdata" ] || { echo "skipped: $DIR/testdata not found"; exit 77; }
CONFORMANCE_MLIR_OPT=0 exec "$SRC/scripts/conformance.sh" "$SHLOC" "$DIR"
