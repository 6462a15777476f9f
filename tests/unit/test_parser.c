/* Parser robustness and round trips, all through the public API: truncated
 * input, limits (sizes, nesting, element counts), bad bytes, every attribute
 * and dense literal form, aliases, locations, resources, multi-result values,
 * and parse -> print -> parse fixed points in pretty and generic form. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "group_ctx.h"
#include "ir/ir.h" /* the module arena, for the memory bound test */
#include "print_ok.h"
#include "shloc/shloc.h"

/* ---- helpers ---------------------------------------------------------- */

static shloc_status parse_n(const char *text, size_t len, shloc_module **m) {
  return shloc_module_parse(ctx, "t.mlir", text, len, 1, m);
}

static shloc_module *parse_ok(const char *text) {
  shloc_module *m = NULL;
  shloc_status st = parse_n(text, strlen(text), &m);
  if (st) {
    char *msg = shloc_status_render(st, text, strlen(text));
    shloc_status_free(st);
    fail_msg("unexpected parse error: %s", msg ? msg : "?");
  }
  assert_non_null(m);
  return m;
}

/* Parses and prints `text` in form `flags`. */
static char *reprint(const char *text, unsigned flags) {
  shloc_module *m = parse_ok(text);
  char *out = print(m, flags);
  shloc_module_destroy(m);
  return out;
}

/* The error `text` must produce: code, a message containing `needle`, and
 * (when line > 0) the position t.mlir:line:col. */
static void expect_error_n(const char *text, size_t len, shloc_code code, const char *needle, int line, int col) {
  shloc_module *m = (shloc_module *)1;
  shloc_status st = parse_n(text, len, &m);
  if (!st) {
    shloc_module_destroy(m);
    fail_msg("expected an error containing '%s' for: %.200s", needle, text);
  }
  assert_null(m);
  if (shloc_status_code(st) != code || !strstr(shloc_status_message(st), needle))
    fail_msg("got code %d '%s', expected code %d '%s'", (int)shloc_status_code(st), shloc_status_message(st), (int)code,
             needle);
  const char *file;
  int l, c;
  shloc_status_location(st, &file, &l, &c);
  if (line > 0) {
    assert_non_null(file);
    assert_string_equal(file, "t.mlir");
    if (l != line || c != col) fail_msg("'%s' at %d:%d, expected %d:%d", shloc_status_message(st), l, c, line, col);
  }
  shloc_status_free(st);
}

static void expect_error(const char *text, shloc_code code, const char *needle, int line, int col) {
  expect_error_n(text, strlen(text), code, needle, line, col);
}

/* parse -> print -> parse -> print is a fixed point in pretty and generic
 * form (with and without locations), and the generic text parses back to the
 * same pretty text.  Returns the pretty form (caller frees). */
static char *round_trip(const char *text) {
  char *first = NULL;
  for (int dbg = 0; dbg < 2; dbg++) {
    unsigned f = dbg ? SHLOC_PRINT_DEBUGINFO : 0;
    shloc_module *m = parse_ok(text);
    assert_null(shloc_module_verify(m));
    char *pretty = print(m, f), *generic = print(m, f | SHLOC_PRINT_GENERIC);
    shloc_module_destroy(m);
    char *pretty2 = reprint(pretty, f), *generic2 = reprint(generic, f | SHLOC_PRINT_GENERIC);
    char *pretty3 = reprint(generic, f);
    assert_string_equal(pretty, pretty2);
    assert_string_equal(generic, generic2);
    assert_string_equal(pretty, pretty3);
    free(pretty2);
    free(generic2);
    free(pretty3);
    free(generic);
    if (dbg) free(pretty);
    else first = pretty;
  }
  return first;
}

/* Wraps one attribute into an op, round-trips it and checks the pretty form
 * prints it as `want`. */
static void check_attr(const char *attr, const char *want) {
  char text[4096], expect[4096];
  snprintf(text, sizeof text, "\"t.op\"() {x = %s} : () -> ()", attr);
  snprintf(expect, sizeof expect, "module {\n  \"t.op\"() {x = %s} : () -> ()\n}\n", want);
  char *got = round_trip(text);
  if (strcmp(got, expect) != 0) fail_msg("attribute %s\nprinted: %s\nexpected: %s", attr, got, expect);
  free(got);
}

static void check_attr_error(const char *attr, shloc_code code, const char *needle) {
  char text[4096];
  snprintf(text, sizeof text, "\"t.op\"() {x = %s} : () -> ()", attr);
  expect_error(text, code, needle, 0, 0);
}

/* A module using most of the syntax: aliases, locations, attributes of every
 * family, dense forms, regions with block arguments, multi-result values and
 * a resource section. */
static const char rich_module[] =
    "#loc1 = loc(\"model.py\":12:3)\n"
    "!vec = tensor<4xf32>\n"
    "#attrs = {note = \"alias\", n = 3 : i32}\n"
    "module @m attributes {mhlo.num_partitions = 1 : i32, sdy.mesh = #sdy.mesh<[\"x\"=2]>} {\n"
    "  func.func public @main(%arg0: !vec {jax.arg_info = \"x\"} loc(\"x\"), %arg1: tensor<4xf32>) -> (tensor<4xf32> "
    "{jax.result_info = \"\"}) {\n"
    "    %c = stablehlo.constant dense<[1.0, -2.5, 0x7FC00000, 4.0]> : tensor<4xf32> loc(#loc1)\n"
    "    %h = stablehlo.constant dense<\"0x0000803F0000803F0000803F00000040\"> : !vec\n"
    "    %0 = stablehlo.add %arg0, %c : tensor<4xf32> loc(callsite(\"f\"(\"a.py\":1:2) at \"g\"(\"b.py\":3:4)))\n"
    "    %1:2 = \"t.two\"(%0, %h) {a = #attrs, b = [1, 2.5, \"s\\n\"], c = array<i64: 1, -2>, d = @f::@g} : "
    "(tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<i1>) loc(fused[\"a\", #loc1])\n"
    "    %2, %3 = \"t.pair\"(%1#1) {e = #stablehlo<comparison_direction LT>, s = #sdy.sharding<@mesh, [{}, "
    "{\"x\"}]>} : (tensor<i1>) -> (tensor<i32>, tensor<i32>)\n"
    "    %4 = stablehlo.compare GT, %1#0, %arg1, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>\n"
    "    %5 = \"t.region\"(%2) ({\n"
    "    ^bb0(%x: tensor<i32> loc(\"bx\"), %y: tensor<i32>):\n"
    "      %6 = stablehlo.add %x, %y : tensor<i32>\n"
    "      \"stablehlo.return\"(%6) : (tensor<i32>) -> ()\n"
    "    }, {\n"
    "      \"stablehlo.return\"(%3) : (tensor<i32>) -> ()\n"
    "    }) {q = !quant.uniform<i8:f32, 0.5:10>, r = dense_resource<blob> : tensor<2xi8>} : (tensor<i32>) -> "
    "tensor<i32> loc(\"region\"(#loc3))\n"
    "    return %0 : tensor<4xf32> loc(#loc)\n"
    "  } loc(\"main\")\n"
    "} loc(#loc)\n"
    "#loc = loc(unknown)\n"
    "#loc3 = loc(\"x.py\":1:2 to 3:4)\n"
    "{-#\n"
    "  dialect_resources: {\n"
    "    builtin: {\n"
    "      blob: \"0x040000000102\"\n"
    "    }\n"
    "  }\n"
    "#-}\n";

/* ---- truncation --------------------------------------------------------- */

static void test_rich_module_round_trips(void **state) {
  (void)state;
  char *pretty = round_trip(rich_module);
  assert_non_null(strstr(pretty, "{-#\n  dialect_resources"));
  assert_non_null(strstr(pretty, "#-}\n"));
  assert_non_null(strstr(pretty, "%1:2 = \"t.two\""));
  assert_non_null(strstr(pretty, "%2:2 = \"t.pair\"(%1#1)"));
  free(pretty);
  char *dbg = reprint(rich_module, SHLOC_PRINT_DEBUGINFO);
  assert_non_null(strstr(dbg, "loc(callsite(\"f\"(\"a.py\":1:2) at \"g\"(\"b.py\":3:4)))"));
  assert_non_null(strstr(dbg, "loc(fused[\"a\", #loc1])"));
  assert_non_null(strstr(dbg, "\n#loc1 = loc(\"model.py\":12:3)\n"));
  assert_non_null(strstr(dbg, "\n#loc3 = loc(\"x.py\":1:2 to 3:4)\n"));
  free(dbg);
}

