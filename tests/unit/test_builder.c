/* Builder API (include/shloc/builder.h): ops of every family with inferred
 * result types, regions, the custom-call spec with its validation rules
 * (every rejection, nothing half-built), emission of mlir_attributes in pretty
 * and generic form, parse -> print -> parse round trips, what a handler sees,
 * execution of built modules, and no process-global interning (10^6 names). */
#include <malloc.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#if defined(__SANITIZE_ADDRESS__)
/* From ASan's runtime (gcc ships no header declaring it). */
size_t __sanitizer_get_current_allocated_bytes(void);
#endif

#include "group_ctx.h"
#include "ir/ir.h" /* attributes of built and reparsed ops, the module arena */
#include "ok.h"
#include "shloc/builder.h"
#include "shloc/executable.h"
#include "shloc/ffi_registry.h"

/* ---- helpers ---------------------------------------------------------- */

/* `st` must be an error whose message contains `needle` (and code `code`
 * unless it is SHLOC_OK). */
static void expect_err(shloc_status st, shloc_code code, const char *needle) {
  if (!st) fail_msg("expected an error containing '%s'", needle);
  if ((code != SHLOC_OK && shloc_status_code(st) != code) || !strstr(shloc_status_message(st), needle))
    fail_msg("got code %d '%s', expected code %d '%s'", (int)shloc_status_code(st), shloc_status_message(st), (int)code,
             needle);
  shloc_status_free(st);
}

static char *print(shloc_module *m, unsigned flags) {
  char *out = NULL;
  OK(shloc_module_print(m, flags, &out, NULL));
  return out;
}

static shloc_module *new_module(void) {
  shloc_module *m = NULL;
  OK(shloc_module_create(ctx, &m));
  return m;
}

static shloc_module *parse(const char *text) {
  shloc_module *m = NULL;
  OK(shloc_module_parse(ctx, "t.mlir", text, strlen(text), 1, &m));
  return m;
}

static const shloc_type *tensor(shloc_module *m, const char *elem, uint32_t rank, const int64_t *dims) {
  const shloc_type *t = NULL;
  OK(shloc_type_tensor(m, elem, rank, dims, &t));
  return t;
}

static const shloc_type *parse_type(shloc_module *m, const char *text) {
  const shloc_type *t = NULL;
  OK(shloc_type_parse(m, text, strlen(text), &t));
  return t;
}

static void expect_type(const shloc_value *v, const char *want) {
  shloc_module *m = new_module();
  const shl_type *got = (const shl_type *)(const void *)shloc_value_type(v);
  const shl_type *exp = (const shl_type *)(const void *)parse_type(m, want);
  if (!type_eq(got, exp)) {
    int32_t r = shloc_type_rank(shloc_value_type(v));
    fail_msg("type mismatch: expected %s, got rank %d %s", want, r, shloc_type_element(shloc_value_type(v)));
  }
  shloc_module_destroy(m);
}

/* The first op named `name` in the body of the first function. */
static const shl_op *find_op(const shloc_module *m, const char *name) {
  const shl_op *f = m->top->regions[0].blocks[0]->first;
  for (const shl_op *op = func_body(f)->first; op; op = op->next)
    if (str_eq_c(op->name, name)) return op;
  return NULL;
}

static size_t count_ops(const shloc_module *m) {
  size_t n = 0;
  for (const shl_op *f = m->top->regions[0].blocks[0]->first; f; f = f->next)
    for (const shl_op *op = func_body(f) ? func_body(f)->first : NULL; op; op = op->next) n++;
  return n;
}

/* ---- ops with inferred types ------------------------------------------ */

