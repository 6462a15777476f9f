/* Internals of the builder API (include/shloc/builder.h).
 *
 * Public handles for types, attributes, values and ops are the IR structs
 * themselves, cast; blocks, regions and functions carry a little builder
 * state around theirs.  Every op goes through bld_prepare (complete checks on
 * an op not yet in any block) and bld_commit (linking), so a failure leaves
 * the IR untouched. */
#ifndef SHLOC_BUILDER_BUILDER_IMPL_H
#define SHLOC_BUILDER_BUILDER_IMPL_H

#include "ir/ir.h"
#include "shloc/builder.h"

struct shloc_block {
  shl_block *blk;
  shloc_module *m;
};

/* A region before it belongs to an op: r.parent stays NULL until then, which
 * is how a block's scope walk recognises it and continues at `enclosing`. */
struct shloc_region {
  shl_region r;
  shloc_block body;
  shl_block *enclosing;
  bool consumed;
};

struct shloc_func {
  shl_op *op;
  shloc_block body;
  bool declared_results;
};

static inline const shl_type *ty_in(const shloc_type *t) { return (const shl_type *)(const void *)t; }
static inline const shloc_type *ty_out(const shl_type *t) { return (const shloc_type *)(const void *)t; }
static inline const shl_attr *at_in(const shloc_attr *a) { return (const shl_attr *)(const void *)a; }
static inline const shloc_attr *at_out(const shl_attr *a) { return (const shloc_attr *)(const void *)a; }
static inline shl_value *val_in(shloc_value *v) { return (shl_value *)(void *)v; }
static inline shloc_value *val_out(shl_value *v) { return (shloc_value *)(void *)v; }
static inline shl_op *op_in(shloc_op *o) { return (shl_op *)(void *)o; }
static inline shloc_op *op_out(shl_op *o) { return (shloc_op *)(void *)o; }

/* An op to build.  `attrs` may be in any order. */
typedef struct {
  const shl_opdef *def;
  shl_str name; /* NUL-terminated */
  uint32_t n_operands;
  shl_value *const *operands;
  bool infer_results; /* result types from bld_infer instead of the two fields below */
  uint32_t n_results;
  const shl_type *const *result_types;
  uint32_t n_attrs;
  const shl_named_attr *attrs;
  uint32_t n_regions;
  shloc_region *const *regions;
} bld_spec;

/* ---- ops (build.c) ---- */
/* Checks and creates the op for block b without linking it: b accepts ops,
 * operands are visible from b (or are results of ops prepared for b), regions
 * are unused and made for b, attributes unique, result types given or
 * inferred, and the op's verifier rule passes.  On failure nothing outside
 * the arena changed. */
shl_status bld_prepare(shloc_block *b, const bld_spec *s, shl_op **out);
/* Links a prepared op at the end of b and hands s's regions over. */
void bld_commit(shloc_block *b, const bld_spec *s, shl_op *op);
shl_status bld_op(shloc_block *b, const bld_spec *s, shl_op **out);
/* bld_op for a single-result op given by table id. */
shl_status bld_simple(shloc_block *b, shl_opid id, uint32_t n_operands, shl_value *const *operands,
                      const shl_type *result_type, uint32_t n_attrs, const shl_named_attr *attrs, shl_value **out);
/* A status about an op being built in `m` (named in the message and status). */
shl_status bld_error(shloc_code code, const char *op_name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The operands (as IR values) or an error for a NULL one. */
shl_status bld_values(const char *op_name, const char *what, uint32_t n, shloc_value *const *in, shl_value ***out,
                      shl_arena *a);

/* ---- result types (infer.c) ---- */
/* Whether the op has a result-type inference rule. */
bool bld_can_infer(const shl_opdef *def);
/* Result types the spec defines for s (operands, attributes, regions known;
 * s->name NUL-terminated); an error names what does not fit. */
shl_status bld_infer(shloc_module *m, const bld_spec *s, const shl_type ***types, uint32_t *n);

/* ---- attributes and names (attr_text.c) ---- */
/* A caller's attribute name: bare identifier or quoted string literal,
 * decoded into the arena; `list`/`index` only label the error. */
shl_status bld_attr_name(shloc_module *m, const char *list, uint32_t index, const char *name, shl_str *out);
/* {name, text} pairs into named attributes (arena array of n, in the
 * caller's order): names valid and unique, each value exactly one attribute. */
shl_status bld_attr_pairs(shloc_module *m, const char *list, const shloc_attr_pair *pairs, uint32_t n,
                          shl_named_attr **out);
/* Sorts by name; the error names the duplicate and `list`. */
shl_status bld_sort_unique(const char *list, shl_named_attr *attrs, uint32_t n);
/* Inherent (property) unless the name has a dialect prefix: the parser's rule. */
bool bld_is_prop(shl_str name);
/* An attribute from printf-formatted text (the parser builds it, so it has
 * exactly the representation of a parsed one). */
shl_status bld_attr_fmt(shloc_module *m, const shl_attr **out, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A malloc'd text buffer for composing attribute text; `oom` sticks. */
typedef struct {
  char *p;
  size_t n, cap;
  bool oom;
} bld_text;
void bld_text_printf(bld_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* `[1, 2, ...]` */
void bld_text_ints(bld_text *t, const int64_t *v, size_t n);
/* `"..."` with MLIR escapes. */
void bld_text_string(bld_text *t, const char *s, size_t n);
/* A symbol name after '@': bare when the printer would print it bare, else quoted. */
void bld_text_symbol(bld_text *t, const char *s, size_t n);
shl_status bld_text_attr(shloc_module *m, bld_text *t, const shl_attr **out); /* parses and frees t */

/* ---- types (module.c) ---- */
/* Element type by MLIR name (including complex<f32>/complex<f64>). */
shl_status bld_dtype(const char *name, shl_dtype *out);
const shl_type *bld_tensor_like(shl_arena *a, const shl_type *t, shl_dtype dt);

#endif
