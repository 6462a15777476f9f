/* Pretty forms of the linear-algebra and signal ops: dot_general, dot,
 * convolution, fft, cholesky, einsum / unary_einsum and chlo.top_k. */
#include "pretty_util.h"

#include <stdlib.h>

shl_status p_conv_dims(shl_parser *p, const shl_attr **out);

static void attrs_functional(shl_printer *pr, const shl_op *op, const char *const *elide) {
  pr_attr_dict(pr, op, elide);
  pr_puts(pr, " : ");
  pr_functional_type(pr, op);
}

/* ------------------------------------------------------------------ precision, algorithm */

/* `precision = [DEFAULT, HIGH]` -> [#stablehlo<precision DEFAULT>, ...] */
static shl_status precision_list(shl_parser *p, op_state *os) {
  ST_TRY(pp_expect_kw_eq(p, "precision"));
  ST_TRY(p_expect(p, '['));
  const shl_attr **items = NULL;
  uint32_t n = 0, cap = 0;
  if (!p_punct(p, ']')) {
    for (;;) {
      shl_str v;
      ST_TRY(p_bare_id(p, &v));
      if (n == cap) {
        cap = cap ? cap * 2 : 4;
        const shl_attr **ni = ARENA_ARRAY(p->a, const shl_attr *, cap);
        if (!ni) return st_oom();
        if (n) memcpy(ni, items, n * sizeof *ni);
        items = ni;
      }
      items[n] = make_enum(p, "stablehlo", "precision", v);
      if (!items[n++]) return st_oom();
      if (!p_punct(p, ',')) break;
    }
    ST_TRY(p_expect(p, ']'));
  }
  shl_attr *a = attr_new(p->a, AT_ARRAY);
  if (!a) return st_oom();
  a->u.arr.n = n;
  a->u.arr.items = items;
  return os_attr(p, os, "precision_config", a);
}

/* `<lhs_precision_type = tf32, ..., allow_imprecise_accumulation = false>`:
 * the fields of #stablehlo.dot_algorithm<...>, stored as that attribute's
 * generic spelling would be. */
static shl_status dot_algorithm(shl_parser *p, op_state *os) {
  ST_TRY(p_expect(p, '<'));
  shl_named_attr *f = NULL;
  uint32_t n = 0, cap = 0;
  while (!tok_punct(p_tok(p), '>')) {
    shl_str name;
    ST_TRY(p_bare_id(p, &name));
    ST_TRY(p_expect(p, '='));
    const shl_attr *v;
    if (tok_punct(p_tok(p), '[')) ST_TRY(p_int_list(p, false, &v));
    else ST_TRY(p_attr(p, &v));
    if (n == cap) {
      cap = cap ? cap * 2 : 8;
      shl_named_attr *nf = ARENA_ARRAY(p->a, shl_named_attr, cap);
      if (!nf) return st_oom();
      if (n) memcpy(nf, f, n * sizeof *nf);
      f = nf;
    }
    f[n++] = (shl_named_attr){name, v, false};
    if (!p_punct(p, ',')) break;
  }
  ST_TRY(p_expect(p, '>'));
  shl_attr *a = attr_new(p->a, AT_STRUCT);
  if (!a) return st_oom();
  a->u.st.name = STR_LIT("stablehlo.dot_algorithm");
  a->u.st.n = n;
  a->u.st.fields = f;
  return os_attr(p, os, "algorithm", a);
}

/* [`, precision = [..]`] [`, algorithm = <..>`] */
static shl_status precision_and_algorithm(shl_parser *p, op_state *os, bool with_algorithm) {
  if (!p_punct(p, ',')) return NULL;
  if (with_algorithm && p_kw(p, "algorithm")) {
    ST_TRY(p_expect(p, '='));
    return dot_algorithm(p, os);
  }
  ST_TRY(precision_list(p, os));
  if (!with_algorithm || !p_punct(p, ',')) return NULL;
  ST_TRY(pp_expect_kw_eq(p, "algorithm"));
  return dot_algorithm(p, os);
}

/* False when the op's precision_config / algorithm cannot be written in the
 * pretty form (then the whole op is printed generically). */
