"""Writes jax.export envelopes with the official FlatBuffers Python library
(Debian python3-flatbuffers, the builder JAX's serializer uses), calling its
Builder the way JAX's writer of each serialization version did: the same
table field slots, defaults and bottom-up order (field ids and values from
jax/_src/export/serialization.fbs).  Usage: jax_envelope_official.py DIR.

Each envelope exports f(x: f32[2], unused: i32[b, 2*b + 1]) -> (x + x,) for
platforms (cpu, cuda) with one ordered effect; its module is MLIR text."""
import sys

import flatbuffers

MODULE = b"""func.func public @main(%arg0: tensor<i32>, %arg1: !stablehlo.token, %arg2: tensor<2xf32>)
    -> (!stablehlo.token, tensor<2xf32>) {
  %0 = stablehlo.add %arg2, %arg2 : tensor<2xf32>
  return %arg1, %0 : !stablehlo.token, tensor<2xf32>
}
"""
F32, I32 = 10, 3
# OpSharding{type: OTHER, tile_assignment_dimensions: [2], tile_assignment_devices: [0, 1]}
PROTO = bytes([0x08, 0x03, 0x1A, 0x01, 0x02, 0x22, 0x02, 0x00, 0x01])


def offsets_vector(b, offs):
    b.StartVector(4, len(offs), 4)
    for o in reversed(offs):
        b.PrependUOffsetTRelative(o)
    return b.EndVector()


def scalars_vector(b, size, values):
    b.StartVector(size, len(values), size)
    prepend = {1: b.PrependUint8, 2: b.PrependUint16, 4: b.PrependUint32}[size]
    for v in reversed(values):
        prepend(v)
    return b.EndVector()


def strings(b, values):
    return offsets_vector(b, [b.CreateString(v) for v in values])


def pytree(b, kind, children=(), names=None):
    kids = offsets_vector(b, list(children)) if children else None
    names_vec = strings(b, names) if names else None
    b.StartObject(5)
    b.PrependInt8Slot(0, kind, 0)
    if kids is not None:
        b.PrependUOffsetTRelativeSlot(1, kids, 0)
    if names_vec is not None:
        b.PrependUOffsetTRelativeSlot(2, names_vec, 0)
    return b.EndObject()


def aval(b, dims, dtype, version):
    shape = strings(b, dims)
    b.StartObject(4)
    b.PrependInt8Slot(0, 0, 0)
    b.PrependUOffsetTRelativeSlot(1, shape, 0)
    b.PrependInt8Slot(2, dtype, 0)
    if version >= 5:
        b.PrependInt8Slot(3, 1, 0)  # Device
    return b.EndObject()


def mesh(b, version):
    sizes = scalars_vector(b, 4, [2])
    names = strings(b, ["x"])
    types = scalars_vector(b, 1, [2])  # Explicit
    dev = None
    if version >= 8:
        kind = b.CreateString("cpu")
        plat = b.CreateString("cpu") if version >= 11 else None
        b.StartObject(3)
        b.PrependUOffsetTRelativeSlot(0, kind, 0)
        if plat is not None:
            b.PrependUOffsetTRelativeSlot(2, plat, 0)
        dev = b.EndObject()
    b.StartObject(4)
    b.PrependUOffsetTRelativeSlot(0, sizes, 0)
    b.PrependUOffsetTRelativeSlot(1, names, 0)
    b.PrependUOffsetTRelativeSlot(2, types, 0)
    if dev is not None:
        b.PrependUOffsetTRelativeSlot(3, dev, 0)
    return b.EndObject()


def named_sharding(b, version):
    m = mesh(b, version)
    axes = []
    for spec in (["x"], []):
        v = strings(b, spec)
        b.StartObject(1)
        b.PrependUOffsetTRelativeSlot(0, v, 0)
        axes.append(b.EndObject())
    parts = offsets_vector(b, axes)
    reduced, unreduced = strings(b, []), strings(b, [])
    b.StartObject(3)
    b.PrependUOffsetTRelativeSlot(0, parts, 0)
    b.PrependUOffsetTRelativeSlot(1, reduced, 0)
    b.PrependUOffsetTRelativeSlot(2, unreduced, 0)
    spec = b.EndObject()
    b.StartObject(4)
    b.PrependUOffsetTRelativeSlot(0, m, 0)
    b.PrependUOffsetTRelativeSlot(1, spec, 0)
    if version >= 10:
        b.PrependUint32Slot(3, 0, 0)
    return b.EndObject()


