/* Pretty form of chlo.scan (ScanOp's custom parser and printer upstream):
 *
 *   %0:2 = chlo.scan(%x) inits (%c) dimension=0  attributes {is_reverse = true} {
 *   ^bb0(%input: tensor<3xf32>, %carry: tensor<3xf32>):
 *     ...
 *   } : (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>)
 *
 * The operand and result split (inputs/inits, outputs/carries) is kept in the
 * properties operandSegmentSizes and resultSegmentSizes, as MLIR stores them. */
#include "pretty_util.h"

/* array<i32: a, b> */
static const shl_attr *segment_sizes(shl_parser *p, uint32_t a, uint32_t b) {
  shl_attr *at = attr_new(p->a, AT_DENSE_ARRAY);
  int32_t *v = ARENA_ARRAY(p->a, int32_t, 2);
  if (!at || !v) return NULL;
  v[0] = (int32_t)a;
  v[1] = (int32_t)b;
  at->type = &pp_i32;
  at->u.darr.n = 2;
  at->u.darr.data = v;
  return at;
}

/* `(%a, ...)`, possibly empty */
static shl_status paren_operands(shl_parser *p, op_state *os) {
  ST_TRY(p_expect(p, '('));
  if (p_punct(p, ')')) return NULL;
  ST_TRY(p_operands(p, os, false));
  return p_expect(p, ')');
}

shl_status parse_scan(shl_parser *p, op_state *os) {
  shl_token at = *p_tok(p);
  ST_TRY(paren_operands(p, os));
  uint32_t n_inputs = os->n_operands;
  ST_TRY(p_expect_kw(p, "inits"));
  ST_TRY(paren_operands(p, os));
  uint32_t n_inits = os->n_operands - n_inputs;
  ST_TRY(pp_expect_kw_eq(p, "dimension"));
  ST_TRY(pp_int_attr(p, os, "dimension", &pp_i64));
  if (p_kw(p, "attributes")) {
    if (!tok_punct(p_tok(p), '{')) return parse_error(p, "expected '{' after 'attributes'");
    ST_TRY(p_attr_dict(p, os));
  }
  if (!tok_punct(p_tok(p), '{')) return parse_error(p, "expected the scan body");
  shl_region *r = os_region(p, os);
  if (!r) return st_oom();
  ST_TRY(p_scope_push(p, true)); /* isolated from above */
  shl_status st = p_region(p, r, NULL);
  p_scope_pop(p);
  ST_TRY(st);
  ST_TRY(p_expect(p, ':'));
  ST_TRY(p_functional_type(p, os));
  if (os->n_results < n_inits) return parse_error_at(p, &at, "not enough result types to cover the required carries");
  const shl_attr *ops = segment_sizes(p, n_inputs, n_inits);
  const shl_attr *res = segment_sizes(p, os->n_results - n_inits, n_inits);
  if (!ops || !res) return st_oom();
  ST_TRY(os_attr(p, os, "operandSegmentSizes", ops));
  return os_attr(p, os, "resultSegmentSizes", res);
}

static const char *const scan_elide[] = {"dimension", "operandSegmentSizes", "resultSegmentSizes", NULL};

void print_scan(shl_printer *pr, const shl_op *op) {
  int64_t seg[2];
  size_t n = 0;
  if (!pp_has_int(op, "dimension") || op->n_regions != 1 || op->regions[0].n_blocks != 1 ||
      !attr_as_ints(op_attr(op, "operandSegmentSizes"), seg, 2, &n) || n != 2 || seg[0] < 0 || seg[1] < 0 ||
      seg[0] + seg[1] != (int64_t)op->n_operands) {
    pr_generic_op(pr, op);
    return;
  }
  pr_puts(pr, "chlo.scan(");
  pr_values(pr, op->operands, (uint32_t)seg[0]);
  pr_puts(pr, ") inits (");
  pr_values(pr, op->operands + seg[0], (uint32_t)seg[1]);
  pr_puts(pr, ") dimension=");
  pr_attr_bare(pr, op_attr(op, "dimension"));
  /* upstream prints a space here and another before the region */
  pr_puts(pr, " ");
  bool any = false;
  for (uint32_t i = 0; i < op->n_attrs && !any; i++) {
    bool hidden = false;
    for (const char *const *e = scan_elide; *e; e++) hidden |= str_eq_c(op->attrs[i].name, *e);
    any = !hidden;
  }
  if (any) pr_puts(pr, " attributes");
  pr_attr_dict(pr, op, scan_elide);
  pr_puts(pr, " ");
  pr_region(pr, &op->regions[0], true);
  pr_puts(pr, " : ");
  pr_functional_type(pr, op);
}