static bool precision_printable(const shl_op *op) {
  const shl_attr *pc = op_attr(op, "precision_config"), *al = op_attr(op, "algorithm");
  if (pc) {
    if (pc->kind != AT_ARRAY) return false;
    for (uint32_t i = 0; i < pc->u.arr.n; i++)
      if (pc->u.arr.items[i]->kind != AT_ENUM) return false;
  }
  return !al || al->kind == AT_STRUCT ||
         (al->kind == AT_OPAQUE && str_starts(al->u.str, "#stablehlo.dot_algorithm<"));
}

static void print_precision_and_algorithm(shl_printer *pr, const shl_op *op) {
  const shl_attr *pc = op_attr(op, "precision_config"), *al = op_attr(op, "algorithm");
  if (pc) {
    pr_puts(pr, ", precision = [");
    for (uint32_t i = 0; i < pc->u.arr.n; i++) {
      if (i) pr_puts(pr, ", ");
      pr_str(pr, pc->u.arr.items[i]->u.en.value);
    }
    pr_puts(pr, "]");
  }
  if (!al) return;
  pr_puts(pr, ", algorithm = ");
  if (al->kind == AT_OPAQUE) { /* the stripped form: without `#stablehlo.dot_algorithm` */
    size_t skip = strlen("#stablehlo.dot_algorithm");
    pr_putn(pr, al->u.str.p + skip, al->u.str.n - skip);
    return;
  }
  pr_puts(pr, "<");
  for (uint32_t i = 0; i < al->u.st.n; i++) {
    if (i) pr_puts(pr, ", ");
    pr_str(pr, al->u.st.fields[i].name);
    pr_puts(pr, " = ");
    pr_attr_bare(pr, al->u.st.fields[i].attr);
  }
  pr_puts(pr, ">");
}

/* ------------------------------------------------------------------ dot_general, dot */

static const char *const dot_fields[4] = {"lhs_batching_dimensions", "rhs_batching_dimensions",
                                          "lhs_contracting_dimensions", "rhs_contracting_dimensions"};

/* `[..] x [..]` */
static shl_status lhs_rhs_dims(shl_parser *p, const shl_attr **lhs, const shl_attr **rhs) {
  ST_TRY(p_int_list(p, false, lhs));
  ST_TRY(p_expect_kw(p, "x"));
  return p_int_list(p, false, rhs);
}

/* stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1],
 *   precision = [..], algorithm = <..> : (A, B) -> R
 * stored as dot_dimension_numbers = #stablehlo.dot<...> (empty lists left out). */
shl_status parse_dot_general(shl_parser *p, op_state *os) {
  ST_TRY(pp_operands_comma(p, os, 2));
  const shl_attr *dims[4] = {NULL, NULL, NULL, NULL};
  if (p_kw(p, "batching_dims")) {
    ST_TRY(p_expect(p, '='));
    ST_TRY(lhs_rhs_dims(p, &dims[0], &dims[1]));
    ST_TRY(p_expect(p, ','));
  }
  ST_TRY(pp_expect_kw_eq(p, "contracting_dims"));
  ST_TRY(lhs_rhs_dims(p, &dims[2], &dims[3]));
  shl_named_attr *f = ARENA_ARRAY(p->a, shl_named_attr, 4);
  shl_attr *dn = attr_new(p->a, AT_STRUCT);
  if (!f || !dn) return st_oom();
  uint32_t n = 0;
  for (int i = 0; i < 4; i++)
    if (dims[i] && dims[i]->u.ints.n) f[n++] = (shl_named_attr){str_of(dot_fields[i]), dims[i], false};
  dn->u.st.name = STR_LIT("stablehlo.dot");
  dn->u.st.n = n;
  dn->u.st.fields = f;
  ST_TRY(os_attr(p, os, "dot_dimension_numbers", dn));
  ST_TRY(precision_and_algorithm(p, os, true));
  ST_TRY(p_attr_dict(p, os));
  return pp_functional_sig(p, os);
}

static const char *const dot_general_elide[] = {"dot_dimension_numbers", "precision_config", "algorithm", NULL};

static bool empty_dims(const shl_attr *a) {
  size_t n = 0;
  return !attr_as_ints(a, NULL, 0, &n) || n == 0;
}

