/* Pretty forms of the shape and data-movement ops: iota, broadcast_in_dim /
 * transpose / reverse (`dims = [..]`), broadcast, slice, dynamic_slice,
 * concatenate, pad, get_dimension_size, the dynamic-shape variants,
 * reduce_precision, rng and rng_bit_generator. */
#include "pretty_util.h"

#include <stdlib.h>

/* ` {attrs} : (A, B) -> R` with `elide` left out of the dictionary. */
static void attrs_functional(shl_printer *pr, const shl_op *op, const char *const *elide) {
  pr_attr_dict(pr, op, elide);
  pr_puts(pr, " : ");
  pr_functional_type(pr, op);
}

/* `%a, %b` then `, ` */
static void operands_comma(shl_printer *pr, const shl_op *op) {
  pp_name_operands(pr, op);
  pr_puts(pr, ", ");
}

/* ------------------------------------------------------------------ iota */

/* stablehlo.iota dim = 0 {attrs} : T */
shl_status parse_iota(shl_parser *p, op_state *os) {
  ST_TRY(pp_expect_kw_eq(p, "dim"));
  ST_TRY(pp_int_attr(p, os, "iota_dimension", &pp_i64));
  ST_TRY(p_attr_dict(p, os));
  ST_TRY(p_expect(p, ':'));
  const shl_type *t;
  ST_TRY(p_type(p, &t));
  return os_result(p, os, t);
}

static const char *const iota_elide[] = {"iota_dimension", NULL};

void print_iota(shl_printer *pr, const shl_op *op) {
  if (!pp_has_int(op, "iota_dimension") || op->n_results != 1 || op->n_operands) {
    pr_generic_op(pr, op);
    return;
  }
  pr_puts(pr, "stablehlo.iota dim = ");
  pr_attr_bare(pr, op_attr(op, "iota_dimension"));
  pr_attr_dict(pr, op, iota_elide);
  pr_puts(pr, " : ");
  pr_type(pr, op->results[0].type);
}

/* stablehlo.dynamic_iota %shape, dim = 0 {attrs} : (S) -> T */
shl_status parse_dynamic_iota(shl_parser *p, op_state *os) {
  ST_TRY(pp_operands_comma(p, os, 1));
  ST_TRY(pp_expect_kw_eq(p, "dim"));
  ST_TRY(pp_int_attr(p, os, "iota_dimension", &pp_i64));
  ST_TRY(p_attr_dict(p, os));
  return pp_functional_sig(p, os);
}

void print_dynamic_iota(shl_printer *pr, const shl_op *op) {
  if (!pp_has_int(op, "iota_dimension")) {
    pr_generic_op(pr, op);
    return;
  }
  operands_comma(pr, op);
  pr_puts(pr, "dim = ");
  pr_attr_bare(pr, op_attr(op, "iota_dimension"));
  attrs_functional(pr, op, iota_elide);
}

/* ------------------------------------------------------------------ dims = [..] */

static const char *dims_attr_name(const shl_opdef *def) {
  switch (def->id) {
    case OP_TRANSPOSE: return "permutation";
    case OP_REVERSE: return "dimensions";
    default: return "broadcast_dimensions";
  }
}

/* stablehlo.broadcast_in_dim %x, dims = [..] : (A) -> R   (transpose alike)
 * stablehlo.reverse %x, dims = [..] : T */
shl_status parse_dims_op(shl_parser *p, op_state *os) {
  ST_TRY(pp_operands_comma(p, os, 1));
  ST_TRY(pp_expect_kw_eq(p, "dims"));
  ST_TRY(pp_dims_attr(p, os, dims_attr_name(os->def)));
  ST_TRY(p_attr_dict(p, os));
  if (os->def->id == OP_REVERSE) return p_same_or_functional_type(p, os);
  return pp_functional_sig(p, os);
}

void print_dims_op(shl_printer *pr, const shl_op *op) {
  const char *name = dims_attr_name(op->def);
  if (!pp_has_ints(op, name)) {
    pr_generic_op(pr, op);
    return;
  }
  const char *const elide[] = {name, NULL};
  pp_name_operands(pr, op);
  pr_puts(pr, ", dims = ");
  pr_int_list(pr, op_attr(op, name));
  if (op_is(op, OP_REVERSE)) {
    pr_attr_dict(pr, op, elide);
    pr_same_or_functional_type(pr, op);
  } else {
    attrs_functional(pr, op, elide);
  }
}

/* stablehlo.broadcast %x, sizes = [..] : (A) -> R */
shl_status parse_broadcast(shl_parser *p, op_state *os) {
  ST_TRY(pp_operands_comma(p, os, 1));
  ST_TRY(pp_expect_kw_eq(p, "sizes"));
  ST_TRY(pp_dims_attr(p, os, "broadcast_sizes"));
  ST_TRY(p_attr_dict(p, os));
  return pp_functional_sig(p, os);
}

