#!/bin/sh
# Compares shloc's generic form with upstream MLIR's:
#   scripts/mlir_generic_diff.sh SHLOC FILE...
# For each FILE, `shloc fmt --generic` is printed again by
#   mlir-opt-22 --mlir-print-op-generic --allow-unregistered-dialect
# and the two texts must be equal once SSA value names and block labels are
# renumbered in order of definition (MLIR names values %0, %arg0, %cst by its
# own rules) and blank lines are dropped.  Files holding `// -----` are
# split the same way by both tools.  Prints FAIL and a diff per differing file,
# then "generic vs mlir-opt-22: N identical, M differ"; exit 1 if any differ,
# 77 when mlir-opt-22 is not installed.
SHLOC=${1:?usage: mlir_generic_diff.sh SHLOC FILE...}
shift
MLIR_OPT=$(command -v mlir-opt-22) || { echo "skipped: mlir-opt-22 not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Renumbers %values and ^blocks in order of definition: a result (left of
# ` = `) or a block argument or label (a line starting with ^) gets the next
# number, a use gets its latest definition's (functions may reuse names).
# A result group `%r:2` defines %r#0 and %r#1 (%r is %r#0), printed as two
# names: MLIR writes `%0:2 = ...`, shloc `%0, %1 = ...`.
normalise() {
  awk '
    /^[ \t]*$/ { next }
    {
      s = $0; out = ""
      eq = index(s, " = "); lhs = (s ~ /^[ \t]*%/) ? eq : 0
      hdr = (s ~ /^[ \t]*\^/)
      pos = 0
      while (match(s, /[%^][A-Za-z0-9_$.-]+([:#][0-9]+)?/)) {
        tok = substr(s, RSTART, RLENGTH); at = pos + RSTART
        pos += RSTART + RLENGTH - 1
        pre = substr(s, 1, RSTART - 1); s = substr(s, RSTART + RLENGTH)
        name = tok; k = -1; grp = 0
        if (match(tok, /[:#][0-9]+$/)) {
          name = substr(tok, 1, RSTART - 1); k = substr(tok, RSTART + 1) + 0; grp = substr(tok, RSTART, 1) == ":"
        }
        p = substr(name, 1, 1) == "%" ? "%v" : "^b"
        if (hdr || (lhs && at < lhs)) {
          if (grp) {
            rep = ""
            for (i = 0; i < k; i++) { m[name "#" i] = p n++; rep = rep (i ? ", " : "") m[name "#" i] }
            m[name] = m[name "#0"]
          } else { m[name] = p n++; m[name "#0"] = m[name]; rep = m[name] }
        } else {
          key = (k >= 0 && !grp) ? name "#" k : name
          if (!(key in m)) m[key] = p n++
          rep = m[key]
          if (grp) rep = rep ":" k
        }
        out = out pre rep
      }
      print out s
    }' "$1"
}
same=0 differ=0
for f in "$@"; do
  split=""
  grep -q '^// -----' "$f" && split=--split-input-file
  if ! "$SHLOC" fmt $split --generic "$f" -o "$tmp/ours.mlir"; then
    echo "FAIL $f: shloc fmt --generic"; differ=$((differ + 1)); continue
  fi
  opt="$MLIR_OPT $split --allow-unregistered-dialect --mlir-print-op-generic"
  # mlir-opt treats an op it does not know as a possible symbol table, so a
  # func.call inside a stablehlo region cannot find its callee: when that is
  # the only complaint, print without mlir-opt's verifier and still compare.
  if ! $opt "$tmp/ours.mlir" -o "$tmp/theirs.mlir" 2>"$tmp/err" &&
     ! { grep ': error: ' "$tmp/err" | grep -qv "'func.call' op '[^']*' does not reference a valid function" ||
         $opt --mlir-very-unsafe-disable-verifier-on-parsing "$tmp/ours.mlir" -o "$tmp/theirs.mlir" 2>"$tmp/err"; }; then
    echo "FAIL $f: mlir-opt-22 rejects the generic form:"; head -5 "$tmp/err"; differ=$((differ + 1)); continue
  fi
  normalise "$tmp/ours.mlir" >"$tmp/a"
  normalise "$tmp/theirs.mlir" >"$tmp/b"
  if cmp -s "$tmp/a" "$tmp/b"; then
    same=$((same + 1))
  else
    echo "FAIL $f: generic form differs from mlir-opt-22's (-shloc +mlir-opt, SSA names renumbered):"
    diff "$tmp/a" "$tmp/b" | head -20 | cut -c1-300
    differ=$((differ + 1))
  fi
done
echo "generic vs mlir-opt-22: $same identical, $differ differ"
[ "$differ" -eq 0 ]
