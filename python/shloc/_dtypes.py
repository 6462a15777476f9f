"""numpy dtype <-> XLA_FFI_DataType (the numbering of include/shloc/xla_ffi.h).

bf16 and the f8/f6/f4 types are the ml_dtypes dtypes when that package is
importable; otherwise they travel as their raw bits, uint16 for bf16 and uint8
for the 8-bit-and-narrower floats.  Sub-byte integers (i2/i4, ui2/ui4) are one
byte per element in shloc buffers: int8/uint8 arrays (or ml_dtypes' int4 &
co., which are one byte per element too)."""
import numpy as np

try:
    import ml_dtypes
except ImportError:  # not in Debian: raw views
    ml_dtypes = None

PRED, S8, S16, S32, S64, U8, U16, U32, U64, F16, F32, F64 = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
C64, BF16, TOKEN, C128 = 15, 16, 17, 18

_BASIC = {PRED: np.bool_, S8: np.int8, S16: np.int16, S32: np.int32, S64: np.int64, U8: np.uint8,
          U16: np.uint16, U32: np.uint32, U64: np.uint64, F16: np.float16, F32: np.float32,
          F64: np.float64, C64: np.complex64, C128: np.complex128,
          21: np.int8, 22: np.uint8, 26: np.int8, 27: np.uint8}  # S4 U4 S2 U2
# code: (ml_dtypes name, raw stand-in)
_EXOTIC = {BF16: ("bfloat16", np.uint16), 19: ("float8_e5m2", np.uint8), 20: ("float8_e4m3fn", np.uint8),
           23: ("float8_e4m3b11fnuz", np.uint8), 24: ("float8_e5m2fnuz", np.uint8),
           25: ("float8_e4m3fnuz", np.uint8), 28: ("float8_e4m3", np.uint8), 29: ("float8_e3m4", np.uint8),
           32: ("float4_e2m1fn", np.uint8), 33: ("float8_e8m0fnu", np.uint8)}
_NAMES = {PRED: "i1", S8: "i8", S16: "i16", S32: "i32", S64: "i64", U8: "ui8", U16: "ui16", U32: "ui32",
          U64: "ui64", F16: "f16", F32: "f32", F64: "f64", C64: "complex<f32>", C128: "complex<f64>",
          BF16: "bf16", TOKEN: "!stablehlo.token", 21: "i4", 22: "ui4", 26: "i2", 27: "ui2",
          19: "f8E5M2", 20: "f8E4M3FN", 23: "f8E4M3B11FNUZ", 24: "f8E5M2FNUZ", 25: "f8E4M3FNUZ",
          28: "f8E4M3", 29: "f8E3M4", 32: "f4E2M1FN", 33: "f8E8M0FNU"}


def to_numpy(code):
    """The numpy dtype shloc's XLA_FFI_DataType `code` is exchanged as."""
    if code in _BASIC:
        return np.dtype(_BASIC[code])
    if code in _EXOTIC:
        name, raw = _EXOTIC[code]
        if ml_dtypes is not None and hasattr(ml_dtypes, name):
            return np.dtype(getattr(ml_dtypes, name))
        return np.dtype(raw)
    raise TypeError("shloc: element type %s has no numpy dtype" % name_of(code))


def name_of(code):
    return _NAMES.get(code, "dtype #%d" % code)
