/* Parser internals shared by the core parser and the pretty-form hooks
 * (one parse_SYNTAX function per SYNTAX column value in ops.def). */
#ifndef SHLOC_TEXT_PARSER_H
#define SHLOC_TEXT_PARSER_H

#include "ir/ir.h"
#include "lexer.h"
#include "support/strmap.h"

typedef struct parse_scope parse_scope;

typedef struct {
  shl_lexer lx;
  shloc_module *m;
  shl_arena *a;
  const shloc_limits *limits;
  uint32_t depth; /* current nesting (regions, brackets, attributes) */
  parse_scope *scope;
  shl_arena scratch; /* scopes and SSA name bindings: parse-time only, freed by parse_module_text */
  shl_strmap attr_aliases, type_aliases;
  /* Types are immutable, so equal spellings can share one object: simple
   * `tensor<...>` types by their text, scalars by dtype. */
  shl_strmap tensor_types;
  const shl_opdef *opdef_cache[32]; /* by a hash of the op name (see find_opdef) */
  shl_str last_tensor_text; /* the last one looked up: types repeat op after op */
  const shl_type *last_tensor;
  const shl_type *scalar_types[DT_COUNT];
  char *loc_defs; /* "#locN = loc(...)" lines seen so far, newline separated */
  size_t loc_defs_len, loc_defs_cap;
} shl_parser;

/* An op under construction. */
typedef struct {
  const shl_opdef *def;
  shl_str name;
  shl_srcpos pos;
  uint32_t n_results_expected; /* from the `%x:2, %y =` prefix */
  uint32_t n_operands, cap_operands;
  shl_value **operands;
  uint32_t n_results, cap_results;
  const shl_type **result_types;
  uint32_t n_attrs, cap_attrs;
  shl_named_attr *attrs;
  uint32_t n_regions, cap_regions;
  shl_region *regions;
  /* Inline storage for the common small cases (op_create copies anyway). */
  shl_value *operands_buf[8];
  const shl_type *results_buf[8];
  shl_named_attr attrs_buf[4];
} op_state;

/* ---- errors ---- */
shl_status parse_error(shl_parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
shl_status parse_error_at(shl_parser *p, const shl_token *t, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
shl_srcpos parse_pos(const shl_parser *p);
/* "'text'" (truncated) or "end of input", for messages; buf holds >= 48 bytes. */
const char *p_tok_desc(const shl_token *t, char *buf, size_t cap);

/* ---- tokens ---- */
static inline shl_token *p_tok(shl_parser *p) { return &p->lx.tok; }
static inline void p_next(shl_parser *p) { lexer_next(&p->lx); }
bool p_punct(shl_parser *p, char c);          /* consumes if present */
shl_status p_expect(shl_parser *p, char c);   /* consumes or fails */
bool p_kw(shl_parser *p, const char *kw);     /* consumes bare identifier kw if present */
shl_status p_expect_kw(shl_parser *p, const char *kw);
shl_status p_expect_arrow(shl_parser *p);
shl_status p_bare_id(shl_parser *p, shl_str *out);
shl_status p_int(shl_parser *p, int64_t *out); /* optional leading '-' */
/* `[1, 2]` -> AT_INTLIST; kind_dense_array=true gives array<i64: ...> instead. */
shl_status p_int_list(shl_parser *p, bool as_dense_array, const shl_attr **out);
shl_status p_string(shl_parser *p, shl_str *out); /* decoded into the arena */
/* `@name` or `@"quoted name"` -> the name without '@' (decoded). */
shl_status p_symbol_name(shl_parser *p, shl_str *out);
shl_status p_nest_enter(shl_parser *p);
static inline void p_nest_leave(shl_parser *p) { p->depth--; }

/* ---- values ---- */
shl_status p_operand(shl_parser *p, shl_value **out);
/* Defines an SSA name in the current scope; fails on redefinition. */
shl_status p_define(shl_parser *p, const shl_token *name_tok, shl_value *v);
/* Defines `%x` (count 1) or `%x:count` for contiguous results. */
shl_status p_define_results(shl_parser *p, const shl_token *name_tok, shl_value *first, uint32_t count);

/* ---- types and attributes ---- */
shl_status p_type(shl_parser *p, const shl_type **out);
/* A general attribute value; for ints/floats/dense an optional `: type` suffix is consumed. */
shl_status p_attr(shl_parser *p, const shl_attr **out);
/* A dense<...> literal whose `: type` follows. */
shl_status p_dense(shl_parser *p, const shl_attr **out);
/* `{name = attr, ...}` into a sorted list (is_prop false). */
shl_status p_dict_items(shl_parser *p, shl_named_attr **items, uint32_t *n);
/* Enum value of a stablehlo enum attribute written bare (LT, FLOAT, DEFAULT). */
const shl_attr *make_enum(shl_parser *p, const char *dialect, const char *name, shl_str value);
shl_status p_loc(shl_parser *p, shl_str *out); /* optional loc(...), verbatim */
/* Captures balanced text starting at the current token up to the matching
 * closing bracket of `open` (the current token must be `open`). */
shl_status p_balanced(shl_parser *p, char open, shl_str *out);

/* ---- op state ---- */
shl_status os_operand(shl_parser *p, op_state *os, shl_value *v);
shl_status os_result(shl_parser *p, op_state *os, const shl_type *t);
/* Adds an attribute; inherent (property) unless the name has a dialect prefix. */
shl_status os_attr(shl_parser *p, op_state *os, const char *name, const shl_attr *a);
shl_status os_attr_s(shl_parser *p, op_state *os, shl_str name, const shl_attr *a, bool is_prop);
shl_region *os_region(shl_parser *p, op_state *os);
/* Parses a comma-separated list of operands (possibly empty when `allow_empty`). */
shl_status p_operands(shl_parser *p, op_state *os, bool allow_empty);
/* Optional attr-dict `{...}`. */
shl_status p_attr_dict(shl_parser *p, op_state *os);
/* `(T, ...) -> R` or `-> (R, ...)`: checks operand types, appends result types. */
shl_status p_functional_type(shl_parser *p, op_state *os);
/* Checks that operand i's value has the written type `t`. */
shl_status p_check_operand_type(shl_parser *p, op_state *os, uint32_t i, const shl_type *t, const shl_token *at);
/* `: T` (all operands and results T) or `: (T...) -> R...`. */
shl_status p_same_or_functional_type(shl_parser *p, op_state *os);
/* Comma-separated types. */
shl_status p_type_list(shl_parser *p, const shl_type ***out, uint32_t *n);

/* ---- regions ---- */
/* Parses `{ ... }` into r.  When entry_args is non-NULL the entry block's
 * arguments were declared by the pretty form (already defined in a new scope
 * by the caller through p_scope_push/p_define) and no ^bb header is expected. */
shl_status p_region(shl_parser *p, shl_region *r, shl_block *entry);
shl_status p_scope_push(shl_parser *p, bool isolated);
void p_scope_pop(shl_parser *p);
/* Parses ops until `}` or EOF into block b. */
shl_status p_block_ops(shl_parser *p, shl_block *b);

typedef shl_status (*parse_fn)(shl_parser *p, op_state *os);
#define OP(id, name, traits, syn, ver, ker) shl_status parse_##syn(shl_parser *p, op_state *os);
#include "ir/ops.def"
#undef OP

#endif