static void test_ops_and_inference(void **state) {
  (void)state;
  shloc_module *m = new_module();
  const int64_t d23[] = {2, 3}, d32[] = {3, 2}, d3[] = {3};
  const shloc_type *t23 = tensor(m, "f32", 2, d23), *t3 = tensor(m, "f32", 1, d3);
  const shloc_type *args[] = {t23, t3};
  shloc_func *helper;
  OK(shloc_func_create(m, "twice", 1, &t23, 0, NULL, SHLOC_FUNC_PRIVATE, &helper));
  shloc_value *h0 = shloc_func_arg(helper, 0), *hs;
  OK(shloc_build_binary(shloc_func_body(helper), "stablehlo.add", h0, h0, &hs));
  OK(shloc_func_return(helper, 1, &hs));

  shloc_func *f;
  OK(shloc_func_create(m, "main", 2, args, 0, NULL, 0, &f));
  shloc_block *b = shloc_func_body(f);
  shloc_value *x = shloc_func_arg(f, 0), *v = shloc_func_arg(f, 1);
  assert_null(shloc_func_arg(f, 2));

  shloc_value *e, *c, *bc, *rs, *tr, *cv, *dg, *cmp, *sel, *io, *red, *cst;
  OK(shloc_build_unary(b, "stablehlo.exponential", x, &e));
  expect_type(e, "tensor<2x3xf32>");
  OK(shloc_build_compare(b, "GT", x, e, "FLOAT", &cmp));
  expect_type(cmp, "tensor<2x3xi1>");
  OK(shloc_build_select(b, cmp, x, e, &sel));
  expect_type(sel, "tensor<2x3xf32>");
  OK(shloc_build_broadcast_in_dim(b, v, 2, d23, (const int64_t[]){1}, &bc));
  expect_type(bc, "tensor<2x3xf32>");
  OK(shloc_build_reshape(b, x, 2, d32, &rs));
  OK(shloc_build_transpose(b, x, (const int64_t[]){1, 0}, &tr));
  expect_type(tr, "tensor<3x2xf32>");
  OK(shloc_build_convert(b, x, "bf16", &cv));
  expect_type(cv, "tensor<2x3xbf16>");
  shloc_dot_dims dd = {.n_contracting = 1, .lhs_contracting = (const int64_t[]){1}, .rhs_contracting = (const int64_t[]){0}};
  OK(shloc_build_dot_general(b, x, rs, &dd, &dg));
  expect_type(dg, "tensor<2x2xf32>");
  shloc_dot_dims bd = {.n_batch = 1, .lhs_batch = (const int64_t[]){0}, .rhs_batch = (const int64_t[]){1},
                       .n_contracting = 1, .lhs_contracting = (const int64_t[]){1}, .rhs_contracting = (const int64_t[]){0}};
  OK(shloc_build_dot_general(b, x, tr, &bd, &c));
  expect_type(c, "tensor<2xf32>");
  OK(shloc_build_iota(b, parse_type(m, "tensor<4xi32>"), 0, &io));
  const float zero = 0;
  OK(shloc_build_constant(b, tensor(m, "f32", 0, NULL), &zero, sizeof zero, &cst));
  OK(shloc_build_reduce_with(b, x, cst, "stablehlo.add", 1, (const int64_t[]){1}, &red));
  expect_type(red, "tensor<2xf32>");

  /* reduce with a body built by hand, two inputs (sum and max). */
  const shloc_type *s0 = tensor(m, "f32", 0, NULL);
  const shloc_type *rargs[] = {s0, s0, s0, s0};
  shloc_region *body;
  OK(shloc_region_create(b, 4, rargs, &body));
  shloc_value *ra, *rm;
  OK(shloc_build_binary(shloc_region_body(body), "stablehlo.add", shloc_region_arg(body, 0), shloc_region_arg(body, 2), &ra));
  OK(shloc_build_binary(shloc_region_body(body), "stablehlo.maximum", shloc_region_arg(body, 1), shloc_region_arg(body, 3), &rm));
  OK(shloc_build_return(shloc_region_body(body), 2, (shloc_value *[]){ra, rm}));
  shloc_value *red2[2];
  OK(shloc_build_reduce(b, 2, (shloc_value *[]){x, e}, (shloc_value *[]){cst, cst}, 2, (const int64_t[]){0, 1}, body, red2));
  expect_type(red2[1], "tensor<f32>");

  /* func.call: results from the callee's signature. */
  shloc_op *call;
  OK(shloc_build_call(b, "twice", 1, &x, &call));
  assert_int_equal(shloc_op_num_results(call), 1);
  expect_type(shloc_op_result(call, 0), "tensor<2x3xf32>");

  /* The generic entry point: table ops with text attributes (types inferred
   * or given), and ops outside the table. */
  shloc_op *sl, *cat, *unk;
  shloc_attr_pair sl_attrs[] = {{"start_indices", "array<i64: 0, 1>"}, {"limit_indices", "array<i64: 2, 3>"},
                                {"strides", "array<i64: 1, 2>"}};
  shloc_op_spec s1 = {.name = "stablehlo.slice", .n_operands = 1, .operands = &x, .n_attrs = 3, .attrs = sl_attrs};
  OK(shloc_build_op(b, &s1, &sl));
  expect_type(shloc_op_result(sl, 0), "tensor<2x1xf32>");
  shloc_attr_pair cat_attrs[] = {{"dimension", "0 : i64"}};
  shloc_op_spec s2 = {.name = "stablehlo.concatenate", .n_operands = 2, .operands = (shloc_value *[]){x, e},
                      .n_attrs = 1, .attrs = cat_attrs};
  OK(shloc_build_op(b, &s2, &cat));
  expect_type(shloc_op_result(cat, 0), "tensor<4x3xf32>");
  /* Inference never overflows on caller-given sizes: a clear error instead. */
  shloc_op *bad;
  shloc_value *pad_value = cst;
  shloc_attr_pair huge_pad[] = {{"edge_padding_low", "array<i64: 9223372036854775807, 0>"},
                                {"edge_padding_high", "array<i64: 9223372036854775807, 0>"},
                                {"interior_padding", "array<i64: 0, 0>"}};
  shloc_op_spec s4 = {.name = "stablehlo.pad", .n_operands = 2, .operands = (shloc_value *[]){x, pad_value},
                      .n_attrs = 3, .attrs = huge_pad};
  expect_err(shloc_build_op(b, &s4, &bad), SHLOC_ERR_VERIFY, "padding makes dimension 0 too large");
  shloc_attr_pair huge_slice[] = {{"start_indices", "array<i64: 0, 0>"},
                                  {"limit_indices", "array<i64: 9223372036854775807, 3>"},
                                  {"strides", "array<i64: 9223372036854775807, 1>"}};
  shloc_op_spec s5 = {.name = "stablehlo.slice", .n_operands = 1, .operands = &x, .n_attrs = 3, .attrs = huge_slice};
  expect_err(shloc_build_op(b, &s5, &bad), SHLOC_ERR_VERIFY, "is larger than dimension size 2");
  const shloc_type *tok = parse_type(m, "!stablehlo.token");
  shloc_op_spec s3 = {.name = "mydialect.opaque_thing", .n_operands = 1, .operands = &x, .n_results = 1,
                      .result_types = &tok, .n_attrs = 1, .attrs = (shloc_attr_pair[]){{"mydialect.level", "3 : i8"}}};
  OK(shloc_build_op(b, &s3, &unk));

  /* while (i < 3) { i = i + 1; acc = acc * 2 } */
  const shloc_type *ti = tensor(m, "i32", 0, NULL);
  const int32_t i0 = 0, three = 3, one = 1;
  shloc_value *ci0, *c3, *c1;
  OK(shloc_build_constant(b, ti, &i0, 4, &ci0));
  OK(shloc_build_constant(b, ti, &three, 4, &c3));
  OK(shloc_build_constant(b, ti, &one, 4, &c1));
  const shloc_type *wt[] = {ti, t23};
  shloc_region *cond, *wbody;
  OK(shloc_region_create(b, 2, wt, &cond));
  OK(shloc_region_create(b, 2, wt, &wbody));
  shloc_value *lt, *inc, *dbl;
  OK(shloc_build_compare(shloc_region_body(cond), "LT", shloc_region_arg(cond, 0), c3, NULL, &lt));
  OK(shloc_build_return(shloc_region_body(cond), 1, &lt));
  OK(shloc_build_binary(shloc_region_body(wbody), "stablehlo.add", shloc_region_arg(wbody, 0), c1, &inc));
  OK(shloc_build_binary(shloc_region_body(wbody), "stablehlo.add", shloc_region_arg(wbody, 1), shloc_region_arg(wbody, 1), &dbl));
  OK(shloc_build_return(shloc_region_body(wbody), 2, (shloc_value *[]){inc, dbl}));
  shloc_op *wh;
  OK(shloc_build_while(b, 2, (shloc_value *[]){ci0, x}, cond, wbody, &wh));
  expect_type(shloc_op_result(wh, 1), "tensor<2x3xf32>");

  /* if / sort */
  shloc_value *p;
  OK(shloc_build_compare(b, "EQ", ci0, c1, NULL, &p));
  shloc_region *then_r, *else_r;
  OK(shloc_region_create(b, 0, NULL, &then_r));
  OK(shloc_region_create(b, 0, NULL, &else_r));
  OK(shloc_build_return(shloc_region_body(then_r), 1, &x));
  OK(shloc_build_return(shloc_region_body(else_r), 1, &e));
  shloc_op *iff;
  OK(shloc_build_if(b, p, then_r, else_r, &iff));
  expect_type(shloc_op_result(iff, 0), "tensor<2x3xf32>");
  shloc_region *cmpr;
  OK(shloc_region_create(b, 2, (const shloc_type *[]){s0, s0}, &cmpr));
  shloc_value *gt;
  OK(shloc_build_compare(shloc_region_body(cmpr), "GT", shloc_region_arg(cmpr, 0), shloc_region_arg(cmpr, 1), NULL, &gt));
  OK(shloc_build_return(shloc_region_body(cmpr), 1, &gt));
  shloc_op *so;
  OK(shloc_build_sort(b, 1, &x, 1, true, cmpr, &so));

  OK(shloc_func_return(f, 2, (shloc_value *[]){dg, shloc_op_result(so, 0)}));
  OK(shloc_module_verify(m));

  /* The built module prints as a parsed one does: pretty and generic text
   * are fixed points of parse -> print. */
  char *pretty = print(m, 0), *generic = print(m, SHLOC_PRINT_GENERIC);
  assert_non_null(strstr(pretty, "stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1]"));
  assert_non_null(strstr(pretty, "contracting_dims = [1] x [0]"));
  assert_non_null(strstr(pretty, "func.func private @twice"));
  assert_non_null(strstr(pretty, "func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>) -> (tensor<2x2xf32>, tensor<2x3xf32>)"));
  shloc_module *m2 = parse(pretty), *m3 = parse(generic);
  OK(shloc_module_verify(m2));
  char *pretty2 = print(m2, 0), *generic2 = print(m3, SHLOC_PRINT_GENERIC);
  assert_string_equal(pretty, pretty2);
  assert_string_equal(generic, generic2);
  free(pretty);
  free(generic);
  free(pretty2);
  free(generic2);
  shloc_module_destroy(m2);
  shloc_module_destroy(m3);
  shloc_module_destroy(m);
}

/* ---- scope and structure rules ---------------------------------------- */