/* Every prefix of a real module either parses or fails cleanly with a
 * position inside the prefix; successful prefixes also verify and print. */
static void test_every_prefix(void **state) {
  (void)state;
  size_t n = strlen(rich_module);
  size_t ok = 0, verified = 0;
  for (size_t len = 0; len <= n; len++) {
    /* An exact-size heap copy so that ASan sees any read past the end. */
    char *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    memcpy(copy, rich_module, len);
    shloc_module *m = NULL;
    shloc_status st = parse_n(copy, len, &m);
    if (st) {
      assert_null(m);
      const char *file;
      int line, col;
      shloc_status_location(st, &file, &line, &col);
      assert_true(line >= 1 && col >= 1);
      assert_true(strlen(shloc_status_message(st)) > 0);
      shloc_status_free(st);
    } else {
      ok++;
      /* The whole module is valid; a shorter prefix that parses (the empty
       * module, or the module minus trailing whitespace) is valid too, or
       * fails verification with a located message. */
      shloc_status vs = shloc_module_verify(m);
      if (vs) {
        const char *file;
        int line, col;
        shloc_status_location(vs, &file, &line, &col);
        if (len == n || line < 1 || !shloc_status_message(vs)[0])
          fail_msg("prefix of %zu/%zu bytes: verify: %s at %d:%d", len, n, shloc_status_message(vs), line, col);
        shloc_status_free(vs);
      } else {
        verified++;
        free(print(m, 0)); /* pretty printers may rely on verified structure */
      }
      free(print(m, SHLOC_PRINT_GENERIC | SHLOC_PRINT_DEBUGINFO));
      shloc_module_destroy(m);
    }
    free(copy);
  }
  assert_true(ok >= 2); /* the empty input and the whole module at least */
  assert_true(verified >= 2);
}

/* ---- limits --------------------------------------------------------------- */

static void test_huge_dimensions(void **state) {
  (void)state;
  expect_error("\"t.op\"() : () -> tensor<99999999999x99999999999xf32>", SHLOC_ERR_LIMIT, "more elements than the limit",
               1, 18);
  expect_error("\"t.op\"() {x = dense<1.0> : tensor<99999999999x99999999999xf32>} : () -> ()", SHLOC_ERR_LIMIT,
               "more elements than the limit", 1, 28);
  /* Overflow of the element count itself (2^64 and beyond). */
  expect_error("\"t.op\"() : () -> tensor<4294967296x4294967296xf32>", SHLOC_ERR_LIMIT, "limit", 1, 18);
  expect_error("\"t.op\"() : () -> tensor<99999999999999999999xf32>", SHLOC_ERR_PARSE, "dimension size too large", 0, 0);
  /* The configured limit applies; zero-sized tensors are fine at any size. */
  shloc_limits *lim = shloc_context_limits(ctx);
  uint64_t saved = lim->max_elements;
  lim->max_elements = 1000;
  expect_error("\"t.op\"() : () -> tensor<10x101xf32>", SHLOC_ERR_LIMIT, "limit of 1000", 1, 18);
  shloc_module_destroy(parse_ok("%0 = \"t.op\"() : () -> tensor<10x100xf32>"));
  shloc_module_destroy(parse_ok("%0 = \"t.op\"() : () -> tensor<0x99999999999x99999999999xf32>"));
  lim->max_elements = saved;
  /* The file size limit. */
  size_t saved_bytes = lim->max_file_bytes;
  lim->max_file_bytes = 10;
  expect_error("module {\n}\n", SHLOC_ERR_LIMIT, "limit", 0, 0);
  lim->max_file_bytes = saved_bytes;
}

static char *repeat(const char *head, const char *unit, size_t n, const char *mid, const char *unit2, const char *tail) {
  size_t hl = strlen(head), ul = strlen(unit), ml = strlen(mid), u2 = strlen(unit2), tl = strlen(tail);
  char *s = malloc(hl + n * (ul + u2) + ml + tl + 1), *o = s;
  assert_non_null(s);
  memcpy(o, head, hl), o += hl;
  for (size_t i = 0; i < n; i++) memcpy(o, unit, ul), o += ul;
  memcpy(o, mid, ml), o += ml;
  for (size_t i = 0; i < n; i++) memcpy(o, unit2, u2), o += u2;
  memcpy(o, tail, tl + 1);
  return s;
}

static void expect_nesting_error(const char *head, const char *open, const char *mid, const char *close,
                                 const char *tail, size_t n) {
  char *s = repeat(head, open, n, mid, close, tail);
  expect_error(s, SHLOC_ERR_LIMIT, "nesting deeper than the limit", 0, 0);
  free(s);
}

static void test_deep_nesting(void **state) {
  (void)state;
  expect_nesting_error("\"t.op\"() {x = ", "[", "1", "]", "} : () -> ()", 100000);
  expect_nesting_error("\"t.op\"() {x = ", "{a = ", "1", "}", "} : () -> ()", 100000);
  expect_nesting_error("\"t.op\"() ", "({\"t.r\"() ", "", ": () -> ()})", " : () -> ()", 10000);
  expect_nesting_error("\"t.op\"() : () -> ", "tuple<", "f32", ">", "", 100000);
  expect_nesting_error("\"t.op\"() : () -> ", "(", "", ") -> ()", "", 100000);
  expect_nesting_error("\"t.op\"() : () -> () loc(", "callsite(", "\"a\"", " at \"b\")", ")", 100000);
  expect_nesting_error("\"t.op\"() {x = #sdy.a<", "[", "", "]", ">} : () -> ()", 100000);
  expect_nesting_error("\"t.op\"() : () -> tensor<2x", "tuple<", "f32", ">", ">", 100000);
  /* Unbalanced: only openers, truncated input. */
  expect_nesting_error("\"t.op\"() {x = ", "[", "", "", "", 100000);
  /* Moderate nesting is fine and round-trips. */
  char *s = repeat("\"t.op\"() {x = ", "[", 50, "1", "]", "} : () -> ()");
  free(round_trip(s));
  free(s);
  s = repeat("func.func @f() {\n", "\"t.r\"() ({\n", 40, "", "}) : () -> ()\n", "return\n}\n");
  free(round_trip(s));
  free(s);
}

/* Dialect attribute and type bodies are kept as text, but their brackets must
 * nest as MLIR requires; the nesting limit counts depth, not how many
 * brackets a flat body has. */
static void test_opaque_bodies(void **state) {
  (void)state;
  /* 200 sibling groups (600 brackets) at depth 2, under the default limit of 256. */
  char *s = repeat("\"t.op\"() {x = #sdy.a<", "[i], (j), {k=1}, ", 200, "", "", "->([i])>} : () -> ()");
  free(round_trip(s));
  free(s);
  expect_error("\"t.op\"() {x = #sdy.a<([i, j])->([i, j]) {i=2, j]>} : () -> ()", SHLOC_ERR_PARSE,
               "mismatched ']' (expected '}')", 1, 48);
  expect_error("\"t.op\"() : () -> !quant.x<i8:f32, (0.5]>", SHLOC_ERR_PARSE, "mismatched ']' (expected ')')", 1,
               39);
}

/* 10^6 distinct names in one dictionary: parses, and the module's memory stays
 * proportional to the input. */
