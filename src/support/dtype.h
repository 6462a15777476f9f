/* Element types shared by every layer (support sits below ir/, so the scalar
 * semantics in scalar.h can name them). */
#ifndef SHLOC_SUPPORT_DTYPE_H
#define SHLOC_SUPPORT_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
  DTC_BOOL,
  DTC_SINT,
  DTC_UINT,
  DTC_FLOAT,
  DTC_COMPLEX,
  DTC_QUANT, /* quantized: storage type lives in the type's quant info */
} shl_dtype_class;

typedef enum {
  DT_INVALID = 0,
#define X(id, name, bytes, cls, bits) DT_##id,
#include "dtype.def"
#undef X
  DT_COUNT
} shl_dtype;

typedef struct {
  const char *name;
  uint8_t bytes;
  uint8_t cls;
  uint8_t bits;
} shl_dtype_info;

extern const shl_dtype_info shl_dtype_table[DT_COUNT];

static inline const char *dtype_name(shl_dtype t) { return shl_dtype_table[t].name; }
static inline size_t dtype_bytes(shl_dtype t) { return shl_dtype_table[t].bytes; }
static inline shl_dtype_class dtype_class(shl_dtype t) { return (shl_dtype_class)shl_dtype_table[t].cls; }
static inline unsigned dtype_bits(shl_dtype t) { return shl_dtype_table[t].bits; }
static inline bool dtype_is_float(shl_dtype t) { return dtype_class(t) == DTC_FLOAT; }
static inline bool dtype_is_complex(shl_dtype t) { return dtype_class(t) == DTC_COMPLEX; }
static inline bool dtype_is_int(shl_dtype t) {
  return dtype_class(t) == DTC_SINT || dtype_class(t) == DTC_UINT || dtype_class(t) == DTC_BOOL;
}
static inline bool dtype_is_signed(shl_dtype t) { return dtype_class(t) == DTC_SINT; }

/* Looks up an element type by its MLIR spelling ("f32", "ui8", "f8E4M3FN");
 * complex and quantized types are parsed by the type parser, not here. */
shl_dtype dtype_from_name(const char *s, size_t len);

#endif
