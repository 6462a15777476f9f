/* MLIR bytecode reader internals (format: llvm-project mlir/docs/BytecodeFormat.md).
 *
 * The file is read in two steps: the tables (strings, dialects, op names,
 * attribute/type offsets, properties) are indexed without decoding anything,
 * then the IR section is walked op by op.  Attributes and types are decoded
 * on first use and cached per table entry; an entry met again while it is
 * being decoded is a reference cycle and an error.  Every count and offset is
 * checked against the bytes that remain before it is used. */
#ifndef SHLOC_BYTECODE_BC_READER_H
#define SHLOC_BYTECODE_BC_READER_H

#include "ir/ir.h"

/* Bytecode versions (mlir/include/mlir/Bytecode/Encoding.h). */
enum {
  BC_V_DIALECT_VERSIONING = 1,
  BC_V_LAZY_LOADING = 2,
  BC_V_USE_LIST_ORDERING = 3,
  BC_V_ELIDE_UNKNOWN_BLOCK_ARG_LOC = 4,
  BC_V_NATIVE_PROPERTIES = 5,
  BC_V_ODS_SEGMENT_SIZES = 6,
  BC_V_NEWEST = 6,
};

enum {
  BC_SEC_STRING = 0,
  BC_SEC_DIALECT = 1,
  BC_SEC_ATTR_TYPE = 2,
  BC_SEC_ATTR_TYPE_OFFSET = 3,
  BC_SEC_IR = 4,
  BC_SEC_RESOURCE = 5,
  BC_SEC_RESOURCE_OFFSET = 6,
  BC_SEC_DIALECT_VERSIONS = 7,
  BC_SEC_PROPERTIES = 8,
  BC_SEC_COUNT = 9,
};

typedef struct bc_reader bc_reader;

/* A window of the file being read. */
typedef struct {
  bc_reader *r;
  const uint8_t *p, *end;
} bc_cur;

typedef enum { BD_OTHER, BD_BUILTIN, BD_VHLO, BD_FUNC } bc_dialect_kind;

typedef struct {
  shl_str name;
  bc_dialect_kind kind;
  bool has_version;
  const uint8_t *version; /* the dialect's version blob */
  size_t version_len;
} bc_dialect;

typedef struct vhlo_opinfo vhlo_opinfo;

typedef struct {
  uint32_t dialect;
  shl_str name;      /* "dialect.op" */
  bool registered;   /* the producer knew the op (bytecode >= 5): properties use its own encoding */
  const shl_opdef *def;
  const vhlo_opinfo *vhlo; /* for vhlo.* ops */
} bc_opname;

typedef enum { BE_NEW, BE_BUSY, BE_DONE } bc_entry_state;

typedef struct {
  const uint8_t *p;
  size_t n;
  uint32_t dialect;
  bool custom;
  uint8_t state;
  union {
    const shl_attr *attr;
    const shl_type *type;
  } v;
} bc_entry;

struct bc_reader {
  shloc_module *m;
  shl_arena *a;
  const char *fname;
  const uint8_t *data;
  size_t len;
  bool borrowed; /* the input outlives the module: large data may be referenced */
  uint64_t version;
  shl_str producer;
  uint32_t vhlo_version[3]; /* 0.0.0 when the artifact has no vhlo dialect version */
  const uint8_t *sec[BC_SEC_COUNT];
  size_t sec_len[BC_SEC_COUNT];
  uint32_t n_strings;
  shl_str *strings;
  uint32_t n_dialects;
  bc_dialect *dialects;
  uint32_t n_opnames;
  bc_opname *opnames;
  uint32_t n_attrs, n_types;
  bc_entry *attrs, *types;
  uint32_t n_props;
  const uint8_t **props;
  size_t *props_len;
  uint32_t depth; /* nesting of attribute/type decoding and regions */
  const char *cur_op; /* op being read, for messages */
};

