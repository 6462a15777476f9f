/* shl_dtype <-> XLA_FFI_DataType, and names for messages. */
#include "ffi/ffi_impl.h"

XLA_FFI_DataType ffi_dtype_to_xla(shl_dtype t) {
  if (t == FFI_DT_TOKEN) return XLA_FFI_DataType_TOKEN;
  switch (t) {
    case DT_I1: return XLA_FFI_DataType_PRED;
    case DT_I2:
    case DT_SI2: return XLA_FFI_DataType_S2;
    case DT_I4:
    case DT_SI4: return XLA_FFI_DataType_S4;
    case DT_I8:
    case DT_SI8: return XLA_FFI_DataType_S8;
    case DT_I16:
    case DT_SI16: return XLA_FFI_DataType_S16;
    case DT_I32:
    case DT_SI32: return XLA_FFI_DataType_S32;
    case DT_I64:
    case DT_SI64:
    case DT_INDEX: return XLA_FFI_DataType_S64;
    case DT_UI2: return XLA_FFI_DataType_U2;
    case DT_UI4: return XLA_FFI_DataType_U4;
    case DT_UI8: return XLA_FFI_DataType_U8;
    case DT_UI16: return XLA_FFI_DataType_U16;
    case DT_UI32: return XLA_FFI_DataType_U32;
    case DT_UI64: return XLA_FFI_DataType_U64;
    case DT_F4E2M1FN: return XLA_FFI_DataType_F4E2M1FN;
    case DT_F8E3M4: return XLA_FFI_DataType_F8E3M4;
    case DT_F8E4M3: return XLA_FFI_DataType_F8E4M3;
    case DT_F8E4M3FN: return XLA_FFI_DataType_F8E4M3FN;
    case DT_F8E4M3FNUZ: return XLA_FFI_DataType_F8E4M3FNUZ;
    case DT_F8E4M3B11FNUZ: return XLA_FFI_DataType_F8E4M3B11FNUZ;
    case DT_F8E5M2: return XLA_FFI_DataType_F8E5M2;
    case DT_F8E5M2FNUZ: return XLA_FFI_DataType_F8E5M2FNUZ;
    case DT_F8E8M0FNU: return XLA_FFI_DataType_F8E8M0FNU;
    case DT_BF16: return XLA_FFI_DataType_BF16;
    case DT_F16: return XLA_FFI_DataType_F16;
    case DT_F32: return XLA_FFI_DataType_F32;
    case DT_F64: return XLA_FFI_DataType_F64;
    case DT_C64: return XLA_FFI_DataType_C64;
    case DT_C128: return XLA_FFI_DataType_C128;
    default: return XLA_FFI_DataType_INVALID; /* tf32, f6*, quant: no XLA equivalent */
  }
}

shl_dtype ffi_dtype_from_xla(XLA_FFI_DataType t) {
  switch (t) {
    case XLA_FFI_DataType_PRED: return DT_I1;
    case XLA_FFI_DataType_S2: return DT_I2;
    case XLA_FFI_DataType_S4: return DT_I4;
    case XLA_FFI_DataType_S8: return DT_I8;
    case XLA_FFI_DataType_S16: return DT_I16;
    case XLA_FFI_DataType_S32: return DT_I32;
    case XLA_FFI_DataType_S64: return DT_I64;
    case XLA_FFI_DataType_U2: return DT_UI2;
    case XLA_FFI_DataType_U4: return DT_UI4;
    case XLA_FFI_DataType_U8: return DT_UI8;
    case XLA_FFI_DataType_U16: return DT_UI16;
    case XLA_FFI_DataType_U32: return DT_UI32;
    case XLA_FFI_DataType_U64: return DT_UI64;
    case XLA_FFI_DataType_F4E2M1FN: return DT_F4E2M1FN;
    case XLA_FFI_DataType_F8E3M4: return DT_F8E3M4;
    case XLA_FFI_DataType_F8E4M3: return DT_F8E4M3;
    case XLA_FFI_DataType_F8E4M3FN: return DT_F8E4M3FN;
    case XLA_FFI_DataType_F8E4M3FNUZ: return DT_F8E4M3FNUZ;
    case XLA_FFI_DataType_F8E4M3B11FNUZ: return DT_F8E4M3B11FNUZ;
    case XLA_FFI_DataType_F8E5M2: return DT_F8E5M2;
    case XLA_FFI_DataType_F8E5M2FNUZ: return DT_F8E5M2FNUZ;
    case XLA_FFI_DataType_F8E8M0FNU: return DT_F8E8M0FNU;
    case XLA_FFI_DataType_BF16: return DT_BF16;
    case XLA_FFI_DataType_F16: return DT_F16;
    case XLA_FFI_DataType_F32: return DT_F32;
    case XLA_FFI_DataType_F64: return DT_F64;
    case XLA_FFI_DataType_C64: return DT_C64;
    case XLA_FFI_DataType_C128: return DT_C128;
    case XLA_FFI_DataType_TOKEN: return FFI_DT_TOKEN;
    default: return DT_INVALID; /* INVALID, S1, U1 */
  }
}