static void test_scopes_and_structure(void **state) {
  (void)state;
  shloc_module *m = new_module(), *other = new_module();
  const int64_t d[] = {4};
  const shloc_type *t = tensor(m, "f32", 1, d), *t_other = tensor(other, "f32", 1, d);
  shloc_func *f, *g, *h;
  OK(shloc_func_create(m, "f", 1, &t, 0, NULL, 0, &f));
  OK(shloc_func_create(m, "g", 1, &t, 1, &t, 0, &g));
  OK(shloc_func_create(other, "h", 1, &t_other, 0, NULL, 0, &h));
  shloc_func *dup;
  expect_err(shloc_func_create(m, "f", 0, NULL, 0, NULL, 0, &dup), SHLOC_ERR_ALREADY_EXISTS, "already exists");
  assert_null(dup);
  shloc_block *fb = shloc_func_body(f), *gb = shloc_func_body(g);
  shloc_value *fx = shloc_func_arg(f, 0), *gx = shloc_func_arg(g, 0), *out;
  char *before = print(m, SHLOC_PRINT_GENERIC);

  /* Values of another function or module are not visible. */
  expect_err(shloc_build_binary(fb, "stablehlo.add", fx, gx, &out), SHLOC_ERR_INVALID_ARG, "operand #1 is not visible");
  expect_err(shloc_build_unary(fb, "stablehlo.negate", shloc_func_arg(h, 0), &out), SHLOC_ERR_INVALID_ARG, "not visible");
  /* Values defined inside a region are not visible outside it. */
  shloc_region *r;
  OK(shloc_region_create(fb, 0, NULL, &r));
  shloc_value *inner;
  OK(shloc_build_unary(shloc_region_body(r), "stablehlo.negate", fx, &inner));
  expect_err(shloc_build_unary(fb, "stablehlo.negate", inner, &out), SHLOC_ERR_INVALID_ARG, "not visible");
  /* A region is made for one block and belongs to one op. */
  OK(shloc_build_return(shloc_region_body(r), 1, &inner));
  shloc_value *pred;
  shloc_op *iff;
  const uint8_t yes = 1;
  OK(shloc_build_constant(gb, tensor(m, "i1", 0, NULL), &yes, 1, &pred));
  expect_err(shloc_build_if(gb, pred, r, r, &iff), SHLOC_ERR_INVALID_ARG, "created for another block");
  shloc_value *fpred;
  OK(shloc_build_constant(fb, tensor(m, "i1", 0, NULL), &yes, 1, &fpred));
  expect_err(shloc_build_if(fb, fpred, r, r, &iff), SHLOC_ERR_INVALID_ARG, "given twice");
  shloc_region *r2;
  OK(shloc_region_create(fb, 0, NULL, &r2));
  OK(shloc_build_return(shloc_region_body(r2), 1, &fx));
  OK(shloc_build_if(fb, fpred, r, r2, &iff));
  expect_err(shloc_build_if(fb, fpred, r, r2, &iff), SHLOC_ERR_INVALID_ARG, "already belongs to another op");
  /* stablehlo.return belongs in regions, func.return in functions. */
  expect_err(shloc_build_return(fb, 1, &fx), SHLOC_ERR_VERIFY, "must be inside the region of a stablehlo op");
  /* Declared results are checked; nothing after the terminator. */
  shloc_value *neg;
  OK(shloc_build_unary(gb, "stablehlo.negate", gx, &neg));
  expect_err(shloc_func_return(g, 2, (shloc_value *[]){neg, neg}), SHLOC_ERR_VERIFY, "returns 1 values");
  OK(shloc_func_return(g, 1, &neg));
  expect_err(shloc_build_unary(gb, "stablehlo.negate", gx, &out), SHLOC_ERR_INVALID_ARG, "already ends with");
  /* Per-op rules run before linking; unknown names and NULLs are errors. */
  expect_err(shloc_build_binary(fb, "stablehlo.add", fx, pred, &out), SHLOC_ERR_INVALID_ARG, "not visible");
  const shloc_type *t8 = tensor(m, "f32", 1, (const int64_t[]){8});
  shloc_value *c8;
  const float zeros[8] = {0};
  OK(shloc_build_constant(fb, t8, zeros, sizeof zeros, &c8));
  expect_err(shloc_build_binary(fb, "stablehlo.add", fx, c8, &out), SHLOC_ERR_VERIFY, "");
  expect_err(shloc_build_unary(fb, "stablehlo.no_such_op", fx, &out), SHLOC_ERR_INVALID_ARG, "not an elementwise op");
  expect_err(shloc_build_unary(fb, "stablehlo.negate", NULL, &out), SHLOC_ERR_INVALID_ARG, "operand #0 is NULL");
  expect_err(shloc_build_convert(fb, fx, "f33", &out), SHLOC_ERR_INVALID_ARG, "unknown element type");
  expect_err(shloc_build_compare(fb, "LT>, x", fx, fx, NULL, &out), SHLOC_ERR_INVALID_ARG, "direction");
  expect_err(shloc_build_constant(fb, t8, zeros, 4, &out), SHLOC_ERR_INVALID_ARG, "the type needs 32");
  expect_err(shloc_build_call(fb, "nope", 0, NULL, NULL), SHLOC_ERR_INVALID_ARG, "no function 'nope'");
  expect_err(shloc_build_call(fb, "g", 0, NULL, NULL), SHLOC_ERR_VERIFY, "passes 0 operands");
  shloc_op_spec ops = {.name = "func.func"};
  expect_err(shloc_build_op(fb, &ops, NULL), SHLOC_ERR_INVALID_ARG, "shloc_func_create");
  ops.name = "nodots";
  expect_err(shloc_build_op(fb, &ops, NULL), SHLOC_ERR_INVALID_ARG, "unknown op");
  ops.name = "stablehlo.broadcast_in_dim";
  ops.n_operands = 1;
  ops.operands = &fx;
  expect_err(shloc_build_op(fb, &ops, NULL), SHLOC_ERR_VERIFY, "");
  expect_err(shloc_type_tensor(m, "f32", 1, (const int64_t[]){-3}, &t), SHLOC_ERR_INVALID_ARG, "SHLOC_DYN");
  /* Every failure above left the module as it was: f holds only the ops
   * built successfully (two constants and the if), g its constant, negate
   * and return. */
  assert_int_equal(count_ops(m), 6);
  char *after = print(m, SHLOC_PRINT_GENERIC);
  assert_non_null(strstr(after, "stablehlo.if"));
  free(before);
  free(after);
  shloc_module_destroy(m);
  shloc_module_destroy(other);
}

/* ---- typed attributes ------------------------------------------------- */

static const shloc_attr *attr_text(shloc_module *m, const char *text) {
  const shloc_attr *a = NULL;
  OK(shloc_attr_parse(m, text, strlen(text), &a));
  return a;
}

static void expect_attr(shloc_module *m, const shloc_attr *got, const char *want_text) {
  const shloc_attr *want = attr_text(m, want_text);
  if (!attr_eq((const shl_attr *)(const void *)got, (const shl_attr *)(const void *)want))
    fail_msg("attribute differs from %s", want_text);
}

