/* Types: immutable values allocated in the module arena, compared
 * structurally with type_eq. */
#ifndef SHLOC_IR_TYPES_H
#define SHLOC_IR_TYPES_H

#include "support/arena.h"
#include "support/dtype.h"
#include "support/strview.h"

#define SHL_DYN INT64_MIN /* a '?' dimension */

typedef enum {
  TY_TENSOR,   /* tensor<2x?xf32>, tensor<*xf32> (rank < 0) */
  TY_SCALAR,   /* a bare element type: f32, i64, index, complex<f32> */
  TY_TOKEN,    /* !stablehlo.token */
  TY_TUPLE,    /* tuple<...> */
  TY_FUNCTION, /* (a, b) -> c */
  TY_NONE,     /* none */
  TY_OPAQUE,   /* any other dialect type (!sdy.foo<...>), kept as text */
  TY_MEMREF,   /* memref<2x?xf32[, layout][, memory space]>: dims as TY_TENSOR; parsed and printed, not executed */
} shl_type_kind;

typedef struct shl_attr shl_attr;

/* Quantized element type (!quant.uniform<...>): the text as written (printed
 * back verbatim) and its parameters, checked against the spec's constraints
 * by the parser. */
typedef struct {
  shl_str text;         /* the whole "!quant.uniform<...>" */
  shl_dtype storage;    /* i2..i32, ui2..ui32 */
  shl_dtype expressed;  /* f32, bf16, ... */
  int64_t storage_min, storage_max; /* default: the storage type's range */
  int32_t axis;         /* quantization dimension; -1 for per-tensor */
  uint32_t n_scales;    /* 1 for per-tensor */
  const double *scales;
  const int64_t *zero_points;
} shl_quant;

/* Same storage, range, expressed type, axis, scales and zero points. */
bool quant_eq(const shl_quant *a, const shl_quant *b);

typedef struct shl_type shl_type;
struct shl_type {
  shl_type_kind kind;
  shl_dtype dtype;          /* TY_TENSOR, TY_SCALAR */
  int32_t rank;             /* TY_TENSOR; -1 when unranked */
  const int64_t *dims;      /* TY_TENSOR; SHL_DYN for '?' */
  const shl_attr *encoding; /* TY_TENSOR: optional encoding (e.g. #stablehlo.bounds<...>);
                               TY_MEMREF: the layout, NULL when it is the identity */
  const shl_attr *memspace; /* TY_MEMREF: memory space, NULL for the default one */
  const shl_quant *quant;   /* dtype == DT_QUANT */
  bool future;              /* TY_TUPLE written !stablehlo.future<...> (async_start's result) */
  uint32_t n_in, n_out;     /* TY_TUPLE (n_in elements) and TY_FUNCTION */
  const shl_type *const *in;
  const shl_type *const *out;
  shl_str text;             /* TY_OPAQUE */
};

bool type_eq(const shl_type *a, const shl_type *b);
/* True for a ranked tensor with no '?' dimension. */
bool type_is_static(const shl_type *t);
/* Number of elements of a static tensor type (1 for rank 0); -1 on overflow
 * or dynamic shape. */
int64_t type_num_elements(const shl_type *t);
/* Bytes one buffer of this static tensor type occupies (element storage * count); -1 on overflow. */
int64_t type_num_bytes(const shl_type *t);
/* Element type stored in buffers (storage type for quantized tensors). */
shl_dtype type_storage_dtype(const shl_type *t);

/* Constructors (arena-allocated, never NULL-checked by callers that ignore OOM:
 * they return NULL when out of memory). */
shl_type *type_tensor(shl_arena *a, shl_dtype dt, int32_t rank, const int64_t *dims);
shl_type *type_scalar(shl_arena *a, shl_dtype dt);
shl_type *type_token(shl_arena *a);

#endif
