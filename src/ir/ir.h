/* The IR: modules own ops (builtin.module at the top), ops own regions,
 * regions own blocks, blocks own block arguments and a list of ops.  One
 * generic operation shape for every op, known or not; `def` points at the
 * op's row in the op table (ops.def). */
#ifndef SHLOC_IR_IR_H
#define SHLOC_IR_IR_H

#include "attrs.h"
#include "ops.h"
#include "support/ptrmap.h"
#include "support/status.h"

typedef struct shl_op shl_op;
typedef struct shl_block shl_block;
typedef struct shl_region shl_region;

typedef struct shl_value {
  const shl_type *type;
  shl_op *def;      /* defining op, or NULL for a block argument */
  shl_block *block; /* owning block for block arguments */
  uint32_t index;   /* result index or argument index */
  uint32_t id;      /* scratch of the pass at work (the verifier marks visible values with it) */
  shl_srcpos pos;   /* where a block argument was declared */
} shl_value;

struct shl_op {
  const shl_opdef *def; /* table row; OP_UNKNOWN's row for ops outside the table */
  shl_str name;         /* full name as written ("stablehlo.add", "sdy.mesh") */
  uint32_t n_operands, n_results, n_attrs, n_regions;
  shl_value **operands;
  shl_value *results;
  shl_named_attr *attrs; /* sorted by name, unique */
  shl_region *regions;
  shl_str loc;     /* verbatim "loc(...)" text, empty when absent */
  shl_srcpos pos;  /* where the op starts in the source */
  shl_block *block;
  shl_op *prev, *next;
};

struct shl_block {
  shl_value *args;
  uint32_t n_args;
  shl_op *first, *last;
  shl_region *region;
  shl_str label; /* "^bb0" as written, empty for an unlabeled entry block */
  shl_str *arg_locs; /* verbatim "loc(...)" per argument; NULL when none has one */
};

struct shl_region {
  shl_block **blocks;
  uint32_t n_blocks;
  shl_op *parent;
};

struct shloc_module {
  shloc_context *ctx;
  shl_arena arena;
  shl_op *top;          /* the builtin.module op */
  bool implicit_top;    /* the source had no explicit `module` */
  const char *filename; /* arena copy */
  shl_str loc_defs;     /* verbatim trailing "#loc = loc(...)" definitions */
  shl_str resources;    /* verbatim "{-# dialect_resources: ... #-}" section */
  const struct shloc_jax_export *jax_export; /* the envelope it came in, or NULL */
  /* Attributes parsed from attribute strings (Shardy's round-trip form,
   * sdy_roundtrip.c), by the string's bytes: parsed once however often a
   * plan or run asks.  Unused until then (arena NULL). */
  shl_ptrmap parsed_strings;
};

struct shloc_context {
  shloc_limits limits;
};

static inline shl_opid op_id(const shl_op *op) { return op->def->id; }
static inline bool op_is(const shl_op *op, shl_opid id) { return op->def->id == id; }
static inline const shl_attr *op_attr(const shl_op *op, const char *name) {
  return attr_dict_get(op->attrs, op->n_attrs, name);
}
/* NUL-terminated op name for diagnostics. */
const char *op_name_cstr(const shl_op *op);

/* Diagnostics about an op: position = op->pos, op name attached. */
shl_status op_error(const shl_op *op, shloc_code code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Construction (arena of the module).  Results get types from `result_types`. */
shl_op *op_create(shl_arena *a, const shl_opdef *def, shl_str name, uint32_t n_operands, shl_value *const *operands,
                  uint32_t n_results, const shl_type *const *result_types, uint32_t n_attrs,
                  const shl_named_attr *attrs, uint32_t n_regions);
shl_block *block_create(shl_arena *a, uint32_t n_args, const shl_type *const *arg_types);
/* Records argument i's "loc(...)" text (nothing for an empty one); false when out of memory. */
bool block_set_arg_loc(shl_arena *a, shl_block *b, uint32_t i, shl_str loc);
void block_append(shl_block *b, shl_op *op);
void block_insert_before(shl_block *b, shl_op *before, shl_op *op);
void block_remove(shl_block *b, shl_op *op);
/* Adds a block to a region (regions are allocated by op_create). */
bool region_append_block(shl_arena *a, shl_region *r, shl_block *b);
/* Sets or replaces attribute `name` on op (keeps the list sorted). */
bool op_set_attr(shl_arena *a, shl_op *op, shl_str name, const shl_attr *attr, bool is_prop);
/* Sorts an attribute array by name; returns false on duplicates (reports the
 * first duplicate's index in *dup). */
bool attrs_sort(shl_named_attr *attrs, uint32_t n, uint32_t *dup);

/* An empty module (no top op, own arena) sharing m's context, file name,
 * location aliases and resources: what a copy or rewrite of m fills in. */
shloc_module *module_shell(const shloc_module *m);

/* A copy of m whose ops, regions, blocks and values are its own (for a pass
 * to rewrite) while types, attributes and strings stay borrowed from m: m
 * must outlive the copy (clone.c). */
shl_status module_clone(const shloc_module *m, shloc_module **out);

/* Functions of a module: the func.func ops directly inside `top`. */
shl_op *module_find_func(const shloc_module *m, shl_str name);
/* The body of a func.func (NULL for declarations). */
shl_block *func_body(const shl_op *func);
const shl_type *func_type(const shl_op *func);
shl_str func_sym_name(const shl_op *func);

#endif