static void test_typed_attributes(void **state) {
  (void)state;
  shloc_module *m = new_module();
  const shloc_attr *a;
  OK(shloc_attr_bool(m, true, &a));
  expect_attr(m, a, "true");
  const char *ints[] = {"i8", "i16", "i32", "i64", "si8", "si16", "si32", "si64", "ui8", "ui16", "ui32", "ui64"};
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
    char want[64];
    OK(shloc_attr_int(m, ints[i], 7, &a));
    snprintf(want, sizeof want, "7 : %s", ints[i]);
    expect_attr(m, a, want);
  }
  OK(shloc_attr_int(m, "i8", -128, &a));
  expect_attr(m, a, "-128 : i8");
  OK(shloc_attr_int(m, "i1", 1, &a));
  expect_attr(m, a, "true");
  OK(shloc_attr_uint(m, "ui64", UINT64_MAX, &a));
  expect_attr(m, a, "18446744073709551615 : ui64");
  expect_err(shloc_attr_int(m, "i8", 200, &a), SHLOC_ERR_INVALID_ARG, "does not fit");
  expect_err(shloc_attr_int(m, "ui8", -1, &a), SHLOC_ERR_INVALID_ARG, "does not fit");
  expect_err(shloc_attr_uint(m, "si8", 200, &a), SHLOC_ERR_INVALID_ARG, "does not fit");
  expect_err(shloc_attr_int(m, "f32", 1, &a), SHLOC_ERR_INVALID_ARG, "not an integer type");
  const char *floats[] = {"f16", "bf16", "f32", "f64", "f8E4M3FN"};
  for (size_t i = 0; i < sizeof floats / sizeof floats[0]; i++) {
    char want[64];
    OK(shloc_attr_float(m, floats[i], 0.5, &a));
    snprintf(want, sizeof want, "0.5 : %s", floats[i]);
    expect_attr(m, a, want);
  }
  OK(shloc_attr_float(m, "f32", 1e-5, &a));
  expect_attr(m, a, "9.99999974E-6 : f32");
  OK(shloc_attr_string(m, "a\"b\\c\n", 6, &a));
  expect_attr(m, a, "\"a\\\"b\\\\c\\0A\"");
  const int64_t dv[] = {1, -2, 3};
  OK(shloc_attr_dense_array(m, "i64", 3, dv, &a));
  expect_attr(m, a, "array<i64: 1, -2, 3>");
  const int32_t iv[] = {4, 5};
  const shloc_attr *dense;
  OK(shloc_attr_dense(m, tensor(m, "i32", 1, (const int64_t[]){2}), iv, sizeof iv, &dense));
  expect_attr(m, dense, "dense<[4, 5]> : tensor<2xi32>");
  const shloc_attr *items[2], *arr, *inner, *dict;
  OK(shloc_attr_int(m, "i32", 1, &items[0]));
  OK(shloc_attr_string(m, "x", 1, &items[1]));
  OK(shloc_attr_array(m, 2, items, &arr));
  expect_attr(m, arr, "[1 : i32, \"x\"]");
  shloc_named_attr in_items[] = {{"depth", items[0]}, {"\"quoted key\"", items[1]}};
  OK(shloc_attr_dict(m, 2, in_items, &inner));
  shloc_named_attr out_items[] = {{"nested", inner}, {"list", arr}, {"flag", NULL}, {"dense", dense}};
  OK(shloc_attr_dict(m, 4, out_items, &dict));
  expect_attr(m, dict,
              "{dense = dense<[4, 5]> : tensor<2xi32>, flag, list = [1 : i32, \"x\"], nested = {depth = 1 : i32, "
              "\"quoted key\" = \"x\"}}");
  shloc_named_attr dup[] = {{"k", items[0]}, {"\"k\"", items[1]}};
  expect_err(shloc_attr_dict(m, 2, dup, &a), SHLOC_ERR_INVALID_ARG, "duplicate attribute name 'k'");
  shloc_named_attr bad[] = {{"no spaces", items[0]}};
  expect_err(shloc_attr_dict(m, 1, bad, &a), SHLOC_ERR_INVALID_ARG, "invalid attribute name");
  shloc_module_destroy(m);
}

/* ---- custom calls: emission and round trip ----------------------------- */

typedef struct {
  shloc_module *m;
  shloc_func *f;
  shloc_block *b;
  shloc_value *x, *v; /* tensor<4x8xf32>, tensor<8xi32> */
  const shloc_type *t, *tv;
} cc_fixture;

static void cc_setup(cc_fixture *fx) {
  fx->m = new_module();
  const int64_t d[] = {4, 8};
  fx->t = tensor(fx->m, "f32", 2, d);
  fx->tv = tensor(fx->m, "i32", 1, d + 1);
  const shloc_type *args[] = {fx->t, fx->tv};
  OK(shloc_func_create(fx->m, "main", 2, args, 0, NULL, 0, &fx->f));
  fx->b = shloc_func_body(fx->f);
  fx->x = shloc_func_arg(fx->f, 0);
  fx->v = shloc_func_arg(fx->f, 1);
  shloc_func *cb;
  OK(shloc_func_create(fx->m, "callback", 0, NULL, 0, NULL, SHLOC_FUNC_PRIVATE, &cb));
  OK(shloc_func_return(cb, 0, NULL));
}

static const shloc_attr_pair config_pairs[] = {{"causal", "true"}, {"softmax_scale", "0.125 : f32"}, {"window", "array<i64: 4, 4>"}};
static const shloc_attr_pair user_attrs[] = {
    {"sdy.sharding_rule",
     "#sdy.op_sharding_rule<([i, j, lm, n], [i, k, m, n])->([i, j, lm, o]) {i=2, j=128, k=128, l=1, m=8, n=128, "
     "o=128} need_replication={i, j}, custom>"},
    {"mhlo.frontend_attributes", "{_xla_compute_type = \"host\"}"},
    {"\"my.dialect attr\"", "#my.thing<[1, {a = \"}\"}]>"},
    {"operand_layouts", "[dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>]"},
    {"result_layouts", "[dense<[0, 1]> : tensor<2xindex>]"}};

static shloc_custom_call_spec base_spec(cc_fixture *fx) {
  static shloc_value *operands[2];
  operands[0] = fx->x;
  operands[1] = fx->v;
  static const shloc_type *results[1];
  results[0] = fx->t;
  return (shloc_custom_call_spec){.call_target_name = "flash_attention",
                                  .n_backend_config_pairs = 3,
                                  .backend_config_pairs = config_pairs,
                                  .n_operands = 2,
                                  .operands = operands,
                                  .n_results = 1,
                                  .result_types = results,
                                  .n_mlir_attributes = 5,
                                  .mlir_attributes = user_attrs};
}

static void test_custom_call_emission_and_round_trip(void **state) {
  (void)state;
  cc_fixture fx;
  cc_setup(&fx);
  shloc_custom_call_spec spec = base_spec(&fx);
  shloc_op *call;
  OK(shloc_build_custom_call(fx.b, &spec, &call));
  OK(shloc_func_return(fx.f, 1, (shloc_value *[]){shloc_op_result(call, 0)}));
  OK(shloc_module_verify(fx.m));
  char *pretty = print(fx.m, 0), *generic = print(fx.m, SHLOC_PRINT_GENERIC);
  /* Pretty: one attribute dictionary; backend_config holds only the pairs. */
  assert_non_null(strstr(pretty,
                         "stablehlo.custom_call @flash_attention(%arg0, %arg1) {api_version = 4 : i32, backend_config "
                         "= {causal = true, softmax_scale = 1.250000e-01 : f32, window = array<i64: 4, 4>}, "
                         "mhlo.frontend_attributes = {_xla_compute_type = \"host\"}, \"my.dialect attr\" = "
                         "#my.thing<[1, {a = \"}\"}]>, operand_layouts = "));
  assert_non_null(strstr(pretty, "sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, lm, n], [i, k, m, n])->([i, j, lm, o]) "
                                 "{i=2, j=128, k=128, l=1, m=8, n=128, o=128} need_replication={i, j}, custom>}"));
  /* Generic: inherent attributes as properties, dialect attributes in the
   * discardable dictionary after them. */
  assert_non_null(strstr(generic, "\"stablehlo.custom_call\"(%arg0, %arg1) <{api_version = 4 : i32, backend_config = "
                                  "{causal = true, softmax_scale = 1.250000e-01 : f32, window = array<i64: 4, 4>}, "
                                  "call_target_name = \"flash_attention\", operand_layouts = [dense<[1, 0]> : "
                                  "tensor<2xindex>, dense<0> : tensor<1xindex>], result_layouts = [dense<[0, 1]> : "
                                  "tensor<2xindex>]}> {mhlo.frontend_attributes = {_xla_compute_type = \"host\"}, "
                                  "\"my.dialect attr\" = #my.thing<[1, {a = \"}\"}]>, sdy.sharding_rule = "));
  /* parse -> print -> parse keeps backend_config and every mlir attribute. */
  const shl_op *built = find_op(fx.m, "stablehlo.custom_call");
  for (int form = 0; form < 2; form++) {
    shloc_module *m2 = parse(form ? generic : pretty);
    OK(shloc_module_verify(m2));
    const shl_op *op = find_op(m2, "stablehlo.custom_call");
    assert_non_null(op);
    assert_int_equal(op->n_attrs, built->n_attrs);
    for (uint32_t i = 0; i < built->n_attrs; i++) {
      assert_true(str_eq(op->attrs[i].name, built->attrs[i].name));
      assert_true(attr_eq(op->attrs[i].attr, built->attrs[i].attr));
      assert_int_equal(op->attrs[i].is_prop, built->attrs[i].is_prop);
    }
    char *p2 = print(m2, 0), *g2 = print(m2, SHLOC_PRINT_GENERIC);
    assert_string_equal(p2, pretty);
    assert_string_equal(g2, generic);
    free(p2);
    free(g2);
    shloc_module_destroy(m2);
  }
  free(pretty);
  free(generic);
  shloc_module_destroy(fx.m);
}