static void test_many_attribute_names(void **state) {
  (void)state;
  const size_t n = 1000000;
  for (int nested = 0; nested < 2; nested++) {
    size_t cap = n * 24 + 64, len = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    len += (size_t)snprintf(s + len, cap - len, nested ? "\"t.op\"() {d = {" : "\"t.op\"() {");
    for (size_t i = 0; i < n; i++) len += (size_t)snprintf(s + len, cap - len, "%sa%zu = %zu", i ? ", " : "", i, i);
    len += (size_t)snprintf(s + len, cap - len, nested ? "}} : () -> ()" : "} : () -> ()");
    shloc_module *m = NULL;
    shloc_status st = parse_n(s, len, &m);
    assert_null(st);
    const shl_op *op = m->top->regions[0].blocks[0]->first;
    assert_int_equal(nested ? op->attrs[0].attr->u.dict.n : op->n_attrs, n);
    size_t used = m->arena.bytes_reserved;
    if (used > 16 * len) fail_msg("arena holds %zu bytes for %zu bytes of input", used, len);
    shloc_module_destroy(m);
    /* A duplicate among them is reported: rename the last entry to a0. */
    char *last = s + len;
    while (memcmp(last, ", a", 3) != 0) last--;
    memcpy(last + 2, "a0     ", 7); /* "a999999" -> "a0     " */
    expect_error_n(s, len, SHLOC_ERR_PARSE, "duplicate", 0, 0);
    free(s);
  }
}

/* ---- bytes and strings ------------------------------------------------------ */

static void test_bad_bytes(void **state) {
  (void)state;
  expect_error("module {\n  \xff\n}\n", SHLOC_ERR_PARSE, "non-ASCII", 2, 3);
  expect_error("\xc3\xa9", SHLOC_ERR_PARSE, "non-ASCII", 1, 1);
  expect_error_n("module {\n\0}\n", 12, SHLOC_ERR_PARSE, "unexpected character", 2, 1);
  expect_error_n("module {}\0", 10, SHLOC_ERR_PARSE, "unexpected character", 1, 10);
  expect_error("\"t.op\"() : () -> tensor<2x\xffxf32>", SHLOC_ERR_PARSE, "non-ASCII", 1, 27);
  /* Inside strings any byte is data: printed escaped, parsed back. */
  char *p = round_trip("\"t.op\"() {u, v = unit} : () -> ()");
  assert_non_null(strstr(p, "\"t.op\"() {u, v} : () -> ()"));
  free(p);
  p = round_trip("\"t.op\"() {s = \"caf\xc3\xa9 \xff\"} : () -> ()");
  assert_non_null(strstr(p, "s = \"caf\\C3\\A9 \\FF\""));
  free(p);
  const char nul[] = "\"t.op\"() {s = \"a\0b\"} : () -> ()";
  shloc_module *m = NULL;
  assert_null(parse_n(nul, sizeof nul - 1, &m));
  p = print(m, 0);
  shloc_module_destroy(m);
  assert_non_null(strstr(p, "s = \"a\\00b\""));
  free(round_trip(p));
  free(p);
  p = round_trip("\"t.\xff\"() {\"k\\00\" = 1 : i8} : () -> ()");
  assert_non_null(strstr(p, "\"t.\\FF\"() {\"k\\00\" = 1 : i8}"));
  free(p);
}

static void test_unterminated_strings(void **state) {
  (void)state;
  expect_error("\"t.op\"() {s = \"abc} : () -> ()", SHLOC_ERR_PARSE, "unterminated string", 1, 15);
  expect_error("\"t.op\"() {s = \"abc\\\"} : () -> ()", SHLOC_ERR_PARSE, "unterminated string", 1, 15);
  expect_error("\"t.op\"() {s = \"abc\\", SHLOC_ERR_PARSE, "unterminated string", 1, 15);
  expect_error("\"t.op", SHLOC_ERR_PARSE, "unterminated string", 1, 1);
  expect_error("\"", SHLOC_ERR_PARSE, "unterminated string", 1, 1);
  expect_error("\"t.op\"() {s = \"line\nbreak\"} : () -> ()", SHLOC_ERR_PARSE, "unterminated string", 1, 15);
  expect_error("\"t.op\"() {s = \"esc\\\nx\"} : () -> ()", SHLOC_ERR_PARSE, "unterminated string", 1, 15);
  expect_error("\"t.op\"() {s = @\"sym} : () -> ()", SHLOC_ERR_PARSE, "unterminated string", 1, 15);
  expect_error("func.func @\"f", SHLOC_ERR_PARSE, "unterminated string", 1, 11);
  expect_error("\"t.op\"() {s = \"bad \\q\"} : () -> ()", SHLOC_ERR_PARSE, "escape", 1, 15);
  /* Escapes that are fine. */
  char *p = round_trip("\"t.op\"() {s = \"q\\\" b\\\\ n\\n t\\t h\\41\\7e\"} : () -> ()");
  assert_non_null(strstr(p, "s = \"q\\22 b\\\\ n\\0A t\\09 hA~\""));
  free(p);
}

/* ---- attributes --------------------------------------------------------------- */

static void test_integer_attrs(void **state) {
  (void)state;
  check_attr("42", "42 : i64");
  check_attr("-3 : i32", "-3 : i32");
  check_attr("255 : i8", "-1 : i8");
  check_attr("0xFF : i32", "255 : i32");
  check_attr("010 : i32", "10 : i32");
  check_attr("-9223372036854775808", "-9223372036854775808 : i64");
  check_attr("18446744073709551615 : ui64", "18446744073709551615 : ui64");
  check_attr("7 : ui4", "7 : ui4");
  check_attr("-2 : si8", "-2 : si8");
  check_attr("3 : index", "3 : index");
  check_attr("1 : i1", "true");
  check_attr("0 : i1", "false");
  check_attr("true", "true");
  check_attr("false", "false");
  check_attr_error("256 : i8", SHLOC_ERR_PARSE, "out of range");
  check_attr_error("-129 : i8", SHLOC_ERR_PARSE, "out of range");
  check_attr_error("-1 : ui8", SHLOC_ERR_PARSE, "negative");
  check_attr_error("18446744073709551616", SHLOC_ERR_PARSE, "out of range");
  check_attr_error("0x10000000000000000 : i64", SHLOC_ERR_PARSE, "out of range");
  check_attr_error("2 : i1", SHLOC_ERR_PARSE, "out of range");
  check_attr_error("1 : tensor<f32>", SHLOC_ERR_PARSE, "integer or float type");
  check_attr_error("-3 : !quant.uniform<i8:f32, 0.5:10>", SHLOC_ERR_PARSE, "integer or float type");
  check_attr_error("1.0 : complex<f32>", SHLOC_ERR_PARSE, "integer or float type");
  check_attr_error("1.5 : i32", SHLOC_ERR_PARSE, "non-float");
  check_attr_error("- x", SHLOC_ERR_PARSE, "expected number");
}

static void test_float_attrs(void **state) {
  (void)state;
  check_attr("1.0 : f32", "1.000000e+00 : f32");
  check_attr("2.5", "2.500000e+00 : f64");
  check_attr("-0.0 : f64", "-0.000000e+00 : f64");
  check_attr("1.0e-3 : f64", "1.000000e-03 : f64");
  check_attr("0.1 : f32", "1.000000e-01 : f32");
  check_attr("1.5 : bf16", "1.500000e+00 : bf16");
  check_attr("65504.0 : f16", "6.550400e+04 : f16");
  check_attr("448.0 : f8E4M3FN", "4.480000e+02 : f8E4M3FN");
  check_attr("3 : f32", "3.000000e+00 : f32");
  /* Hex bit patterns, infinities and NaNs print as hex. */
  check_attr("0x7F800000 : f32", "0x7F800000 : f32");
  check_attr("0xFF800000 : f32", "0xFF800000 : f32");
  check_attr("0x7FC00000 : f32", "0x7FC00000 : f32");
  check_attr("0x7FF0000000000001 : f64", "0x7FF0000000000001 : f64");
  check_attr("0x3C00 : f16", "1.000000e+00 : f16");
  check_attr("inf : f32", "0x7F800000 : f32");
  check_attr("-inf : f64", "0xFFF0000000000000 : f64");
  check_attr("nan : f32", "0x7FC00000 : f32");
  /* Struct fields elide default types like array elements. */
  check_attr("#stablehlo.x<a = nan : f16, b = 3 : i32, c = [1, 2], d = 4, e = 2.5>",
             "#stablehlo.x<a = 0x7E00 : f16, b = 3 : i32, c = [1, 2], d = 4, e = 2.500000e+00>");
  /* In arrays f64 is elided, except where the hex form would read back as i64. */
  check_attr("[2.5, 1.e3000, -inf : f64, 233233333.0]",
             "[2.500000e+00, 0x7FF0000000000000 : f64, 0xFFF0000000000000 : f64, 0x41ABCDB76A000000 : f64]");
  check_attr_error("0x1FFFF : f16", SHLOC_ERR_PARSE, "too wide");
  check_attr_error("inf", SHLOC_ERR_PARSE, "needs a float type");
  check_attr_error("nan : i32", SHLOC_ERR_PARSE, "needs a float type");
  check_attr_error("inf : tensor<f32>", SHLOC_ERR_PARSE, "needs a float type");
}

