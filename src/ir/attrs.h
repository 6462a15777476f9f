/* Attributes: immutable values in the module arena, compared structurally. */
#ifndef SHLOC_IR_ATTRS_H
#define SHLOC_IR_ATTRS_H

#include "types.h"

typedef enum {
  AT_UNIT,        /* unit (a dictionary key without value) */
  AT_BOOL,        /* true / false */
  AT_INT,         /* 42 : i32 (type optional in text; default i64) */
  AT_FLOAT,       /* 1.0 : f32 */
  AT_STRING,      /* "text" (decoded bytes) */
  AT_TYPE,        /* a type used as an attribute */
  AT_ARRAY,       /* [a, b, c] */
  AT_DENSE_ARRAY, /* array<i64: 1, 2> */
  AT_DENSE,       /* dense<...> : tensor<...> */
  AT_DICT,        /* {a = 1, b} */
  AT_SYMREF,      /* @foo, @foo::@bar, @"quoted" */
  AT_ENUM,        /* #stablehlo<comparison_direction LT> (dialect, name, value) */
  AT_STRUCT,      /* #stablehlo.gather<offset_dims = [1], ...> (name, fields) */
  AT_INTLIST,     /* [1, 2] inside structured attributes (no element types) */
  AT_OPAQUE,      /* anything else (dense_resource, affine maps, #sdy...): text */
} shl_attr_kind;

/* Hex digits not yet decoded into a dense attribute's data (see attrs.c). */
typedef struct shl_dense_lazy shl_dense_lazy;

typedef struct {
  shl_str name;
  const shl_attr *attr;
  bool is_prop; /* generic form: inside <{...}> rather than {...} */
} shl_named_attr;

struct shl_attr {
  shl_attr_kind kind;
  const shl_type *type; /* INT/FLOAT: scalar type (NULL = i64 default for INT);
                           DENSE: the tensor type; DENSE_ARRAY: scalar element type */
  union {
    bool b;
    int64_t i; /* INT (two's complement in 64 bits; ui64 as bit pattern) */
    uint64_t f_bits; /* FLOAT: bit pattern in the attribute's float type */
    shl_str str;     /* STRING (decoded), OPAQUE (verbatim text) */
    struct {
      shl_str text;       /* same place as str */
      const void *parsed; /* a dialect's parsed form of the text (src/dialects/), or NULL */
    } opq;
    struct {
      shl_str text; /* SYMREF as written: @foo, @"a b", @a::@b (same place as str) */
      shl_str root; /* the first symbol's name, unquoted and unescaped */
    } sym;
    struct {
      uint32_t n;
      const shl_attr *const *items;
    } arr; /* ARRAY */
    struct {
      uint32_t n;
      const int64_t *v;
    } ints; /* INTLIST */
    struct {
      int64_t n;       /* element count */
      const void *data; /* storage-width little-endian elements (ints widened: see below) */
    } darr;           /* DENSE_ARRAY: elements stored at dtype storage width */
    struct {
      /* Element storage bytes, row-major.  Written by whoever builds the
       * attribute; read only through attr_dense_data(): a large hex constant
       * parsed from text is decoded there on first use, until then this
       * buffer is not filled in. */
      const void *storage;
      size_t nbytes;
      bool splat;             /* storage holds exactly one element */
      shl_dense_lazy *lazy;   /* non-NULL: storage is decoded from source hex on demand */
    } dense;
    struct {
      uint32_t n;
      const shl_named_attr *items; /* sorted by name, unique */
    } dict;
    struct {
      shl_str dialect, name, value;
    } en; /* ENUM */
    struct {
      shl_str name; /* "stablehlo.gather" */
      uint32_t n;
      const shl_named_attr *fields; /* in written order */
    } st; /* STRUCT */
  } u;
};

bool attr_eq(const shl_attr *a, const shl_attr *b);
/* The element bytes of an AT_DENSE attribute (decoding deferred hex on the
 * first call; safe to call from several threads at once). */
const void *attr_dense_data(const shl_attr *a);
/* For an AT_DENSE attribute whose data is still the source text's hex: the
 * 2 * nbytes uppercase digits (exactly what the printer would emit), else NULL. */
const char *attr_dense_hex(const shl_attr *a);
/* A non-splat AT_DENSE attribute of `type` whose nbytes bytes are given by
 * validated uppercase hex digits that outlive the attribute (module text);
 * they are decoded on first use into arena memory reserved now. */
shl_attr *attr_dense_lazy(shl_arena *a, const shl_type *type, const char *hex, size_t nbytes);
/* Looks up `name` in a sorted dictionary (also works on op attribute lists). */
const shl_attr *attr_dict_get(const shl_named_attr *items, uint32_t n, const char *name);
/* Field of a structured attribute by name, or NULL. */
const shl_attr *attr_struct_field(const shl_attr *st, const char *name);

/* Reading common shapes of attributes; each returns false if the attribute
 * is missing or of another kind. */
bool attr_as_int(const shl_attr *a, int64_t *out);
/* Integers of an AT_DENSE_ARRAY, AT_INTLIST, AT_ARRAY of ints or an integer AT_DENSE:
 * *n receives the count, out (may be NULL) up to `cap` values. */
bool attr_as_ints(const shl_attr *a, int64_t *out, size_t cap, size_t *n);

/* #stablehlo.result_accuracy<atol = 0, rtol = 0, ulps = 0, mode = DEFAULT>
 * (StableHLO's default for the attribute). */
bool attr_is_default_result_accuracy(const shl_attr *a);

shl_attr *attr_new(shl_arena *a, shl_attr_kind kind);
shl_attr *attr_int(shl_arena *a, const shl_type *type, int64_t v);
shl_attr *attr_bool(shl_arena *a, bool v);
shl_attr *attr_string(shl_arena *a, shl_str s);
shl_attr *attr_dense_array_i64(shl_arena *a, const int64_t *v, int64_t n);

#endif