static void test_custom_call_fields(void **state) {
  (void)state;
  cc_fixture fx;
  cc_setup(&fx);
  /* Every spec field set, operand element types converted before the call,
   * a legacy string config on another call. */
  static const int64_t rm[] = {1, 0}, l1[] = {0};
  const int64_t *const in_layouts[] = {rm, l1}, *const out_layouts[] = {rm};
  const char *const elem_types[] = {NULL, "f32"};
  shloc_output_operand_alias alias = {.operand_index = 0};
  const char *const called[] = {"callback"};
  const shloc_attr_pair extra[] = {{"mhlo.sharding", "\"{replicated}\""}};
  shloc_custom_call_spec spec = base_spec(&fx);
  spec.operand_element_types = elem_types;
  spec.has_side_effect = true;
  spec.operand_layouts = in_layouts;
  spec.result_layouts = out_layouts;
  spec.n_output_operand_aliases = 1;
  spec.output_operand_aliases = &alias;
  spec.n_called_computations = 1;
  spec.called_computations = called;
  spec.n_mlir_attributes = 1;
  spec.mlir_attributes = extra;
  shloc_op *call, *legacy;
  OK(shloc_build_custom_call(fx.b, &spec, &call));
  shloc_custom_call_spec ls = {.call_target_name = "old_style", .legacy_backend_config = "opaque\0bytes",
                               .legacy_backend_config_len = 12, .n_operands = 1, .operands = &fx.x, .n_results = 1,
                               .result_types = &fx.t};
  OK(shloc_build_custom_call(fx.b, &ls, &legacy));
  OK(shloc_func_return(fx.f, 1, (shloc_value *[]){shloc_op_result(legacy, 0)}));
  OK(shloc_module_verify(fx.m));
  char *pretty = print(fx.m, 0);
  assert_non_null(strstr(pretty, "%0 = stablehlo.convert %arg1 : (tensor<8xi32>) -> tensor<8xf32>\n"
                                 "    %1 = stablehlo.custom_call @flash_attention(%arg0, %0) {api_version = 4 : i32"));
  assert_non_null(strstr(pretty, "called_computations = [@callback], has_side_effect = true, mhlo.sharding = "
                                 "\"{replicated}\", operand_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<0> : "
                                 "tensor<1xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<"
                                 "output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], "
                                 "result_layouts = [dense<[1, 0]> : tensor<2xindex>]}"));
  /* api_version 1 is StableHLO's default: left out, as stablehlo-opt prints it. */
  assert_non_null(strstr(pretty, "stablehlo.custom_call @old_style(%arg0) {backend_config = \"opaque\\00bytes\"}"));
  shloc_module *m2 = parse(pretty);
  char *again = print(m2, 0);
  assert_string_equal(again, pretty);
  free(again);
  shloc_module_destroy(m2);
  free(pretty);
  shloc_module_destroy(fx.m);
}

/* ---- custom calls: every rejection, nothing half-built ------------------ */

typedef struct {
  const char *name, *value, *needle;
  shloc_code code;
} bad_pair;

