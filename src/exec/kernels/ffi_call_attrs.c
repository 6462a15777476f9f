/* backend_config dictionary -> FFI attributes, following XLA's conversion of
 * MLIR attributes: bools, integers and f32/f64 become scalars, dense arrays
 * and dense elements become flat arrays (splats expanded), strings stay
 * strings, dictionaries nest.  Widths and element types XLA rejects are
 * rejected by ffi_attrs_* with XLA's wording. */
#include <stdlib.h>

#include "ffi_call.h"

static shl_status unsupported(shl_str name, const char *what) {
  return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL, "Unsupported attribute type for attribute: %.*s (%s)",
                  (int)name.n, name.p, what);
}

/* A dense<...> elements attribute: the flattened row-major data, with a
 * splat expanded to every element. */
static shl_status add_dense(ffi_attrs *a, shl_str name, const shl_attr *v) {
  const shl_type *t = v->type;
  if (!t || t->kind != TY_TENSOR || !type_is_static(t)) return unsupported(name, "dense elements of unknown shape");
  shl_dtype dt = t->dtype;
  if (dt == DT_INDEX || dt == DT_I1 || !(dtype_is_int(dt) || dt == DT_F32 || dt == DT_F64))
    return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL, "Unsupported array element type %s for custom call attribute '%.*s'",
                    dtype_name(dt), (int)name.n, name.p);
  int64_t count = type_num_elements(t);
  if (count < 0) return unsupported(name, "dense elements too large");
  if (!v->u.dense.splat || count <= 1)
    return ffi_attrs_add_array(a, name.p, name.n, dt, (size_t)count, attr_dense_data(v));
  size_t esz = dtype_bytes(dt);
  char *buf = malloc((size_t)count * esz);
  if (!buf) return st_oom();
  for (int64_t i = 0; i < count; i++) memcpy(buf + (size_t)i * esz, attr_dense_data(v), esz);
  shl_status st = ffi_attrs_add_array(a, name.p, name.n, dt, (size_t)count, buf);
  free(buf);
  return st;
}

static shl_status add_entry(ffi_attrs *a, shl_str name, const shl_attr *v) {
  switch (v->kind) {
    case AT_BOOL: {
      uint8_t b = v->u.b;
      return ffi_attrs_add_scalar(a, name.p, name.n, DT_I1, &b);
    }
    case AT_INT: {
      /* Untyped integers are i64 in MLIR; the low bytes of the 64-bit value
       * are the element at its own width (little-endian). */
      shl_dtype dt = v->type ? v->type->dtype : DT_I64;
      if (dt == DT_INDEX)
        return st_error(SHLOC_ERR_UNSUPPORTED, NULL, NULL,
                        "Unsupported integer attribute bit width (index) for custom call attribute '%.*s'", (int)name.n,
                        name.p);
      int64_t x = v->u.i;
      return ffi_attrs_add_scalar(a, name.p, name.n, dt, &x);
    }
    case AT_FLOAT: {
      shl_dtype dt = v->type ? v->type->dtype : DT_F64;
      if (dt == DT_F32) {
        uint32_t bits = (uint32_t)v->u.f_bits;
        return ffi_attrs_add_scalar(a, name.p, name.n, dt, &bits);
      }
      uint64_t bits = v->u.f_bits;
      return ffi_attrs_add_scalar(a, name.p, name.n, dt, &bits);
    }
    case AT_STRING: return ffi_attrs_add_string(a, name.p, name.n, v->u.str.p, v->u.str.n);
    case AT_DENSE_ARRAY:
      return ffi_attrs_add_array(a, name.p, name.n, v->type->dtype, (size_t)v->u.darr.n, v->u.darr.data);
    case AT_DENSE: return add_dense(a, name, v);
    case AT_DICT:
      ST_TRY(ffi_attrs_begin_dict(a, name.p, name.n));
      ST_TRY(ffi_attrs_from_dict(a, v));
      return ffi_attrs_end_dict(a);
    case AT_UNIT: return unsupported(name, "unit");
    case AT_ARRAY: return unsupported(name, "array [...]; use array<T: ...> or dense<...>");
    case AT_TYPE: return unsupported(name, "type");
    case AT_SYMREF: return unsupported(name, "symbol reference");
    default: return unsupported(name, "attribute kind without an FFI equivalent");
  }
}

shl_status ffi_attrs_from_dict(ffi_attrs *a, const shl_attr *dict) {
  for (uint32_t i = 0; i < dict->u.dict.n; i++) {
    const shl_named_attr *e = &dict->u.dict.items[i];
    ST_TRY(add_entry(a, e->name, e->attr));
  }
  return NULL;
}
