/* Helpers shared by the pretty-form hooks (see pretty_util.h). */
#include "pretty_util.h"

#include <stdlib.h>

shl_status literal_to_bits(shl_parser *p, const shl_token *t, bool neg, shl_dtype dt, uint64_t *bits);

const shl_type pp_i64 = {.kind = TY_SCALAR, .dtype = DT_I64};
const shl_type pp_i32 = {.kind = TY_SCALAR, .dtype = DT_I32};
const shl_type pp_ui32 = {.kind = TY_SCALAR, .dtype = DT_UI32};
const shl_type pp_ui64 = {.kind = TY_SCALAR, .dtype = DT_UI64};
const shl_type pp_f64 = {.kind = TY_SCALAR, .dtype = DT_F64};
const shl_type pp_i1 = {.kind = TY_SCALAR, .dtype = DT_I1};

/* ------------------------------------------------------------------ parsing */

shl_status pp_expect_kw_eq(shl_parser *p, const char *kw) {
  ST_TRY(p_expect_kw(p, kw));
  return p_expect(p, '=');
}

shl_status pp_int_attr(shl_parser *p, op_state *os, const char *name, const shl_type *type) {
  int64_t v;
  ST_TRY(p_int(p, &v));
  shl_attr *a = attr_int(p->a, type, v);
  if (!a) return st_oom();
  return os_attr(p, os, name, a);
}

shl_status pp_uint(shl_parser *p, uint64_t *out) {
  shl_token t = *p_tok(p);
  if (t.kind != TK_INT) return parse_error(p, "expected unsigned integer");
  if (!lexer_int_value(t.text, out)) return parse_error(p, "integer literal out of range");
  p_next(p);
  return NULL;
}

shl_status pp_dims_attr(shl_parser *p, op_state *os, const char *name) {
  const shl_attr *a;
  ST_TRY(p_int_list(p, true, &a));
  return os_attr(p, os, name, a);
}

shl_status pp_enum_attr(shl_parser *p, op_state *os, const char *name, const char *enum_name) {
  shl_str v;
  ST_TRY(p_bare_id(p, &v));
  const shl_attr *a = make_enum(p, "stablehlo", enum_name, v);
  if (!a) return st_oom();
  return os_attr(p, os, name, a);
}

shl_status pp_f64_attr(shl_parser *p, const shl_attr **out) {
  bool neg = p_punct(p, '-');
  shl_token t = *p_tok(p);
  bool named = t.kind == TK_BARE_ID && (str_eq_c(t.text, "inf") || str_eq_c(t.text, "nan"));
  if (t.kind != TK_INT && t.kind != TK_FLOAT && !named) return parse_error(p, "expected floating point literal");
  uint64_t bits;
  ST_TRY(literal_to_bits(p, &t, neg, DT_F64, &bits));
  p_next(p);
  /* `: f64` may follow; any other `:` belongs to the op's type signature. */
  if (tok_punct(p_tok(p), ':')) {
    shl_lexer saved = p->lx;
    p_next(p);
    if (tok_kw(p_tok(p), "f64")) p_next(p);
    else p->lx = saved;
  }
  shl_attr *a = attr_new(p->a, AT_FLOAT);
  if (!a) return st_oom();
  a->type = &pp_f64;
  a->u.f_bits = bits;
  *out = a;
  return NULL;
}

shl_status pp_operands_with_attr(shl_parser *p, op_state *os) {
  while (p_tok(p)->kind == TK_PERCENT_ID) {
    shl_value *v;
    ST_TRY(p_operand(p, &v));
    ST_TRY(os_operand(p, os, v));
    ST_TRY(p_expect(p, ','));
  }
  return NULL;
}

shl_status pp_operands_comma(shl_parser *p, op_state *os, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    shl_value *v;
    ST_TRY(p_operand(p, &v));
    ST_TRY(os_operand(p, os, v));
    ST_TRY(p_expect(p, ','));
  }
  return NULL;
}

shl_status pp_functional_sig(shl_parser *p, op_state *os) {
  ST_TRY(p_expect(p, ':'));
  return p_functional_type(p, os);
}

shl_status pp_call_tail(shl_parser *p, op_state *os) {
  ST_TRY(p_expect(p, '('));
  if (!p_punct(p, ')')) {
    ST_TRY(p_operands(p, os, false));
    ST_TRY(p_expect(p, ')'));
  }
  ST_TRY(p_attr_dict(p, os));
  ST_TRY(p_expect(p, ':'));
  return p_functional_type(p, os);
}

shl_status pp_operand_type_list(shl_parser *p, op_state *os, bool as_results) {
  ST_TRY(p_expect(p, ':'));
  shl_token at = *p_tok(p);
  const shl_type **ts;
  uint32_t n;
  ST_TRY(p_type_list(p, &ts, &n));
  if (n != os->n_operands) return parse_error_at(p, &at, "expected %u types, found %u", os->n_operands, n);
  for (uint32_t i = 0; i < n; i++) {
    ST_TRY(p_check_operand_type(p, os, i, ts[i], &at));
    if (as_results) ST_TRY(os_result(p, os, ts[i]));
  }
  return NULL;
}

shl_status pp_entry_block(shl_parser *p, uint32_t n, const pp_arg *args, shl_block **out) {
  ST_TRY(p_scope_push(p, false));
  shl_block *b = block_create(p->a, n, NULL);
  if (!b) return st_oom();
  for (uint32_t i = 0; i < n; i++) {
    b->args[i].type = args[i].type;
    b->args[i].pos = (shl_srcpos){p->lx.file, args[i].name.line, args[i].name.col};
    if (!block_set_arg_loc(p->a, b, i, args[i].loc)) return st_oom();
    ST_TRY(p_define(p, &args[i].name, &b->args[i]));
  }
  *out = b;
  return NULL;
}

/* ------------------------------------------------------------------ printing */

void pp_name_operands(shl_printer *pr, const shl_op *op) {
  pr_puts(pr, op->def->name);
  if (op->n_operands) {
    pr_puts(pr, " ");
    pr_values(pr, op->operands, op->n_operands);
  }
}

bool pp_ints(const shl_attr *a, int64_t **out, size_t *n) {
  *out = NULL;
  if (!attr_as_ints(a, NULL, 0, n)) return false;
  if (!*n) return true;
  *out = malloc(*n * sizeof **out);
  if (!*out) return false;
  return attr_as_ints(a, *out, *n, n);
}

bool pp_has_ints(const shl_op *op, const char *name) {
  size_t n;
  return attr_as_ints(op_attr(op, name), NULL, 0, &n);
}

bool pp_has_int(const shl_op *op, const char *name) {
  int64_t v;
  return attr_as_int(op_attr(op, name), &v);
}

shl_str pp_enum_value(const shl_attr *a) {
  if (a && a->kind == AT_ENUM) return a->u.en.value;
  return (shl_str){"", 0};
}

void pp_operand_types(shl_printer *pr, const shl_op *op, uint32_t from) {
  for (uint32_t i = from; i < op->n_operands; i++) {
    if (i > from) pr_puts(pr, ", ");
    pr_type(pr, op->operands[i]->type);
  }
}