void print_dot_general(shl_printer *pr, const shl_op *op) {
  const shl_attr *dn = op_attr(op, "dot_dimension_numbers");
  if (!dn || dn->kind != AT_STRUCT || op->n_operands != 2 || !precision_printable(op)) {
    pr_generic_op(pr, op);
    return;
  }
  const shl_attr *d[4];
  for (int i = 0; i < 4; i++) d[i] = attr_struct_field(dn, dot_fields[i]);
  pp_name_operands(pr, op);
  pr_puts(pr, ", ");
  if (!empty_dims(d[0]) || !empty_dims(d[1])) {
    pr_puts(pr, "batching_dims = ");
    pr_int_list(pr, d[0]);
    pr_puts(pr, " x ");
    pr_int_list(pr, d[1]);
    pr_puts(pr, ", ");
  }
  pr_puts(pr, "contracting_dims = ");
  pr_int_list(pr, d[2]);
  pr_puts(pr, " x ");
  pr_int_list(pr, d[3]);
  print_precision_and_algorithm(pr, op);
  attrs_functional(pr, op, dot_general_elide);
}

/* stablehlo.dot %a, %b, precision = [..] : (A, B) -> R */
shl_status parse_dot(shl_parser *p, op_state *os) {
  shl_value *v;
  ST_TRY(p_operand(p, &v));
  ST_TRY(os_operand(p, os, v));
  ST_TRY(p_expect(p, ','));
  ST_TRY(p_operand(p, &v));
  ST_TRY(os_operand(p, os, v));
  ST_TRY(precision_and_algorithm(p, os, false));
  ST_TRY(p_attr_dict(p, os));
  return pp_functional_sig(p, os);
}

static const char *const dot_elide[] = {"precision_config", NULL};

void print_dot(shl_printer *pr, const shl_op *op) {
  if (op_attr(op, "algorithm") || !precision_printable(op)) {
    pr_generic_op(pr, op);
    return;
  }
  pp_name_operands(pr, op);
  print_precision_and_algorithm(pr, op);
  attrs_functional(pr, op, dot_elide);
}

/* ------------------------------------------------------------------ convolution */

enum { W_STRIDE, W_PAD, W_LHS, W_RHS, W_REVERSE, W_COUNT };
static const char *const window_kw[W_COUNT] = {"stride", "pad", "lhs_dilate", "rhs_dilate", "reverse"};
static const char *const window_attr[W_COUNT] = {"window_strides", "padding", "lhs_dilation", "rhs_dilation",
                                                 "window_reversal"};

/* `[[lo, hi], ...]` -> dense<...> : tensor<Nx2xi64> */
static shl_status window_padding(shl_parser *p, const shl_attr **out) {
  ST_TRY(p_expect(p, '['));
  int64_t *v = NULL;
  size_t n = 0, cap = 0;
  shl_status st = NULL;
  if (!p_punct(p, ']')) {
    for (;;) {
      if (n + 2 > cap) {
        cap = cap ? cap * 2 : 16;
        int64_t *nv = realloc(v, cap * sizeof *nv);
        if (!nv) {
          st = st_oom();
          break;
        }
        v = nv;
      }
      if ((st = p_expect(p, '[')) || (st = p_int(p, &v[n])) || (st = p_expect(p, ',')) ||
          (st = p_int(p, &v[n + 1])) || (st = p_expect(p, ']')))
        break;
      n += 2;
      if (p_punct(p, ',')) continue;
      st = p_expect(p, ']');
      break;
    }
  }
  if (st) {
    free(v);
    return st;
  }
  /* All-equal data is stored as a splat, as MLIR does. */
  bool splat = n > 0;
  for (size_t i = 1; splat && i < n; i++) splat = v[i] == v[0];
  size_t count = splat ? 1 : n;
  int64_t dims[2] = {(int64_t)n / 2, 2};
  const shl_type *t = type_tensor(p->a, DT_I64, 2, dims);
  shl_attr *a = attr_new(p->a, AT_DENSE);
  void *data = count ? arena_memdup(p->a, v, count * sizeof *v) : arena_alloc(p->a, 1);
  free(v);
  if (!t || !a || !data) return st_oom();
  a->type = t;
  a->u.dense.storage = data;
  a->u.dense.nbytes = count * sizeof(int64_t);
  a->u.dense.splat = count == 1;
  *out = a;
  return NULL;
}

