#!/bin/sh
# The generic form shloc prints equals what upstream MLIR prints for it
# (mlir-opt-22 --mlir-print-op-generic --allow-unregistered-dialect), modulo
# SSA names, for the demo model and the golden inputs; skipped (77) without
# mlir-opt-22.  `make conformance` runs the same comparison over the corpus.
SHLOC=$1
SRC=${SHLOC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
exec "$SRC/scripts/mlir_generic_diff.sh" "$SHLOC" "$SRC"/examples/demo/model.mlir "$SRC"/tests/golden/*.mlir
