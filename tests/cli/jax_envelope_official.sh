#!/bin/sh
# jax.export envelopes written with the official FlatBuffers Python library
# (jax_envelope_official.py, serialization versions 1 to 12): shloc inspect
# shows their fields and shloc run applies their calling convention.
# Needs Debian's python3-flatbuffers; skipped (77) without it.
SHLOC=$1
HERE=$(cd "$(dirname "$0")" && pwd)
PY=
for p in /usr/bin/python3 python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import flatbuffers' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || { echo "SKIP: python3 with flatbuffers (Debian python3-flatbuffers) not available"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$PY" "$HERE/jax_envelope_official.py" "$tmp" || fail "writing the envelopes"

named="NamedSharding(mesh=AbstractMesh('x': 2, axis_types=(Explicit,)), spec=P('x', None))"
named8="NamedSharding(mesh=AbstractMesh('x': 2, axis_types=(Explicit,), device_kind='cpu'), spec=P('x', None))"
named11="NamedSharding(mesh=AbstractMesh('x': 2, axis_types=(Explicit,), device_kind='cpu', platform='cpu'), spec=P('x', None))"
for v in 1 2 5 6 8 9 10 11 12; do
  "$SHLOC" inspect "$tmp/v$v.jaxexport" > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "v$v: inspect"; }
  case $v in 1) stored=1 schema=1 ;; 2) stored=2 schema=1 ;; 12) stored=12 schema=12 ;;
             9) stored=3 schema=8 ;; *) stored=3 schema=$v ;; esac
  ms=""; [ "$v" -ge 5 ] && ms=" memory_space=device"
  if [ "$v" -ge 11 ]; then sh=$named11; elif [ "$v" -ge 8 ]; then sh=$named8; elif [ "$v" -ge 6 ]; then sh=$named
  else sh="{devices=[2]0,1}"; fi
  grep -q "^form: jax.export envelope, [0-9]* bytes$" "$tmp/out" || fail "v$v: form"
  for line in "function_name: f" \
      "serialization_version: $stored (fields of schema version $schema)" \
      "calling_convention_version: 9" "platforms: cpu, cuda" "nr_devices: 1" \
      "in_tree: ((*, *), {})" "out_tree: (*,)" \
      "  0: f32[2]$ms sharding=$sh" \
      "  1: i32[b, 2*b + 1]$ms sharding=unspecified (not kept: the module does not take it)" \
      "module_kept_var_idx: 0" "ordered_effects: <class 'jax._src.debugging.OrderedDebugEffect'>" \
      "main_calling_convention: platform index (cpu = 0), 1 token, 1 kept array -> 1 token, 1 array"; do
    grep -qxF "$line" "$tmp/out" || { cat "$tmp/out"; fail "v$v: no line '$line'"; }
  done
  [ "$v" -ge 12 ] && { grep -qxF "jax_version: 0.8.2" "$tmp/out" || fail "v$v: jax_version"; }
done

# x: f32[2] = [1.5, 2]; the unused input: i32[3, 7] (b = 3).
"$PY" - "$tmp" <<'PYEOF' || fail "writing .npy inputs"
import struct, sys
def npy(path, descr, shape, data):
    h = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, "".join("%d," % d for d in shape))
    h += " " * ((64 - (10 + len(h) + 1) % 64) % 64) + "\n"
    open(path, "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + data)
npy(sys.argv[1] + "/x.npy", "<f4", (2,), struct.pack("<2f", 1.5, 2.0))
npy(sys.argv[1] + "/y.npy", "<i4", (3, 7), bytes(84))
npy(sys.argv[1] + "/y6.npy", "<i4", (3, 6), bytes(72))
PYEOF
for v in 1 12; do
  out=$("$SHLOC" run "$tmp/v$v.jaxexport" --input "$tmp/x.npy" --input "$tmp/y.npy" 2>&1) || fail "v$v: run: $out"
  [ "$out" = "dense<[3.000000e+00, 4.000000e+00]> : tensor<2xf32>" ] || fail "v$v: run printed '$out'"
done
out=$("$SHLOC" run "$tmp/v12.jaxexport" --input "$tmp/x.npy" --input "$tmp/y6.npy" 2>&1) && fail "a wrong shape ran"
echo "$out" | grep -qF "input #1 ($tmp/y6.npy): dimension 1 is 6, expected 2*b + 1 = 7" || fail "wrong-shape error: $out"
echo "jax_envelope_official: 9 versions inspected, run checked"