/* `[true, false]` (or 1/0) -> array<i1: true, false> */
static shl_status window_reversal(shl_parser *p, const shl_attr **out) {
  ST_TRY(p_expect(p, '['));
  uint8_t buf[64];
  int64_t n = 0;
  if (!p_punct(p, ']')) {
    for (;;) {
      if (n == 64) return parse_error(p, "too many window dimensions");
      if (p_kw(p, "true")) buf[n++] = 1;
      else if (p_kw(p, "false")) buf[n++] = 0;
      else {
        int64_t b;
        ST_TRY(p_int(p, &b));
        buf[n++] = b != 0;
      }
      if (!p_punct(p, ',')) break;
    }
    ST_TRY(p_expect(p, ']'));
  }
  shl_attr *a = attr_new(p->a, AT_DENSE_ARRAY);
  void *data = arena_memdup(p->a, buf, n ? (size_t)n : 1);
  if (!a || !data) return st_oom();
  a->type = &pp_i1;
  a->u.darr.n = n;
  a->u.darr.data = data;
  *out = a;
  return NULL;
}

/* `stride = [..], pad = [[..]], lhs_dilate = [..], rhs_dilate = [..], reverse = [..]`,
 * each optional, any order. */
static shl_status window_attrs(shl_parser *p, op_state *os) {
  bool seen[W_COUNT] = {false};
  while (p_tok(p)->kind == TK_BARE_ID) {
    shl_token t = *p_tok(p);
    int k = 0;
    while (k < W_COUNT && !str_eq_c(t.text, window_kw[k])) k++;
    if (k == W_COUNT) return parse_error(p, "unexpected keyword '%.*s' in convolution window", (int)t.text.n, t.text.p);
    if (seen[k]) return parse_error(p, "duplicate '%s' in convolution window", window_kw[k]);
    seen[k] = true;
    p_next(p);
    ST_TRY(p_expect(p, '='));
    const shl_attr *a;
    if (k == W_PAD) ST_TRY(window_padding(p, &a));
    else if (k == W_REVERSE) ST_TRY(window_reversal(p, &a));
    else ST_TRY(p_int_list(p, true, &a));
    ST_TRY(os_attr(p, os, window_attr[k], a));
    if (!p_punct(p, ',')) break;
  }
  return NULL;
}

/* stablehlo.convolution(%lhs, %rhs) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
 *   window = {stride = [..], pad = [[..]], ...} {attrs} : (L, R) -> O */
shl_status parse_convolution(shl_parser *p, op_state *os) {
  ST_TRY(p_expect(p, '('));
  ST_TRY(p_operands(p, os, false));
  ST_TRY(p_expect(p, ')'));
  ST_TRY(pp_expect_kw_eq(p, "dim_numbers"));
  const shl_attr *dn;
  ST_TRY(p_conv_dims(p, &dn));
  ST_TRY(os_attr(p, os, "dimension_numbers", dn));
  ST_TRY(p_expect(p, ','));
  ST_TRY(pp_expect_kw_eq(p, "window"));
  ST_TRY(p_expect(p, '{'));
  ST_TRY(window_attrs(p, os));
  ST_TRY(p_expect(p, '}'));
  ST_TRY(p_attr_dict(p, os));
  return pp_functional_sig(p, os);
}

static const char *const conv_elide[] = {"dimension_numbers", "window_strides", "padding", "lhs_dilation",
                                         "rhs_dilation", "window_reversal", NULL};