static const char *const broadcast_elide[] = {"broadcast_sizes", NULL};

void print_broadcast(shl_printer *pr, const shl_op *op) {
  if (!pp_has_ints(op, "broadcast_sizes")) {
    pr_generic_op(pr, op);
    return;
  }
  pp_name_operands(pr, op);
  pr_puts(pr, ", sizes = ");
  pr_int_list(pr, op_attr(op, "broadcast_sizes"));
  attrs_functional(pr, op, broadcast_elide);
}

/* stablehlo.dynamic_broadcast_in_dim %x, %shape, dims = [..] : (A, S) -> R */
shl_status parse_dynamic_broadcast_in_dim(shl_parser *p, op_state *os) {
  ST_TRY(pp_operands_comma(p, os, 2));
  ST_TRY(pp_expect_kw_eq(p, "dims"));
  ST_TRY(pp_dims_attr(p, os, "broadcast_dimensions"));
  ST_TRY(p_attr_dict(p, os));
  return pp_functional_sig(p, os);
}

static const char *const dbid_elide[] = {"broadcast_dimensions", NULL};

void print_dynamic_broadcast_in_dim(shl_printer *pr, const shl_op *op) {
  if (!pp_has_ints(op, "broadcast_dimensions")) {
    pr_generic_op(pr, op);
    return;
  }
  operands_comma(pr, op);
  pr_puts(pr, "dims = ");
  pr_int_list(pr, op_attr(op, "broadcast_dimensions"));
  attrs_functional(pr, op, dbid_elide);
}

/* ------------------------------------------------------------------ slices */

/* stablehlo.slice %x [0:2, 1:4:2] : (A) -> R   (stride 1 is not written) */
shl_status parse_slice(shl_parser *p, op_state *os) {
  shl_value *v;
  ST_TRY(p_operand(p, &v));
  ST_TRY(os_operand(p, os, v));
  ST_TRY(p_expect(p, '['));
  int64_t *vals = NULL; /* start, limit, stride per dimension */
  size_t n = 0, cap = 0;
  shl_status st = NULL;
  if (!p_punct(p, ']')) {
    for (;;) {
      if (n == cap) {
        cap = cap ? cap * 2 : 8;
        int64_t *nv = realloc(vals, cap * 3 * sizeof *nv);
        if (!nv) {
          st = st_oom();
          break;
        }
        vals = nv;
      }
      int64_t *r = &vals[n * 3];
      r[2] = 1;
      if ((st = p_int(p, &r[0])) || (st = p_expect(p, ':')) || (st = p_int(p, &r[1]))) break;
      if (p_punct(p, ':') && (st = p_int(p, &r[2]))) break;
      n++;
      if (p_punct(p, ',')) continue;
      st = p_expect(p, ']');
      break;
    }
  }
  static const char *const names[3] = {"start_indices", "limit_indices", "strides"};
  for (int k = 0; !st && k < 3; k++) {
    int64_t col[64], *c = n <= 64 ? col : malloc(n * sizeof *c);
    if (!c) {
      st = st_oom();
      break;
    }
    for (size_t i = 0; i < n; i++) c[i] = vals[i * 3 + k];
    const shl_attr *a = attr_dense_array_i64(p->a, c, (int64_t)n);
    if (c != col) free(c);
    st = a ? os_attr(p, os, names[k], a) : st_oom();
  }
  free(vals);
  ST_TRY(st);
  ST_TRY(p_attr_dict(p, os));
  return pp_functional_sig(p, os);
}

static const char *const slice_elide[] = {"start_indices", "limit_indices", "strides", NULL};

void print_slice(shl_printer *pr, const shl_op *op) {
  int64_t *start, *limit, *stride;
  size_t ns = 0, nl = 0, nt = 0;
  bool ok = pp_ints(op_attr(op, "start_indices"), &start, &ns);
  ok = pp_ints(op_attr(op, "limit_indices"), &limit, &nl) && ok;
  ok = pp_ints(op_attr(op, "strides"), &stride, &nt) && ok;
  if (ok && ns == nl && ns == nt && op->n_operands == 1) {
    pp_name_operands(pr, op);
    pr_puts(pr, " [");
    for (size_t i = 0; i < ns; i++) {
      if (i) pr_puts(pr, ", ");
      pr_printf(pr, "%lld:%lld", (long long)start[i], (long long)limit[i]);
      if (stride[i] != 1) pr_printf(pr, ":%lld", (long long)stride[i]);
    }
    pr_puts(pr, "]");
    attrs_functional(pr, op, slice_elide);
  } else {
    pr_generic_op(pr, op);
  }
  free(start);
  free(limit);
  free(stride);
}

