/* Pretty forms of the Shardy ops, as Shardy's assembly formats print them:
 *   sdy.mesh @mesh = <["a"=2, "b"=4], device_ids=[...]>
 *   sdy.sharding_constraint %x <@mesh, [{"a"}, {}]> : T          (also sdy.reshard)
 *   sdy.propagation_barrier %x allowed_direction=BACKWARD : T
 *   sdy.sharding_group %x group_id=21 : T
 *   sdy.manual_computation(%x) in_shardings=[...] out_shardings=[...] manual_axes={"a"} (%arg1: L) {
 *     ...
 *   } : (T) -> R
 *   sdy.named_computation<"name">(%x) in_shardings=[...] out_shardings=[...] (%arg1: T) {...} : (T) -> R
 * The sharding attributes are parsed and printed by src/dialects/sdy. */
#include "dialects/sdy/sdy_text.h"
#include "pretty_util.h"

/* `kw=` written without spaces, as Shardy prints it; the lexer makes two tokens of it. */
static shl_status kw_eq(shl_parser *p, const char *kw) {
  ST_TRY(p_expect_kw(p, kw));
  return p_expect(p, '=');
}

static void pr_stripped(shl_printer *pr, const shl_attr *a) { pr_str(pr, sdy_attr_stripped(a)); }

/* MLIR's generated parsers also take the full `#sdy.name<...>` spelling
 * where the stripped one is printed. */
static shl_status full_or_stripped(shl_parser *p, shl_status (*stripped)(shl_parser *, const shl_attr **),
                                   const void *(*kind)(const shl_attr *), const char *what, const shl_attr **out) {
  if (p_tok(p)->kind != TK_HASH_ID) return stripped(p, out);
  shl_token at = *p_tok(p);
  ST_TRY(p_attr(p, out));
  if (!kind(*out)) return parse_error_at(p, &at, "expected %s", what);
  return NULL;
}

static const void *is_mesh(const shl_attr *a) { return sdy_attr_mesh(a); }
static const void *is_sharding(const shl_attr *a) { return sdy_attr_sharding(a); }

/* ------------------------------------------------------------------ sdy.mesh */

shl_status parse_sdy_mesh(shl_parser *p, op_state *os) {
  shl_str name;
  ST_TRY(p_symbol_name(p, &name));
  ST_TRY(os_attr(p, os, "sym_name", attr_string(p->a, name)));
  ST_TRY(p_expect(p, '='));
  const shl_attr *mesh;
  ST_TRY(full_or_stripped(p, sdy_parse_mesh, is_mesh, "a mesh <[...]>", &mesh));
  ST_TRY(os_attr(p, os, "mesh", mesh));
  return p_attr_dict(p, os);
}

static const char *const mesh_elide[] = {"sym_name", "mesh", NULL};

void print_sdy_mesh(shl_printer *pr, const shl_op *op) {
  const shl_attr *sym = op_attr(op, "sym_name"), *mesh = op_attr(op, "mesh");
  if (!sym || sym->kind != AT_STRING || !sdy_attr_mesh(mesh) || op->n_operands || op->n_results) {
    pr_generic_op(pr, op);
    return;
  }
  pr_puts(pr, "sdy.mesh ");
  pr_symbol_name(pr, sym->u.str);
  pr_puts(pr, " = ");
  pr_stripped(pr, mesh);
  pr_attr_dict(pr, op, mesh_elide);
}

/* ------------------------------------------------------------------ one-operand annotations */

/* `: T`, the type of the operand and (with `result`) of the result. */
static shl_status same_type_tail(shl_parser *p, op_state *os, bool result) {
  ST_TRY(p_attr_dict(p, os));
  ST_TRY(p_expect(p, ':'));
  shl_token at = *p_tok(p);
  const shl_type *t;
  ST_TRY(p_type(p, &t));
  ST_TRY(p_check_operand_type(p, os, 0, t, &at));
  return result ? os_result(p, os, t) : NULL;
}

static bool one_value(const shl_op *op, uint32_t n_results) {
  return op->n_operands == 1 && op->n_results == n_results && (!n_results || type_eq(op->operands[0]->type, op->results[0].type));
}

static void value_type_tail(shl_printer *pr, const shl_op *op, const char *const *elide) {
  pr_attr_dict(pr, op, elide);
  pr_puts(pr, " : ");
  pr_type(pr, op->operands[0]->type);
}

shl_status parse_sdy_sharded_value(shl_parser *p, op_state *os) {
  ST_TRY(p_operands(p, os, false));
  const shl_attr *s;
  ST_TRY(full_or_stripped(p, sdy_parse_sharding, is_sharding, "a sharding <@mesh, [...]>", &s));
  ST_TRY(os_attr(p, os, "sharding", s));
  return same_type_tail(p, os, true);
}

