/* Helpers shared by the pretty-form hooks of the op families
 * (pretty_shape.c, pretty_region.c, pretty_linalg.c, pretty_test.c).
 *
 * Parsing helpers store each attribute exactly as the generic form carries
 * it (array<i64: ...>, `N : i64`, #stablehlo<enum V>), so that `--generic`
 * output matches stablehlo-opt's. Printing helpers read either that form or
 * the older dense<...> spellings a generic input may use. */
#ifndef SHLOC_TEXT_PRETTY_UTIL_H
#define SHLOC_TEXT_PRETTY_UTIL_H

#include "parser.h"
#include "printer.h"

/* Scalar types of integer and float attributes (I64Attr, I32Attr, UI32Attr,
 * UI64Attr, F64Attr). */
extern const shl_type pp_i64, pp_i32, pp_ui32, pp_ui64, pp_f64, pp_i1;

/* ---- parsing ---- */
/* `kw =` */
shl_status pp_expect_kw_eq(shl_parser *p, const char *kw);
/* An integer literal stored as `name = N : type`. */
shl_status pp_int_attr(shl_parser *p, op_state *os, const char *name, const shl_type *type);
/* An unsigned integer literal (up to 2^64-1). */
shl_status pp_uint(shl_parser *p, uint64_t *out);
/* `[1, 2]` stored as `name = array<i64: 1, 2>`. */
shl_status pp_dims_attr(shl_parser *p, op_state *os, const char *name);
/* A bare enum value (FFT, THREE_FRY) stored as `name = #stablehlo<enum_name V>`. */
shl_status pp_enum_attr(shl_parser *p, op_state *os, const char *name, const char *enum_name);
/* A float literal for an F64Attr, with an optional `: f64` suffix. */
shl_status pp_f64_attr(shl_parser *p, const shl_attr **out);
/* Exactly n operands, each followed by a comma: `%a, %b, kw = ...`. */
shl_status pp_operands_comma(shl_parser *p, op_state *os, uint32_t n);
/* `%a, %b, ` up to (not including) the keyword that follows the trailing comma
 * (custom<VariadicOperandWithAttribute>). */
shl_status pp_operands_with_attr(shl_parser *p, op_state *os);
/* `: (A, B) -> R` */
shl_status pp_functional_sig(shl_parser *p, op_state *os);
/* `(%a, %b) {attrs} : (A, B) -> R`, the tail of custom_call and func.call. */
shl_status pp_call_tail(shl_parser *p, op_state *os);
/* `: A, B`: one type per operand, checked against it; with `as_results` the
 * types are also the op's result types (optimization_barrier, while). */
shl_status pp_operand_type_list(shl_parser *p, op_state *os, bool as_results);
/* A block argument declared in a pretty form: `%name: T loc(..)` (loc may be empty). */
typedef struct {
  shl_token name;
  const shl_type *type;
  shl_str loc;
} pp_arg;
/* Declares block arguments: opens a scope, creates the entry block with
 * args[0..n) and binds their names; the caller parses the region with
 * p_region(p, r, *out) and then closes the scope. */
shl_status pp_entry_block(shl_parser *p, uint32_t n, const pp_arg *args, shl_block **out);

/* ---- printing ---- */
/* `op.name %a, %b` */
void pp_name_operands(shl_printer *pr, const shl_op *op);
/* Integers of an attribute (array<i64>, dense<...>, [..] list) into a malloc'd
 * array (NULL when empty); false if missing or not integers. */
bool pp_ints(const shl_attr *a, int64_t **out, size_t *n);
/* True if attribute `name` is present and holds integers / a single integer. */
bool pp_has_ints(const shl_op *op, const char *name);
bool pp_has_int(const shl_op *op, const char *name);
/* The value of an enum attribute (AT_ENUM), or an empty string. */
shl_str pp_enum_value(const shl_attr *a);
/* `A, B` for the operand types from index `from`. */
void pp_operand_types(shl_printer *pr, const shl_op *op, uint32_t from);

#endif