static void test_other_attrs(void **state) {
  (void)state;
  /* strings, unit, arrays, dictionaries */
  check_attr("\"\"", "\"\"");
  check_attr("\"typed\" : i32", "\"typed\" : i32");
  check_attr("[unit]", "[unit]");
  check_attr("[]", "[]");
  check_attr("[1, 2.5, 3 : i32, 1.0 : f32, true, [4], {k = 5, f = 1.5}, \"s\"]",
             "[1, 2.500000e+00, 3 : i32, 1.000000e+00 : f32, true, [4], {f = 1.500000e+00 : f64, k = 5 : i64}, \"s\"]");
  check_attr("{}", "{}");
  check_attr("{b, \"quoted key\" = 1, a = {c = {d}}}", "{a = {c = {d}}, b, \"quoted key\" = 1 : i64}");
  check_attr_error("{a = 1, a = 2}", SHLOC_ERR_PARSE, "duplicate key 'a'");
  /* array<T: ...> */
  check_attr("array<i64: 1, -2>", "array<i64: 1, -2>");
  check_attr("array<i32>", "array<i32>");
  check_attr("array<f32: 1.0, 2.5>", "array<f32: 1.000000e+00, 2.500000e+00>");
  check_attr("array<i1: true, false>", "array<i1: true, false>");
  check_attr("array<i8: -128, 127>", "array<i8: -128, 127>");
  check_attr("array<f64: 0x7FF0000000000000>", "array<f64: 0x7FF0000000000000>");
  check_attr_error("array<i8: 128, 300>", SHLOC_ERR_PARSE, "out of range");
  check_attr_error("array<f32: \"x\">", SHLOC_ERR_PARSE, "expected floating point literal");
  check_attr_error("array<tensor<f32>: 1>", SHLOC_ERR_PARSE, "element type");
  /* symbol references */
  check_attr("@f", "@f");
  check_attr("@a::@b::@c", "@a::@b::@c");
  check_attr("@\"q x\"::@\"y\"", "@\"q x\"::@\"y\"");
  check_attr("[@f, @g]", "[@f, @g]");
  check_attr("@f // comment\n", "@f");
  check_attr_error("@a::b", SHLOC_ERR_PARSE, "expected '@' after '::'");
  /* types as attributes */
  check_attr("f32", "f32");
  check_attr("tensor<?x3x0xf32>", "tensor<?x3x0xf32>");
  check_attr("tensor<*xi8>", "tensor<*xi8>");
  check_attr("(i32, f32) -> ()", "(i32, f32) -> ()");
  check_attr("() -> (i32, i32)", "() -> (i32, i32)");
  check_attr("tuple<tensor<f32>, !stablehlo.token>", "tuple<tensor<f32>, !stablehlo.token>");
  check_attr("complex<f64>", "complex<f64>");
  check_attr("none", "none");
  check_attr("tensor<2x?xf32, #stablehlo.bounds<?, 4>>", "tensor<2x?xf32, #stablehlo.bounds<?, 4>>");
  /* StableHLO's structured attributes print their fields in declaration
   * order; dialect attributes written over several lines print on one. */
  check_attr("#stablehlo.scatter<index_vector_dim = 1, scatter_indices_batching_dims = [0], update_window_dims = [1]>",
             "#stablehlo.scatter<update_window_dims = [1], scatter_indices_batching_dims = [0], index_vector_dim = 1>");
  check_attr("#stablehlo.dot<lhs_contracting_dimensions = [1], rhs_batching_dimensions = [0]>",
             "#stablehlo.dot<rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1]>");
  check_attr("#sdy.x<\n  a = [\n    \"p  q\",\n    2\n  ]\n>", "#sdy.x<a = [\"p  q\", 2]>");
  /* Quantized types print as MLIR prints them (scales in its float format). */
  check_attr("tensor<4x!quant.uniform<i8:f32, 0.5:10>>", "tensor<4x!quant.uniform<i8:f32, 5.000000e-01:10>>");
  check_attr_error("tensor<?x*xf32>", SHLOC_ERR_PARSE, "expected type");
  check_attr_error("tensor<2x3>", SHLOC_ERR_PARSE, "expected type");
  check_attr_error("tensor<2xtensor<f32>>", SHLOC_ERR_PARSE, "expected element type");
  check_attr_error("complex<i32>", SHLOC_ERR_PARSE, "complex<f32>");
  check_attr_error("foo", SHLOC_ERR_PARSE, "unknown type 'foo'");
  /* #stablehlo structured and enum attributes */
  check_attr("#stablehlo<comparison_direction LT>", "#stablehlo<comparison_direction LT>");
  check_attr("[#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]",
             "[#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]");
  check_attr("#chlo<comparison_direction EQ>", "#chlo<comparison_direction EQ>");
  check_attr("#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], "
             "index_vector_dim = 1>",
             "#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], "
             "index_vector_dim = 1>");
  check_attr("#stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], "
             "lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>",
             "#stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], "
             "lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>");
  check_attr("#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>",
             "#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>");
  check_attr("#stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = "
             "[1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, "
             "kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, "
             "output_spatial_dimensions = [1, 2]>",
             "#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>");
  check_attr("#stablehlo.conv<raw kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, "
             "output_feature_dimension = 3, output_spatial_dimensions = [1, 2], input_batch_dimension = 0, "
             "input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, "
             "kernel_output_feature_dimension = 3>",
             "#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>");
  /* Anything else named stablehlo.conv is kept verbatim. */
  check_attr("#stablehlo.conv<>", "#stablehlo.conv<>");
  check_attr("#stablehlo.conv<raw input_batch_dimension = 0>", "#stablehlo.conv<raw input_batch_dimension = 0>");
  check_attr("#stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 0, input_spatial_dimensions = "
             "[], kernel_input_feature_dimension = 0, kernel_output_feature_dimension = 1, kernel_spatial_dimensions = "
             "[], output_batch_dimension = 0, output_feature_dimension = 1, output_spatial_dimensions = []>",
             "#stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 0, input_spatial_dimensions = "
             "[], kernel_input_feature_dimension = 0, kernel_output_feature_dimension = 1, kernel_spatial_dimensions = "
             "[], output_batch_dimension = 0, output_feature_dimension = 1, output_spatial_dimensions = []>");
  check_attr("#stablehlo.conv<a = 1>", "#stablehlo.conv<a = 1>");
  check_attr("#stablehlo.channel_handle<handle = 1, type = 2>", "#stablehlo.channel_handle<handle = 1, type = 2>");
  check_attr("#stablehlo.result_accuracy<atol = 0.0, rtol = 0.0, ulps = 0, mode = "
             "#stablehlo.result_accuracy_mode<DEFAULT>>",
             "#stablehlo.result_accuracy<atol = 0.000000e+00, rtol = 0.000000e+00, ulps = 0, mode = "
             "#stablehlo.result_accuracy_mode<DEFAULT>>");
  check_attr("#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = "
             "[]>",
             "#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = "
             "[]>");
  check_attr("#stablehlo.type_extensions<bounds = [4, ?]>", "#stablehlo.type_extensions<bounds = [4, ?]>");
  /* Unknown shapes of stablehlo attributes and other dialects stay verbatim. */
  check_attr("#stablehlo.future<whatever {x} -> [y]>", "#stablehlo.future<whatever {x} -> [y]>");
  check_attr("#sdy.sharding<@mesh, [{}, {\"x\"}]>", "#sdy.sharding<@mesh, [{}, {\"x\"}]>");
  check_attr("#sdy.mesh<[\"a\"=2, \"b\"=4]>", "#sdy.mesh<[\"a\"=2, \"b\"=4]>");
  check_attr("!quant.uniform<i8:f32, 0.5:10>", "!quant.uniform<i8:f32, 5.000000e-01:10>");
  check_attr("!quant.uniform<i8<-127:127>:f32:1, {0.5:1, 0.25:2}>",
             "!quant.uniform<i8<-127:127>:f32:1, {5.000000e-01:1,2.500000e-01:2}>");
  /* Default bounds and zero zero points are left out, as MLIR does. */
  check_attr("!quant.uniform<i8<-128:127>:f32, 2.0:0>", "!quant.uniform<i8:f32, 2.000000e+00>");
  check_attr("#foo.bar", "#foo.bar");
  check_attr("#foo<\"x > y\">", "#foo<\"x > y\">");
  check_attr("!foo.bar<\"x\" -> y>", "!foo.bar<\"x\" -> y>");
  check_attr("dense_resource<blob> : tensor<3xf32>", "dense_resource<blob> : tensor<3xf32>");
  check_attr("affine_map<(d0) -> (d0)>", "affine_map<(d0) -> (d0)>");
  check_attr_error("#sdy.sharding<@mesh, [{}, {\"x\"}]", SHLOC_ERR_PARSE, "");
  check_attr_error("#sdy.sharding<@mesh)>", SHLOC_ERR_PARSE, "mismatched ')'");
  check_attr_error("!quant.uniform<f32:f32, 1.0>", SHLOC_ERR_PARSE, "storage type");
}

