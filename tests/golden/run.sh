#!/bin/sh
# Golden test for the pretty printer: run.sh SHLOC FILE
#   1. `SHLOC fmt FILE` must equal FILE.expected (next to FILE);
#   2. the generic form (`fmt --generic`) must parse back to the same text;
#   3. README.md (next to FILE) says how FILE.expected was produced and what
#      checks it independently: a row naming the file in backquotes.
# Files containing `// -----` are split into independent modules.
SHLOC=${1:?usage: run.sh SHLOC FILE}
FILE=${2:?usage: run.sh SHLOC FILE}
EXPECTED="$FILE.expected"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
split=""
grep -q '^// -----' "$FILE" && split=--split-input-file
name=$(basename "$FILE" .mlir)
grep -q "\`$name\`" "$(dirname "$FILE")/README.md" 2>/dev/null ||
  { echo "FAIL: $(dirname "$FILE")/README.md has no row for \`$name\` (how its .expected was produced)"; exit 1; }

"$SHLOC" fmt $split "$FILE" -o "$tmp/pretty.mlir" || { echo "FAIL: fmt $FILE"; exit 1; }
if ! cmp -s "$EXPECTED" "$tmp/pretty.mlir"; then
  echo "FAIL: pretty output differs from $EXPECTED"
  diff -u "$EXPECTED" "$tmp/pretty.mlir"
  exit 1
fi
"$SHLOC" fmt $split --generic "$FILE" -o "$tmp/generic.mlir" || { echo "FAIL: fmt --generic $FILE"; exit 1; }
"$SHLOC" fmt $split "$tmp/generic.mlir" -o "$tmp/again.mlir" || { echo "FAIL: reparsing the generic form"; exit 1; }
if ! cmp -s "$EXPECTED" "$tmp/again.mlir"; then
  echo "FAIL: generic round trip differs from $EXPECTED"
  diff -u "$EXPECTED" "$tmp/again.mlir"
  exit 1
fi
exit 0