void print_convolution(shl_printer *pr, const shl_op *op) {
  const shl_attr *dn = op_attr(op, "dimension_numbers");
  bool ok = dn && dn->kind == AT_STRUCT && str_eq_c(dn->u.st.name, "stablehlo.conv") &&
            attr_struct_field(dn, "input_batch_dimension");
  size_t n;
  for (int k = 0; ok && k < W_COUNT; k++) {
    const shl_attr *a = op_attr(op, window_attr[k]);
    ok = !a || (attr_as_ints(a, NULL, 0, &n) && (k != W_PAD || n % 2 == 0));
  }
  if (!ok) {
    pr_generic_op(pr, op);
    return;
  }
  pr_puts(pr, "stablehlo.convolution(");
  pr_values(pr, op->operands, op->n_operands);
  pr_puts(pr, ") dim_numbers = ");
  pr_conv_dims(pr, dn);
  pr_puts(pr, ", window = {");
  bool first = true;
  for (int k = 0; k < W_COUNT; k++) {
    const shl_attr *a = op_attr(op, window_attr[k]);
    if (!a) continue;
    if (!first) pr_puts(pr, ", ");
    first = false;
    pr_puts(pr, window_kw[k]);
    pr_puts(pr, " = ");
    if (k != W_PAD && k != W_REVERSE) {
      pr_int_list(pr, a);
      continue;
    }
    int64_t *v;
    pp_ints(a, &v, &n);
    pr_puts(pr, "[");
    for (size_t i = 0; v && i < n; i++) {
      if (k == W_REVERSE) pr_printf(pr, "%s%s", i ? ", " : "", v[i] ? "true" : "false");
      else if (i % 2 == 0) pr_printf(pr, "%s[%lld, %lld]", i ? ", " : "", (long long)v[i], (long long)v[i + 1]);
    }
    pr_puts(pr, "]");
    free(v);
  }
  pr_puts(pr, "}");
  attrs_functional(pr, op, conv_elide);
}

/* ------------------------------------------------------------------ fft, cholesky, einsum */

/* stablehlo.fft %x, type = FFT, length = [4] : (A) -> R */
shl_status parse_fft(shl_parser *p, op_state *os) {
  ST_TRY(pp_operands_comma(p, os, 1));
  ST_TRY(pp_expect_kw_eq(p, "type"));
  ST_TRY(pp_enum_attr(p, os, "fft_type", "fft_type"));
  ST_TRY(p_expect(p, ','));
  ST_TRY(pp_expect_kw_eq(p, "length"));
  ST_TRY(pp_dims_attr(p, os, "fft_length"));
  ST_TRY(p_attr_dict(p, os));
  return pp_functional_sig(p, os);
}

static const char *const fft_elide[] = {"fft_type", "fft_length", NULL};

void print_fft(shl_printer *pr, const shl_op *op) {
  shl_str v = pp_enum_value(op_attr(op, "fft_type"));
  if (!v.n || !pp_has_ints(op, "fft_length")) {
    pr_generic_op(pr, op);
    return;
  }
  pp_name_operands(pr, op);
  pr_puts(pr, ", type =  "); /* enum values print with a leading space */
  pr_str(pr, v);
  pr_puts(pr, ", length = ");
  pr_int_list(pr, op_attr(op, "fft_length"));
  attrs_functional(pr, op, fft_elide);
}

/* stablehlo.cholesky %a, lower = true : T   (`lower = false` is the default and not written) */
shl_status parse_cholesky(shl_parser *p, op_state *os) {
  shl_value *v;
  ST_TRY(p_operand(p, &v));
  ST_TRY(os_operand(p, os, v));
  if (p_punct(p, ',')) {
    ST_TRY(pp_expect_kw_eq(p, "lower"));
    bool b = tok_kw(p_tok(p), "true");
    if (!b && !tok_kw(p_tok(p), "false")) return parse_error(p, "expected 'true' or 'false'");
    p_next(p);
    shl_attr *a = attr_bool(p->a, b);
    if (!a) return st_oom();
    ST_TRY(os_attr(p, os, "lower", a));
  }
  ST_TRY(p_attr_dict(p, os));
  return p_same_or_functional_type(p, os);
}

static const char *const cholesky_elide[] = {"lower", NULL};

void print_cholesky(shl_printer *pr, const shl_op *op) {
  const shl_attr *lower = op_attr(op, "lower");
  if (lower && lower->kind != AT_BOOL) {
    pr_generic_op(pr, op);
    return;
  }
  pp_name_operands(pr, op);
  if (lower && lower->u.b) pr_puts(pr, ", lower = true");
  pr_attr_dict(pr, op, cholesky_elide);
  pr_same_or_functional_type(pr, op);
}