static void test_aliases(void **state) {
  (void)state;
  char *p = round_trip("#a = {x = 1 : i32}\n#b = [#a, #a]\n!t = tensor<2xf32>\n!u = tuple<!t, !t>\n"
                       "%r = \"t.op\"() {a = #a, b = #b, c = !u} : () -> !t\n");
  assert_string_equal(p, "module {\n  %0 = \"t.op\"() {a = {x = 1 : i32}, b = [{x = 1 : i32}, {x = 1 : i32}], c = "
                         "tuple<tensor<2xf32>, tensor<2xf32>>} : () -> tensor<2xf32>\n}\n");
  free(p);
  expect_error("\"t.op\"() {a = #nope} : () -> ()", SHLOC_ERR_PARSE, "undefined attribute alias '#nope'", 1, 15);
  expect_error("\"t.op\"() : () -> !nope", SHLOC_ERR_PARSE, "undefined type alias '!nope'", 1, 18);
  expect_error("#a = 1\n#a = 2\n", SHLOC_ERR_PARSE, "redefinition of alias '#a'", 2, 1);
  expect_error("!a = f32\n!a = i32\n", SHLOC_ERR_PARSE, "redefinition of alias '!a'", 2, 1);
  expect_error("#a = \n", SHLOC_ERR_PARSE, "expected attribute value", 2, 1);
}