def sharding(b, sharded, version):
    proto = b.CreateByteVector(PROTO) if sharded and version <= 8 else None
    named = named_sharding(b, version) if sharded and version >= 6 else None
    b.StartObject(3)
    if version < 9:
        b.PrependInt8Slot(0, (2 if version >= 6 else 1) if sharded else 0, 0)
    if proto is not None:
        b.PrependUOffsetTRelativeSlot(1, proto, 0)
    if named is not None:
        b.PrependUOffsetTRelativeSlot(2, named, 0)
    return b.EndObject()


def effect(b, name):
    s = b.CreateString(name)
    b.StartObject(1)
    b.PrependUOffsetTRelativeSlot(0, s, 0)
    return b.EndObject()


def envelope(version):
    b = flatbuffers.Builder(65536)
    ins = [(["2"], F32), (["b", "2*b + 1"], I32)]
    outs = [(["2"], F32)]
    name = b.CreateString("f")
    in_tree = pytree(b, 2, [pytree(b, 2, [pytree(b, 0), pytree(b, 0)]), pytree(b, 4)])
    in_avals = offsets_vector(b, [aval(b, d, t, version) for d, t in ins])
    out_tree = pytree(b, 2, [pytree(b, 0)])
    out_avals = offsets_vector(b, [aval(b, d, t, version) for d, t in outs])
    in_sh = offsets_vector(b, [sharding(b, i == 0, version) for i in range(2)])
    out_sh = offsets_vector(b, [sharding(b, True, version)])
    ordered = offsets_vector(b, [effect(b, "<class 'jax._src.debugging.OrderedDebugEffect'>")])
    unordered = offsets_vector(b, [])
    checks = offsets_vector(b, [])
    platforms = strings(b, ["cpu", "cuda"])
    module = b.CreateByteVector(MODULE)
    kept = scalars_vector(b, 2, [0])
    extra = {}
    if version >= 10:
        extra["unique_avals"] = offsets_vector(b, [aval(b, d, t, version) for d, t in ins + outs])
        extra["meshes"] = offsets_vector(b, [mesh(b, version)])
        extra["shardings"] = offsets_vector(b, [named_sharding(b, version)])
        extra["in_idx"] = scalars_vector(b, 4, [0, 1])
        extra["out_idx"] = scalars_vector(b, 4, [2])
        extra["in_sh_idx"] = scalars_vector(b, 4, [1, 0])
        extra["out_sh_idx"] = scalars_vector(b, 4, [1])
    jax_version = b.CreateString("0.8.2") if version >= 12 else None
    nfields = 18 if version < 5 else 19 if version < 10 else 26 if version < 12 else 27
    stored = 1 if version == 1 else 2 if version <= 4 else 3 if version <= 11 else version
    b.StartObject(nfields)
    b.PrependUint16Slot(0, stored, 0)
    b.PrependUOffsetTRelativeSlot(1, name, 0)
    b.PrependUOffsetTRelativeSlot(2, in_tree, 0)
    b.PrependUOffsetTRelativeSlot(3, in_avals, 0)
    b.PrependUOffsetTRelativeSlot(4, out_tree, 0)
    b.PrependUOffsetTRelativeSlot(5, out_avals, 0)
    if version < 5:
        b.PrependInt16Slot(6, 1, 0)
    b.PrependUOffsetTRelativeSlot(7, in_sh, 0)
    b.PrependUOffsetTRelativeSlot(8, out_sh, 0)
    b.PrependUOffsetTRelativeSlot(9, platforms, 0)
    b.PrependUOffsetTRelativeSlot(10, ordered, 0)
    b.PrependUOffsetTRelativeSlot(11, unordered, 0)
    b.PrependUOffsetTRelativeSlot(12, checks, 0)
    b.PrependUOffsetTRelativeSlot(13, module, 0)
    b.PrependUint16Slot(14, 9, 0)
    b.PrependUOffsetTRelativeSlot(15, kept, 0)
    b.PrependBoolSlot(16, False, 0)
    if version >= 5:
        b.PrependUint32Slot(18, 1, 0)
    if version >= 10:
        for slot, key in ((19, "unique_avals"), (20, "meshes"), (21, "shardings"), (22, "in_idx"),
                          (23, "out_idx"), (24, "in_sh_idx"), (25, "out_sh_idx")):
            b.PrependUOffsetTRelativeSlot(slot, extra[key], 0)
    if jax_version is not None:
        b.PrependUOffsetTRelativeSlot(26, jax_version, 0)
    b.Finish(b.EndObject())
    return bytes(b.Output())


if __name__ == "__main__":
    for v in (1, 2, 5, 6, 8, 9, 10, 11, 12):
        with open(f"{sys.argv[1]}/v{v}.jaxexport", "wb") as f:
            f.write(envelope(v))
