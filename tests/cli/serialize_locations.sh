#!/bin/sh
# shloc serialize without --strip-debuginfo writes each op's and block
# argument's written location as the builtin location attribute it stands
# for (FileLineColLoc, NameLoc with and without child, CallSiteLoc, FusedLoc,
# UnknownLoc; #loc aliases resolved), as upstream writes the Location; ops
# without one get their file:line:col.  Reading the artifact back gives the
# same locations (aliases inlined), and a second serialize of the artifact
# reproduces it.  --strip-debuginfo writes none.
SHLOC=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cat > "$tmp/locs.mlir" <<'MLIR'
module @m {
  func.func @main(%a: tensor<2xf32> loc("arg.py":1:2), %b: tensor<2xf32> loc(#loc5)) -> tensor<2xf32> {
    %0 = stablehlo.add %a, %b : tensor<2xf32> loc("x.py":3:4)
    %1 = stablehlo.multiply %0, %0 : tensor<2xf32> loc("jit(f)/mul"("y.py":5:6))
    %2 = stablehlo.subtract %1, %a : tensor<2xf32> loc(callsite("f"("a.py":1:1) at "b.py":2:3))
    %3 = stablehlo.abs %2 : tensor<2xf32> loc(fused["p.py":7:8, "q"])
    %4 = stablehlo.negate %3 : tensor<2xf32> loc(#loc3)
    %5 = stablehlo.exponential %4 : tensor<2xf32> loc(unknown)
    %6 = stablehlo.sqrt %5 : tensor<2xf32> loc("only \"quoted\" name")
    %7 = stablehlo.sine %6 : tensor<2xf32> loc(fused<"meta">["r.py":1:1])
    %8 = stablehlo.cosine %7 : tensor<2xf32>
    return %8 : tensor<2xf32> loc(#loc4)
  }
}
#loc1 = loc("z.py":9:10)
#loc3 = loc("neg"(#loc1))
#loc4 = loc(callsite(#loc1 at #loc3))
#loc5 = loc("argb")
MLIR
cat > "$tmp/want.mlir" <<'MLIR'
module @m {
  func.func @main(%arg0: tensor<2xf32> loc("arg.py":1:2), %arg1: tensor<2xf32> loc("argb")) -> tensor<2xf32> {
    %0 = stablehlo.add %arg0, %arg1 : tensor<2xf32> loc("x.py":3:4)
    %1 = stablehlo.multiply %0, %0 : tensor<2xf32> loc("jit(f)/mul"("y.py":5:6))
    %2 = stablehlo.subtract %1, %arg0 : tensor<2xf32> loc(callsite("f"("a.py":1:1) at "b.py":2:3))
    %3 = stablehlo.abs %2 : tensor<2xf32> loc(fused["p.py":7:8, "q"])
    %4 = stablehlo.negate %3 : tensor<2xf32> loc("neg"("z.py":9:10))
    %5 = stablehlo.exponential %4 : tensor<2xf32>
    %6 = stablehlo.sqrt %5 : tensor<2xf32> loc("only \"quoted\" name")
    %7 = stablehlo.sine %6 : tensor<2xf32> loc(fused["r.py":1:1])
    %8 = stablehlo.cosine %7 : tensor<2xf32> loc("LOCS":11:5)
    return %8 : tensor<2xf32> loc(callsite("z.py":9:10 at "neg"("z.py":9:10)))
  } loc("LOCS":2:3)
} loc("LOCS":1:1)
MLIR
sed -i "s|\"LOCS\"|\"$tmp/locs.mlir\"|" "$tmp/want.mlir"
"$SHLOC" serialize "$tmp/locs.mlir" -o "$tmp/a.bc" || fail "serialize"
"$SHLOC" fmt --debuginfo "$tmp/a.bc" > "$tmp/got.mlir" || fail "reading back"
cmp -s "$tmp/want.mlir" "$tmp/got.mlir" || { diff "$tmp/want.mlir" "$tmp/got.mlir"; fail "locations differ"; }
"$SHLOC" serialize "$tmp/a.bc" -o "$tmp/b.bc" || fail "serialize of the artifact"
cmp -s "$tmp/a.bc" "$tmp/b.bc" || fail "artifact -> artifact changed the bytes"
"$SHLOC" serialize --strip-debuginfo "$tmp/locs.mlir" -o "$tmp/s.bc" || fail "strip"
"$SHLOC" fmt --debuginfo "$tmp/s.bc" | grep -q 'loc(' && fail "--strip-debuginfo kept a location"
echo "ok"