static const char *const sharding_elide[] = {"sharding", NULL};

void print_sdy_sharded_value(shl_printer *pr, const shl_op *op) {
  const shl_attr *s = op_attr(op, "sharding");
  if (!one_value(op, 1) || !sdy_attr_sharding(s)) {
    pr_generic_op(pr, op);
    return;
  }
  pp_name_operands(pr, op);
  pr_puts(pr, " ");
  pr_stripped(pr, s);
  value_type_tail(pr, op, sharding_elide);
}

shl_status parse_sdy_propagation_barrier(shl_parser *p, op_state *os) {
  ST_TRY(p_operands(p, os, false));
  ST_TRY(kw_eq(p, "allowed_direction"));
  shl_token vt = *p_tok(p);
  shl_str v;
  ST_TRY(p_bare_id(p, &v));
  if (!str_eq_c(v, "NONE") && !str_eq_c(v, "FORWARD") && !str_eq_c(v, "BACKWARD") && !str_eq_c(v, "BOTH"))
    return parse_error_at(p, &vt, "unknown propagation direction '%.*s' (NONE, FORWARD, BACKWARD or BOTH)", (int)v.n, v.p);
  const shl_attr *e = make_enum(p, "sdy", "propagation_direction", v);
  if (!e) return st_oom();
  ST_TRY(os_attr(p, os, "allowed_direction", e));
  return same_type_tail(p, os, true);
}

static const char *const barrier_elide[] = {"allowed_direction", NULL};

void print_sdy_propagation_barrier(shl_printer *pr, const shl_op *op) {
  shl_str dir = pp_enum_value(op_attr(op, "allowed_direction"));
  if (!one_value(op, 1) || !dir.n) {
    pr_generic_op(pr, op);
    return;
  }
  pp_name_operands(pr, op);
  pr_puts(pr, " allowed_direction=");
  pr_str(pr, dir);
  value_type_tail(pr, op, barrier_elide);
}

shl_status parse_sdy_sharding_group(shl_parser *p, op_state *os) {
  ST_TRY(p_operands(p, os, false));
  ST_TRY(kw_eq(p, "group_id"));
  ST_TRY(pp_int_attr(p, os, "group_id", &pp_i64));
  return same_type_tail(p, os, false);
}

static const char *const group_elide[] = {"group_id", NULL};

void print_sdy_sharding_group(shl_printer *pr, const shl_op *op) {
  int64_t id;
  if (!one_value(op, 0) || !attr_as_int(op_attr(op, "group_id"), &id)) {
    pr_generic_op(pr, op);
    return;
  }
  pp_name_operands(pr, op);
  pr_puts(pr, " group_id=");
  pr_int(pr, id);
  value_type_tail(pr, op, group_elide);
}

/* ------------------------------------------------------------------ computations with a body */

/* `name=[<...>, ...]` */
static shl_status shardings_kw(shl_parser *p, op_state *os, const char *kw) {
  ST_TRY(kw_eq(p, kw));
  const shl_attr *a;
  ST_TRY(sdy_parse_per_value(p, &a));
  return os_attr(p, os, kw, a);
}

/* `(%arg1: T, ...) {body} {attrs} : (T, ...) -> R` */
static shl_status body_and_signature(shl_parser *p, op_state *os) {
  ST_TRY(p_expect(p, '('));
  pp_arg *args = NULL;
  uint32_t n = 0, cap = 0;
  if (!p_punct(p, ')')) {
    for (;;) {
      if (n == cap) {
        uint32_t ncap = cap ? cap * 2 : 4;
        pp_arg *na = ARENA_ARRAY(p->a, pp_arg, ncap);
        if (!na) return st_oom();
        if (n) memcpy(na, args, n * sizeof *na);
        args = na;
        cap = ncap;
      }
      pp_arg *a = &args[n++];
      a->name = *p_tok(p);
      if (a->name.kind != TK_PERCENT_ID) return parse_error(p, "expected a region argument name");
      p_next(p);
      ST_TRY(p_expect(p, ':'));
      ST_TRY(p_type(p, &a->type));
      ST_TRY(p_loc(p, &a->loc));
      if (p_punct(p, ')')) break;
      ST_TRY(p_expect(p, ','));
    }
  }
  shl_block *entry;
  ST_TRY(pp_entry_block(p, n, args, &entry));
  shl_region *r = os_region(p, os);
  if (!r) return st_oom();
  ST_TRY(p_region(p, r, entry));
  p_scope_pop(p);
  ST_TRY(p_attr_dict(p, os));
  return pp_functional_sig(p, os);
}