static void test_custom_call_rejections(void **state) {
  (void)state;
  cc_fixture fx;
  cc_setup(&fx);
  shloc_limits *lim = shloc_context_limits(ctx), saved = *lim;
  lim->max_attr_text_bytes = 256;
  lim->max_nesting = 16;
  char long_value[400], deep[64];
  memset(long_value, ' ', sizeof long_value - 2);
  memcpy(long_value, "\"", 1);
  long_value[sizeof long_value - 2] = '"';
  long_value[sizeof long_value - 1] = 0;
  memset(deep, '[', 20);
  memset(deep + 20, ']', 20);
  deep[40] = 0;
  static const bad_pair bad[] = {
      /* names */
      {"", "true", "empty", SHLOC_ERR_INVALID_ARG},
      {"1abc", "true", "must start with a letter", SHLOC_ERR_INVALID_ARG},
      {"a b", "true", "only letters, digits", SHLOC_ERR_INVALID_ARG},
      {"a-b", "true", "only letters, digits", SHLOC_ERR_INVALID_ARG},
      {"x = 1, y", "true", "only letters, digits", SHLOC_ERR_INVALID_ARG},
      {"\"open", "true", "one complete string literal", SHLOC_ERR_INVALID_ARG},
      {"\"a\" = 1, \"b\"", "true", "one complete string literal", SHLOC_ERR_INVALID_ARG},
      {"\"\"", "true", "empty", SHLOC_ERR_INVALID_ARG},
      {"\"bad\\q\"", "true", "escape", SHLOC_ERR_INVALID_ARG},
      /* values: exactly one attribute, nothing after it */
      {"a", "", "empty attribute text", SHLOC_ERR_PARSE},
      {"a", "   ", "empty attribute text", SHLOC_ERR_PARSE},
      {"a", "1 2", "unexpected text after the attribute", SHLOC_ERR_PARSE},
      {"a", "true, b = 2", "unexpected text after the attribute", SHLOC_ERR_PARSE},
      {"a", "true} {b = 2", "unexpected text after the attribute", SHLOC_ERR_PARSE},
      {"a", "{x = 1}}, backend_config = {y = 2", "unexpected text after the attribute", SHLOC_ERR_PARSE},
      {"a", "\"s\" : tensor<2xf32> loc(\"x\")", "unexpected text after the attribute", SHLOC_ERR_PARSE},
      {"a", "[1, 2", "", SHLOC_ERR_PARSE},
      {"a", "\"unterminated", "", SHLOC_ERR_PARSE},
      {"a", "#alias", "undefined attribute alias", SHLOC_ERR_PARSE},
      {"a", "#sdy.rule<[(>", "", SHLOC_ERR_PARSE},
      {"a", "%0", "", SHLOC_ERR_PARSE},
      {"a", "}", "", SHLOC_ERR_PARSE},
      /* reserved names, also quoted */
      {"call_target_name", "\"other\"", "reserved", SHLOC_ERR_INVALID_ARG},
      {"api_version", "4 : i32", "reserved", SHLOC_ERR_INVALID_ARG},
      {"backend_config", "{eps = 1.0 : f32}", "reserved", SHLOC_ERR_INVALID_ARG},
      {"mhlo.backend_config", "{eps = 1.0 : f32}", "reserved", SHLOC_ERR_INVALID_ARG},
      {"\"backend_config\"", "\"\"", "reserved", SHLOC_ERR_INVALID_ARG},
      {"\"mhlo.backend\\5Fconfig\"", "{}", "reserved", SHLOC_ERR_INVALID_ARG},
      /* known attributes are checked for meaning */
      {"operand_layouts", "[dense<[0, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>]", "not a permutation", SHLOC_ERR_INVALID_ARG},
      {"operand_layouts", "[dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>]", "not a permutation", SHLOC_ERR_INVALID_ARG},
      {"operand_layouts", "[dense<[1, 0]> : tensor<2xindex>]", "array of 2 layouts", SHLOC_ERR_INVALID_ARG},
      {"result_layouts", "[[2, 0]]", "entry #0 must be a rank-1 tensor of index", SHLOC_ERR_INVALID_ARG},
      {"result_layouts", "[dense<[1, 0]> : tensor<2xi64>]", "entry #0 must be a rank-1 tensor of index",
       SHLOC_ERR_INVALID_ARG},
      {"operand_layouts", "[dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>]",
       "'operand_layouts' is given without 'result_layouts'", SHLOC_ERR_INVALID_ARG},
      {"result_layouts", "[dense<[1, 0]> : tensor<2xindex>]", "'result_layouts' is given without 'operand_layouts'",
       SHLOC_ERR_INVALID_ARG},
      {"result_layouts", "true", "array of 1 layouts", SHLOC_ERR_INVALID_ARG},
      {"has_side_effect", "1 : i32", "has_side_effect", SHLOC_ERR_VERIFY},
      {"called_computations", "[\"nowhere\"]", "must be a symbol", SHLOC_ERR_VERIFY},
      {"output_operand_aliases", "[#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, "
                                 "operand_tuple_indices = []>]", "of another type", SHLOC_ERR_VERIFY},
  };
  char *before = print(fx.m, SHLOC_PRINT_GENERIC);
  size_t ops_before = count_ops(fx.m);
  shloc_op *call = (shloc_op *)1;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    shloc_attr_pair pairs[] = {{"sdy.ok", "true"}, {bad[i].name, bad[i].value}};
    shloc_custom_call_spec spec = base_spec(&fx);
    /* Converting operand 1 would insert a convert: it must not stay behind. */
    const char *const elem_types[] = {NULL, "f32"};
    spec.operand_element_types = elem_types;
    spec.n_mlir_attributes = 2;
    spec.mlir_attributes = pairs;
    shloc_status st = shloc_build_custom_call(fx.b, &spec, &call);
    if (!st) fail_msg("pair #%zu {%s, %s} was accepted", i, bad[i].name, bad[i].value);
    if (shloc_status_code(st) != bad[i].code || !strstr(shloc_status_message(st), bad[i].needle))
      fail_msg("pair #%zu {%s, %s}: got code %d '%s', expected code %d '%s'", i, bad[i].name, bad[i].value,
               (int)shloc_status_code(st), shloc_status_message(st), (int)bad[i].code, bad[i].needle);
    /* Value and name errors name the offending pair. */
    if (bad[i].code == SHLOC_ERR_PARSE) assert_non_null(strstr(shloc_status_message(st), "mlir_attributes[1] 'a'"));
    shloc_status_free(st);
    assert_null(call);
    call = (shloc_op *)1;
  }
  /* Limits from the context: length and nesting. */
  shloc_custom_call_spec spec = base_spec(&fx);
  shloc_attr_pair lp[] = {{"a", long_value}};
  spec.n_mlir_attributes = 1;
  spec.mlir_attributes = lp;
  expect_err(shloc_build_custom_call(fx.b, &spec, &call), SHLOC_ERR_LIMIT, "more than the limit of 256");
  lp[0] = (shloc_attr_pair){"a", deep};
  expect_err(shloc_build_custom_call(fx.b, &spec, &call), SHLOC_ERR_LIMIT, "nesting deeper than the limit of 16");
  char long_name[300];
  memset(long_name, 'n', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = 0;
  lp[0] = (shloc_attr_pair){long_name, "true"};
  expect_err(shloc_build_custom_call(fx.b, &spec, &call), SHLOC_ERR_LIMIT, "attribute name is 299 bytes");
  /* Duplicates within a list, also after decoding quoted names. */
  shloc_attr_pair dup[] = {{"sdy.x", "1"}, {"\"sdy.x\"", "2"}};
  spec.n_mlir_attributes = 2;
  spec.mlir_attributes = dup;
  expect_err(shloc_build_custom_call(fx.b, &spec, &call), SHLOC_ERR_INVALID_ARG, "mlir_attributes: duplicate attribute name 'sdy.x'");
  spec = base_spec(&fx);
  shloc_attr_pair dup_cfg[] = {{"eps", "1.0 : f32"}, {"eps", "2.0 : f32"}};
  spec.backend_config_pairs = dup_cfg;
  spec.n_backend_config_pairs = 2;
  expect_err(shloc_build_custom_call(fx.b, &spec, &call), SHLOC_ERR_INVALID_ARG, "backend_config: duplicate attribute name 'eps'");
  shloc_attr_pair inj_cfg[] = {{"eps", "1.0 : f32}, evil = {x = 1"}};
  spec.backend_config_pairs = inj_cfg;
  spec.n_backend_config_pairs = 1;
  expect_err(shloc_build_custom_call(fx.b, &spec, &call), SHLOC_ERR_PARSE, "backend_config[0] 'eps': invalid value");

  /* A name a set spec field emits is a conflict. */
  static const int64_t rm[] = {1, 0}, l1[] = {0};
  const int64_t *const in_l[] = {rm, l1}, *const out_l[] = {rm};
  shloc_output_operand_alias alias = {.operand_index = 0};
  const char *const called[] = {"callback"};
  const struct {
    const char *name, *value;
  } conflicts[] = {{"has_side_effect", "true"},
                   {"operand_layouts", "[dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>]"},
                   {"result_layouts", "[dense<[1, 0]> : tensor<2xindex>]"},
                   {"output_operand_aliases", "[]"},
                   {"called_computations", "[@callback]"}};
  for (size_t i = 0; i < sizeof conflicts / sizeof conflicts[0]; i++) {
    spec = base_spec(&fx);
    spec.has_side_effect = true;
    spec.operand_layouts = in_l;
    spec.result_layouts = out_l;
    spec.n_output_operand_aliases = 1;
    spec.output_operand_aliases = &alias;
    spec.n_called_computations = 1;
    spec.called_computations = called;
    shloc_attr_pair c[] = {{conflicts[i].name, conflicts[i].value}};
    spec.n_mlir_attributes = 1;
    spec.mlir_attributes = c;
    expect_err(shloc_build_custom_call(fx.b, &spec, &call), SHLOC_ERR_INVALID_ARG, "conflicts with the spec's");
  }
  /* Spec fields are checked too. */
  spec = base_spec(&fx);
  spec.n_mlir_attributes = 0;
  const int64_t bad_rm[] = {0, 0};
  const int64_t *const bad_in[] = {bad_rm, l1};
  spec.operand_layouts = bad_in;
  spec.result_layouts = out_l;
  expect_err(shloc_build_custom_call(fx.b, &spec, &call), SHLOC_ERR_INVALID_ARG, "operand_layouts[0] is not a permutation");
  spec.operand_layouts = in_l;
  spec.result_layouts = NULL;
  expect_err(shloc_build_custom_call(fx.b, &spec, &call), SHLOC_ERR_INVALID_ARG, "'operand_layouts' is given without 'result_layouts'");
  spec = base_spec(&fx);
  spec.n_mlir_attributes = 0;
  spec.n_called_computations = 1;
  spec.called_computations = (const char *const[]){"missing"};
  expect_err(shloc_build_custom_call(fx.b, &spec, &call), SHLOC_ERR_INVALID_ARG, "no function 'missing'");
  /* backend_config forms and api_version. */
  const shloc_attr *dict;
  OK(shloc_attr_dict(fx.m, 0, NULL, &dict));
  spec = base_spec(&fx);
  spec.backend_config = dict;
  expect_err(shloc_build_custom_call(fx.b, &spec, &call), SHLOC_ERR_INVALID_ARG, "more than one form");
  spec = base_spec(&fx);
  spec.api_version = 2;
  expect_err(shloc_build_custom_call(fx.b, &spec, &call), SHLOC_ERR_INVALID_ARG, "needs api_version 4");
  spec.api_version = 9;
  expect_err(shloc_build_custom_call(fx.b, &spec, &call), SHLOC_ERR_INVALID_ARG, "api_version must be 1..4");
  spec = base_spec(&fx);
  spec.n_backend_config_pairs = 0;
  spec.legacy_backend_config = "x";
  spec.legacy_backend_config_len = 1;
  spec.api_version = 4;
  expect_err(shloc_build_custom_call(fx.b, &spec, &call), SHLOC_ERR_INVALID_ARG, "needs api_version 1..3");
  spec = base_spec(&fx);
  spec.n_backend_config_pairs = 0;
  OK(shloc_attr_bool(fx.m, true, &dict));
  spec.backend_config = dict;
  expect_err(shloc_build_custom_call(fx.b, &spec, &call), SHLOC_ERR_INVALID_ARG, "must be a dictionary");
  spec = base_spec(&fx);
  spec.operand_element_types = (const char *const[]){NULL, "f99"};
  expect_err(shloc_build_custom_call(fx.b, &spec, &call), SHLOC_ERR_INVALID_ARG, "operand_element_types[1]");
  spec = base_spec(&fx);
  spec.call_target_name = "";
  expect_err(shloc_build_custom_call(fx.b, &spec, &call), SHLOC_ERR_INVALID_ARG, "call_target_name is empty");

  /* Nothing of the failed calls is left in the module. */
  char *after = print(fx.m, SHLOC_PRINT_GENERIC);
  assert_string_equal(before, after);
  assert_int_equal(count_ops(fx.m), ops_before);
  free(after);
  /* The same names are accepted when their field is unset; a quoted name and
   * dialect attributes too. */
  spec = base_spec(&fx);
  shloc_attr_pair okp[] = {{"has_side_effect", "true"},
                           {"called_computations", "[@callback]"},
                           {"\"sdy.quoted name\"", "#sdy<\"}\">"},
                           {"operand_layouts", "[dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>]"},
                           {"result_layouts", "[dense<[1, 0]> : tensor<2xindex>]"}};
  spec.n_mlir_attributes = 5;
  spec.mlir_attributes = okp;
  OK(shloc_build_custom_call(fx.b, &spec, &call));
  assert_int_equal(count_ops(fx.m), ops_before + 1);
  *lim = saved;
  free(before);
  shloc_module_destroy(fx.m);
}

