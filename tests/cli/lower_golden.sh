#!/bin/sh
# Golden tests of `shloc lower-custom-calls` over tests/golden/lower_custom_calls/NAME.mlir
# (options on a first line `// ARGS: ...`):
#   - pretty output == NAME.mlir.expected, generic output == NAME.mlir.generic.expected;
#   - both outputs pass `shloc check` (the verifier), and the generic one prints back
#     as the pretty one;
#   - the shim compiles cleanly (and equals NAME.mlir.shim.expected when present);
#   - files marked `// UPSTREAM` lower to pure upstream MLIR: mlir-opt-22 accepts both
#     outputs with no unregistered dialects.  Without mlir-opt-22 everything else runs
#     and the test then reports itself skipped (77): part of it did not run.
# Then the error cases at the end.
SHLOC=${1:?usage: lower_golden.sh SHLOC}
SRC=${SHLOC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
DIR=$SRC/tests/golden/lower_custom_calls
CC=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
same() { cmp -s "$1" "$2" || { diff -u "$1" "$2"; fail "$3"; }; }

for f in "$DIR"/*.mlir; do
  name=$(basename "$f")
  args=$(sed -n '1s|^// ARGS: ||p' "$f")
  eval "set -- $args"
  "$SHLOC" lower-custom-calls "$f" "$@" -o "$tmp/pretty.mlir" --shim "$tmp/shim.c" || fail "$name: lowering"
  "$SHLOC" lower-custom-calls "$f" "$@" --generic -o "$tmp/generic.mlir" --shim "$tmp/shim_g.c" || fail "$name: lowering (generic)"
  same "$f.expected" "$tmp/pretty.mlir" "$name: pretty output differs from $name.expected"
  same "$f.generic.expected" "$tmp/generic.mlir" "$name: generic output differs from $name.generic.expected"
  "$SHLOC" check "$tmp/pretty.mlir" || fail "$name: pretty output does not verify"
  "$SHLOC" check "$tmp/generic.mlir" || fail "$name: generic output does not verify"
  "$SHLOC" fmt "$tmp/generic.mlir" -o "$tmp/again.mlir" || fail "$name: reparsing the generic output"
  same "$f.expected" "$tmp/again.mlir" "$name: generic output does not print back as the pretty one"
  [ -f "$f.shim.expected" ] && same "$f.shim.expected" "$tmp/shim.c" "$name: shim differs from $name.shim.expected"
  if command -v "$CC" >/dev/null 2>&1; then
    "$CC" -std=c11 -Wall -Wextra -Werror -Wmissing-prototypes -Wstrict-prototypes -fsyntax-only -I"$SRC/include" \
      "$tmp/shim.c" || fail "$name: the shim does not compile"
  fi
  if grep -q '^// UPSTREAM' "$f" && command -v mlir-opt-22 >/dev/null 2>&1; then
    mlir-opt-22 "$tmp/pretty.mlir" -o "$tmp/up.mlir" || fail "$name: mlir-opt-22 rejects the pretty output"
    mlir-opt-22 "$tmp/generic.mlir" -o "$tmp/up.mlir" || fail "$name: mlir-opt-22 rejects the generic output"
  fi
done

# Errors: tokens cannot cross the boundary; a binding for a target that is not
# lowered; a binding that is not a C identifier; --ffi without --shim.
cat > "$tmp/token.mlir" <<'EOF'
func.func @main(%arg0: !stablehlo.token) -> !stablehlo.token {
  %0 = stablehlo.custom_call @io(%arg0) {has_side_effect = true} : (!stablehlo.token) -> !stablehlo.token
  return %0 : !stablehlo.token
}
EOF
if "$SHLOC" lower-custom-calls "$tmp/token.mlir" -o "$tmp/out.mlir" 2>"$tmp/err"; then fail "token operand accepted"; fi
grep -q "token.mlir:2:3: error: 'stablehlo.custom_call' operand #0 has type !stablehlo.token; only ranked tensors" \
  "$tmp/err" || { cat "$tmp/err"; fail "token diagnostic"; }
[ -e "$tmp/out.mlir" ] && fail "output written despite the error"
# The token call can be left out of the lowering.
"$SHLOC" lower-custom-calls "$tmp/token.mlir" --targets other -o "$tmp/out.mlir" 2>"$tmp/err" || fail "--targets other"
grep -q "warning: no custom call with target 'other'" "$tmp/err" || { cat "$tmp/err"; fail "unused --targets warning"; }
grep -q "stablehlo.custom_call @io" "$tmp/out.mlir" || fail "unselected call was lowered"
f=$DIR/names.mlir
if "$SHLOC" lower-custom-calls "$f" -o "$tmp/out.mlir" --shim "$tmp/s.c" --ffi nothere=fn 2>"$tmp/err"; then
  fail "--ffi for an unknown target accepted"
fi
grep -q "no lowered custom call has target 'nothere'" "$tmp/err" || { cat "$tmp/err"; fail "--ffi unknown target"; }
if "$SHLOC" lower-custom-calls "$f" --shim "$tmp/s.c" --ffi main=not-an-identifier 2>"$tmp/err"; then
  fail "--ffi with a bad symbol accepted"
fi
grep -q "expected TARGET=SYMBOL with SYMBOL a C identifier" "$tmp/err" || { cat "$tmp/err"; fail "--ffi syntax"; }
if "$SHLOC" lower-custom-calls "$f" --ffi main=x 2>/dev/null; then fail "--ffi without --shim accepted"; fi
# The shim: an api_version 4 string backend_config is a dictionary in MLIR text;
# what the FFI cannot carry is rejected when the shim is generated.
cat > "$tmp/shim.mlir" <<'EOF'
func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.custom_call @text_config(%arg0) {api_version = 4 : i32, backend_config = "{n = 3 : i32}"} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
EOF
"$SHLOC" lower-custom-calls "$tmp/shim.mlir" -o "$tmp/out.mlir" --shim "$tmp/s.c" || fail "string backend_config"
grep -q '.config = "{n = 3 : i32}",' "$tmp/s.c" || fail "string backend_config in the shim"
sed 's/backend_config = "{n = 3 : i32}"/backend_config = {flag}/' "$tmp/shim.mlir" >"$tmp/unit.mlir"
if "$SHLOC" lower-custom-calls "$tmp/unit.mlir" -o "$tmp/out.mlir" --shim "$tmp/s.c" 2>"$tmp/err"; then
  fail "unit attribute accepted by the shim"
fi
grep -q "external function @text_config: Unsupported attribute type for attribute: flag (unit)" "$tmp/err" ||
  { cat "$tmp/err"; fail "unit attribute diagnostic"; }
sed 's/tensor<2xf32>$/tensor<?xf32>/; s/-> tensor<2xf32> {/-> tensor<?xf32> {/; s/return %0 : tensor<2xf32>/return %0 : tensor<?xf32>/' \
  "$tmp/shim.mlir" >"$tmp/dyn.mlir"
"$SHLOC" lower-custom-calls "$tmp/dyn.mlir" -o "$tmp/out.mlir" || fail "dynamic result: lowering alone"
if "$SHLOC" lower-custom-calls "$tmp/dyn.mlir" -o "$tmp/out.mlir" --shim "$tmp/s.c" 2>"$tmp/err"; then
  fail "dynamic result accepted by the shim"
fi
grep -q "result #0 has a dynamic shape" "$tmp/err" || { cat "$tmp/err"; fail "dynamic result diagnostic"; }
"$SHLOC" lower-custom-calls --help | grep -q "usage: shloc lower-custom-calls" || fail "--help"
command -v mlir-opt-22 >/dev/null 2>&1 || { echo "skipped: the mlir-opt-22 checks (not installed)"; exit 77; }
echo ok