/* ---- errors (reader.c) ---- */
/* An error at byte offset `at` of the file, naming the op being read. */
shl_status bc_error(bc_reader *r, const uint8_t *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
shl_status bc_eof(bc_cur *c);

/* ---- primitives (encoding.c) ---- */
shl_status bc_byte(bc_cur *c, uint8_t *out);
shl_status bc_varint(bc_cur *c, uint64_t *out);
shl_status bc_svarint(bc_cur *c, int64_t *out);
/* varint whose low bit is a flag: value >> 1, flag = bit 0. */
shl_status bc_varint_flag(bc_cur *c, uint64_t *out, bool *flag);
shl_status bc_bytes(bc_cur *c, size_t n, const uint8_t **out);
/* A count of items that each take at least `min_bytes`: checked against what remains. */
shl_status bc_count(bc_cur *c, size_t min_bytes, uint64_t *out);
/* A section header and its data (alignment padding skipped). */
shl_status bc_section(bc_cur *c, uint8_t *id, bc_cur *data);
static inline bool bc_done(const bc_cur *c) { return c->p >= c->end; }
static inline size_t bc_left(const bc_cur *c) { return (size_t)(c->end - c->p); }

/* ---- tables (reader.c) ---- */
shl_status bc_string(bc_cur *c, shl_str *out); /* index into the string table */
shl_status bc_attr(bc_cur *c, const shl_attr **out);
/* An array attribute's payload (count + references), as builtin and VHLO encode it. */
shl_status bc_attr_array(bc_cur *c, const shl_attr **out);
shl_status bc_type(bc_cur *c, const shl_type **out);
shl_status bc_attr_at(bc_reader *r, uint64_t idx, const uint8_t *at, const shl_attr **out);
shl_status bc_type_at(bc_reader *r, uint64_t idx, const uint8_t *at, const shl_type **out);
/* A signed varint list (count + values) into the arena. */
shl_status bc_svarints(bc_cur *c, int64_t **out, uint32_t *n);
/* An APInt of known bit width as the low bits of a uint64 (wider values are refused). */
shl_status bc_apint(bc_cur *c, unsigned width, uint64_t *out);
/* A blob: varint size + bytes. */
shl_status bc_blob(bc_cur *c, const uint8_t **out, size_t *n);

/* Checks a tensor shape read from the file: sizes >= 0 or dynamic, element
 * count within the context's limit (as the text parser checks it). */
shl_status bc_check_shape(bc_reader *r, const uint8_t *at, const int64_t *dims, uint32_t rank);

/* ---- dialect decoders ---- */
shl_status builtin_read_attr(bc_cur *c, const shl_attr **out);
shl_status builtin_read_type(bc_cur *c, const shl_type **out);
shl_status vhlo_read_attr(bc_cur *c, const shl_attr **out);
shl_status vhlo_read_type(bc_cur *c, const shl_type **out);

/* ---- properties of registered non-VHLO ops (properties.c) ---- */
/* Appends op's inherent attributes read from its properties blob p[0..n). */
shl_status bc_native_properties(bc_reader *r, const uint8_t *at, shl_str op, const uint8_t *p, size_t n,
                                shl_named_attr *out, uint32_t *cnt, uint32_t cap);

/* ---- IR (reader_ir.c) ---- */
shl_status bc_read_ir(bc_reader *r);

/* ---- shared constructors (builtin.c) ---- */
/* A dense elements attribute of `type` from MLIR's raw storage bytes (i1
 * bit-packed, an element for a splat). */
shl_status bc_dense(bc_reader *r, const uint8_t *at, const shl_type *type, const uint8_t *raw, size_t n,
                    const shl_attr **out);
/* Parses MLIR text produced by the reader itself or found in the file (an
 * attribute or type without a bytecode encoding). */
shl_status bc_parse_attr_text(bc_reader *r, const uint8_t *at, const char *text, size_t n, const shl_attr **out);
shl_status bc_parse_type_text(bc_reader *r, const uint8_t *at, const char *text, size_t n, const shl_type **out);

#endif