static void test_locations(void **state) {
  (void)state;
  static const char text[] = "func.func @f(%a: tensor<f32> loc(\"arg\")) -> tensor<f32> {\n"
                             "  %0 = stablehlo.add %a, %a : tensor<f32> loc(\"x\")\n"
                             "  %1 = stablehlo.add %0, %a : tensor<f32> loc(#loc3)\n"
                             "  %2 = stablehlo.add %1, %a : tensor<f32> loc(\"f.py\":3:4 to 5:6)\n"
                             "  %3 = stablehlo.add %2, %a : tensor<f32> loc(\"f.py\":3:4 to :9)\n"
                             "  %4 = stablehlo.add %3, %a : tensor<f32> loc(callsite(#loc3 at \"g.py\":1:1))\n"
                             "  %5 = stablehlo.add %4, %a : tensor<f32> loc(fused<\"meta\">[#loc3, \"n\"(\"h.py\":2:2)])\n"
                             "  %6 = stablehlo.add %5, %a : tensor<f32> loc(\"name\"(unknown))\n"
                             "  return %6 : tensor<f32> loc(unknown)\n"
                             "} loc(#loc)\n"
                             "#loc = loc(\"f.py\":1:1)\n"
                             "#loc3 = loc(\"n3\"(#loc))\n";
  char *p = round_trip(text);
  assert_null(strstr(p, "loc"));
  free(p);
  p = reprint(text, SHLOC_PRINT_DEBUGINFO);
  static const char *const want[] = {
      "func.func @f(%arg0: tensor<f32> loc(\"arg\")) -> tensor<f32> {\n",
      "loc(\"x\")\n",
      "loc(#loc3)\n",
      "loc(\"f.py\":3:4 to 5:6)\n",
      "loc(\"f.py\":3:4 to :9)\n",
      "loc(callsite(#loc3 at \"g.py\":1:1))\n",
      "loc(fused<\"meta\">[#loc3, \"n\"(\"h.py\":2:2)])\n",
      "loc(\"name\"(unknown))\n",
      "loc(unknown)\n",
      "} loc(#loc)\n",
      "\n#loc = loc(\"f.py\":1:1)\n#loc3 = loc(\"n3\"(#loc))\n",
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    if (!strstr(p, want[i])) fail_msg("missing %s in\n%s", want[i], p);
  free(p);
  /* Block argument locations, in the generic form's block headers. */
  static const char region[] = "\"t.op\"() ({\n^bb0(%a: tensor<f32> loc(\"p\"), %b: tensor<f32>):\n"
                               "  \"t.end\"(%a, %b) : (tensor<f32>, tensor<f32>) -> ()\n}) : () -> ()\n";
  p = reprint(region, SHLOC_PRINT_DEBUGINFO);
  if (!strstr(p, "^bb0(%arg0: tensor<f32> loc(\"p\"), %arg1: tensor<f32>):\n")) fail_msg("block argument locations:\n%s", p);
  free(p);
  /* The pretty reduce form's `reducer(...)` pairs: pair i declares arguments i and i + N. */
  static const char reducer[] =
      "func.func @f(%x: tensor<2xf32>, %y: tensor<2xi32>, %i: tensor<f32>, %j: tensor<i32>) -> (tensor<f32>, tensor<i32>) {\n"
      "  %0:2 = stablehlo.reduce(%x init: %i), (%y init: %j) across dimensions = [0] : (tensor<2xf32>, tensor<2xi32>, "
      "tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)\n"
      "   reducer(%a: tensor<f32> loc(\"a\"), %b: tensor<f32> loc(\"b\")) (%c: tensor<i32> loc(\"c\"), %d: tensor<i32>) {\n"
      "    %1 = stablehlo.add %a, %b : tensor<f32>\n    %2 = stablehlo.add %c, %d : tensor<i32>\n"
      "    stablehlo.return %1, %2 : tensor<f32>, tensor<i32>\n  }\n"
      "  return %0#0, %0#1 : tensor<f32>, tensor<i32>\n}\n";
  p = reprint(reducer, SHLOC_PRINT_DEBUGINFO);
  if (!strstr(p, "reducer(%arg4: tensor<f32> loc(\"a\"), %arg6: tensor<f32> loc(\"b\")) (%arg5: tensor<i32> loc(\"c\"), "
                 "%arg7: tensor<i32>)"))
    fail_msg("reducer argument locations:\n%s", p);
  free(p);
  p = reprint(reducer, SHLOC_PRINT_DEBUGINFO | SHLOC_PRINT_GENERIC);
  if (!strstr(p, "^bb0(%arg4: tensor<f32> loc(\"a\"), %arg5: tensor<i32> loc(\"c\"), %arg6: tensor<f32> loc(\"b\"), "
                 "%arg7: tensor<i32>):"))
    fail_msg("reducer argument locations, generic:\n%s", p);
  free(p);
  /* More arguments than the parser's stack buffer holds. */
  char many[6000];
  size_t len = (size_t)snprintf(many, sizeof many, "\"t.op\"() ({\n^bb0(");
  for (int i = 0; i < 99; i++) len += (size_t)snprintf(many + len, sizeof many - len, "%%a%d: tensor<f32> loc(\"q\"), ", i);
  snprintf(many + len, sizeof many - len, "%%z: tensor<f32> loc(\"last\")):\n  \"t.end\"() : () -> ()\n}) : () -> ()\n");
  p = reprint(many, SHLOC_PRINT_DEBUGINFO);
  if (!strstr(p, "%arg98: tensor<f32> loc(\"q\"), %arg99: tensor<f32> loc(\"last\")):")) fail_msg("100 block arguments:\n%s", p);
  free(p);
  expect_error("\"t.op\"() : () -> () loc(\"x\"", SHLOC_ERR_PARSE, "unbalanced '('", 1, 28);
  expect_error("\"t.op\"() : () -> () loc(\"x\"]", SHLOC_ERR_PARSE, "mismatched ']'", 1, 28);
}

static void test_resources(void **state) {
  (void)state;
  static const char text[] = "\"t.op\"() {r = dense_resource<blob> : tensor<2xi8>} : () -> ()\n"
                             "{-#\n  dialect_resources: {\n    builtin: {\n      blob: \"0x010000000102\"\n    }\n  }\n#-}\n";
  char *p = round_trip(text);
  assert_non_null(strstr(p, "{-#\n  dialect_resources: {\n    builtin: {\n      blob: \"0x010000000102\"\n    }\n  }\n#-}\n"));
  free(p);
  expect_error("module {}\n{-# dialect_resources: {\n", SHLOC_ERR_PARSE, "unterminated '{-#' section", 0, 0);
  expect_error("{-# a #-}\n{-# b #-}\n", SHLOC_ERR_PARSE, "more than one", 0, 0);
  expect_error("{-# a #-}\nmodule {}\n", SHLOC_ERR_PARSE, "after the '{-#' section", 0, 0);
}

static void test_values_and_blocks(void **state) {
  (void)state;
  static const char text[] =
      "func.func @f(%arg0: tensor<i32>) -> tensor<i32> {\n"
      "  %a, %b = \"t.pair\"(%arg0) : (tensor<i32>) -> (tensor<i32>, tensor<i32>)\n"
      "  %m:3, %n = \"t.four\"(%a, %b) : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>, tensor<i32>, "
      "tensor<i32>)\n"
      "  %s = stablehlo.add %m#2, %n : tensor<i32>\n"
      "  %r = \"t.r\"(%s) ({\n"
      "  ^bb0(%x: tensor<i32>, %y: tensor<i32>):\n"
      "    %z = stablehlo.add %x, %m#0 : tensor<i32>\n"
      "    \"t.yield\"(%z) : (tensor<i32>) -> ()\n"
      "  ^bb1:\n"
      "    \"t.yield\"(%y) : (tensor<i32>) -> ()\n"
      "  }, {\n"
      "  }) : (tensor<i32>) -> tensor<i32>\n"
      "  return %r : tensor<i32>\n"
      "}\n";
  char *p = round_trip(text);
  assert_non_null(strstr(p, "%0:2 = \"t.pair\"(%arg0)"));
  assert_non_null(strstr(p, "%1:4 = \"t.four\"(%0#0, %0#1)"));
  assert_non_null(strstr(p, "%2 = stablehlo.add %1#2, %1#3 : tensor<i32>"));
  assert_non_null(strstr(p, "^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):"));
  assert_non_null(strstr(p, "%4 = stablehlo.add %arg1, %1#0 : tensor<i32>"));
  assert_non_null(strstr(p, "^bb1:"));
  free(p);
  expect_error("\"t.a\"(%x) : (tensor<i32>) -> ()", SHLOC_ERR_PARSE, "undeclared SSA value '%x'", 1, 7);
  expect_error("%a:2 = \"t.a\"() : () -> (i32, i32)\n\"t.b\"(%a) : (i32) -> ()", SHLOC_ERR_PARSE,
               "names 2 results", 2, 7);
  expect_error("%a:2 = \"t.a\"() : () -> (i32, i32)\n\"t.b\"(%a#2) : (i32) -> ()", SHLOC_ERR_PARSE,
               "result number 2 out of range", 2, 7);
  expect_error("%a = \"t.a\"() : () -> (i32, i32)", SHLOC_ERR_PARSE, "defines 2 results but 1 names", 1, 1);
  expect_error("%a = \"t.a\"() : () -> i32\n%a = \"t.a\"() : () -> i32", SHLOC_ERR_PARSE, "redefinition", 2, 1);
  expect_error("%a:0 = \"t.a\"() : () -> ()", SHLOC_ERR_PARSE, "invalid result count", 1, 4);
  expect_error("%a:600000, %b:600000 = \"t.a\"() : () -> ()", SHLOC_ERR_PARSE, "invalid result count", 1, 15);
  expect_error("\"t.a\"() ({\n^bb0(%x: i32, %x: i32):\n}) : () -> ()", SHLOC_ERR_PARSE, "redefinition", 2, 15);
  expect_error("\"t.a\"(%x#1) : () -> ()", SHLOC_ERR_PARSE, "undeclared", 1, 7);
  /* Generic isolated ops get a fresh name scope too, as their printed names
   * restart there. */
  p = round_trip("func.func @f(%arg0: i32) {\n"
                 "  \"builtin.module\"() ({\n"
                 "    \"func.func\"() <{function_type = (i32) -> (), sym_name = \"g\"}> ({\n"
                 "    ^bb0(%arg0: i32):\n"
                 "      \"func.return\"() : () -> ()\n"
                 "    }) : () -> ()\n"
                 "  }) : () -> ()\n"
                 "  return\n"
                 "}\n");
  free(p);
  expect_error("func.func @f(%a: i32) {\n  \"builtin.module\"() ({\n  \"t.b\"(%a) : (i32) -> ()\n  }) : () -> ()\n"
               "  return\n}\n",
               SHLOC_ERR_PARSE, "undeclared SSA value '%a'", 3, 9);
  /* Values of an isolated function are not visible in the next one. */
  expect_error("func.func @f(%a: i32) {\n  return\n}\nfunc.func @g() {\n  \"t.b\"(%a) : (i32) -> ()\n  return\n}\n",
               SHLOC_ERR_PARSE, "undeclared SSA value '%a'", 5, 9);
}

/* ---- dense literals ------------------------------------------------------------ */

static void test_dense_lists_and_splats(void **state) {
  (void)state;
  check_attr("dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>", "dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>");
  check_attr("dense<[[1, 1], [1, 1]]> : tensor<2x2xi32>", "dense<1> : tensor<2x2xi32>");
  check_attr("dense<5> : tensor<3x3xi8>", "dense<5> : tensor<3x3xi8>");
  check_attr("dense<1.0> : tensor<f32>", "dense<1.000000e+00> : tensor<f32>");
  check_attr("dense<[010, 11]> : tensor<2xi32>", "dense<[10, 11]> : tensor<2xi32>");
  check_attr("dense<[1, 2, 3]> : tensor<3xindex>", "dense<[1, 2, 3]> : tensor<3xindex>");
  check_attr("dense<[[[1], [2]]]> : tensor<1x2x1xi64>", "dense<[[[1], [2]]]> : tensor<1x2x1xi64>");
  check_attr("dense<> : tensor<0xf32>", "dense<> : tensor<0xf32>");
  check_attr("dense<[]> : tensor<0xf32>", "dense<> : tensor<0xf32>");
  check_attr("dense<[[]]> : tensor<1x0xf32>", "dense<> : tensor<1x0xf32>");
  /* booleans */
  check_attr("dense<[true, false]> : tensor<2xi1>", "dense<[true, false]> : tensor<2xi1>");
  check_attr("dense<true> : tensor<4xi1>", "dense<true> : tensor<4xi1>");
  check_attr("dense<[1, 0]> : tensor<2xi1>", "dense<[true, false]> : tensor<2xi1>");
  /* complex */
  check_attr("dense<[(1.0, 2.0), (3.0, -4.0)]> : tensor<2xcomplex<f32>>",
             "dense<[(1.000000e+00,2.000000e+00), (3.000000e+00,-4.000000e+00)]> : tensor<2xcomplex<f32>>");
  check_attr("dense<(1.0, 0.5)> : tensor<complex<f64>>", "dense<(1.000000e+00,5.000000e-01)> : tensor<complex<f64>>");
  /* every element type */
  static const struct {
    const char *in, *out;
  } types[] = {
      {"dense<[-1, 1]> : tensor<2xi2>", "dense<[-1, 1]> : tensor<2xi2>"},
      {"dense<[-8, 7]> : tensor<2xi4>", "dense<[-8, 7]> : tensor<2xi4>"},
      {"dense<[-128, 127]> : tensor<2xi8>", "dense<[-128, 127]> : tensor<2xi8>"},
      {"dense<[-32768, 65535]> : tensor<2xi16>", "dense<[-32768, -1]> : tensor<2xi16>"},
      {"dense<[-2147483648, 1]> : tensor<2xi32>", "dense<[-2147483648, 1]> : tensor<2xi32>"},
      {"dense<[-9223372036854775808, 1]> : tensor<2xi64>", "dense<[-9223372036854775808, 1]> : tensor<2xi64>"},
      {"dense<[-2, 1]> : tensor<2xsi2>", "dense<[-2, 1]> : tensor<2xsi2>"},
      {"dense<[-8, 1]> : tensor<2xsi4>", "dense<[-8, 1]> : tensor<2xsi4>"},
      {"dense<[-1, 1]> : tensor<2xsi8>", "dense<[-1, 1]> : tensor<2xsi8>"},
      {"dense<[-1, 1]> : tensor<2xsi16>", "dense<[-1, 1]> : tensor<2xsi16>"},
      {"dense<[-1, 1]> : tensor<2xsi32>", "dense<[-1, 1]> : tensor<2xsi32>"},
      {"dense<[-1, 1]> : tensor<2xsi64>", "dense<[-1, 1]> : tensor<2xsi64>"},
      {"dense<[3, 1]> : tensor<2xui2>", "dense<[3, 1]> : tensor<2xui2>"},
      {"dense<[15, 1]> : tensor<2xui4>", "dense<[15, 1]> : tensor<2xui4>"},
      {"dense<[255, 1]> : tensor<2xui8>", "dense<[255, 1]> : tensor<2xui8>"},
      {"dense<[65535, 1]> : tensor<2xui16>", "dense<[65535, 1]> : tensor<2xui16>"},
      {"dense<[4294967295, 1]> : tensor<2xui32>", "dense<[4294967295, 1]> : tensor<2xui32>"},
      {"dense<[18446744073709551615, 1]> : tensor<2xui64>", "dense<[18446744073709551615, 1]> : tensor<2xui64>"},
      {"dense<[0.5, -6.0]> : tensor<2xf4E2M1FN>", "dense<[5.000000e-01, -6.000000e+00]> : tensor<2xf4E2M1FN>"},
      {"dense<[0.5, 7.5]> : tensor<2xf6E2M3FN>", "dense<[5.000000e-01, 7.500000e+00]> : tensor<2xf6E2M3FN>"},
      {"dense<[0.5, 28.0]> : tensor<2xf6E3M2FN>", "dense<[5.000000e-01, 2.800000e+01]> : tensor<2xf6E3M2FN>"},
      {"dense<[0.5, 1.0]> : tensor<2xf8E3M4>", "dense<[5.000000e-01, 1.000000e+00]> : tensor<2xf8E3M4>"},
      {"dense<[0.5, 1.0]> : tensor<2xf8E4M3>", "dense<[5.000000e-01, 1.000000e+00]> : tensor<2xf8E4M3>"},
      {"dense<[0.5, 448.0]> : tensor<2xf8E4M3FN>", "dense<[5.000000e-01, 4.480000e+02]> : tensor<2xf8E4M3FN>"},
      {"dense<[0.5, 1.0]> : tensor<2xf8E4M3FNUZ>", "dense<[5.000000e-01, 1.000000e+00]> : tensor<2xf8E4M3FNUZ>"},
      {"dense<[0.5, 1.0]> : tensor<2xf8E4M3B11FNUZ>", "dense<[5.000000e-01, 1.000000e+00]> : tensor<2xf8E4M3B11FNUZ>"},
      {"dense<[0.5, 1.0]> : tensor<2xf8E5M2>", "dense<[5.000000e-01, 1.000000e+00]> : tensor<2xf8E5M2>"},
      {"dense<[0.5, 1.0]> : tensor<2xf8E5M2FNUZ>", "dense<[5.000000e-01, 1.000000e+00]> : tensor<2xf8E5M2FNUZ>"},
      {"dense<[0.5, 1.0]> : tensor<2xf8E8M0FNU>", "dense<[5.000000e-01, 1.000000e+00]> : tensor<2xf8E8M0FNU>"},
      {"dense<[1.5, -2.0]> : tensor<2xbf16>", "dense<[1.500000e+00, -2.000000e+00]> : tensor<2xbf16>"},
      {"dense<[1.5, -2.0]> : tensor<2xf16>", "dense<[1.500000e+00, -2.000000e+00]> : tensor<2xf16>"},
      {"dense<[1.0, 2.0]> : tensor<2xtf32>", "dense<[1.000000e+00, 2.000000e+00]> : tensor<2xtf32>"},
      {"dense<[1.0, 0x7FC00000]> : tensor<2xf32>", "dense<[1.000000e+00, 0x7FC00000]> : tensor<2xf32>"},
      {"dense<[1.0, -0.0]> : tensor<2xf64>", "dense<[1.000000e+00, -0.000000e+00]> : tensor<2xf64>"},
      {"dense<[inf, -inf, nan]> : tensor<3xf32>", "dense<[0x7F800000, 0xFF800000, 0x7FC00000]> : tensor<3xf32>"},
      {"dense<[1, -2]> : tensor<2x!quant.uniform<i8:f32, 0.5:10>>",
       "dense<[1, -2]> : tensor<2x!quant.uniform<i8:f32, 5.000000e-01:10>>"},
  };
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) check_attr(types[i].in, types[i].out);
}