/* stablehlo.einsum %a, %b, config = "ab,bc->ac" : (A, B) -> R   (unary_einsum: one operand) */
shl_status parse_einsum(shl_parser *p, op_state *os) {
  ST_TRY(pp_operands_comma(p, os, os->def->id == OP_EINSUM ? 2 : 1));
  ST_TRY(pp_expect_kw_eq(p, "config"));
  shl_str s;
  ST_TRY(p_string(p, &s));
  shl_attr *a = attr_string(p->a, s);
  if (!a) return st_oom();
  ST_TRY(os_attr(p, os, "einsum_config", a));
  ST_TRY(p_attr_dict(p, os));
  return pp_functional_sig(p, os);
}

static const char *const einsum_elide[] = {"einsum_config", NULL};

void print_einsum(shl_printer *pr, const shl_op *op) {
  const shl_attr *c = op_attr(op, "einsum_config");
  if (!c || c->kind != AT_STRING || c->type) {
    pr_generic_op(pr, op);
    return;
  }
  pp_name_operands(pr, op);
  pr_puts(pr, ", config = ");
  pr_string_lit(pr, c->u.str);
  attrs_functional(pr, op, einsum_elide);
}

/* ------------------------------------------------------------------ chlo.top_k */

/* %values, %indices = chlo.top_k(%x, k = 2) {attrs} : T -> (V, I) */
shl_status parse_top_k(shl_parser *p, op_state *os) {
  ST_TRY(p_expect(p, '('));
  ST_TRY(pp_operands_comma(p, os, 1));
  ST_TRY(pp_expect_kw_eq(p, "k"));
  ST_TRY(pp_int_attr(p, os, "k", &pp_i64));
  if (p_punct(p, ',')) {
    ST_TRY(pp_expect_kw_eq(p, "is_stable"));
    shl_token at = *p_tok(p);
    const shl_attr *b;
    ST_TRY(p_attr(p, &b));
    if (b->kind != AT_BOOL) return parse_error_at(p, &at, "expected 'true' or 'false'");
    ST_TRY(os_attr(p, os, "is_stable", b));
  }
  ST_TRY(p_expect(p, ')'));
  ST_TRY(p_attr_dict(p, os));
  ST_TRY(p_expect(p, ':'));
  shl_token at = *p_tok(p);
  const shl_type *t, *v, *i;
  ST_TRY(p_type(p, &t));
  ST_TRY(p_check_operand_type(p, os, 0, t, &at));
  ST_TRY(p_expect_arrow(p));
  ST_TRY(p_expect(p, '('));
  ST_TRY(p_type(p, &v));
  ST_TRY(p_expect(p, ','));
  ST_TRY(p_type(p, &i));
  ST_TRY(p_expect(p, ')'));
  ST_TRY(os_result(p, os, v));
  return os_result(p, os, i);
}

static const char *const top_k_elide[] = {"k", "is_stable", NULL};

void print_top_k(shl_printer *pr, const shl_op *op) {
  const shl_attr *stable = op_attr(op, "is_stable");
  if (!pp_has_int(op, "k") || op->n_operands != 1 || op->n_results != 2 || (stable && stable->kind != AT_BOOL)) {
    pr_generic_op(pr, op);
    return;
  }
  pr_puts(pr, "chlo.top_k(");
  pr_value(pr, op->operands[0]);
  pr_puts(pr, ", k = ");
  pr_attr_bare(pr, op_attr(op, "k"));
  /* is_stable (default true) sits in the parentheses when it is not the default */
  const shl_attr *st = op_attr(op, "is_stable");
  if (st && st->kind == AT_BOOL && !st->u.b) pr_puts(pr, ", is_stable = false");
  pr_puts(pr, ")");
  pr_attr_dict(pr, op, top_k_elide);
  pr_puts(pr, " : ");
  pr_type(pr, op->operands[0]->type);
  pr_puts(pr, " -> (");
  pr_type(pr, op->results[0].type);
  pr_puts(pr, ", ");
  pr_type(pr, op->results[1].type);
  pr_puts(pr, ")");
}