/* stablehlo.dynamic_slice %x, %i0, %i1, sizes = [..] : (A, I, I) -> R */
shl_status parse_dynamic_slice(shl_parser *p, op_state *os) {
  ST_TRY(pp_operands_comma(p, os, 1));
  ST_TRY(pp_operands_with_attr(p, os));
  /* Without start indices (rank 0) the printed form has a lone comma. */
  if (os->n_operands == 1) p_punct(p, ',');
  ST_TRY(pp_expect_kw_eq(p, "sizes"));
  ST_TRY(pp_dims_attr(p, os, "slice_sizes"));
  ST_TRY(p_attr_dict(p, os));
  return pp_functional_sig(p, os);
}

static const char *const dynamic_slice_elide[] = {"slice_sizes", NULL};

void print_dynamic_slice(shl_printer *pr, const shl_op *op) {
  if (!pp_has_ints(op, "slice_sizes") || !op->n_operands) {
    pr_generic_op(pr, op);
    return;
  }
  /* The start indices are written like custom<VariadicOperandWithAttribute>:
   * each followed by a comma (a lone comma when there are none). */
  pr_puts(pr, "stablehlo.dynamic_slice ");
  pr_value(pr, op->operands[0]);
  pr_puts(pr, ", ");
  pr_values(pr, op->operands + 1, op->n_operands - 1);
  pr_puts(pr, ", sizes = ");
  pr_int_list(pr, op_attr(op, "slice_sizes"));
  attrs_functional(pr, op, dynamic_slice_elide);
}

/* stablehlo.concatenate %a, %b, dim = 0 : (A, B) -> R */
shl_status parse_concatenate(shl_parser *p, op_state *os) {
  ST_TRY(pp_operands_with_attr(p, os));
  ST_TRY(pp_expect_kw_eq(p, "dim"));
  ST_TRY(pp_int_attr(p, os, "dimension", &pp_i64));
  ST_TRY(p_attr_dict(p, os));
  return pp_functional_sig(p, os);
}

static const char *const dimension_elide[] = {"dimension", NULL};

void print_concatenate(shl_printer *pr, const shl_op *op) {
  if (!pp_has_int(op, "dimension")) {
    pr_generic_op(pr, op);
    return;
  }
  pr_puts(pr, "stablehlo.concatenate ");
  pr_values(pr, op->operands, op->n_operands);
  pr_puts(pr, ", dim = ");
  pr_attr_bare(pr, op_attr(op, "dimension"));
  attrs_functional(pr, op, dimension_elide);
}

/* stablehlo.pad %x, %v, low = [..], high = [..], interior = [..] : (A, V) -> R */
shl_status parse_pad(shl_parser *p, op_state *os) {
  ST_TRY(pp_operands_comma(p, os, 2));
  ST_TRY(pp_expect_kw_eq(p, "low"));
  ST_TRY(pp_dims_attr(p, os, "edge_padding_low"));
  ST_TRY(p_expect(p, ','));
  ST_TRY(pp_expect_kw_eq(p, "high"));
  ST_TRY(pp_dims_attr(p, os, "edge_padding_high"));
  ST_TRY(p_expect(p, ','));
  ST_TRY(pp_expect_kw_eq(p, "interior"));
  ST_TRY(pp_dims_attr(p, os, "interior_padding"));
  ST_TRY(p_attr_dict(p, os));
  return pp_functional_sig(p, os);
}

static const char *const pad_elide[] = {"edge_padding_low", "edge_padding_high", "interior_padding", NULL};

void print_pad(shl_printer *pr, const shl_op *op) {
  if (!pp_has_ints(op, "edge_padding_low") || !pp_has_ints(op, "edge_padding_high") ||
      !pp_has_ints(op, "interior_padding")) {
    pr_generic_op(pr, op);
    return;
  }
  operands_comma(pr, op);
  pr_puts(pr, "low = ");
  pr_int_list(pr, op_attr(op, "edge_padding_low"));
  pr_puts(pr, ", high = ");
  pr_int_list(pr, op_attr(op, "edge_padding_high"));
  pr_puts(pr, ", interior = ");
  pr_int_list(pr, op_attr(op, "interior_padding"));
  attrs_functional(pr, op, pad_elide);
}

/* stablehlo.get_dimension_size %x, dim = 1 : (A) -> tensor<i32> */
/* stablehlo.get_dimension_size %x, dim = 0 : (A) -> R
 * stablehlo.set_dimension_size %x, %size, dim = 0 : (A, S) -> R */
shl_status parse_get_dimension_size(shl_parser *p, op_state *os) {
  ST_TRY(pp_operands_comma(p, os, os->def->id == OP_SET_DIMENSION_SIZE ? 2 : 1));
  ST_TRY(pp_expect_kw_eq(p, "dim"));
  ST_TRY(pp_int_attr(p, os, "dimension", &pp_i64));
  ST_TRY(p_attr_dict(p, os));
  return pp_functional_sig(p, os);
}