static void test_dense_hex(void **state) {
  (void)state;
  check_attr("dense<\"0x0000803F00000040\"> : tensor<2xf32>", "dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>");
  check_attr("dense<\"0x0000803F\"> : tensor<4xf32>", "dense<1.000000e+00> : tensor<4xf32>");
  check_attr("dense<\"0x0000803f0000803F\"> : tensor<2xf32>", "dense<1.000000e+00> : tensor<2xf32>");
  check_attr("dense<\"0x\"> : tensor<0xi8>", "dense<> : tensor<0xi8>");
  check_attr("dense<\"0x0F0E\"> : tensor<2xi4>", "dense<[-1, -2]> : tensor<2xi4>");
  check_attr("dense<\"0xFF01\"> : tensor<2xui2>", "dense<[3, 1]> : tensor<2xui2>");
  check_attr("dense<\"0x000000000000F03F0000000000000040\"> : tensor<complex<f64>>",
             "dense<(1.000000e+00,2.000000e+00)> : tensor<complex<f64>>");
  /* i1 is bit-packed, least significant bit first; one byte 00/FF is a splat. */
  check_attr("dense<\"0x05\"> : tensor<3xi1>", "dense<[true, false, true]> : tensor<3xi1>");
  check_attr("dense<\"0x0102\"> : tensor<10xi1>",
             "dense<[true, false, false, false, false, false, false, false, false, true]> : tensor<10xi1>");
  check_attr("dense<\"0xFF\"> : tensor<12xi1>", "dense<true> : tensor<12xi1>");
  check_attr("dense<\"0x00\"> : tensor<12xi1>", "dense<false> : tensor<12xi1>");
  check_attr_error("dense<\"0x0F\"> : tensor<12xi1>", SHLOC_ERR_PARSE, "0x00 or 0xFF");
  check_attr_error("dense<\"0x0101\"> : tensor<4xi1>", SHLOC_ERR_PARSE, "hex data has 2 bytes");
  /* Large constants print as hex (as MLIR does above 100 elements). */
  char attr[1024], want[1024], *o = attr;
  o += sprintf(o, "dense<[");
  for (int i = 0; i < 101; i++) o += sprintf(o, "%s%d", i ? ", " : "", i % 3 == 0);
  sprintf(o, "]> : tensor<101xi1>");
  o = want;
  o += sprintf(o, "dense<\"0x");
  for (int byte = 0; byte < 13; byte++) {
    unsigned v = 0;
    for (int i = byte * 8; i < byte * 8 + 8 && i < 101; i++) v |= (unsigned)(i % 3 == 0) << (i % 8);
    o += sprintf(o, "%02X", v);
  }
  sprintf(o, "\"> : tensor<101xi1>");
  check_attr(attr, want);
  o = attr;
  o += sprintf(o, "dense<[");
  for (int i = 0; i < 101; i++) o += sprintf(o, "%s%d", i ? ", " : "", i % 16 - 8);
  sprintf(o, "]> : tensor<101xi4>");
  o = want;
  o += sprintf(o, "dense<\"0x");
  for (int i = 0; i < 101; i++) o += sprintf(o, "%02X", (i % 16 - 8) & 15);
  sprintf(o, "\"> : tensor<101xi4>");
  check_attr(attr, want);
  o = attr;
  o += sprintf(o, "dense<\"0x");
  for (int i = 0; i < 128; i++) o += sprintf(o, "%02x", i);
  sprintf(o, "\"> : tensor<2x2x32xui8>");
  o = want;
  o += sprintf(o, "dense<\"0x");
  for (int i = 0; i < 128; i++) o += sprintf(o, "%02X", i);
  sprintf(o, "\"> : tensor<2x2x32xui8>");
  check_attr(attr, want);
  /* Every digit next to the valid ranges is rejected, wherever it sits in a
   * long blob (the decoder works on 32 digits at a time). */
  static const char bad_digits[] = "/:@G`g\x80";
  for (const char *b = bad_digits; *b; b++) {
    for (int at = 0; at < 2 * 40; at += 13) {
      o = attr;
      o += sprintf(o, "dense<\"0x");
      for (int i = 0; i < 40; i++) o += sprintf(o, "%02x", i + 160);
      attr[9 + at] = *b;
      sprintf(o, "\"> : tensor<40xui8>");
      check_attr_error(attr, SHLOC_ERR_PARSE, "invalid hex digit");
    }
  }
  /* Two elements of rank 70: too deep for nested lists, printed as hex. */
  o = attr;
  o += sprintf(o, "dense<\"0x0102\"> : tensor<2x");
  for (int i = 0; i < 69; i++) o += sprintf(o, "1x");
  sprintf(o, "i8>");
  o = want;
  o += sprintf(o, "dense<\"0x0102\"> : tensor<2x");
  for (int i = 0; i < 69; i++) o += sprintf(o, "1x");
  sprintf(o, "i8>");
  check_attr(attr, want);
}