static void print_body_and_signature(shl_printer *pr, const shl_op *op, const char *const *elide) {
  const shl_block *b = op->regions[0].blocks[0];
  pr_puts(pr, " (");
  for (uint32_t i = 0; i < b->n_args; i++) {
    if (i) pr_puts(pr, ", ");
    pr_value(pr, &b->args[i]);
    pr_puts(pr, ": ");
    pr_type(pr, b->args[i].type);
    pr_arg_loc(pr, b, i);
  }
  pr_puts(pr, ") ");
  pr_region(pr, &op->regions[0], false);
  pr_attr_dict(pr, op, elide);
  pr_puts(pr, " : ");
  pr_functional_type(pr, op);
}

static bool single_block(const shl_op *op) { return op->n_regions == 1 && op->regions[0].n_blocks == 1; }

/* `(%a, %b)` */
static shl_status paren_operands(shl_parser *p, op_state *os) {
  ST_TRY(p_expect(p, '('));
  if (p_punct(p, ')')) return NULL;
  ST_TRY(p_operands(p, os, false));
  return p_expect(p, ')');
}

static void print_paren_operands(shl_printer *pr, const shl_op *op) {
  pr_puts(pr, "(");
  pr_values(pr, op->operands, op->n_operands);
  pr_puts(pr, ")");
}

shl_status parse_sdy_manual_computation(shl_parser *p, op_state *os) {
  ST_TRY(paren_operands(p, os));
  ST_TRY(shardings_kw(p, os, "in_shardings"));
  ST_TRY(shardings_kw(p, os, "out_shardings"));
  ST_TRY(kw_eq(p, "manual_axes"));
  const shl_attr *axes;
  ST_TRY(sdy_parse_manual_axes(p, &axes));
  ST_TRY(os_attr(p, os, "manual_axes", axes));
  return body_and_signature(p, os);
}

static const char *const manual_elide[] = {"in_shardings", "out_shardings", "manual_axes", NULL};

void print_sdy_manual_computation(shl_printer *pr, const shl_op *op) {
  const shl_attr *in = op_attr(op, "in_shardings"), *out = op_attr(op, "out_shardings"), *axes = op_attr(op, "manual_axes");
  if (!single_block(op) || !sdy_attr_per_value(in) || !sdy_attr_per_value(out) || !sdy_attr_manual_axes(axes)) {
    pr_generic_op(pr, op);
    return;
  }
  pr_puts(pr, "sdy.manual_computation");
  print_paren_operands(pr, op);
  pr_puts(pr, " in_shardings=");
  pr_stripped(pr, in);
  pr_puts(pr, " out_shardings=");
  pr_stripped(pr, out);
  pr_puts(pr, " manual_axes=");
  pr_stripped(pr, axes);
  print_body_and_signature(pr, op, manual_elide);
}

shl_status parse_sdy_named_computation(shl_parser *p, op_state *os) {
  ST_TRY(p_expect(p, '<'));
  shl_str name;
  ST_TRY(p_string(p, &name));
  ST_TRY(os_attr(p, os, "name", attr_string(p->a, name)));
  ST_TRY(p_expect(p, '>'));
  ST_TRY(paren_operands(p, os));
  if (tok_kw(p_tok(p), "in_shardings")) ST_TRY(shardings_kw(p, os, "in_shardings"));
  if (tok_kw(p_tok(p), "out_shardings")) ST_TRY(shardings_kw(p, os, "out_shardings"));
  return body_and_signature(p, os);
}

static const char *const named_elide[] = {"name", "in_shardings", "out_shardings", NULL};

void print_sdy_named_computation(shl_printer *pr, const shl_op *op) {
  const shl_attr *name = op_attr(op, "name"), *in = op_attr(op, "in_shardings"), *out = op_attr(op, "out_shardings");
  if (!single_block(op) || !name || name->kind != AT_STRING || (in && !sdy_attr_per_value(in)) ||
      (out && !sdy_attr_per_value(out))) {
    pr_generic_op(pr, op);
    return;
  }
  pr_puts(pr, "sdy.named_computation<");
  pr_string_lit(pr, name->u.str);
  pr_puts(pr, ">");
  print_paren_operands(pr, op);
  if (in) {
    pr_puts(pr, " in_shardings=");
    pr_stripped(pr, in);
  }
  if (out) {
    pr_puts(pr, " out_shardings=");
    pr_stripped(pr, out);
  }
  print_body_and_signature(pr, op, named_elide);
}
