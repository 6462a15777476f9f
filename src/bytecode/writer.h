/* MLIR bytecode writer (format: llvm-project mlir/docs/BytecodeFormat.md).
 *
 * Callers build a small tree of ops whose attributes and types are interned
 * nodes (bw_node): each node is its dialect's encoding, a list of items
 * (integers, strings, blobs, references to other nodes), or the text MLIR
 * would print for an attribute without an encoding.  bw_write then numbers
 * everything the way MLIR's writer does (mlir/lib/Bytecode/Writer/IRNumbering.cpp:
 * discovery order of a walk that takes nested regions last-first, stable sort
 * by use count, then grouping by dialect per varint byte width) and emits the
 * sections in MLIR's order, so equal IR gives equal bytes. */
#ifndef SHLOC_BYTECODE_WRITER_H
#define SHLOC_BYTECODE_WRITER_H

#include "support/arena.h"
#include "support/ptrmap.h"
#include "support/status.h"
#include "support/strmap.h"

typedef struct bw_node bw_node;
typedef struct bw_writer bw_writer;

/* One field of an encoding, in write order. */
typedef enum { BWI_VARINT, BWI_SVARINT, BWI_BYTE, BWI_ATTR, BWI_OPT_ATTR, BWI_TYPE, BWI_STRING, BWI_BLOB } bw_item_kind;
typedef struct {
  uint8_t kind;
  uint64_t v;         /* VARINT, SVARINT (two's complement), BYTE */
  const bw_node *ref; /* ATTR, OPT_ATTR (may be NULL), TYPE */
  const uint8_t *p;   /* STRING, BLOB (writer-owned copy) */
  size_t n;
} bw_item;

/* An encoding under construction (attribute, type or op properties). */
typedef struct {
  bw_writer *w;
  bw_item *items; /* `local` until it outgrows it, then the writer's arena */
  size_t n, cap;
  bool oom;
  bw_item local[12];
} bw_enc;

typedef struct bw_op bw_op;
typedef struct bw_block bw_block;

typedef struct {
  uint32_t n_blocks;
  bw_block **blocks;
  uint32_t n_values; /* set while numbering */
} bw_region;

struct bw_block {
  uint32_t n_args, n_ops;
  const void **arg_keys;         /* identities of the arguments (operands refer to them);
                                    bw_write replaces them with its own records */
  const bw_node **arg_types, **arg_locs;
  bw_op *first, *last;
};

struct bw_op {
  uint32_t name;               /* from bw_opname */
  const bw_node *loc;
  const bw_node *attrs;        /* a builtin dictionary, or NULL */
  bool has_props;
  const bw_item *props;        /* attribute references (bytecode >= 5) */
  uint32_t n_props;
  uint32_t n_results, n_operands, n_regions;
  const void **result_keys, **operand_keys; /* value identities (replaced as arg_keys are) */
  const bw_node **result_types;
  bw_region *regions;
  bool isolated_trait;         /* IsolatedFromAbove (else computed from uses) */
  bool isolated;               /* set while numbering */
  uint32_t recreated;          /* k > 0: the k-th op a later pass rewrote (its uses were made last) */
  uint32_t id;                 /* pre-order number, set while numbering */
  bw_op *next;
};

struct bw_writer {
  shl_arena arena;
  int64_t version;             /* bytecode version */
  const char *producer;
  shl_strmap interned;         /* encoding key -> node */
  uint32_t n_dialects;
  shl_str dialects[16];        /* names by id */
  shl_strmap opname_ids;
  uint32_t n_opnames, cap_opnames;
  struct bw_opname *opnames;
  const bw_node *unknown_loc;
  bool oom;
};

void bw_init(bw_writer *w, int64_t version, const char *producer);
void bw_free(bw_writer *w);

/* Dialect id for a name (kept in the writer); UINT32_MAX when there are too many. */
uint32_t bw_dialect(bw_writer *w, const char *name, size_t n);
/* Op name id for "dialect.op" (split at the first '.'). */
shl_status bw_opname(bw_writer *w, shl_str full, bool registered, uint32_t *out);

void bw_enc_begin(bw_writer *w, bw_enc *e);
void bw_varint(bw_enc *e, uint64_t v);
void bw_svarint(bw_enc *e, int64_t v);
void bw_byte(bw_enc *e, uint8_t v);
void bw_attr(bw_enc *e, const bw_node *a);
void bw_opt_attr(bw_enc *e, const bw_node *a);
void bw_type(bw_enc *e, const bw_node *t);
void bw_string(bw_enc *e, const char *s, size_t n);
/* A blob longer than 256 bytes is not copied: it must outlive the writer. */
void bw_blob(bw_enc *e, const void *p, size_t n);
/* The interned node for the encoding (NULL when out of memory); e is reset. */
const bw_node *bw_enc_attr(bw_enc *e, uint32_t dialect);
const bw_node *bw_enc_type(bw_enc *e, uint32_t dialect);
/* A node written as text (no encoding of its own). */
const bw_node *bw_text_attr(bw_writer *w, uint32_t dialect, const char *text, size_t n);
/* The items of e, copied into the writer (for op properties). */
const bw_item *bw_enc_items(bw_enc *e, uint32_t *n);

/* Serializes the tree under `root` (one op: the module). *out is malloc'd. */
shl_status bw_write(bw_writer *w, bw_op *root, uint8_t **out, size_t *len);

#endif
