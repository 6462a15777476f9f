#!/bin/sh
# Interpreter-style programs (func.func + check.* ops) under tests/interpret:
# every chunk must pass `shloc test --split-input-file`.
SHLOC=$1
DIR=${SHLOC_SOURCE_DIR:?}/tests/interpret
out=$("$SHLOC" test --split-input-file "$DIR"/*.mlir 2>&1)
rc=$?
echo "$out" | tail -1
[ $rc -eq 0 ] || { echo "$out" | grep -v '^PASS'; exit 1; }