/* ---- what a handler sees; execution ------------------------------------ */

static char seen_names[8][32];
static int64_t seen_count;
static float seen_scale;

/* Typed handler: records its attributes, y = x * softmax_scale. */
static XLA_FFI_Error *recording_handler(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  seen_count = cf->attrs.size;
  for (int64_t i = 0; i < cf->attrs.size && i < 8; i++)
    snprintf(seen_names[i], sizeof seen_names[i], "%.*s", (int)cf->attrs.names[i]->len, cf->attrs.names[i]->ptr);
  if (!shloc_ffi_attr_get_f32(&cf->attrs, "softmax_scale", &seen_scale))
    return shloc_ffi_errorf(cf->api, XLA_FFI_Error_Code_INVALID_ARGUMENT, "no softmax_scale");
  const XLA_FFI_Buffer *x = shloc_ffi_arg(cf, 0);
  XLA_FFI_Buffer *y = shloc_ffi_ret(cf, 0);
  int64_t n = shloc_ffi_buffer_elements(x);
  for (int64_t i = 0; i < n; i++) ((float *)y->data)[i] = ((const float *)x->data)[i] * seen_scale;
  return NULL;
}

static void test_handler_sees_backend_config_only(void **state) {
  (void)state;
  cc_fixture fx;
  cc_setup(&fx);
  shloc_custom_call_spec spec = base_spec(&fx);
  spec.call_target_name = "recorder";
  spec.n_operands = 1;
  /* Layouts through mlir_attributes: row-major for the one operand. */
  const shloc_attr_pair user[] = {user_attrs[0], user_attrs[1], user_attrs[2],
                                  {"operand_layouts", "[dense<[1, 0]> : tensor<2xindex>]"},
                                  {"result_layouts", "[dense<[1, 0]> : tensor<2xindex>]"}};
  spec.mlir_attributes = user;
  shloc_op *call;
  OK(shloc_build_custom_call(fx.b, &spec, &call));
  OK(shloc_func_return(fx.f, 1, (shloc_value *[]){shloc_op_result(call, 0)}));
  OK(shloc_module_verify(fx.m));
  shloc_ffi_registry *reg;
  OK(shloc_ffi_registry_create(&reg));
  OK(shloc_ffi_register_handler(reg, "recorder", "cpu", recording_handler));
  shloc_executable *x;
  OK(shloc_executable_create(fx.m, "main", reg, &x));
  float in[32];
  int32_t vin[8] = {0};
  for (int i = 0; i < 32; i++) in[i] = (float)i;
  const int64_t d[] = {4, 8};
  shloc_tensor args[] = {{XLA_FFI_DataType_F32, 2, d, in, sizeof in}, {XLA_FFI_DataType_S32, 1, d + 1, vin, sizeof vin}};
  shloc_tensor res = {0};
  OK(shloc_executable_run(x, args, 2, &res, 1));
  /* The handler saw the three backend_config entries and nothing else. */
  assert_int_equal(seen_count, 3);
  assert_string_equal(seen_names[0], "causal");
  assert_string_equal(seen_names[1], "softmax_scale");
  assert_string_equal(seen_names[2], "window");
  assert_true(seen_scale == 0.125f);
  for (int i = 0; i < 32; i++) assert_true(((float *)res.data)[i] == in[i] * 0.125f);
  free(res.data);
  shloc_executable_destroy(x);
  shloc_ffi_registry_destroy(reg);
  shloc_module_destroy(fx.m);
}

/* Copies the operand's bytes as they arrive. */
static XLA_FFI_Error *raw_copy_handler(XLA_FFI_CallFrame *cf) {
  SHLOC_FFI_HANDLER_PROLOGUE(cf, XLA_FFI_ExecutionStage_EXECUTE);
  const XLA_FFI_Buffer *x = shloc_ffi_arg(cf, 0);
  XLA_FFI_Buffer *y = shloc_ffi_ret(cf, 0);
  memcpy(y->data, x->data, (size_t)shloc_ffi_buffer_elements(x) * sizeof(float));
  return NULL;
}

/* operand_layouts given through mlir_attributes (the spec field unset) are
 * layout constraints execution honors: a column-major operand reaches the
 * handler transposed in memory. */
static void test_mlir_layouts_honored(void **state) {
  (void)state;
  shloc_module *m = new_module();
  const int64_t d[] = {2, 3};
  const shloc_type *t = tensor(m, "f32", 2, d);
  shloc_func *f;
  OK(shloc_func_create(m, "main", 1, &t, 0, NULL, 0, &f));
  shloc_value *x = shloc_func_arg(f, 0);
  const shloc_attr_pair layouts[] = {{"operand_layouts", "[dense<[0, 1]> : tensor<2xindex>]"},
                                     {"result_layouts", "[dense<[1, 0]> : tensor<2xindex>]"}};
  shloc_custom_call_spec spec = {.call_target_name = "raw_copy", .n_operands = 1, .operands = &x, .n_results = 1,
                                 .result_types = &t, .n_mlir_attributes = 2, .mlir_attributes = layouts};
  shloc_op *call;
  OK(shloc_build_custom_call(shloc_func_body(f), &spec, &call));
  OK(shloc_func_return(f, 1, (shloc_value *[]){shloc_op_result(call, 0)}));
  shloc_ffi_registry *reg;
  OK(shloc_ffi_registry_create(&reg));
  OK(shloc_ffi_register_handler(reg, "raw_copy", "cpu", raw_copy_handler));
  shloc_executable *ex;
  OK(shloc_executable_create(m, "main", reg, &ex));
  float in[6] = {1, 2, 3, 4, 5, 6};
  shloc_tensor arg = {XLA_FFI_DataType_F32, 2, d, in, sizeof in}, res = {0};
  OK(shloc_executable_run(ex, &arg, 1, &res, 1));
  const float want[6] = {1, 4, 2, 5, 3, 6};
  for (int i = 0; i < 6; i++) assert_true(((float *)res.data)[i] == want[i]);
  free(res.data);
  shloc_executable_destroy(ex);
  shloc_ffi_registry_destroy(reg);
  shloc_module_destroy(m);
}

/* Built programs run: dot_general, reduce, broadcast, compare/select,
 * call, while, sort, convert. */