void print_get_dimension_size(shl_printer *pr, const shl_op *op) {
  if (!pp_has_int(op, "dimension")) {
    pr_generic_op(pr, op);
    return;
  }
  operands_comma(pr, op);
  pr_puts(pr, "dim = ");
  pr_attr_bare(pr, op_attr(op, "dimension"));
  attrs_functional(pr, op, dimension_elide);
}

/* ------------------------------------------------------------------ precision, rng */

/* `e5m10` -> {5, 10} */
static bool exponent_mantissa(shl_str f, int64_t v[2]) {
  size_t i = 0;
  for (int part = 0; part < 2; part++) {
    if (i >= f.n || f.p[i] != (part ? 'm' : 'e')) return false;
    size_t start = ++i;
    for (v[part] = 0; i < f.n && f.p[i] >= '0' && f.p[i] <= '9' && i - start < 9; i++)
      v[part] = v[part] * 10 + (f.p[i] - '0');
    if (i == start) return false;
  }
  return i == f.n;
}

/* stablehlo.reduce_precision %x, format = e5m10 : T */
shl_status parse_reduce_precision(shl_parser *p, op_state *os) {
  ST_TRY(pp_operands_comma(p, os, 1));
  ST_TRY(pp_expect_kw_eq(p, "format"));
  shl_token t = *p_tok(p);
  shl_str f;
  int64_t v[2];
  ST_TRY(p_bare_id(p, &f));
  if (!exponent_mantissa(f, v))
    return parse_error_at(p, &t, "expected exponent mantissa in format e#m#, saw %.*s", (int)f.n, f.p);
  shl_attr *e = attr_int(p->a, &pp_i32, v[0]), *m = attr_int(p->a, &pp_i32, v[1]);
  if (!e || !m) return st_oom();
  ST_TRY(os_attr(p, os, "exponent_bits", e));
  ST_TRY(os_attr(p, os, "mantissa_bits", m));
  ST_TRY(p_attr_dict(p, os));
  return p_same_or_functional_type(p, os);
}

static const char *const reduce_precision_elide[] = {"exponent_bits", "mantissa_bits", NULL};

void print_reduce_precision(shl_printer *pr, const shl_op *op) {
  int64_t e, m;
  if (!attr_as_int(op_attr(op, "exponent_bits"), &e) || !attr_as_int(op_attr(op, "mantissa_bits"), &m)) {
    pr_generic_op(pr, op);
    return;
  }
  operands_comma(pr, op);
  pr_printf(pr, "format = e%lldm%lld", (long long)e, (long long)m);
  pr_attr_dict(pr, op, reduce_precision_elide);
  pr_same_or_functional_type(pr, op);
}

/* stablehlo.rng %a, %b, %shape, distribution = UNIFORM : (A, B, S) -> R
 * (enum values print with a leading space, hence `=  UNIFORM`) */
shl_status parse_rng(shl_parser *p, op_state *os) {
  ST_TRY(pp_operands_comma(p, os, 3));
  ST_TRY(pp_expect_kw_eq(p, "distribution"));
  ST_TRY(pp_enum_attr(p, os, "rng_distribution", "rng_distribution"));
  ST_TRY(p_attr_dict(p, os));
  return pp_functional_sig(p, os);
}

static const char *const rng_elide[] = {"rng_distribution", NULL};

void print_rng(shl_printer *pr, const shl_op *op) {
  shl_str v = pp_enum_value(op_attr(op, "rng_distribution"));
  if (!v.n) {
    pr_generic_op(pr, op);
    return;
  }
  operands_comma(pr, op);
  pr_puts(pr, "distribution =  ");
  pr_str(pr, v);
  attrs_functional(pr, op, rng_elide);
}

/* %state, %out = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (S) -> (S, R) */
shl_status parse_rng_bit_generator(shl_parser *p, op_state *os) {
  ST_TRY(pp_operands_comma(p, os, 1));
  ST_TRY(pp_expect_kw_eq(p, "algorithm"));
  ST_TRY(pp_enum_attr(p, os, "rng_algorithm", "rng_algorithm"));
  ST_TRY(p_attr_dict(p, os));
  return pp_functional_sig(p, os);
}

static const char *const rbg_elide[] = {"rng_algorithm", NULL};

void print_rng_bit_generator(shl_printer *pr, const shl_op *op) {
  shl_str v = pp_enum_value(op_attr(op, "rng_algorithm"));
  if (!v.n) {
    pr_generic_op(pr, op);
    return;
  }
  operands_comma(pr, op);
  pr_puts(pr, "algorithm =  ");
  pr_str(pr, v);
  attrs_functional(pr, op, rbg_elide);
}