const char *ffi_dtype_xla_name(XLA_FFI_DataType t) {
  switch (t) {
    case XLA_FFI_DataType_PRED: return "PRED";
    case XLA_FFI_DataType_S8: return "S8";
    case XLA_FFI_DataType_S16: return "S16";
    case XLA_FFI_DataType_S32: return "S32";
    case XLA_FFI_DataType_S64: return "S64";
    case XLA_FFI_DataType_U8: return "U8";
    case XLA_FFI_DataType_U16: return "U16";
    case XLA_FFI_DataType_U32: return "U32";
    case XLA_FFI_DataType_U64: return "U64";
    case XLA_FFI_DataType_F16: return "F16";
    case XLA_FFI_DataType_F32: return "F32";
    case XLA_FFI_DataType_F64: return "F64";
    case XLA_FFI_DataType_C64: return "C64";
    case XLA_FFI_DataType_BF16: return "BF16";
    case XLA_FFI_DataType_TOKEN: return "TOKEN";
    case XLA_FFI_DataType_C128: return "C128";
    case XLA_FFI_DataType_F8E5M2: return "F8E5M2";
    case XLA_FFI_DataType_F8E4M3FN: return "F8E4M3FN";
    case XLA_FFI_DataType_S4: return "S4";
    case XLA_FFI_DataType_U4: return "U4";
    case XLA_FFI_DataType_F8E4M3B11FNUZ: return "F8E4M3B11FNUZ";
    case XLA_FFI_DataType_F8E5M2FNUZ: return "F8E5M2FNUZ";
    case XLA_FFI_DataType_F8E4M3FNUZ: return "F8E4M3FNUZ";
    case XLA_FFI_DataType_S2: return "S2";
    case XLA_FFI_DataType_U2: return "U2";
    case XLA_FFI_DataType_F8E4M3: return "F8E4M3";
    case XLA_FFI_DataType_F8E3M4: return "F8E3M4";
    case XLA_FFI_DataType_S1: return "S1";
    case XLA_FFI_DataType_U1: return "U1";
    case XLA_FFI_DataType_F4E2M1FN: return "F4E2M1FN";
    case XLA_FFI_DataType_F8E8M0FNU: return "F8E8M0FNU";
    default: return "INVALID";
  }
}

const char *ffi_error_code_name(XLA_FFI_Error_Code c) {
  switch (c) {
    case XLA_FFI_Error_Code_OK: return "OK";
    case XLA_FFI_Error_Code_CANCELLED: return "CANCELLED";
    case XLA_FFI_Error_Code_UNKNOWN: return "UNKNOWN";
    case XLA_FFI_Error_Code_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case XLA_FFI_Error_Code_DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case XLA_FFI_Error_Code_NOT_FOUND: return "NOT_FOUND";
    case XLA_FFI_Error_Code_ALREADY_EXISTS: return "ALREADY_EXISTS";
    case XLA_FFI_Error_Code_PERMISSION_DENIED: return "PERMISSION_DENIED";
    case XLA_FFI_Error_Code_RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case XLA_FFI_Error_Code_FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case XLA_FFI_Error_Code_ABORTED: return "ABORTED";
    case XLA_FFI_Error_Code_OUT_OF_RANGE: return "OUT_OF_RANGE";
    case XLA_FFI_Error_Code_UNIMPLEMENTED: return "UNIMPLEMENTED";
    case XLA_FFI_Error_Code_INTERNAL: return "INTERNAL";
    case XLA_FFI_Error_Code_UNAVAILABLE: return "UNAVAILABLE";
    case XLA_FFI_Error_Code_DATA_LOSS: return "DATA_LOSS";
    case XLA_FFI_Error_Code_UNAUTHENTICATED: return "UNAUTHENTICATED";
    default: return "UNKNOWN";
  }
}