static void test_dense_errors(void **state) {
  (void)state;
  static const struct {
    const char *attr, *msg;
  } bad[] = {
      {"dense<[1, 2, 3]> : tensor<2xi32>", "does not match"},
      {"dense<[[1], [2, 3]]> : tensor<2x2xi32>", "different lengths"},
      {"dense<[[1, 2]]> : tensor<2xi32>", "does not match"},
      {"dense<[1, [2]]> : tensor<2xi32>", "inconsistent nesting"},
      {"dense<[[1], 2]> : tensor<2x1xi32>", "inconsistent nesting"},
      {"dense<[1]> : tensor<i32>", "does not match"},
      {"dense<[1, 2]> : tensor<2x1xi32>", "does not match"},
      {"dense<> : tensor<2xi32>", "empty dense literal"},
      {"dense<\"0x0102\"> : tensor<3xi8>", "hex data has 2 bytes"},
      {"dense<\"0x010\"> : tensor<2xi8>", "hex data"},
      {"dense<\"0xZZ\"> : tensor<1xi8>", "invalid hex digit"},
      {"dense<\"0x01zz\"> : tensor<2xi8>", "invalid hex digit"},
      {"dense<\"abc\"> : tensor<1xi8>", "must be hexadecimal"},
      {"dense<\"\"> : tensor<1xi8>", "must be hexadecimal"},
      {"dense<1> : tensor<?xf32>", "statically shaped"},
      {"dense<1> : tensor<*xf32>", "statically shaped"},
      {"dense<1> : i32", "statically shaped"},
      {"dense<1.5> : tensor<2xi32>", "expected integer literal"},
      {"dense<300> : tensor<i8>", "out of range"},
      {"dense<-1> : tensor<ui8>", "negative"},
      {"dense<2> : tensor<i1>", "out of range"},
      {"dense<(1.0, 2.0)> : tensor<f32>", "complex literal for a non-complex type"},
      {"dense<1.0> : tensor<complex<f32>>", "needs (re, im)"},
      {"dense<[(1.0, 2.0), 3.0]> : tensor<2xcomplex<f32>>", "needs (re, im)"},
      {"dense<[3.0, (1.0, 2.0)]> : tensor<2xcomplex<f32>>", "needs (re, im)"},
      {"dense<(1.0, 2.0, 3.0)> : tensor<complex<f32>>", "expected ')'"},
      {"dense<[\"a\"]> : tensor<1xi8>", "expected element literal"},
      {"dense<[1, 2> : tensor<2xi8>", "expected ']'"},
      {"dense<[1, 2]>", "expected ':'"},
      {"dense<[1, 2] : tensor<2xi8>", "expected '>'"},
      {"dense<true> : tensor<f32>", "expected floating point literal"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) check_attr_error(bad[i].attr, SHLOC_ERR_PARSE, bad[i].msg);
  /* Nested lists deeper than any tensor rank they could describe. */
  char *deep = repeat("\"t.op\"() {x = dense<", "[", 70, "1", "]", "> : tensor<1xi8>} : () -> ()");
  expect_error(deep, SHLOC_ERR_PARSE, "nested too deeply", 0, 0);
  free(deep);
}

/* ---- positions ------------------------------------------------------------------- */

static void test_error_positions(void **state) {
  (void)state;
  expect_error("module {\n  func.func @f() {\n    %0 = stablehlo.add %x, %x : tensor<f32>\n", SHLOC_ERR_PARSE,
               "undeclared SSA value '%x'", 3, 24);
  expect_error("module {\n", SHLOC_ERR_PARSE, "expected '}', found end of input", 2, 1);
  expect_error("\"t.op\"() : () -> tensor<2x3xf32", SHLOC_ERR_PARSE, "expected '>'", 1, 32);
  expect_error("\"t.op\"() : () -> tensor<2xq32>", SHLOC_ERR_PARSE, "unknown type 'q32'", 1, 27);
  expect_error("  \t// comment\n\n   stablehlo.nope %a", SHLOC_ERR_PARSE, "custom op 'stablehlo.nope'", 3, 4);
  expect_error("\"t.op\"() {x = dense<[1, 2]> : tensor<3xi8>} : () -> ()", SHLOC_ERR_PARSE, "does not match", 1, 31);
  /* first_line shifts lines (split-input-file chunks). */
  shloc_module *m = NULL;
  shloc_status st = shloc_module_parse(ctx, "chunk.mlir", "\n  %", 4, 40, &m);
  assert_non_null(st);
  const char *file;
  int line, col;
  shloc_status_location(st, &file, &line, &col);
  assert_string_equal(file, "chunk.mlir");
  assert_int_equal(line, 41);
  assert_int_equal(col, 3);
  char *r = shloc_status_render(st, "\n  %", 4);
  assert_non_null(r);
  assert_non_null(strstr(r, "chunk.mlir:41:3: error: "));
  free(r);
  shloc_status_free(st);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rich_module_round_trips),
      cmocka_unit_test(test_every_prefix),
      cmocka_unit_test(test_huge_dimensions),
      cmocka_unit_test(test_deep_nesting), cmocka_unit_test(test_opaque_bodies),
      cmocka_unit_test(test_many_attribute_names),
      cmocka_unit_test(test_bad_bytes),
      cmocka_unit_test(test_unterminated_strings),
      cmocka_unit_test(test_integer_attrs),
      cmocka_unit_test(test_float_attrs),
      cmocka_unit_test(test_other_attrs),
      cmocka_unit_test(test_aliases),
      cmocka_unit_test(test_locations),
      cmocka_unit_test(test_resources),
      cmocka_unit_test(test_values_and_blocks),
      cmocka_unit_test(test_dense_lists_and_splats),
      cmocka_unit_test(test_dense_hex),
      cmocka_unit_test(test_dense_errors),
      cmocka_unit_test(test_error_positions),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