static void test_built_module_executes(void **state) {
  (void)state;
  shloc_module *m = new_module();
  const int64_t d23[] = {2, 3}, d32[] = {3, 2};
  const shloc_type *t23 = tensor(m, "f32", 2, d23), *s0 = tensor(m, "f32", 0, NULL), *ti = tensor(m, "i32", 0, NULL);
  shloc_func *twice;
  OK(shloc_func_create(m, "twice", 1, &s0, 0, NULL, SHLOC_FUNC_PRIVATE, &twice));
  shloc_value *ta = shloc_func_arg(twice, 0), *tr;
  OK(shloc_build_binary(shloc_func_body(twice), "stablehlo.add", ta, ta, &tr));
  OK(shloc_func_return(twice, 1, &tr));
  shloc_func *f;
  OK(shloc_func_create(m, "main", 1, &t23, 0, NULL, 0, &f));
  shloc_block *b = shloc_func_body(f);
  shloc_value *x = shloc_func_arg(f, 0);
  const float w[6] = {1, 0, 0, 1, 1, 1}; /* 3x2 */
  shloc_value *wc, *y, *zero, *s, *bc, *gt, *sel, *flat, *sorted, *as64;
  OK(shloc_build_constant(b, tensor(m, "f32", 2, d32), w, sizeof w, &wc));
  shloc_dot_dims dd = {.n_contracting = 1, .lhs_contracting = (const int64_t[]){1}, .rhs_contracting = (const int64_t[]){0}};
  OK(shloc_build_dot_general(b, x, wc, &dd, &y)); /* [[x00 + x02, x01 + x02], ...] */
  OK(shloc_build_constant_splat(b, s0, 0.0, &zero));
  OK(shloc_build_reduce_with(b, y, zero, "stablehlo.add", 1, (const int64_t[]){1}, &s)); /* row sums, 2 */
  OK(shloc_build_broadcast_in_dim(b, s, 2, (const int64_t[]){2, 2}, (const int64_t[]){0}, &bc));
  OK(shloc_build_compare(b, "GT", y, bc, NULL, &gt));
  OK(shloc_build_select(b, gt, y, bc, &sel)); /* max(y, rowsum) = rowsum */
  OK(shloc_build_reshape(b, sel, 1, (const int64_t[]){4}, &flat));
  shloc_region *cmp;
  OK(shloc_region_create(b, 2, (const shloc_type *[]){s0, s0}, &cmp));
  shloc_value *c;
  OK(shloc_build_compare(shloc_region_body(cmp), "LT", shloc_region_arg(cmp, 0), shloc_region_arg(cmp, 1), NULL, &c));
  OK(shloc_build_return(shloc_region_body(cmp), 1, &c));
  shloc_op *so;
  OK(shloc_build_sort(b, 1, &flat, 0, true, cmp, &so));
  sorted = shloc_op_result(so, 0);
  /* while (i < 3) acc = twice(acc) on the first row sum */
  shloc_op_spec sl = {.name = "stablehlo.slice", .n_operands = 1, .operands = &s, .n_attrs = 3,
                      .attrs = (shloc_attr_pair[]){{"start_indices", "array<i64: 0>"}, {"limit_indices", "array<i64: 1>"},
                                                   {"strides", "array<i64: 1>"}}};
  shloc_op *slop;
  OK(shloc_build_op(b, &sl, &slop));
  shloc_value *first;
  OK(shloc_build_reshape(b, shloc_op_result(slop, 0), 0, NULL, &first));
  const int32_t i0 = 0, i3 = 3, i1 = 1;
  shloc_value *ci0, *ci3, *ci1;
  OK(shloc_build_constant(b, ti, &i0, 4, &ci0));
  OK(shloc_build_constant(b, ti, &i3, 4, &ci3));
  OK(shloc_build_constant(b, ti, &i1, 4, &ci1));
  const shloc_type *wt[] = {ti, s0};
  shloc_region *cond, *body;
  OK(shloc_region_create(b, 2, wt, &cond));
  OK(shloc_region_create(b, 2, wt, &body));
  shloc_value *lt, *inc;
  OK(shloc_build_compare(shloc_region_body(cond), "LT", shloc_region_arg(cond, 0), ci3, NULL, &lt));
  OK(shloc_build_return(shloc_region_body(cond), 1, &lt));
  OK(shloc_build_binary(shloc_region_body(body), "stablehlo.add", shloc_region_arg(body, 0), ci1, &inc));
  shloc_value *barg = shloc_region_arg(body, 1);
  shloc_op *call;
  OK(shloc_build_call(shloc_region_body(body), "twice", 1, &barg, &call));
  OK(shloc_build_return(shloc_region_body(body), 2, (shloc_value *[]){inc, shloc_op_result(call, 0)}));
  shloc_op *wh;
  OK(shloc_build_while(b, 2, (shloc_value *[]){ci0, first}, cond, body, &wh));
  OK(shloc_build_convert(b, shloc_op_result(wh, 1), "f64", &as64));
  OK(shloc_func_return(f, 2, (shloc_value *[]){sorted, as64}));
  OK(shloc_module_verify(m));

  shloc_executable *ex;
  OK(shloc_executable_create(m, "main", NULL, &ex));
  const float xin[6] = {1, 2, 3, 4, 5, 6};
  shloc_tensor arg = {XLA_FFI_DataType_F32, 2, d23, (void *)xin, sizeof xin}, res[2] = {{0}};
  OK(shloc_executable_run(ex, &arg, 1, res, 2));
  /* y = [[4, 5], [10, 11]]; row sums [9, 21]; select keeps the sums. */
  const float want[4] = {9, 9, 21, 21};
  for (int i = 0; i < 4; i++) assert_true(((float *)res[0].data)[i] == want[i]);
  assert_true(*(double *)res[1].data == 72.0); /* 9 * 2^3 */
  free(res[0].data);
  free(res[1].data);
  shloc_executable_destroy(ex);
  shloc_module_destroy(m);
}

/* ---- no process-global interning ---------------------------------------- */

/* Heap bytes in use: glibc's count, or ASan's when it owns the heap. */
static size_t heap_in_use(void) {
#if defined(__SANITIZE_ADDRESS__)
  return __sanitizer_get_current_allocated_bytes();
#else
  return mallinfo2().uordblks;
#endif
}

/* 10^6 distinct attribute names in 4 modules of 250 custom calls with 1000
 * mlir_attributes each: the names live in each module's arena, and freeing
 * the module returns the process to its baseline heap use. */
static void test_no_global_interning(void **state) {
  (void)state;
  enum { MODULES = 4, CALLS = 250, PAIRS = 1000 };
  static char names[PAIRS][16];
  shloc_attr_pair pairs[PAIRS];
  /* One small warm-up module, so lazily initialised allocator state is in the baseline. */
  shloc_module *warm = new_module();
  shloc_module_destroy(warm);
  size_t baseline = heap_in_use();
  unsigned next = 0;
  for (int mod = 0; mod < MODULES; mod++) {
    shloc_module *m = new_module();
    size_t arena_before = m->arena.bytes_reserved;
    shloc_func *f;
    OK(shloc_func_create(m, "main", 0, NULL, 0, NULL, 0, &f));
    for (int c = 0; c < CALLS; c++) {
      for (int k = 0; k < PAIRS; k++) {
        snprintf(names[k], sizeof names[k], "n%07u", next++);
        pairs[k] = (shloc_attr_pair){names[k], "unit"};
      }
      shloc_custom_call_spec spec = {.call_target_name = "sink", .has_side_effect = true,
                                     .n_mlir_attributes = PAIRS, .mlir_attributes = pairs};
      OK(shloc_build_custom_call(shloc_func_body(f), &spec, NULL));
    }
    /* Every name was copied into the module's arena (8 bytes each at least). */
    assert_true(m->arena.bytes_reserved - arena_before > (size_t)CALLS * PAIRS * 8);
    assert_non_null(find_op(m, "stablehlo.custom_call"));
    shloc_module_destroy(m);
    size_t now = heap_in_use();
    if (now > baseline + 64 * 1024)
      fail_msg("heap in use grew from %zu to %zu bytes after freeing module #%d", baseline, now, mod);
  }
  assert_int_equal(next, 1000000);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ops_and_inference),
      cmocka_unit_test(test_scopes_and_structure),
      cmocka_unit_test(test_typed_attributes),
      cmocka_unit_test(test_custom_call_emission_and_round_trip),
      cmocka_unit_test(test_custom_call_fields),
      cmocka_unit_test(test_custom_call_rejections),
      cmocka_unit_test(test_handler_sees_backend_config_only),
      cmocka_unit_test(test_mlir_layouts_honored),
      cmocka_unit_test(test_built_module_executes),
      cmocka_unit_test(test_no_global_interning),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
