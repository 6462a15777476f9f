/* Printer internals shared by the generic printer and the pretty-form hooks
 * (one print_SYNTAX function per SYNTAX column value in ops.def). */
#ifndef SHLOC_TEXT_PRINTER_H
#define SHLOC_TEXT_PRINTER_H

#include "ir/ir.h"

typedef struct name_table name_table;

typedef struct {
  char *buf;
  size_t len, cap;
  bool oom;      /* out of memory or write error: output is incomplete */
  bool io_error; /* `sink` refused data */
  /* With a sink, buf is a bounded staging buffer flushed to it; without,
   * buf grows to hold the whole output. */
  shloc_write_fn sink;
  void *sink_user;
  unsigned flags; /* SHLOC_PRINT_* */
  int indent;
  name_table *names;
} shl_printer;

void pr_putn(shl_printer *pr, const char *s, size_t n);
/* Makes room for `extra` more bytes at buf + len (flushing to the sink
 * first when there is one); false when out of memory or after a write error. */
bool pr_reserve(shl_printer *pr, size_t extra);
/* Inline so that the length of a literal is folded at compile time. */
static inline void pr_puts(shl_printer *pr, const char *s) { pr_putn(pr, s, strlen(s)); }
void pr_str(shl_printer *pr, shl_str s);
void pr_int(shl_printer *pr, long long v); /* decimal, without printf */
void pr_uint(shl_printer *pr, unsigned long long v);
void pr_printf(shl_printer *pr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pr_newline(shl_printer *pr); /* newline + indentation */

void pr_value(shl_printer *pr, const shl_value *v);
void pr_values(shl_printer *pr, shl_value *const *vs, uint32_t n); /* comma separated */
void pr_type(shl_printer *pr, const shl_type *t);
void pr_attr(shl_printer *pr, const shl_attr *a);
/* Element type of a tensor type (f32, complex<f32>, !quant.uniform<...>). */
void pr_elem_type(shl_printer *pr, const shl_type *t);
/* An attribute value without its `: type` suffix (ints, floats, dense elements). */
void pr_attr_bare(shl_printer *pr, const shl_attr *a);
/* `dense<...>` of a dense elements attribute, without its type. */
void pr_dense_literal(shl_printer *pr, const shl_attr *a);
void pr_int_list(shl_printer *pr, const shl_attr *a); /* [1, 2] from INTLIST or dense array */
void pr_string_lit(shl_printer *pr, shl_str s);       /* quoted with escapes */
void pr_symbol_name(shl_printer *pr, shl_str s);      /* @name, or @"name" when not an identifier */
void pr_conv_dims(shl_printer *pr, const shl_attr *conv);
/* ` {a = 1, ...}` with the op's attributes except those named in `elide`
 * (NULL-terminated); prints nothing when none remain. */
void pr_attr_dict(shl_printer *pr, const shl_op *op, const char *const *elide);
/* `(T, ...) -> R` / `-> (R, S)` for the op's operands and results. */
void pr_functional_type(shl_printer *pr, const shl_op *op);
/* `: T` when all operands and results share T, else the functional type. */
void pr_same_or_functional_type(shl_printer *pr, const shl_op *op);
/* `{ ...ops... }` printing the entry block header only when `with_header`
 * (pretty forms that declare the block arguments themselves pass false). */
void pr_region(shl_printer *pr, const shl_region *r, bool with_header);
/* The op's " loc(...)", with SHLOC_PRINT_DEBUGINFO. */
void pr_loc(shl_printer *pr, const shl_op *op);
/* Block argument i's " loc(...)", with SHLOC_PRINT_DEBUGINFO. */
void pr_arg_loc(shl_printer *pr, const shl_block *b, uint32_t i);
/* Generic form of any op (used for ops without pretty syntax). */
void pr_generic_op(shl_printer *pr, const shl_op *op);

typedef void (*print_fn)(shl_printer *pr, const shl_op *op);
#define OP(id, name, traits, syn, ver, ker) void print_##syn(shl_printer *pr, const shl_op *op);
#include "ir/ops.def"
#undef OP

#endif
